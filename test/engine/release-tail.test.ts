/**
 * RepairEngine.releaseTail: a caller that can wait no longer for the reply's end (a Responses
 * stream that kept a part's closing events back past its bound) releases the text held after a
 * recovered call as text, the call standing; the hard negative is flush() stripping the same text
 * as a fabricated result. Through GuardedEngine.step({ releaseTail }) as the wire calls it.
 */
import { describe, expect, test } from "bun:test";
import { createRepairEngine } from "../../src/engine/engine.ts";
import { GuardedEngine } from "../../src/engine/guarded.ts";
import { textAndCalls } from "../../src/engine/events.ts";
import { block, live } from "../golden/notation.ts";

const tools = [{ name: "read", parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] } }];
const TEXT = `Reading:\n${live(block("tool_calls", [["read", [["path", "a.ts"]]]]))}\nThe file says hello.`;

function run(release: boolean) {
  const guard = new GuardedEngine(createRepairEngine({ tools, idPrefix: "t_", maxCalls: 1 }), () => {});
  const events = [];
  for (let at = 0; at < TEXT.length; at += 4) {
    const step = guard.step({ delta: TEXT.slice(at, at + 4) });
    if (step.ok) events.push(...step.events);
  }
  const ended = guard.step({ endSpan: true });
  if (ended.ok) events.push(...ended.events);
  const heldAfterSpan = guard.held;
  if (release) {
    const step = guard.step({ releaseTail: true });
    if (step.ok) events.push(...step.events);
  }
  const heldBeforeFlush = guard.held;
  const flushed = guard.step({ flush: true });
  if (flushed.ok) events.push(...flushed.events);
  const { text, calls } = textAndCalls(events);
  return { text, calls: calls.map((c) => c.input), heldAfterSpan, heldBeforeFlush, stripped: guard.summary()!.stripped.map((s) => s.kind) };
}

describe("releaseTail", () => {
  test("the text held after a recovered call goes out as text, the call stands; flush alone strips it", () => {
    const released = run(true);
    expect(released.heldAfterSpan).toBe("\nThe file says hello.".length);
    expect(released.heldBeforeFlush).toBe(0);
    expect(released.text).toBe("Reading:\n\nThe file says hello.");
    expect(released.calls).toEqual([{ path: "a.ts" }]);
    expect(released.stripped).not.toContain("fabricated-result");
    const stripped = run(false);
    expect(stripped.text).toBe("Reading:\n");
    expect(stripped.calls).toEqual([{ path: "a.ts" }]);
    expect(stripped.stripped).toContain("fabricated-result");
  });
});
