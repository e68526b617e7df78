/**
 * Review 51 (hostile, tests only), other models' dialects: a write call quoted in block
 * documentation (a fence, `<details>`, a comment, `<pre>`) whose content is a page that itself
 * breaks the holder (its own fence line, a blank line, `-->`, `</pre>`) and then shows a call
 * example. Review 50 (test/hostile/review-50-docs-quoted-dialects.test.ts) fixed this for quotes
 * written in DSML, Claude-style/MiniMax, Qwen3-Coder, GLM and O09 markup: the quoted value stays
 * documentation up to its own closer (docs/PATTERNS.md, "What opens such a quote"; goldens
 * N45.1-N45.4). The same quote written in any of the token or JSON dialects (LFM2's pythonic list,
 * Hermes JSON, Kimi, Mistral, MiniMax's bracket form) opens no such quote, so the page's fence line
 * ends the documentation and the example in the quoted page runs.
 *
 * Every case runs whole, char by char and at seeded random splits (test/support/outcome.ts); the
 * runs agree today, so each failing test fails on the call, not on split dependence.
 */
import { describe, expect, test } from "bun:test";
import { outcome } from "../support/outcome.ts";

/** The example the quoted page shows (Qwen3-Coder; any dialect shows the same). */
const EXAMPLE = "<tool_call>\n<function=bash>\n<parameter=command>rm -rf build</parameter>\n</function>\n</tool_call>";

const lfm2Write = (content: string) => `<|tool_call_start|>[write(filePath='docs/calls.md', content='${content}')]<|tool_call_end|>`;

/** The four holders of goldens N45.1-N45.4, as review 50 builds them: the quoted write, with the page that breaks its holder. */
const HOLDERS: Record<string, (write: (content: string) => string, example: string) => string> = {
  "a fence whose page has a fence (N45.1)": (w, ex) => `Here is the page:\n\`\`\`\n${w(`# Calls\n\`\`\`\n${ex}\n\`\`\``)}\n\`\`\`\nThat is all.`,
  "<details> whose page has a blank line (N45.2)": (w, ex) => `<details>\n${w(`# Calls\n\nRun it like this:\n${ex}`)}\n</details>\nThat is all.`,
  "a comment whose page has a comment closer (N45.3)": (w, ex) => `<!--\n${w(`a --> b\n${ex}`)}\n-->\nThat is all.`,
  "<pre> whose page closes pre (N45.4)": (w, ex) => `Intro:\n<pre>\n${w(`Run:\n</pre>\n# T\n${ex}`)}\n</pre>\nDone.`,
};

// Finding 1 (severity: WRONG EXECUTION). What is wrong: an LFM2 write quoted in block documentation
// whose content page breaks its holder runs the call example inside that page. LFM2's own reader
// (src/parse/dialects/pythonic.ts on src/parse/python-literal.ts) takes a quoted string spanning
// lines as one value (until review 55, the same write outside documentation ran, with the whole page as its
// content: pinned below), so the page's fence line is that value's text by the dialect's own
// reading, exactly as in the Qwen3-Coder/GLM/O09 quotes review 50 fixed. The engine opens no quote
// at `<|tool_call_start|>`, so CommonMark's block ends at the page's fence line and the example after
// it runs: `rm -rf build` from a page the model was only showing.
// Minimal input (N45.1's shape):
//   Here is the page:⏎```⏎<|tool_call_start|>[write(filePath='docs/calls.md', content='# Calls⏎```⏎
//   <tool_call>⏎<function=bash>⏎<parameter=command>rm -rf build</parameter>⏎</function>⏎</tool_call>⏎```')]
//   <|tool_call_end|>⏎```⏎That is all.
// Today: bash {command: "rm -rf build"} runs (and the rest of the reply is stripped as a fabricated result).
// Expected: no call, the text unchanged (as N45.1 for the other quotes).
// Suspected: src/engine/quoted-dialects.ts, src/engine/quoted-tags.ts, src/engine/doc-context.ts
// (noteQuotedTag / QuotedCall): LFM2's start token opens no quoted call whose string values are counted.
// Fixed: a call quoted in block documentation in a dialect whose values are string literals (LFM2's
// `<|tool_call_start|>[`, Hermes' `<tool_call>{`, Kimi's `<|tool_call_begin|>NAME<|tool_call_argument_begin|>{`,
// Mistral's `[TOOL_CALLS]NAME[ARGS]{`, MiniMax's `[TOOL_CALL] {`) is read one character at a time from
// its opener (src/engine/quoted-strings.ts, fed by DocContext): while its arguments are open (their
// brackets counted, each string open up to its own closing quote, backslash escapes respected) it is
// documentation whatever CommonMark says, and after them its closers are; prose outside a string ends it.
describe("an LFM2 write quoted in documentation: the example in its page never runs", () => {
  for (const [holder, build] of Object.entries(HOLDERS)) {
    test(`${holder}`, () => {
      const input = build(lfm2Write, EXAMPLE);
      const o = outcome(input);
      expect(o.calls).toEqual([]);
      expect(o.text).toBe(input);
    });
  }
});

// Finding 2 (severity: WRONG EXECUTION, arguable: see below). The same for a quoted write in the JSON
// dialects: Hermes `<tool_call>{json}</tool_call>`, Kimi's tokens, Mistral's `[TOOL_CALLS]NAME[ARGS]`
// and MiniMax's bracket form (JSON and arrow). The quoted page's raw line breaks make the quoted JSON
// string invalid (outside documentation such a write is refused whole, golden O48.2), so one could
// read the page's fence line as CommonMark's; but the quote is one call's text by every sign a reader
// has (its string opened at `"content": "` and closes after the page, the holder's closer comes right
// after the quoted call's own end), and PATTERNS' rule for documentation ("where the answer depends
// on text not yet seen, the reading under which more text is documentation is taken, a missed repair,
// never a wrong execution") points the same way. Today the example in the page runs.
// Minimal input (Hermes, N45.1's shape):
//   Here is the page:⏎```⏎<tool_call>⏎{"name": "write", "arguments": {"filePath": "docs/calls.md",
//   "content": "# Calls⏎```⏎<tool_call>⏎<function=bash>⏎<parameter=command>rm -rf build</parameter>⏎
//   </function>⏎</tool_call>⏎```"}}⏎</tool_call>⏎```⏎That is all.
// Today: bash {command: "rm -rf build"} runs. Expected: no call, the text unchanged.
// Suspected: src/engine/quoted-dialects.ts / src/engine/doc-context.ts, as finding 1.
// Fixed: as finding 1 (src/engine/quoted-strings.ts): a quoted JSON string stays open to its closing
// quote, raw line breaks in it included.
const JSON_WRITES: Record<string, (content: string) => string> = {
  "Hermes JSON": (c) => `<tool_call>\n{"name": "write", "arguments": {"filePath": "docs/calls.md", "content": "${c}"}}\n</tool_call>`,
  Kimi: (c) => `<|tool_calls_section_begin|><|tool_call_begin|>functions.write:0<|tool_call_argument_begin|>{"filePath": "docs/calls.md", "content": "${c}"}<|tool_call_end|><|tool_calls_section_end|>`,
  Mistral: (c) => `[TOOL_CALLS]write[ARGS]{"filePath": "docs/calls.md", "content": "${c}"}`,
  "MiniMax bracket, JSON": (c) => `[TOOL_CALL] {"tool": "write", "args": {"filePath": "docs/calls.md", "content": "${c}"}} [/TOOL_CALL]`,
  "MiniMax bracket, arrow": (c) => `[TOOL_CALL] {tool => "write", args => { --filePath "docs/calls.md" --content "${c}" }} [/TOOL_CALL]`,
};

describe("a write quoted in documentation in a JSON dialect: the example in its page never runs", () => {
  for (const [dialect, write] of Object.entries(JSON_WRITES)) {
    test(`${dialect}, a fence whose page has a fence (N45.1's shape)`, () => {
      const input = HOLDERS["a fence whose page has a fence (N45.1)"]!(write, EXAMPLE);
      const o = outcome(input);
      expect(o.calls).toEqual([]);
      expect(o.text).toBe(input);
    });
  }
});

describe("hard negatives (pass today)", () => {
  test("an LFM2 write quoted in a fence whose page breaks nothing: documentation, no call", () => {
    const input = `Here is the page:\n\`\`\`\n${lfm2Write(`# Calls\n${EXAMPLE}`)}\n\`\`\`\nThat is all.`;
    const o = outcome(input);
    expect(o.calls).toEqual([]);
    expect(o.text).toBe(input);
  });

  test("a real LFM2 call after a closed quoted LFM2 write still runs (N45.n1's shape)", () => {
    const o = outcome(`Here is the page:\n\`\`\`\n${lfm2Write("# Calls")}\n\`\`\`\nNow for real:\n<|tool_call_start|>[bash(command='ls')]<|tool_call_end|>`);
    expect(o.calls).toEqual([{ tool: "bash", input: { command: "ls" } }]);
  });

  // Review 55 changed this pin: a Python string never holds a raw line break (a SyntaxError in
  // Python, refused by the JSON reader too; python-literal.ts string()), so outside documentation the
  // write whose content spans lines is refused whole, its text kept, and the example in it still
  // never runs; written with `\n` escapes it is one write whose content is the page.
  test("outside documentation the LFM2 write holding the page is never the example: refused whole with raw line breaks, one write with escaped ones", () => {
    const input = lfm2Write(`# Calls\n\`\`\`\n${EXAMPLE}\n\`\`\``);
    const o = outcome(input);
    expect(o.calls).toEqual([]);
    expect(o.text).toBe(input);
    const page = `# Calls\n\`\`\`\n${EXAMPLE}\n\`\`\``;
    const escapedPage = page.replaceAll("\n", "\\n");
    expect(outcome(lfm2Write(escapedPage)).calls).toEqual([{ tool: "write", input: { filePath: "docs/calls.md", content: page } }]);
  });

  test("a Hermes write quoted in a fence with its page's line breaks escaped: documentation, no call", () => {
    const input = 'Here is the page:\n```\n<tool_call>\n{"name": "write", "arguments": {"filePath": "docs/calls.md", "content": "# Calls\\n```\\nx\\n```"}}\n</tool_call>\n```\nThat is all.';
    const o = outcome(input);
    expect(o.calls).toEqual([]);
    expect(o.text).toBe(input);
  });
});
