// Review 48 (hostile, tests only): the Anthropic Messages wire (src/wires/anthropic/*) behind the
// real repairFetch, read by @ai-sdk/anthropic: what the client parsed is what counts. Findings
// first (failing on main), then hard negatives that pass on main and pin behaviour worth keeping.
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { block, live } from "../golden/notation.ts";
import { byteByByte } from "../adapters/wire-support.ts";
import {
  type Json, HERMES, HERMES_WRITE, MESSAGES_URL, SCHEMA, SDK_TWO_TOOLS, WRITE_SCHEMA, anthropicProblems, client, dataEvents, encode, everySplitView, generate, kept,
  messageEnd, messageStart, messagesRequest, namedSse, rawReply, textBlock, thinkingBlock, toolUseBlock,
} from "./review-48-wires-support.ts";

const B_TS = HERMES.replace("a.ts", "b.ts");
const DS = live(block("tool_calls", [["read", [["path", "a.ts"]]]]));

function json(content: Json[], stop: string): Json {
  return { id: "msg_1", type: "message", role: "assistant", model: "m", content, stop_reason: stop, stop_sequence: null, usage: { input_tokens: 1, output_tokens: 1 } };
}

/** Block types of the repaired stream's content_block_start events, with tool names. */
function blocks(text: string): string[] {
  return dataEvents(text).filter((e) => e.type === "content_block_start").map((e) => (e.content_block.type === "tool_use" ? `tool_use:${e.content_block.name}` : e.content_block.type));
}

// ---------------------------------------------------------------- findings

describe("fixed: text between a recovered call and a later native call is lost on the stream", () => {
  // Severity: medium (text lost; the JSON path keeps it). Suspected source: src/wires/anthropic/stream.ts
  // (#endBlock / #noteNative step the engine with `native: true` but never release the tail held
  // after the recovered call) with src/engine/output.ts (noteNativeToolCall leaves the S03 tail
  // held, so it is stripped at the reply's end as if nothing followed the call). S03 says the
  // text held after a call is released when another call follows: a native tool_use block is one.
  // Observed: text "a " only (" and b.ts next, as planned." stripped); expected: it is visible.
  const PROSE = " and b.ts next, as planned.";
  const content = [{ type: "text", text: `a ${HERMES}${PROSE}` }, { type: "tool_use", id: "toolu_1", name: "read", input: { path: "b.ts" } }];

  test("stream: the prose before the native call stays visible", async () => {
    const v = await client("anthropic", namedSse([messageStart(), ...textBlock(0, ["a ", HERMES, PROSE]), ...toolUseBlock(1, "toolu_1", { path: "b.ts" }), ...messageEnd("tool_use")]));
    expect(v.text).toBe(`a ${PROSE}`);
  });

  test("stream: the same with the prose in a text block of its own before the native call", async () => {
    const v = await client("anthropic", namedSse([messageStart(), ...textBlock(0, ["a ", HERMES]), ...textBlock(1, [PROSE]), ...toolUseBlock(2, "toolu_1", { path: "b.ts" }), ...messageEnd("tool_use")]));
    expect(v.text).toBe(`a ${PROSE}`);
  });

  test("hard negative: the JSON reply keeps the prose (the leak is stripped there, the native call wins)", async () => {
    const v = await generate("anthropic", json(content, "tool_use"));
    expect(v.text).toBe(`a ${PROSE}`);
    expect(v.calls).toEqual([{ name: "read", input: '{"path":"b.ts"}' }]);
  });

  test("hard negative: one call allowed, the held call withdrawn for the native one: the same prose is kept (the tail is released there)", async () => {
    const events = [messageStart(), ...textBlock(0, ["a ", HERMES, PROSE]), ...toolUseBlock(1, "toolu_1", { path: "b.ts" }), ...messageEnd("tool_use")];
    const v = await client("anthropic", namedSse(events), { providerOptions: { anthropic: { disableParallelToolUse: true } } });
    expect(v.text).toBe(`a ${PROSE}`);
    expect(v.calls).toEqual([{ name: "read", input: '{"path":"b.ts"}' }]);
  });

  test("hard negative: prose after the last call with no native call after it is stripped at the reply's end (S03)", async () => {
    const v = await client("anthropic", namedSse([messageStart(), ...textBlock(0, ["a ", HERMES, PROSE]), ...messageEnd()]));
    expect(v.text).toBe("a ");
    expect(v.calls).toEqual([{ name: "read", input: '{"path":"a.ts"}' }]);
  });
});

describe("fixed: a text block whose text is all one call is opened by a non-text or empty delta", () => {
  // Severity: low (an empty text block reaches the client: text-start/text-end with no text, which
  // the API refuses when the turn is replayed, the case review-46's ping test fixed for pings).
  // Suspected source: src/wires/anthropic/stream.ts #delta → #intoOpenText opens the held start
  // for a citations_delta, or for a text_delta whose text is "" (some Anthropic-compatible servers
  // send one first), although no text of the block ever goes out.
  test("an empty text_delta before the call: no text block downstream is left without text", async () => {
    const { text } = await rawReply(MESSAGES_URL, messagesRequest(), namedSse([messageStart(), ...textBlock(0, ["", HERMES]), ...messageEnd()]));
    // Observed: content_block_start text, content_block_delta text "", content_block_stop, then the tool_use block.
    expect(blocks(text)).toEqual(["tool_use:read"]);
  });

  // Observed: content_block_start text (index 0) with only a citations_delta, then stop; expected:
  // no downstream text block without text.
  const citation = { type: "char_location", cited_text: "abc", document_index: 0, document_title: "d", start_char_index: 0, end_char_index: 3 };
  const events = [
    messageStart(),
    { type: "content_block_start", index: 0, content_block: { type: "text", text: "", citations: [] } },
    { type: "content_block_delta", index: 0, delta: { type: "citations_delta", citation } },
    { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: HERMES } },
    { type: "content_block_stop", index: 0 },
    ...messageEnd(),
  ];

  test("no text block downstream is left without text", async () => {
    const { text } = await rawReply(MESSAGES_URL, messagesRequest(), namedSse(events));
    const textBlocks = dataEvents(text).filter((e) => e.type === "content_block_start" && e.content_block.type === "text").map((e) => e.index);
    const withText = new Set(dataEvents(text).filter((e) => e.type === "content_block_delta" && e.delta.type === "text_delta" && e.delta.text !== "").map((e) => e.index));
    expect(textBlocks.filter((index) => !withText.has(index))).toEqual([]);
  });

  test("hard negative: the call runs, the sequence is well formed", async () => {
    const { text } = await rawReply(MESSAGES_URL, messagesRequest(), namedSse(events));
    expect(anthropicProblems(text)).toEqual([]);
    expect((await client("anthropic", namedSse(events))).calls).toEqual([{ name: "read", input: '{"path":"a.ts"}' }]);
  });
});

// ---------------------------------------------------------------- hard negatives

describe("hard negatives: markup that must not run", () => {
  test("a call in a thinking block never runs; the reasoning keeps it, finish stop", async () => {
    const v = await client("anthropic", namedSse([messageStart(), ...thinkingBlock(0, ["let me ", HERMES]), ...textBlock(1, ["ok"]), ...messageEnd()]));
    expect(v.calls).toEqual([]);
    expect(v.reasoning).toBe(`let me ${HERMES}`);
    expect(v.finish).toBe("stop");
  });

  test("JSON: a call in thinking never runs, redacted_thinking and the text block's cache_control pass", async () => {
    const v = await generate("anthropic", json([{ type: "redacted_thinking", data: "abc" }, { type: "thinking", thinking: HERMES, signature: "s" }, { type: "text", text: `x ${HERMES}`, cache_control: { type: "ephemeral" } }], "end_turn"));
    expect(v.calls).toEqual([{ name: "read", input: '{"path":"a.ts"}' }]);
    expect(v.content.filter((c) => c.type === "reasoning").map((c) => c.text)).toEqual(["", HERMES]);
    expect(v.finish).toBe("tool-calls");
  });

  test("markup split by a thinking block between two text blocks is no call (its span ended)", async () => {
    const v = await client("anthropic", namedSse([messageStart(), ...textBlock(0, [HERMES.slice(0, 25)]), ...thinkingBlock(1, ["hm"]), ...textBlock(2, [HERMES.slice(25)]), ...messageEnd()]));
    expect(v.calls).toEqual([]);
    expect(v.text).toBe(HERMES);
    expect(v.finish).toBe("stop");
  });

  test("a leaked call of a server tool (web_search, declared typed) is not a client call", async () => {
    const req = messagesRequest({ tools: [{ name: "read", input_schema: SCHEMA }, { type: "web_search_20250305", name: "web_search" }] });
    const { text } = await rawReply(MESSAGES_URL, req, namedSse([messageStart(), ...textBlock(0, ['<tool_call>{"name":"web_search","arguments":{"query":"x"}}</tool_call>']), ...messageEnd()]));
    expect(blocks(text)).toEqual(["text"]);
  });

  const TWO = [{ name: "read", input_schema: SCHEMA }, { name: "write", input_schema: WRITE_SCHEMA }];
  const choices: [string, Json, string[]][] = [
    ["a specific tool: only that tool", { type: "tool", name: "read" }, ["text", "tool_use:read"]],
    ["none: nothing", { type: "none" }, ["text"]],
    ["any: both", { type: "any" }, ["text", "tool_use:write", "tool_use:read"]],
    ["disable_parallel_tool_use: the first only", { type: "auto", disable_parallel_tool_use: true }, ["text", "tool_use:write"]],
    ["a form not understood: nothing (fail closed)", { type: "bogus" }, ["text"]],
  ];
  for (const [name, choice, expected] of choices) {
    test(`tool_choice ${name}`, async () => {
      const { text } = await rawReply(MESSAGES_URL, messagesRequest({ tools: TWO, tool_choice: choice }), namedSse([messageStart(), ...textBlock(0, ["x ", HERMES_WRITE, HERMES]), ...messageEnd()]));
      expect(blocks(text)).toEqual(expected);
      expect(anthropicProblems(text)).toEqual([]);
    });
  }

  test("tool_choice none on the JSON reply: the body is left as it came", async () => {
    const body = JSON.stringify(json([{ type: "text", text: `x ${HERMES}` }], "end_turn"));
    const { text } = await rawReply(MESSAGES_URL, messagesRequest({ stream: false, tool_choice: { type: "none" } }), body, "application/json");
    expect(text).toBe(body);
  });

  test("through the client: toolChoice naming read, a leaked write stays text", async () => {
    const v = await client("anthropic", namedSse([messageStart(), ...textBlock(0, ["x ", HERMES_WRITE]), ...messageEnd()]), { tools: SDK_TWO_TOOLS, toolChoice: { type: "tool", toolName: "read" } });
    expect(v.calls).toEqual([]);
    expect(v.text).toBe(`x ${HERMES_WRITE}`);
    expect(v.finish).toBe("stop");
  });

  const QUOTE = `The file says:\n${HERMES}\nthat's all.`;
  const given: [string, Json[]][] = [
    ["a tool_result's text blocks", [{ role: "user", content: "read doc" }, { role: "assistant", content: [{ type: "tool_use", id: "t1", name: "read", input: { path: "doc.md" } }] }, { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: [{ type: "text", text: `doc: ${HERMES}` }] }] }]],
    ["a search_result block", [{ role: "user", content: [{ type: "search_result", source: "http://x", title: "t", content: [{ type: "text", text: `doc: ${HERMES}` }] }, { type: "text", text: "summarize" }] }]],
    ["a base64 text document", [{ role: "user", content: [{ type: "document", source: { type: "base64", media_type: "text/plain", data: Buffer.from(`doc: ${HERMES}`).toString("base64") } }, { type: "text", text: "summarize" }] }]],
  ];
  for (const [name, messages] of given) {
    test(`echo: a call quoted from ${name} never runs`, async () => {
      const body = namedSse([messageStart(), ...textBlock(0, [QUOTE.slice(0, 20), QUOTE.slice(20)]), ...messageEnd()]);
      const { text } = await rawReply(MESSAGES_URL, messagesRequest({ messages }), body);
      expect(blocks(text)).toEqual(["text"]);
      expect(dataEvents(text).find((e) => e.type === "message_delta")!.delta.stop_reason).toBe("end_turn");
    });
  }

  test("echo: a call quoted from a web_fetch_tool_result earlier in the reply never runs", async () => {
    const events = [
      messageStart(),
      { type: "content_block_start", index: 0, content_block: { type: "server_tool_use", id: "srv_1", name: "web_fetch", input: {} } },
      { type: "content_block_delta", index: 0, delta: { type: "input_json_delta", partial_json: '{"url":"http://x"}' } },
      { type: "content_block_stop", index: 0 },
      { type: "content_block_start", index: 1, content_block: { type: "web_fetch_tool_result", tool_use_id: "srv_1", content: { type: "web_fetch_result", url: "http://x", content: { type: "document", source: { type: "text", media_type: "text/plain", data: `page: ${HERMES}` } } } } },
      { type: "content_block_stop", index: 1 },
      ...textBlock(2, [QUOTE]),
      ...messageEnd(),
    ];
    const req = messagesRequest({ tools: [{ name: "read", input_schema: SCHEMA }, { type: "web_fetch_20250910", name: "web_fetch" }] });
    const { text } = await rawReply(MESSAGES_URL, req, namedSse(events));
    expect(blocks(text)).toEqual(["server_tool_use", "web_fetch_tool_result", "text"]);
  });
});

describe("hard negatives: the event sequence the client reads", () => {
  test("message_delta's usage (cache reads included) reaches the client with the call's stop_reason", async () => {
    const v = await client("anthropic", namedSse([messageStart(), ...textBlock(0, ["x ", HERMES]), ...messageEnd("end_turn", { output_tokens: 77, input_tokens: 5, cache_read_input_tokens: 3 })]));
    const finish = v.parts.at(-1)!;
    expect(finish.finishReason.raw).toBe("tool_use");
    expect(finish.usage.outputTokens.total).toBe(77);
    expect(finish.usage.inputTokens.cacheRead).toBe(3);
  });

  test("text given in a text block's start is read like a delta", async () => {
    const events = [messageStart(), ...textBlock(0, [" tail"], { text: `pre ${HERMES}` }), ...messageEnd()];
    const { text } = await rawReply(MESSAGES_URL, messagesRequest(), namedSse(events));
    expect(anthropicProblems(text)).toEqual([]);
    const v = await client("anthropic", namedSse(events));
    expect(v.calls).toEqual([{ name: "read", input: '{"path":"a.ts"}' }]);
    expect(v.text).toBe("pre ");
  });

  test("a leak, a native call for another file, a leak: indices in order, the late leak stripped as native wins", async () => {
    const events = [messageStart(), ...textBlock(0, ["a ", HERMES]), ...toolUseBlock(1, "toolu_1", { path: "b.ts" }), ...textBlock(2, ["b ", B_TS]), ...messageEnd("tool_use")];
    const { text } = await rawReply(MESSAGES_URL, messagesRequest(), namedSse(events));
    expect(anthropicProblems(text)).toEqual([]);
    const v = await client("anthropic", namedSse(events));
    expect(v.calls).toEqual([{ name: "read", input: '{"path":"a.ts"}' }, { name: "read", input: '{"path":"b.ts"}' }]);
  });

  const framings: [string, (events: Json[]) => string][] = [
    ["CRLF", (events) => namedSse(events, "\r\n")],
    ["comments and id lines", (events) => events.map((e, i) => `: keepalive\nid: ${i}\nevent: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`).join("")],
    ["no space after the colon", (events) => events.map((e) => `event:${e.type}\ndata:${JSON.stringify(e)}\n\n`).join("")],
    ["data lines only", (events) => events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join("")],
    ["multi-line data", (events) => events.map((e) => `event: ${e.type}\ndata: ${JSON.stringify(e).replace(/,"/g, ',\ndata: "')}\n\n`).join("")],
  ];
  for (const [name, frame] of framings) {
    test(`${name}: one view whole, byte by byte and at seeded cuts; the call runs`, async () => {
      const body = frame([messageStart(), { type: "ping" }, ...textBlock(0, ["see ", HERMES.slice(0, 20), HERMES.slice(20), " done"]), ...messageEnd()]);
      const runs = await everySplitView("anthropic", body, {}, [1, 2, 3]);
      for (const run of runs) expect(run).toEqual(runs[0]!);
      expect(runs[0]!.calls).toEqual([{ name: "read", input: '{"path":"a.ts"}' }]);
      expect(runs[0]!.finish).toBe("tool-calls");
    });
  }

  const scenarios: [string, Json[], Json][] = [
    ["DSML in thinking and text, a ping, the native repeat, more text", [messageStart(), ...thinkingBlock(0, ["hm ", DS]), { type: "ping" }, ...textBlock(1, ["I will: ", DS.slice(0, 30), DS.slice(30), " ok"]), ...toolUseBlock(2, "toolu_1", { path: "a.ts" }), ...textBlock(3, ["more"]), ...messageEnd("tool_use")], {}],
    ["one call allowed, two leaks", [messageStart(), ...textBlock(0, ["a ", HERMES, " b ", B_TS]), ...messageEnd()], { providerOptions: { anthropic: { disableParallelToolUse: true } } }],
    [
      "a server tool and its result, then a DSML leak",
      [
        messageStart(),
        { type: "content_block_start", index: 0, content_block: { type: "server_tool_use", id: "srvtoolu_1", name: "web_search", input: {} } },
        { type: "content_block_delta", index: 0, delta: { type: "input_json_delta", partial_json: '{"query":"x"}' } },
        { type: "content_block_stop", index: 0 },
        { type: "content_block_start", index: 1, content_block: { type: "web_search_tool_result", tool_use_id: "srvtoolu_1", content: [{ type: "web_search_result", url: "http://x", title: "t", encrypted_content: "e", page_age: null }] } },
        { type: "content_block_stop", index: 1 },
        ...textBlock(2, ["so ", DS]),
        ...messageEnd(),
      ],
      {},
    ],
  ];
  for (const [name, events, extra] of scenarios) {
    test(`seeded random byte splits (multi-byte marker characters cut too): ${name}`, async () => {
      const body = namedSse(events);
      const bytes = encode(body);
      const whole = kept(await client("anthropic", body, extra));
      expect(kept(await client("anthropic", byteByByte(bytes), extra))).toEqual(whole);
      await fc.assert(
        fc.asyncProperty(fc.array(fc.nat(), { maxLength: 40 }), async (cuts) => {
          const at = [...new Set(cuts.map((c) => c % bytes.length))].filter((c) => c > 0).sort((a, b) => a - b);
          const ends = [0, ...at, bytes.length];
          expect(kept(await client("anthropic", ends.slice(1).map((end, i) => bytes.subarray(ends[i]!, end)), extra))).toEqual(whole);
        }),
        { seed: 48, numRuns: 40 },
      );
      expect(whole.calls.length).toBeGreaterThan(0);
    });
  }
});
