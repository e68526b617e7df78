import { describe, expect, test } from "bun:test";
import { GuardedEngine } from "../../src/engine/guarded.ts";
import type { EngineEvent, RepairEngine } from "../../src/engine/types.ts";
import { createStubEngine } from "./stub-engine.ts";

const tools = [{ name: "read" }];

/** A guard over the stub engine, failing on the given feed; `patch` may break one of the engine's methods first. */
function guarded(throwOnFeed?: number, patch?: (engine: RepairEngine) => void) {
  const errors: string[] = [];
  const engine = createStubEngine({ tools, idPrefix: "g" }, { throwOnFeed });
  patch?.(engine);
  const guard = new GuardedEngine(engine, (line) => errors.push(line));
  return { guard, errors };
}

/** step({ delta }) read the way these cases were written: the events, or on failure the text handed back. */
function feed(guard: GuardedEngine, delta: string): EngineEvent[] | string {
  const step = guard.step({ delta });
  return step.ok ? step.events : step.held;
}

describe("GuardedEngine.step({ delta })", () => {
  test("returns the engine's events and keeps count of recovered calls, like step()", () => {
    const { guard } = guarded();
    expect(feed(guard, "plain ")).toEqual([{ type: "text", text: "plain " }]);
    expect(feed(guard, "x <<CALL read")).toEqual([{ type: "text", text: "x " }]);
    expect(guard.held).toBe(11);
    const events = feed(guard, ' {"path":"a"}>> y');
    expect(events).toMatchObject([{ type: "call", call: { tool: "read", input: { path: "a" } } }, { type: "text", text: " y" }]);
    expect([guard.held, guard.recovered]).toEqual([0, 1]);
    expect(feed(guard, "")).toEqual([]);
  });

  test("a failure hands back exactly the text the engine was holding, across deltas", () => {
    const { guard, errors } = guarded(5);
    for (const delta of ["released ", "again ", "<<CA", "LL read"]) expect(typeof feed(guard, delta)).toBe("object");
    expect(guard.held).toBe(11);
    expect(feed(guard, " more")).toBe("<<CALL read");
    expect([guard.failed, guard.done]).toEqual([true, true]);
    expect(errors).toEqual([expect.stringContaining("stub: feed")]);
    expect(feed(guard, "after")).toBe("");
    expect(guard.step({ delta: "after" })).toEqual({ ok: false, held: "" });
  });

  test("released text is forgotten, so a later failure never hands it back twice", () => {
    const { guard } = guarded(4);
    feed(guard, "a <<CALL");
    feed(guard, ' read {"path":"b"}>> done ');
    feed(guard, "<<C");
    expect(feed(guard, "ALL")).toBe("<<C");
  });
});

describe("GuardedEngine.step", () => {
  test("a flush failing after its delta was fed (and released what was held) hands back what was held before the step", () => {
    const errors: string[] = [];
    const guard = new GuardedEngine(createStubEngine({ tools, idPrefix: "g" }, { throwOnFlush: true }), (line) => errors.push(line));
    expect(feed(guard, "x <<CALL read")).toEqual([{ type: "text", text: "x " }]);
    // The delta completes the call, so the engine no longer holds "<<CALL read" when flush() fails.
    expect(guard.step({ delta: ' {"path":"a"}>> y', flush: true })).toEqual({ ok: false, held: "<<CALL read" });
    expect(errors).toEqual([expect.stringContaining("stub: flush")]);
    expect(guard.recovered).toBe(0);
  });

  test("an engine that cannot hand back what it held is reported, not thrown into the host", () => {
    const { guard, errors } = guarded(2, (engine) => {
      engine.heldText = () => {
        throw new RangeError("gone");
      };
    });
    feed(guard, "x <<CALL");
    expect(feed(guard, " read")).toBe("");
    expect(errors).toEqual([expect.stringContaining("stub: feed"), expect.stringContaining("could not hand back the 6 characters")]);
  });
});

describe("GuardedEngine.stop()", () => {
  test("hands back what the engine held, as fed, and reads nothing more; the calls it made stand", () => {
    const { guard, errors } = guarded();
    expect(feed(guard, '<<CALL read {"path":"a"}>> then <<CA')).toMatchObject([{ type: "call" }, { type: "text", text: " then " }]);
    expect(feed(guard, "LL read")).toEqual([]);
    expect(guard.stop()).toBe("<<CALL read");
    expect([guard.done, guard.failed, guard.held, guard.recovered]).toEqual([true, false, 0, 1]);
    expect(guard.step({ delta: "more", flush: true })).toEqual({ ok: false, held: "" });
    expect(guard.carryOver()).toBeUndefined();
    expect(guard.summary()?.recovered).toBe(1);
    expect(guard.stop()).toBe("");
    expect(errors).toEqual([]);
  });
});
