/**
 * Hostile review 49: scope on both hosts. A route outside `providers` is left byte for byte as it
 * was (request, response, history, system prompt), and the remembered route of one provider never
 * decides another's. All tests here are hard negatives (none failed on main), kept because they pin
 * the "untouched" standard end to end on both hosts, where unit tests only check routeInScope.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, spyOn, test } from "bun:test";
import path from "node:path";
import { server } from "../../src/plugin/index.ts";
import type { V2Message, V2ModelRef } from "../../src/plugin/v2/host-types.ts";
import { block, live } from "../golden/notation.ts";
import { openAiTools, sseText, deltas, type Json } from "../security/support.ts";
import { chatStream, pathOf, requestBody, startFakeWires, type FakeWires, type Wire } from "../v2/fake-wires.ts";
import { loadLikeV2, StandInHost } from "../v2/stand-in-host.ts";

const LEAK = live(`Let me check.\n\n${block("tool_calls", [["bash", [["command", "npm test"]]]])}`);
const CHAT_URL = "https://model.example/v1/chat/completions";

type ModelInfo = { providerID: string; id: string; api: { id: string; npm: string }; family?: string };
/** The same model id under two providers: one an alias of DeepSeek (leak-prone), the other a Llama. */
const ALIAS_A: ModelInfo = { providerID: "gateway-a", id: "fast", api: { id: "deepseek-chat", npm: "@ai-sdk/openai-compatible" }, family: "deepseek" };
const PLAIN_B: ModelInfo = { providerID: "gateway-b", id: "fast", api: { id: "llama-3.3-70b", npm: "@ai-sdk/openai-compatible" }, family: "llama" };

describe("V1: a route out of scope is untouched", () => {
  async function start(options: unknown) {
    const seen: { input: unknown; init: unknown; response: Response }[] = [];
    const upstream = async (input: unknown, init: unknown) => {
      const response = new Response(sseText(deltas(LEAK, 7)), { status: 200, headers: { "content-type": "text/event-stream" } });
      seen.push({ input, init, response });
      return response;
    };
    const scope = { fetch: Object.assign(upstream, { preconnect: () => undefined }) as unknown as typeof fetch } as { fetch: typeof fetch; [key: symbol]: unknown };
    const client = { app: { log: async () => undefined }, tui: { showToast: async () => undefined }, session: { promptAsync: async () => undefined, get: async () => ({ data: {} }), message: async () => ({ error: {} }) } };
    const hooks = await server({ client } as never, options as never, scope);
    return { hooks, scope, seen };
  }

  test("providers [\"auto\"]: after gateway-a/fast (a DeepSeek alias) was seen, gateway-b/fast is out of scope in every hook, and its request, response, history and system prompt are as they came", async () => {
    const { hooks, scope, seen } = await start(undefined);
    const headersA = { headers: {} as Record<string, string> };
    await hooks["chat.headers"]!({ sessionID: "ses_a", agent: "build", provider: { id: ALIAS_A.providerID }, model: ALIAS_A, message: { id: "m1" } } as never, headersA as never);
    expect(Object.keys(headersA.headers)).toHaveLength(1);
    const headersB = { headers: {} as Record<string, string> };
    await hooks["chat.headers"]!({ sessionID: "ses_b", agent: "build", provider: { id: PLAIN_B.providerID }, model: PLAIN_B, message: { id: "m1" } } as never, headersB as never);
    expect(headersB.headers).toEqual({});
    const init = { method: "POST", headers: { "content-type": "application/json", ...headersB.headers }, body: JSON.stringify({ model: "llama-3.3-70b", stream: true, messages: [], tools: openAiTools() }) };
    const response = await scope.fetch(CHAT_URL, init);
    expect(seen).toHaveLength(1);
    expect(seen[0]!.init).toBe(init);
    expect(seen[0]!.input).toBe(CHAT_URL);
    expect(response).toBe(seen[0]!.response);
    expect(await response.text()).toBe(sseText(deltas(LEAK, 7)));
    const history = [
      { info: { role: "assistant", id: "a0", sessionID: "ses_b" }, parts: [{ type: "text", text: LEAK }] },
      { info: { role: "user", id: "m2", sessionID: "ses_b", model: { providerID: PLAIN_B.providerID, modelID: PLAIN_B.id } }, parts: [{ type: "text", text: "next" }] },
    ];
    const before = structuredClone(history);
    await hooks["experimental.chat.messages.transform"]!({} as never, { messages: history } as never);
    expect(history).toEqual(before);
    const system = { system: [] as string[] };
    await hooks["experimental.chat.system.transform"]!({ sessionID: "ses_b", model: { ...PLAIN_B, providerID: PLAIN_B.providerID } } as never, system as never);
    expect(system.system).toEqual([]);
  });
});

// ---------------------------------------------------------------- V2
const ROOT = path.resolve(import.meta.dir, "../..");
let upstream: FakeWires;
let script: (wire: Wire, body: unknown) => string = () => "Done.";
let errorSpy: ReturnType<typeof spyOn>;
beforeAll(async () => {
  upstream = await startFakeWires((wire, body) => script(wire, body));
});
afterAll(() => upstream.close());
beforeEach(() => {
  upstream.requests.length = 0;
  errorSpy = spyOn(console, "error").mockImplementation(() => undefined);
});
afterEach(() => errorSpy.mockRestore());
const user = (id: string, text: string): V2Message => ({ id, role: "user", content: [{ type: "text", text }] });

describe("V2: a route out of scope is untouched", () => {
  async function rawReply(options: unknown, model: V2ModelRef) {
    const { definition } = await loadLikeV2(ROOT);
    const host = new StandInHost();
    const cleanup = (await definition.setup!(host.context(options))) as () => Promise<void>;
    const messages: V2Message[] = [{ id: "a0", role: "assistant", content: [{ type: "text", text: LEAK }] } as V2Message, user("msg_u1", "run")];
    const before = structuredClone(messages);
    const built = await host.buildContext("ses_1", model, messages);
    script = () => LEAK;
    const body = requestBody("chat", "run", true);
    const response = await host.nativeFetch("ses_1", model)(`${upstream.baseURL}${pathOf("chat")}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    const raw = await response.text();
    await cleanup();
    return { raw, historyUntouched: JSON.stringify(built.messages) === JSON.stringify(before), system: built.system, sentBody: upstream.requests[0]!.body as Json, body };
  }

  test("providers [\"deepseek\"]: a leak from my-llama/llama-3.3-70b reaches the client byte for byte; its request body and history are as they were", async () => {
    const out = await rawReply({ providers: ["deepseek"] }, { providerID: "my-llama", id: "llama-3.3-70b" });
    expect(out.raw).toBe(chatStream(LEAK));
    expect(out.historyUntouched).toBe(true);
    expect(out.system).toEqual([]);
    expect(out.sentBody).toEqual(out.body);
  });

  test("providers [\"auto\"]: the same (a Llama model is not leak-prone), and on the in-scope DeepSeek route the reply is rewritten (so the test above can fail)", async () => {
    const out = await rawReply(undefined, { providerID: "my-llama", id: "llama-3.3-70b" });
    expect(out.raw).toBe(chatStream(LEAK));
    const inScope = await rawReply(undefined, { providerID: "deepseek", id: "deepseek-chat" });
    expect(inScope.raw).not.toBe(chatStream(LEAK));
    expect(inScope.historyUntouched).toBe(false);
  });
});
