// Review 47 (hostile, tests only): the chat-completions stream (src/wires/chat/rewriter.ts over
// src/sse/rewrite.ts) read by @ai-sdk/openai-compatible (as OpenCode uses it for DeepSeek) and
// @ai-sdk/openai `.chat()`: what the client parsed is what is checked. Each failing test says what
// is wrong, its severity and the suspected source file; the others are hard negatives.
import { describe, expect, test } from "bun:test";
import { block, live } from "../golden/notation.ts";
import { repairFetch } from "../../src/adapters/fetch.ts";
import { CHAT_URL, ENVELOPE, HERMES, type Json, PROVIDERS, READ, chatClient, chatSse, chunk, contentChunks, dataEvents, everySplitView } from "./review-47-chat-support.ts";

const DSML = live(block("tool_calls", [["read", [["path", "a.ts"]]]]));
const USAGE = { ...ENVELOPE, choices: [], usage: { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 } };
const READ_A = [{ name: "read", input: '{"path":"a.ts"}' }];

describe("a last event with no blank line after it (the body ends mid-event)", () => {
  /** The reply so far, then one more content event left unterminated. */
  const cut = (head: string, tail: string) => chatSse([chunk({ role: "assistant", content: head })], "\n", false) + `data: ${JSON.stringify(chunk({ content: tail }))}`;

  // fixed: (review 47 finding 7, a call ran from bytes the client itself discards; text shown that
  // it would not show: low-medium; fx-47-sse). Rule now: what the client would not read, the repair
  // does not read either. src/sse/rewrite.ts end() no longer feeds the unterminated tail to the
  // rewriter (no call comes from it, held text is decided as at an end without it) and writes its
  // bytes last, as they came, still unterminated, so the client drops them as it would have (all
  // three wires: test/adapters/unterminated-tail.test.ts). What was wrong: an SSE event is
  // dispatched only at its blank line; the AI SDK's parser drops an unterminated last event (hard
  // negative below: "Hi " then a half event shows "Hi "). The rewriter decides the framer's tail at
  // the body's end like a whole event (src/sse/rewrite.ts end(): decide(tail)), and whenever the
  // engine held something before it, writes it back as a whole event, blank line and all: the
  // client now reads text and a call it would never have read. Here the call's JSON was cut at
  // `"a`; its rest came only in the half event, and read a.ts runs. Expected: the half event is
  // left as the client reads it (its bytes as they came, unread), so the result is the same as the
  // body without it: no call, `A <tool_call>…"a` shown as written. Suspected: src/sse/rewrite.ts
  // (end(): the tail), src/wires/chat/rewriter.ts.
  test("a call completed only by the half event does not run", async () => {
    const client = await chatClient("compatible", cut('A <tool_call>{"name":"read","arguments":{"path":"a', '.ts"}}</tool_call>'));
    expect(client.calls).toEqual([]);
  });

  // fixed: (review 47 finding 7, same root, low; fx-47-sse: the held `<` is decided at the end
  // without the half event, which goes out last and unterminated). What was wrong: a `<` held
  // before the half event made the client show the half event's text ("Hi <there"), where with
  // nothing held it shows "Hi " (the hard negative below): whether the client reads an event
  // depends on what the engine held.
  test("a held `<` before the half event: the client shows what it shows without the repair", async () => {
    const client = await chatClient("compatible", cut("Hi <", "there"));
    expect(client.text).toBe("Hi <");
  });

  test("hard negative: nothing held before the half event: it is not read (passes today)", async () => {
    const client = await chatClient("compatible", cut("Hi ", "there"));
    expect(client.text).toBe("Hi ");
  });
});

/** Hard negatives (pass today): every framing and chunk shape below gives the client one view, whole, byte by byte and at seeded cuts. */
describe("one client view whatever the framing (hard negatives)", () => {
  const plain = [...contentChunks(`Reading.\n\n${DSML}`, 5), USAGE];
  const streams: [string, string][] = [
    ["LF, usage-only last chunk", chatSse(plain)],
    ["CRLF", chatSse(plain, "\r\n")],
    ["lone CR", chatSse(plain, "\r")],
    ["data: without space", chatSse(plain).replaceAll("data: ", "data:")],
    ["keep-alive comments between events", chatSse([": ping\n\n", ...plain.flatMap((c) => [c, ": keep-alive\n\n"])])],
    ["event and id lines", chatSse(plain).replace(/data: /g, (_m, at: number) => `event: message\nid: ${at}\ndata: `)],
    ["each event's JSON over two data lines", plain.map((c) => `data: ${JSON.stringify(c).replace(',"choices"', '\ndata: ,"choices"')}\n\n`).join("") + "data: [DONE]\n\n"],
    ["JSON with < and > escaped as \\u003c/\\u003e (Go encoders)", chatSse(plain).replaceAll("<", "\\u003c").replaceAll(">", "\\u003e")],
  ];
  for (const provider of PROVIDERS) {
    for (const [name, body] of streams) {
      test(`${provider}: ${name}`, async () => {
        const runs = await everySplitView(provider, body, {}, [1, 2, 3]);
        for (const run of runs) {
          expect(run.calls).toEqual(READ_A);
          expect(run.text).toBe("Reading.\n\n");
          expect((run.finish as Json).raw).toBe("tool_calls");
          expect((run.usage as Json).outputTokens.total).toBe(4);
          expect(run.parts).not.toContain("error");
        }
      });
    }
  }

  test("compatible: DeepSeek reasoning, then content with the leak: reasoning kept whole and first", async () => {
    const R = (t: string) => chunk({ content: null, reasoning_content: t });
    const body = chatSse([chunk({ role: "assistant", content: null, reasoning_content: "" }), R("compare a <"), R("b> and "), R("think"), ...contentChunks(`Reading. ${HERMES}`, 4).slice(1).map((c) => ({ ...c, choices: [{ ...c.choices[0], delta: { ...c.choices[0].delta, reasoning_content: null } }] })), USAGE]);
    for (const run of await everySplitView("compatible", body, {}, [1, 2, 3])) {
      expect([run.calls, run.reasoning, run.text]).toEqual([READ_A, "compare a <b> and think", "Reading. "]);
      expect((run.parts as string[]).indexOf("reasoning-end")).toBeLessThan((run.parts as string[]).indexOf("text-start"));
    }
  });
});

describe("the answer's media type, read as RFC 9110 says (type and subtype are case-insensitive)", () => {
  const body = chatSse(contentChunks(`Reading. ${HERMES}`));
  const request = { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ model: "m", stream: true, messages: [{ role: "user", content: "read a.ts" }], tools: [READ] }) };
  const callsFor = async (type: string) => {
    const base = (async () => new Response(body, { headers: { "content-type": type } })) as unknown as typeof fetch;
    const text = await (await repairFetch({}, base)(CHAT_URL, request)).text();
    return dataEvents(text).flatMap((c) => c.choices?.[0]?.delta?.tool_calls ?? []).length;
  };
  // fixed: (review 47 finding 8, a leak left unrepaired: low; fx-47-sse). Rule now: media types
  // compare case-insensitively, parameters ignored (RFC 9110), through one helper
  // (src/sse/media-type.ts) in the fetch adapter (event stream and JSON) and the proxy's relay.
  // What was wrong (nothing wrong ran, the markup stayed visible): the adapter picked the stream
  // path with a case-sensitive `includes("text/event-stream")` (src/adapters/fetch.ts
  // repairResponse; the proxy's whole-event framing in src/proxy/server.ts relay too), so an
  // upstream that writes `Text/Event-Stream` gets no repair, while the AI SDK reads the body as SSE
  // whatever the header says. Expected: the media type compared case-insensitively, the leak a
  // call.
  test("Text/Event-Stream: the leak becomes a call", async () => {
    expect(await callsFor("Text/Event-Stream; charset=utf-8")).toBe(1);
  });

  test("hard negative: text/event-stream; charset=utf-8 (passes today)", async () => {
    expect(await callsFor("text/event-stream; charset=utf-8")).toBe(1);
  });
});
