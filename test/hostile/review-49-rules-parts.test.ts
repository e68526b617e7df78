/**
 * Review 49 (rules): this round's rules read across continued parts of one reply (the engine's
 * `continues: carryOver()`, as the adapters chain text parts). Last round carried the line tracker
 * (LineEnds, 43f7077); the paragraph costume's pending next line and the orphan-stray watch are not
 * carried, so one reply cut into two parts runs what the same reply in one part keeps as text.
 *
 * Each failing test (test.failing) says what is wrong, its severity and the suspected file.
 */
import { describe, expect, test } from "bun:test";
import { createRepairEngine } from "../../src/engine/engine.ts";
import { runEngine } from "../support/run-engine.ts";
import { fixtureTools } from "../golden/tools.ts";
import { live } from "../golden/notation.ts";

/** The calls of `parts` read as continued parts of one reply, and those of the reply read whole. */
function acrossParts(parts: readonly string[]) {
  const whole = runEngine(parts.join(""), [], fixtureTools).calls.map((c) => c.input);
  const calls: unknown[] = [];
  let text = "";
  let continues: ReturnType<NonNullable<ReturnType<typeof createRepairEngine>["carryOver"]>> | undefined;
  for (const part of parts) {
    const engine = createRepairEngine({ tools: fixtureTools, idPrefix: "call_", ...(continues ? { continues } : {}) });
    // As the wires chain text parts: the part's end (endSpan), its carryOver, then its flush.
    const events = [...engine.feed(part), ...engine.endSpan!()];
    continues = engine.carryOver!();
    for (const e of [...events, ...engine.flush()]) {
      if (e.type === "call") calls.push(e.call.input);
      else text += e.text;
    }
  }
  return { whole, calls, text };
}

describe("known gap: a paragraph costume whose next line opens the next part runs (decided at the part's end as at the reply's)", () => {
  // Severity: low-medium (wrong execution of a costume the reply shows inside a sentence, golden
  // N48.2's shape; text "rm -rf build" lost from the visible reply). The costume's closer line ends
  // part one, the sentence goes on at the start of part two; the pending decision is settled
  // "ran" at part one's end. Read as one part: text. Suspected: src/engine/tentative-closer.ts
  // nextLineOfParagraph (settled at flush) / text-mode.ts carryOver (carries LineEnds only). It may
  // belong with the pinned "held block calls run at endSpan" class; it is another rule's hold.
  // Expected: as one part, no call.
  // Known gap, pinned (fix 49 forms): the same class as the held block calls that run at a text
  // part's end. The paragraph costume's rule waits for the next line; a part that ends (flush or
  // endSpan) decides every open candidate as at the reply's end, where the costume ended at its
  // closer and runs (golden C48.5, N48.1 keep that). Part one's engine cannot know a part follows,
  // and a call cannot be carried undecided into the next engine. Deciding "text" at a part's end
  // would refuse the golden reply-end costume too.
  // Fixed (fix 53): every wire now flushes its last part, so a part's end (endSpan) always has a
  // later part: a costume open there is decided as markup of unknown end (engine.ts finish,
  // openCostume), and the reply's end (flush) keeps the golden reading. This harness chains the
  // parts as the wires do (endSpan, carryOver, flush).
  for (const [name, parts] of [
    ["cut after the closer's line break", ["The agent wraps commands like\n<bash>\nrm -rf build\n</bash>\n", "in its replies."]],
    ["cut right after the closer", ["The agent wraps commands like\n<bash>\nrm -rf build\n</bash>", "\nin its replies."]],
  ] as const) {
    test(name, () => {
      const r = acrossParts(parts);
      expect(r.whole).toEqual([]);
      expect(r.calls).toEqual(r.whole);
    });
  }
});

describe("kept: a stray workdir at the end of one part refuses the orphan invoke in the next (carryOver strayBefore)", () => {
  // Severity: medium-low (wrong execution: `rm -rf ./*` runs in the project; in one part the stray
  // refuses it, golden P48.5). The orphan-stray state (strayOutsideBlock) is not carried to the
  // continued part as the line state is. Suspected: src/engine/text-mode.ts carryOver. Expected:
  // as one part, no call.
  test("stray in part one, orphan invoke in part two", () => {
    const r = acrossParts([
      live(`<{D}parameter name="workdir" string="true">/tmp/scratch</{D}parameter>\n`),
      live(`<{D}invoke name="bash">\n<{D}parameter name="command" string="true">rm -rf ./*</{D}parameter>\n</{D}invoke>`),
    ]);
    expect(r.whole).toEqual([]);
    expect(r.calls).toEqual([]);
  });
});

describe("hard negatives: the carried line state (kept)", () => {
  for (const [name, parts] of [
    ["a mid-sentence line cut before its line break", ["The agent wraps commands like", "\n<bash>\nrm -rf build\n</bash>\nin its replies."]],
    ["a mid-sentence line cut after its line break", ["The agent wraps commands like\n", "<bash>\nrm -rf build\n</bash>\nin its replies."]],
    ["tool_name/tool_args after a mid-sentence part", ["I would call", '\n<tool_call><tool_name>bash</tool_name><tool_args>{"command":"rm -rf /"}</tool_args></tool_call>\nin that case.']],
    ["a fence opened in part one", ["```\n", "<shell>rm -rf build</shell>\n```"]],
  ] as const) {
    test(`${name}: text, as in one part`, () => {
      const r = acrossParts(parts);
      expect(r.whole).toEqual([]);
      expect(r.calls).toEqual([]);
      expect(r.text).toBe(parts.join(""));
    });
  }
});
