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
});
