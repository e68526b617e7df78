/**
 * Hostile review 49: the plugin listed twice for one host (V1 `server`, src/plugin/index.ts, and
 * V2 `setup`, src/plugin/v2/setup.ts; merge in src/plugin/wiring.ts). Can a later entry, or the
 * order of entries, widen what the plugin acts on? The tests that were FINDINGs are named by the
 * rule now kept (fixed in src/plugin/wiring.ts narrowScope, src/plugin/scope.ts ActingScope, both
 * hosts and src/plugin/v2/language.ts); the others are hard negatives (say so in their name).
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, spyOn, test } from "bun:test";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { jsonSchema, streamText, tool } from "ai";
import path from "node:path";
import { server } from "../../src/plugin/index.ts";
import type { V2Message, V2ModelRef } from "../../src/plugin/v2/host-types.ts";
import { block, live } from "../golden/notation.ts";
import { assemble, deltas, openAiTools, sseText, type Json } from "../security/support.ts";
import { callsIn, pathOf, requestBody, startFakeWires, type FakeWires, type Wire } from "../v2/fake-wires.ts";
import { loadLikeV2, StandInHost } from "../v2/stand-in-host.ts";

const LEAK = live(`Let me check.\n\n${block("tool_calls", [["bash", [["command", "npm test"]]]])}`);
const CHAT_URL = "https://model.example/v1/chat/completions";
const SERVE = ["/usr/bin/bun", "/$bunfs/root/src/index.js", "serve"];
const savedArgv = process.argv;
afterEach(() => {
  process.argv = savedArgv;
});

type ModelInfo = { providerID: string; id: string; api: { id: string; npm: string }; family?: string };
const DEEPSEEK: ModelInfo = { providerID: "deepseek", id: "deepseek-chat", api: { id: "deepseek-chat", npm: "@ai-sdk/openai-compatible" } };
/** A provider the user did not name, serving a model of a leak-prone family (in scope for "auto" and "*"). */
const GATEWAY: ModelInfo = { providerID: "gateway", id: "qwen3-coder", api: { id: "qwen3-coder", npm: "@ai-sdk/openai-compatible" } };
/** A provider the user did not name, serving a model outside every leak-prone family (in scope only for "*"). */
const LOCAL: ModelInfo = { providerID: "my-llama", id: "llama-3.3-70b", api: { id: "llama-3.3-70b", npm: "@ai-sdk/openai-compatible" } };

type Scope = { fetch: typeof fetch; [key: symbol]: unknown };
function fakeProcess() {
  let reply = LEAK;
  const upstream = async () => new Response(sseText(deltas(reply, 7)), { status: 200, headers: { "content-type": "text/event-stream" } });
  const scope = { fetch: Object.assign(upstream, { preconnect: () => undefined }) as unknown as typeof fetch } as Scope;
  return { scope, setReply: (text: string) => void (reply = text) };
}

/** One load of the plugin list (1.18 hands every entry of one load the same input object). */
type Load = { client?: unknown; wakes?: string[]; lines?: string[] };

async function startV1(options: unknown, proc: ReturnType<typeof fakeProcess>, load: Load) {
  const wakes: string[] = (load.wakes ??= []);
  const lines: string[] = (load.lines ??= []);
  load.client ??= {
    app: { log: async ({ body }: { body: { message: string } }) => void lines.push(body.message) },
    tui: { showToast: async () => undefined },
    session: {
      promptAsync: async ({ path: p }: { path: { id: string } }) => void wakes.push(p.id),
      get: async ({ path: p }: { path: { id: string } }) => ({ data: { id: p.id } }),
      message: async () => ({ error: { name: "NotFoundError" } }),
    },
  };
  process.argv = SERVE;
  const hooks = await server(load as never, options as never, proc.scope);
  process.argv = savedArgv;
  return { hooks, proc };
}
type V1 = Awaited<ReturnType<typeof startV1>>;

/** One model request: chat.headers of every instance (load order), then the process fetch. */
async function request(instances: V1[], model: ModelInfo, text = LEAK) {
  const proc = instances[0]!.proc;
  proc.setReply(text);
  const output = { headers: {} as Record<string, string> };
  for (const v1 of instances) {
    await v1.hooks["chat.headers"]?.({ sessionID: "ses_1", agent: "build", provider: { id: model.providerID }, model, message: { id: "msg_u1" } } as never, output as never);
  }
  const body: Json = { model: model.api.id, stream: true, messages: [{ role: "user", content: "go" }], tools: openAiTools() };
  const response = await proc.scope.fetch(CHAT_URL, { method: "POST", headers: { "content-type": "application/json", ...output.headers }, body: JSON.stringify(body) });
  return { tagged: Object.keys(output.headers).length > 0, calls: assemble(await response.text()).calls.map((c) => c.name) };
}

/** Both entries of one load, in the given order; the calls a leak on `model` gives, and the log. */
async function v1Twice(entries: unknown[], model: ModelInfo) {
  const proc = fakeProcess();
  const load: Load = {};
  const instances: V1[] = [];
  for (const options of entries) instances.push(await startV1(options, proc, load));
  const result = await request(instances, model);
  return { ...result, lines: load.lines! };
}

describe("V1 listed twice: a later entry's narrower `providers` (a security option, spec.ts)", () => {
  // Was a FINDING (severity: wrong execution: a leaked call is run on a route one of the entries scoped
  // out; src/plugin/wiring.ts mergeRestrictions + src/plugin/index.ts, which hand over only
  // responseFix and parse). `providers` is marked `security: true` in src/options/spec.ts ("Where
  // the plugin acts"), but a later entry's narrower list is dropped: the global config lists the
  // plugin with `providers: ["*"]`, the project narrows it to `["deepseek"]` (or lists it again
  // under a `file:` path), and a leak from a provider only the first entry names is still turned
  // into a real bash call. Worse, the ORDER decides: the same two entries the other way round
  // leave that route alone (the hard negative below). Expected: the scope both entries allow (an
  // intersection, as allowTools), whatever the order, and the warning names it.
  test("providers is the overlap of the entries: [\"*\"] then [\"deepseek\"] leaves an unnamed provider's leak as text, and the warning names providers", async () => {
    const { calls, lines } = await v1Twice([{ providers: ["*"] }, { providers: ["deepseek"] }], LOCAL);
    expect(calls).toEqual([]);
    expect(lines.filter((l) => l.includes("listed more than once") && l.includes("providers"))).toHaveLength(1);
  });

  test("providers is the overlap: [\"auto\"] then [\"deepseek\"] leaves a Qwen model's leak on another provider as text", async () => {
    const { calls } = await v1Twice([{ providers: ["auto"] }, { providers: ["deepseek"] }], GATEWAY);
    expect(calls).toEqual([]);
  });

  test("hard negative: [\"deepseek\"] then [\"*\"]: the unnamed provider is left alone (order must not matter; the test above can fail)", async () => {
    const { calls, tagged } = await v1Twice([{ providers: ["deepseek"] }, { providers: ["*"] }], LOCAL);
    expect({ calls, tagged }).toEqual({ calls: [], tagged: false });
  });

  test("hard negative: both entries name the route: the leak runs once", async () => {
    const { calls } = await v1Twice([{ providers: ["*"] }, { providers: ["deepseek"] }], DEEPSEEK);
    expect(calls).toEqual(["bash"]);
  });
});

describe("V1 listed twice: a later entry with `providers: []` (\"[] disables the plugin\")", () => {
  // Was a FINDING (severity: wrong execution; src/plugin/index.ts: `providers.length === 0` returns {}
  // before the stand-aside check). An entry that disables the plugin (a project turning it off
  // below a global entry) is skipped before it looks for the serving entry: the serving one keeps
  // repairing every route, and no "listed more than once" warning is logged, so nothing tells the
  // user their `[]` was overruled. Expected: any entry's off stays off (as responseFix.enabled
  // false does), or at least the one warning. Placed first, the `[]` entry never claims the load
  // and the second serves in full: the same silent result either way.
  test("off stays off: [\"deepseek\"] then [] leaves the leak as text", async () => {
    const { calls } = await v1Twice([{ providers: ["deepseek"] }, { providers: [] }], DEEPSEEK);
    expect(calls).toEqual([]);
  });

  test("off stays off: [] then [\"deepseek\"] leaves the leak as text ([] placed first still claims the load)", async () => {
    const { calls } = await v1Twice([{ providers: [] }, { providers: ["deepseek"] }], DEEPSEEK);
    expect(calls).toEqual([]);
  });

  test("hard negative: responseFix.enabled false in the second entry does stop the leak (the rule the tests above ask for)", async () => {
    const { calls, lines } = await v1Twice([{ providers: ["deepseek"] }, { providers: ["deepseek"], responseFix: { enabled: false } }], DEEPSEEK);
    expect(calls).toEqual([]);
    expect(lines.filter((l) => l.includes("listed more than once") && l.includes("responseFix.enabled (off)"))).toHaveLength(1);
  });
});

describe("V1 listed twice: what a later entry can never loosen (hard negatives)", () => {
  test("a later entry's allowTools [\"*\"] never re-allows what the first denied; its denyTools [] never lifts the first's", async () => {
    const first = await v1Twice([{ providers: ["deepseek"], responseFix: { allowTools: ["read"], denyTools: ["bash"] } }, { providers: ["deepseek"], responseFix: { allowTools: ["*"], denyTools: [] } }], DEEPSEEK);
    expect(first.calls).toEqual([]);
  });

  test("a later entry's echoGuard false never turns the first's guard off", async () => {
    const proc = fakeProcess();
    const load: Load = {};
    const a = await startV1({ providers: ["deepseek"] }, proc, load);
    await startV1({ providers: ["deepseek"], responseFix: { echoGuard: false } }, proc, load);
    expect(load.lines!.filter((l) => l.includes("listed more than once") && l.includes("echoGuard"))).toEqual([]);
    expect((await request([a], DEEPSEEK)).calls).toEqual(["bash"]);
  });

  test("a third entry merges into the already narrowed serving one (deny from entry 2 and entry 3 both hold)", async () => {
    const proc = fakeProcess();
    const load: Load = {};
    const a = await startV1({ providers: ["deepseek"] }, proc, load);
    await startV1({ providers: ["deepseek"], responseFix: { denyTools: ["read"] } }, proc, load);
    await startV1({ providers: ["deepseek"], responseFix: { denyTools: ["bash"] } }, proc, load);
    expect((await request([a], DEEPSEEK)).calls).toEqual([]);
  });

  test("a later entry with an unreadable allow list (fails closed to []) closes the serving one", async () => {
    const proc = fakeProcess();
    const load: Load = {};
    const a = await startV1({ providers: ["deepseek"] }, proc, load);
    await startV1({ providers: ["deepseek"], responseFix: { allowTools: "bash" } }, proc, load);
    expect((await request([a], DEEPSEEK)).calls).toEqual([]);
  });

  test("a later entry whose options are a throwing Proxy never throws into the host and never loosens", async () => {
    const proc = fakeProcess();
    const load: Load = {};
    const a = await startV1({ providers: ["deepseek"], responseFix: { denyTools: ["bash"] } }, proc, load);
    const hostile = new Proxy({}, { ownKeys: () => { throw new Error("boom"); }, get: () => { throw new Error("boom"); } });
    const b = await startV1(hostile, proc, load);
    expect(b.hooks).toBeDefined();
    expect((await request([a], DEEPSEEK)).calls).toEqual([]);
  });
});

// ---------------------------------------------------------------- V2
const ROOT = path.resolve(import.meta.dir, "../..");
const V2_DEEPSEEK: V2ModelRef = { providerID: "deepseek", id: "deepseek-chat" };
const V2_LOCAL: V2ModelRef = { providerID: "my-llama", id: "llama-3.3-70b" };
let upstream: FakeWires;
let script: (wire: Wire, body: unknown) => string = () => "Done.";
let logs: string[] = [];
let errorSpy: ReturnType<typeof spyOn>;
beforeAll(async () => {
  upstream = await startFakeWires((wire, body) => script(wire, body));
});
afterAll(() => upstream.close());
beforeEach(() => {
  logs = [];
  errorSpy = spyOn(console, "error").mockImplementation((line: unknown) => void logs.push(String(line)));
});
afterEach(() => errorSpy.mockRestore());
const user = (id: string, text: string): V2Message => ({ id, role: "user", content: [{ type: "text", text }] });

async function v2Calls(entries: unknown[], model: V2ModelRef, reply = LEAK) {
  const { definition } = await loadLikeV2(ROOT);
  const host = new StandInHost();
  for (const options of entries) await definition.setup!(host.context(options));
  await host.buildContext("ses_1", model, [user("msg_u1", "run the tests")]);
  script = () => reply;
  const fetcher = host.nativeFetch("ses_1", model);
  const response = await fetcher(`${upstream.baseURL}${pathOf("chat")}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(requestBody("chat", "run the tests", true)) });
  return (await callsIn("chat", response)).calls.map((c) => c.name);
}

describe("V2 listed twice: `providers` is handed over too", () => {
  // Was a FINDING (severity: wrong execution; src/plugin/v2/setup.ts + src/plugin/wiring.ts
  // mergeRestrictions): as on V1, the serving entry's `providers` decides alone, so the order of
  // two entries decides whether a leak on a provider only one of them names runs.
  test("providers is the overlap: [\"*\"] then [\"deepseek\"] leaves an unnamed provider's leak as text", async () => {
    expect(await v2Calls([{ providers: ["*"] }, { providers: ["deepseek"] }], V2_LOCAL)).toEqual([]);
  });
  test("off stays off: [\"deepseek\"] then [] leaves the leak as text", async () => {
    expect(await v2Calls([{ providers: ["deepseek"] }, { providers: [] }], V2_DEEPSEEK)).toEqual([]);
  });
  test("hard negative: [\"deepseek\"] then [\"*\"]: the unnamed provider is left alone (order must not matter)", async () => {
    expect(await v2Calls([{ providers: ["deepseek"] }, { providers: ["*"] }], V2_LOCAL)).toEqual([]);
  });
  test("hard negative: listed once with [\"*\"], the leak on the unnamed provider runs (the findings can fail)", async () => {
    expect(await v2Calls([{ providers: ["*"] }], V2_LOCAL)).toEqual(["bash"]);
  });
});

describe("V2: a later entry's narrowing and a language model the serving entry already wrapped", () => {
  const tools = { bash: tool({ description: "run", inputSchema: jsonSchema<{ command: string }>({ type: "object", properties: { command: { type: "string" } }, required: ["command"] }) }) };

  /** Setup A; the host wraps a model through A's language hook; then (if asked) setup B on the same host; then a leak through the wrapped model. */
  async function wrappedThenNarrowed(narrow: boolean) {
    const { definition } = await loadLikeV2(ROOT);
    const host = new StandInHost();
    await definition.setup!(host.context({ providers: ["deepseek"] }));
    const provider = createOpenAICompatible({ name: "deepseek", baseURL: upstream.baseURL, apiKey: "k" });
    const event = await host.language({ model: { id: "deepseek-chat", modelID: "deepseek-chat", providerID: "deepseek", package: "@ai-sdk/openai-compatible" }, sdk: provider, options: {}, language: provider.chatModel("deepseek-chat") } as never);
    if (narrow) await definition.setup!(host.context({ providers: ["deepseek"], responseFix: { denyTools: ["bash"] } }));
    script = () => LEAK;
    const result = streamText({ model: event.language as never, prompt: "run the tests", tools });
    const parts = [];
    for await (const part of result.fullStream) parts.push(part);
    return parts.filter((p) => p.type === "tool-call").map((p) => (p as { toolName: string }).toolName);
  }

  // Was a FINDING (severity: wrong execution, low likelihood; src/plugin/v2/setup.ts `restrict` builds a
  // new `middleware`, but the language hook handed the host a model wrapped with the old one, and
  // wrapWithMiddleware (src/plugin/v2/language.ts) keeps that object). Only when the later entry
  // is set up after the host already took a wrapped model (a plugin added or reloaded at runtime
  // while the host keeps its language model) does the deny list not reach the AI SDK route: the
  // denied bash call runs. The HTTP hooks read the new HttpRepair per call and are not affected.
  // Expected: the wrapped model reads the current restrictions per call (e.g. a middleware that
  // looks up the instance's adapter at wrapStream time).
  test("a wrapped model reads the current options at each call: a deny list handed over after the model was wrapped stops the call", async () => {
    expect(await wrappedThenNarrowed(true)).toEqual([]);
  });

  test("hard negative: without the later entry the wrapped model recovers the call (the finding can fail)", async () => {
    expect(await wrappedThenNarrowed(false)).toEqual(["bash"]);
  });
});
