/**
 * Review 54 (rules): a closer that ends a part is read as ending its line, though the next part
 * goes on with that same line (the engine itself knows it does: a `<bash>` opening the next part
 * right after is not at a line start, see the hard negatives).
 *
 * FINDING 2 (wrong execution, high: a call runs with a value the model never wrote). A value that
 * holds its own closer's text mid-line (goldens A40.n5, A40.n4, A40.n9, A45.1, E45.6: a command
 * grepping for `</shell>`, `</function>`, `</function_calls>`, `</invoke>`) runs whole in one
 * text, since a closer ends a value only at the end of its line. When a part ends right after that
 * inner closer (or inside it, E45.6), the closer is taken as the call's end: the call runs with the
 * value cut there (`grep -c "`, `grep -n '`, `echo "`), the rest of the command (`" docs/a.html &&
 * rm -rf build</shell>`) is shown as prose, and a later call of the reply runs too, although fix 53
 * says a call whose value is open at a part's end stops every later call. For a `write` this is a
 * truncated file written; for a shell command, a different command run.
 * The same cause runs calls one text shows as prose (goldens A40.8, N21.7, E29.n14, A40.15: a
 * closer followed by prose on its line is no call): cut right after the closer, the call runs and
 * the prose the next part writes on that line is dropped as a fabricated result (S03).
 * Fetch route and middleware agree (both run it), on an Anthropic thinking block between two text
 * blocks and on two Responses message items.
 * Minimal input: parts [`<shell>grep -c "</shell>`, `" docs/a.html && rm -rf build</shell>` LF].
 * Not new in round 53 (the engine and the fetch route did the same at 740b2f3; the middleware
 * joined them when it began ending spans, d07dcea), but against fix 53's rule that a part's end is
 * never the reply's end.
 * Suspected source: src/engine/engine.ts endSpan / finish (the span is read `truncated`, where a
 * closer at the span's end counts as ending its line: src/parse/closer-in-value.ts, costume.ts
 * ownCloser); the fix 53 conditions (openCostume, openerAlone, cutOffCall) do not see a call
 * that the cut reading closed.
 * Expected: a closer that ends a part is not known to end its line: the call is decided by the
 * next part's first characters (a line end: a closer; anything else: its value goes on), or it is
 * markup of unknown end (shown as written, no later call runs). Never a value cut at the part end.
 *
 * Fixed (fix 54, src/engine/engine.ts finish): a part's end is never the reply's end. A candidate
 * still undecided at a part's end (waiting for its closer's line end, for the closer of its
 * wrapper or block, or for the next tag) that the end-of-text reading takes for a call is shown as
 * written there, and no later call of the reply runs (endUnknown), as fix 53 did for a paragraph
 * costume: the value is never cut, and the prose case runs nothing, on both readings and both
 * routes. Cost (more refusing): a costume (or a Cline element, a Qwen3-Coder function without
 * its `</tool_call>`, a Hermes body without its closer) closed exactly at a part's end, its line
 * end not yet written, no longer runs, nor does any later call, even when the next part opens
 * with a line end. A costume closer followed by its line end in part one still runs.
 * The reviewer's suspicion (a costume closed at part one's end, a costume opening part two: the
 * first ran, the second's text was hidden as a fabricated result, the whole reply runs neither)
 * is fixed by the same rule: neither runs, and all the text stays visible.
 */
import { describe, expect, test } from "bun:test";
import { LATER, LATER_INPUT, READINGS, cutAfter, golden, readParts } from "./review-54-rules-parts-support.ts";
import { ROUTES, splitBodies } from "./review-54-rules-wires-support.ts";

const BAR = "\uFF5C";

/** [golden, cut after, the value the cut makes up]. */
const CUT_VALUES: [string, string, Record<string, unknown>][] = [
  ["A40.n5", '<shell>grep -c "</shell>', { command: 'grep -c "' }],
  ["A40.n4", "grep -n '</function>", { command: "grep -n '" }],
  ["A40.n9", 'echo "</function_calls>', { command: 'echo "' }],
  ["A45.1", "grep -c '</invoke>", { command: "grep -c '" }],
  ["E45.6", `grep -c "</${BAR}DSML${BAR}bash`, { command: 'grep -c "' }],
];

describe("finding 2a: a value cut at an inner closer that ends a part runs cut", () => {
  for (const [id, after, cut] of CUT_VALUES) {
    for (const [reading, chained] of READINGS) {
      test(`${id} (${reading}): the call never runs with the value cut at the part's end`, () => {
        const [first, second] = cutAfter(golden(id), after);
        const run = readParts([first, second + LATER], chained);
        expect(run.calls).not.toContainEqual(cut);
      });
    }
  }
  test("control (passes): in one part each runs whole", () => {
    expect(readParts([golden("A40.n5")], false).calls).toEqual([{ command: 'grep -c "</shell>" docs/a.html && rm -rf build' }]);
    expect(readParts([golden("A40.n4")], false).calls).toEqual([{ command: "grep -n '</function>' src/a.xml && rm -rf build" }]);
  });
});

describe("finding 2b: a closer ending a part, prose after it on its line in the next part: the call runs", () => {
  const PROSE: [string, string][] = [
    ["A40.8", "<shell>ls</shell>"],
    ["N21.7", '"ls"}}'],
    ["E29.n14", "</read>"],
    ["A40.15", "</function>"],
  ];
  for (const [id, after] of PROSE) {
    for (const [reading, chained] of READINGS) {
      test(`${id} (${reading}): nothing runs, as in one part`, () => {
        const input = golden(id);
        expect(readParts([input], false).calls).toEqual([]);
        const run = readParts(cutAfter(input, after), chained);
        expect(run.calls).toEqual([]);
      });
    }
  }
});

describe("finding 2 on the wires: both routes run the cut value", () => {
  const [first, second] = cutAfter(golden("A40.n5"), '<shell>grep -c "</shell>');
  for (const [wire, api, body] of splitBodies(first, second + LATER)) {
    for (const [route, view] of ROUTES) {
      test(`${wire}, ${route}: \`grep -c "\` never runs`, async () => {
        const v = await view(api, body);
        expect(v.calls).not.toContainEqual({ command: 'grep -c "' });
      });
    }
  }
});

describe("hard negatives: clean calls in both parts run", () => {
  for (const [reading, chained] of READINGS) {
    // Changed by fix 54b: a part's end decides nothing. The costume's candidate is still held at
    // part one's end (a further `</bash>` may show its closer was code, review 52; prose after it
    // does not end that hold): shown as written, no later call runs. With later markup after it in
    // part one (a Hermes call here), the costume is decided inside the part and all three run.
    test(`a costume closed with its line end in part one, a costume in part two: held at the part's end, nothing runs (${reading})`, () => {
      const parts = ["Run:\n<bash>\nls a\n</bash>\n", "<bash>\nls b\n</bash>\n"];
      const run = readParts(parts, chained);
      expect(run.calls).toEqual([]);
      expect(run.text).toBe(parts.join(""));
      const hermes = '<tool_call>{"name":"bash","arguments":{"command":"pwd"}}</tool_call>\n';
      expect(readParts([`Run:\n<bash>\nls a\n</bash>\n\n${hermes}`, "<bash>\nls b\n</bash>\n"], chained).calls).toEqual([{ command: "ls a" }, { command: "pwd" }, { command: "ls b" }]);
    });
    test(`a costume closed at part one's end, part two opening with a line end: shown as written (${reading})`, () => {
      // Fix 54's cost: at part one's end the closer's line end is unseen (prose there makes it no
      // call, A40.8), so neither runs; the text stays.
      const parts = ["Run:\n<bash>\nls a\n</bash>", "\n<bash>\nls b\n</bash>\n"];
      const run = readParts(parts, chained);
      expect(run.calls).toEqual([]);
      expect(run.text).toBe(parts.join(""));
    });
    test(`the reviewer's suspicion: a costume closed at part one's end, a costume opening part two: neither runs, as whole (${reading})`, () => {
      const parts = ["Run:\n<bash>\nls a\n</bash>", "<bash>\nls b\n</bash>\n"];
      expect(readParts([parts.join("")], false).calls).toEqual([]);
      const run = readParts(parts, chained);
      expect(run.calls).toEqual([]);
      expect(run.text).toBe(parts.join(""));
    });
    test(`a costume whose closer line ended in part two's middle runs in part two (${reading})`, () => {
      expect(readParts(["Run:\n", "<bash>\nls b\n</bash>\n"], chained).calls).toEqual([{ command: "ls b" }]);
    });
    test(`a Hermes call ending part one, a Hermes call opening part two (${reading})`, () => {
      const a = '<tool_call>{"name":"bash","arguments":{"command":"ls a"}}</tool_call>';
      expect(readParts([a, LATER.trim()], chained).calls).toEqual([{ command: "ls a" }, LATER_INPUT]);
    });
    test(`A40.n5 cut before its inner closer: nothing runs, the text stays (${reading})`, () => {
      const input = golden("A40.n5");
      const run = readParts(cutAfter(input, "grep -c"), chained);
      expect(run.calls).toEqual([]);
      expect(run.text).toBe(input);
    });
    test(`part two's costume right after part one's closer is not at a line start (${reading})`, () => {
      // The engine reads the next part as the same line here (no call from part two).
      const run = readParts(["Run:\n<bash>\nls a\n</bash>", "<bash>\nls b\n</bash>\n"], chained);
      expect(run.calls).not.toContainEqual({ command: "ls b" });
    });
  }
});
