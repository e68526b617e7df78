/**
 * The OpenCode 2 shapes re-read in anomalyco/opencode (files and commits in
 * src/plugin/v2/host-types.ts), driven through the stand-in host: `Model.Info` as the aisdk hook
 * gets it, the `LanguageModelV3 | LanguageModelV4` the effect form allows, both routes the session
 * HTTP hooks run on, `session.prompt` / `session.wait`, and a Context with no logging domain (lines
 * on stderr, in V1's words).
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, spyOn, test } from "bun:test";
import path from "node:path";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import plugin from "../../src/plugin/index.ts";
import type { V2Context, V2Message, V2ModelRef } from "../../src/plugin/v2/host-types.ts";
import { correctionText } from "../../src/retry/state.ts";
import { block, live } from "../golden/notation.ts";
import { callsIn, pathOf, requestBody, startFakeWires, type FakeWires, type Wire } from "./fake-wires.ts";
import { startedHost, type StandInHost } from "./stand-in-host.ts";

const ROOT = path.resolve(import.meta.dir, "../..");
const LEAK = live(`Checking.\n\n${block("tool_calls", [["bash", [["command", "npm test"]]]])}`);
/** `command` is declared a string; a number does not fit, so the correction names the parameter. */
const MISFIT = `Checking.\n\n<tool_call>\n{"name": "bash", "arguments": {"command": {"x": 1}}}\n</tool_call>`;
const DEEPSEEK: V2ModelRef = { providerID: "deepseek", id: "deepseek-chat" };

let upstream: FakeWires;
let script: () => string = () => LEAK;
let stderr: string[] = [];
let errorSpy: ReturnType<typeof spyOn>;

beforeAll(async () => {
  upstream = await startFakeWires(() => script());
});
afterAll(() => upstream.close());
beforeEach(() => {
  script = () => LEAK;
  stderr = [];
  errorSpy = spyOn(console, "error").mockImplementation((line: unknown) => void stderr.push(String(line)));
});
afterEach(() => errorSpy.mockRestore());

const hostWith = (options: unknown, shape?: (ctx: V2Context) => V2Context): Promise<StandInHost> => startedHost(ROOT, options, shape);

function post(fetcher: typeof fetch, wire: Wire): Promise<Response> {
  return fetcher(`${upstream.baseURL}${pathOf(wire)}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(requestBody(wire, "run the tests", true)) });
}

/** `Model.Info` (packages/schema/src/model.ts): `modelID` is the upstream id, `package` the AI SDK package. */
function modelInfo(id: string, modelID: string) {
  return { id, modelID, providerID: "fireworks", name: id, package: "@ai-sdk/fireworks", capabilities: { tools: true, input: ["text"], output: ["text"] }, variants: [], time: { released: 0 }, cost: [], status: "active", enabled: true, limit: { context: 1, output: 1 } };
}

describe("aisdk.hook(language) with the 2.x Model.Info and model versions", () => {
  test('"auto" reads the upstream id from Model.Info.modelID: a leak-prone model behind an alias is wrapped', async () => {
    const host = await hostWith({ providers: ["auto"] });
    const model = createOpenAICompatible({ name: "fireworks", baseURL: upstream.baseURL }).chatModel("ds");
    const event = await host.language({ model: modelInfo("house-model", "accounts/fireworks/models/deepseek-v3p2"), sdk: {}, options: {}, language: model });
    expect(event.language).not.toBe(model);
    const plain = await host.language({ model: modelInfo("house-model", "llama-4"), sdk: {}, options: {}, language: model });
    expect(plain.language).toBe(model);
  });

  test("a LanguageModelV4 is left as it is (the HTTP hooks repair that route)", async () => {
    const host = await hostWith({ providers: ["*"] });
    const v4 = { specificationVersion: "v4", provider: "x", modelId: "deepseek-chat", doStream: () => undefined };
    const event = await host.language({ model: modelInfo("deepseek-chat", "deepseek-chat"), sdk: {}, options: {}, language: v4 });
    expect(event.language).toBe(v4);
  });
});

describe("the session HTTP hooks on both routes the 2.x host runs them", () => {
  for (const route of ["native", "aisdk"] as const) {
    for (const wire of ["chat", "messages", "responses"] as const) {
      test(`${route} route, ${wire}: the leaked call comes back as a real call`, async () => {
        const host = await hostWith({ providers: ["deepseek"] });
        const { calls } = await callsIn(wire, await post(host.nativeFetch("ses_1", DEEPSEEK, fetch, { route }), wire));
        expect(calls).toEqual([{ name: "bash", input: { command: "npm test" } }]);
        expect(host.hookErrors).toEqual([]);
      });
    }
  }
});

describe("session.prompt and session.wait as 2.x declares them", () => {
  const user = (id: string, text: string): V2Message => ({ id, role: "user", content: [{ type: "text", text }] });

  test("the wake waits for idle, then queues one prompt; the correction names the parameter that did not fit", async () => {
    script = () => MISFIT;
    const host = await hostWith({ providers: ["deepseek"] });
    await host.buildContext("ses_1", DEEPSEEK, [user("msg_u1", "run the tests")]);
    expect((await callsIn("chat", await post(host.nativeFetch("ses_1", DEEPSEEK), "chat"))).calls).toEqual([]);
    expect(host.prompts).toEqual([]);
    await host.goIdle("ses_1");
    expect(host.prompts).toEqual([{ sessionID: "ses_1", text: "Continue.", delivery: "queue" }]);
    const next = await host.buildContext("ses_1", DEEPSEEK, [user("msg_u1", "run the tests"), { role: "assistant", content: [{ type: "text", text: "x" }] }, user("msg_inbox_1", "Continue.")]);
    expect(next.system.map((part) => part.text)).toEqual([correctionText("invalid-arguments", "command")]);
  });

  test("a host without session.wait: no wake, and the start-up line says so", async () => {
    script = () => MISFIT;
    const host = await hostWith({ providers: ["deepseek"] }, (ctx) => ({ ...ctx, session: { hook: ctx.session.hook, prompt: ctx.session.prompt! } }));
    await host.buildContext("ses_1", DEEPSEEK, [user("msg_u1", "run the tests")]);
    await callsIn("chat", await post(host.nativeFetch("ses_1", DEEPSEEK), "chat"));
    await host.goIdle("ses_1");
    expect(host.prompts).toEqual([]);
    expect(stderr.find((line) => line.startsWith("[dsml] loaded v"))).toContain("idle wake unavailable: no session.prompt/wait");
  });
});

describe("logging: the 2.x Context has no logger, so lines go to stderr in V1's words", () => {
  test("the start-up line is V1's for the same options (option problems counted), plus what OpenCode 2 cannot do", async () => {
    const options = { providers: ["deepseek"], denyTool: ["bash"] };
    const v1: string[] = [];
    const client = { app: { log: async ({ body }: { body: { message: string } }) => void v1.push(body.message) }, session: { promptAsync: async () => undefined } };
    const hooks = await plugin.server({ client } as never, options);
    await hooks.config!({ provider: { deepseek: {} } } as never);
    const v1Line = v1.find((line) => line.startsWith("[dsml] loaded v"))!;
    expect(v1Line).toContain("1 option problem(s)");

    await hostWith(options);
    const v2Line = stderr.find((line) => line.startsWith("[dsml] loaded v"))!;
    expect(v2Line).toStartWith(`${v1Line} (OpenCode 2: session http hooks; `);
    expect(v2Line).toContain("no text fallback (no finished-text hook)");
    // The option problem itself, before the start-up line, as on V1.
    expect(stderr.indexOf(v1[0]!)).toBeLessThan(stderr.indexOf(v2Line));
    for (const line of stderr) expect(line).toStartWith("[dsml] ");
  });
});
