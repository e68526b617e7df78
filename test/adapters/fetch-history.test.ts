/**
 * The fetch adapter's history pass (history.sanitize): replayed assistant turns go up with their
 * leaks replaced by the note, read with the tools the request itself declares. This is what lets
 * the 1.18 plugin, whose messages.transform hook knows only OpenCode's built-in tools, replace a
 * leak that names an MCP tool. Every body form a client may pass is read and replaced; only the
 * changed string differs from what the client sent; hard negatives (the tool not declared, a
 * fenced example, prose) go up untouched, and history.sanitize false turns the pass off.
 */
import { describe, expect, test } from "bun:test";
import { repairFetch } from "../../src/adapters/fetch.ts";
import { REQUEST_TAG_HEADER } from "../../src/adapters/options.ts";
import { withBody } from "../../src/adapters/request-body.ts";
import { REMOVED_NOTE } from "../../src/history/sanitize.ts";
import type { Hooks } from "@opencode-ai/plugin";
import { server } from "../../src/plugin/index.ts";
import { registerRepair } from "../../src/plugin/wiring.ts";

/** A GLM zero-argument call: a leak only when the request declares that tool (golden O03). */
const GLM = "<tool_call>mcp__db__list_tables</tool_call>";
const FENCED = "Like this:\n```\n<tool_call>mcp__db__list_tables</tool_call>\n```";
const PROSE = "A <tool_call>Weather</tool_call> block names the tool.";
const MCP_TOOL = { type: "function", function: { name: "mcp__db__list_tables", parameters: { type: "object", properties: {} } } };
const BASH_TOOL = { type: "function", function: { name: "bash", parameters: { type: "object", properties: { command: { type: "string" } }, required: ["command"] } } };
const URL_CHAT = "http://model.test/v1/chat/completions";

/** A chat body written with its own spacing, so a re-serialized body would show. */
function chatText(said: string, tools: object[] = [MCP_TOOL, BASH_TOOL]): string {
  return `{ "model" : "m",  "seed": 123456789012345678901,\n "tools": ${JSON.stringify(tools)},\n "messages": [{"role":"user","content":"list them"}, {"role": "assistant", "content": ${JSON.stringify(`Listing.\n${said}`)}}, {"role":"user","content":"and?"}] }`;
}

interface Sent {
  text: string;
  headers: Headers;
}

/** An upstream recording the body and headers it got (from init or from a Request), answering a clean reply. */
function recorder(): { base: typeof fetch; sent: Sent[] } {
  const sent: Sent[] = [];
  const base = async (input: string | URL | Request, init?: RequestInit) => {
    const request = new Request(input, init);
    const headers = new Headers(request.headers);
    sent.push({ text: await request.text(), headers });
    return new Response(JSON.stringify({ choices: [{ index: 0, message: { role: "assistant", content: "ok" }, finish_reason: "stop" }] }), { status: 200, headers: { "content-type": "application/json" } });
  };
  return { base: base as typeof fetch, sent };
}

const stream = (text: string) => new ReadableStream<Uint8Array>({ start: (c) => (c.enqueue(new TextEncoder().encode(text)), c.close()) });

const FORMS: [string, (text: string) => [string | Request, RequestInit | undefined]][] = [
  ["a string", (text) => [URL_CHAT, { method: "POST", headers: { "content-type": "application/json", "content-length": String(text.length) }, body: text }]],
  ["bytes", (text) => [URL_CHAT, { method: "POST", headers: { "content-type": "application/json" }, body: new TextEncoder().encode(text) }]],
  ["a Blob", (text) => [URL_CHAT, { method: "POST", body: new Blob([text], { type: "application/json" }) }]],
  ["a ReadableStream", (text) => [URL_CHAT, { method: "POST", headers: { "content-type": "application/json" }, body: stream(text), duplex: "half" } as RequestInit]],
  ["a Request", (text) => [new Request(URL_CHAT, { method: "POST", headers: { "content-type": "application/json" }, body: text }), undefined]],
];

describe("fetch adapter: history read with the request's own tools", () => {
  test.each(FORMS)("%s: the leak naming a declared MCP tool is replaced; every other byte goes up as sent", async (_form, make) => {
    const { base, sent } = recorder();
    const [input, init] = make(chatText(GLM));
    await repairFetch({}, base)(input, init);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.text).toBe(chatText(REMOVED_NOTE));
    expect(sent[0]!.headers.get("content-type")).toStartWith("application/json");
    // The length stated for the old body no longer holds: the transport states the new one.
    expect(sent[0]!.headers.get("content-length")).not.toBe(String(chatText(GLM).length));
  });

  test("the replaced body keeps its form: bytes stay bytes (no implicit text/plain), a Blob its type, a string a string", () => {
    const json = '{"a":1}';
    expect(withBody(URL_CHAT, { method: "POST", body: new TextEncoder().encode(json) }, "{}").init!.body).toBeInstanceOf(Uint8Array);
    expect(withBody(URL_CHAT, { method: "POST", body: json }, "{}").init!.body).toBe("{}");
    expect((withBody(URL_CHAT, { method: "POST", body: new Blob([json], { type: "application/json" }) }, "{}").init!.body as Blob).type).toStartWith("application/json");
  });

  test("a Request with init headers stating content-length: the stale length goes from both", () => {
    const request = new Request(URL_CHAT, { method: "POST", body: '{"a":1}', headers: { "content-length": "7" } });
    const sent = withBody(request, { headers: { "content-type": "application/json", "content-length": "7" } }, "{}");
    expect(new Headers(sent.init!.headers).has("content-length")).toBe(false);
    expect(new Headers(sent.init!.headers).get("content-type")).toBe("application/json");
  });

  test("hard negatives go up byte for byte: the tool not declared, a fenced example, a prose mention", async () => {
    for (const text of [chatText(GLM, [BASH_TOOL]), chatText(FENCED), chatText(PROSE)]) {
      const { base, sent } = recorder();
      await repairFetch({}, base)(URL_CHAT, { method: "POST", body: text });
      expect(sent[0]!.text).toBe(text);
    }
  });

  test("history.sanitize false leaves the body alone; with responseFix off the history pass still runs", async () => {
    const off = recorder();
    await repairFetch({ history: { sanitize: false } }, off.base)(URL_CHAT, { method: "POST", body: chatText(GLM) });
    expect(off.sent[0]!.text).toBe(chatText(GLM));
    const noFix = recorder();
    await repairFetch({ responseFix: { enabled: false } }, noFix.base)(URL_CHAT, { method: "POST", body: chatText(GLM) });
    expect(noFix.sent[0]!.text).toBe(chatText(REMOVED_NOTE));
  });

  test("a history option that cannot be read gets its default (on) and one debug line", async () => {
    const lines: string[] = [];
    const { base, sent } = recorder();
    const history = { get sanitize(): boolean { throw new Error("no"); } };
    await repairFetch({ history, debug: (line) => void lines.push(line) }, base)(URL_CHAT, { method: "POST", body: chatText(GLM) });
    expect(sent[0]!.text).toBe(chatText(REMOVED_NOTE));
    expect(lines).toContain("[dsml-fix] option history.sanitize could not be read; using true");
  });

  test("the 1.18 plugin's repair route (a tagged request) goes up with the MCP leak replaced; the tag never does", async () => {
    const { base, sent } = recorder();
    const scope = { fetch: base } as { fetch: typeof fetch; [key: symbol]: unknown };
    const route = registerRepair({ history: { sanitize: true } }, scope);
    await scope.fetch(URL_CHAT, { method: "POST", headers: { [REQUEST_TAG_HEADER]: route.tagFor("ses_1", "msg_1") }, body: chatText(GLM) });
    expect(sent[0]!.text).toBe(chatText(REMOVED_NOTE));
    expect(sent[0]!.headers.has(REQUEST_TAG_HEADER)).toBe(false);
  });
});

describe("the 1.18 plugin passes history.sanitize to its repairing fetch", () => {
  const client = { app: { log: async () => undefined }, session: { promptAsync: async () => undefined } };

  /** A request as OpenCode sends it on a wire route: tagged by chat.headers, through the process's fetch. */
  async function sentThroughPlugin(options: Record<string, unknown>): Promise<string> {
    const { base, sent } = recorder();
    const scope = { fetch: base } as { fetch: typeof fetch; [key: symbol]: unknown };
    const hooks = (await server({ client } as never, { providers: ["*"], ...options }, scope)) as Required<Hooks>;
    const output = { headers: { "content-type": "application/json" } as Record<string, string> };
    const model = { id: "deepseek-chat", providerID: "deepseek", api: { id: "deepseek-chat", npm: "@ai-sdk/openai-compatible" } };
    await hooks["chat.headers"]({ sessionID: "ses_1", provider: { id: "deepseek" }, model, message: { id: "msg_1" } } as never, output as never);
    expect(output.headers[REQUEST_TAG_HEADER]).toBeString();
    await scope.fetch(URL_CHAT, { method: "POST", headers: output.headers, body: chatText(GLM) });
    return sent[0]!.text;
  }

  test("on by default: the MCP leak its messages.transform could not see is replaced; off: the body goes up as built", async () => {
    expect(await sentThroughPlugin({})).toBe(chatText(REMOVED_NOTE));
    expect(await sentThroughPlugin({ history: { sanitize: false } })).toBe(chatText(GLM));
  });
});
