// The unit the streamed wires and the middleware's stream share for a native call that may repeat
// a recovered call already sent (src/wires/held-native.ts): when it holds, its bounds, drop vs
// release, and the stand-aside.
import { describe, expect, test } from "bun:test";
import type { RecoveredCall } from "../../src/parse/types.ts";
import { HeldNative } from "../../src/wires/held-native.ts";
import { HELD_NATIVE_CHARS, HELD_NATIVE_EVENTS } from "../../src/wires/sent-calls.ts";

function recovered(tool: string, input: Record<string, unknown>): RecoveredCall {
  return { id: `call_${tool}`, tool, input, span: [0, 1], shape: "D01" };
}

describe("HeldNative", () => {
  test("holds only a call whose tool a recovered call sent has", () => {
    const held = new HeldNative<string>();
    expect(held.mayRepeat("read")).toBe(false);
    held.add(recovered("read", { path: "a" }));
    expect(held.mayRepeat("read")).toBe(true);
    expect(held.mayRepeat("write")).toBe(false);
    expect(held.mayRepeat(undefined)).toBe(false);
    expect(held.holding).toBe(false);
  });

  test("a complete call that repeats one sent is dropped, once; the same call again is released", () => {
    const held = new HeldNative<string>();
    held.add(recovered("read", { path: "a", n: 1 }));
    held.hold(0, "read", "start");
    expect(held.part("delta", '{"n":1,')).toBe(true);
    expect(held.part("delta2", '"path":"a"}')).toBe(true);
    // Key order aside, the same input: dropped, nothing held any more.
    expect(held.complete(held.call!.args, "stop")).toBe(true);
    expect(held.holding).toBe(false);
    expect(held.release()).toBeUndefined();
    // The sent call is used up: the same native call a second time goes out, with its end.
    held.hold(1, "read", "start");
    expect(held.mayRepeat("read")).toBe(false);
    expect(held.complete('{"path":"a","n":1}', "stop")).toBe(false);
    const out = held.release()!;
    expect(out.events).toEqual(["start", "stop"]);
    expect(out.id).toBe(1);
    expect(held.holding).toBe(false);
  });

  test("other input, or input that is not JSON, is released with every event in order", () => {
    const held = new HeldNative<string>();
    held.add(recovered("read", { path: "a" }));
    held.hold("id", "read", "s", '{"path":');
    held.part("d", '"b"}');
    expect(held.complete(held.call!.args, "e")).toBe(false);
    expect(held.release()!.events).toEqual(["s", "d", "e"]);
    held.hold("id2", "read", "s");
    expect(held.complete("{not json")).toBe(false);
    expect(held.release()!.events).toEqual(["s"]);
    // The sent call was never used up: it still drops its repeat.
    expect(held.repeats("read", { path: "a" })).toBe(true);
    expect(held.repeats("read", { path: "a" })).toBe(false);
  });

  test("arguments past HELD_NATIVE_CHARS end the hold; exactly at the bound it still holds", () => {
    const held = new HeldNative<string>();
    held.add(recovered("read", { path: "a" }));
    held.hold(0, "read", "s", "x".repeat(HELD_NATIVE_CHARS - 1));
    expect(held.part("d", "x")).toBe(true);
    expect(held.call!.args.length).toBe(HELD_NATIVE_CHARS);
    expect(held.part("d", "x")).toBe(false);
    expect(held.release()!.events).toEqual(["s", "d", "d"]);
  });

  test("more than HELD_NATIVE_EVENTS events end the hold, counted whether kept or not", () => {
    const held = new HeldNative<number>();
    held.add(recovered("read", { path: "a" }));
    held.hold(0, "read", 0);
    let stillHeld = true;
    for (let n = 1; n < HELD_NATIVE_EVENTS; n++) stillHeld &&= held.part(undefined, "");
    expect(stillHeld).toBe(true);
    expect(held.call!.count).toBe(HELD_NATIVE_EVENTS);
    expect(held.part(HELD_NATIVE_EVENTS)).toBe(false);
    // Only the first and the kept one are there: what is not kept, the wire sends otherwise.
    expect(held.release()!.events).toEqual([0, HELD_NATIVE_EVENTS]);
  });

  test("a hold without its first event starts at no events", () => {
    const held = new HeldNative<string>();
    held.add(recovered("read", { path: "a" }));
    held.hold(3, "read");
    expect(held.call!.events).toEqual([]);
    expect(held.call!.count).toBe(0);
    held.part("added");
    expect(held.call!.count).toBe(1);
  });

  test("stop releases what is held and holds nothing more", () => {
    const held = new HeldNative<string>();
    held.add(recovered("read", { path: "a" }));
    held.hold(0, "read", "s");
    expect(held.stop()!.events).toEqual(["s"]);
    expect(held.holding).toBe(false);
    expect(held.mayRepeat("read")).toBe(false);
    expect(held.stop()).toBeUndefined();
  });

  test("several calls held by id: each decided alone, in the order held", () => {
    const held = new HeldNative<string>();
    held.add(recovered("read", { path: "a" }));
    held.hold("x", "read", "x0", '{"path":');
    held.hold("y", "read", "y0", '{"path":"z"}');
    expect(held.call!.id).toBe("x");
    expect(held.get("y")!.events).toEqual(["y0"]);
    // The other one's input first: not a repeat, released alone; the first still held.
    expect(held.complete(held.get("y")!.args, "y1", "y")).toBe(false);
    expect(held.release("y")!.events).toEqual(["y0", "y1"]);
    expect(held.holding).toBe(true);
    expect(held.part("x1", '"a"}', "x")).toBe(true);
    expect(held.complete(held.get("x")!.args, undefined, "x")).toBe(true);
    expect(held.holding).toBe(false);
  });

  test("the bounds count every call held together, and a call decided gives its share back", () => {
    const held = new HeldNative<string>();
    held.add(recovered("read", { path: "a" }));
    const half = Math.floor(HELD_NATIVE_CHARS / 2);
    held.hold("x", "read", "x0", "x".repeat(half));
    held.hold("y", "read", "y0", "y".repeat(HELD_NATIVE_CHARS - half - 1));
    expect(held.part("x1", "x", "x")).toBe(true);
    expect(held.part("y1", "y", "y")).toBe(false);
    held.release("x");
    held.hold("z", "read", "z0");
    expect(held.part("z1", "z", "z")).toBe(true);
    expect(held.releaseAll().map((call) => call.id)).toEqual(["y", "z"]);
    expect(held.holding).toBe(false);
  });

  test("a call not named yet may repeat while a sent call is unmatched; named later, it is compared", () => {
    const held = new HeldNative<string>();
    expect(held.mayRepeatUnnamed()).toBe(false);
    held.add(recovered("read", { path: "a" }));
    expect(held.mayRepeatUnnamed()).toBe(true);
    held.hold(0, undefined, "first", '{"path":"a"}');
    // Unnamed: never taken for a repeat.
    expect(held.settle().released.map((call) => call.id)).toEqual([0]);
    held.hold(1, undefined, "first", '{"path":"a"}');
    held.get(1)!.tool = "read";
    expect(held.complete(held.get(1)!.args, undefined, 1)).toBe(true);
    expect(held.mayRepeatUnnamed()).toBe(false);
  });

  test("settle: a call whose input so far is complete JSON repeating a sent call is dropped, any other released", () => {
    const held = new HeldNative<string>();
    held.add(recovered("read", { path: "a" }));
    held.add(recovered("now", {}));
    held.hold("half", "read", "h", '{"path":');
    held.hold("whole", "read", "w", '{"path":"a"}');
    held.hold("empty", "now", "e", "");
    const { released, dropped } = held.settle();
    expect(released.map((call) => call.id)).toEqual(["half"]);
    // An empty argument text is the empty object, as the client reads it.
    expect(dropped.map((call) => call.id)).toEqual(["whole", "empty"]);
    expect(held.holding).toBe(false);
    // A wire's own reading of the input.
    held.add(recovered("read", { path: "b" }));
    held.hold("own", "read", "o");
    expect(held.settle(() => ({ path: "b" })).dropped.map((call) => call.id)).toEqual(["own"]);
  });

  test("settleOne decides one call; stopAll settles and holds nothing more", () => {
    const held = new HeldNative<string>();
    held.add(recovered("read", { path: "a" }));
    held.add(recovered("read", { path: "b" }));
    held.hold("x", "read", "x0", '{"path":"a"}');
    held.hold("y", "read", "y0", '{"path":"b"}');
    expect(held.settleOne("x").dropped.map((call) => call.id)).toEqual(["x"]);
    expect(held.settleOne("x")).toEqual({ released: [], dropped: [] });
    expect(held.stopAll().dropped.map((call) => call.id)).toEqual(["y"]);
    expect(held.mayRepeatUnnamed()).toBe(false);
    expect(held.holding).toBe(false);
  });
});
