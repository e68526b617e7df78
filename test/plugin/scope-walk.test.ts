/**
 * Issue 27 item 3: scope holds on every way a fetch reaches a request. The plugin is driven through
 * its own hooks (config, chat.headers, text.complete) in a stand-in process, and one leaked call is
 * sent through each path (the global fetch, a provider fetch set in the config that calls the global
 * fetch or its own transport, a provider loader's fetch) for each kind of route: in scope on a wire
 * the adapter rewrites, out of scope, and in scope on a fallback route. Only the first is repaired
 * at the wire; a fallback route's reply is left to the text hook; an out-of-scope reply is never
 * touched anywhere.
 */
import { afterAll, describe, expect, test } from "bun:test";
import type { Hooks } from "@opencode-ai/plugin";
import { REQUEST_TAG_HEADER } from "../../src/adapters/options.ts";
import { REMOVED_NOTE } from "../../src/history/sanitize.ts";
import { server, type ProcessScope } from "../../src/plugin/index.ts";
import { block, live } from "../golden/notation.ts";
import { assemble, deltas, openAiTools, sseText } from "../security/support.ts";

const LEAK = live(block("tool_calls", [["bash", [["command", "echo hi > a.txt"]]]]));
const REPLY = sseText(deltas(`Writing it.\n${LEAK}`, 7));
const CHAT_URL = "https://model.example/v1/chat/completions";

interface RouteCase {
  providerID: string;
  modelID: string;
  npm: string;
  /** Chosen under OPENCODE_EXPERIMENTAL_NATIVE_LLM=1. */
  native?: boolean;
  expected: "wire" | "fallback" | "off";
}

/** `providers: ["deepseek", "opencode-go"]`: the scope, plus a provider the native runtime serves. */
const OPTIONS = { providers: ["deepseek", "opencode-go"], debug: true };
const ROUTES: Record<string, RouteCase> = {
  "in scope on a wire": { providerID: "deepseek", modelID: "deepseek-chat", npm: "@ai-sdk/openai-compatible", expected: "wire" },
  "out of scope (openai/gpt-4o)": { providerID: "openai", modelID: "gpt-4o", npm: "@ai-sdk/openai", expected: "off" },
  // Same provider (and config fetch) as the wire route: the decision is per request, not per provider.
  "fallback: a package the adapter does not rewrite": { providerID: "deepseek", modelID: "deepseek-r1-bedrock", npm: "@ai-sdk/amazon-bedrock", expected: "fallback" },
  "fallback: served by the native runtime": { providerID: "opencode-go", modelID: "deepseek-v4", npm: "@ai-sdk/openai-compatible", native: true, expected: "fallback" },
};

interface Seen {
  headers: Headers;
  body: string;
}

/** The stand-in process: its global fetch is the upstream, which answers every request with the leak. */
const seen: Seen[] = [];
const transport = async (_input: string | URL | Request, init?: RequestInit) => {
  seen.push({ headers: new Headers(init?.headers), body: String(init?.body) });
  return new Response(REPLY, { status: 200, headers: { "content-type": "text/event-stream" } });
};
const processScope: ProcessScope = { fetch: Object.assign(transport, { preconnect: () => undefined }) as typeof fetch };

type Fetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;
/** A user's (or another plugin's) fetch in the config: adds a header and sends with `send`. */
const configFetch = (send: () => Fetch): Fetch => (input, init) => send()(input, { ...init, headers: { ...(init?.headers as Record<string, string>), "x-user-fetch": "ran" } });
/** github-copilot's loader (OpenCode 1.18.33): spreads the headers, adds its auth, calls the global fetch. */
const loaderFetch: Fetch = (input, init) => processScope.fetch(input, { ...init, headers: { ...(init?.headers as Record<string, string>), Authorization: "Bearer gho_x" } });

const logged: string[] = [];
/** assistant message id -> what OpenCode stored for it (the fallback's lookup). */
const stored = new Map<string, { role: string; parentID: string; providerID: string; modelID: string }>();
const client = {
  app: { log: async ({ body }: { body: { message: string } }) => void logged.push(body.message) },
  session: {
    promptAsync: async () => undefined,
    message: async ({ path }: { path: { messageID: string } }) => ({ data: { info: stored.get(path.messageID) } }),
  },
};

const hooks = (await server({ client } as never, OPTIONS, processScope)) as Required<Hooks>;
const configured = (send: () => Fetch) => ({ options: { baseURL: "https://model.example/v1", fetch: configFetch(send) } });
const viaGlobal = { provider: { deepseek: configured(() => processScope.fetch), openai: configured(() => processScope.fetch), "opencode-go": configured(() => processScope.fetch) } };
const viaTransport = { provider: { deepseek: configured(() => transport), openai: configured(() => transport), "opencode-go": configured(() => transport) } };
await hooks.config(viaGlobal as never);
await hooks.config(viaTransport as never);
const installed = (cfg: { provider: Record<string, { options: { fetch: Fetch } }> }, providerID: string) => cfg.provider[providerID]!.options.fetch;

const PATHS: Record<string, (route: RouteCase) => Fetch> = {
  "the global fetch": () => processScope.fetch,
  "a config fetch that calls the global fetch": (route) => installed(viaGlobal, route.providerID),
  "a config fetch with its own transport": (route) => installed(viaTransport, route.providerID),
  "a provider loader's fetch": () => loaderFetch,
};

const previousNative = process.env.OPENCODE_EXPERIMENTAL_NATIVE_LLM;
afterAll(() => {
  if (previousNative === undefined) delete process.env.OPENCODE_EXPERIMENTAL_NATIVE_LLM;
  else process.env.OPENCODE_EXPERIMENTAL_NATIVE_LLM = previousNative;
});

/** What `chat.headers` adds for this route (under the native flag when the route asks for it). */
async function headersFor(route: RouteCase, sessionID: string, messageID: string): Promise<Record<string, string>> {
  if (route.native) process.env.OPENCODE_EXPERIMENTAL_NATIVE_LLM = "1";
  else delete process.env.OPENCODE_EXPERIMENTAL_NATIVE_LLM;
  const output = { headers: { "content-type": "application/json" } as Record<string, string> };
  const model = { id: route.modelID, providerID: route.providerID, api: { id: route.modelID, npm: route.npm } };
  await hooks["chat.headers"]({ sessionID, provider: { id: route.providerID }, model, message: { id: messageID } } as never, output as never);
  return output.headers;
}

/** The adapter's response lines ("[dsml] response ses/msg#1 ..."): written only when the wire repaired a reply. */
const wireLines = () => logged.filter((line) => /^\[dsml\] response \S*#/.test(line));
const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

let cell = 0;
describe("every way a fetch reaches a request, for every kind of route", () => {
  for (const [pathName, pathFetch] of Object.entries(PATHS)) {
    for (const [routeName, route] of Object.entries(ROUTES)) {
      const verdict = route.expected === "wire" ? "repaired at the wire" : route.expected === "fallback" ? "left to the text hook" : "never touched";
      test(`${pathName}, ${routeName}: ${verdict}`, async () => {
        const sessionID = `ses_${++cell}`;
        const turn = `msg_u${cell}`;
        const headers = await headersFor(route, sessionID, turn);
        expect(REQUEST_TAG_HEADER in headers).toBe(route.expected === "wire");
        const body = JSON.stringify({ model: route.modelID, stream: true, messages: [{ role: "user", content: "write it" }], tools: openAiTools() });
        const before = { seen: seen.length, wire: wireLines().length };

        const response = await pathFetch(route)(CHAT_URL, { method: "POST", headers, body });
        const text = await response.text();
        await settle();

        // Exactly one request went upstream, without the tag, with the body as sent.
        expect(seen.length).toBe(before.seen + 1);
        const upstream = seen.at(-1)!;
        expect(upstream.headers.has(REQUEST_TAG_HEADER)).toBe(false);
        expect(upstream.body).toBe(body);
        if (pathName.startsWith("a config fetch")) expect(upstream.headers.get("x-user-fetch")).toBe("ran");
        if (route.expected === "wire") {
          expect(assemble(text).calls.map((call) => call.name)).toEqual(["bash"]);
          expect(wireLines().length).toBe(before.wire + 1);
        } else {
          // Byte for byte what the upstream sent: no call, no rewrite, no report.
          expect(text).toBe(REPLY);
          expect(wireLines().length).toBe(before.wire);
        }

        // OpenCode then hands the finished text part to the text hook.
        const assistant = `msg_a${cell}`;
        stored.set(assistant, { role: "assistant", parentID: turn, providerID: route.providerID, modelID: route.modelID });
        const part = { text: `Writing it.\n${LEAK}` };
        await hooks["experimental.text.complete"]({ sessionID, messageID: assistant, partID: "prt_1" } as never, part as never);
        if (route.expected === "fallback") expect(part.text).toBe(`Writing it.\n${REMOVED_NOTE}`);
        else expect(part.text).toBe(`Writing it.\n${LEAK}`);
      });
    }
  }
});
