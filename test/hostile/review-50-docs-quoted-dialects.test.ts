/**
 * Review 50 (hostile, tests only): a write call quoted as documentation (in a fence, `<details>`, a
 * comment or `<pre>`) whose content is a page that itself holds a fence, a blank line, `-->` or
 * `</pre>` and a call example. For DSML and Claude-style/MiniMax quotes the engine keeps the quoted
 * value documentation up to the value's own closer (goldens N45.1-N45.4): the page's fence line does
 * not end the quote, so the example in the page never runs. The same page quoted in a Qwen3-Coder
 * `<function=write>`, a GLM `<tool_call>write` or a plain `<write>` element (O09) gets no such
 * protection (until this fix, see "Fixed:" below): the page's own fence (or blank line, `-->`, `</pre>`) ends the documentation block as
 * CommonMark reads it, and the example inside the quoted content runs.
 *
 * Every case runs whole, char by char and at seeded random splits (test/support/outcome.ts); the
 * runs agree today, so each failing test fails on the call, not on split dependence.
 */
import { describe, expect, test } from "bun:test";
import { live } from "../golden/notation.ts";
import { outcome } from "../support/outcome.ts";
import { createRepairEngine } from "../../src/engine/engine.ts";
import { fixtureTools } from "../golden/tools.ts";
import { countWork } from "../support/work.ts";

/** The example the quoted page shows: a Hermes call (any dialect shows the same, see the last block). */
const hermes = (command: string) => `<tool_call>\n{"name": "bash", "arguments": {"command": "${command}"}}\n</tool_call>`;
const EXAMPLE = hermes("rm -rf build");

const qwenWrite = (content: string) => `<tool_call>\n<function=write>\n<parameter=filePath>\ndocs/calls.md\n</parameter>\n<parameter=content>\n${content}\n</parameter>\n</function>\n</tool_call>`;
const glmWrite = (content: string) => `<tool_call>write\n<arg_key>filePath</arg_key>\n<arg_value>docs/calls.md</arg_value>\n<arg_key>content</arg_key>\n<arg_value>${content}</arg_value>\n</tool_call>`;
const elementWrite = (content: string) => `<write>\n<filePath>docs/calls.md</filePath>\n<content>${content}</content>\n</write>`;
const dsmlWrite = (content: string) =>
  live(`<{D}tool_calls>\n<{D}invoke name="write">\n<{D}parameter name="filePath" string="true">docs/calls.md</{D}parameter>\n<{D}parameter name="content" string="true">${content}</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`);
const minimaxWrite = (content: string) => `<minimax:tool_call>\n<invoke name="write">\n<parameter name="filePath">docs/calls.md</parameter>\n<parameter name="content">${content}</parameter>\n</invoke>\n</minimax:tool_call>`;

/** The four holders of goldens N45.1-N45.4: the quoted write, with the page that breaks its holder. */
const HOLDERS: Record<string, (write: (content: string) => string, example: string) => string> = {
  "a fence whose page has a fence (N45.1)": (w, ex) => `Here is the page:\n\`\`\`\n${w(`# Calls\n\`\`\`\n${ex}\n\`\`\``)}\n\`\`\`\nThat is all.`,
  "<details> whose page has a blank line (N45.2)": (w, ex) => `<details>\n${w(`# Calls\n\nRun it like this:\n${ex}`)}\n</details>\nThat is all.`,
  "a comment whose page has a comment closer (N45.3)": (w, ex) => `<!--\n${w(`a --> b\n${ex}`)}\n-->\nThat is all.`,
  "<pre> whose page closes pre (N45.4)": (w, ex) => `Intro:\n<pre>\n${w(`Run:\n</pre>\n# T\n${ex}`)}\n</pre>\nDone.`,
};

// Finding (severity: WRONG EXECUTION). What is wrong: a call example inside the content of a write
// call that is itself quoted in block documentation runs, when the quoted write is written in
// Qwen3-Coder, GLM or plain-element (O09) markup. The DSML and Claude-style/MiniMax spellings of the
// same quote are kept documentation to the value's closer (N45.1-N45.4, pinned below); these three
// spellings are not, so `rm -rf build` from a page the model was only showing runs.
// Minimal input (Qwen3-Coder, N45.1's shape):
//   Here is the page:⏎```⏎<tool_call>⏎<function=write>⏎<parameter=filePath>⏎docs/calls.md⏎</parameter>⏎
//   <parameter=content>⏎# Calls⏎```⏎<tool_call>⏎{"name": "bash", "arguments": {"command": "rm -rf build"}}⏎
//   </tool_call>⏎```⏎</parameter>⏎</function>⏎</tool_call>⏎```⏎That is all.
// Today: bash {command: "rm -rf build"} runs. Expected: no call, the text unchanged (as N45.1).
// Suspected: src/engine/quoted-tags.ts and src/engine/doc-context.ts (noteQuotedTag / QuotedCall): only a
// DSML or Claude-style invoke opener or a DSML tool-named tag (I11) opens a quoted call whose values are
// counted; Qwen3-Coder's `<function=NAME>` + `<parameter=KEY>`, GLM's `<tool_call>NAME` +
// `<arg_value>` and an O09 `<TOOL>` + `<PARAM>` element open none (docs/PATTERNS.md, "What opens such a
// quote"). Every one of these is a dialect the engine runs outside documentation, so its quoted form
// needs the same value counting.
// Fixed: a call quoted in block documentation in Qwen3-Coder (`<function=NAME>`, its `<parameter=KEY>`
// values, `</function>`, the `<tool_call>` wrapper as its block), GLM (opened by its first
// `<arg_key>KEY</arg_key>`, `<arg_value>` values, `</tool_call>` its closer) or O09 (`<TOOL>` for a
// declared tool, each child a value up to its own `</KEY>`) keeps the value documentation up to the
// value's own closer, as a DSML one does (src/engine/quoted-dialects.ts). A GLM or O09 quote lasts
// only while its own markup follows; anything else ends it, so a real call after it runs.
describe("review 50: a quoted Qwen3-Coder, GLM or plain-element write keeps its page documentation (wrong execution, fixed)", () => {
  const WRITES: Record<string, (content: string) => string> = {
    "Qwen3-Coder <function=write>": qwenWrite,
    "GLM <tool_call>write": glmWrite,
    "plain <write> element (O09)": elementWrite,
  };
  for (const [dialect, write] of Object.entries(WRITES)) {
    for (const [where, holder] of Object.entries(HOLDERS)) {
      test(`${dialect} quoted in ${where}: the example in its content never runs`, () => {
        const input = holder(write, EXAMPLE);
        const o = outcome(input);
        expect(o.calls).toEqual([]);
        expect(o.text).toBe(input);
      });
    }
  }

  test("the page's example in any dialect: a one-line Hermes call in a quoted Qwen3-Coder write in a fence never runs", () => {
    const input = HOLDERS["a fence whose page has a fence (N45.1)"]!(qwenWrite, `<tool_call>{"name": "bash", "arguments": {"command": "rm -rf build"}}</tool_call>`);
    expect(outcome(input).calls).toEqual([]);
  });

  test("the page's example in any dialect: a Qwen3-Coder call in a quoted Qwen3-Coder write in a fence never runs", () => {
    const example = "<tool_call>\n<function=bash>\n<parameter=command>\nrm -rf build\n</parameter>\n</function>\n</tool_call>";
    expect(outcome(HOLDERS["a fence whose page has a fence (N45.1)"]!(qwenWrite, example)).calls).toEqual([]);
  });

  test("the page's example in any dialect: a DSML block in a quoted GLM write in a comment never runs", () => {
    const example = live(`<{D}tool_calls>\n<{D}invoke name="bash">\n<{D}parameter name="command" string="true">rm -rf build</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`);
    expect(outcome(HOLDERS["a comment whose page has a comment closer (N45.3)"]!(glmWrite, example)).calls).toEqual([]);
  });
});

describe("review 50 hard negatives (pass today): the quoted spellings that are protected, and real calls after a quote", () => {
  for (const [dialect, write] of Object.entries({ "DSML invoke": dsmlWrite, "MiniMax invoke": minimaxWrite })) {
    for (const [where, holder] of Object.entries(HOLDERS)) {
      test(`${dialect} quoted in ${where}: the example stays documentation`, () => {
        const input = holder(write, EXAMPLE);
        const o = outcome(input);
        expect(o.calls).toEqual([]);
        expect(o.text).toBe(input);
      });
    }
  }

  // N45.n1's shape with the quoted write in Qwen3-Coder: the quote closed in its fence, a real call after it runs.
  test("a Qwen3-Coder write quoted and closed in its fence, then a real Hermes call: the call runs", () => {
    const quoted = `Here is the page:\n\`\`\`\n${qwenWrite("# Calls")}\n\`\`\`\n\n`;
    const o = outcome(`${quoted}${hermes("ls -la")}`);
    expect(o.calls).toEqual([{ tool: "bash", input: { command: "ls -la" } }]);
    expect(o.text).toBe(quoted);
  });

  test("a GLM write quoted and closed in a comment, then a real Qwen3-Coder call: the call runs", () => {
    const quoted = `<!--\n${glmWrite("# Calls")}\n-->\n\n`;
    const o = outcome(`${quoted}<tool_call>\n<function=bash>\n<parameter=command>\nls -la\n</parameter>\n</function>\n</tool_call>`);
    expect(o.calls).toEqual([{ tool: "bash", input: { command: "ls -la" } }]);
    expect(o.text).toBe(quoted);
  });

  test("a quoted Qwen3-Coder write whose page breaks nothing: the example inside the fence stays code", () => {
    const input = `Here is the page:\n\`\`\`\n${qwenWrite(`# Calls\nRun it like this:\n${EXAMPLE}`)}\n\`\`\`\nThat is all.`;
    const o = outcome(input);
    expect(o.calls).toEqual([]);
    expect(o.text).toBe(input);
  });

  test("the real Qwen3-Coder write (no documentation around it) runs with the page as its content", () => {
    const page = `# Calls\n\`\`\`\n${EXAMPLE}\n\`\`\``;
    expect(outcome(qwenWrite(page)).calls).toEqual([{ tool: "write", input: { filePath: "docs/calls.md", content: page } }]);
  });
});

describe("review 50 fix, hard negatives: the new quotes end where their own markup ends", () => {
  const REAL = hermes("ls -la");
  const LS = [{ tool: "bash", input: { command: "ls -la" } }];
  const runsAfter = (quoted: string) => {
    const o = outcome(`${quoted}${REAL}`);
    expect(o.calls).toEqual(LS);
    expect(o.text).toBe(quoted);
  };

  test("a plain <write> element quoted and closed in its fence, then a real call: the call runs", () => {
    runsAfter(`Here is the page:\n\`\`\`\n${elementWrite("# Calls")}\n\`\`\`\n\n`);
  });

  test("a GLM write quoted and closed in <details>, then a real call: the call runs", () => {
    runsAfter(`<details>\n${glmWrite("# Calls")}\n</details>\n\n`);
  });

  test("HTML in a fence (elements named after no tool, an unclosed <p>) opens no quote: a real call after the fence runs", () => {
    runsAfter("```html\n<div>\n<p>one\n<content>two\n</div>\n```\n\n");
  });

  test("a declared tool's name as an element mentioned in prose inside a fence, a child left open: a real call after the fence runs", () => {
    runsAfter("```\n<write> writes a file; its <content> holds the page\n```\n\n");
  });

  test("a GLM key mentioned in a fence with prose after it, an <arg_value> left open: a real call after the fence runs", () => {
    runsAfter("```\n<arg_key>content</arg_key> names the value, and <arg_value> opens it\n```\n\n");
  });

  test("a Hermes example in a fence (its <tool_call> is no quoted call's block): a real call after the fence runs", () => {
    runsAfter(`\`\`\`\n${hermes("rm -rf build")}\n\`\`\`\n\n`);
  });

  test("a Qwen3-Coder function quoted and closed in <pre>, then a real call: the call runs", () => {
    runsAfter(`<pre>\n<function=write>\n<parameter=content>\n# Calls\n</parameter>\n</function>\n</pre>\n\n`);
  });

  test("the real GLM write (no documentation around it) runs with its content", () => {
    expect(outcome(glmWrite("# Calls")).calls).toEqual([{ tool: "write", input: { filePath: "docs/calls.md", content: "# Calls" } }]);
  });

  test("a quoted GLM write's value stays documentation up to its own closer, never to a Qwen3-Coder </parameter> in it", () => {
    const input = `<!--\n${glmWrite(`a --> b\n</parameter>\n${EXAMPLE}`)}\n-->\nThat is all.`;
    const o = outcome(input);
    expect(o.calls).toEqual([]);
    expect(o.text).toBe(input);
  });

  test("a quoted plain element's value stays documentation up to its own closer, never to another child's closer in it", () => {
    const input = `<!--\n${elementWrite(`a --> b\n</filePath>\n${EXAMPLE}`)}\n-->\nThat is all.`;
    const o = outcome(input);
    expect(o.calls).toEqual([]);
    expect(o.text).toBe(input);
  });
});

describe("review 50 fix: the quoted dialects' tags are read in bounded steps (linear)", () => {
  /** Steps (characters read or copied, test/support/work.ts) per input character, fed char by char: the worst case for a held tag. */
  const PER_CHAR = 128;
  const units = [
    "<div>",
    "<write>\n<content>",
    "</content>\n",
    "<arg_key>content</arg_key>\n<arg_value>",
    "</arg_value>",
    "<tool_call>\n<function=write>\n<parameter=content>\n",
    "</parameter>\n</function>\n</tool_call>\n",
    "<arg_key>" + "k".repeat(80),
    "<" + "n".repeat(90) + ">",
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
