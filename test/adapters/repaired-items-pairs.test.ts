// The Responses item store (src/adapters/repaired-items.ts): which references go up inline, and
// which go up as the client sent them. A reasoning item goes with an inlined repaired message only
// when nothing else of that reply still goes up by its server id (OpenAI refuses such an item
// without its reasoning, and the reasoning without its following item); an id a reply gives again
// forgets what was noted under it; a message kept only for reading (shown) is never inlined.
import { describe, expect, test } from "bun:test";
import { RepairedItems } from "../../src/adapters/repaired-items.ts";
import { spliceJson } from "../../src/adapters/json-splice.ts";

const msg = (text: string) => ({ type: "message", content: [{ type: "output_text", text }] });
const inline = (text: string) => ({ type: "message", role: "assistant", content: [{ type: "output_text", text }] });
const ref = (id: string) => ({ type: "item_reference", id });
const A = "http://a.test/v1/responses";
const user = { role: "user", content: "go" };
const fcInline = { type: "function_call", call_id: "c", name: "read", arguments: "{}" };
const fcOut = { type: "function_call_output", call_id: "c", output: "x" };

function applied(items: RepairedItems, input: unknown[]): unknown[] {
  const body = { model: "m", input };
  return JSON.parse(spliceJson(JSON.stringify(body), items.edits(body, A))).input;
}

function store(): RepairedItems {
  const items = new RepairedItems();
  items.note("msg_1", msg("Reading. "), A);
  items.note("msg_2", msg("And more. "), A);
  return items;
}

describe("a repaired message between its reasoning and more of the same reply", () => {
  const asSent: [string, unknown[]][] = [
    ["a native fc_ by reference", [user, ref("rs_1"), ref("msg_1"), ref("fc_1"), fcOut]],
    ["a function_call inline with its server id", [user, ref("rs_1"), ref("msg_1"), { ...fcInline, id: "fc_1" }, fcOut]],
    ["a clean message of the reply by reference", [user, ref("rs_1"), ref("msg_1"), ref("msg_9")]],
    ["a server tool's call by reference", [user, ref("rs_1"), ref("msg_1"), ref("mcp_1"), user]],
  ];
  for (const [name, input] of asSent) {
    test(`${name} after it: the reasoning is kept and the message goes up as sent`, () => {
      expect(applied(store(), input)).toEqual(input);
    });
  }

  test("a later repaired message of the reply, not right after the reasoning, is inlined: it has no id to pair", () => {
    expect(applied(store(), [user, ref("rs_1"), ref("msg_1"), ref("mcp_1"), ref("msg_2")])).toEqual([user, ref("rs_1"), ref("msg_1"), ref("mcp_1"), inline("And more. ")]);
  });

  test("only a function_call inline without an id after it: the reasoning goes, the message inline", () => {
    expect(applied(store(), [user, ref("rs_1"), ref("msg_1"), fcInline, fcOut])).toEqual([user, inline("Reading. "), fcInline, fcOut]);
  });

  test("another repaired message of the reply after it: both inline, the reasoning goes", () => {
    expect(applied(store(), [user, ref("rs_1"), ref("msg_1"), ref("msg_2"), user])).toEqual([user, inline("Reading. "), inline("And more. "), user]);
  });

  test("items by id after the reply ended (a user turn, a tool output, the next reasoning) pair with their own reasoning", () => {
    expect(applied(store(), [user, ref("rs_1"), ref("msg_1"), user, ref("rs_2"), ref("fc_2")])).toEqual([user, inline("Reading. "), user, ref("rs_2"), ref("fc_2")]);
    expect(applied(store(), [user, ref("rs_1"), ref("msg_1"), ref("rs_2"), ref("fc_2")])).toEqual([user, inline("Reading. "), ref("rs_2"), ref("fc_2")]);
    expect(applied(store(), [user, ref("rs_1"), ref("msg_1"), fcInline, fcOut, ref("fc_2")])).toEqual([user, inline("Reading. "), fcInline, fcOut, ref("fc_2")]);
  });
});

describe("what the store holds under an id", () => {
  test("an id a reply gives again unchanged (seen) is forgotten: the reference goes up as sent", () => {
    const items = store();
    items.seen("msg_1", A);
    expect(applied(items, [user, ref("msg_1")])).toEqual([user, ref("msg_1")]);
    expect(items.resolve("msg_1", A)).toBeUndefined();
    expect(items.resolve("msg_2", A)).toEqual(inline("And more. "));
  });

  test("a message kept for reading (shown) resolves but is never inlined; a repaired one of the same id wins", () => {
    const items = new RepairedItems();
    items.shown("msg_5", msg(`Broken <tool_call>{"name":"read"}</tool_call>`), A);
    expect(items.resolve("msg_5", A)).toEqual(inline(`Broken <tool_call>{"name":"read"}</tool_call>`));
    expect(applied(items, [user, ref("rs_5"), ref("msg_5")])).toEqual([user, ref("rs_5"), ref("msg_5")]);
    items.note("msg_6", msg("Fixed. "), A);
    items.shown("msg_6", msg("Fixed. "), A);
    expect(applied(items, [user, ref("msg_6")])).toEqual([user, inline("Fixed. ")]);
    // Another scope's ids are its own.
    expect(items.resolve("msg_5", "http://b.test/v1/responses")).toBeUndefined();
  });
});
