/**
 * Anthropic server tools (review 44): a `server_tool_use` (web search, code execution) or an
 * `mcp_tool_use` block is a tool Anthropic ran on its own side, with its result in the same reply;
 * the client runs nothing for it. So it is no native call: a leaked call of a client tool beside it
 * duplicates nothing and becomes a `tool_use` block, as the same reply does on Responses (a
 * `web_search_call` item). Nor does it spend the one call `disable_parallel_tool_use` allows:
 * Anthropic defines that switch for the client tools the model calls. A client `tool_use` still is
 * the reply's native call (D08). Streams are checked whole, with one-character deltas read byte by
 * byte, and at seeded random byte cuts.
 */
import { describe, expect, test } from "bun:test";
import { repairFetch } from "../../src/adapters/fetch.ts";
import type { AdapterResult } from "../../src/adapters/options.ts";
import { JSON_HEADERS, type Json, byteByByte, chunkedFetch, dataEvents, encode, namedSse, postInit, seededCuts } from "./wire-support.ts";

const READ = { type: "object", properties: { path: { type: "string" } }, required: ["path"] };
const TOOLS = [{ name: "read", input_schema: READ }, { type: "web_search_20250305", name: "web_search" }];
const leak = (path: string) => `<tool_call>{"name":"read","arguments":{"path":"${path}"}}</tool_call>`;
const LEAD = "Nothing online; reading the notes. ";
const ONE_CALL = { tool_choice: { type: "auto", disable_parallel_tool_use: true } };

type Tool = { type: string; id: string; name: string; input: Json; result?: Json };
const SEARCH: Tool = { type: "server_tool_use", id: "srvtoolu_1", name: "web_search", input: { query: "notes" }, result: { type: "web_search_tool_result", tool_use_id: "srvtoolu_1", content: [] } };
const MCP: Tool = { type: "mcp_tool_use", id: "mcptoolu_1", name: "lookup", input: { q: "notes" }, result: { type: "mcp_tool_result", tool_use_id: "mcptoolu_1", is_error: false, content: [] } };
const CLIENT: Tool = { type: "tool_use", id: "toolu_1", name: "read", input: { path: "native.md" } };

/** A reply: the tool block (and its result block, for a server tool), then one text block. */
function streamOf(tool: Tool, text: string, deltaSize: number): string {
  const events: Json[] = [
    { type: "message_start", message: { id: "msg_1", type: "message", role: "assistant", model: "m", content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 1, output_tokens: 1 } } },
    { type: "content_block_start", index: 0, content_block: { type: tool.type, id: tool.id, name: tool.name, input: {} } },
    { type: "content_block_delta", index: 0, delta: { type: "input_json_delta", partial_json: JSON.stringify(tool.input) } },
    { type: "content_block_stop", index: 0 },
  ];
  let index = 1;
  if (tool.result) events.push({ type: "content_block_start", index, content_block: tool.result }, { type: "content_block_stop", index: index++ });
  events.push({ type: "content_block_start", index, content_block: { type: "text", text: "" } });
  for (let i = 0; i < text.length; i += deltaSize) events.push({ type: "content_block_delta", index, delta: { type: "text_delta", text: text.slice(i, i + deltaSize) } });
  events.push({ type: "content_block_stop", index });
  const stop = tool.type === "tool_use" ? "tool_use" : "end_turn";
  events.push({ type: "message_delta", delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: 9 } }, { type: "message_stop" });
  return namedSse(events);
}

function jsonOf(tool: Tool, text: string): Json {
  const { result, ...block } = tool;
  const content: Json[] = [block, ...(result ? [result] : []), { type: "text", text }];
  return { id: "msg_1", type: "message", role: "assistant", model: "m", content, stop_reason: tool.type === "tool_use" ? "tool_use" : "end_turn", stop_sequence: null, usage: { input_tokens: 1, output_tokens: 9 } };
}

const request = (stream: boolean, extra: Json) => ({ model: "m", max_tokens: 100, stream, messages: [{ role: "user", content: "check the notes" }], tools: TOOLS, ...extra });

/** Client tool calls out of a stream: [id, path] per tool_use block; and the stop reason. */
function streamed(text: string): { calls: [string, string][]; stop: unknown } {
  const calls = new Map<number, [string, string]>();
  let stop: unknown;
  for (const event of dataEvents(text)) {
    if (event.type === "content_block_start" && event.content_block.type === "tool_use") calls.set(event.index, [event.content_block.id, ""]);
    if (event.type === "content_block_delta" && event.delta.type === "input_json_delta" && calls.has(event.index)) calls.get(event.index)![1] += event.delta.partial_json;
    if (event.type === "message_delta") stop = event.delta.stop_reason;
  }
  return { calls: [...calls.values()].map(([id, json]) => [id, (JSON.parse(json) as { path: string }).path]), stop };
}

/** Every run of the stream: whole, one-character deltas byte by byte, seeded random byte cuts. */
async function streamRuns(tool: Tool, text: string, extra: Json = {}): Promise<{ paths: string[]; stop: unknown; stripped: string[] }[]> {
  const run = async (chunks: Uint8Array[]) => {
    const results: AdapterResult[] = [];
    const res = await repairFetch({ onResult: (r) => void results.push(r) }, chunkedFetch(chunks))("http://model.test/v1/messages", postInit(request(true, extra)));
    const { calls, stop } = streamed(await res.text());
    const native = calls.filter(([id]) => id === CLIENT.id).map(([, path]) => `native:${path}`);
    return { paths: [...native, ...calls.filter(([id]) => id !== CLIENT.id).map(([, path]) => path)], stop, stripped: (results[0]?.summary?.stripped ?? []).map((s) => s.kind) };
  };
  const runs = [await run([encode(streamOf(tool, text, 1000))]), await run(byteByByte(encode(streamOf(tool, text, 1))))];
  for (const seed of [1, 2, 3, 4, 5]) runs.push(await run(seededCuts(encode(streamOf(tool, text, 1 + (seed % 5))), seed)));
  return runs;
}

async function jsonRun(tool: Tool, text: string, extra: Json = {}): Promise<{ paths: string[]; stop: unknown }> {
  const upstream = chunkedFetch([encode(JSON.stringify(jsonOf(tool, text)))], JSON_HEADERS);
  const res = await repairFetch({}, upstream)("http://model.test/v1/messages", postInit(request(false, extra)));
  const body = JSON.parse(await res.text()) as Json;
  const uses = (body.content as Json[]).filter((b) => b.type === "tool_use");
  return { paths: uses.map((b) => (b.id === CLIENT.id ? `native:${b.input.path}` : b.input.path)), stop: body.stop_reason };
}

describe("Anthropic: a server tool use is no native call", () => {
  for (const tool of [SEARCH, MCP]) {
    test(`${tool.type}: the leak after it becomes a tool_use block, stop_reason tool_use, nothing stripped`, async () => {
      for (const run of await streamRuns(tool, LEAD + leak("notes.md"))) expect(run).toEqual({ paths: ["notes.md"], stop: "tool_use", stripped: [] });
      expect(await jsonRun(tool, LEAD + leak("notes.md"))).toEqual({ paths: ["notes.md"], stop: "tool_use" });
    });
  }

  test("hard negative: a client tool_use beside the leak is the reply's call; the leak is its duplicate, stripped", async () => {
    for (const run of await streamRuns(CLIENT, LEAD + leak("notes.md"))) expect(run).toEqual({ paths: ["native:native.md"], stop: "tool_use", stripped: ["native-call-duplicate"] });
    expect(await jsonRun(CLIENT, LEAD + leak("notes.md"))).toEqual({ paths: ["native:native.md"], stop: "tool_use" });
  });
});

describe("Anthropic one-call mode (disable_parallel_tool_use): a server tool use does not spend the one call", () => {
  const two = `${LEAD}${leak("a.md")}\n${leak("b.md")}`;

  test("after a web search, two leaked calls: the first runs, the second is the extra call", async () => {
    for (const run of await streamRuns(SEARCH, two, ONE_CALL)) expect({ paths: run.paths, stop: run.stop }).toEqual({ paths: ["a.md"], stop: "tool_use" });
    expect(await jsonRun(SEARCH, two, ONE_CALL)).toEqual({ paths: ["a.md"], stop: "tool_use" });
  });

  test("hard negatives: the switch off gives both; a client tool_use is the one call, so no leak runs", async () => {
    for (const run of await streamRuns(SEARCH, two)) expect(run.paths).toEqual(["a.md", "b.md"]);
    expect((await jsonRun(SEARCH, two)).paths).toEqual(["a.md", "b.md"]);
    for (const run of await streamRuns(CLIENT, two, ONE_CALL)) expect(run.paths).toEqual(["native:native.md"]);
    expect((await jsonRun(CLIENT, two, ONE_CALL)).paths).toEqual(["native:native.md"]);
  });
});
