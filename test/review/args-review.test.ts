/**
 * Hostile review (branch review-args): argument fidelity and lost calls across the dialect parsers.
 * The rule under test: a recovered call's arguments are exactly what the markup wrote, and a call
 * whose markup was not wholly understood does not run (broken markup and a nudge instead).
 *
 * Each test FAILS on the code it was written against and names the finding it pins. Every case
 * is also run whole, char by char and at seeded random splits, and the split-independence is
 * asserted first, so a failure below is about the arguments, not about a divergence.
 *
 * Findings 1, 2, 6, 7, 8, 9, 10 and 12 were fixed on fix-args-a; their tests live in test/parse
 * (tag-attributes, pythonic, dialect-arguments). What remains here is skipped: fixed on fix-args-b.
 */
import { describe, expect, test } from "bun:test";
import type { ToolSpec } from "../../src/parse/types.ts";
import { live } from "../golden/notation.ts";
import { fixtureTools } from "../golden/tools.ts";
import { everyChar, observable, randomCuts, runEngine } from "../support/run-engine.ts";

/** Calls, broken spans, visible text and stripped spans of a run, asserted the same at every split. */
function outcome(notation: string, tools: readonly ToolSpec[] = fixtureTools) {
  const input = live(notation);
  const run = (cuts: number[]) => observable(runEngine(input, cuts, tools));
  const whole = run([]);
  expect(run(everyChar(input.length))).toEqual(whole);
  for (let seed = 1; seed <= 5; seed++) expect(run(randomCuts(input.length, seed))).toEqual(whole);
  const r = runEngine(input, [], tools);
  return {
    calls: r.calls.map((c) => ({ tool: c.tool, input: c.input })),
    broken: r.summary.broken.map((b) => ({ shape: b.shape, reason: b.reason, tool: b.tool })),
    text: r.text,
    stripped: r.summary.stripped,
  };
}

/** No call runs, and the markup is reported as broken (a nudge), never silently dropped. */
function refused(notation: string, tools: readonly ToolSpec[] = fixtureTools) {
  const o = outcome(notation, tools);
  expect(o.calls).toEqual([]);
  expect(o.broken.length).toBeGreaterThan(0);
  return o;
}

describe("a closer-like string inside a value truncates it, and the call still runs", () => {
  // The invoke closer inside an open parameter is taken as P01's boundary even though text goes on
  // on the same line and a parameter closer and a second invoke closer follow: the file is written
  // truncated, and the rest of the markup is stripped as a "fabricated result" (never shown).
  // fixed on fix-args-b
  test.skip("DSML: an invoke closer inside a write's content does not truncate the file", () => {
    const o = outcome(
      `<{D}tool_calls>\n<{D}invoke name="write">\n<{D}parameter name="filePath" string="true">closer.ts</{D}parameter>\n` +
        `<{D}parameter name="content" string="true">export const closer = "</{D}invoke>";\nexport const n = 1;\n</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`,
    );
    // Today: write {filePath: "closer.ts", content: 'export const closer = "'} runs.
    expect(o.calls.some((c) => c.tool === "write" && c.input.content === 'export const closer = "')).toBe(false);
  });

  // fixed on fix-args-b
  test.skip("Qwen3-Coder: a function closer inside a value does not cut the command", () => {
    const o = outcome("<tool_call>\n<function=bash>\n<parameter=command>\ngrep -n '</function>' src/a.xml && rm -rf build\n</parameter>\n</function>\n</tool_call>");
    // Today: bash {command: "grep -n '"} runs; "' src/a.xml && rm -rf build" is stripped unseen.
    expect(o.calls.some((c) => c.tool === "bash" && c.input.command === "grep -n '")).toBe(false);
  });

  // fixed on fix-args-b
  test.skip("costume: a </shell> inside the code, with the real closer later on the line, does not cut the command", () => {
    const o = outcome(`<shell>grep -c "</shell>" docs/a.html && rm -rf build</shell>\n`);
    // Today: bash {command: 'grep -c "'} runs and the rest of the line is stripped as a fabricated result.
    expect(o.calls.some((c) => c.tool === "bash" && c.input.command === 'grep -c "')).toBe(false);
  });
});

describe("HTML <pre> costume (C02/C03): text inside <pre> outside the <code> element", () => {
  // preBlock (src/parse/costume.ts) reads only from the first <code> to the last </code>.
  // fixed on fix-args-b
  test.skip("text after </code> inside <pre> is not dropped while the code runs", () => {
    const o = outcome(`<pre><code class="language-bash">ls</code>\nrm -rf build</pre>`);
    // Today: bash {command: "ls"} runs and "rm -rf build" is neither run nor shown.
    expect(o.calls).toEqual([]);
    expect(o.text).toContain("rm -rf build");
  });

  // fixed on fix-args-b
  test.skip("text before <code> inside <pre> is not dropped while the code runs", () => {
    const o = outcome(`<pre>rm -rf build\n<code class="language-bash">ls</code></pre>`);
    expect(o.calls).toEqual([]);
    expect(o.text).toContain("rm -rf build");
  });

  // fixed on fix-args-b
  test.skip("two <code> elements do not become one command holding the markup between them", () => {
    const o = outcome(`<pre><code class="language-bash">ls</code><code class="language-bash">rm -rf build</code></pre>`);
    // Today: bash {command: 'ls</code><code class="language-bash">rm -rf build'} runs.
    expect(o.calls.some((c) => typeof c.input.command === "string" && c.input.command.includes("</code>"))).toBe(false);
  });
});

describe("XML execute costume (C01): parts of the markup that are never read", () => {
  // fixed on fix-args-b
  test.skip("an attribute on <code> is not ignored (the strict XML reader drops attributes)", () => {
    // Today: bash {command: "ls"} runs without the working directory.
    refused(`<tool_call><tool_name>execute</tool_name><tool_args><language>sh</language><code workdir="/tmp">ls</code></tool_args></tool_call>`);
  });

  // fixed on fix-args-b
  test.skip("an attribute on <tool_args> is not ignored", () => {
    refused(`<tool_call><tool_name>execute</tool_name><tool_args timeout="5"><language>sh</language><code>ls</code></tool_args></tool_call>`);
  });

  // fixed on fix-args-b
  test.skip("a tool_name naming another declared tool does not run the code as bash", () => {
    const o = outcome(`<tool_call><tool_name>read</tool_name><tool_args><language>sh</language><code>cat /etc/hosts</code></tool_args></tool_call>`);
    // Today: bash {command: "cat /etc/hosts"} runs although the model named the read tool.
    expect(o.calls).toEqual([]);
  });

  // fixed on fix-args-b
  test.skip("no language: the code is not run as shell by a default the model never wrote", () => {
    const o = outcome(`<tool_call><tool_name>execute</tool_name><tool_args><code>print(len("abc"))</code></tool_args></tool_call>`);
    // Today: bash {command: 'print(len("abc"))'} runs (language defaults to "sh").
    expect(o.calls).toEqual([]);
  });
});

describe("P09: a lone leading newline", () => {
  // docs/PATTERNS.md P09: "One newline hugging *both* sides of a value is layout and is removed; a
  // lone trailing newline is content". trimHuggingNewlines (src/parse/values.ts) also removes a
  // lone LEADING newline, so a file that starts with a blank line loses it.
  // fixed on fix-args-b
  test.skip("a value with a leading newline and no trailing one keeps its leading newline", () => {
    const o = outcome(`<{D}tool_calls>\n<{D}invoke name="write">\n<{D}parameter name="filePath" string="true">a.md</{D}parameter>\n<{D}parameter name="content" string="true">\n# Title</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`);
    expect(o.calls).toEqual([{ tool: "write", input: { filePath: "a.md", content: "\n# Title" } }]);
  });
});

describe("I11: a DSML element named after a declared tool whose name contains `call`", () => {
  // dsmlRole (src/grammar/dialects.ts) makes every DSML name containing "call" a block tag, before
  // the declared-tool check, so `<{D}recall_memory>` never opens a tool element: a lost call.
  const tools: ToolSpec[] = [{ name: "recall_memory", parameters: { type: "object", properties: { query: { type: "string" } }, required: ["query"] } }];
  // fixed on fix-args-b
  test.skip("<{D}recall_memory> with a declared tool runs like <{D}search_memory> does", () => {
    const o = outcome(`<{D}recall_memory>\n<{D}query>x</{D}query>\n</{D}recall_memory>`, tools);
    expect(o.calls).toEqual([{ tool: "recall_memory", input: { query: "x" } }]);
  });

  test("control: the same element for a tool without `call` in its name runs", () => {
    const search: ToolSpec[] = [{ name: "search_memory", parameters: tools[0]!.parameters! }];
    const o = outcome(`<{D}search_memory>\n<{D}query>x</{D}query>\n</{D}search_memory>`, search);
    expect(o.calls).toEqual([{ tool: "search_memory", input: { query: "x" } }]);
  });
});

describe("unprefixed wrappers (O05, O07): text inside the wrapper beside the invokes", () => {
  // The whole wrapper is one span, and layUnits (src/parse/segments.ts) joins everything between
  // units to the unit before it (the first unit also takes what precedes it): prose inside the
  // wrapper is swallowed into a call's span, neither read, nor shown, nor reported as stripped.
  // DSML with the same prose shows it (each invoke is its own candidate there).
  const readOrShown = (o: ReturnType<typeof outcome>, words: string) => o.calls.length === 0 || o.text.includes(words) || o.stripped.length > 0;

  // fixed on fix-args-b
  test.skip("Claude-style (O07): a line between two invokes is not swallowed while both calls run", () => {
    const o = outcome(`<function_calls>\n<invoke name="bash">\n<parameter name="command">ls</parameter>\n</invoke>\nrm -rf build\n<invoke name="read">\n<parameter name="filePath">/x</parameter>\n</invoke>\n</function_calls>`);
    // Today: bash and read run; "rm -rf build" is inside the bash call's span, unseen.
    expect(readOrShown(o, "rm -rf build")).toBe(true);
  });

  test("control: Claude-style (O07) with a line before the first invoke shows it (the stream releases the wrapper at the prose)", () => {
    const o = outcome(`<function_calls>\nrm -rf build\n<invoke name="bash">\n<parameter name="command">ls</parameter>\n</invoke>\n</function_calls>`);
    expect(readOrShown(o, "rm -rf build")).toBe(true);
  });

  // fixed on fix-args-b
  test.skip("MiniMax (O05): a line after the last invoke is not swallowed while the call runs", () => {
    const o = outcome(`<minimax:tool_call>\n<invoke name="bash">\n<parameter name="command">ls</parameter>\n</invoke>\nrm -rf build\n</minimax:tool_call>`);
    expect(readOrShown(o, "rm -rf build")).toBe(true);
  });

  test("control: DSML shows the same line", () => {
    const o = outcome(`<{D}tool_calls>\n<{D}invoke name="bash">\n<{D}parameter name="command" string="true">ls</{D}parameter>\n</{D}invoke>\nrm -rf build\n<{D}invoke name="read">\n<{D}parameter name="filePath" string="true">/x</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`);
    expect(o.text).toContain("rm -rf build");
  });
});
