/**
 * A part boundary (endSpan: a Responses output_text part or message item, an Anthropic text block
 * before a thinking block) ends markup, and the next part reads on as after that markup ended,
 * never as fresh prose holding the rest of a call cut off there: what neither the whole reply nor
 * either part alone runs does not run split. One engine with endSpan() between the parts, and an
 * engine per part continuing the one before (AnswerSoFar), each part fed whole, char by char and
 * at seeded splits. No DSML marker bytes here: fixtures are read from fixtures.json, new text is
 * built by live().
 */
import { describe, expect, test } from "bun:test";
import { createRepairEngine } from "../../src/engine/engine.ts";
import { parse } from "../../src/engine/parse.ts";
import type { AnswerSoFar, EngineEvent, RepairEngine } from "../../src/engine/types.ts";
import type { Fixture } from "../golden/build-fixtures.ts";
import { live } from "../golden/notation.ts";
import { fixtureTools } from "../golden/tools.ts";
import { everyChar, randomCuts } from "../support/run-engine.ts";

const stored = (await Bun.file(new URL("../golden/fixtures.json", import.meta.url)).json()) as Fixture[];
const fx = (id: string) => stored.find((f) => f.id === id)!.input;

interface Run {
  commands: unknown[];
  text: string;
  nudge: string | null;
  reasons: string[];
}

type Cuts = (length: number) => number[];
const WAYS: [string, Cuts][] = [
  ["whole", () => []],
  ["char by char", everyChar],
  ["seeded splits", (n) => randomCuts(n, 4911, 8)],
];

function feedPart(engine: RepairEngine, text: string, cuts: Cuts, out: EngineEvent[]): void {
  let prev = 0;
  for (const at of [...cuts(text.length), text.length]) {
    out.push(...engine.feed(text.slice(prev, at)));
    prev = at;
  }
}

function outcome(events: EngineEvent[], reports: { reason: string }[], nudge: string | null): Run {
  return {
    commands: events.flatMap((e) => (e.type === "call" ? [(e.call.input as { command?: unknown }).command ?? e.call.tool] : [])),
    text: events.map((e) => (e.type === "text" ? e.text : "")).join(""),
    nudge,
    reasons: reports.map((b) => b.reason),
  };
}

/** One engine, endSpan() between the parts (the Anthropic wire's text blocks). */
function spanned(parts: string[], cuts: Cuts = () => []): Run {
  const engine = createRepairEngine({ tools: fixtureTools, idPrefix: "call_" });
  const out: EngineEvent[] = [];
  parts.forEach((part, i) => {
    feedPart(engine, part, cuts, out);
    if (i < parts.length - 1) out.push(...engine.endSpan!());
  });
  out.push(...engine.flush());
  const summary = engine.summary();
  return outcome(out, summary.broken, summary.nudge);
}

/** An engine per part, each continuing the one before, each part's span ended then flushed (the Responses wire). */
function chained(parts: string[], cuts: Cuts = () => []): Run {
  let before: AnswerSoFar | undefined;
  const out: EngineEvent[] = [];
  const engines: RepairEngine[] = [];
  for (const part of parts) {
    const engine = createRepairEngine({ tools: fixtureTools, idPrefix: `call_${engines.length}_`, ...(before ? { continues: before } : {}) });
    engines.push(engine);
    feedPart(engine, part, cuts, out);
    out.push(...engine.endSpan!());
    before = engine.carryOver!();
    out.push(...engine.flush());
  }
  // Summaries are read at the reply's end, as the wire reads them.
  const reports = engines.flatMap((e) => e.summary().broken);
  return outcome(out, reports, (reports[0]?.reason as string | undefined) ?? null);
}

/** Every way of reading the parts gives `check` the same commands, text and reports. */
function everyWay(parts: string[], check: (r: Run) => void): void {
  for (const read of [spanned, chained]) {
    const first = read(parts);
    check(first);
    // Nothing ran: every character is shown as written.
    if (first.commands.length === 0) expect(first.text).toBe(parts.join(""));
    for (const [, cuts] of WAYS) expect(read(parts, cuts)).toEqual(first);
  }
}

const cutAt = (text: string, at: number) => [text.slice(0, at), text.slice(at)];

describe("a call cut off at a part's end: the next part reads on as after its markup ended", () => {
  test("S02.9 cut after its invoke line: the next part's parameter openers open loose values, its example never runs", () => {
    const text = fx("S02.9");
    everyWay(cutAt(text, text.indexOf("\n<parameter")), (r) => {
      expect(r.commands).toEqual([]);
      expect(r.reasons).toContain("broken-markup");
    });
  });

  test("P48.8 cut after its first `<`: the bar after the boundary is a `<`-lost stray parameter, the orphan invoke is refused", () => {
    everyWay(cutAt(fx("P48.8"), 1), (r) => {
      expect(r.commands).not.toContain("rm -rf ./*");
      expect(r.reasons).toContain("broken-markup");
    });
  });

  test("hard negative: each part alone and the whole refuse the same examples (the rule's reference)", () => {
    for (const [id, at] of [["S02.9", fx("S02.9").indexOf("\n<parameter")], ["P48.8", 1]] as const) {
      for (const part of cutAt(fx(id), at)) expect(parse(part, fixtureTools).calls.map((c) => (c.input as { command?: string }).command)).toEqual([]);
    }
  });
});

describe("a marker tag cut in two by a part's end: when the next part completes it, no later call of the reply runs", () => {
  const cases: [string, string, number][] = [
    ["S02.9 inside its content opener", "S02.9", fx("S02.9").indexOf('"content"') + '"content"'.length],
    ["E45.8 inside its filePath tag", "E45.8", 29],
    ["P47.5 inside a stray parameter's sentinel", "P47.5", 25],
    ["S46.2 inside a loose value's opener", "S46.2", 48],
  ];
  for (const [what, id, at] of cases) {
    test(`${what}: nothing runs, the call after the cut tag is reported overflowed-markup`, () => {
      everyWay(cutAt(fx(id), at), (r) => {
        expect(r.commands).toEqual([]);
        expect(r.reasons).toContain("overflowed-markup");
      });
    });
  }

  // Changed by fix 55: a tag cut at a part's end is pending there whatever the next part writes
  // (text mode still held it: any reader, in any spelling, may still take it): shown as written,
  // and no later call of the reply runs. A `<` that starts no tag is held by no reader.
  test("a tag the next part does not complete (`<tool_call` then a new line) is still pending at the part's end: the next part's call does not run (fix 55)", () => {
    const call = '<tool_call>{"name":"bash","arguments":{"command":"ls"}}</tool_call>';
    everyWay(["Hello. <tool_call", `\n${call}`], (r) => {
      expect(r.commands).toEqual([]);
      expect(r.reasons).toContain("overflowed-markup");
    });
  });

  test("hard negative: a part ending in a `<` that starts no tag leaves the next part's call free", () => {
    const call = '<tool_call>{"name":"bash","arguments":{"command":"ls"}}</tool_call>';
    everyWay(["Hello. a < b.", `\n${call}`], (r) => {
      expect(r.commands).toEqual(["ls"]);
      expect(r.reasons).not.toContain("overflowed-markup");
    });
  });

  // Changed by fix 55: a DSML block closed right at a part's end is pending there (the run after its
  // call reads on past the block's closer for a write's stray closer, A46.6): nothing runs. A prose
  // line after it inside the part decides it there, and the next part's call runs too.
  test("hard negative: a complete DSML block and a prose line end a part, a call in the next part runs", () => {
    const block = live(`<{D}tool_calls>\n<{D}invoke name="bash">\n<{D}parameter name="command" string="true">ls</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>\n`);
    const next = 'Now:\n<tool_call>{"name":"bash","arguments":{"command":"pwd"}}</tool_call>';
    everyWay([`${block}Done.\n`, next], (r) => {
      expect(r.commands).toEqual(["ls", "pwd"]);
      expect(r.nudge).toBeNull();
    });
    everyWay([block, next], (r) => {
      expect(r.commands).toEqual([]);
      expect(r.reasons).toContain("overflowed-markup");
    });
  });
});

describe("a code costume still open at a part's end: its code may go on in the next part", () => {
  test("A40.19 cut in its heredoc: the costume inside the next part never runs", () => {
    const text = fx("A40.19");
    expect(parse(text, fixtureTools).calls).toEqual([]);
    everyWay(cutAt(text, text.indexOf(" > doc.md")), (r) => {
      expect(r.commands).toEqual([]);
    });
  });

  // Changed by fix 54b: a part's end decides nothing. The costume's candidate is still held at the
  // part's end (a further `</shell>` of it may come, review 52), so it is shown as written and no
  // later call of the reply runs; a closed costume followed by more text in the same part runs.
  test("a costume closed right before the part's end is still held there: shown as written, the next part's call does not run (fix 54b)", () => {
    everyWay(["<shell>\nls\n</shell>\n\n", '<tool_call>{"name":"bash","arguments":{"command":"pwd"}}</tool_call>'], (r) => {
      expect(r.commands).toEqual([]);
    });
  });

  test("hard negative: a costume decided inside the part (a call follows it there) runs, and so does the next part's call", () => {
    everyWay(["<shell>\nls\n</shell>\n\n<tool_call>{\"name\":\"bash\",\"arguments\":{\"command\":\"whoami\"}}</tool_call>\n\nDone.\n", '<tool_call>{"name":"bash","arguments":{"command":"pwd"}}</tool_call>'], (r) => {
      expect(r.commands).toEqual(["ls", "whoami", "pwd"]);
    });
  });
});

describe("a part's end is not the reply's: a call cut off mid-line there is no truncated call", () => {
  for (const [id, at] of [["N21", 34], ["N21.7", 43], ["N43.1", 47]] as const) {
    test(`${id} cut inside its mention: no nudge, the text as written`, () => {
      expect(parse(fx(id), fixtureTools).nudge).toBeNull();
      everyWay(cutAt(fx(id), at), (r) => {
        expect(r.commands).toEqual([]);
        expect(r.nudge).toBeNull();
      });
    });
  }

  test("the reply ending there (the last part's span ended, then the reply flushed) keeps the truncated call", () => {
    const part = fx("N21").slice(0, 34);
    expect(parse(part, fixtureTools).nudge).toBe("truncated-call");
    everyWay([part], (r) => expect(r.nudge).toBe("truncated-call"));
    // An empty part after it brings no text: the reply did not go on.
    expect(chained([part, ""]).nudge).toBe("truncated-call");
  });

  test("cut at a line end it is reported as the reply cut off there (the one text reports it too when a fence follows)", () => {
    const truncated = live(`<{D}tool_calls>\n<{D}invoke name="bash">\n<{D}parameter name="command" string="true">cut off\n\n`);
    const fenced = "```xml\nexample\n```\n";
    expect(parse(truncated + fenced, fixtureTools).nudge).toBe("truncated-call");
    everyWay([truncated, fenced], (r) => expect(r.nudge).toBe("truncated-call"));
  });
});
