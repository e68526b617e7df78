/**
 * Fixer fx52-diff (review 52 diff review, findings 1-3): after a lone closer line that ended an OPEN
 * value (P01) the run after the call holds everything until a closer of the value that closes
 * nothing (refused whole, text kept) or the reply's end / bufferLimit (the cut call runs as P01
 * did, the rest read again). Hard negatives for that hold, its bound, and its work (linear: a
 * run that proved nothing is not held again by a later cut value, and the walk reads one run a span).
 * Outcomes run whole, char by char and at seeded random splits (test/support/outcome.ts).
 */
import { describe, expect, test } from "bun:test";
import { createRepairEngine } from "../../src/engine/engine.ts";
import { parse } from "../../src/engine/parse.ts";
import { live } from "../golden/notation.ts";
import { fixtureTools } from "../golden/tools.ts";
import { outcome } from "../support/outcome.ts";
import { randomCuts } from "../support/run-engine.ts";
import { countWork } from "../support/work.ts";

const P = (k: string, v: string) => `<{D}parameter name="${k}" string="true">${v}</{D}parameter>`;
const inv = (tool: string, ...params: string[]) => `<{D}invoke name="${tool}">\n${params.join("\n")}\n</{D}invoke>`;
const head = `<{D}tool_calls>\n<{D}invoke name="write">\n${P("filePath", "docs/dsml.md")}\n<{D}parameter name="content" string="true">`;
const tail = "</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>";
/** A bash call whose parameter closer is missing (P01: the lone invoke closer line ends the value). */
const cutBash = (cmd: string) => `<{D}tool_calls>\n<{D}invoke name="bash">\n<{D}parameter name="command" string="true">${cmd}\n</{D}invoke>\n</{D}tool_calls>\n`;

function refusedWhole(page: string) {
  const input = live(`${head}${page}${tail}`);
  const o = outcome(input);
  expect(o.calls).toEqual([]);
  expect(o.broken).toContain("broken-markup");
  expect(o.text).toBe(input);
}

describe("the run after a cut value is refused whole by the write's own closer", () => {
  test("a whole invoke of the page, then a block closer line and prose: nothing of the page runs", () => {
    refusedWhole(`Ends with\n</{D}invoke>\nfor example\n${inv("read", P("filePath", "/b"))}\n</{D}tool_calls>\nand the block is done.\n`);
  });
  test("the page's own parameter, opened and closed in the prose: the write's closer still closes nothing", () => {
    refusedWhole(`Ends with\n</{D}invoke>\nA value is <{D}parameter name="x">v</{D}parameter> in a call.\n`);
  });
  test("a Qwen3-Coder example in the page: refused, nothing runs", () => {
    refusedWhole(`Ends with\n</{D}invoke>\nQwen writes\n<function=bash>\n<parameter=command>\nls\n</parameter>\n</function>\nlike that.\n`);
  });
});

describe("the cut call still runs when nothing refuses it (hard negatives)", () => {
  const bash = { tool: "bash", input: { command: "ls" } };
  test("prose with markup, a bare `<` and a block closer line, to the end: it runs", () => {
    const o = outcome(live(`${cutBash("ls")}Now <b>this</b> and if a < b then\n</{D}tool_calls>\ndone.`));
    expect(o.calls).toEqual([bash]);
  });
  test("a mention of the parameter closer in running text, to the end: it runs", () => {
    const o = outcome(live(`${cutBash("ls")}Note: </{D}parameter> ends a value, I forgot it.`));
    expect(o.calls).toEqual([bash]);
  });
  test("a further block whose call misses its parameter closer too: both run", () => {
    const o = outcome(live(`${cutBash("ls")}Then:\n${cutBash("pwd")}Done.`));
    expect(o.calls).toEqual([bash, { tool: "bash", input: { command: "pwd" } }]);
  });
  test("three cut calls with prose between: all run, in order", () => {
    const o = outcome(live(`${cutBash("a")}x\n${cutBash("b")}y\n${cutBash("c")}z`));
    expect(o.calls.map((c) => c.input.command)).toEqual(["a", "b", "c"]);
  });
});

describe("the hold is bounded by bufferLimit", () => {
  test("a stray closer past the limit proves nothing: the cut call runs (at every split)", () => {
    const input = live(`${cutBash("ls")}${"Long prose. ".repeat(40)}\n</{D}parameter>\n`);
    for (const seed of [1, 2, 3]) {
      const engine = createRepairEngine({ tools: fixtureTools, bufferLimit: 200, idPrefix: "call_" });
      let at = 0;
      const events = [];
      for (const cut of [...randomCuts(input.length, seed), input.length]) {
        events.push(...engine.feed(input.slice(at, cut)));
        at = cut;
      }
      events.push(...engine.flush());
      const calls = events.filter((e) => e.type === "call");
      expect(calls.length).toBe(1);
    }
  });
  test("within the limit the same stray closer refuses it", () => {
    const input = live(`${cutBash("ls")}${"Long prose. ".repeat(40)}\n</{D}parameter>\n`);
    expect(outcome(input).calls).toEqual([]);
  });
});

describe("the hold is linear", () => {
  const perChar = (text: string) => countWork(() => void parse(text, fixtureTools)) / text.length;
  const streamed = (text: string) =>
    countWork(() => {
      const engine = createRepairEngine({ tools: fixtureTools, idPrefix: "call_" });
      let at = 0;
      for (const cut of [...randomCuts(text.length, 7), text.length]) {
        engine.feed(text.slice(at, cut));
        at = cut;
      }
      engine.flush();
    }) / text.length;
  const unit = live(`${cutBash("ls")}Let me look at the listing, then <b>think</b> if a < b.\n</{D}tool_calls>\n`);
  test("many cut calls with prose: work per character does not grow with their number", () => {
    for (const read of [perChar, streamed]) {
      const small = read(unit.repeat(50));
      const large = read(unit.repeat(400));
      expect(large).toBeLessThan(small * 1.5 + 4);
    }
  });
  test("many cut calls, then one stray closer that refuses them all: the same", () => {
    const stray = live("</{D}parameter>\n");
    for (const read of [perChar, streamed]) {
      const small = read(unit.repeat(50) + stray);
      const large = read(unit.repeat(400) + stray);
      expect(large).toBeLessThan(small * 1.5 + 4);
    }
    expect(parse(unit.repeat(20) + stray, fixtureTools).calls).toEqual([]);
  });
});
