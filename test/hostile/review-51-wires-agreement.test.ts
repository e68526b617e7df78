/**
 * Review 51 (hostile, tests only): the three wires' JSON answers against their SSE answers. The
 * same reply, sent once as a JSON body and once as a stream (whole, byte by byte and at seeded
 * cuts), must give a client the same calls, the same visible text and the same finish reason /
 * stop_reason / status. Shapes from the brief: parallel calls off with two leaked calls, a forced
 * tool while the leak names another, `content: null` with native tool_calls, n = 2, a cut
 * (content_filter, refusal, failed) against a token limit, Anthropic thinking / redacted_thinking
 * / server_tool_use + web_search_tool_result / `tool_use` with `input: {}` before a leak, Responses
 * reasoning, several output_text parts, a function_call already present, web_search_call,
 * incomplete_details. All hard negatives (they pass on main). No DSML marker bytes here.
 */
import { describe, expect, test } from "bun:test";
import {
  type Json, type Kept, type WireName, chatJson, chatSse, hermes, keptEverySplit, keptOfJson, messageItem, messageJson, messageSse, requestFor, responseJson, responseSse,
} from "./review-51-wires-support.ts";

const A = hermes("read", { path: "a.ts" });
const B = hermes("read", { path: "b.ts" });
const WRITE = hermes("write", { path: "x.sh", content: "rm -rf ~" });
const readA = { name: "read", input: { path: "a.ts" } };
const readB = { name: "read", input: { path: "b.ts" } };

/** The JSON answer's kept view, and every SSE run's, for one reply on `wire`. */
async function both(wire: WireName, extra: Json, json: Json, sse: string, choice = 0): Promise<{ json: Kept; sse: Kept[] }> {
  return { json: await keptOfJson(wire, requestFor(wire, false, extra), json, choice), sse: await keptEverySplit(wire, requestFor(wire, true, extra), sse, choice) };
}

function agree(result: { json: Kept; sse: Kept[] }, expected: Kept): void {
  expect(result.json).toEqual(expected);
  for (const run of result.sse) expect(run).toEqual(expected);
}

describe("chat-completions: JSON and SSE agree", () => {
  const chat = (choices: { message: Json; finish?: string }[], extra: Json = {}, choice = 0) => both("chat", extra, chatJson(choices), chatSse(choices), choice);

  test("parallel_tool_calls false, two leaked calls: the first runs, the second and the prose after it go", async () => {
    agree(await chat([{ message: { content: `one ${A} two ${B} end` } }], { parallel_tool_calls: false }), { calls: [readA], text: "one ", finish: "tool_calls" });
  });

  test("tool_choice forces read, the leak names write: nothing runs, the markup stays as written", async () => {
    const content = `ok ${WRITE}`;
    agree(await chat([{ message: { content } }], { tool_choice: { type: "function", function: { name: "read" } } }), { calls: [], text: content, finish: "stop" });
  });

  test("tool_choice forces read, a write leak then a read leak: only read runs, write stays text", async () => {
    agree(await chat([{ message: { content: `ok ${WRITE}\n${A}` } }], { tool_choice: { type: "function", function: { name: "read" } } }), {
      calls: [readA],
      text: `ok ${WRITE}\n`,
      finish: "tool_calls",
    });
  });

  test("tool_choice none: a leak stays text", async () => {
    agree(await chat([{ message: { content: `ok ${A}` } }], { tool_choice: "none" }), { calls: [], text: `ok ${A}`, finish: "stop" });
  });

  test("content null with native tool_calls: passes as it came", async () => {
    const tool_calls = [{ id: "n1", type: "function", function: { name: "read", arguments: '{"path":"z"}' } }];
    agree(await chat([{ message: { content: null, tool_calls }, finish: "tool_calls" }]), { calls: [{ name: "read", input: { path: "z" } }], text: "", finish: "tool_calls" });
  });

  test("length: the held call is decided (it ended) and the finish becomes tool_calls", async () => {
    agree(await chat([{ message: { content: `x ${A}` }, finish: "length" }]), { calls: [readA], text: "x ", finish: "tool_calls" });
  });

  test("content_filter: a call complete before the cut stands, the finish stays content_filter", async () => {
    agree(await chat([{ message: { content: `x ${A}` }, finish: "content_filter" }]), { calls: [readA], text: "x ", finish: "content_filter" });
  });

  test("content_filter with a call still open at the cut: nothing runs, the text stays as written", async () => {
    const content = `x <tool_call>{"name":"read","arguments":{"path":"a.ts"}}`;
    agree(await chat([{ message: { content }, finish: "content_filter" }]), { calls: [], text: content, finish: "content_filter" });
  });
});

describe("Anthropic Messages: JSON and SSE agree", () => {
  const ant = (blocks: Json[], extra: Json = {}, stop = "end_turn") => both("anthropic", extra, messageJson(blocks, stop), messageSse(blocks, stop));
  const thinking = { type: "thinking", thinking: "hm", signature: "s" };

  test("disable_parallel_tool_use, a leak in two text blocks with thinking between: one call", async () => {
    agree(await ant([{ type: "text", text: `one ${A}` }, thinking, { type: "text", text: `two ${B}` }], { tool_choice: { type: "auto", disable_parallel_tool_use: true } }), {
      calls: [readA],
      text: "one ",
      finish: "tool_use",
    });
  });

  test("tool_use with input {} first, a leak in a later text block: the leak is stripped, never a second call", async () => {
    agree(await ant([{ type: "tool_use", id: "t1", name: "read", input: {} }, { type: "text", text: `now ${B}` }]), { calls: [{ name: "read", input: {} }], text: "now ", finish: "end_turn" });
  });

  test("server_tool_use and web_search_tool_result before a leak: the leak runs (a server tool is no native call)", async () => {
    const blocks = [
      { type: "server_tool_use", id: "s1", name: "web_search", input: { query: "q" } },
      { type: "web_search_tool_result", tool_use_id: "s1", content: [{ type: "web_search_result", url: "https://x.test", title: "t", encrypted_content: "e" }] },
      { type: "text", text: `now ${B}` },
    ];
    agree(await ant(blocks), { calls: [readB], text: "now ", finish: "tool_use" });
  });

  test("redacted_thinking before a leak: the leak runs", async () => {
    agree(await ant([{ type: "redacted_thinking", data: "xx" }, { type: "text", text: `now ${B}` }]), { calls: [readB], text: "now ", finish: "tool_use" });
  });

  test("a leak over two consecutive text blocks is one call", async () => {
    agree(await ant([{ type: "text", text: 'now <tool_call>{"name":"read",' }, { type: "text", text: '"arguments":{"path":"b.ts"}}</tool_call>' }]), { calls: [readB], text: "now ", finish: "tool_use" });
  });

  test("a leak cut by a thinking block is no call: its halves stay as written", async () => {
    const first = 'now <tool_call>{"name":"read",';
    const second = '"arguments":{"path":"b.ts"}}</tool_call>';
    agree(await ant([{ type: "text", text: first }, thinking, { type: "text", text: second }]), { calls: [], text: first + second, finish: "end_turn" });
  });

  test("max_tokens decides the call (tool_use), refusal keeps its stop_reason", async () => {
    agree(await ant([{ type: "text", text: `now ${B}` }], {}, "max_tokens"), { calls: [readB], text: "now ", finish: "tool_use" });
    agree(await ant([{ type: "text", text: `now ${B}` }], {}, "refusal"), { calls: [readB], text: "now ", finish: "refusal" });
  });

  test("tool_choice forces read, the leak names write: nothing runs", async () => {
    agree(await ant([{ type: "text", text: `now ${WRITE}` }], { tool_choice: { type: "tool", name: "read" } }), { calls: [], text: `now ${WRITE}`, finish: "end_turn" });
  });
});

describe("Responses: JSON and SSE agree", () => {
  const resp = (output: Json[], extra: Json = {}, status = "completed", rx: Json = {}) => both("responses", extra, responseJson(output, status, rx), responseSse(output, status, rx));

  test("parallel_tool_calls false, a call in each of two message items: one call", async () => {
    agree(await resp([messageItem("m1", `one ${A}`), messageItem("m2", `two ${B}`)], { parallel_tool_calls: false }), { calls: [readA], text: "one ", finish: "completed" });
  });

  test("reasoning, then a message of several output_text parts with the call in its own part", async () => {
    agree(await resp([{ id: "r1", type: "reasoning", summary: [] }, messageItem("m1", "one ", A, " two")]), { calls: [readA], text: "one ", finish: "completed" });
  });

  test("a leak split over two output_text parts is no call", async () => {
    const first = 'one <tool_call>{"name":"read",';
    const second = '"arguments":{"path":"b.ts"}}</tool_call>';
    agree(await resp([messageItem("m1", first, second)]), { calls: [], text: first + second, finish: "completed" });
  });

  test("a function_call already present: the leak is stripped, only the native call", async () => {
    const fc = { id: "fc1", type: "function_call", status: "completed", call_id: "c1", name: "read", arguments: '{"path":"z"}' };
    agree(await resp([fc, messageItem("m1", `one ${A}`)]), { calls: [{ name: "read", input: { path: "z" } }], text: "one ", finish: "completed" });
  });

  test("web_search_call then a leak, parallel calls off: the leak runs (a server tool spends no call)", async () => {
    const ws = { id: "ws1", type: "web_search_call", status: "completed", action: { type: "search", query: "q" } };
    agree(await resp([ws, messageItem("m1", `one ${A}`)], { parallel_tool_calls: false }), { calls: [readA], text: "one ", finish: "completed" });
  });

  test("incomplete for max_output_tokens decides the call; for content_filter a complete call stands, the status stays", async () => {
    agree(await resp([messageItem("m1", `one ${A}`)], {}, "incomplete", { incomplete_details: { reason: "max_output_tokens" } }), { calls: [readA], text: "one ", finish: "incomplete:max_output_tokens" });
    agree(await resp([messageItem("m1", `one ${A}`)], {}, "incomplete", { incomplete_details: { reason: "content_filter" } }), { calls: [readA], text: "one ", finish: "incomplete:content_filter" });
  });

  test("tool_choice forces read, the leak names write: nothing runs", async () => {
    agree(await resp([messageItem("m1", `one ${WRITE}`)], { tool_choice: { type: "function", name: "read" } }), { calls: [], text: `one ${WRITE}`, finish: "completed" });
  });
});
