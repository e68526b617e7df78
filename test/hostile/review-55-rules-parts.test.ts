/**
 * Review 55 (rules, hostile, tests only): fix 54b's one rule at a part's end that is not the
 * reply's end (src/engine/part-end.ts decidedInPart; engine.ts endSpan, decidesNothing,
 * leavePendingBlock; output.ts settleHeldCalls). The goldens (fixtures.json, escaped there, so no
 * marker byte is written here) read whole are the reference: a reply read in parts may refuse more,
 * never run a call the whole reply refuses. Found by cutting every golden at every position (two
 * parts) and at seeded random pairs of positions (three parts), both engine readings
 * (test/support/read-parts.ts), then checked through the fetch route and the AI SDK middleware.
 * Failing tests are findings; every other test is a hard negative that passes on main.
 */
import { describe, expect, test } from "bun:test";
import { LATER, LATER_INPUT, READINGS, golden, readParts } from "./review-54-rules-parts-support.ts";
import { ROUTES, splitBodies } from "./review-54-rules-wires-support.ts";
import { message, messageEnd, messageStart, namedSse, responsesEvents, textBlock, thinkingBlock } from "./review-48-wires-support.ts";

const D = "\uFF5CDSML\uFF5C";
const BLOCK_CLOSER_LINE = `</${D}tool_calls>\n`;

/** `text` cut after the first `after` (plus `extra`). */
function cutAt(text: string, after: string, extra = 0): number {
  const at = text.indexOf(after);
  if (at < 0) throw new Error(`no ${JSON.stringify(after)}`);
  return at + after.length + extra;
}

/** Three text parts the wire does not continue: thinking blocks between (Anthropic), three message items (Responses). */
function threePartBodies(parts: [string, string, string]): [string, "anthropic" | "responses", string][] {
  const [a, b, c] = parts;
  return [
    ["anthropic: text | thinking | text | thinking | text", "anthropic", namedSse([messageStart(), ...textBlock(0, [a]), ...thinkingBlock(1, ["hmm"]), ...textBlock(2, [b]), ...thinkingBlock(3, ["hmm"]), ...textBlock(4, [c]), ...messageEnd()])],
    ["responses: three message items", "responses", namedSse(responsesEvents([message("m1", a), message("m2", b), message("m3", c)], 5))],
  ];
}

/**
 * FINDING 1 (wrong execution, high: `rm -rf x` runs where the whole reply runs nothing).
 * Golden A46.6: `Docs:` then a complete DSML block (bash `rm -rf x`) then a write's stray
 * parameter, invoke and block closers, the page's example in a value. Whole, the candidate reads on
 * past the block's closer (call-run.ts, A46 run) and the parameter closer that closes nothing
 * refuses the run (I04, text kept). Cut right after the block's closer line, part-end.ts
 * decidedInPart finds the block settled (Candidate.settled: `run.closedBlock`), its closer's line
 * ended inside the part, its value ended at its own closer: "decided in part one", so the call runs
 * and the stray closers that would have refused it come too late. Both engine readings, and the
 * fetch route and middleware on Anthropic (text | thinking | text) and Responses (two message
 * items) all run it. A46.2 and A46.3 cut the same way run the complete write in both engine
 * readings (the wire routes happen to refuse those two). Not new in round 54 (cf67584 runs it too),
 * but it is the exact case fix 54b's rule claims to exclude ("calls complete ... only layout after
 * it"): the A46 run reads on over layout, a block closer and examples, so a block's closer line is
 * not where its decision is made.
 * Minimal input: parts [`Docs:\n` + DSML block with bash `rm -rf x` + `\n`,
 * `</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`].
 * Suspected source: src/engine/part-end.ts decidedInPart / src/engine/span-callbacks.ts settled()
 * (`this.run === null || this.run.closedBlock`): a call-run that may still meet a parameter closer
 * closing nothing (call-run.ts) is not settled.
 * Expected: as whole: no call runs; the markup is shown as written (or, at worst, it is "unknown"
 * at the part's end: shown as written, no later call runs).
 * Fixed (fix 55): a candidate that read to its part's end with nothing more to come decided nothing
 * there (SpanCallbacks.endedByText, settled): the run after a DSML call, which reads on past its
 * block's closer for a stray value closer, is still waiting at that end, so the call is pending:
 * shown as written, and no later call of the reply runs. The cost: a DSML call whose span the part's
 * end cut in its run (a block closed with its line end, then the part's end) never runs, nor does
 * any later call (A46.n1 below); prose after the block inside the part ends the run there, and the
 * call runs.
 */
describe("finding 1: a DSML block closed with its line end at a part's end, a write's stray closers in the next part (A46.6)", () => {
  const t = golden("A46.6");
  const k = cutAt(t, BLOCK_CLOSER_LINE);
  test("control (passes): whole, nothing runs and the text stays", () => {
    const r = readParts([t], false);
    expect(r.calls).toEqual([]);
    expect(r.text).toBe(t);
  });
  for (const [reading, chained] of READINGS) {
    test(`cut after the block's closer line (${reading}): rm -rf x does not run`, () => {
      expect(readParts([t.slice(0, k), t.slice(k)], chained).calls).toEqual([]);
    });
  }
  for (const [wire, api, body] of splitBodies(t.slice(0, k), t.slice(k))) {
    for (const [route, read] of ROUTES) {
      test(`${wire}, ${route}: rm -rf x does not run`, async () => {
        const v = await read(api, body);
        expect(v.calls).toEqual([]);
      });
    }
  }
  for (const id of ["A46.2", "A46.3"]) {
    const g = golden(id);
    const whole = readParts([g], false).calls;
    // A46.2 cut after its first block (the write), A46.3 after its second (the example's block).
    const first = cutAt(g, BLOCK_CLOSER_LINE);
    const at = id === "A46.2" ? first : first + cutAt(g.slice(first), BLOCK_CLOSER_LINE);
    for (const [reading, chained] of READINGS) {
      test(`${id} cut after a block's closer line (${reading}): no call the whole reply does not run`, () => {
        const r = readParts([g.slice(0, at), g.slice(at)], chained);
        for (const call of r.calls) expect(whole).toContainEqual(call);
      });
    }
  }
  for (const [reading, chained] of READINGS) {
    // Fix 55 changed this hard negative (it ran both calls, as whole): the same cut with no stray
    // closer after it is pending too, since part one cannot tell (part two, A46.2's, may still
    // refuse the call): the first block is shown as written and the second, later, never runs.
    test(`fix 55: A46.n1 cut after its first block's closer line runs nothing, its text as written (${reading})`, () => {
      const g = golden("A46.n1");
      const at = cutAt(g, BLOCK_CLOSER_LINE);
      expect(readParts([g.slice(0, at), g.slice(at)], chained)).toEqual({ text: g, calls: [] });
    });
    test(`hard negative: D03b cut inside the prose after its first block runs both calls, as whole (${reading})`, () => {
      const g = golden("D03b");
      const at = cutAt(g, "Now");
      expect(readParts([g.slice(0, at), g.slice(at)], chained)).toEqual(readParts([g], false));
    });
    test(`hard negative: A46.6 cut one character inside its first stray closer refuses, as whole (${reading})`, () => {
      expect(readParts([t.slice(0, k + 3), t.slice(k + 3)], chained).calls).toEqual([]);
    });
  }
});

/**
 * FINDING 2 (wrong execution, high: `rm -rf ./*` runs where the whole reply runs nothing).
 * Golden P48.8: a stray DSML parameter in the `=NAME` spelling (`<{D}parameter=workdir>`) before an
 * orphan invoke: whole, the stray refuses every later orphan invoke (D08, I02, text kept). Cut inside
 * the stray's opener (after `<` + the marker's first bar, after `<{D}` or part of it, after `<{D}pa`,
 * after `<{D}parameter=`), the opener's rest in part two is no stray for any reader, and the orphan
 * invoke runs. The cut tag was pending at part one's end (engine.ts cutTag), and the rule says
 * anything pending there stops every later call of the reply. The canonical spelling (P48.5) is
 * refused at every cut; so is P48.8 cut after `<{D}param` or `<{D}parameter` (the join works there).
 * Both engine readings and all four wire/route pairs run it. Not new in round 54 (cf67584 too).
 * Minimal input: parts [`<` + bar + `D`, the rest of P48.8].
 * Suspected source: src/engine/cut-tag.ts (cutTagOf / joinCutTag for the `parameter=` spelling)
 * and engine.ts endSpan (`readTag(this.cutTag, 0, true) !== null` before endUnknown: a cut that no
 * tag reader reads yet is not counted as pending).
 * Expected: as whole: the stray refuses the orphan invoke (or the cut tag is pending: no later
 * call runs); either way no rm.
 * Fixed (fix 55): at a part's end that is not the reply's end, any text text mode still holds
 * (engine.ts `carry`: whatever a tag reader, in any spelling, or an opener's reader still waits on)
 * is pending, as an open candidate is: shown as written, no later call of the reply runs. No
 * per-spelling check is asked.
 */
describe("finding 2: P48.8's stray `=NAME` parameter opener cut by a part's end", () => {
  const t = golden("P48.8");
  const CUTS = [2, 3, 7, 11, 17];
  test("control (passes): whole, nothing runs", () => {
    expect(readParts([t], false).calls).toEqual([]);
  });
  for (const k of CUTS) {
    for (const [reading, chained] of READINGS) {
      test(`cut after ${JSON.stringify(t.slice(0, k).replaceAll("\uFF5C", "{BAR}"))} (${reading}): the orphan invoke does not run`, () => {
        expect(readParts([t.slice(0, k), t.slice(k)], chained).calls).toEqual([]);
      });
    }
  }
  for (const [wire, api, body] of splitBodies(t.slice(0, 3), t.slice(3))) {
    for (const [route, read] of ROUTES) {
      test(`${wire}, ${route}: cut after "<{BAR}D", the orphan invoke does not run`, async () => {
        expect((await read(api, body)).calls).toEqual([]);
      });
    }
  }
  for (const [reading, chained] of READINGS) {
    test(`hard negative: P48.8 cut after "<{D}param" or "<{D}parameter" refuses (${reading})`, () => {
      for (const k of [12, 18]) expect(readParts([t.slice(0, k), t.slice(k)], chained).calls).toEqual([]);
    });
    test(`hard negative: P48.5 (canonical stray spelling) cut at every position refuses (${reading})`, () => {
      const g = golden("P48.5");
      for (let k = 1; k < g.length; k++) expect(readParts([g.slice(0, k), g.slice(k)], chained).calls).toEqual([]);
    });
    test(`hard negative (fix 55): a part ending in text no reader holds (a \`<\` or \`[\` that starts nothing) leaves a later call running (${reading})`, () => {
      for (const first of ["Compare a < b.\n", "x <3 y", "See [1] and a[i].", "Done:\n\n"]) {
        const r = readParts([first, LATER.trimStart()], chained);
        expect(r.calls).toEqual([LATER_INPUT]);
        expect(r.text).toBe(first);
      }
    });
  }
});

/**
 * FINDING 3 (wrong execution, medium: needs three text parts, the tag cut across both boundaries).
 * A tag cut at a part's end whose next part is too short to complete it (`<` | `{BAR}DSML{BAR}` |
 * the rest; `<` | `to` | `ol_call>...`; `<` | `sh` | `ell>...`) is pending at two part ends. The
 * second end does not count it as pending (engine.ts endSpan: `readTag(this.cutTag, 0, true) !==
 * null` is false for a tag still incomplete), so nothing stops the later markup, and the third part
 * is read afresh: P49.2's call runs although its block's closer has words after it and a stray
 * parameter follows (whole: refused, I02), O51.5's Qwen call runs although a JSON object follows
 * it in its wrapper (whole: refused, O51.5), A40.21's second costume runs although a further closer
 * follows (whole: refused). Through the wires, P49.2 in three parts runs on all four wire/route pairs
 * (Anthropic with thinking blocks between, Responses three message items; fetch route and
 * middleware); O51.5 and A40.21 run on all but the Anthropic fetch route.
 * Minimal input: parts [`<`, `{BAR}DSML{BAR}`, the rest of P49.2].
 * Suspected source: src/engine/engine.ts endSpan (the cut tag carried over a second part end) and
 * cut-tag.ts joinCut.
 * Expected: the part ends decide nothing: as whole (nothing runs), or the pending cut stops every
 * later call.
 * Fixed (fix 55): the cut tag is pending at the first part's end already (finding 2's rule: the
 * text text mode holds there), which stops every later call for the rest of the reply; a cut still
 * waiting at a further part's end is pending there too (engine.ts endSpan).
 */
describe("finding 3: a tag cut across two part ends (three parts)", () => {
  const CASES: [string, number, number][] = [
    ["P49.2", 1, 7],
    ["O51.5", 1, 3],
    ["A40.21", 1, 3],
  ];
  for (const [id, x, y] of CASES) {
    const t = golden(id);
    const parts: [string, string, string] = [t.slice(0, x), t.slice(x, y), t.slice(y)];
    test(`control (passes): ${id} whole runs nothing`, () => {
      expect(readParts([t], false).calls).toEqual([]);
    });
    for (const [reading, chained] of READINGS) {
      test(`${id} cut at ${x} and ${y} (${reading}): nothing runs`, () => {
        expect(readParts(parts, chained).calls).toEqual([]);
      });
      test(`hard negative: ${id} cut only at ${x} or only at ${y} refuses (${reading})`, () => {
        for (const k of [x, y]) expect(readParts([t.slice(0, k), t.slice(k)], chained).calls).toEqual([]);
      });
    }
  }
  const t = golden("P49.2");
  for (const [wire, api, body] of threePartBodies([t.slice(0, 1), t.slice(1, 7), t.slice(7)])) {
    for (const [route, read] of ROUTES) {
      test(`P49.2 in three parts, ${wire}, ${route}: rm -rf does not run`, async () => {
        expect((await read(api, body)).calls).toEqual([]);
      });
    }
  }
});

/**
 * FINDING 4 (lost text, low: a line break). An engine per part continuing the last
 * (`continues: carryOver()`, the reading the wires use for a new text part), part one ending with a
 * complete call and its line end, part two opening with more markup or text: the line break between
 * them is lost, where one engine with endSpan and the whole reply keep it. Goldens O02.2 (cut after
 * the first wrapper's `</tool_call>` line: `Let me check.\n` becomes `Let me check.`), O01b, D03b
 * (`\n\nNow the config:` becomes `\nNow the config:`). The two readings disagree, which fix 54b's
 * notes say they do not. Calls are the same.
 * Suspected source: the carried-over answer (engine.ts carryOver / types.ts `continues`) taking the
 * line end after the last call for that call's layout, while the first engine already settled it.
 * Expected: the same text as whole.
 * Fixed (fix 55): not the engine's. The engine-per-part reading (test/support/read-parts.ts)
 * flushed each part's engine at its part's end, and a flush is the reply's end: it strips the text
 * held after the last call (S03). The Responses wire, which reads a part per engine, never does:
 * a part's engine still holding text after its call waits (AnswerSoFar.tail), and that text is
 * released into its part once a later part makes a call, stripped at the reply's end
 * (src/wires/responses/text-parts.ts). The reading now does what the wire does, and the wire
 * routes below pin the text there. D03b is cut in the prose after its first block now: fix 55 makes
 * its block, cut after its closer line, pending (finding 1), so no call would end part one there.
 */
describe("finding 4: the line break after a call that ends a part, read by an engine per part", () => {
  const CASES: [string, string][] = [
    ["O02.2", "</tool_call>\n"],
    ["O01b", "</tool_call>\n"],
    ["D03b", "Now the config:\n"],
  ];
  for (const [id, after] of CASES) {
    const t = golden(id);
    const k = cutAt(t, after);
    const whole = readParts([t], false);
    test(`hard negative: ${id} cut there, one engine with endSpan: same calls and text as whole`, () => {
      const r = readParts([t.slice(0, k), t.slice(k)], false);
      expect(r).toEqual(whole);
    });
    test(`${id} cut there, an engine per part: same text as whole`, () => {
      const r = readParts([t.slice(0, k), t.slice(k)], true);
      expect(r.calls).toEqual(whole.calls);
      expect(r.text).toBe(whole.text);
    });
  }
  // The wires keep it: a call ending part one with its line end, another call in part two. Not the
  // Anthropic wire (review 57 A1): there the line break alone after the call would be a text block
  // of whitespace alone, which the API refuses on the next turn, so it is not sent. Nor the AI SDK
  // middleware (fix 57 diff B): the engine holds the line break into part two, where it stands
  // alone beside that part's call, a text part of whitespace alone on the replay.
  const first = 'Let me check.<tool_call>{"name":"bash","arguments":{"command":"ls"}}</tool_call>\n';
  const second = '<tool_call>{"name":"bash","arguments":{"command":"pwd"}}</tool_call>';
  for (const [wire, api, body] of splitBodies(first, second)) {
    for (const [route, read] of ROUTES) {
      const dropped = (wire.startsWith("anthropic") && route.startsWith("fetch")) || route === "middleware";
      test(`hard negative: ${wire}, ${route}: both calls run and the line break ${dropped ? "alone in its part is not sent" : "stays"}`, async () => {
        const v = await read(api, body);
        expect(v.calls).toEqual([{ command: "ls" }, { command: "pwd" }]);
        expect(v.text).toBe(dropped ? "Let me check." : "Let me check.\n");
      });
    }
  }
});
