/**
 * The plugin listed more than once for one host: `providers` (a security option) is merged as the
 * overlap of the entries' scopes (src/plugin/wiring.ts narrowScope, src/plugin/scope.ts
 * ActingScope), whatever the order, never wider than any entry; an entry that says off (`[]`) stays
 * off. V1 through `server`, V2 through `setup` and a model the language hook wrapped before the
 * later entry was set up.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { jsonSchema, streamText, tool } from "ai";
import path from "node:path";
import { defaultOptions } from "../../src/options/check.ts";
import { server } from "../../src/plugin/index.ts";
import { routeInScope, type Route } from "../../src/plugin/scope.ts";
import { mergeRestrictions, type Restrictions } from "../../src/plugin/wiring.ts";
import { block, live } from "../golden/notation.ts";
import { assemble, deltas, openAiTools, sseText, type Json } from "../security/support.ts";
import { startFakeWires, type FakeWires } from "../v2/fake-wires.ts";
import { loadLikeV2, StandInHost } from "../v2/stand-in-host.ts";

const LEAK = live(`Let me check.\n\n${block("tool_calls", [["bash", [["command", "npm test"]]]])}`);

const restrictions = (providers: string[]): Restrictions => ({
  responseFix: structuredClone(defaultOptions.responseFix),
  parse: structuredClone(defaultOptions.parse),
  scope: [providers],
});

/** Routes that tell the tokens apart: a leak-prone and a plain model on a named provider, on another provider. */
const ROUTES: Route[] = [
  { providerID: "deepseek", modelID: "deepseek-chat" },
  { providerID: "deepseek", modelID: "llama-3.3-70b" },
  { providerID: "gateway", modelID: "qwen3-coder" },
  { providerID: "gateway", modelID: "llama-3.3-70b" },
  { providerID: "my-llama", modelID: "llama-3.3-70b" },
];
const LISTS: string[][] = [[], ["*"], ["auto"], ["deepseek"], ["gateway"], ["auto", "deepseek"], ["deepseek", "gateway"], ["*", "deepseek"], ["auto", "*"]];

describe("mergeRestrictions: providers is the exact overlap, in either order", () => {
  for (const a of LISTS) {
    for (const b of LISTS) {
      test(`${JSON.stringify(a)} then ${JSON.stringify(b)}`, () => {
        const { merged } = mergeRestrictions(restrictions(a), restrictions(b));
        const acting = { providers: a, within: merged.scope };
        for (const route of ROUTES) {
          const both = routeInScope({ providers: a }, route) && routeInScope({ providers: b }, route);
          expect({ route, inScope: routeInScope(acting, route) }).toEqual({ route, inScope: both });
        }
      });
    }
  }

  test('"auto" with a provider id keeps only the leak-prone models of that provider', () => {
    const { merged, changed } = mergeRestrictions(restrictions(["auto"]), restrictions(["deepseek"]));
    const acting = { providers: ["auto"], within: merged.scope };
    expect(routeInScope(acting, { providerID: "deepseek", modelID: "deepseek-chat" })).toBe(true);
    expect(routeInScope(acting, { providerID: "deepseek", modelID: "llama-3.3-70b" })).toBe(false);
    expect(routeInScope(acting, { providerID: "gateway", modelID: "qwen3-coder" })).toBe(false);
    expect(changed).toEqual(["providers (only routes every entry covers)"]);
  });

  test("a wider later list changes nothing and is not named; a narrower one is", () => {
    expect(mergeRestrictions(restrictions(["deepseek"]), restrictions(["*"])).changed).toEqual([]);
    expect(mergeRestrictions(restrictions(["deepseek"]), restrictions(["deepseek", "gateway"])).changed).toEqual([]);
    expect(mergeRestrictions(restrictions(["*"]), restrictions(["deepseek"])).changed).toEqual(["providers (only routes every entry covers)"]);
  });

  test("[] on either side is off, and named once", () => {
    const later = mergeRestrictions(restrictions(["*"]), restrictions([]));
    expect(later.merged.scope).toEqual([[]]);
    expect(later.changed).toEqual(["providers (off: this entry has [], so the plugin acts nowhere)"]);
    const first = mergeRestrictions(restrictions([]), restrictions(["deepseek"]));
    expect(first.merged.scope).toEqual([[]]);
    expect(first.changed).toEqual(["providers (off: an entry has [], so the plugin acts nowhere)"]);
    expect(mergeRestrictions(restrictions([]), restrictions([])).changed).toEqual([]);
  });

  test("a third entry narrows the already narrowed scope (three lists, the overlap of all)", () => {
    const two = mergeRestrictions(restrictions(["*"]), restrictions(["auto", "gateway"])).merged;
    const three = mergeRestrictions(two, restrictions(["deepseek", "gateway"])).merged;
    const acting = { providers: ["*"], within: three.scope };
    expect(ROUTES.filter((route) => routeInScope(acting, route))).toEqual([
      { providerID: "deepseek", modelID: "deepseek-chat" },
      { providerID: "gateway", modelID: "qwen3-coder" },
      { providerID: "gateway", modelID: "llama-3.3-70b" },
    ]);
  });
});

// ---------------------------------------------------------------- V1
type ModelInfo = { providerID: string; id: string; api: { id: string; npm: string } };
const model = (providerID: string, id: string): ModelInfo => ({ providerID, id, api: { id, npm: "@ai-sdk/openai-compatible" } });
const SERVE = ["/usr/bin/bun", "/$bunfs/root/src/index.js", "serve"];
const savedArgv = process.argv;
afterEach(() => {
  process.argv = savedArgv;
});

/** Every entry on one load (one shared input, as 1.18 hands it), then one leak on `route`: the calls it gave, whether it was tagged, the log. */
async function v1(entries: unknown[], route: ModelInfo) {
  const upstream = async () => new Response(sseText(deltas(LEAK, 7)), { status: 200, headers: { "content-type": "text/event-stream" } });
  const scope = { fetch: Object.assign(upstream, { preconnect: () => undefined }) as unknown as typeof fetch } as { fetch: typeof fetch; [key: symbol]: unknown };
  const lines: string[] = [];
  const input = {
    client: {
      app: { log: async ({ body }: { body: { message: string } }) => void lines.push(body.message) },
      tui: { showToast: async () => undefined },
      session: { promptAsync: async () => undefined, get: async () => ({ data: {} }), message: async () => ({ error: { name: "NotFoundError" } }) },
    },
  };
  process.argv = SERVE;
  const all = [];
  for (const options of entries) all.push(await server(input as never, options as never, scope));
  process.argv = savedArgv;
  const output = { headers: {} as Record<string, string> };
  for (const hooks of all) await hooks["chat.headers"]?.({ sessionID: "ses_1", agent: "build", provider: { id: route.providerID }, model: route, message: { id: "msg_u1" } } as never, output as never);
  const body: Json = { model: route.api.id, stream: true, messages: [{ role: "user", content: "go" }], tools: openAiTools() };
  const response = await scope.fetch("https://model.example/v1/chat/completions", { method: "POST", headers: { "content-type": "application/json", ...output.headers }, body: JSON.stringify(body) });
  return { calls: assemble(await response.text()).calls.map((c) => c.name), tagged: Object.keys(output.headers).length > 0, lines };
}

describe("V1: the overlap of the entries' providers", () => {
  test('["auto"] then ["deepseek"]: a DeepSeek model on deepseek is repaired, a plain model on deepseek is left alone', async () => {
    expect((await v1([{ providers: ["auto"] }, { providers: ["deepseek"] }], model("deepseek", "deepseek-chat"))).calls).toEqual(["bash"]);
    const plain = await v1([{ providers: ["auto"] }, { providers: ["deepseek"] }], model("deepseek", "llama-3.3-70b"));
    expect({ calls: plain.calls, tagged: plain.tagged }).toEqual({ calls: [], tagged: false });
  });

  test("[] then [\"deepseek\"]: nothing is tagged, and one warning line says the plugin acts nowhere", async () => {
    const { tagged, lines } = await v1([{ providers: [] }, { providers: ["deepseek"] }], model("deepseek", "deepseek-chat"));
    expect(tagged).toBe(false);
    expect(lines.filter((line) => line.includes("listed more than once"))).toHaveLength(1);
    expect(lines.filter((line) => line.includes("listed more than once") && line.includes("acts nowhere"))).toHaveLength(1);
  });

  test("[\"deepseek\"] then []: one warning line names providers off", async () => {
    const { tagged, lines } = await v1([{ providers: ["deepseek"] }, { providers: [] }], model("deepseek", "deepseek-chat"));
    expect(tagged).toBe(false);
    const warnings = lines.filter((line) => line.includes("listed more than once"));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain("providers (off: this entry has []");
  });

  test("hard negative: two loads (two inputs) stay apart: [] on one does not turn the other off", async () => {
    expect((await v1([{ providers: [] }], model("deepseek", "deepseek-chat"))).calls).toEqual([]);
    expect((await v1([{ providers: ["deepseek"] }], model("deepseek", "deepseek-chat"))).calls).toEqual(["bash"]);
  });
});

// ---------------------------------------------------------------- V2: a model wrapped before the narrowing
const ROOT = path.resolve(import.meta.dir, "../..");
let upstream: FakeWires;
beforeAll(async () => {
  upstream = await startFakeWires(() => LEAK);
});
afterAll(() => upstream.close());

describe("V2: a model the language hook wrapped reads the current scope at each call", () => {
  const tools = { bash: tool({ description: "run", inputSchema: jsonSchema<{ command: string }>({ type: "object", properties: { command: { type: "string" } }, required: ["command"] }) }) };

  async function wrapped(first: unknown, later: unknown[]) {
    const { definition } = await loadLikeV2(ROOT);
    const host = new StandInHost();
    type Cleanup = (() => Promise<void>) | undefined;
    const cleanups = [(await definition.setup!(host.context(first))) as Cleanup];
    const provider = createOpenAICompatible({ name: "deepseek", baseURL: upstream.baseURL, apiKey: "k" });
    const language = provider.chatModel("deepseek-chat");
    const event = await host.language({ model: { id: "deepseek-chat", modelID: "deepseek-chat", providerID: "deepseek", package: "@ai-sdk/openai-compatible" }, sdk: provider, options: {}, language } as never);
    for (const options of later) cleanups.push((await definition.setup!(host.context(options))) as Cleanup);
    const result = streamText({ model: event.language as never, prompt: "run the tests", tools });
    const parts = [];
    for await (const part of result.fullStream) parts.push(part);
    for (const cleanup of cleanups) await cleanup?.();
    return { wrapped: event.language !== language, calls: parts.filter((p) => p.type === "tool-call").map((p) => (p as { toolName: string }).toolName) };
  }

  test('["*"], wrapped, then ["elsewhere"]: the call passes through unrepaired', async () => {
    expect(await wrapped({ providers: ["*"] }, [{ providers: ["elsewhere"] }])).toEqual({ wrapped: true, calls: [] });
  });

  test('["deepseek"], wrapped, then []: the call passes through unrepaired', async () => {
    expect(await wrapped({ providers: ["deepseek"] }, [{ providers: [] }])).toEqual({ wrapped: true, calls: [] });
  });

  test('hard negative: ["*"], wrapped, then ["deepseek"]: the route is in both, the call is recovered', async () => {
    expect(await wrapped({ providers: ["*"] }, [{ providers: ["deepseek"] }])).toEqual({ wrapped: true, calls: ["bash"] });
  });
});

describe("V2: [] placed first claims the host, and its cleanup gives it back", () => {
  test("[] then [\"deepseek\"] stands aside; after the [] entry's cleanup, a setup again serves", async () => {
    const { definition } = await loadLikeV2(ROOT);
    const host = new StandInHost();
    const off = (await definition.setup!(host.context({ providers: [] }))) as (() => Promise<void>) | undefined;
    expect(typeof off).toBe("function");
    const aside = await definition.setup!(host.context({ providers: ["deepseek"] }));
    expect(aside).toBeUndefined();
    await off!();
    const serving = (await definition.setup!(host.context({ providers: ["deepseek"] }))) as (() => Promise<void>) | undefined;
    expect(typeof serving).toBe("function");
    await serving!();
  });
});
