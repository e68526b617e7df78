// fx48b (review 48b wires findings 1 and 4): the Responses item_reference store. A repaired message
// inlined drops the reasoning reference right before it (never splits a reasoning/message pair);
// the store is scoped by upstream URL and bounded by characters as well as items.
import { describe, expect, test } from "bun:test";
import { REPAIRED_ITEMS_CHARS, REPAIRED_ITEMS_LIMIT, RepairedItems, itemScope } from "../../src/adapters/repaired-items.ts";
import { spliceJson, spliceJsonBytes } from "../../src/adapters/json-splice.ts";

const msg = (text: string) => ({ type: "message", content: [{ type: "output_text", text }] });
const inline = (text: string) => ({ type: "message", role: "assistant", content: [{ type: "output_text", text }] });
const ref = (id: string) => ({ type: "item_reference", id });
const A = "http://a.test/v1/responses";

/** The body after the store's edits, spliced as text and as bytes (both must agree). */
function applied(items: RepairedItems, input: unknown[], scope = A, space = ""): unknown[] {
  const body = { model: "m", input };
  const text = JSON.stringify(body, null, space);
  const edits = items.edits(body, scope);
  const spliced = spliceJson(text, edits);
  const bytes = spliceJsonBytes(new TextEncoder().encode(text), text, edits);
  expect(bytes).toBeDefined();
  expect(new TextDecoder().decode(bytes!)).toBe(spliced);
  return JSON.parse(spliced).input;
}

describe("a reasoning item and the repaired message it precedes are never split", () => {
  for (const space of ["", "  "]) {
    test(`rs_1 then the repaired msg_1: rs_1 goes, msg_1 inline (spacing ${JSON.stringify(space)})`, () => {
      const items = new RepairedItems();
      items.note("msg_1", msg("Reading. "), A);
      const input = [{ role: "user", content: "go" }, ref("rs_1"), ref("msg_1"), { type: "function_call", call_id: "c", name: "read", arguments: "{}" }];
      expect(applied(items, input, A, space)).toEqual([{ role: "user", content: "go" }, inline("Reading. "), input[3]]);
    });
  }

  test("an inline reasoning item right before the repaired message goes too", () => {
    const items = new RepairedItems();
    items.note("msg_1", msg("Reading. "), A);
    const input = [{ type: "reasoning", id: "rs_1", summary: [] }, ref("msg_1"), { role: "user", content: "next" }];
    expect(applied(items, input)).toEqual([inline("Reading. "), { role: "user", content: "next" }]);
  });

  test("the other order: a reasoning reference AFTER the repaired message (the next reply's) is kept, with its own message", () => {
    const items = new RepairedItems();
    items.note("msg_1", msg("Reading. "), A);
    const input = [ref("msg_1"), ref("rs_2"), ref("msg_2")];
    expect(applied(items, input)).toEqual([inline("Reading. "), ref("rs_2"), ref("msg_2")]);
  });

  test("a clean turn: rs_1 and msg_1 (not repaired) both kept; a repaired message with no reasoning before it drops nothing", () => {
    const items = new RepairedItems();
    items.note("msg_9", msg("Other. "), A);
    expect(applied(items, [ref("rs_1"), ref("msg_1")])).toEqual([ref("rs_1"), ref("msg_1")]);
    expect(applied(items, [{ role: "user", content: "u" }, ref("msg_9")])).toEqual([{ role: "user", content: "u" }, inline("Other. ")]);
  });

  test("spliceJson remove: first, middle and last element, any spacing", () => {
    const text = '{"a": [ 1 ,\n 2 , {"x":[3]} ]}';
    expect(JSON.parse(spliceJson(text, [{ kind: "remove", path: ["a", 0] }]))).toEqual({ a: [2, { x: [3] }] });
    expect(JSON.parse(spliceJson(text, [{ kind: "remove", path: ["a", 1] }]))).toEqual({ a: [1, { x: [3] }] });
    expect(JSON.parse(spliceJson(text, [{ kind: "remove", path: ["a", 2] }]))).toEqual({ a: [1, 2] });
    expect(JSON.parse(spliceJson('{"a":[5]}', [{ kind: "remove", path: ["a", 0] }]))).toEqual({ a: [] });
  });
});

describe("the store's scope and bounds", () => {
  test("an id is resolved only for the same origin and path it came back from", () => {
    const items = new RepairedItems();
    items.note("msg_1", msg("A's text. "), itemScope(A));
    expect(items.edits({ input: [ref("msg_1")] }, itemScope("http://b.test/v1/responses"))).toEqual([]);
    expect(items.edits({ input: [ref("msg_1")] }, itemScope("http://a.test/other/v1/responses"))).toEqual([]);
    expect(items.edits({ input: [ref("msg_1")] }, itemScope("http://a.test/v1/responses?x=1"))).toHaveLength(1);
  });

  test("bounded by characters too: the oldest forgotten first, an item alone over the bound is not kept", () => {
    const items = new RepairedItems();
    const big = "x".repeat(Math.floor(REPAIRED_ITEMS_CHARS / 3));
    for (let i = 0; i < 4; i++) items.note(`msg_${i}`, msg(big), A);
    expect(items.size).toBe(2);
    expect(items.chars).toBeLessThanOrEqual(REPAIRED_ITEMS_CHARS);
    expect(items.edits({ input: [ref("msg_0"), ref("msg_1")] }, A)).toEqual([]);
    expect(items.edits({ input: [ref("msg_3")] }, A)).toHaveLength(1);
    items.note("msg_huge", msg("y".repeat(REPAIRED_ITEMS_CHARS)), A);
    expect(items.edits({ input: [ref("msg_huge")] }, A)).toEqual([]);
    expect(items.size).toBeLessThanOrEqual(REPAIRED_ITEMS_LIMIT);
  });

  test("noting an id again replaces it and counts its characters once", () => {
    const items = new RepairedItems();
    items.note("msg_1", msg("one"), A);
    const once = items.chars;
    items.note("msg_1", msg("two"), A);
    expect(items.chars).toBe(once);
    expect(applied(items, [ref("msg_1")])).toEqual([inline("two")]);
  });
});
