// engine.passes(delta) is feed(delta) for a delta released whole and unchanged, without building
// its event. Differential: an engine asked passes() first, feed() only when it says false, must
// give the same text, calls and summary as one only ever fed.
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { createRepairEngine } from "../../src/engine/engine.ts";
import type { EngineEvent } from "../../src/engine/types.ts";
import { fixtureTools } from "../golden/tools.ts";
import { cutReply, replyText } from "../property/arbitraries.ts";

function run(input: string, cuts: readonly number[], askFirst: boolean) {
  const engine = createRepairEngine({ tools: fixtureTools, idPrefix: "p_" });
  const events: EngineEvent[] = [];
  let passed = 0;
  let prev = 0;
  for (const cut of [...cuts, input.length]) {
    const delta = input.slice(prev, cut);
    prev = cut;
    if (askFirst && engine.passes!(delta)) {
      passed++;
      events.push({ type: "text", text: delta });
      expect(engine.held).toBe(0);
    } else events.push(...engine.feed(delta));
  }
  events.push(...engine.flush());
  let text = "";
  const calls: unknown[] = [];
  for (const event of events) {
    if (event.type === "text") text += event.text;
    else calls.push({ tool: event.call.tool, input: event.call.input, at: text.length });
  }
  return { text, calls, summary: engine.summary(), passed };
}

describe("engine.passes", () => {
  test("differential on random replies and cuts: asking passes() first changes nothing a caller sees", () => {
    let passedSomewhere = 0;
    fc.assert(
      fc.property(cutReply(replyText()), ({ input, cuts }) => {
        const fed = run(input, cuts, false);
        const asked = run(input, cuts, true);
        expect(asked.text).toBe(fed.text);
        expect(asked.calls).toEqual(fed.calls);
        expect(asked.summary).toEqual(fed.summary);
        if (asked.passed > 0) passedSomewhere++;
      }),
      { seed: 1414, numRuns: 500 },
    );
    // The shortcut was taken, not merely never asked.
    expect(passedSomewhere).toBeGreaterThan(100);
  });

  test("never takes what could start markup, a line or a held span", () => {
    const engine = createRepairEngine({ tools: fixtureTools, idPrefix: "p_" });
    // A line's start may open a costume or a fence: the first delta is always read.
    expect(engine.passes!("Hello ")).toBe(false);
    engine.feed("Hello ");
    expect(engine.passes!("plain words ")).toBe(true);
    expect(engine.passes!("")).toBe(false);
    for (const delta of ["a <b", "x | y", "new\nline", "`code`", "[TOOL"]) expect(engine.passes!(delta)).toBe(false);
    engine.feed("then <");
    expect(engine.held).toBe(1);
    expect(engine.passes!("plain")).toBe(false);
    engine.flush();
    expect(engine.passes!("after")).toBe(false);
  });
});
