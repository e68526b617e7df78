/**
 * Review 48b (hostile, tests only): the plugin listed twice on 1.18 (src/plugin/index.ts,
 * src/plugin/wiring.ts mergeRestrictions). A later entry stands aside and hands over only
 * denyTools / allowTools / echoGuard. Its other switches that also stop recovered calls from
 * running are dropped (with the one "listed more than once" warning): responseFix.enabled false
 * (recover nothing) and a parse switch off (codeCostumes false: a <shell> costume never runs).
 * Harness: a trimmed copy of review-48-hosts-v1.test.ts's. No DSML marker bytes (live()).
 */
import { afterEach, describe, expect, test } from "bun:test";
import { server } from "../../src/plugin/index.ts";
import { block, live } from "../golden/notation.ts";
import { assemble, deltas, openAiTools, sseText, type Json } from "../security/support.ts";

const LEAK = live(`Let me check.\n\n${block("tool_calls", [["bash", [["command", "npm test"]]]])}`);
const COSTUME = "Cleaning.\n\n<shell>rm -rf build</shell>\n";
const CHAT_URL = "https://model.example/v1/chat/completions";
const SERVE = ["/usr/bin/bun", "/$bunfs/root/src/index.js", "serve"];
const savedArgv = process.argv;
afterEach(() => {
  process.argv = savedArgv;
});
const DEEPSEEK = { providerID: "deepseek", id: "deepseek-chat", api: { id: "deepseek-chat", npm: "@ai-sdk/openai-compatible" } };
type Scope = { fetch: typeof fetch; [key: symbol]: unknown };

function fakeProcess() {
  let reply = LEAK;
  const upstream = async () => new Response(sseText(deltas(reply, 7)), { status: 200, headers: { "content-type": "text/event-stream" } });
  const scope = { fetch: Object.assign(upstream, { preconnect: () => undefined }) as unknown as typeof fetch } as Scope;
  return { scope, setReply: (text: string) => void (reply = text) };
}
type Load = { client?: unknown; lines?: string[] };
async function startV1(options: unknown, proc: ReturnType<typeof fakeProcess>, load: Load) {
  const lines: string[] = (load.lines ??= []);
  load.client ??= {
    app: { log: async ({ body }: { body: { message: string } }) => void lines.push(body.message) },
    tui: { showToast: async () => undefined },
    session: { promptAsync: async () => undefined, get: async () => ({ data: {} }), message: async () => ({ error: { name: "NotFoundError" } }) },
  };
  process.argv = SERVE;
  const hooks = await server(load as never, options as never, proc.scope);
  process.argv = savedArgv;
  return { hooks, proc };
}
type V1 = Awaited<ReturnType<typeof startV1>>;
async function request(instances: V1[], text: string) {
  instances[0]!.proc.setReply(text);
  const output = { headers: {} as Record<string, string> };
  for (const v1 of instances) await v1.hooks["chat.headers"]?.({ sessionID: "ses_1", agent: "build", provider: { id: "deepseek" }, model: DEEPSEEK, message: { id: "msg_u1" } } as never, output as never);
  const body: Json = { model: "deepseek-chat", stream: true, messages: [{ role: "user", content: "go" }], tools: openAiTools() };
  const response = await instances[0]!.proc.scope.fetch(CHAT_URL, { method: "POST", headers: { "content-type": "application/json", ...output.headers }, body: JSON.stringify(body) });
  return assemble(await response.text());
}

describe("listed twice: a later entry's other switches that stop calls", () => {
  // FINDING (low-medium: a configured "recover nothing" dropped, only a generic warning; src/plugin/wiring.ts
  // mergeRestrictions, src/plugin/index.ts): the project config lists the plugin with
  // responseFix.enabled false (this project: never turn markup into calls), the global config
  // lists it too with defaults and starts first. The project entry stands aside; enabled is not a
  // "tool restriction", so the leaked bash call runs. denyTools ["*"] in the same place is honoured
  // (hard negative below): the two ways to say "no recovered calls" disagree. Expected: a later
  // entry's enabled false (and any switch that narrows what may run) is merged like denyTools.
  test("fixed: responseFix.enabled false in the second entry: the leaked bash call does not run", async () => {
    const proc = fakeProcess();
    const load: Load = {};
    const first = await startV1({ providers: ["deepseek"] }, proc, load);
    await startV1({ providers: ["deepseek"], responseFix: { enabled: false } }, proc, load);
    const reply = await request([first], LEAK);
    expect(reply.calls).toEqual([]);
  });

  // FINDING (low: same cause): parse.codeCostumes false in the second entry; the <shell> costume
  // still becomes a bash call (rm -rf build runs). Expected: a parse switch turned off in any entry stays off.
  test("fixed: parse.codeCostumes false in the second entry: the <shell> costume does not run", async () => {
    const proc = fakeProcess();
    const load: Load = {};
    const first = await startV1({ providers: ["deepseek"] }, proc, load);
    await startV1({ providers: ["deepseek"], parse: { codeCostumes: false } }, proc, load);
    const reply = await request([first], COSTUME);
    expect(reply.calls).toEqual([]);
  });

  // Hard negatives: denyTools ["*"] in the second entry is honoured; the costume runs when listed once with defaults.
  test("denyTools [\"*\"] in the second entry: nothing runs", async () => {
    const proc = fakeProcess();
    const load: Load = {};
    const first = await startV1({ providers: ["deepseek"] }, proc, load);
    await startV1({ providers: ["deepseek"], responseFix: { denyTools: ["*"] } }, proc, load);
    expect((await request([first], LEAK)).calls).toEqual([]);
  });
  test("listed once with defaults: the leak and the costume run (controls)", async () => {
    const proc = fakeProcess();
    const first = await startV1({ providers: ["deepseek"] }, proc, {});
    expect((await request([first], LEAK)).calls.map((c) => c.name)).toEqual(["bash"]);
    expect((await request([first], COSTUME)).calls.map((c) => c.name)).toEqual(["bash"]);
  });
});
