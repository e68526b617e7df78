/**
 * Diff review of round 48 (hostile, tests only; no source change). Each failing test below proves
 * one finding: what, severity, where. No DSML marker bytes here: live() builds them.
 */
import { describe, expect, test } from "bun:test";
import { live } from "../golden/notation.ts";
import { fixtureTools } from "../golden/tools.ts";
import { everyChar, observable, randomCuts, runEngine } from "../support/run-engine.ts";
import { createRepairEngine } from "../../src/engine/engine.ts";

const RM = `<{D}invoke name="bash">\n<{D}parameter name="command" string="true">rm -rf ./*</{D}parameter>\n</{D}invoke>`;

/** Whole, char by char and seeded random splits: the same observable outcome (returned). */
function sameAtEverySplit(input: string) {
  const whole = observable(runEngine(input, [], fixtureTools));
  expect(observable(runEngine(input, everyChar(input.length), fixtureTools))).toEqual(whole);
  for (let seed = 1; seed <= 10; seed++) expect(observable(runEngine(input, randomCuts(input.length, 4800 + seed, 16), fixtureTools))).toEqual(whole);
  return whole;
}

// FINDING 1 (high: wrong execution; src/engine/text-mode.ts strayInDocAt vs unreadStrayOpenerAt).
// Review 48 made a parameter outside every invoke refuse the open block's calls even where it reads
// as documentation (a fence, a block quote, inline code: "the block's own text is no documentation
// of anything"), and review 48b taught the non-documentation path the degraded opener spellings the
// DSML reader takes but the tag grammar does not (`<{D}parameter=workdir>`, `<{SP}parameter
// name="workdir">`, via unreadStrayOpenerAt). strayInDocAt was not taught them: it asks only
// isStrayParameter (a tag with a name attribute) or oneBarParameterAt (`<{BAR}parameter=workdir>`
// and `<{BAR}{BAR}parameter name=...>` slip through too, in a fence). So the same stray parameter
// refuses the call on a plain line and lets it run (its workdir lost) inside a fence, a block
// quote or inline code. Same at every split (a rule missing in one path, not a chunking bug).
// Expected: strayInDocAt asks unreadStrayOpenerAt too (or one shared predicate for both paths).
describe("fixed 1: a degraded stray parameter in documentation inside an open block", () => {
  const strays = ['<{D}parameter=workdir>/tmp/scratch</{D}parameter>', '<{SP}parameter name="workdir">/tmp/scratch', '<{BAR}parameter=workdir>/tmp/scratch', '<{BAR}{BAR}parameter name="workdir">/tmp/scratch'];
  const places: [string, (s: string) => string][] = [
    ["a fence", (s) => `Cleaning.\n<{D}tool_calls>\n${RM}\n\`\`\`\n${s}\n\`\`\`\n</{D}tool_calls>`],
    ["a block quote", (s) => `Cleaning.\n<{D}tool_calls>\n${RM}\nSee:\n> ${s}\n\n</{D}tool_calls>`],
    ["inline code", (s) => `Cleaning.\n<{D}tool_calls>\n${RM}\nSee \`${s}\` here.\n</{D}tool_calls>`],
  ];
  for (const [place, layout] of places) {
    for (const stray of strays) {
      test(`${stray.slice(0, 22)}... in ${place}: the block's call is refused, as on a plain line`, () => {
        const r = sameAtEverySplit(live(layout(stray)));
        expect(r.calls).toEqual([]);
        expect(r.nudge).toBe("broken-markup");
      });
    }
  }
  // Hard negatives (pass today): the same spellings on a plain line, and the canonical spelling in a fence, refuse the call.
  for (const stray of strays) {
    test(`hard negative: ${stray.slice(0, 22)}... on a plain line refuses the call`, () => {
      const r = sameAtEverySplit(live(`Cleaning.\n<{D}tool_calls>\n${RM}\n${stray}\n</{D}tool_calls>`));
      expect(r.calls).toEqual([]);
    });
  }
  test("hard negative: the canonical stray parameter in a fence refuses the call", () => {
    const r = sameAtEverySplit(live(`Cleaning.\n<{D}tool_calls>\n${RM}\n\`\`\`\n<{D}parameter name="workdir" string="true">/tmp/scratch</{D}parameter>\n\`\`\`\n</{D}tool_calls>`));
    expect(r.calls).toEqual([]);
  });
  test("hard negative: with no stray parameter the block's call runs", () => {
    const r = sameAtEverySplit(live(`Cleaning.\n<{D}tool_calls>\n${RM}\n\`\`\`\nls\n\`\`\`\n</{D}tool_calls>`));
    expect(r.calls.map((c) => c.input)).toEqual([{ command: "rm -rf ./*" }]);
  });
});

// FINDING 2 (medium: wrong execution; src/engine/text-mode.ts scanTextFrom, the stray-parameter
// checks run only at a `<`). unread-opener.ts (review 48) reads a parameter opener whose `<` was
// lost (`{BAR}parameter name="workdir">`, a sentinel bar not glued to a word) as the next parameter
// inside a value (P03 refuses the call), but text mode's stray-parameter rules (P47.11 for an open
// block, strayOutsideBlock for later orphan invokes) look only at `<`: the same leak standing
// between the invoke's closer and the block's closer (or before an orphan invoke) is prose, and
// the call runs without its workdir. Expected: text mode asks dsmlOpenerAt's `<`-lost spelling
// too (the sentinel bars only, never an ASCII `|`, as unread-opener.ts does).
describe("fixed 2: a stray parameter whose `<` was lost, outside every invoke", () => {
  const LOST = '{BAR}parameter name="workdir">/tmp/scratch';
  test("in a block still open: the block's call is refused", () => {
    const r = sameAtEverySplit(live(`Cleaning.\n<{D}tool_calls>\n${RM}\n${LOST}\n</{D}tool_calls>`));
    expect(r.calls).toEqual([]);
  });
  test("before an orphan invoke (no block): the orphan's call is refused, as after `<{BAR}parameter name=...>`", () => {
    const r = sameAtEverySplit(live(`Note:\n${LOST}\n\n${RM}\n`));
    expect(r.calls).toEqual([]);
  });
  test("hard negative: the same with its `<` refuses (passes today)", () => {
    const r = sameAtEverySplit(live(`Cleaning.\n<{D}tool_calls>\n${RM}\n<${LOST}\n</{D}tool_calls>`));
    expect(r.calls).toEqual([]);
  });
  test("hard negative: `<{BAR}parameter name=...>` before an orphan invoke refuses it (passes today)", () => {
    const r = sameAtEverySplit(live(`Note:\n<${LOST}\n\n${RM}\n`));
    expect(r.calls).toEqual([]);
  });
  test("hard negative: a shell pipe `| parameter` line is prose, the call runs", () => {
    const r = sameAtEverySplit(live(`Cleaning.\n<{D}tool_calls>\n${RM}\n</{D}tool_calls>\nThen pipe it: ls |parameter name="x"\n`));
    expect(r.calls.map((c) => c.input)).toEqual([{ command: "rm -rf ./*" }]);
  });
});

// FINDING 4 (medium-low: wrong execution the new guard was meant to stop; src/engine/candidate.ts
// chainChar/endChain, src/engine/tentative-closer.ts sentenceGoesOn). Review 48's paragraph costume
// (a line-start costume after a line that ends mid-sentence) is text when the line after its
// closer's line goes on with the sentence. Only a lower-case letter (after `(`, `*`, `_`, quotes or
// a comma) counts as going on: inline markup that opens the next line ends the costume as a block
// and it runs. Worst, the 48b chain: `<shell>ls</shell>` on its own line then `and so on.` keeps it
// text, but `<shell>ls</shell> in its replies.` (the second costume used inline, a stronger sign of
// a sentence) runs `rm -rf build` (endChain: "anything else after that closer"). Inline code,
// `<code>`/`<b>` and a link opening the next line do the same. Before round 48 all of these ran, so
// this is a gap in the new guard, not a regression; the inconsistency with the chain's own rule is
// the part to fix. Expected: text after the chained costume's closer on its line is read as the
// sentence going on (abandon), and an inline code span, an inline HTML element or a link opening
// the next line is weighed by its first letter.
describe("fixed 4: a paragraph costume whose next line opens with inline markup", () => {
  const LEAD = "The agent wraps commands like\n<bash>rm -rf build</bash>\n";
  const cases: [string, string][] = [
    ["a chained costume used inline", "<shell>ls</shell> in its replies."],
    ["inline code", "`in` its replies."],
    ["an inline HTML element", "<code>in</code> its replies."],
    ["a link", "[in](https://example.com) its replies."],
  ];
  for (const [what, next] of cases) {
    test(`next line opens with ${what}: text, nothing runs`, () => {
      const r = sameAtEverySplit(LEAD + next);
      expect(r.calls).toEqual([]);
      expect(r.text).toBe(LEAD + next);
    });
  }
  test("hard negative: the chained costume on its own line, then `and so on.`: text (passes today)", () => {
    const input = `${LEAD}<shell>ls</shell>\nand so on.`;
    const r = sameAtEverySplit(input);
    expect(r.calls).toEqual([]);
  });
  test("hard negative: a new sentence after the closer line: the costume runs (passes today)", () => {
    const r = sameAtEverySplit(`${LEAD}Done.`);
    expect(r.calls.map((c) => c.input)).toEqual([{ command: "rm -rf build" }]);
  });
});

// FINDING 3 (medium: wrong execution at a part boundary; src/engine/output.ts carryOver and
// src/engine/types.ts AnswerSoFar carry the documentation context only, not text mode's LineEnds
// (src/engine/text-mode.ts `lines`, review 48b)). The paragraph costume (review 48) and the
// `<tool_name>/<tool_args>` call's line-start rule (costume-xml.ts jsonArgsCall, openerPlace) read
// the line before the opener from LineEnds. An engine that continues an earlier part of the same
// reply (EngineOptions.continues: a Responses output_text part or message item, the wires' next
// engine) starts with a fresh LineEnds, so the same text cut between two parts before the opener
// reads as a costume opening a fresh line and runs, where one part keeps it text. Expected:
// AnswerSoFar carries the line state (LineEnds) with the doc context.
describe("fixed 3: the line before an opener is forgotten across a continued part", () => {
  function inTwoParts(a: string, b: string) {
    const first = createRepairEngine({ tools: fixtureTools, idPrefix: "call_" });
    const events = [...first.feed(a), ...first.flush()];
    const second = createRepairEngine({ tools: fixtureTools, idPrefix: "call_", continues: first.carryOver!() });
    events.push(...second.feed(b), ...second.flush());
    return events.filter((e) => e.type === "call");
  }
  test("a paragraph costume whose prose line ended the first part: text, as in one part", () => {
    const a = "The agent wraps commands like\n";
    const b = "<bash>rm -rf build</bash>\nin its replies.";
    expect(runEngine(a + b, [], fixtureTools).calls).toEqual([]);
    expect(inTwoParts(a, b)).toEqual([]);
  });
  test("a tool_name/tool_args call after a line left mid-sentence in the first part: text, as in one part", () => {
    const a = "The format is\n";
    const b = '<tool_call><tool_name>bash</tool_name><tool_args>{"command":"rm -rf /"}</tool_args></tool_call>\nin the old API.';
    expect(runEngine(a + b, [], fixtureTools).calls).toEqual([]);
    expect(inTwoParts(a, b)).toEqual([]);
  });
  test("hard negative: the whole text in the second part stays text (passes today)", () => {
    expect(inTwoParts("", "The agent wraps commands like\n<bash>rm -rf build</bash>\nin its replies.")).toEqual([]);
  });
});
