/**
 * Diff review 54b (hostile, tests only): the fixers' round-54 source diff in src/engine and
 * src/parse (main..int54). Failing tests are findings; every other test is a hard negative that
 * passes on int54. No marker byte is written here (escapes only).
 */
import { describe, expect, test } from "bun:test";
import { outcome } from "../support/outcome.ts";
import { READINGS, golden, readParts } from "./review-54-rules-parts-support.ts";
import { ROUTES, splitBodies } from "./review-54-rules-wires-support.ts";

const D = "\uFF5CDSML\uFF5C";
const dsml = (s: string) => s.replaceAll("{D}", D);
const BLOCK = dsml('<{D}tool_calls>\n<{D}invoke name="bash">\n<{D}parameter name="command" string="true">rm -rf ./*</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>');
const STRAY = dsml('<{D}parameter name="workdir" string="true">/tmp/scratch</{D}parameter>\n');
/** The block closed, prose after its closer on the closer's line, then a parameter outside every invoke (P47.11's stray, on the closer's line). */
const PROSE_THEN_STRAY = `${BLOCK} Note: ${STRAY}`;
const RM = { command: "rm -rf ./*" };

/** [what part one ends with, where the cut is]. */
const CUTS: [string, number][] = [
  ["the block's closer (its line end unseen)", BLOCK.length],
  ["the prose after the closer", BLOCK.length + " Note: ".length],
  ["half the stray parameter's opener", BLOCK.length + " Note: ".length + 3],
];

/**
 * FINDING 1 (wrong execution, high: `rm -rf ./*` runs where the whole reply runs nothing).
 * Fix 54's exception in src/engine/engine.ts endSpan: a DSML block whose own closer came in the
 * part (closedWatch: its line end unseen, or words after it on its line) is not "unknown" at the
 * part's end; leaveStrayBlock() then runs its held calls as at the reply's end. But the whole
 * reply keeps such a block watched (engine.ts finish: "one with words after it on its line is
 * prose, and the block stays watched"), and a parameter written later on that line is a stray
 * one: the whole reply refuses the call (I02, text kept), exactly P47.11's rule with the stray
 * on the closer's line. Read in two parts (cut right after the closer, after the prose, or inside
 * the stray opener), the call has already run when the stray arrives. The engine comment's
 * justification ("a stray parameter after that prose is no shape models write") is contradicted
 * by the whole reply itself, which reads this very shape and refuses it. One engine with
 * endSpan and an engine per part agree; the fetch route and the middleware agree (Anthropic
 * text | thinking | text, Responses two message items): all run it. Not new (main ran it at even
 * more cut positions, from inside the block), but it is the exception fix 54 kept on purpose.
 * Minimal input: parts [BLOCK, " Note: " + stray DSML parameter], BLOCK = a DSML tool_calls block
 * with one bash invoke, closed by its closer with no line end.
 * Suspected source: src/engine/engine.ts endSpan (`this.strayBlock !== this.closedWatch`) and
 * finish (closedWatch set for a closer with words after it).
 * Expected: a block whose closer's line is not ended at the part's end is as undecided as an open
 * one: its held calls are "unknown" (shown as written, no later call runs), or they wait for the
 * next part; never run before the line that may refuse them is read.
 * Fixed: a part's end decides nothing (fix 54b, src/engine/part-end.ts): a block still watched
 * there (its closer's line not ended, or words after the closer) has its held calls shown as
 * written, and no later call of the reply runs; the closedWatch exception is gone.
 */
describe("finding 1: a block closed in part one, prose then a stray parameter on the closer's line in part two", () => {
  test("control (passes): the whole reply in one part refuses it and keeps the text", () => {
    const r = readParts([PROSE_THEN_STRAY], false);
    expect(r.calls).toEqual([]);
    expect(r.text).toBe(PROSE_THEN_STRAY);
  });
  for (const [where, k] of CUTS) {
    for (const [reading, chained] of READINGS) {
      test(`part one ends with ${where} (${reading}): the call does not run`, () => {
        const r = readParts([PROSE_THEN_STRAY.slice(0, k), PROSE_THEN_STRAY.slice(k)], chained);
        expect(r.calls).not.toContainEqual(RM);
      });
    }
  }
  // The goldens of the rule (whole: no call, I02): words after the closer, the stray on the next line.
  for (const [id, after] of [["P49.2", " is the closer.\n"], ["P50.1", " <3 is the closer.\n"]] as const) {
    for (const [where, extra] of [["the closer", 0], ["the closer's line", after.length]] as const) {
      test(`${id} cut after ${where}: the call does not run (the whole reply runs none)`, () => {
        const t = golden(id);
        const k = t.indexOf(dsml("</{D}tool_calls>")) + dsml("</{D}tool_calls>").length + extra;
        expect(readParts([t], false).calls).toEqual([]);
        for (const [, chained] of READINGS) expect(readParts([t.slice(0, k), t.slice(k)], chained).calls).toEqual([]);
      });
    }
  }
  for (const [wire, api, body] of splitBodies(BLOCK, PROSE_THEN_STRAY.slice(BLOCK.length))) {
    for (const [route, read] of ROUTES) {
      test(`${wire}, ${route}: the call does not run`, async () => {
        const v = await read(api, body);
        expect(v.calls).not.toContainEqual(RM);
      });
    }
  }
});

describe("finding 1 hard negatives: blocks closed at a part's end that must keep running", () => {
  const CLOSED_LF = `${BLOCK}\n`;
  // Changed by fix 55: a block closed with its line end right at a part's end is pending there (the
  // run after its call reads on past the block's closer for a write's stray `</{D}parameter>`,
  // A46.6): shown as written, nothing runs. Prose after it inside the part decides it there.
  test("a block closed with its line end in part one runs once prose follows it in the part, and a later paragraph's text stays", () => {
    for (const [, chained] of READINGS) {
      const r = readParts([`${CLOSED_LF}Done.\n`, "More.\n"], chained);
      expect(r.calls).toEqual([RM]);
      // Text after a DSML call is read as in one text (there: a fabricated result, dropped).
      expect(r.text).toBe(readParts([`${CLOSED_LF}Done.\nMore.\n`], false).text);
      expect(readParts([CLOSED_LF, "Done.\n"], chained)).toEqual({ calls: [], text: `${CLOSED_LF}Done.\n` });
    }
  });
  test("P47.n1's shape (the stray on a later line, after a prose line): the call runs whole and in parts cut in the prose", () => {
    const text = `Cleaning.\n${BLOCK}\nNote:\n${STRAY}`;
    expect(readParts([text], false).calls).toEqual([RM]);
    const k = text.indexOf("Note:");
    // Fix 55: cut right before the prose line, the block is pending at part one's end (nothing runs); cut inside it, it runs.
    for (const [, chained] of READINGS) expect(readParts([text.slice(0, k), text.slice(k)], chained).calls).toEqual([]);
    for (const [, chained] of READINGS) expect(readParts([text.slice(0, k + 2), text.slice(k + 2)], chained).calls).toEqual([RM]);
  });
  test("prose after the closer and no stray: the whole reply runs the call", () => {
    const text = `${BLOCK} Done.\n`;
    expect(readParts([text], false).calls).toEqual([RM]);
  });
});

const CALL = '<tool_call>{"name":"bash","arguments":{"command":"echo ZQ"}}</tool_call>';
const RAN = [{ tool: "bash", input: { command: "echo ZQ" } }];

/**
 * FINDING 2 (wrong execution, medium; a regression of fix 54: main refused it). The prose rule of
 * the mention re-read (src/parse/costume-prose.ts isProse) skips every costume tag "whole",
 * attributes included, without checking them; yet an attribute value is costume code like any
 * other text there. `<python a="x\">` is a closed tag for the tag reader (`"x\"` is the value
 * `x\`), but in the unclosed `<shell>` costume's code the `\"` escapes the quote and a
 * double-quoted string stays open over the blank line and the call, up to the `"` on the last
 * line: the call is data of that string (an argument of `echo`), and it runs. The same holds for
 * an attribute holding a backtick or `$(`, which open a substitution inside a shell `"..."`.
 * Minimal input: "Run: <shell> echo <python a=\"x\\\"> " LF LF <Hermes call> LF "\"" LF.
 * Suspected source: src/parse/costume-prose.ts isProse (the costume-tag skip).
 * Expected: a costume tag carrying anything but a bare name (attributes) is not prose: refuse the
 * re-read (the call stays text, as on main), or check the tag's text by the same prose rule.
 */
describe("finding 2: an attribute of a costume tag skipped by the prose rule opens a string in the costume's code", () => {
  const INSIDE: [string, string][] = [
    ['a \\" in a double-quoted attribute', `Run: <shell> echo <python a="x\\"> \n\n${CALL}\n"\n`],
    ["a backtick in a double-quoted attribute", "Run: <shell> echo <python a=\"`\"> \n\n" + CALL + "\n`\"\n"],
  ];
  // Fixed: isProse skips only a costume tag written bare (its name alone between the brackets); a
  // tag with attributes is no prose, so the re-read does not happen (costume-prose.ts bareTag).
  for (const [name, input] of INSIDE) {
    test(`${name}: the call does not run, the text stays`, () => {
      const o = outcome(input);
      expect(o.calls).toEqual([]);
      expect(o.text).toBe(input);
    });
  }
  test("hard negative: two bare mentions, a blank line, a call: runs", () => {
    expect(outcome(`Use <shell> or <python> here.\n\n${CALL}\n`).calls).toEqual(RAN);
  });
  test("hard negative: the same code with the quote outside a tag is refused", () => {
    const input = `Run: <shell> echo a="x\\"> \n\n${CALL}\n"\n`;
    expect(outcome(input).calls).toEqual([]);
    expect(outcome(input).text).toBe(input);
  });
});

/** One golden cut in two at `k`: [parts, whole reply's calls]. */
function cutGolden(id: string, k: number): [string[], Record<string, unknown>[]] {
  const t = golden(id);
  return [[t.slice(0, k), t.slice(k)], readParts([t], false).calls];
}
const afterNth = (id: string, marker: string, nth: number) => {
  const t = golden(id);
  let at = -1;
  for (let i = 0; i < nth; i++) at = t.indexOf(marker, at + 1);
  if (at < 0) throw new Error(`no ${marker} in ${id}`);
  return at + marker.length;
};

/**
 * FINDING 3 (wrong execution, high: a `write` runs with its content cut, or runs where the whole
 * reply writes nothing). A DSML `content` value left open (A45.8: no parameter closer; A46.1: closed
 * by a plain `</parameter>` only) is ended, at a part's end, by the invoke and block closers that
 * follow it, and the write runs with content "# Doc". In one text those closers stand inside the
 * value (a later block and the value's own closers follow): A45.8 writes the whole value, A46.1
 * runs nothing (I04). docs/PATTERNS.md (review 54) says a call "that its block's closer ended
 * there" and "a value an inner closer may have cut" are shown as written at a part's end; the
 * fix covers only a closer whose line end is unseen, and here it runs both with the closer ending
 * part one and with its line end in part one. Not new (main ran it at more cuts), but inside the
 * rule fix 54 claims.
 * Minimal input: A45.8 cut right after its first `</{D}tool_calls>` (or after that line's LF).
 * Suspected source: src/engine/engine.ts finish (finishAtEnd's `undecided`, cutOffCall): a value
 * ended by an invoke/block closer rather than its own parameter closer, at a part's end.
 * Expected: that call is markup of unknown end there (text as written, no later call runs), or
 * waits for the next part; never a write of the cut value.
 * Fixed: a candidate pending at a part's end is decided there only when its calls were complete
 * with their closer's line ended in the part and no value of it was ended by anything but its own
 * closer (an invoke or block closer, A45.8; a closer of another spelling, A46.1): otherwise it is
 * shown as written and no later call runs (fix 54b, src/engine/part-end.ts, parse-span.ts valueCutIn).
 */
describe("finding 3: a DSML value ended by the block's closer at a part's end runs cut", () => {
  for (const id of ["A45.8", "A46.1"]) {
    for (const [where, extra] of [["the block closer", 0], ["the block closer's line", 1]] as const) {
      for (const [reading, chained] of READINGS) {
        test(`${id} cut after ${where} (${reading}): no write with the cut content`, () => {
          const [parts] = cutGolden(id, afterNth(id, dsml("</{D}tool_calls>"), 1) + extra);
          expect(readParts(parts, chained).calls).not.toContainEqual({ filePath: "a.md", content: "# Doc" });
        });
      }
    }
  }
  test("control (passes): whole, A45.8 writes the whole value and A46.1 nothing", () => {
    expect((readParts([golden("A45.8")], false).calls[0]!.content as string).startsWith("# Doc\n")).toBe(true);
    expect(readParts([golden("A46.1")], false).calls).toEqual([]);
  });
  // Changed by fix 55: the block closing a part is pending there (A46.6: the next part's stray
  // closers would refuse it); prose after it inside the part decides it, and the write runs.
  test("hard negative: a write whose value its own closer ended runs when prose after its block ends the part", () => {
    const w = dsml('<{D}tool_calls>\n<{D}invoke name="write">\n<{D}parameter name="filePath" string="true">a.md</{D}parameter>\n<{D}parameter name="content" string="true"># Doc</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>\n');
    for (const [, chained] of READINGS) expect(readParts([`${w}Done.\n`, "More.\n"], chained).calls).toEqual([{ filePath: "a.md", content: "# Doc" }]);
    for (const [, chained] of READINGS) expect(readParts([w, "Done.\n"], chained).calls).toEqual([]);
  });
});

/**
 * FINDING 4 (wrong execution, high: `rm -rf ./*` / `ls` runs where the whole reply runs nothing).
 * A call held for its DSML block's closer runs when a part ends with the block still open, at a
 * cut right after a line end (the most common token boundary): P47.14 after the second invoke's
 * opener line or after its parameter's line, P49.3 after a second block opener's line, P50.4
 * after an empty inner block's opener line. The whole reply refuses (a stray parameter follows,
 * I02). Fix 54's endSpan settles held calls "unknown" for a block still open, yet at these cuts
 * the call has already run; one character earlier or later the split refuses as it should.
 * Both readings (one engine with endSpan, an engine per part) agree.
 * Minimal input: P47.14 cut after `<{D}invoke name="bash">` LF (the second invoke).
 * Suspected source: src/engine/engine.ts endSpan / finishAtEnd with a candidate opened and still
 * empty at the part's end right after a line end (the held calls are settled "run" before endSpan
 * sees the block open, or closedWatch/strayBlock is not the open block there).
 * Expected: no call of the open block runs at a part's end (held "unknown": text as written).
 * Fixed: once markup pending at a part's end proved undecided, no held call is settled "run"
 * there (the opener candidate's reply-end reading closed the block): they are "unknown", shown as
 * written, and no later call runs (fix 54b, engine.ts settleHeldCalls).
 */
describe("finding 4: a block still open at a line-end cut runs its held call", () => {
  const CASES: [string, string, number][] = [
    ["P47.14", '<{D}invoke name="bash">\n', 2],
    ["P47.14", "</{D}parameter>\n", 2],
    ["P49.3", "<{D}tool_calls>\n", 2],
    ["P50.4", "<{D}tool_calls>\n", 2],
  ];
  for (const [id, marker, nth] of CASES) {
    for (const [reading, chained] of READINGS) {
      test(`${id} cut after ${JSON.stringify(marker.replace(D, "{D}"))} #${nth} (${reading}): nothing runs, as in one part`, () => {
        const [parts, whole] = cutGolden(id, afterNth(id, dsml(marker), nth));
        expect(whole).toEqual([]);
        expect(readParts(parts, chained).calls).toEqual([]);
      });
    }
  }
  test("hard negative: one character either side of the P47.14 cut, nothing runs", () => {
    const k = afterNth("P47.14", dsml('<{D}invoke name="bash">\n'), 2);
    for (const j of [k - 1, k + 1]) expect(readParts(cutGolden("P47.14", j)[0], false).calls).toEqual([]);
  });
});

/**
 * FINDING 5 (wrong execution, high: `rm -rf ~` runs where the whole reply runs nothing). A GLM
 * name line (`<tool_call>read` LF, `<tool_call>write` LF) ending a part: the next part's
 * Qwen3-Coder function (O51.1), GLM pairs over a costume (O48.3) or Claude-style block (S02.13)
 * is read afresh and runs. In one text the opener and its name line make the span one call
 * written in two dialects (refused whole, O51.1) or a write holding the example (S02.13). The
 * wrapper without its closer at a part's end ("a call opener alone", review 53) does not stop
 * the later call when a name follows the opener. Not new (main did the same).
 * Minimal input: parts ["<tool_call>read" LF, "<function=bash>" LF "<parameter=command>rm -rf ~</parameter>" LF "</function>" LF "</tool_call>"].
 * Suspected source: src/engine/engine.ts finish (openerAlone does not cover an opener plus a GLM
 * name line) / src/parse/dialects/tool-call-body.ts ToolCallStart at the span's end.
 * Expected: the wrapper is undecided at the part's end: shown as written, no later call runs.
 * Fixed: every candidate still pending at a part's end (here the `<tool_call>` opener and its name
 * line) is shown as written and stops every later call of the reply (fix 54b, part-end.ts).
 */
describe("finding 5: a GLM name line ending a part lets the next part's call run", () => {
  const CASES: [string, string][] = [
    ["O51.1", "<tool_call>read\n"],
    ["O48.3", "<tool_call>write\n"],
    ["S02.13", "<tool_call>write\n"],
    ["S02.13", "<function_calls>\n"],
  ];
  for (const [id, marker] of CASES) {
    for (const [reading, chained] of READINGS) {
      test(`${id} cut after ${JSON.stringify(marker)} (${reading}): no call the whole reply does not run`, () => {
        const [parts, whole] = cutGolden(id, afterNth(id, marker, 1));
        const wholeSet = new Set(whole.map((c) => JSON.stringify(c)));
        expect(readParts(parts, chained).calls.filter((c) => !wholeSet.has(JSON.stringify(c)))).toEqual([]);
      });
    }
  }
  test("hard negative: a complete GLM call ending a part with its line end runs", () => {
    const glm = "<tool_call>bash\n<arg_key>command</arg_key>\n<arg_value>ls</arg_value>\n</tool_call>\n";
    for (const [, chained] of READINGS) expect(readParts([glm, "Done.\n"], chained).calls).toEqual([{ command: "ls" }]);
  });
});
