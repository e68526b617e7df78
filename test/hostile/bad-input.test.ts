/**
 * Deterministic hostile replies through parse() and the engine fed in chunks of 1, 7 and 4096
 * characters, with the default bufferLimit (65536): no exception, every character accounted for,
 * held characters bounded by 2 * bufferLimit + 512, and work that grows linearly with the input.
 *
 * Work is counted, never timed: String.prototype.charCodeAt calls plus characters returned by
 * String.prototype.slice while the engine runs (every scanner in src/grammar, src/stream and
 * src/parse reads text through these). An input four times as long must cost at most 4.5 times
 * as much.
 */
import { describe, expect, test } from "bun:test";
import { parse } from "../../src/engine/parse.ts";
import { createRepairEngine } from "../../src/engine/engine.ts";
import { DEFAULT_BUFFER_LIMIT } from "../../src/engine/limits.ts";
import type { EngineEvent } from "../../src/engine/types.ts";
import type { RecoveredCall } from "../../src/parse/types.ts";
import { accountsForEveryCharacter, type EngineRun } from "../support/run-engine.ts";
import { countWork } from "../support/work.ts";
import { sanitizeAssistantText } from "../../src/history/sanitize.ts";
import { BAR, block, D, DVL, escaped, live, SP } from "../golden/notation.ts";
import { fixtureTools } from "../golden/tools.ts";

const MB = 1 << 20;
const HELD_BOUND = 2 * DEFAULT_BUFFER_LIMIT + 512;
/**
 * Per-test timeout, not a speed assertion: the 10 MB runs (every mode) took 18.5 s in a quiet CI run
 * and 36 s while other test runs shared this 2-core machine, so 30 s was a flake's margin.
 */
const SLOW = 90_000;

/** `unit` repeated until the text is at least `length` characters long. */
const fill = (unit: string, length: number) => unit.repeat(Math.ceil(length / unit.length));

interface ChunkRun extends EngineRun {
  feeds: number;
  /** Feeds after which held characters exceeded the bound. */
  overBound: number;
}

/** Feeds `input` in chunks of `size` through an engine with the default bufferLimit, then flushes. */
function feedChunks(input: string, size: number, native = false): ChunkRun {
  const engine = createRepairEngine({ tools: fixtureTools, idPrefix: "call_" });
  if (native) engine.noteNativeToolCall();
  const texts: string[] = [];
  const calls: RecoveredCall[] = [];
  const take = (events: EngineEvent[]) => {
    for (const e of events) {
      if (e.type === "text") texts.push(e.text);
      else calls.push(e.call);
    }
  };
  let maxHeld = 0;
  let overBound = 0;
  let feeds = 0;
  for (let at = 0; at < input.length; at += size) {
    take(engine.feed(input.slice(at, at + size)));
    feeds++;
    const held = engine.held;
    if (held > maxHeld) maxHeld = held;
    if (held > HELD_BOUND) overBound++;
  }
  take(engine.flush());
  return { text: texts.join(""), calls, summary: engine.summary(), maxHeld, feeds, overBound };
}

/** parse() as an EngineRun, so the same accounting check applies. */
function parseRun(input: string): EngineRun {
  const r = parse(input, fixtureTools);
  return { text: r.text, calls: r.calls, summary: { recovered: r.calls.length, nudge: r.nudge, broken: r.broken, stripped: r.stripped, heldCandidateNoCall: 0 }, maxHeld: 0 };
}

/** The three things every hostile run must satisfy. */
function expectSound(input: string, run: EngineRun & Partial<ChunkRun>): void {
  expect(accountsForEveryCharacter(input, run)).toBe(true);
  const ids = run.calls.map((c) => c.id);
  expect(new Set(ids).size).toBe(ids.length);
  if (run.overBound !== undefined) {
    expect(run.overBound).toBe(0);
    expect(run.maxHeld).toBeLessThanOrEqual(HELD_BOUND);
  }
}

type Mode = "parse" | 1 | 7 | 4096;

function runMode(input: string, mode: Mode): EngineRun & Partial<ChunkRun> {
  return mode === "parse" ? parseRun(input) : feedChunks(input, mode);
}

/** Work of the history sanitizer, which runs on every request with no buffer limit. */
function historyWork(input: string): number {
  return countWork(() => {
    sanitizeAssistantText(input);
  });
}

/** Runs `input` through parse() and chunks of 7 and 4096, and `small` (a shorter cut) one character at a time. */
function everyMode(input: string, small: string, check: (input: string, run: EngineRun & Partial<ChunkRun>, mode: Mode) => void): void {
  for (const mode of ["parse", 7, 4096] as const) {
    const run = runMode(input, mode);
    expectSound(input, run);
    check(input, run, mode);
  }
  const run = feedChunks(small, 1);
  expectSound(small, run);
  check(small, run, 1);
}

// ---------------------------------------------------------------- work counting

function workOf(input: string, mode: Mode): number {
  return countWork(() => {
    runMode(input, mode);
  });
}

/** Work at 4N over work at N, for the same shape of input. */
function growth(make: (n: number) => string, n: number, mode: Mode): number {
  const small = workOf(make(n), mode);
  const large = workOf(make(4 * n), mode);
  expect(small).toBeGreaterThan(0);
  return large / small;
}

// ---------------------------------------------------------------- inputs

const canonical = live(block("tool_calls", [["bash", [["command", "ls -la"]]]]));
const PROSE_UNIT =
  "The build passed on the second try, so I will now look at the config file and the tests.\n" +
  "Es gibt noch 3 Warnungen; 日本語のテキスト、中文文本 and \uD83D\uDE00 emoji \uD83D\uDC4D\uD83C\uDFFD too. a > b, x = y.\n\n" +
  "    indented code line\n```ts\nconst a = 1;\n```\nUse `npm test` & check ~/.config.\n";

/** Every way the sentinel around DSML has been written. */
const SENTINELS: [string, string][] = [
  ["fullwidth", D],
  ["doubled fullwidth", `${BAR}${BAR}DSML${BAR}${BAR}`],
  ["ascii", "|DSML|"],
  ["ascii doubled", "||DSML||"],
  ["double vertical line", `${DVL}DSML${DVL}`],
  ["spaced", " | DSML | "],
  ["space before name", `${BAR}${BAR}DSML${BAR}${BAR} `],
];
const withSentinel = (s: string) => canonical.replaceAll(D, s);
const legacy = (words: string) => `<${BAR}${words.split(" ").join(SP)}${BAR}>`;

describe("huge replies", () => {
  test("10 MB of prose without markers passes through identical, nothing held", () => {
    const input = fill(PROSE_UNIT, 10 * MB);
    everyMode(input, input.slice(0, 200_000), (text, run) => {
      expect(run.text === text).toBe(true);
      expect(run.calls.length).toBe(0);
      expect(run.summary.broken.length + run.summary.stripped.length).toBe(0);
      if (run.feeds !== undefined) expect(run.maxHeld).toBe(0);
    });
  }, SLOW);

  test("10 MB that is mostly '<' is released as text", () => {
    const input = fill(`${"<".repeat(61)}a b\n<</<\n`, 10 * MB);
    everyMode(input, input.slice(0, 200_000), (text, run) => {
      expect(run.text === text).toBe(true);
      expect(run.calls.length).toBe(0);
      if (run.feeds !== undefined) expect(run.maxHeld).toBeLessThan(512);
    });
  }, SLOW);

  test("100,000 unclosed DSML openers: no call, all text visible, each opener ends at the next one", () => {
    // An invoke opener while an invoke is still open ends the span there (SpanReader.restart): each
    // unclosed opener is its own cut-off call, so nothing is held anywhere near the buffer limit.
    const opener = `<${D}invoke name="bash">`;
    const input = opener.repeat(100_000);
    everyMode(input, fill(opener, 200_000), (text, run, mode) => {
      expect(run.calls.length).toBe(0);
      expect(run.text === text).toBe(true);
      expect(run.summary.nudge).not.toBeNull();
      if (mode !== "parse") expect(run.maxHeld).toBeLessThan(4 * opener.length + 4096);
    });
  }, SLOW);
});

describe("deep repetition of every marker variant", () => {
  for (const [name, sentinel] of SENTINELS) {
    test(`${name}: 300 complete blocks are 300 calls`, () => {
      const unit = `${withSentinel(sentinel)}\n`;
      everyMode(unit.repeat(300), unit.repeat(100), (text, run) => {
        const blocks = text.length / unit.length;
        expect(run.calls.length).toBe(blocks);
        expect(run.calls.every((c) => c.tool === "bash" && c.input.command === "ls -la")).toBe(true);
        // The newline between two calls is visible (S03); the one after the last call is stripped.
        expect(run.text).toBe("\n".repeat(blocks - 1));
        expect(run.summary.stripped).toEqual([{ span: [text.length - 1, text.length], kind: "noise" }]);
      });
    }, SLOW);

    test(`${name}: openers, closers and lone sentinels repeated 5,000 times each`, () => {
      for (const unit of [`<${sentinel}tool_calls>`, `<${sentinel}parameter name="command" string="true">`, `</${sentinel}invoke>`, sentinel, `${sentinel}\n`]) {
        const input = unit.repeat(5000);
        everyMode(input, unit.repeat(Math.ceil(20_000 / unit.length)), (text, run) => {
          expect(run.calls.length).toBe(0);
          expect(run.text === text).toBe(true);
        });
      }
    }, SLOW);
  }

  test("legacy tokens repeated, alone and after a call", () => {
    for (const words of ["tool calls begin", "tool call begin", "tool sep", "tool call end", "end of sentence", "User"]) {
      const token = legacy(words);
      const input = token.repeat(5000);
      everyMode(input, token.repeat(1000), (_text, run) => expect(run.calls.length).toBe(0));
      const afterCall = `${canonical}${token.repeat(5000)}`;
      everyMode(afterCall, `${canonical}${token.repeat(1000)}`, (_text, run) => expect(run.calls.length).toBe(1));
    }
  }, SLOW);
});

describe("pathological attribute quoting", () => {
  const cases: [string, string][] = [
    ["unterminated quote to the end", `<${D}invoke name="bash ${"x ".repeat(50_000)}`],
    ["unterminated quote per line", `<${D}invoke name="bash\n`.repeat(5000)],
    ["10,000 quote characters", `<${D}invoke name="${'"'.repeat(10_000)}">\n</${D}invoke>`],
    ["10,000 quotes in a parameter", `<${D}tool_calls>\n<${D}invoke name="bash">\n<${D}parameter name="command" string="${'"'.repeat(10_000)}">ls</${D}parameter>\n</${D}invoke>\n</${D}tool_calls>`],
    ["single quotes mixed", `<${D}invoke name='bash" string='"'>`.repeat(5000)],
    ["600-char invoke name", `<${D}tool_calls>\n<${D}invoke name="${"a".repeat(600)}">\n<${D}parameter name="command" string="true">ls</${D}parameter>\n</${D}invoke>\n</${D}tool_calls>`],
    ["attribute without value", `<${D}invoke name>\n<${D}parameter name= string=>ls</${D}parameter>`.repeat(2000)],
  ];
  for (const [name, input] of cases) {
    test(name, () => {
      everyMode(input, input.slice(0, 200_000), (_text, run) => {
        for (const call of run.calls) expect(JSON.stringify(call.input)).not.toContain('""""');
      });
    }, SLOW);
  }

  test("the 600-char invoke name is refused as a runaway name (I01), not recovered", () => {
    const input = cases[5]![1];
    const r = parse(input, fixtureTools);
    expect(r.calls).toEqual([]);
    expect(r.broken.map((b) => b.shape)).toEqual(["I01"]);
  }, SLOW);

  // Safety: an attribute that runs away (quote never closed on its line, or longer than one
  // 512-character tag) must not move where a parameter's value starts. Either the call is refused
  // (with a nudge) or its input is exactly what the model wrote between the tags: never attribute
  // text, never only the lines after the runaway one.
  const runawayParams: [string, string, string][] = [
    ["600-char extra attribute", `<${D}parameter name="command" string="true" note="${"a".repeat(600)}">ls</${D}parameter>`, "ls"],
    ["unterminated string attribute", `<${D}parameter name="command" string="true>cd /tmp/scratch\nrm -rf ./*</${D}parameter>`, "cd /tmp/scratch\nrm -rf ./*"],
    ["unterminated name attribute", `<${D}parameter name="command>ls -la</${D}parameter>`, "ls -la"],
  ];
  for (const [name, param, intended] of runawayParams) {
    test(`runaway parameter attribute (${name}) never becomes part of a command`, () => {
      const input = `<${D}tool_calls>\n<${D}invoke name="bash">\n${param}\n</${D}invoke>\n</${D}tool_calls>`;
      for (const mode of ["parse", 1, 7, 4096] as const) {
        const run = runMode(input, mode);
        expectSound(input, run);
        const inputs = run.calls.map((c) => escaped(JSON.stringify(c.input)));
        expect({ mode, inputs }).toEqual({ mode, inputs: inputs.length === 0 ? [] : [JSON.stringify({ command: intended })] });
        if (run.calls.length === 0) expect(run.summary.nudge).toBe("broken-markup");
      }
    }, SLOW);
  }
});

describe("odd code units and line endings", () => {
  test("lone surrogates pass through and survive inside a recovered value", () => {
    const plain = fill("a\uD800b\uDC00c\uDC00\uD800 \uD83D", 300_000);
    everyMode(plain, plain.slice(0, 100_001), (text, run) => {
      expect(run.text === text).toBe(true);
    });
    const inValue = live(block("tool_calls", [["bash", [["command", "echo \uD800x\uDC00"]]]]));
    everyMode(`\uDC00${inValue}`, `\uD800${inValue}\uDC00`, (_text, run) => {
      expect(run.calls.map((c) => c.input.command)).toEqual(["echo \uD800x\uDC00"]);
    });
  }, SLOW);

  test("NUL bytes pass through and survive inside a recovered value", () => {
    const plain = fill("\0\0a\0<\0|\0", 300_000);
    everyMode(plain, plain.slice(0, 100_000), (text, run) => expect(run.text === text).toBe(true));
    const inValue = live(block("tool_calls", [["bash", [["command", "printf 'a\0b'"]]]]));
    everyMode(`\0${inValue}`, `\0\0${inValue}\0`, (_text, run) => {
      expect(run.calls.map((c) => c.input.command)).toEqual(["printf 'a\0b'"]);
    });
  }, SLOW);

  test("CRLF line endings in a canonical block still recover the call", () => {
    const crlf = `Let me look.\r\n\r\n${canonical.replaceAll("\n", "\r\n")}`;
    everyMode(crlf, crlf, (_text, run) => {
      expect(run.calls.map(({ tool, input }) => ({ tool, input }))).toEqual([{ tool: "bash", input: { command: "ls -la" } }]);
      expect(run.text).toBe("Let me look.\r\n\r\n");
    });
    const unit = `${canonical.replaceAll("\n", "\r\n")}\r\n`;
    everyMode(unit.repeat(300), unit.repeat(100), (text, run) => {
      expect(run.calls.length).toBe(text.length / unit.length);
      expect(run.calls.every((c) => c.input.command === "ls -la")).toBe(true);
    });
  }, SLOW);

  test("mixed scripts around and inside a block", () => {
    const mixed = "English, Ελληνικά, русский, עברית\u200F, العربية\u200E, हिन्दी, 한국어, ไทย, \uD83C\uDDEF\uD83C\uDDF5 e\u0301 \u202Ertl\u202C\n";
    const value = "echo '日本語 \uD83D\uDE80 Ελληνικά'";
    const input = `${mixed}${live(block("tool_calls", [["bash", [["command", value]]]]))}`;
    everyMode(input, input, (_text, run) => {
      expect(run.text).toBe(mixed);
      expect(run.calls.map((c) => c.input.command)).toEqual([value]);
    });
    const big = fill(mixed, MB);
    everyMode(big, big.slice(0, 200_000), (text, run) => expect(run.text === text).toBe(true));
  }, SLOW);
});

describe("linear work (counted, not timed)", () => {
  const shapes: [string, (n: number) => string][] = [
    ["prose", (n) => fill(PROSE_UNIT, n)],
    ["mostly '<'", (n) => fill(`${"<".repeat(61)}a b\n`, n)],
    // Inline tags that fail are read again as prose beside the attempt (doc-tags.ts), never rescanned: failing ones
    // holding links, comments and tags in their values, and attempts opened inside each other's quoted values past the cap.
    ["inline tags failing on what their values hold", (n) => fill(`See <a x=[foo bar](/u 't') <b t="<!--" ]\n-->y <c t='<?' ] ?> <d t="<e title='" ] X'> `, n)],
    ["inline tag attempts opened inside each other's values", (n) => `x ${fill('<a x="<b y=\'', n)}`],
    ["unclosed openers", (n) => fill(`<${D}invoke name="bash">`, n)],
    ["complete blocks", (n) => fill(`${canonical}\n`, n)],
    ["blocks with narration", (n) => fill(`${canonical}\nNow the next one.\n`, n)],
    ["stray closers", (n) => fill(`</${D}parameter>`, n)],
    ["quote flood", (n) => `<${D}invoke name="${fill('"', n)}`],
    ["unterminated quotes per line", (n) => fill(`<${D}invoke name="bash\n`, n)],
    ["runaway candidate text", (n) => `<${D}tool_calls>\n<${D}invoke name="bash">\n${fill("x < y | z ", n)}`],
    // `<tool_call>` opens a candidate wherever it starts (issue 11): mentions and broken bodies must stay linear.
    ["<tool_call> mentions", (n) => fill("Use <tool_call> tags, then <tool_call>read more. ", n)],
    ["<tool_call> openers back to back", (n) => fill("<tool_call>", n)],
    ["<tool_call> with invalid JSON", (n) => fill('<tool_call>{"name": x <tool_call>{"a": [1, ', n)],
    ["<tool_call> GLM keys of several words", (n) => fill("<tool_call>read<arg_key>a b ", n)],
    ["<tool_call> calls back to back", (n) => fill('<tool_call>\n{"name": "bash", "arguments": {"command": "ls"}}\n</tool_call>', n)],
    ["<tool_call> JSON that goes wrong late", (n) => fill('<tool_call>{"a": [[[{"b": [1, 2, {"c": "d"}]}]]] x ', n)],
    // Plain markup in a DSML value looks ahead for the value's sentinel closer (issue 11 item 7): once per value.
    ["DSML values of plain markup, each closed", (n) => `<${D}tool_calls>\n<${D}invoke name="write">\n${fill(`<${D}parameter name="content" string="true"><a><parameter name="x">1</parameter></a></${D}parameter>\n`, n)}`],
    ["one DSML value of plain markup that never closes", (n) => `<${D}tool_calls>\n<${D}invoke name="write">\n<${D}parameter name="content" string="true">${fill('<parameter name="x">1</parameter>\n', n)}`],
    // Invokes that never close, each ended by the next (and a complete one between): each span ends at the next invoke, never re-read to the end.
    ["DSML invokes cut off mid-value, back to back", (n) => `<${D}tool_calls>\n${fill(`<${D}invoke name="bash">\n<${D}parameter name="command" string="true">cut\n`, n)}</${D}invoke>`],
    ["DSML invokes missing their closer, complete and cut off in turn", (n) => `<${D}tool_calls>\n${fill(`<${D}invoke name="bash">\n<${D}parameter name="command" string="true">ls</${D}parameter>\n<${D}invoke name="bash">\n<${D}parameter name="command" string="true">cut\n`, n)}</${D}invoke>`],
    ["DSML invokes cut off before a fence that closes", (n) => `<${D}tool_calls>\n${fill(`<${D}invoke name="bash">\n<${D}parameter name="command" string="true">cut\n\n\`\`\`\n<${D}invoke name="bash">\n\`\`\`\n`, n)}</${D}invoke>`],
    ["Claude-style invokes cut off in a wrapper", (n) => `<function_calls>\n${fill('<invoke name="bash">\n<parameter name="command">cut\n', n)}</invoke>\n</function_calls>`],
    // The lines after a cut-off value's first line are text beside its broken span (found once per span): prose, and openers there that never close.
    ["DSML invokes cut off, prose lines before the next", (n) => `<${D}tool_calls>\n${fill(`<${D}invoke name="bash">\n<${D}parameter name="command" string="true">cut\nmore\n\nprose\n`, n)}</${D}invoke>`],
    ["DSML invokes cut off, an unclosed costume before the next", (n) => `<${D}tool_calls>\n${fill(`<${D}invoke name="bash">\n<${D}parameter name="command" string="true">cut\n<shell>\nls\n`, n)}</${D}invoke>`],
    ["DSML invokes cut off, an unclosed <tool_call> before the next", (n) => `<${D}tool_calls>\n${fill(`<${D}invoke name="bash">\n<${D}parameter name="command" string="true">cut\n<tool_call>\n{"name": "bash"\n`, n)}</${D}invoke>`],
    ["DSML invokes cut off, a legacy opener before the next", (n) => `<${D}tool_calls>\n${fill(`<${D}invoke name="bash">\n<${D}parameter name="command" string="true">cut\n<${BAR}tool${SP}calls${SP}begin${BAR}>\n`, n)}</${D}invoke>`],
    ["Claude-style invokes cut off in a wrapper, prose lines before the next", (n) => `<function_calls>\n${fill('<invoke name="bash">\n<parameter name="command">cut\nmore prose\n', n)}</invoke>\n</function_calls>`],
    // A costume's closer with text after it is the code's text (closer-in-value.ts): the costume holds on, and a costume cut off
    // after such closers is text up to its first closer, the rest read again once; an opener after one ends it there.
    ["costume closers with text after them, repeated", (n) => `<shell>\n${fill("ls</shell>x\n", n)}`],
    ["costumes refused by text after their closer, back to back", (n) => fill("<shell>\nls\n</shell>ok\n", n)],
    ["costumes of other names after closers with text", (n) => fill("<shell>\n</shell>x\n<bash>\n</bash>x\n<py>\n</py>x\n<pre>\n</pre>x\n", n)],
    // A call after a closer read as code holds the costume on until its closer ends a line or the reply ends (costume-hold.ts COSTUME).
    ["costumes held past a closer read as code, a costume call after each", (n) => fill("<shell>\nls\n</shell>ok\n<bash>\npwd\n</bash>\n", n)],
    ["costumes held past a closer read as code, each closed later", (n) => fill("<shell>\nls\n</shell>ok\n<bash>\npwd\n</bash>\n</shell>\n", n)],
    // A later closer with text after it refuses up to the costume's last closer and the rest is read again (review 41, rule 4).
    ["costumes held past a closer read as code, each closed later with text after it", (n) => fill("<shell>\nls\n</shell>ok\n<bash>\npwd\n</bash>\n</shell> b\n", n)],
    ["costumes held past a closer read as code, closed later with text after it, names alternating", (n) => fill("<shell>\nls\n</shell>ok\n<bash>\npwd\n</bash>\n</shell> b\n<bash>\nls\n</bash>ok\n<py>\nx\n</py>\n</bash> b\n", n)],
    // Example blocks inside an open value (example-in-value.ts ExampleInValue): read on while the value's closer may follow
    // them; proved no example, read again once from the first (review finding 2).
    ["complete example blocks repeated inside one value that closes", (n) => `<${D}tool_calls>\n<${D}invoke name="write">\n<${D}parameter name="content" string="true">${fill(`${canonical}\n`, n)}</${D}parameter>\n</${D}invoke>\n</${D}tool_calls>`],
    ["complete example blocks repeated inside one value that never closes", (n) => `<${D}tool_calls>\n<${D}invoke name="write">\n<${D}parameter name="content" string="true">${fill(`${canonical}\n`, n)}`],
    ["example invokes inside values, each ended by the next", (n) => `<${D}tool_calls>\n${fill(`<${D}invoke name="write">\n<${D}parameter name="content" string="true">x\n<${D}invoke name="bash">\n<${D}parameter name="command" string="true">ls</${D}parameter>\n</${D}invoke>\n`, n)}`],
    // Examples of any dialect inside a value (example-in-value.ts ExampleInValue), a closer with text after it inside the example's
    // own value (read as that value's text), and plain markup in a DSML value held to the next DSML tag (PlainRunInValue).
    ["Qwen3-Coder examples repeated inside one Claude-style value that closes", (n) => `<function_calls>\n<invoke name="write">\n<parameter name="content">${fill("<tool_call>\n<function=bash>\n<parameter=command>\nls\n</parameter>\n</function>\n</tool_call>\n", n)}</parameter>\n</invoke>\n</function_calls>`],
    ["Qwen3-Coder examples repeated inside one Claude-style value that never closes", (n) => `<function_calls>\n<invoke name="write">\n<parameter name="content">${fill("<function=bash>\n<parameter=command>\nls\n</parameter>\n</function>\n", n)}`],
    ["examples holding a closer with text after it, repeated inside one Qwen3-Coder value", (n) => `<tool_call>\n<function=write>\n<parameter=content>\n${fill('<invoke name="bash">\n<parameter name="command">echo "</invoke>" x</parameter>\n</invoke>\n', n)}`],
    ["example closers with text after them, never closed, inside one Claude-style value", (n) => `<function_calls>\n<invoke name="write">\n<parameter name="content"><invoke name="bash">\n<parameter name="command">${fill("</invoke> x\n", n)}`],
    ["plain markup in DSML values, each ended by the next invoke", (n) => `<${D}tool_calls>\n${fill(`<${D}invoke name="write">\n<${D}parameter name="content" string="true"><b></invoke> x\n`, n)}`],
    ["GLM values holding Claude-style examples, never closed", (n) => `<tool_call>write\n<arg_key>content</arg_key>\n<arg_value>${fill('<invoke name="bash">\n<parameter name="command">ls</parameter>\n</invoke>\n', n)}`],
    // A `</tool_call>` with text after it inside a GLM value is the value's text (closer-in-value.ts): read on once, closed or not.
    ["GLM value holding `</tool_call>x` repeated, then closed", (n) => `<tool_call>bash\n<arg_key>command</arg_key>\n<arg_value>${fill("</tool_call>x\n", n)}</arg_value>\n</tool_call>`],
    ["GLM value holding `</tool_call>x` repeated, never closed", (n) => `<tool_call>bash\n<arg_key>command</arg_key>\n<arg_value>${fill("</tool_call>x", n)}`],
    ["GLM calls refused by `</tool_call>` in their value, back to back", (n) => fill("<tool_call>bash\n<arg_key>command</arg_key>\n<arg_value>ls</tool_call>x\n</tool_call>\n", n)],
    // Review 41: an example ended by its value's invoke closer (P01) or prefix-less `</parameter>` (M07), an example that never
    // closes itself before its value's closer, and a prefix-less `</parameter>` after an invoke closer in a value.
    ["DSML writes holding an example block, each ended by its invoke closer", (n) => `<${D}tool_calls>\n${fill(`<${D}invoke name="write">\n<${D}parameter name="content" string="true">x\n${canonical}\n</${D}invoke>\n`, n)}</${D}tool_calls>`],
    ["DSML writes holding an example block, each ended by a prefix-less </parameter>", (n) => `<${D}tool_calls>\n${fill(`<${D}invoke name="write">\n<${D}parameter name="content" string="true">x\n${canonical}\n</parameter>\n</invoke>\n`, n)}</${D}tool_calls>`],
    ["DSML writes holding an unclosed example block, each then closed", (n) => `<${D}tool_calls>\n${fill(`<${D}invoke name="write">\n<${D}parameter name="content" string="true"><${D}tool_calls>\n<${D}invoke name="bash">\n<${D}parameter name="command" string="true">ls</${D}parameter>\n</${D}parameter>\n</${D}invoke>\n`, n)}</${D}tool_calls>`],
    ["unclosed example invokes repeated in one DSML value, then closed", (n) => `<${D}tool_calls>\n<${D}invoke name="write">\n<${D}parameter name="content" string="true">${fill(`<${D}invoke name="bash">\n<${D}parameter name="command" string="true">ls</${D}parameter>\n`, n)}</${D}parameter>\n</${D}invoke>\n</${D}tool_calls>`],
    ["DSML invoke closers then prefix-less </parameter> in values, back to back", (n) => `<${D}tool_calls>\n${fill(`<${D}invoke name="bash">\n<${D}parameter name="command" string="true">ls\n</${D}invoke>\n</parameter>\n`, n)}</${D}tool_calls>`],
    ["Claude-style writes holding a lone example invoke, the wrapper closing each", (n) => fill('<function_calls>\n<invoke name="write">\n<parameter name="content">x\n<invoke name="bash">\n<parameter name="command">ls</parameter>\n</invoke>\n</function_calls>\n', n)],
    ["DSML values of plain closers and openers, never closed", (n) => `<${D}tool_calls>\n<${D}invoke name="write">\n${fill(`<${D}parameter name="c" string="true"></parameter><parameter name="x"></parameter>`, n)}`],
  ];
  // Candidates that abandon late, back at their start: each abandoned opener must not rescan what
  // the next opener reads again (issue 10 item 6: fence labels read on across lines).
  const OPENERS: [string, string][] = [
    ["DSML block", `<${D}tool_calls>`],
    ["DSML invoke", `<${D}invoke name="bash">`],
    ["DSML parameter", `<${D}parameter name="command">`],
    ["tool_call wrapper", "<tool_call>"],
    ["Qwen3-Coder function", "<function=bash>"],
    ["shell costume", "<shell>"],
    ["execute costume", "<execute_ruby>"],
    ["Mistral token", "[TOOL_CALLS]"],
    ["legacy section", `<${BAR}tool${SP}calls${SP}begin${BAR}>`],
  ];
  const lateAbandon: [string, (n: number) => string][] = [
    ["I10 name, then lines read as fence labels", (n) => `${fill(`~<${D}tool_calls>x\n`, n)}end\n`],
    ["I10 name, then backtick lines", (n) => `${fill(`\`\`\`<${D}tool_calls>x\n`, n)}end\n`],
    ["I10 name and fence, then no JSON", (n) => `${fill(`<${D}tool_calls>x\n~~~json\n`, n)}end\n`],
    ...OPENERS.map(([kind, opener]): [string, (n: number) => string] => [`${kind} after ~, then x, line after line`, (n) => `${fill(`~${opener}x\n`, n)}end\n`]),
  ];
  shapes.push(...lateAbandon);
  const heldCostumes = shapes.filter(([name]) => name.startsWith("costumes held past"));
  for (const [name, make] of [...lateAbandon, ...heldCostumes]) {
    test(`${name}: the history sanitizer's work is linear too`, () => {
      const ratio = historyWork(make(100_000)) / historyWork(make(25_000));
      expect(ratio).toBeLessThanOrEqual(4.5);
    }, SLOW);
  }
  for (const [name, make] of shapes) {
    test(`${name}: 4x the input costs at most 4.5x the work`, () => {
      for (const mode of ["parse", 1, 7, 4096] as const) {
        const ratio = growth(make, mode === 1 ? 8000 : 25_000, mode);
        if (ratio > 4.5) expect({ mode, ratio }).toEqual({ mode, ratio: 4.5 });
      }
    }, SLOW);
  }

  test("the counter detects quadratic work (a rescanning reader grows about 16x)", () => {
    const rescan = (input: string) => {
      let buffer = "";
      for (let at = 0; at < input.length; at += 64) {
        buffer += input.slice(at, at + 64);
        for (let i = 0; i < buffer.length; i++) buffer.charCodeAt(i);
      }
    };
    const small = countWork(() => rescan(fill("abc ", 8000)));
    const large = countWork(() => rescan(fill("abc ", 32_000)));
    expect(large / small).toBeGreaterThan(12);
  }, SLOW);
});
