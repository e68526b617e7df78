/**
 * Review 44: a call written inside a value that outgrew responseFix.bufferLimit never runs.
 *
 * A leaked call longer than the limit is released verbatim (held-candidate-no-call): where its
 * markup ends is then unknown, and the rest of it (the rest of a file a leaked write was writing)
 * is read as prose. Before this fix a tool-call example further down that file ran. The rule
 * (src/engine/output.ts, Output.overflowed): once a candidate was released at the limit, or a code
 * costume was refused at the end of its span past its hold cap (src/parse/costume-hold.ts
 * HELD_LOOKAHEAD), no later call of the reply runs: each is reported broken, "overflowed-markup",
 * its text kept. The state carries to the reply's later parts and reasoning stretches
 * (AnswerSoFar.overflowed). Every case runs whole, char by char and at seeded random splits, and
 * accounts for every character. Small limits (300, 1000) stand for the default 65,536.
 */
import { describe, expect, test } from "bun:test";
import { createRepairEngine } from "../../src/engine/engine.ts";
import { GuardedEngine } from "../../src/engine/guarded.ts";
import { ReasoningChannel } from "../../src/engine/reasoning-channel.ts";
import type { AnswerSoFar, EngineEvent, EngineOptions } from "../../src/engine/types.ts";
import type { RecoveredCall } from "../../src/parse/types.ts";
import { HELD_LOOKAHEAD } from "../../src/parse/costume-hold.ts";
import { fixtureTools } from "../golden/tools.ts";
import { block, live } from "../golden/notation.ts";
import { accountsForEveryCharacter, everyChar, type EngineRun, observable, randomCuts, runEngine } from "../support/run-engine.ts";

const LIMIT = 300;

/** The run of the whole input at `limit`, after asserting that char by char and seeded random splits agree and every character is accounted for. */
function agreed(input: string, limit: number = LIMIT, charByChar = true): EngineRun {
  const run = (cuts: number[]) => runEngine(input, cuts, fixtureTools, { bufferLimit: limit });
  const whole = run([]);
  if (charByChar) expect(observable(run(everyChar(input.length)))).toEqual(observable(whole));
  for (let seed = 1; seed <= 5; seed++) expect(observable(run(randomCuts(input.length, seed)))).toEqual(observable(whole));
  expect(accountsForEveryCharacter(input, whole)).toBe(true);
  return whole;
}

const RM = "rm -rf build";
const ranRm = (calls: readonly RecoveredCall[]) => calls.some((c) => c.tool === "bash" && c.input.command === RM);
const reasons = (r: EngineRun) => r.summary.broken.map((b) => b.reason);

/** Tool-call examples a Markdown file may document, each a complete call to bash `rm -rf build`. */
const EXAMPLES: Record<string, string> = {
  "a Hermes <tool_call>": `<tool_call>\n{"name": "bash", "arguments": {"command": "${RM}"}}\n</tool_call>`,
  "a Claude-style <function_calls> block": `<function_calls>\n<invoke name="bash">\n<parameter name="command">${RM}</parameter>\n</invoke>\n</function_calls>`,
  "a DSML block": live(block("tool_calls", [["bash", [["command", RM]]]])),
  "a Qwen3-Coder call": `<tool_call>\n<function=bash>\n<parameter=command>\n${RM}\n</parameter>\n</function>\n</tool_call>`,
};

/** A leaked `write` of doc.md, in each outer form, whose content is `content`. */
const WRITES: Record<string, (content: string) => string> = {
  DSML: (content) => live(block("tool_calls", [["write", [["filePath", "doc.md"], ["content", content]]]])),
  "Claude-style": (content) => `<function_calls>\n<invoke name="write">\n<parameter name="filePath">doc.md</parameter>\n<parameter name="content">${content}</parameter>\n</invoke>\n</function_calls>`,
  "Qwen3-Coder": (content) => `<tool_call>\n<function=write>\n<parameter=filePath>\ndoc.md\n</parameter>\n<parameter=content>\n${content}\n</parameter>\n</function>\n</tool_call>`,
  // A JSON string escapes the newlines and quotes: the examples inside it are single-line ones that need neither.
  Hermes: (content) => `<tool_call>\n{"name": "write", "arguments": {"filePath": "doc.md", "content": ${JSON.stringify(content)}}}\n</tool_call>`,
};

/** Examples that survive JSON string escaping (no quotes, no newlines needed). */
const INLINE_EXAMPLES: Record<string, string> = {
  "a Qwen3-Coder function": `<function=bash><parameter=command>${RM}</parameter></function>`,
  "a DSML invoke with single quotes": live(`<{D}invoke name='bash'><{D}parameter name='command'>${RM}</{D}parameter></{D}invoke>`),
};

/** Markdown content longer than `limit`, with `example` further down. */
const documenting = (limit: number, example: string, inline = false) =>
  inline ? `${"x".repeat(limit + 50)} Write it as ${example} and the call runs. More text.` : `# Tool calls\n\n${"x".repeat(limit + 50)}\n\nWrite it as:\n\n${example}\n\nmore\n`;

describe("a leaked write whose content outgrew the limit: an example in that content never runs", () => {
  const cases: [string, string, string, boolean][] = [];
  for (const [outer, write] of Object.entries(WRITES)) {
    const examples = outer === "Hermes" ? INLINE_EXAMPLES : EXAMPLES;
    for (const [name, example] of Object.entries(examples)) cases.push([outer, name, write(documenting(LIMIT, example, outer === "Hermes")), outer === "Hermes"]);
  }

  test.each(cases)("%s write holding %s", (_outer, _name, input) => {
    const r = agreed(input);
    expect(r.calls).toEqual([]);
    expect(r.summary.heldCandidateNoCall).toBe(1);
    // Reported, never run; no text lost, none stripped.
    expect(reasons(r)).toContain("overflowed-markup");
    expect(r.summary.broken.find((b) => b.reason === "overflowed-markup")!.tool).toBe("bash");
    expect(r.text).toBe(input);
    expect(r.summary.stripped).toEqual([]);
  });

  test.each(cases)("hard negative: %s write holding %s, within the limit, is the one write and the example its text", (_outer, _name, input) => {
    const r = runEngine(input, [], fixtureTools, { bufferLimit: 65536 });
    expect(r.calls.map((c) => c.tool)).toEqual(["write"]);
    expect(String(r.calls[0]!.input.content)).toContain(RM);
  });

  test("the lead's probe at limit 1000: whole and seeded splits (char by char too)", () => {
    const input = WRITES.DSML!(documenting(1000, EXAMPLES["a Hermes <tool_call>"]!));
    const r = agreed(input, 1000);
    expect(ranRm(r.calls)).toBe(false);
    expect(r.summary.nudge).toBe("overflowed-markup");
  });
});

describe("a real call after an overflow: does not run, its text kept (decided)", () => {
  const overflowed = WRITES.DSML!(`${"x".repeat(LIMIT + 50)}\n`);
  const after = live(block("tool_calls", [["bash", [["command", "bun test"]]]]));

  test("in the same reply", () => {
    const input = `${overflowed}\n\nNow the tests:\n\n${after}\n`;
    const r = agreed(input);
    expect(r.calls).toEqual([]);
    expect(r.text).toBe(input);
    const broken = r.summary.broken.filter((b) => b.reason === "overflowed-markup");
    expect(broken.map((b) => [b.tool, input.slice(b.span[0], b.span[1]).trim()])).toEqual([["bash", after]]);
  });

  test("every later call, in another dialect too", () => {
    const hermes = `<tool_call>\n{"name": "read", "arguments": {"filePath": "/a"}}\n</tool_call>`;
    const input = `${overflowed}\n\n${after}\n\n${hermes}\n<bash>${RM}</bash>\n`;
    const r = agreed(input);
    expect(r.calls).toEqual([]);
    expect(r.summary.broken.filter((b) => b.reason === "overflowed-markup").map((b) => b.tool)).toEqual(["bash", "read", "bash"]);
    expect(r.text).toBe(input);
  });

  test("a call before the overflow still runs; only what comes after is held back", () => {
    const before = `<tool_call>\n{"name": "read", "arguments": {"filePath": "/a"}}\n</tool_call>`;
    const input = `${before}\n${WRITES.DSML!(documenting(LIMIT, EXAMPLES["a Hermes <tool_call>"]!))}\n`;
    const r = agreed(input);
    expect(r.calls.map((c) => [c.tool, c.input])).toEqual([["read", { filePath: "/a" }]]);
    expect(reasons(r)).toContain("overflowed-markup");
  });

  test("hard negative: no candidate outgrew the limit, the later call runs", () => {
    const input = `${WRITES.DSML!("short\n")}\n\nNow the tests:\n\n${after}\n`;
    const r = agreed(input);
    expect(r.calls.map((c) => c.tool)).toEqual(["write", "bash"]);
  });

  test("text held after a call that outgrows the limit is no overflowed markup: a later call still runs", () => {
    const first = `<tool_call>\n{"name": "read", "arguments": {"filePath": "/a"}}\n</tool_call>`;
    const input = `${first}\n${"words ".repeat(60)}\n${after}\n`;
    const r = agreed(input);
    expect(r.summary.heldCandidateNoCall).toBe(1);
    expect(r.calls.map((c) => c.tool)).toEqual(["read", "bash"]);
  });
});

describe("a code costume past its hold", () => {
  const hermesExample = EXAMPLES["a Hermes <tool_call>"]!;

  test("a costume held past a closer read as code outgrows the limit: an example after it never runs", () => {
    const input = `<shell>cat > doc.md <<'EOF'\nEnd the block with </shell> on its own line.\n<bash>ls</bash>\n${"y".repeat(LIMIT + 100)}\n${hermesExample}\nEOF\n</shell>\n`;
    const r = agreed(input);
    expect(r.calls).toEqual([]);
    expect(r.summary.heldCandidateNoCall).toBe(1);
    expect(reasons(r)).toContain("overflowed-markup");
    expect(r.text).toBe(input);
  });

  // Past HELD_LOOKAHEAD the costume is refused whole at the end of its span; what the reply writes
  // in its next span (Anthropic text block, Responses part) may still be its code.
  const longCostume = `<shell>cat > doc.md <<'EOF'\nuse </shell> x\n<bash>ls</bash>\n${"y\n".repeat(HELD_LOOKAHEAD / 2 + 50)}`;
  const next = `${hermesExample}\nEOF\n</shell>\n`;

  test("refused at the end of its span past the hold cap: a call in the next span (same engine) does not run", () => {
    const r = spanned([longCostume, next], Number.MAX_SAFE_INTEGER);
    expect(r.calls).toEqual([]);
    expect(r.broken).toEqual(["broken-markup", "overflowed-markup"]);
    expect(r.text).toBe(longCostume + next);
  });

  test("the same when the next span is another engine's (a Responses part: AnswerSoFar.overflowed)", () => {
    const r = chained([longCostume, next], Number.MAX_SAFE_INTEGER);
    expect(r.calls).toEqual([]);
    expect(r.broken.flat()).toEqual(["broken-markup", "overflowed-markup"]);
  });

  test("within the hold cap, its heredoc still open at the span's end: nothing runs, as in one span (review 53)", () => {
    // The costume candidate is still open at the span's end (its heredoc goes on); cut there it
    // reads as ended at its first closer, but the whole reply keeps everything up to the last
    // `</shell>` as its code, so neither `ls` nor the next span's call runs (it ran both before review 53).
    const short = `<shell>cat > doc.md <<'EOF'\nuse </shell> x\n<bash>ls</bash>\n\n${"y\n".repeat(10)}`;
    expect(chained([short + next], Number.MAX_SAFE_INTEGER).calls).toEqual([]);
    for (const read of [spanned, chained]) expect(read([short, next], Number.MAX_SAFE_INTEGER).calls).toEqual([]);
  });

  // Changed by fix 54b: a part's end decides nothing. Its heredoc and closer came, but the costume is
  // still held at the span's end (within its hold cap a later closer may show this one was code), so
  // it is shown as written and no later call runs. Read whole, both run (the first assertion).
  test("a costume whose heredoc and closer both came, still held at the span's end: nothing runs in parts (fix 54b)", () => {
    const closed = `<shell>cat > doc.md <<'EOF'\nuse </shell> x\nEOF\n</shell>\n\n${"y\n".repeat(10)}`;
    expect(chained([closed + hermesExample], Number.MAX_SAFE_INTEGER).calls.map((c) => c.input.command)).toEqual(["cat > doc.md <<'EOF'\nuse </shell> x\nEOF", RM]);
    for (const read of [spanned, chained]) expect(read([closed, hermesExample], Number.MAX_SAFE_INTEGER).calls).toEqual([]);
  });
});

describe("a code costume refused at its own closer ending a line, after a closer read as code (review 44 follow-up)", () => {
  // The A40.19 rule refuses such a costume whole: its code held call markup after a closer read as
  // code, so which closer ended it is unknowable, and the one that ends its line may be the code's
  // text too. What follows may still be its code (here the heredoc goes on until the final
  // `</shell>`): no later call of the reply runs, as after an overflow.
  const LARGE = 65536;
  const refused = `<shell>cat > doc.md <<'EOF'\nEnd the block with </shell> on its own line, like:\n<bash>ls</bash>\n</shell>\n`;
  const hermesExample = EXAMPLES["a Hermes <tool_call>"]!;

  test("the lead's probe: the <tool_call> example still inside the heredoc never runs", () => {
    const input = `${refused}Then call:\n${hermesExample}\nEOF\n</shell>\n`;
    const r = agreed(input, LARGE);
    expect(r.calls).toEqual([]);
    expect(r.summary.broken.map((b) => [b.shape, b.reason, b.tool])).toEqual([
      ["C04", "broken-markup", undefined],
      ["O01", "overflowed-markup", "bash"],
    ]);
    // The costume up to its closer; the line end after it is text.
    expect(r.summary.broken[0]!.span).toEqual([0, refused.length - 1]);
    expect(r.text).toBe(input);
    expect(r.summary.stripped).toEqual([]);
    expect(r.summary.nudge).toBe("broken-markup");
  });

  test.each(Object.entries(EXAMPLES))("%s after the refused costume never runs", (_name, example) => {
    const input = `${refused}${example}\nEOF\n</shell>\n`;
    const r = agreed(input, LARGE);
    expect(ranRm(r.calls)).toBe(false);
    expect(r.calls).toEqual([]);
    expect(reasons(r)).toEqual(["broken-markup", "overflowed-markup"]);
    expect(r.text).toBe(input);
  });

  test("every later call, another costume too, each reported", () => {
    const input = `${refused}\nDone.\n<bash>\npwd\n</bash>\n\n${hermesExample}\n`;
    const r = agreed(input, LARGE);
    expect(r.calls).toEqual([]);
    expect(reasons(r)).toEqual(["broken-markup", "overflowed-markup", "overflowed-markup"]);
    expect(r.text).toBe(input);
  });

  test("a call before the refused costume still runs", () => {
    const before = `<tool_call>\n{"name": "read", "arguments": {"filePath": "/a"}}\n</tool_call>\n`;
    const r = agreed(`${before}${refused}${hermesExample}\n`, LARGE);
    expect(r.calls.map((c) => [c.tool, c.input])).toEqual([["read", { filePath: "/a" }]]);
    expect(reasons(r)).toContain("overflowed-markup");
  });

  test("the state carries to a later Responses part and a later Anthropic text block", () => {
    const c = chained([refused, `Now:\n${hermesExample}\n`], LARGE);
    expect(c.calls).toEqual([]);
    expect(c.broken).toEqual([["broken-markup"], ["overflowed-markup"]]);
    expect(c.carried[0]?.overflowed).toBe(true);
    const s = spanned([refused, hermesExample], LARGE);
    expect(s.calls).toEqual([]);
    expect(s.broken).toEqual(["broken-markup", "overflowed-markup"]);
  });

  test("hard negatives: a costume whose closer ended its line at once, or that held no call markup, leaves later calls free", () => {
    const plain = agreed(`<shell>\nls\n</shell>\n${hermesExample}\n`, LARGE);
    expect(plain.calls.map((c) => c.input.command)).toEqual(["ls", RM]);
    // A closer read as code, but no call opener after it: the costume is one command and nothing is refused.
    const quoted = agreed(`<shell>\ngrep -c "</shell>" a.html\n</shell>\n${hermesExample}\n`, LARGE);
    expect(quoted.calls.map((c) => c.input.command)).toEqual([`grep -c "</shell>" a.html`, RM]);
  });
});

describe("the state carries across a reply's parts and reasoning stretches", () => {
  const overflowed = `${WRITES.DSML!(`${"x".repeat(LIMIT + 50)}\n`)}\n`;
  const call = `<tool_call>\n{"name": "bash", "arguments": {"command": "${RM}"}}\n</tool_call>`;

  test("an overflow in one Responses part, a call in the next: it does not run", () => {
    const r = chained([overflowed, `Now:\n${call}\n`], LIMIT);
    expect(r.calls).toEqual([]);
    expect(r.broken[1]).toEqual(["overflowed-markup"]);
    expect(r.carried.at(-1)?.overflowed).toBe(true);
  });

  test("three parts: still not two parts on", () => {
    const r = chained([overflowed, "More.\n", call], LIMIT);
    expect(r.calls).toEqual([]);
    expect(r.broken[2]).toEqual(["overflowed-markup"]);
  });

  test("Anthropic text blocks (one engine, endSpan between): the same", () => {
    const r = spanned([overflowed, call], LIMIT);
    expect(r.calls).toEqual([]);
    expect(r.broken).toContain("overflowed-markup");
  });

  test("every part cut char by char and at seeded splits agrees", () => {
    const texts = [overflowed, `Now:\n${call}\n`];
    const whole = chained(texts, LIMIT);
    for (const way of [everyChar, (n: number) => randomCuts(n, 7), (n: number) => randomCuts(n, 8)]) expect(chained(texts, LIMIT, way)).toEqual(whole);
  });

  // Changed by fix 55: a DSML block closed right at a part's end is pending there (the run after its
  // call reads on past its closer, A46.6); a prose line after it inside the part decides it.
  test("hard negative: no overflow in the first part, the next part's call runs", () => {
    const r = chained([`${WRITES.DSML!("short\n")}\nDone.\n`, `Now:\n${call}\n`], LIMIT);
    expect(r.calls.map((c) => c.tool)).toEqual(["write", "bash"]);
  });

  test("an overflow in one reasoning stretch, the trailing block in the next: it does not run", () => {
    const r = reasoning([overflowed, `Plan done.\n${call}\n`], LIMIT);
    expect(r.calls).toEqual([]);
    expect(r.shown.join("")).toBe(overflowed + `Plan done.\n${call}\n`);
    // Hard negative: without the overflow the trailing block is the answer and runs.
    const ok = reasoning([`${WRITES.DSML!("short\n")}\n`, `Plan done.\n${call}\n`], LIMIT);
    expect(ok.calls.map((c) => c.input.command)).toEqual([RM]);
  });
});

describe("engines that never run a call: nothing throws", () => {
  const overflowed = `${WRITES.DSML!(`${"x".repeat(LIMIT + 50)}\n`)}\n`;
  const call = `<tool_call>\n{"name": "bash", "arguments": {"command": "${RM}"}}\n</tool_call>`;

  test("replayed history (history: true): a call after the overflow is reported as history reports every call, and the state carries", () => {
    const engine = createRepairEngine({ tools: fixtureTools, bufferLimit: LIMIT, history: true, idPrefix: "h_" });
    const events = [...engine.feed(overflowed + call), ...engine.flush()];
    expect(events.filter((e) => e.type === "call")).toEqual([]);
    expect(engine.summary().broken.map((b) => b.reason)).toContain("undeclared-tool");
    expect(engine.summary().broken.map((b) => b.reason)).not.toContain("overflowed-markup");
    // A prefill read this way hands it on: the reply continuing it may still be inside that markup.
    expect(engine.carryOver!().overflowed).toBe(true);
  });

  test("reading given content for the echo guard: every call is still found (each makes the guard stricter)", () => {
    const engine = createRepairEngine({ tools: fixtureTools, bufferLimit: LIMIT, idPrefix: "g_", readingGiven: { candidateEnded: () => undefined } });
    const events = [...engine.feed(overflowed + call), ...engine.flush()];
    expect(events.flatMap((e) => (e.type === "call" ? [e.call.input.command] : []))).toEqual([RM]);
    expect(engine.carryOver!().overflowed).toBeUndefined();
  });
});

// ---------------------------------------------------------------- runs over several spans

interface SpannedRun {
  calls: RecoveredCall[];
  text: string;
  broken: string[];
}

/** One engine, endSpan() between the texts (the Anthropic wire's text blocks). */
function spanned(texts: string[], limit: number): SpannedRun {
  const engine = createRepairEngine({ tools: fixtureTools, bufferLimit: limit, idPrefix: "call_" });
  const events: EngineEvent[] = [];
  texts.forEach((text, i) => {
    events.push(...engine.feed(text));
    if (i < texts.length - 1) events.push(...engine.endSpan!());
  });
  events.push(...engine.flush());
  return { ...split(events), broken: engine.summary().broken.map((b) => b.reason) };
}

interface ChainedRun {
  calls: RecoveredCall[];
  text: string;
  /** Each engine's broken reasons. */
  broken: string[][];
  carried: AnswerSoFar[];
}

/** An engine per text, each continuing where the one before ended (the Responses wire's parts); each text cut by `cuts`. */
function chained(texts: string[], limit: number, cuts: (length: number) => number[] = () => []): ChainedRun {
  let before: AnswerSoFar | undefined;
  const events: EngineEvent[] = [];
  const broken: string[][] = [];
  const carried: AnswerSoFar[] = [];
  for (const text of texts) {
    const options: EngineOptions = { tools: fixtureTools, bufferLimit: limit, idPrefix: `call_${broken.length}_`, ...(before ? { continues: before } : {}) };
    const engine = createRepairEngine(options);
    let prev = 0;
    for (const at of [...cuts(text.length), text.length]) {
      events.push(...engine.feed(text.slice(prev, at)));
      prev = at;
    }
    events.push(...engine.endSpan!());
    before = engine.carryOver!();
    carried.push(before);
    events.push(...engine.flush());
    broken.push(engine.summary().broken.map((b) => b.reason));
  }
  return { ...split(events), broken, carried };
}

/** Reasoning stretches through one channel (the real engine per stretch), no content: the trailing block may run. */
function reasoning(stretches: string[], limit: number): { calls: RecoveredCall[]; shown: string[] } {
  const channel = new ReasoningChannel((continues) => new GuardedEngine(createRepairEngine({ tools: fixtureTools, bufferLimit: limit, channel: "reasoning", idPrefix: "r_", ...(continues ? { continues } : {}) }), () => undefined));
  const shown: string[] = [];
  for (const stretch of stretches) {
    shown.push(channel.feed(stretch) + channel.close());
  }
  const calls = channel.settle(0);
  shown[shown.length - 1] += channel.take();
  return { calls, shown };
}

function split(events: EngineEvent[]): { calls: RecoveredCall[]; text: string } {
  return {
    calls: events.flatMap((e) => (e.type === "call" ? [e.call] : [])),
    text: events.map((e) => (e.type === "text" ? e.text : "")).join(""),
  };
}
