/**
 * Review 53 (parts): the part-boundary rule (test/engine/part-boundary.test.ts: a part's end ends
 * markup; a code costume still open there, or a marker tag cut there, lets no later call of the
 * reply run) read at more cut points of the same golden replies. Two places where the boundary
 * falls inside text the whole reply keeps as one call's value or one costume's code, and the next
 * part, read as fresh, runs the example that text holds: the same reply in one part runs nothing.
 * Readings: one engine with endSpan() between the parts (the Anthropic wire, a text block before a
 * thinking block) and an engine per part continuing the last (`continues: carryOver()`, the
 * Responses wire), each part fed whole, char by char and at seeded splits.
 *
 * Each finding (test.failing when found, now fixed) says what was wrong, its severity and the suspected file.
 */
import { describe, expect, test } from "bun:test";
import { createRepairEngine } from "../../src/engine/engine.ts";
import type { AnswerSoFar, EngineEvent, RepairEngine } from "../../src/engine/types.ts";
import type { Fixture } from "../golden/build-fixtures.ts";
import { live } from "../golden/notation.ts";
import { fixtureTools } from "../golden/tools.ts";
import { everyChar, randomCuts } from "../support/run-engine.ts";

const stored = (await Bun.file(new URL("../golden/fixtures.json", import.meta.url)).json()) as Fixture[];
const fx = (id: string) => live(stored.find((f) => f.id === id)!.input);

type Cuts = (length: number) => number[];
const WAYS: Cuts[] = [() => [], everyChar, (n) => randomCuts(n, 5301, 8)];

interface Run {
  commands: unknown[];
  text: string;
}

function feedPart(engine: RepairEngine, text: string, cuts: Cuts, out: EngineEvent[]): void {
  let prev = 0;
  for (const at of [...cuts(text.length), text.length]) {
    out.push(...engine.feed(text.slice(prev, at)));
    prev = at;
  }
}

const outcome = (events: EngineEvent[]): Run => ({
  commands: events.flatMap((e) => (e.type === "call" ? [(e.call.input as { command?: unknown }).command ?? e.call.tool] : [])),
  text: events.map((e) => (e.type === "text" ? e.text : "")).join(""),
});

function spanned(parts: string[], cuts: Cuts): Run {
  const engine = createRepairEngine({ tools: fixtureTools, idPrefix: "call_" });
  const out: EngineEvent[] = [];
  parts.forEach((part, i) => {
    feedPart(engine, part, cuts, out);
    if (i < parts.length - 1) out.push(...engine.endSpan!());
  });
  out.push(...engine.flush());
  return outcome(out);
}

function chained(parts: string[], cuts: Cuts): Run {
  let before: AnswerSoFar | undefined;
  const out: EngineEvent[] = [];
  parts.forEach((part, i) => {
    const engine = createRepairEngine({ tools: fixtureTools, idPrefix: `call_${i}_`, ...(before ? { continues: before } : {}) });
    feedPart(engine, part, cuts, out);
    out.push(...engine.endSpan!());
    before = engine.carryOver!();
    out.push(...engine.flush());
  });
  return outcome(out);
}

/** Every reading of `parts` runs nothing and shows every character as written. */
function nothingRuns(parts: string[]): void {
  for (const read of [spanned, chained]) {
    for (const cuts of WAYS) {
      const r = read(parts, cuts);
      expect(r.commands).toEqual([]);
      expect(r.text).toBe(parts.join(""));
    }
  }
}

const cutAfter = (text: string, marker: string) => {
  const at = text.indexOf(marker) + marker.length;
  return [text.slice(0, at), text.slice(at)];
};

describe("finding: a heredoc costume cut after the `</shell>` its heredoc holds: the example in the next part runs", () => {
  // Severity: low-medium, wrong execution (`rm -rf build` runs; the whole reply, golden A40.19 and
  // C46.1, runs nothing: the `</shell>` is inside the heredoc and the `<bash>` line is the
  // heredoc's text). The existing rule (engine.ts finish: "a code costume whose code is still open
  // at a part's end ... no later call of the reply runs", pinned for A40.19 cut at ` > doc.md`)
  // holds while the costume's candidate is truncated at the part's end; cut anywhere after the
  // heredoc's `</shell>` (57 to 73 characters into A40.19, the rest of that line included), the
  // candidate already ended at that closer and was decided text, so the rule never fires, and the
  // next part, read as after the markup ended, runs `<bash>rm -rf build</bash>` on its own line
  // (that the candidate ended at the inner closer is our reading of it, not traced).
  // Part one alone runs nothing. Minimal input: ["<shell>cat > doc.md <<'EOF'\nEnd the block
  // with </shell> on i", "ts own line.\n<bash>rm -rf build</bash>\nEOF\n</shell>\n"].
  // Suspected: src/engine/engine.ts finish (the A40.19 endUnknown condition: `truncated`), the
  // heredoc reading in the costume candidate. Expected: as the whole and as the cut at ` > doc.md`:
  // no call, the text as written.
  // Fixed: a code costume candidate still open at a part's end that the cut reading takes for no
  // call ends the markup where no one can tell (overflowed-markup), wherever its cut reading
  // stopped (engine.ts finish, openCostume): no later call of the reply runs.
  for (const [name, id, marker] of [
    ["A40.19 cut right after the heredoc's `</shell> o`", "A40.19", "</shell> o"],
    ["A40.19 cut at the end of the heredoc's `</shell>` line", "A40.19", "on its own line.\n"],
    ["C46.1 (inline costume) cut after the heredoc's `</shell> o`", "C46.1", "</shell> o"],
  ] as const) {
    test(name, () => nothingRuns(cutAfter(fx(id), marker)));
  }

  test("A40.19 and C46.1 cut at every point from the heredoc's `</shell>` to its `EOF` line: nothing runs", () => {
    for (const id of ["A40.19", "C46.1"]) {
      const text = fx(id);
      for (let at = text.indexOf("</shell>"); at < text.indexOf("\nEOF\n") + 1; at++) nothingRuns([text.slice(0, at), text.slice(at)]);
    }
  });
});

describe("finding: a call's value still open at a part's end: the example it holds runs from the next part", () => {
  // Severity: low-medium, wrong execution (`rm -rf x` / `rm -rf build` runs; the whole reply,
  // golden A45.10 and O48.2, writes nothing and runs nothing: the example is the text of a write
  // call's `content`). Cut right inside the value (after a DSML `string="true">` opener and a few
  // characters of it, or after a Hermes JSON `"content":"`), part one's call is decided at its
  // end as cut off and the next part reads on as after that markup ended: the example's DSML
  // invoke (inside the still open `tool_calls` block carried from part one) or `<shell>` costume
  // on its own lines runs. The boundary rule refuses the like when the boundary cuts a tag
  // (overflowed-markup) or a costume's code (A40.19), and S02.9's parameter openers after an invoke
  // line; a value's text has no such guard. Suspected: src/engine/engine.ts endSpan (the open
  // candidate decided as at the reply's end, no endUnknown for a value still open), text-mode.ts
  // carryOver. Expected: no later call runs (as after markup of unknown end), the text as written.
  // Fixed: a call the part's end cut off (a truncated-call report: its value or body still open
  // there) ends the markup where no one can tell, as an open costume does (engine.ts finish,
  // cutOffCall): no later call of the reply runs, in this engine or one continuing it (overflowed
  // carries over). A call whose markup ended before the part's end leaves the next part free.
  for (const [name, id, marker] of [
    ["A45.10 cut two characters into the write call's content value", "A45.10", 'name="content" string="true">'],
    ["O48.2 cut right after the Hermes `\"content\":\"`", "O48.2", '"content":"'],
  ] as const) {
    test(name, () => {
      const [head, rest] = cutAfter(fx(id), marker);
      // A45.10: two characters of the value on part one's side (`# `), as a token boundary would fall.
      const parts = id === "A45.10" ? [head + rest!.slice(0, 2), rest!.slice(2)] : [head!, rest!];
      nothingRuns(parts);
    });
  }

  // The minimal shape: a Hermes command value cut mid-word; the value's text goes on in the next
  // part and holds a whole call on its own line. In one part: one broken call, nothing runs.
  test("a Hermes command value cut mid-word, a call on its own line inside the rest of the value", () => {
    const call = '<tool_call>{"name":"bash","arguments":{"command":"rm -rf build"}}</tool_call>';
    nothingRuns(['<tool_call>{"name":"bash","arguments":{"command":"echo aa', `a\n${call}`]);
  });
});

describe("known gaps: further cut points of the same replies (fix 53)", () => {
  // Severity: low-medium, wrong execution (the whole reply runs nothing). Known gap: at these cuts
  // part one's open candidate is decided as at the reply's end and the example runs from the text
  // it reads again inside part one itself (A40.19 after the heredoc's `EOF` line: the costume held
  // with no heredoc open; A45.10 after the example's block closer: the span completes at its end)
  // or part two reads a body whose opener alone ended part one (O48.2 after `<tool_call>\n`). The
  // Responses wire ends its last part with endSpan too, so a part's end cannot tell itself from the
  // reply's: refusing there would refuse the golden reply-end readings (A40.16, A40.17) on that wire
  // only. The same class as review 49's paragraph costume decided at a part's end.
  // Fixed (fix 53): the Responses wire now flushes its last part, so a part's end always has a later
  // part: a costume open there (wherever its cut reading stopped), a call cut off by its block's
  // closer at the part's end, or a call opener alone ending the part is decided as markup of
  // unknown end (engine.ts finish: openCostume, cutOffCall, openerAlone): no later call runs.
  for (const [name, id, marker] of [
    ["A40.19 cut after the heredoc's `EOF` line, before the costume's closer", "A40.19", "EOF\n"],
    ["A45.10 cut after the example block's `More prose.` line", "A45.10", "More prose.\n"],
    ["O48.2 cut right after `<tool_call>` and its line break", "O48.2", "<tool_call>\n"],
  ] as const) {
    test(name, () => nothingRuns(cutAfter(fx(id), marker)));
  }
});

describe("hard negatives", () => {
  test("A40.19 cut at ` > doc.md` (the pinned cut): nothing runs", () => nothingRuns([fx("A40.19").slice(0, fx("A40.19").indexOf(" > doc.md")), fx("A40.19").slice(fx("A40.19").indexOf(" > doc.md"))]));

  for (const id of ["A40.19", "C46.1", "A45.10", "O48.2"]) {
    test(`${id} in one part runs nothing`, () => nothingRuns([fx(id)]));
  }

  test("the Hermes value cut mid-word, read in one part: nothing runs", () => {
    const call = '<tool_call>{"name":"bash","arguments":{"command":"rm -rf build"}}</tool_call>';
    nothingRuns([`<tool_call>{"name":"bash","arguments":{"command":"echo aaa\n${call}`]);
  });

  // Changed by fix 54b: a part's end decides nothing. The costume's candidate is still held at the
  // part's end (a further `</shell>` may show its closer was code, review 52): shown as written,
  // no later call runs. With later markup after it in the same part, the costume is decided there.
  test("a costume closed before a part's end, its heredoc closed too, still held there: nothing runs (fix 54b)", () => {
    const parts = ["<shell>cat > doc.md <<'EOF'\nhello\nEOF\n</shell>\n\n", '<tool_call>{"name":"bash","arguments":{"command":"pwd"}}</tool_call>'];
    nothingRuns(parts);
    const decided = [`${parts[0]}<tool_call>{"name":"bash","arguments":{"command":"ls"}}</tool_call>\n`, parts[1]!];
    for (const read of [spanned, chained]) for (const cuts of WAYS) expect(read(decided, cuts).commands).toEqual(["cat > doc.md <<'EOF'\nhello\nEOF", "ls", "pwd"]);
  });

  // A part's end after a call's markup ended (its block's or wrapper's closer, and a costume
  // closer's line end, seen) is a clean end: the next part's calls run.
  // Changed by fix 55: for a DSML block, only once prose after it inside the part ends the run
  // after its call (which reads on past the block's closer for a write's stray closer, A46.6).
  const bash = (command: string) => live(`<{D}invoke name="bash">\n<{D}parameter name="command" string="true">${command}</{D}parameter>\n</{D}invoke>\n`);
  const hermes = (command: string) => `<tool_call>{"name":"bash","arguments":{"command":"${command}"}}</tool_call>`;
  for (const [name, parts] of [
    ["a DSML block closed, a prose line, a Hermes call in the next part", [`${live("<{D}tool_calls>\n") + bash("ls") + live("</{D}tool_calls>\n")}Next:\n`, hermes("pwd")]],
    ["a Hermes call cut after its `</tool_call>`", ['<tool_call>{"name":"bash","arguments":{"command":"ls"}}</tool_call>', `\n${hermes("pwd")}`]],
  ] as const) {
    test(`${name}: both calls run`, () => {
      for (const read of [spanned, chained]) for (const cuts of WAYS) expect(read([...parts], cuts).commands).toEqual(["ls", "pwd"]);
    });
  }

  // Fix 54 (review 54): a part's end is never the reply's end, so markup still waiting there for
  // what follows is shown as written and no later call runs. These were hard negatives of round
  // 53 (both calls ran); they now refuse: the block open between its invokes or before its closer
  // (the next part may write a stray parameter in it, golden P47.4), the costume's closer line
  // unseen (prose after it makes it no call, A40.8), the Hermes wrapper's closer not come.
  for (const [name, parts] of [
    ["a DSML block's invoke complete, its block closer and a Hermes call in the next part", [live("<{D}tool_calls>\n") + bash("ls"), live("</{D}tool_calls>\n") + hermes("pwd")]],
    ["a DSML block's invoke complete, the block's next invoke in the next part", [live("<{D}tool_calls>\n") + bash("ls"), bash("pwd") + live("</{D}tool_calls>\n")]],
    ["a costume cut right after its closer", ["<shell>\nls\n</shell>", `\n\n${hermes("pwd")}`]],
    // Changed by fix 54b (a round-53 hard negative, kept by fix 54): the costume is still held at
    // the part's end after its closer's line end too (a further closer may come, review 52).
    ["a costume cut after its closer's line end", ["<shell>\nls\n</shell>\n", `\n${hermes("pwd")}`]],
    ["a Hermes call cut before its `</tool_call>`", ['<tool_call>{"name":"bash","arguments":{"command":"ls"}}', `</tool_call>\n${hermes("pwd")}`]],
  ] as const) {
    test(`${name}: shown as written, nothing runs (fix 54)`, () => nothingRuns([...parts]));
  }

  test("prose cut mid-line, a call in the next part runs", () => {
    for (const read of [spanned, chained]) for (const cuts of WAYS) expect(read(["Some prose then ", hermes("pwd")], cuts).commands).toEqual(["pwd"]);
  });

  test("a complete Hermes call ends a part, a call in the next part runs", () => {
    const parts = ['<tool_call>{"name":"bash","arguments":{"command":"ls"}}</tool_call>\n', '<tool_call>{"name":"bash","arguments":{"command":"pwd"}}</tool_call>'];
    for (const read of [spanned, chained]) for (const cuts of WAYS) expect(read(parts, cuts).commands).toEqual(["ls", "pwd"]);
  });
});
