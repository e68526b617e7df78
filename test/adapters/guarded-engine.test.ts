import { describe, expect, test } from "bun:test";
import { GuardedEngine } from "../../src/engine/guarded.ts";
import type { RepairEngine } from "../../src/engine/types.ts";
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

describe("GuardedEngine.feed", () => {
  test("returns the engine's events and keeps count of recovered calls, like step()", () => {
    const { guard } = guarded();
    expect(guard.feed("plain ")).toEqual([{ type: "text", text: "plain " }]);
    expect(guard.feed("x <<CALL read")).toEqual([{ type: "text", text: "x " }]);
    expect(guard.held).toBe(11);
    const events = guard.feed(' {"path":"a"}>> y');
    expect(events).toMatchObject([{ type: "call", call: { tool: "read", input: { path: "a" } } }, { type: "text", text: " y" }]);
    expect([guard.held, guard.recovered]).toEqual([0, 1]);
    expect(guard.feed("")).toEqual([]);
  });

  test("a failure hands back exactly the text the engine was holding, across deltas", () => {
    const { guard, errors } = guarded(5);
    for (const delta of ["released ", "again ", "<<CA", "LL read"]) expect(typeof guard.feed(delta)).toBe("object");
    expect(guard.held).toBe(11);
    expect(guard.feed(" more")).toBe("<<CALL read");
    expect([guard.failed, guard.done]).toEqual([true, true]);
    expect(errors).toEqual([expect.stringContaining("stub: feed")]);
    expect(guard.feed("after")).toBe("");
    expect(guard.step({ delta: "after" })).toEqual({ ok: false, held: "" });
  });

  test("released text is forgotten, so a later failure never hands it back twice", () => {
    const { guard } = guarded(4);
    guard.feed("a <<CALL");
    guard.feed(' read {"path":"b"}>> done ');
    guard.feed("<<C");
    expect(guard.feed("ALL")).toBe("<<C");
  });
});

describe("GuardedEngine.step", () => {
  test("a flush failing after its delta was fed (and released what was held) hands back what was held before the step", () => {
    const errors: string[] = [];
    const guard = new GuardedEngine(createStubEngine({ tools, idPrefix: "g" }, { throwOnFlush: true }), (line) => errors.push(line));
    expect(guard.feed("x <<CALL read")).toEqual([{ type: "text", text: "x " }]);
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
    guard.feed("x <<CALL");
    expect(guard.feed(" read")).toBe("");
    expect(errors).toEqual([expect.stringContaining("stub: feed"), expect.stringContaining("could not hand back the 6 characters")]);
  });
});

describe("GuardedEngine.passes", () => {
  test("true only for a delta the engine let through with nothing held; an engine without passes() always says false", () => {
    const { guard } = guarded();
    // The stub has no passes(): every delta goes the feed() way.
    expect(guard.passes("plain ")).toBe(false);
  });

  test("a throwing passes() costs nothing: feed() then meets the fault and hands back what was held", () => {
    const { guard, errors } = guarded(2, (engine) => {
      engine.passes = () => {
        throw new Error("passes broke");
      };
    });
    expect(guard.feed("x <<CA")).toEqual([{ type: "text", text: "x " }]);
    expect(guard.passes("LL read")).toBe(false);
    expect(guard.feed("LL read")).toBe("<<CA");
    expect(guard.done).toBe(true);
    expect(guard.passes("more")).toBe(false);
    expect(errors).toHaveLength(1);
  });

  test("a passes() that throws with nothing held is a parser bug like any other: one debug line, then passthrough", () => {
    const { guard, errors } = guarded(undefined, (engine) => {
      engine.passes = () => {
        throw new Error("passes broke");
      };
    });
    expect(guard.feed("x ")).toEqual([{ type: "text", text: "x " }]);
    expect(guard.passes("plain")).toBe(false);
    expect([guard.failed, guard.done]).toEqual([true, true]);
    // The caller's feed() gets the failure (nothing held to hand back) and passes its delta on.
    expect(guard.feed("plain")).toBe("");
    expect(errors).toEqual([expect.stringContaining("passes broke")]);
  });
});
