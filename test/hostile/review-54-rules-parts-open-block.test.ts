/**
 * Review 54 (rules): a part's end is never the reply's end (fix 53, src/engine/engine.ts), yet a
 * DSML block still open there (its invoke closed, the block not) sends its call out at the part's
 * end as if the reply had ended there. What the next part writes into the same block no longer
 * counts.
 *
 * FINDING 1 (wrong execution, high). Golden P47.4 (review 47b, PATTERNS.md "DSML block: ... a
 * parameter outside every invoke anywhere before [the block's closer] refuses every call of the
 * block, so a block's calls go out together when it closes (or at the reply's end, or at
 * bufferLimit)") refuses `rm -rf ./*` because a stray `workdir=/tmp/scratch` parameter follows
 * its invoke in the same block: run without it, it deletes the wrong directory. Cut the same
 * reply into two parts anywhere from the invoke closer's `</{D}invok` to the stray parameter
 * (an Anthropic text block | thinking block | text block, two Responses message items, both
 * engine readings), and `rm -rf ./*` runs with no workdir; the stray parameter in the next part is
 * never weighed. The same holds for P47.11 (prose between), A46.6 (an example followed by the
 * closers of a write that never opened: golden refuses, parts run `rm -rf x`) and A45.9 (a write
 * whose content goes on with an example: golden refuses, parts run the write with `# Doc`).
 * Minimal input: P47.4 cut after `</{D}invoke>` + LF, i.e. parts
 *   [`<{D}tool_calls>` LF `<{D}invoke name="bash">` LF `<{D}parameter name="command" string="true">rm -rf ./*</{D}parameter>` LF `</{D}invoke>` LF,
 *    `<{D}parameter name="workdir" string="true">/tmp/scratch</{D}parameter>` LF `</{D}tool_calls>`].
 * Not new in round 53: the engine and the fetch route ran it at 740b2f3 too; the middleware ran
 * nothing there (one engine, no span end) and runs it since it ends spans where the fetch route
 * does (d07dcea), so both routes now agree on the wrong answer.
 * Suspected source: src/engine/engine.ts endSpan (the open block decided at the part's end as at
 * the reply's end; the fix 53 rules catch an open costume, a cut-off value and an opener alone,
 * not a block whose invoke closed and whose closer has not come), src/engine/span-callbacks.ts
 * (openBlock).
 * Expected: the block's call never runs before its block is decided: an open block at a part's
 * end is markup of unknown end (shown as written, no later call runs), or it carries into the next
 * part and is decided at its closer as one text would be. Either way `rm -rf ./*` does not run.
 *
 * Fixed (fix 54, src/engine/engine.ts endSpan/finish): a part's end is never the reply's end. A
 * DSML block still open there (its invoke closed, its own closer not come) is markup of unknown end: the candidate still waiting there for what follows
 * and the calls held for the block's closer are shown as written (held ones reported
 * "overflowed-markup"), and no later call of the reply runs, on both readings and both routes.
 * Cost (more refusing): a DSML block cut between `</{D}invoke>` and `</{D}tool_calls>` by a
 * part's end (the block's closer opening the next part) no longer runs. A block whose own closer
 * came in part one still runs, its line end unseen or prose after it on its line (the calls run
 * there as at the reply's end: a stray parameter after that prose is no shape models write).
 */
import { describe, expect, test } from "bun:test";
import { LATER, LATER_INPUT, READINGS, cutAfter, golden, readParts } from "./review-54-rules-parts-support.ts";
import { ROUTES, splitBodies } from "./review-54-rules-wires-support.ts";

const INVOKE_CLOSER = "</\uFF5CDSML\uFF5Cinvoke>";
const INVOKE_CLOSER_HEAD = "</\uFF5CDSML\uFF5Cinvok";

const CASES: [string, string, number, Record<string, unknown>][] = [
  // [golden, what to cut after, extra characters, the call that must not run]
  ["P47.4", INVOKE_CLOSER, 1, { command: "rm -rf ./*" }],
  ["P47.4", INVOKE_CLOSER, 0, { command: "rm -rf ./*" }],
  ["P47.4", INVOKE_CLOSER_HEAD, 0, { command: "rm -rf ./*" }],
  ["P47.11", INVOKE_CLOSER, 1, { command: "rm -rf ./*" }],
  ["A46.6", INVOKE_CLOSER_HEAD, 0, { command: "rm -rf x" }],
  ["A45.9", "# Doc</\uFF5CDSML\uFF5Cparameter>\n<\uFF5CDSML\uFF5Ctool_calls>\n<\uFF5CDSML\uFF5Cinvok", 0, { filePath: "a.md", content: "# Doc" }],
];

describe("finding 1: a DSML block open at a part's end runs its call before the next part can refuse the block", () => {
  for (const [id, after, extra, forbidden] of CASES) {
    for (const [reading, chained] of READINGS) {
      test(`${id} cut after ${JSON.stringify(after.replace(/\uFF5C/g, "{BAR}"))}+${extra} (${reading}): the refused call does not run`, () => {
        const parts = cutAfter(golden(id), after, extra);
        const run = readParts(parts, chained);
        expect(run.calls).not.toContainEqual(forbidden);
      });
    }
  }
  test("control (passes): the same reply in one part refuses the block (P47.4)", () => {
    expect(readParts([golden("P47.4")], false).calls).toEqual([]);
  });
});

describe("hard negatives: a closed block at a part's end still runs, and so does a later call", () => {
  const DSML = golden("D02");
  for (const [reading, chained] of READINGS) {
    // Changed by fix 54b: a part's end decides nothing. D02 ends with its block's closer, that
    // line's end unseen (prose after it keeps the block watched, P49.2): shown as written, no later call.
    // Changed by fix 55: with its line end too (the run after its call reads on past the block's
    // closer for a write's stray closer, A46.6, so the call is pending there); a prose line after
    // it inside part one decides it, and both calls run.
    test(`a block closed with its line end and a prose line ends part one, a clean call in part two: both run; without the prose, neither (${reading})`, () => {
      expect(readParts([`${DSML}\nDone.\n`, LATER], chained).calls).toEqual([{ command: "ls -la" }, LATER_INPUT]);
      expect(readParts([`${DSML}\n`, LATER], chained)).toEqual({ calls: [], text: `${DSML}\n${LATER}` });
      const run = readParts([DSML, LATER], chained);
      expect(run.calls).toEqual([]);
      expect(run.text).toBe(DSML + LATER);
    });
    test(`the block's closer opens part two: shown as written, nothing runs (${reading})`, () => {
      // Fix 54's cost: at part one's end the block is still open, and part two might have written a
      // stray parameter before its closer (P47.4), so the call's verdict is unknown there.
      const input = DSML + LATER;
      const run = readParts(cutAfter(input, INVOKE_CLOSER, 1), chained);
      expect(run.calls).toEqual([]);
      expect(run.text).toBe(input);
    });
    // Changed by fix 54b: without its line end the closer's line is undecided at the part's end (nothing runs).
    // Changed by fix 55: with it too, unless prose follows inside the part (as above).
    test(`a block of two invokes closed in part one with its line end and a prose line: both run, and a later call; without them, none (${reading})`, () => {
      const two = DSML.replace(INVOKE_CLOSER, `${INVOKE_CLOSER}\n<\uFF5CDSML\uFF5Cinvoke name="bash">\n<\uFF5CDSML\uFF5Cparameter name="command" string="true">pwd</\uFF5CDSML\uFF5Cparameter>\n${INVOKE_CLOSER}`);
      expect(readParts([`${two}\nDone.\n`, LATER], chained).calls).toEqual([{ command: "ls -la" }, { command: "pwd" }, LATER_INPUT]);
      expect(readParts([`${two}\n`, LATER], chained).calls).toEqual([]);
      expect(readParts([two, LATER], chained).calls).toEqual([]);
    });
    test(`a block of two invokes cut between them: neither runs, nor a later call (${reading})`, () => {
      const input = DSML.replace(INVOKE_CLOSER, `${INVOKE_CLOSER}\n<\uFF5CDSML\uFF5Cinvoke name="bash">\n<\uFF5CDSML\uFF5Cparameter name="command" string="true">pwd</\uFF5CDSML\uFF5Cparameter>\n${INVOKE_CLOSER}`) + LATER;
      const run = readParts(cutAfter(input, "pwd"), chained);
      expect(run.calls).toEqual([]);
    });
    // Changed by fix 54b (diff review 54b, finding 1): words after the closer keep the block watched
    // (a stray parameter later refuses it whole, P49.2), so at a part's end its call is undecided:
    // shown as written, no later call runs. The same block with more text in part one runs (P47.n1).
    test(`a block closed in part one with prose after its closer on its line: nothing runs, the text stays (${reading})`, () => {
      for (const first of [`${DSML} done.`, `${DSML} done.\n`]) {
        const run = readParts([first, LATER], chained);
        expect(run.calls).toEqual([]);
        expect(run.text).toBe(first + LATER);
      }
      expect(readParts([`${DSML}\nDone.\n`, LATER], chained).calls).toEqual([{ command: "ls -la" }, LATER_INPUT]);
    });
    test(`P47.11 with its prose in part one (the invoke's span decided, its call held): nothing runs (${reading})`, () => {
      const input = golden("P47.11") + LATER;
      const run = readParts(cutAfter(input, "Note:\n"), chained);
      expect(run.calls).toEqual([]);
      expect(run.text).toBe(input);
    });
    test(`P47.4 cut before its invoke closes: nothing runs, the text stays (${reading})`, () => {
      const input = golden("P47.4");
      const run = readParts(cutAfter(input, "rm -rf"), chained);
      expect(run.calls).toEqual([]);
      expect(run.text).toBe(input);
    });
  }
});

describe("finding 1 on the wires: both routes run the refused call", () => {
  // The same bytes through the fetch route and the middleware (they agree: both run it).
  const [first, second] = cutAfter(golden("P47.4"), INVOKE_CLOSER, 1);
  for (const [wire, api, body] of splitBodies(first, second)) {
    for (const [route, view] of ROUTES) {
      test(`${wire}, ${route}: P47.4 cut after its invoke closer runs nothing`, async () => {
        const v = await view(api, body);
        expect(v.calls).toEqual([]);
      });
    }
  }
  test("control (passes): one message item refuses the block on both routes", async () => {
    const [, api, body] = splitBodies(golden("P47.4"), "")[1]!;
    for (const [, view] of ROUTES) expect((await view(api, body)).calls).toEqual([]);
  });
});
