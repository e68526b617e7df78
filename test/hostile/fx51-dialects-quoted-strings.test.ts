/**
 * Fix of review 51 (dialects) finding 1 (test/hostile/review-51-dialects-quoted-writes.test.ts): a
 * call quoted in block documentation in a dialect whose values are string literals (LFM2, Hermes
 * JSON, Kimi, Mistral, MiniMax's bracket form) keeps its holder open up to each string's own closing
 * quote (src/engine/quoted-strings.ts). Here: every holder for every dialect, what must keep
 * running (a real call after a closed quote, a call outside documentation), what ends a quote (prose
 * outside its strings), escapes, and the reader's cost (counted work, fed char by char).
 *
 * Every outcome runs whole, char by char and at seeded random splits (test/support/outcome.ts).
 */
import { describe, expect, test } from "bun:test";
import { createRepairEngine } from "../../src/engine/engine.ts";
import { fixtureTools } from "../golden/tools.ts";
import { outcome } from "../support/outcome.ts";
import { countWork } from "../support/work.ts";

const EXAMPLE = "<tool_call>\n<function=bash>\n<parameter=command>rm -rf build</parameter>\n</function>\n</tool_call>";

/** A write of `c` in each dialect (`c` as written: raw line breaks, as the review's pages). */
const WRITES: Record<string, (c: string) => string> = {
  LFM2: (c) => `<|tool_call_start|>[write(filePath='docs/calls.md', content='${c}')]<|tool_call_end|>`,
  "LFM2, double quotes": (c) => `<|tool_call_start|>[write(filePath="docs/calls.md", content="${c}")]<|tool_call_end|>`,
  "Hermes JSON": (c) => `<tool_call>\n{"name": "write", "arguments": {"filePath": "docs/calls.md", "content": "${c}"}}\n</tool_call>`,
  Kimi: (c) => `<|tool_calls_section_begin|><|tool_call_begin|>functions.write:0<|tool_call_argument_begin|>{"filePath": "docs/calls.md", "content": "${c}"}<|tool_call_end|><|tool_calls_section_end|>`,
  Mistral: (c) => `[TOOL_CALLS]write[ARGS]{"filePath": "docs/calls.md", "content": "${c}"}`,
  "Mistral, list": (c) => `[TOOL_CALLS][{"name": "write", "arguments": {"filePath": "docs/calls.md", "content": "${c}"}}]`,
  "MiniMax bracket, JSON": (c) => `[TOOL_CALL] {"tool": "write", "args": {"filePath": "docs/calls.md", "content": "${c}"}} [/TOOL_CALL]`,
  "MiniMax bracket, arrow": (c) => `[TOOL_CALL] {tool => "write", args => { --filePath "docs/calls.md" --content "${c}" }} [/TOOL_CALL]`,
};

/** The four holders of goldens N45.1-N45.4, each broken by the page the quoted write holds. */
const HOLDERS: Record<string, (w: (c: string) => string) => string> = {
  "a fence whose page has a fence": (w) => `Here is the page:\n\`\`\`\n${w(`# Calls\n\`\`\`\n${EXAMPLE}\n\`\`\``)}\n\`\`\`\nThat is all.`,
  "<details> whose page has a blank line": (w) => `<details>\n${w(`# Calls\n\nRun it like this:\n${EXAMPLE}`)}\n</details>\nThat is all.`,
  "a comment whose page has a comment closer": (w) => `<!--\n${w(`a --> b\n${EXAMPLE}`)}\n-->\nThat is all.`,
  "<pre> whose page closes pre": (w) => `Intro:\n<pre>\n${w(`Run:\n</pre>\n# T\n${EXAMPLE}`)}\n</pre>\nDone.`,
};

describe("fx51: a string-valued write quoted in documentation keeps its page documentation", () => {
  for (const [dialect, write] of Object.entries(WRITES)) {
    for (const [holder, build] of Object.entries(HOLDERS)) {
      test(`${dialect} in ${holder}: no call, the text unchanged`, () => {
        const input = build(write);
        const o = outcome(input);
        expect(o.calls).toEqual([]);
        expect(o.text).toBe(input);
      });
    }
  }

  test("an escaped quote inside the value does not close it: the fence line after it is still the value's", () => {
    const input = `Here:\n\`\`\`\n${WRITES["Hermes JSON"]!(`say \\"hi\\"\n\`\`\`\n${EXAMPLE}`)}\n\`\`\`\nThat is all.`;
    const o = outcome(input);
    expect(o.calls).toEqual([]);
    expect(o.text).toBe(input);
  });

  test("an apostrophe inside a double-quoted value is its text (LFM2 with double quotes)", () => {
    const input = `Here:\n\`\`\`\n${WRITES["LFM2, double quotes"]!(`it's\n\`\`\`\n${EXAMPLE}`)}\n\`\`\`\nThat is all.`;
    const o = outcome(input);
    expect(o.calls).toEqual([]);
    expect(o.text).toBe(input);
  });
});

describe("fx51 hard negatives: what a quote must not hold", () => {
  const REAL: Record<string, string> = {
    LFM2: "<|tool_call_start|>[bash(command='ls')]<|tool_call_end|>",
    "Hermes JSON": '<tool_call>\n{"name": "bash", "arguments": {"command": "ls"}}\n</tool_call>',
    Mistral: '[TOOL_CALLS]bash[ARGS]{"command": "ls"}',
    "MiniMax bracket, JSON": '[TOOL_CALL] {"tool": "bash", "args": {"command": "ls"}} [/TOOL_CALL]',
    "Qwen3-Coder": "<tool_call>\n<function=bash>\n<parameter=command>ls</parameter>\n</function>\n</tool_call>",
  };
  for (const [dialect, write] of Object.entries(WRITES)) {
    for (const [realDialect, real] of Object.entries(REAL)) {
      test(`a real ${realDialect} call after a closed quoted ${dialect} write in a fence runs`, () => {
        const o = outcome(`Here is the page:\n\`\`\`\n${write("# Calls")}\n\`\`\`\nNow for real:\n${real}`);
        expect(o.calls).toEqual([{ tool: "bash", input: { command: "ls" } }]);
      });
    }
  }

  test("a quoted call whose arguments never close ends at the prose after it: the fence closes and a real call runs", () => {
    const o = outcome(`Here:\n\`\`\`\n<tool_call>\n{"name": "bash", "arguments": {"command": "ls"\n\`\`\`\nNow for real:\n${REAL["Hermes JSON"]}`);
    expect(o.calls).toEqual([{ tool: "bash", input: { command: "ls" } }]);
  });

  test("an opener token mentioned in a fence with no arguments after it opens nothing", () => {
    const o = outcome(`Use these tokens:\n\`\`\`\n<|tool_call_start|> and [TOOL_CALLS] and <tool_call>\n\`\`\`\nIt's done.\n${REAL.LFM2}`);
    expect(o.calls).toEqual([{ tool: "bash", input: { command: "ls" } }]);
  });

  test("a fenced reply quoting no write goes out byte for byte", () => {
    const input = "```ts\nconst a = [1, 2, [3]];\nconst m = new Map<string, number[]>();\nif (a[0] < 2) console.log('[x]', \"<y>\");\n```\nThat's it: `[TOOL_CALLS]` is Mistral's token.";
    const o = outcome(input);
    expect(o.calls).toEqual([]);
    expect(o.text).toBe(input);
  });

  test("outside documentation each dialect's write runs as before (the quote opens only in block documentation)", () => {
    for (const [dialect, write] of Object.entries(WRITES)) {
      if (dialect === "Hermes JSON" || dialect === "Kimi" || dialect.startsWith("Mistral") || dialect.startsWith("MiniMax")) continue;
      expect(outcome(write("# Calls")).calls).toEqual([{ tool: "write", input: { filePath: "docs/calls.md", content: "# Calls" } }]);
    }
    expect(outcome(WRITES["Hermes JSON"]!("# Calls")).calls).toEqual([{ tool: "write", input: { filePath: "docs/calls.md", content: "# Calls" } }]);
    expect(outcome(WRITES.Mistral!("# Calls")).calls).toEqual([{ tool: "write", input: { filePath: "docs/calls.md", content: "# Calls" } }]);
  });
});

describe("fx51: the string-valued quote reads each character once (linear)", () => {
  const PER_CHAR = 128;
  const units = [
    "[x] ",
    "[TOOL_CALL",
    "<|tool_call_",
    "<tool_call>\n",
    '<tool_call>\n{"a": "b\\"c", "d": [1, {"e": null}]}\n</tool_call>\n',
    "<|tool_call_start|>[f(a='x\n",
    "[TOOL_CALLS]" + "n".repeat(80),
    '[TOOL_CALL] {"tool": "write", "args": {"content": "',
  ];
  for (const unit of units) {
    test(`a fence of ${JSON.stringify(unit.slice(0, 24))} repeated, fed char by char`, () => {
      const text = `\`\`\`\n${unit.repeat(Math.ceil(6000 / unit.length))}`;
      const steps = countWork(() => {
        const engine = createRepairEngine({ tools: fixtureTools, idPrefix: "call_" });
        for (let i = 0; i < text.length; i++) engine.feed(text.slice(i, i + 1));
        engine.flush();
      });
      expect(steps).toBeLessThan(PER_CHAR * text.length + 2_000);
    });
  }
});
