/**
 * Review 48: two complete examples of other dialects, one after the other, inside a write's value
 * that then reaches its own closer. One complete example is the value's text (S02.8-S02.16); two
 * are not: the first example's closer is taken as the end of the write (or the write is refused
 * there), and the second example is then read as a fresh call and runs. Found with a seeded
 * generator of such pages (write in Claude-style, Qwen3-Coder, GLM, MiniMax and DSML, content made
 * of complete examples of every dialect); the cases below are the smallest it led to. Every case
 * runs whole, char by char and at seeded random splits.
 */
import { describe, expect, test } from "bun:test";
import { live } from "../golden/notation.ts";
import { outcome } from "../support/outcome.ts";

const R = "rm -rf build";
const lfm2 = `<|tool_call_start|>[bash(command="${R}")]<|tool_call_end|>`;
const kimi = `<|tool_calls_section_begin|><|tool_call_begin|>functions.bash:0<|tool_call_argument_begin|>{"command":"${R}"}<|tool_call_end|><|tool_calls_section_end|>`;
const glmExample = `<tool_call>bash\n<arg_key>command</arg_key>\n<arg_value>${R}</arg_value>\n</tool_call>`;
const hermesExample = `<tool_call>\n{"name":"bash","arguments":{"command":"${R}"}}\n</tool_call>`;
const invokeExample = `<invoke name="bash">\n<parameter name="command">${R}</parameter>\n</invoke>`;
const minimaxExample = `<minimax:tool_call>\n${invokeExample}\n</minimax:tool_call>`;

const claudeWrite = (c: string) => `<function_calls>\n<invoke name="write">\n<parameter name="filePath">a.md</parameter>\n<parameter name="content">${c}</parameter>\n</invoke>\n</function_calls>`;
const minimaxWrite = (c: string) => `<minimax:tool_call>\n<invoke name="write">\n<parameter name="filePath">a.md</parameter>\n<parameter name="content">${c}</parameter>\n</invoke>\n</minimax:tool_call>`;
const qwenWrite = (c: string) => `<tool_call>\n<function=write>\n<parameter=filePath>\na.md\n</parameter>\n<parameter=content>\n${c}\n</parameter>\n</function>\n</tool_call>`;
const glmWrite = (c: string) => `<tool_call>write\n<arg_key>filePath</arg_key>\n<arg_value>a.md</arg_value>\n<arg_key>content</arg_key>\n<arg_value>${c}</arg_value>\n</tool_call>`;
const dsmlExample = live(`<{D}tool_calls>\n<{D}invoke name="bash">\n<{D}parameter name="command" string="true">${R}</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`);
const dsmlWrite = (c: string) => live(`<{D}tool_calls>\n<{D}invoke name="write">\n<{D}parameter name="filePath" string="true">a.md</{D}parameter>\n<{D}parameter name="content" string="true">`) + c + live(`</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`);
const page = (...examples: string[]) => `Page:\n${examples.join("\n")}\nend`;
const runsBash = (input: string) => outcome(input).calls.some((c) => c.tool === "bash");

describe("fixed: an example followed by a special-token example (LFM2, Kimi) in a Claude-style or MiniMax value", () => {
  // Severity: wrong execution (`rm -rf build` from the text of a file being written; the write
  // itself is reported truncated, or cut). Suspected: src/parse/closer-in-value.ts /
  // src/parse/dialects/invoke-markup.ts: a special token after a closer ending its line confirms
  // that closer ended the value (A40.n6), even when the closer belonged to a complete example the
  // value holds and the token opens another complete example that the value's own closer follows
  // (src/parse/example-in-value.ts counts one example only). Expected: the write with its whole
  // content (both examples are text), or the write refused; never bash.
  // fixed (fx48-examples): after an example in a value, a special-token example (LFM2's start to its
  // end, a Kimi or DeepSeek section to its end, a call's begin to its end) is read on as another
  // example (example-in-value.ts); the value's own closer after it makes both the write's text.
  const pages: [string, (c: string) => string, string][] = [
    ["Claude-style invoke example, then an LFM2 example", claudeWrite, page(invokeExample, lfm2)],
    ["Claude-style invoke example, then a Kimi example", claudeWrite, page(invokeExample, kimi)],
    ["MiniMax example in a MiniMax value, then an LFM2 example (two calls from one page)", minimaxWrite, page(minimaxExample, lfm2)],
  ];
  for (const [title, write, content] of pages) {
    test(title, () => {
      expect(outcome(write(content)).calls).toEqual([{ tool: "write", input: { filePath: "a.md", content } }]);
    });
  }
});

describe("fixed: an example followed by a special-token example in a Qwen3-Coder value", () => {
  // Severity: wrong execution (the write runs with its content cut inside the first example, and
  // the second example runs as bash). Suspected: src/parse/dialects/qwen.ts / tool-call.ts (the
  // first example's `</tool_call>` taken as the wrapper's closer), then the engine reading the
  // rest as prose. Expected: the write with its whole content, or refused; never bash.
  test("Hermes example, then an LFM2 example", () => {
    const o = outcome(qwenWrite(page(hermesExample, lfm2)));
    expect(o.calls.some((c) => c.tool === "bash")).toBe(false);
  });
  test("GLM example, then a Kimi example", () => {
    expect(runsBash(qwenWrite(page(glmExample, kimi)))).toBe(false);
  });
  test("MiniMax example, then an LFM2 example", () => {
    expect(runsBash(qwenWrite(page(minimaxExample, lfm2)))).toBe(false);
  });
});

describe("fixed: GLM: the write refused at an example's </arg_value>, the example after it runs", () => {
  // Severity: wrong execution. docs/PATTERNS.md: "A GLM example inside a GLM value stays refused:
  // which </arg_value> ends the value is unknowable." The write is refused (broken-markup), but the
  // refused span ends at the example's closer and the text after it is read again as prose: a
  // second example of any dialect, or a <shell> costume on its own lines, runs. Suspected:
  // src/parse/dialects/tool-call.ts (GLM branch: where the refused span ends) and src/engine
  // (re-reading the rest as text). Expected: the whole write, up to its own </arg_value> and
  // </tool_call>, refused; nothing inside it runs.
  test("a GLM example, then another GLM example", () => {
    expect(runsBash(glmWrite(page(glmExample, glmExample)))).toBe(false);
  });
  test("a GLM example, then a <shell> costume on its own lines", () => {
    expect(runsBash(glmWrite(page(glmExample, `<shell>\n${R}\n</shell>`)))).toBe(false);
  });
  test("a GLM example, then an LFM2 example", () => {
    expect(runsBash(glmWrite(page(glmExample, lfm2)))).toBe(false);
  });
  test("a Hermes example, then a GLM example", () => {
    expect(runsBash(glmWrite(page(hermesExample, glmExample)))).toBe(false);
  });
  test("a MiniMax example, then an LFM2 example", () => {
    expect(runsBash(glmWrite(page(minimaxExample, lfm2)))).toBe(false);
  });
});

describe("fixed: GLM: a closer mentioned mid-line in the content releases the write as text, and a costume after it runs", () => {
  // Severity: wrong execution, high (nothing reported: no broken-markup, no nudge; the write is
  // silently dropped to text and `rm -rf build` from the page runs; the write's own closers are
  // then stripped as a fabricated result and noise). A40: a closer followed by text on its line is
  // the value's text, so the value here runs on to its own `</arg_value>`. Suspected:
  // src/parse/dialects/tool-call.ts (GLM branch: the candidate "proves not to be one" at the
  // mid-line closer and is released, src/engine/candidate.ts), then the line-start costume gate.
  // Expected: the write with its whole content, or the write refused (broken-markup) up to its own
  // closers; never bash.
  test("`Close a value with </arg_value> in GLM.` then a <shell> example", () => {
    const input = glmWrite(`Close a value with </arg_value> in GLM.\n<shell>\n${R}\n</shell>\n`);
    expect(runsBash(input)).toBe(false);
  });
  test("an inline `<arg_value>x</arg_value>` mention then a <shell> example", () => {
    const input = glmWrite(`Use <arg_value>x</arg_value> here\n<shell>\n${R}\n</shell>\n`);
    expect(runsBash(input)).toBe(false);
  });
});

describe("fixed: DSML: a DSML example, then an example of a <tool_call> or special-token dialect", () => {
  // Severity: wrong execution, two calls from one page (both examples run as bash; the write is
  // reported truncated). A46/A46.5 make a DSML example followed by up to four examples and the
  // value's closer the page's text, but the examples counted there are DSML and Claude-style
  // ones: a Hermes, GLM, Qwen3-Coder, LFM2 or Kimi example after the DSML example ends the run,
  // and the DSML example's own closers are taken as the write's (P01). Suspected:
  // src/parse/dialects/dsml/value-examples.ts (which examples the run after an invoke closer
  // reads) and src/parse/example-in-value.ts. Expected: the write with its whole content, as
  // for a DSML + Claude-style pair (control below); never bash.
  // fixed (fx48-examples): after an example in a DSML value, a `<tool_call>` wrapper's example
  // (Hermes, GLM, Qwen3-Coder) and a special-token example are read on as examples too
  // (example-in-value.ts, which the walk's value-examples.ts and the stream both step).
  const contents: [string, string][] = [
    ["a DSML example, then a Hermes example, then the write's closer", `Page:\n${dsmlExample}\n${hermesExample}`],
    ["a DSML example, then a Hermes example, then prose", page(dsmlExample, hermesExample)],
    ["a DSML example, then an LFM2 example", page(dsmlExample, lfm2)],
    ["a DSML example, then a GLM example", page(dsmlExample, glmExample)],
  ];
  for (const [title, content] of contents) {
    test(title, () => {
      expect(outcome(dsmlWrite(content)).calls).toEqual([{ tool: "write", input: { filePath: "a.md", content } }]);
    });
  }
});

describe("hard negatives (pass today)", () => {
  test("DSML value: a DSML example then a Claude-style example, or a Hermes example then a DSML one, is the write's text", () => {
    for (const c of [page(dsmlExample, invokeExample), page(hermesExample, dsmlExample), page(dsmlExample)]) {
      expect(outcome(dsmlWrite(c)).calls).toEqual([{ tool: "write", input: { filePath: "a.md", content: c } }]);
    }
  });
  test("one example of each kind in a Claude-style value is the write's text", () => {
    for (const e of [invokeExample, lfm2, kimi, hermesExample, glmExample, minimaxExample]) {
      expect(outcome(claudeWrite(page(e))).calls).toEqual([{ tool: "write", input: { filePath: "a.md", content: page(e) } }]);
    }
  });
  test("two Claude-style invoke examples in a Claude-style value are the write's text", () => {
    expect(outcome(claudeWrite(page(invokeExample, invokeExample))).calls).toEqual([{ tool: "write", input: { filePath: "a.md", content: page(invokeExample, invokeExample) } }]);
  });
  test("one GLM example in a GLM value is refused, nothing runs", () => {
    const o = outcome(glmWrite(page(glmExample)));
    expect(o.calls).toEqual([]);
    expect(o.broken).toEqual(["broken-markup"]);
  });
});
