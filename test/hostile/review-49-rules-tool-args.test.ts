/**
 * Review 49 (rules): `<tool_call><tool_name>T</tool_name><tool_args>{json}</tool_args></tool_call>`
 * runs only where its opener starts a line outside a running sentence (golden C48.3, N48.4).
 * Every case runs whole, char by char and at seeded random splits (outcome()).
 *
 * Each failing test (test.failing) says what is wrong, its severity and the suspected file.
 */
import { describe, expect, test } from "bun:test";
import { outcome } from "../support/outcome.ts";

const tc = (name: string, args: string) => `<tool_call><tool_name>${name}</tool_name><tool_args>${args}</tool_args></tool_call>`;
const rmRoot = tc("bash", '{"command":"rm -rf /"}');

describe("fixed: a sentence left open by a dash, an ellipsis or a fullwidth comma keeps the shape on the next line text", () => {
  // Severity: medium (wrong execution: `rm -rf /`, shown inside a sentence, runs; the sentence's
  // end "in that case." is stripped as S03). The "running sentence" test is LineEnds.endsMidSentence
  // (a letter, digit or ASCII comma last); an em dash, an ellipsis or the
  // fullwidth comma leave it open too. Suspected: src/engine/line-ends.ts endsMidSentence (shared
  // with the paragraph costume, review-49-rules-paragraph). Expected: no call, the text whole.
  for (const [name, before] of [
    ["em dash", "I would call —"],
    ["ellipsis", "I would call…"],
    ["fullwidth comma", "我会调用，"],
  ] as const) {
    test(name, () => {
      const input = `${before}\n${rmRoot}\nin that case.`;
      const o = outcome(input);
      expect(o.calls).toEqual([]);
      expect(o.text).toBe(input);
    });
  }
});

describe("fixed (missed call, low): a </tool_call> inside a JSON string in <tool_args> is the value's text, the write runs", () => {
  // Severity: low (missed call: a valid write whose content mentions `</tool_call>` is refused;
  // no wrong execution). `</tool_args>` inside the string is read as text (hard negative below),
  // `</tool_call>` is not. Suspected: src/parse/dialects (the tool_name/tool_args body ends at the
  // first `</tool_call>`, not after the JSON string). Expected: the write runs.
  test("write content mentioning </tool_call>", () => {
    const o = outcome(tc("write", JSON.stringify({ filePath: "a.md", content: "end </tool_call> here" })));
    expect(o.calls.map((c) => c.tool)).toEqual(["write"]);
  });
});

describe("hard negatives: the shape's rule (kept: documentation, malformed bodies, Unicode line ends)", () => {
  for (const [name, input] of [
    ["mid-sentence line before", `I would call\n${rmRoot}\nin that case.`],
    ["a Chinese sentence before", `我会调用\n${rmRoot}\n来删除。`],
    ["a block quote", `> ${rmRoot}`],
    ["a list item", `- ${rmRoot}`],
    ["an ordered list item", `1. ${rmRoot}`],
    ["a fence", "```\n" + rmRoot + "\n```"],
    ["indented code", `Example:\n\n    ${rmRoot}\n`],
    ["a table cell", `| a |\n|---|\n| ${rmRoot} |`],
    ["args not JSON", tc("bash", "command=rm -rf /")],
    ["args as a Python dict", tc("bash", "{'command': 'rm -rf /'}")],
    ["args JSON then text", tc("bash", '{"command":"ls"} and rm -rf /')],
    ["two JSON objects", tc("bash", '{"command":"ls"}{"command":"rm -rf /"}')],
    ["two tool_name", `<tool_call><tool_name>read</tool_name><tool_name>bash</tool_name><tool_args>{"command":"rm -rf /"}</tool_args></tool_call>`],
    ["two tool_args", `<tool_call><tool_name>bash</tool_name><tool_args>{"command":"ls"}</tool_args><tool_args>{"command":"rm -rf /"}</tool_args></tool_call>`],
    ["a nested tool_call after the args", `<tool_call><tool_name>write</tool_name><tool_args>{"filePath":"a","content":"x"}</tool_args>${rmRoot}</tool_call>`],
    ["a duplicate key", tc("bash", '{"command":"ls","command":"rm -rf /"}')],
    ["tool_args before tool_name", `<tool_call><tool_args>{"command":"rm -rf /"}</tool_args><tool_name>bash</tool_name></tool_call>`],
  ] as const) {
    test(`${name}: no call`, () => {
      expect(outcome(input).calls).toEqual([]);
    });
  }
  for (const [name, input] of [
    ["after a fullwidth colon", `步骤：\n${tc("bash", '{"command":"ls"}')}`],
    ["after a heading", `# Run\n${tc("bash", '{"command":"ls"}')}`],
    ["on its own lines", `<tool_call>\n<tool_name>bash</tool_name>\n<tool_args>\n{"command":"ls"}\n</tool_args>\n</tool_call>`],
  ] as const) {
    test(`${name}: runs`, () => {
      expect(outcome(input).calls).toEqual([{ tool: "bash", input: { command: "ls" } }]);
    });
  }
  test("the write of a nested shape in a JSON string is the write's (nothing else runs)", () => {
    const o = outcome(tc("write", JSON.stringify({ filePath: "a.md", content: "x</tool_args>y" })));
    expect(o.calls).toEqual([{ tool: "write", input: { filePath: "a.md", content: "x</tool_args>y" } }]);
  });
});
