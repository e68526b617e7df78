/**
 * fx48-diff: the rules behind diff review 48's fixes, beyond its own tests (no DSML marker bytes: live() builds them).
 */
import { describe, expect, test } from "bun:test";
import { live } from "../golden/notation.ts";
import { fixtureTools } from "../golden/tools.ts";
import { everyChar, observable, randomCuts, runEngine } from "../support/run-engine.ts";
import { createRepairEngine } from "../../src/engine/engine.ts";

const RM = `<{D}invoke name="bash">\n<{D}parameter name="command" string="true">rm -rf ./*</{D}parameter>\n</{D}invoke>`;

function sameAtEverySplit(input: string) {
  const whole = observable(runEngine(input, [], fixtureTools));
  expect(observable(runEngine(input, everyChar(input.length), fixtureTools))).toEqual(whole);
  for (let seed = 1; seed <= 6; seed++) expect(observable(runEngine(input, randomCuts(input.length, 9100 + seed, 16), fixtureTools))).toEqual(whole);
  return whole;
}

describe("one stray-parameter check for plain text and documentation", () => {
  test("a `<`-lost stray parameter in a fence inside an open block refuses the call, as on a plain line", () => {
    const r = sameAtEverySplit(live(`Cleaning.\n<{D}tool_calls>\n${RM}\n\`\`\`\n{BAR}parameter name="workdir">/tmp/scratch\n\`\`\`\n</{D}tool_calls>`));
    expect(r.calls).toEqual([]);
  });
  test("hard negative: a sentinel bar glued to a word is no `<`-lost opener: the call runs", () => {
    const r = sameAtEverySplit(live(`Cleaning.\n<{D}tool_calls>\n${RM}\n</{D}tool_calls>\nSee a{BAR}parameter name="x"> here.\n`));
    expect(r.calls.map((c) => c.input)).toEqual([{ command: "rm -rf ./*" }]);
  });
  test("hard negative: a `<`-lost opener after the block closed does not refuse its call", () => {
    const r = sameAtEverySplit(live(`Cleaning.\n<{D}tool_calls>\n${RM}\n</{D}tool_calls>\nNote:\n{BAR}parameter name="workdir">/tmp\n`));
    expect(r.calls.map((c) => c.input)).toEqual([{ command: "rm -rf ./*" }]);
  });
});

describe("the paragraph costume's next line past inline markup", () => {
  const LEAD = "The agent wraps commands like\n<bash>rm -rf build</bash>\n";
  for (const next of ["<b>In</b> short, done.", "`Done` now.", "[Docs](https://example.com) follow."]) {
    test(`${JSON.stringify(next)}: a new sentence, the costume runs`, () => {
      expect(sameAtEverySplit(LEAD + next).calls.map((c) => c.input)).toEqual([{ command: "rm -rf build" }]);
    });
  }
  test("a chained costume then a capital on its closer's line: the first costume runs (as before)", () => {
    expect(sameAtEverySplit(`${LEAD}<shell>ls</shell> Done.`).calls.map((c) => c.input)).toEqual([{ command: "rm -rf build" }]);
  });
  test("an unknown element is no inline markup: the costume runs", () => {
    expect(sameAtEverySplit(`${LEAD}<foo>in</foo> its replies.`).calls.length).toBeGreaterThan(0);
  });
});

describe("line state across continued parts", () => {
  test("a line ending in a colon in the first part: the costume in the second runs, as in one part", () => {
    const a = "Cleaning up:\n";
    const b = "<bash>rm -rf build</bash>\nin its replies.";
    const one = runEngine(a + b, [], fixtureTools).calls.map((c) => c.input);
    const first = createRepairEngine({ tools: fixtureTools, idPrefix: "call_" });
    [...first.feed(a), ...first.flush()];
    const second = createRepairEngine({ tools: fixtureTools, idPrefix: "call_", continues: first.carryOver!() });
    const calls = [...second.feed(b), ...second.flush()].filter((e) => e.type === "call").map((e) => (e.type === "call" ? e.call.input : null));
    expect(one).toEqual([{ command: "rm -rf build" }]);
    expect(calls).toEqual(one);
  });
});
