// Fixer 48 (native): the rules chosen for review 48's native-call findings, pinned beside the
// reviewers' tests (review-48-rules-native, review-48-wires-anthropic, review-48-wires-responses).
// - A native call when the engine still holds recovered calls (a block's, waiting for its closer):
//   they were never sent, so they are the native call's duplicates (D08, as the JSON path strips
//   every leak beside a native call): the native call runs, once, with its own id and index; the
//   held leak never runs, even when it reads another file. The text after the leak stays visible.
// - A native call after calls already sent: the text held after them (S03) shows (another call follows).
// - Anthropic: a held text block start opens only with text; a citations_delta waits with it.
// - Responses: an item_reference to a message item the repair changed goes up inline, as it went out.
// DSML is built from test/golden/notation.ts (no marker bytes here).
import { describe, expect, test } from "bun:test";
import { createOpenAI } from "@ai-sdk/openai";
import { live } from "../golden/notation.ts";
import { repairFetch } from "../../src/adapters/fetch.ts";
import { RepairedItems, REPAIRED_ITEMS_LIMIT } from "../../src/adapters/repaired-items.ts";
import { createRepairEngine } from "../../src/engine/engine.ts";
import { GuardedEngine } from "../../src/engine/guarded.ts";
import type { EngineEvent } from "../../src/engine/types.ts";
import { PROVIDERS, chatClient, chatSse, chunk } from "./review-47-chat-support.ts";

/** What the client keeps, ids and the number of text deltas aside. */
const chatKept = (v: { calls: unknown; text: string; finish: Json | undefined }) => ({ calls: v.calls, text: v.text, finish: v.finish?.finishReason });
import {
  type Json, HERMES, MESSAGES_URL, SCHEMA, client, dataEvents, message, messageEnd, messageStart, messagesRequest, namedSse, rawReply, responseObject, responsesEvents, textBlock, toolUseBlock,
} from "./review-48-wires-support.ts";

const READ_DSML = `<{D}invoke name="read">\n<{D}parameter name="path" string="true">a.ts</{D}parameter>\n</{D}invoke>`;
const OPEN_WITH_PROSE = live(`Reading.\n<{D}tool_calls>\n${READ_DSML}\nMore prose.`);
const tc = (entry: Record<string, unknown>) => chunk({ tool_calls: [entry] });
const nativeRead = (path: string) => tc({ index: 0, id: "call_n", type: "function", function: { name: "read", arguments: JSON.stringify({ path }) } });

/** The content in pieces of `size` characters (1: char by char), then the native call and the finish. */
function chatBody(text: string, size: number, after: Json[]): string {
  const pieces: Json[] = [];
  for (let i = 0; i < text.length; i += size) pieces.push(chunk(i === 0 ? { role: "assistant", content: text.slice(i, i + size) } : { content: text.slice(i, i + size) }));
  return chatSse([...pieces, ...after, chunk({}, "tool_calls")]);
}

/** Seeded cut sizes (a small LCG, no wall clock). */
function seededSizes(seed: number, count: number): number[] {
  const out: number[] = [];
  let x = seed;
  for (let i = 0; i < count; i++) {
    x = (x * 1103515245 + 12345) % 2147483648;
    out.push(1 + (x % 13));
  }
  return out;
}

describe("engine: a native call when calls are held for their block's closer", () => {
  const text = (events: EngineEvent[]) => events.filter((e) => e.type === "text").map((e) => (e as { text: string }).text).join("");
  const calls = (events: EngineEvent[]) => events.filter((e) => e.type === "call");
  const tools = [{ name: "read", schema: SCHEMA }];
  for (const size of [1, 3, 1000]) {
    test(`the held call never runs, the text after it shows, the markup is reported stripped (pieces of ${size})`, () => {
      const guard = new GuardedEngine(createRepairEngine({ tools } as never), () => {});
      const events: EngineEvent[] = [];
      for (let i = 0; i < OPEN_WITH_PROSE.length; i += size) {
        const step = guard.step({ delta: OPEN_WITH_PROSE.slice(i, i + size) });
        if (step.ok) events.push(...step.events);
      }
      expect(calls(events)).toEqual([]);
      const native = guard.step({ native: true });
      expect(native.ok).toBe(true);
      if (native.ok) events.push(...native.events);
      const end = guard.step({ flush: true });
      if (end.ok) events.push(...end.events);
      expect(calls(events)).toEqual([]);
      expect(text(events)).toBe("Reading.\nMore prose.");
      expect(guard.summary()!.stripped.map((s) => s.kind)).toContain("native-call-duplicate");
    });
  }
});

describe("chat: the native call wins over a call held for its block's closer", () => {
  for (const provider of PROVIDERS) {
    test(`${provider}: the same call natively: one call, the native one (its id), the prose visible; whole = char by char = seeded pieces`, async () => {
      const whole = await chatClient(provider, chatBody(OPEN_WITH_PROSE, OPEN_WITH_PROSE.length, [nativeRead("a.ts")]));
      expect(whole.calls).toEqual([{ name: "read", input: '{"path":"a.ts"}' }]);
      expect(whole.parts.find((p) => p.type === "tool-call")!.toolCallId).toBe("call_n");
      expect(whole.text).toBe("Reading.\nMore prose.");
      const byChar = await chatClient(provider, chatBody(OPEN_WITH_PROSE, 1, [nativeRead("a.ts")]));
      expect(chatKept(byChar)).toEqual(chatKept(whole));
      for (const seed of [1, 2, 3]) {
        const sizes = seededSizes(seed, OPEN_WITH_PROSE.length);
        const pieces: Json[] = [];
        for (let i = 0, k = 0; i < OPEN_WITH_PROSE.length; i += sizes[k++]!) pieces.push(chunk({ content: OPEN_WITH_PROSE.slice(i, i + sizes[k]!) }));
        const cut = await chatClient(provider, chatSse([chunk({ role: "assistant" }), ...pieces, nativeRead("a.ts"), chunk({}, "tool_calls")]));
        expect(chatKept(cut)).toEqual(chatKept(whole));
      }
    });

    test(`${provider}: another call natively (read b.ts): the held leak (read a.ts) never runs, only the native call does`, async () => {
      const v = await chatClient(provider, chatBody(OPEN_WITH_PROSE, 5, [nativeRead("b.ts")]));
      expect(v.calls).toEqual([{ name: "read", input: '{"path":"b.ts"}' }]);
      expect(v.text).toBe("Reading.\nMore prose.");
    });

    test(`${provider}: hard negative: the block closed before the native call: the leak was sent, the native repeat dropped, one call`, async () => {
      const closed = live(`Reading.\n<{D}tool_calls>\n${READ_DSML}\n</{D}tool_calls>\nMore prose.`);
      const v = await chatClient(provider, chatBody(closed, 4, [nativeRead("a.ts")]));
      expect(v.calls).toEqual([{ name: "read", input: '{"path":"a.ts"}' }]);
      // The text after the sent call shows: the native call follows it (S03).
      expect(v.text).toBe("Reading.\n\nMore prose.");
    });
  }

  test("hard negative: no native call: the held call runs at the end, the text after it stripped (S03)", async () => {
    const v = await chatClient("compatible", chatSse([chunk({ role: "assistant", content: OPEN_WITH_PROSE }), chunk({}, "stop")]));
    expect(v.calls).toEqual([{ name: "read", input: '{"path":"a.ts"}' }]);
    expect(v.text).toBe("Reading.\n");
  });
});

describe("Anthropic: the text after a sent call, then a native tool_use: the same at every split", () => {
  test("whole, one char per delta and three per delta", async () => {
    const TEXT = `a ${HERMES} and b.ts next.`;
    const views: Json[] = [];
    for (const size of [TEXT.length, 1, 3]) {
      const deltas: string[] = [];
      for (let i = 0; i < TEXT.length; i += size) deltas.push(TEXT.slice(i, i + size));
      const v = await client("anthropic", namedSse([messageStart(), ...textBlock(0, deltas), ...toolUseBlock(1, "toolu_1", { path: "b.ts" }), ...messageEnd("tool_use")]));
      views.push({ text: v.text, calls: v.calls });
    }
    expect(views[0]).toEqual({ text: "a  and b.ts next.", calls: [{ name: "read", input: '{"path":"a.ts"}' }, { name: "read", input: '{"path":"b.ts"}' }] });
    for (const view of views) expect(view).toEqual(views[0]!);
  });
});

describe("Anthropic: a citations_delta of a block whose start is held", () => {
  const citation = { type: "char_location", cited_text: "abc", document_index: 0, document_title: "d", start_char_index: 0, end_char_index: 3 };
  const events = (text: string) => [
    messageStart(),
    { type: "content_block_start", index: 0, content_block: { type: "text", text: "", citations: [] } },
    { type: "content_block_delta", index: 0, delta: { type: "citations_delta", citation } },
    { type: "content_block_delta", index: 0, delta: { type: "text_delta", text } },
    { type: "content_block_stop", index: 0 },
    ...messageEnd(),
  ];

  test("text of the block goes out: the start, then the citation, then the text, in one block", async () => {
    const { text } = await rawReply(MESSAGES_URL, messagesRequest(), namedSse(events(`see ${HERMES}`)));
    const seq = dataEvents(text).filter((e) => e.type.startsWith("content_block")).map((e) => `${e.index}:${e.type === "content_block_delta" ? e.delta.type : e.type === "content_block_start" ? e.content_block.type : "stop"}`);
    expect(seq).toEqual(["0:text", "0:citations_delta", "0:text_delta", "0:stop", "1:tool_use", "1:input_json_delta", "1:stop"]);
  });

  test("plain text after it: the block as it came", async () => {
    const { text } = await rawReply(MESSAGES_URL, messagesRequest(), namedSse(events("plain words")));
    const seq = dataEvents(text).filter((e) => e.type.startsWith("content_block")).map((e) => (e.type === "content_block_delta" ? e.delta.type : e.type));
    expect(seq).toEqual(["content_block_start", "citations_delta", "text_delta", "content_block_stop"]);
  });

  test("the block's text all became a call: the citation goes with the block (no text of it is shown), the call runs", async () => {
    const { text } = await rawReply(MESSAGES_URL, messagesRequest(), namedSse(events(HERMES)));
    expect(dataEvents(text).some((e) => e.type === "content_block_delta" && e.delta.type === "citations_delta")).toBe(false);
    expect(dataEvents(text).filter((e) => e.type === "content_block_start").map((e) => e.content_block.type)).toEqual(["tool_use"]);
  });

  test("an empty text_delta before plain text is dropped, the text goes out in one block", async () => {
    const { text } = await rawReply(MESSAGES_URL, messagesRequest(), namedSse([messageStart(), ...textBlock(0, ["", "hello"]), ...messageEnd()]));
    const deltas = dataEvents(text).filter((e) => e.type === "content_block_delta").map((e) => e.delta.text);
    expect(deltas).toEqual(["hello"]);
  });
});

describe("Responses: an item_reference to a message item the repair changed goes up inline", () => {
  /** Two turns through @ai-sdk/openai `.responses()` behind one repairFetch; `stream`: the first answer streamed or JSON. */
  async function secondInput(first: Json[], stream: boolean): Promise<Json[]> {
    const bodies: Json[] = [];
    const base = (async (_url: unknown, init?: RequestInit) => {
      bodies.push(JSON.parse(String(init?.body)));
      const output = bodies.length === 1 ? first : [message("msg_2", "done")];
      if (stream || bodies.length > 1) return new Response(namedSse(responsesEvents(output)), { headers: { "content-type": "text/event-stream" } });
      return new Response(JSON.stringify(responseObject("completed", output)), { headers: { "content-type": "application/json" } });
    }) as unknown as typeof fetch;
    const model = createOpenAI({ baseURL: "http://model.test/v1", apiKey: "k", fetch: repairFetch({}, base) }).responses("gpt-x");
    const prompt: Json[] = [{ role: "user", content: [{ type: "text", text: "read a.ts" }] }];
    const tools = [{ type: "function", name: "read", inputSchema: SCHEMA }];
    let text = "";
    let meta: Json | undefined;
    let calls: Json[] = [];
    if (stream) {
      const parts: Json[] = [];
      const { stream: s } = await model.doStream({ prompt, tools } as never);
      for await (const part of s as unknown as AsyncIterable<Json>) parts.push(part);
      text = parts.filter((p) => p.type === "text-delta").map((p) => p.delta).join("");
      meta = parts.find((p) => p.type === "text-start")?.providerMetadata;
      calls = parts.filter((p) => p.type === "tool-call");
    } else {
      const result = await model.doGenerate({ prompt, tools } as never);
      const content = result.content as Json[];
      const part = content.find((c) => c.type === "text")!;
      text = part.text;
      meta = part.providerMetadata;
      calls = content.filter((c) => c.type === "tool-call");
    }
    prompt.push({ role: "assistant", content: [{ type: "text", text, providerOptions: meta }, ...calls.map((c) => ({ type: "tool-call", toolCallId: c.toolCallId, toolName: c.toolName, input: JSON.parse(c.input), providerOptions: c.providerMetadata }))] });
    prompt.push({ role: "tool", content: calls.map((c) => ({ type: "tool-result", toolCallId: c.toolCallId, toolName: c.toolName, output: { type: "text", value: "contents" } })) });
    const next = await model.doStream({ prompt, tools } as never);
    for await (const _ of next.stream as unknown as AsyncIterable<Json>);
    return bodies[1]!.input as Json[];
  }

  for (const stream of [true, false]) {
    test(`${stream ? "stream" : "JSON"}: the repaired text goes up inline, without the id; the call and its result after it`, async () => {
      const input = await secondInput([message("msg_1", `I will read it. ${HERMES}`)], stream);
      expect(input.filter((i) => i.type === "item_reference")).toEqual([]);
      const inline = input.find((i) => i.type === "message" && i.role === "assistant")!;
      expect(inline).toEqual({ type: "message", role: "assistant", content: [{ type: "output_text", text: "I will read it. " }] });
      expect(JSON.stringify(input)).not.toContain("<tool_call>");
      expect(input.findIndex((i) => i === inline)).toBeLessThan(input.findIndex((i) => i.type === "function_call"));
    });
  }

  test("a clean reply (JSON): its message is still referred to by its id", async () => {
    const input = await secondInput([message("msg_1", "nothing to do")], false);
    expect(input.filter((i) => i.type === "item_reference").map((i) => i.id)).toEqual(["msg_1"]);
  });

  test("RepairedItems: bounded, the oldest forgotten first; a reference to an unknown id is left as it is", () => {
    const items = new RepairedItems();
    for (let i = 0; i <= REPAIRED_ITEMS_LIMIT; i++) items.note(`msg_${i}`, { type: "message", content: [{ type: "output_text", text: `t${i}` }] });
    expect(items.size).toBe(REPAIRED_ITEMS_LIMIT);
    const body = { input: [{ type: "item_reference", id: "msg_0" }, { type: "item_reference", id: `msg_${REPAIRED_ITEMS_LIMIT}` }, { type: "item_reference", id: "rs_1" }] };
    expect(items.edits(body)).toEqual([{ kind: "replace", path: ["input", 1], json: JSON.stringify({ type: "message", role: "assistant", content: [{ type: "output_text", text: `t${REPAIRED_ITEMS_LIMIT}` }] }) }]);
  });
});
