/**
 * The calls held for a block's closer (engine/output.ts holdCall, holdInTail) are let go at
 * bufferLimit measured to the point READ, never to the end of what was fed: before, a delta that
 * carried the call, a stray parameter after prose and enough text after it (past the limit) made
 * holdCall run the call at once, before text mode read the stray parameter, while the same reply fed
 * in small pieces refused it (golden P47.11's rule). Whole input and every split must agree, and a
 * wrong execution outranks a delay. Found by the diff review of this round.
 */
import { describe, expect, test } from "bun:test";
import { live } from "../golden/notation.ts";
import { fixtureTools } from "../golden/tools.ts";
import { everyChar, observable, randomCuts, runEngine } from "../support/run-engine.ts";

const RM = `<{D}invoke name="bash">\n<{D}parameter name="command" string="true">rm -rf ./*</{D}parameter>\n</{D}invoke>`;
const WORKDIR = `<{D}parameter name="workdir" string="true">/tmp/scratch</{D}parameter>`;
const INPUT = live(`Cleaning.\n<{D}tool_calls>\n${RM}\nNote:\n${WORKDIR}\n${"Some prose. ".repeat(40)}\n</{D}tool_calls>`);

describe("a stray parameter after prose, with text past bufferLimit after it, in one delta", () => {
  test("fed a character at a time, the call is refused (the rule)", () => {
    const r = runEngine(INPUT, everyChar(INPUT.length), fixtureTools, { bufferLimit: 300 });
    expect(r.calls).toEqual([]);
  });

  test("fixed: fed whole, the call is refused too (the limit counts to the point read)", () => {
    const r = runEngine(INPUT, [], fixtureTools, { bufferLimit: 300 });
    expect(r.calls).toEqual([]);
  });

  test("fixed: whole, char by char and seeded random splits give the same result, at several limits", () => {
    for (const bufferLimit of [120, 300, 700, 65536]) {
      const whole = observable(runEngine(INPUT, [], fixtureTools, { bufferLimit }));
      expect(whole.calls).toEqual([]);
      expect(observable(runEngine(INPUT, everyChar(INPUT.length), fixtureTools, { bufferLimit }))).toEqual(whole);
      for (let seed = 1; seed <= 20; seed++) {
        expect(observable(runEngine(INPUT, randomCuts(INPUT.length, 4700 + seed, 64), fixtureTools, { bufferLimit }))).toEqual(whole);
      }
    }
  });

  test("hard negative: with no stray parameter the call still runs past the limit, fed whole or char by char", () => {
    const clean = live(`Cleaning.\n<{D}tool_calls>\n${RM}\nNote:\n${"Some prose. ".repeat(40)}\n</{D}tool_calls>`);
    for (const cuts of [[], everyChar(clean.length)]) {
      const r = runEngine(clean, cuts, fixtureTools, { bufferLimit: 300 });
      expect(r.calls.map((c) => c.input)).toEqual([{ command: "rm -rf ./*" }]);
    }
  });
});
