/**
 * diff-review-47, suspected bug (not fixed here): the calls held for a block's closer
 * (engine/output.ts holdCall, holdInTail) are let go at bufferLimit measured from the end of what
 * was FED (HeldText.end), not from what was read. A delta that carries the call, a stray parameter
 * after prose and enough text after it (past the limit) makes holdCall run the call at once, before
 * text mode reads the stray parameter; fed in small pieces, the same reply refuses it (golden
 * P47.11's rule). Whole input and every split must agree, and a wrong execution outranks a delay.
 *
 * `test.failing`: passes while the bug stands; when it is fixed, turn these into plain tests.
 */
import { describe, expect, test } from "bun:test";
import { live } from "../golden/notation.ts";
import { fixtureTools } from "../golden/tools.ts";
import { everyChar, runEngine } from "../support/run-engine.ts";

const RM = `<{D}invoke name="bash">\n<{D}parameter name="command" string="true">rm -rf ./*</{D}parameter>\n</{D}invoke>`;
const WORKDIR = `<{D}parameter name="workdir" string="true">/tmp/scratch</{D}parameter>`;
const INPUT = live(`Cleaning.\n<{D}tool_calls>\n${RM}\nNote:\n${WORKDIR}\n${"Some prose. ".repeat(40)}\n</{D}tool_calls>`);

describe("a stray parameter after prose, with text past bufferLimit after it, in one delta", () => {
  test("fed a character at a time, the call is refused (the rule)", () => {
    const r = runEngine(INPUT, everyChar(INPUT.length), fixtureTools, { bufferLimit: 300 });
    expect(r.calls).toEqual([]);
  });

  test.failing("fed whole, the call is refused too (today it runs: holdCall measures the limit from the end of the delta)", () => {
    const r = runEngine(INPUT, [], fixtureTools, { bufferLimit: 300 });
    expect(r.calls).toEqual([]);
  });
});
