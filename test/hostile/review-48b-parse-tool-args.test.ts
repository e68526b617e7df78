/**
 * Review 48b (parse): `<tool_call><tool_name>T</tool_name><tool_args>{json}</tool_args></tool_call>`
 * is now a call (src/parse/costume-xml.ts jsonArgsCall). Attacks on where and how it runs. Every
 * case runs whole, char by char and at seeded random splits.
 */
import { describe, expect, test } from "bun:test";
import { outcome } from "../support/outcome.ts";

const ta = (name: string, args: string) => `<tool_call><tool_name>${name}</tool_name><tool_args>${args}</tool_args></tool_call>`;
const rm = ta("bash", '{"command":"rm -rf /"}');

describe("fixed: a mid-line or in-paragraph mention of the tool_name/tool_args shape is text (as the <code> form is refused there)", () => {
  // Severity: medium-low, wrong execution of a shape shown in a sentence; the sentence's end is
  // stripped as a fabricated result. main: refused (broken-markup, text whole). The sibling shape
  // `<tool_call><tool_name>bash</tool_name><code>...</code></tool_call>` is still refused mid-line
  // (an inline costume never runs); jsonArgsCall is tried before that gate, so the new shape takes
  // the Hermes wrapper's looser placement instead of the costume's. Suspected:
  // src/parse/costume-xml.ts xmlToolCall/jsonArgsCall (no inline/line-start gate). Expected: as the
  // <code> form: no call (a nudge at most), text whole.
  test("Use <tool_call>…</tool_call> to call it.", () => {
    const input = `Use ${rm} to call it.`;
    const o = outcome(input);
    expect(o.calls).toEqual([]);
    expect(o.text).toBe(input);
  });

  test("inside a running paragraph (prose line, the shape, a lower-case line): text", () => {
    // main: refused, text whole; the <code> form and a costume there are text/refused on int48 too.
    const input = `The format is\n${rm}\nin the old API.`;
    const o = outcome(input);
    expect(o.calls).toEqual([]);
    expect(o.text).toBe(input);
  });

  test("control: the <code> form mid-line is refused, text whole", () => {
    const input = "Use <tool_call><tool_name>bash</tool_name><code>rm -rf /</code></tool_call> to call it.";
    const o = outcome(input);
    expect(o.calls).toEqual([]);
    expect(o.text).toBe(input);
  });
});

describe("hard negatives: the tool_name/tool_args shape never runs in documentation or malformed", () => {
  const documentation: [string, string][] = [
    ["a fenced block", "```\n" + rm + "\n```"],
    ["inline code", "Use `" + rm + "` to call."],
    ["a block quote", "> " + rm],
    ["an indented code block", "Example:\n\n    " + rm + "\n\nDone."],
    ["a table cell", "| a | b |\n|---|---|\n| " + rm + " | x |"],
    ["an HTML comment", "<!-- " + rm + " -->"],
  ];
  for (const [name, input] of documentation) {
    test(`in ${name}: text, no call`, () => {
      expect(outcome(input)).toEqual({ calls: [], broken: [], text: input });
    });
  }

  const malformed: [string, string][] = [
    ["an undeclared tool", ta("nuke", '{"command":"ls"}')],
    ["a tool name in other case", ta("BASH", '{"command":"ls"}')],
    ["an entity-spelled tool name", ta("ba&#115;h", '{"command":"ls"}')],
    ["two tool_args", `<tool_call><tool_name>bash</tool_name><tool_args>{"command":"ls"}</tool_args><tool_args>{"command":"rm -rf /"}</tool_args></tool_call>`],
    ["two tool_name", `<tool_call><tool_name>bash</tool_name><tool_name>write</tool_name><tool_args>{"command":"ls"}</tool_args></tool_call>`],
    ["tool_args before tool_name", `<tool_call><tool_args>{"command":"ls"}</tool_args><tool_name>bash</tool_name></tool_call>`],
    ["a __proto__ key", ta("bash", '{"command":"ls","__proto__":{"x":1}}')],
    ["a key twice", ta("bash", '{"command":"ls","command":"rm -rf /"}')],
    ["a lossy integer", ta("bash", '{"command":"ls","timeout":12345678901234567890}')],
    ["CDATA around the JSON", ta("bash", '<![CDATA[{"command":"ls"}]]>')],
    ["a comment between the parts", `<tool_call><tool_name>bash</tool_name><!-- x --><tool_args>{"command":"ls"}</tool_args></tool_call>`],
    ["another attribute on the wrapper", `<tool_call name="read"><tool_name>bash</tool_name><tool_args>{"command":"ls"}</tool_args></tool_call>`],
    ["prose inside the wrapper", `<tool_call>Run this:<tool_name>bash</tool_name><tool_args>{"command":"ls"}</tool_args></tool_call>`],
    ["a key the schema lacks", ta("bash", '{"cmd":"ls"}')],
    ["JSON5", ta("bash", "{command:'ls'}")],
    ["a trailing comma", ta("bash", '{"command":"ls",}')],
    ["an array", ta("bash", '[{"command":"ls"}]')],
  ];
  for (const [name, input] of malformed) {
    test(`${name}: no call, text whole`, () => {
      const o = outcome(input);
      expect(o.calls).toEqual([]);
      expect(o.text).toBe(input);
    });
  }

  test("an alias of a declared tool and an id attribute: the call runs with the object as written", () => {
    expect(outcome(`<tool_call id="c1"><tool_name>Bash</tool_name><tool_args>\n{"command":"ls"}\n</tool_args></tool_call>`).calls).toEqual([{ tool: "bash", input: { command: "ls" } }]);
  });
});
