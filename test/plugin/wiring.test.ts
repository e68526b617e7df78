import { describe, expect, test } from "bun:test";
import type { Config } from "@opencode-ai/plugin";
import { REQUEST_TAG_HEADER, type AdapterResult } from "../../src/adapters/options.ts";
import { repairModules } from "../../src/plugin/repair-modules.ts";
import { chainConfiguredFetches, readTag, registerRepair, tagOf } from "../../src/plugin/wiring.ts";
import { block, live } from "../golden/notation.ts";
import { assemble, deltas, openAiTools, sseText, type Json } from "../security/support.ts";

const LEAK = `Writing it.\n${live(block("tool_calls", [["bash", [["command", "echo hi > a.txt"]]]]))}`;
const CHAT_URL = "https://model.example/v1/chat/completions";

interface Seen {
  url: string;
  headers: Headers;
}

/** A process-like scope: its `fetch` is the upstream, recording what reaches the server. */
function fakeProcess(reply = LEAK) {
  const seen: Seen[] = [];
  const upstream = async (input: string | URL | Request, init?: RequestInit) => {
    const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
    seen.push({ url, headers: new Headers(input instanceof Request ? input.headers : init?.headers) });
    return new Response(sseText(deltas(reply, 7)), { status: 200, headers: { "content-type": "text/event-stream" } });
  };
  const scope = { fetch: Object.assign(upstream, { preconnect: () => undefined }) as typeof fetch } as { fetch: typeof fetch; [key: symbol]: unknown };
  return { scope, seen, upstream };
}

function chatInit(headers: HeadersInit): RequestInit {
  return { method: "POST", headers, body: JSON.stringify({ model: "deepseek-chat", stream: true, messages: [{ role: "user", content: "write it" }], tools: openAiTools() as Json[] }) };
}

function recording() {
  const results: AdapterResult[] = [];
  return { results, adapter: { onResult: (r: AdapterResult) => void results.push(r) } };
}

/** google-vertex's loader (OpenCode 1.18.33): fetches a token, copies the headers into a Headers object, and calls the global fetch. */
function vertexLoaderFetch(scope: { fetch: typeof fetch }) {
  return async (input: string | URL | Request, init?: RequestInit) => {
    const token = await Promise.resolve("ya29.vertex-token");
    const headers = new Headers(init?.headers);
    headers.set("Authorization", `Bearer ${token}`);
    return scope.fetch(input, { ...init, headers });
  };
}

/** github-copilot's loader (OpenCode 1.18.33): spreads the headers into a plain object, adds its own, calls the global fetch. */
function copilotLoaderFetch(scope: { fetch: typeof fetch }) {
  return async (input: string | URL | Request, init?: RequestInit) => {
    const headers: Record<string, string> = { "x-initiator": "user", ...(init?.headers as Record<string, string>), Authorization: "Bearer gho_x", "Openai-Intent": "conversation-edits" };
    return scope.fetch(input, { ...init, headers });
  };
}

describe("the global dispatcher", () => {
  test("an untagged request reaches the upstream untouched: same input, same init", async () => {
    const { scope } = fakeProcess();
    const calls: unknown[][] = [];
    const upstream = scope.fetch;
    scope.fetch = Object.assign(async (...args: unknown[]) => (calls.push(args), upstream(...(args as Parameters<typeof fetch>))), { preconnect: () => undefined }) as typeof fetch;
    registerRepair({}, scope);
    const init = chatInit({ "content-type": "application/json" });
    const response = await scope.fetch(CHAT_URL, init);
    expect(calls).toHaveLength(1);
    expect(calls[0]![0]).toBe(CHAT_URL);
    expect(calls[0]![1]).toBe(init);
    // Not repaired: the leak is still text.
    expect(assemble(await response.text()).calls).toEqual([]);
  });

  test("a tagged request is repaired and its tag never reaches the upstream, whatever form the headers take", async () => {
    for (const form of ["object", "Headers", "array", "Request"] as const) {
      const { scope, seen } = fakeProcess();
      const { results, adapter } = recording();
      const route = registerRepair(adapter, scope);
      const tag = route.tagFor("ses_1", "msg_1");
      const headers = { "content-type": "application/json", [REQUEST_TAG_HEADER]: tag };
      const init = chatInit(form === "Headers" ? new Headers(headers) : form === "array" ? Object.entries(headers) : headers);
      const response = form === "Request" ? await scope.fetch(new Request(CHAT_URL, init)) : await scope.fetch(CHAT_URL, init);
      const reply = assemble(await response.text());
      expect(seen).toHaveLength(1);
      expect(seen[0]!.headers.has(REQUEST_TAG_HEADER)).toBe(false);
      expect(seen[0]!.headers.get("content-type")).toBe("application/json");
      expect(reply.calls.map((c) => c.name)).toEqual(["bash"]);
      expect(results.map((r) => readTag(r.requestTag))).toEqual([{ sessionID: "ses_1", messageID: "msg_1" }]);
    }
  });

  test("installed once per process; each plugin instance gets its own tags and its own results", async () => {
    const { scope, seen } = fakeProcess();
    const first = recording();
    const second = recording();
    const a = registerRepair(first.adapter, scope);
    const dispatcher = scope.fetch;
    const b = registerRepair(second.adapter, scope);
    expect(scope.fetch).toBe(dispatcher);
    await (await scope.fetch(CHAT_URL, chatInit({ [REQUEST_TAG_HEADER]: b.tagFor("ses_b", "msg_b") }))).text();
    await (await scope.fetch(CHAT_URL, chatInit({ [REQUEST_TAG_HEADER]: a.tagFor("ses_a", "msg_a") }))).text();
    expect(first.results.map((r) => readTag(r.requestTag).sessionID)).toEqual(["ses_a"]);
    expect(second.results.map((r) => readTag(r.requestTag).sessionID)).toEqual(["ses_b"]);
    expect(seen.every((s) => !s.headers.has(REQUEST_TAG_HEADER))).toBe(true);
  });

  test("the repair is loaded in the background: a tagged request sent before it arrived waits for it and is repaired", async () => {
    const { scope, seen } = fakeProcess();
    const { results, adapter } = recording();
    let arrive!: () => void;
    const arrived = new Promise<void>((resolve) => (arrive = resolve));
    const route = registerRepair(adapter, scope, async () => (await arrived, repairModules()));
    const pending = scope.fetch(CHAT_URL, chatInit({ [REQUEST_TAG_HEADER]: route.tagFor("ses_1", "msg_1") }));
    await new Promise((resolve) => setTimeout(resolve, 10));
    // Nothing went out while the repair was still on its way: the request was not sent unrepaired.
    expect(seen).toHaveLength(0);
    arrive();
    const reply = assemble(await (await pending).text());
    expect(reply.calls.map((c) => c.name)).toEqual(["bash"]);
    expect(seen[0]!.headers.has(REQUEST_TAG_HEADER)).toBe(false);
    expect(results).toHaveLength(1);
  });

  test("a repair that cannot be loaded breaks nothing: every tagged request goes on without its tag, its reply as it came", async () => {
    for (const form of ["object", "Headers", "array", "Request"] as const) {
      const { scope, seen } = fakeProcess();
      const { results, adapter } = recording();
      const route = registerRepair(adapter, scope, () => Promise.reject(new Error("missing module")));
      const headers = { "content-type": "application/json", [REQUEST_TAG_HEADER]: route.tagFor("ses_1", "msg_1") };
      const init = chatInit(form === "Headers" ? new Headers(headers) : form === "array" ? Object.entries(headers) : headers);
      const response = form === "Request" ? await scope.fetch(new Request(CHAT_URL, init)) : await scope.fetch(CHAT_URL, init);
      expect(await response.text()).toBe(sseText(deltas(LEAK, 7)));
      expect(seen).toHaveLength(1);
      expect(seen[0]!.headers.has(REQUEST_TAG_HEADER)).toBe(false);
      expect(seen[0]!.headers.get("content-type")).toBe("application/json");
      expect(results).toEqual([]);
    }
  });

  test("a tag no instance claims is removed and the response passes through", async () => {
    const { scope, seen } = fakeProcess();
    registerRepair({}, scope);
    const response = await scope.fetch(CHAT_URL, chatInit({ [REQUEST_TAG_HEADER]: "i999 ses/msg" }));
    expect(assemble(await response.text()).calls).toEqual([]);
    expect(seen[0]!.headers.has(REQUEST_TAG_HEADER)).toBe(false);
  });

  test("headers that throw when read pass through untouched, and a reload's instances are bounded", async () => {
    const { scope, seen } = fakeProcess();
    const { results, adapter } = recording();
    const first = registerRepair(adapter, scope);
    let reads = 0;
    // Throws on the dispatcher's read only, so the upstream can still read it.
    const hostile = { method: "POST", get headers() { if (reads++ === 0) throw new Error("no"); return {}; } } as unknown as RequestInit;
    expect((await scope.fetch(CHAT_URL, hostile)).status).toBe(200);
    expect(seen).toHaveLength(1);
    for (let i = 0; i < 100; i++) registerRepair({}, scope);
    // Review 48 (finding 8): the bound drops the least recently used instance, and one still
    // tagging requests (another directory's, idle for a while) is live again at its next tag.
    await (await scope.fetch(CHAT_URL, chatInit({ [REQUEST_TAG_HEADER]: first.tagFor("ses", "msg") }))).text();
    expect(results).toHaveLength(1);
    expect(seen[1]!.headers.has(REQUEST_TAG_HEADER)).toBe(false);
    // A released instance (the host disposed it): its tag is only removed, its adapter is not called.
    first.release();
    await (await scope.fetch(CHAT_URL, chatInit({ [REQUEST_TAG_HEADER]: first.tagFor("ses", "msg2") }))).text();
    expect(results).toHaveLength(1);
    expect(seen[2]!.headers.has(REQUEST_TAG_HEADER)).toBe(false);
  });

  test("past the bound the least recently used instance goes, not the oldest registered (review 48, finding 8)", async () => {
    const { scope } = fakeProcess();
    const a = recording();
    const b = recording();
    const older = registerRepair(a.adapter, scope);
    const younger = registerRepair(b.adapter, scope);
    // Tags as sent earlier (a tag read again without tagFor does not count as a use).
    const olderTag = older.tagFor("ses", "m1");
    const youngerTag = younger.tagFor("ses", "m1");
    for (let i = 0; i < 62; i++) registerRepair({}, scope);
    older.tagFor("ses", "m2");
    // The 65th instance: the one used least recently (younger) goes; the older one, used since, stays.
    registerRepair({}, scope);
    await (await scope.fetch(CHAT_URL, chatInit({ [REQUEST_TAG_HEADER]: olderTag }))).text();
    await (await scope.fetch(CHAT_URL, chatInit({ [REQUEST_TAG_HEADER]: youngerTag }))).text();
    expect({ older: a.results.length, younger: b.results.length }).toEqual({ older: 1, younger: 0 });
  });

  test("tagOf reads every header form, case-insensitively, and nothing else", () => {
    expect(tagOf(CHAT_URL, { headers: { "X-Dsml-Fix-Tag": "t" } })).toBe("t");
    expect(tagOf(CHAT_URL, { headers: [["x-dsml-fix-tag", "t"]] })).toBe("t");
    expect(tagOf(CHAT_URL, { headers: new Headers({ "x-dsml-fix-tag": "t" }) })).toBe("t");
    expect(tagOf(new Request(CHAT_URL, { headers: { "x-dsml-fix-tag": "t" } }), undefined)).toBe("t");
    expect(tagOf(CHAT_URL, { headers: { "x-dsml-fix-tags": "t" } })).toBeUndefined();
    expect(tagOf(CHAT_URL, undefined)).toBeUndefined();
  });
});

describe("provider loaders' own fetches are chained, never replaced", () => {
  for (const [name, loader] of [["google-vertex", vertexLoaderFetch], ["github-copilot", copilotLoaderFetch]] as const) {
    for (const order of ["loader first", "plugin first"] as const) {
      test(`${name} (${order}): its auth reaches the server, the tag does not, the leak becomes a call`, async () => {
        const { scope, seen } = fakeProcess();
        const { results, adapter } = recording();
        let providerFetch = order === "loader first" ? loader(scope) : undefined;
        const route = registerRepair(adapter, scope);
        providerFetch ??= loader(scope);
        const response = await providerFetch(CHAT_URL, chatInit({ "content-type": "application/json", [REQUEST_TAG_HEADER]: route.tagFor("ses_1", "msg_1") }));
        expect(assemble(await response.text()).calls.map((c) => c.name)).toEqual(["bash"]);
        expect(seen).toHaveLength(1);
        expect(seen[0]!.headers.get("authorization")).toBe(name === "google-vertex" ? "Bearer ya29.vertex-token" : "Bearer gho_x");
        expect(seen[0]!.headers.has(REQUEST_TAG_HEADER)).toBe(false);
        expect(results).toHaveLength(1);
      });
    }
  }
});

describe("chainConfiguredFetches", () => {
  const providersOf = (cfg: Config) => (cfg as { provider?: Record<string, { options?: Record<string, unknown> }> }).provider ?? {};

  test("a fetch set in the config is chained: the repair runs in front of it and it never sees the tag; installing twice wraps once", async () => {
    const reached: Headers[] = [];
    const userFetch = async (_input: string | URL | Request, init?: RequestInit) => {
      reached.push(new Headers(init?.headers));
      return new Response(sseText(deltas(LEAK, 7)), { status: 200, headers: { "content-type": "text/event-stream" } });
    };
    const cfg = { provider: { custom: { options: { fetch: userFetch } }, plain: { options: { baseURL: "http://x" } } } } as unknown as Config;
    const { scope } = fakeProcess();
    const { results, adapter } = recording();
    const route = registerRepair(adapter, scope);
    expect(chainConfiguredFetches(cfg, scope)).toEqual(["custom"]);
    expect(chainConfiguredFetches(cfg, scope)).toEqual([]);
    const installed = providersOf(cfg).custom!.options!.fetch as typeof fetch;
    expect(installed).not.toBe(userFetch);
    const response = await installed(CHAT_URL, chatInit({ [REQUEST_TAG_HEADER]: route.tagFor("ses", "msg") }));
    expect(assemble(await response.text()).calls.map((c) => c.name)).toEqual(["bash"]);
    expect(reached).toHaveLength(1);
    expect(reached[0]!.has(REQUEST_TAG_HEADER)).toBe(false);
    expect(results).toHaveLength(1);
  });

  test("a chained fetch decides like the global one: untagged requests reach it untouched, each instance's tag is repaired by that instance", async () => {
    const calls: [unknown, RequestInit | undefined][] = [];
    const userFetch = async (input: string | URL | Request, init?: RequestInit) => {
      calls.push([input, init]);
      return new Response(sseText(deltas(LEAK, 7)), { status: 200, headers: { "content-type": "text/event-stream" } });
    };
    const cfg = { provider: { custom: { options: { fetch: userFetch } } } } as unknown as Config;
    const { scope } = fakeProcess();
    const first = recording();
    const second = recording();
    registerRepair(first.adapter, scope);
    const b = registerRepair(second.adapter, scope);
    chainConfiguredFetches(cfg, scope);
    const installed = providersOf(cfg).custom!.options!.fetch as typeof fetch;

    const untagged = chatInit({ "content-type": "application/json" });
    const plain = await installed(CHAT_URL, untagged);
    expect(assemble(await plain.text()).calls).toEqual([]);
    expect(calls[0]![1]).toBe(untagged);

    const tagged = await installed(CHAT_URL, chatInit({ [REQUEST_TAG_HEADER]: b.tagFor("ses_b", "msg_b") }));
    expect(assemble(await tagged.text()).calls.map((c) => c.name)).toEqual(["bash"]);
    expect(first.results).toEqual([]);
    expect(second.results.map((r) => readTag(r.requestTag).sessionID)).toEqual(["ses_b"]);
  });

  test("providers without a fetch are left exactly as they were: no entry is created, no fetch is set", () => {
    const cfg = { provider: { plain: { options: { baseURL: "http://x" } }, bare: {} } } as unknown as Config;
    const before = JSON.stringify(cfg);
    expect(chainConfiguredFetches(cfg, fakeProcess().scope)).toEqual([]);
    expect(JSON.stringify(cfg)).toBe(before);
    expect(providersOf(cfg).plain!.options!.fetch).toBeUndefined();
    const empty: Config = {};
    expect(chainConfiguredFetches(empty, fakeProcess().scope)).toEqual([]);
    expect(empty).toEqual({});
  });
});
