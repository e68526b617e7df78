/**
 * Hostile review 48: the OpenCode 2 entry (src/plugin/v2/setup.ts) under the stand-in host
 * (test/v2/stand-in-host.ts): setup twice, dispose twice, the host calling hooks after dispose.
 * Every test named FINDING fails on main at the time of writing; the others are hard negatives.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, spyOn, test } from "bun:test";
import path from "node:path";
import type { V2Message, V2ModelRef } from "../../src/plugin/v2/host-types.ts";
import { REMOVED_NOTE } from "../../src/history/sanitize.ts";
import { block, live } from "../golden/notation.ts";
import { callsIn, pathOf, requestBody, startFakeWires, type FakeWires, type Wire } from "../v2/fake-wires.ts";
import { loadLikeV2, StandInHost } from "../v2/stand-in-host.ts";

const ROOT = path.resolve(import.meta.dir, "../..");
const UNDECLARED = live(`Cleaning up.\n\n${block("tool_calls", [["wipe_disk", [["path", "/"]]]])}`);
const LEAK = live(`Let me check.\n\n${block("tool_calls", [["bash", [["command", "npm test"]]]])}`);
const DEEPSEEK: V2ModelRef = { providerID: "deepseek", id: "deepseek-chat" };

let upstream: FakeWires;
let script: (wire: Wire, body: any) => string = () => "Done.";
let logs: string[] = [];
let errorSpy: ReturnType<typeof spyOn>;

beforeAll(async () => {
  upstream = await startFakeWires((wire, body) => script(wire, body));
});
afterAll(() => upstream.close());
beforeEach(() => {
  script = () => "Done.";
  upstream.requests.length = 0;
  logs = [];
  errorSpy = spyOn(console, "error").mockImplementation((line: unknown) => void logs.push(String(line)));
});
afterEach(() => errorSpy.mockRestore());

const user = (id: string, text: string): V2Message => ({ id, role: "user", content: [{ type: "text", text }] });

/** The plugin set up `times` times on one stand-in host (the entry listed twice), with each cleanup. */
async function setUp(options: unknown, times = 1) {
  const { definition } = await loadLikeV2(ROOT);
  const host = new StandInHost();
  const cleanups: (() => Promise<void>)[] = [];
  for (let i = 0; i < times; i++) {
    const cleanup = (await definition.setup!(host.context(options))) as (() => Promise<void>) | undefined;
    if (cleanup) cleanups.push(cleanup);
  }
  return { host, cleanups };
}

function post(fetcher: typeof fetch, prompt = "run the tests"): Promise<Response> {
  return fetcher(`${upstream.baseURL}${pathOf("chat")}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(requestBody("chat", prompt, true)) });
}

describe("V2: the plugin disposed while a wake is pending", () => {
  // FINDING (severity: medium, a disposed plugin still acts on the user's session;
  // src/plugin/v2/setup.ts wakeWhenIdle + cleanup): an unrepairable reply starts
  // `session.wait` for the idle wake. The host then disposes the plugin (config reload, plugin
  // removed, server shutting the instance down): cleanup() stops the event stream and disposes
  // the hooks, but the pending wait is not cancelled, so when the session goes idle the disposed
  // instance still calls session.prompt ("Continue.") into the session. Expected: nothing after
  // dispose. (The wait's promise cannot be cancelled, but a `disposed` flag checked before
  // retry.onIdle would do.)
  test("fixed: no wake prompt is queued by a plugin the host already disposed", async () => {
    const { host, cleanups } = await setUp({ providers: ["deepseek"] });
    await host.buildContext("ses_1", DEEPSEEK, [user("msg_u1", "clean up")]);
    script = () => UNDECLARED;
    await (await post(host.nativeFetch("ses_1", DEEPSEEK))).text();
    await cleanups[0]!();
    expect(host.session.get("context") ?? []).toEqual([]);
    await host.goIdle("ses_1");
    expect(host.prompts).toEqual([]);
  });

  test("hard negative: without the dispose the same reply gets its one wake (the test above can fail)", async () => {
    const { host } = await setUp({ providers: ["deepseek"] });
    await host.buildContext("ses_1", DEEPSEEK, [user("msg_u1", "clean up")]);
    script = () => UNDECLARED;
    await (await post(host.nativeFetch("ses_1", DEEPSEEK))).text();
    await host.goIdle("ses_1");
    expect(host.prompts).toEqual([{ sessionID: "ses_1", text: "Continue.", delivery: "queue" }]);
  });

  test("hard negative: cleanup twice neither throws nor disposes another plugin's hooks", async () => {
    const { host, cleanups } = await setUp({ providers: ["deepseek"] });
    const other = async () => undefined;
    await host.context({}).session.hook("context", other as never);
    await cleanups[0]!();
    await cleanups[0]!();
    expect((host.session.get("context") ?? []).map((r) => r.callback)).toEqual([other]);
    expect(host.session.get("http.request") ?? []).toEqual([]);
    expect(host.aisdk.get("language") ?? []).toEqual([]);
    expect(host.subscriptions.size).toBe(0);
  });
});

describe("V2: the plugin entry listed twice (setup called twice on one host)", () => {
  // FINDING (severity: medium, a doubled correction and a doubled wake; src/plugin/v2/setup.ts,
  // no per-host guard like V1's process-wide dispatcher slot in src/plugin/wiring.ts): each
  // setup() registers its own context/http hooks and its own RetryController. An unrepairable
  // reply passes through both instances' http.response hooks (the second reads the first one's
  // rewritten response and finds the same markup), so both ledgers record it: the next request
  // carries the correction twice in its system prompt and the session is woken twice.
  // Expected: one correction, one wake, as with the entry listed once.
  test("fixed: an unrepairable reply is corrected once and woken once", async () => {
    const { host } = await setUp({ providers: ["deepseek"] }, 2);
    await host.buildContext("ses_1", DEEPSEEK, [user("msg_u1", "clean up")]);
    script = () => UNDECLARED;
    await (await post(host.nativeFetch("ses_1", DEEPSEEK))).text();
    await host.goIdle("ses_1");
    const next = await host.buildContext("ses_1", DEEPSEEK, [user("msg_u1", "clean up"), user("msg_u2", "Continue.")]);
    expect({ prompts: host.prompts.length, corrections: next.system.length }).toEqual({ prompts: 1, corrections: 1 });
  });

  test("hard negative: a repairable leak through both instances is one call, and history is sanitized once", async () => {
    const { host } = await setUp({ providers: ["deepseek"] }, 2);
    await host.buildContext("ses_1", DEEPSEEK, [user("msg_u1", "run the tests")]);
    script = () => LEAK;
    const { calls } = await callsIn("chat", await post(host.nativeFetch("ses_1", DEEPSEEK)));
    expect(calls).toEqual([{ name: "bash", input: { command: "npm test" } }]);
    const history: V2Message[] = [user("msg_u1", "hi"), { id: "msg_a1", role: "assistant", content: [{ type: "text", text: LEAK }] } as V2Message, user("msg_u2", "again")];
    const built = await host.buildContext("ses_1", DEEPSEEK, history);
    expect(JSON.stringify(built.messages)).toContain(JSON.stringify(REMOVED_NOTE).slice(1, -1));
    expect(JSON.stringify(built.messages).split(JSON.stringify(REMOVED_NOTE).slice(1, -1)).length).toBe(2);
  });
});

describe("V2: the host calls a hook after it disposed it", () => {
  // FINDING (severity: low, a disposed plugin still rewrites a request; src/plugin/v2/setup.ts
  // cleanup): a host that fires a callback it captured before the dispose (a request in flight
  // across a reload) still gets the history rewritten and a correction added by the disposed
  // instance. Expected: a disposed instance's hooks do nothing.
  test("fixed: a context callback fired after cleanup leaves the request as it is", async () => {
    const { host, cleanups } = await setUp({ providers: ["deepseek"] });
    const [context] = host.session.get("context")!.map((r) => r.callback);
    await cleanups[0]!();
    const messages: V2Message[] = [user("msg_u1", "hi"), { id: "msg_a1", role: "assistant", content: [{ type: "text", text: LEAK }] } as V2Message, user("msg_u2", "again")];
    const before = JSON.stringify(messages);
    const event = { sessionID: "ses_1", agent: "build", model: DEEPSEEK, kind: "primary", system: [], messages, options: {}, tools: {} };
    await context!(event, { signal: new AbortController().signal });
    expect(JSON.stringify(event.messages)).toBe(before);
  });
});

describe("V2: providers \"auto\" decides the same for the language hook and the context hook", () => {
  // FINDING (severity: low, the repair and the history cleaning applied to different routes;
  // src/plugin/v2/setup.ts: the language hook's route has modelID (upstream id) and family, the
  // context and HTTP hooks' `inScope` only { providerID, id }): under the default ["auto"], a
  // model alias whose upstream id is DeepSeek's (`gateway/fast` -> deepseek-chat) on the AI SDK
  // route is wrapped by the repair middleware (in scope), but its context is out of scope, so
  // its replayed leaks go back to the model verbatim. The same disagreement as V1's (see
  // review-48-hosts-v1, "providers auto decides the same for every hook of one route").
  // Expected: one decision per route (e.g. remember what the language hook saw for providerID/id).
  test("fixed: an aliased DeepSeek model the middleware wraps has its history sanitized", async () => {
    const { host } = await setUp(undefined);
    const language = { specificationVersion: "v3", provider: "gateway", modelId: "deepseek-chat", supportedUrls: {}, doGenerate: async () => ({}), doStream: async () => ({}) };
    const event = await host.language({ model: { id: "fast", providerID: "gateway", modelID: "deepseek-chat", family: "deepseek", package: "@ai-sdk/openai-compatible" }, sdk: {}, options: {}, language } as never);
    expect(event.language).not.toBe(language);
    const history: V2Message[] = [user("msg_u1", "hi"), { id: "msg_a1", role: "assistant", content: [{ type: "text", text: LEAK }] } as V2Message, user("msg_u2", "again")];
    const built = await host.buildContext("ses_1", { providerID: "gateway", id: "fast" }, history);
    expect(JSON.stringify(built.messages)).toContain(JSON.stringify(REMOVED_NOTE).slice(1, -1));
  });
});

describe("fx48: V2 listed twice, the second entry stands aside and its restrictions hold", () => {
  test("the second setup registers nothing, warns once, and its deny list is added to the first's", async () => {
    const { host } = await setUp({ providers: ["deepseek"] }, 1);
    const { definition } = await loadLikeV2(ROOT);
    const hooksBefore = [...host.session.values()].flat().length + [...host.aisdk.values()].flat().length;
    await definition.setup!(host.context({ providers: ["deepseek"], responseFix: { denyTools: ["bash"] } }));
    expect([...host.session.values()].flat().length + [...host.aisdk.values()].flat().length).toBe(hooksBefore);
    expect(logs.filter((line) => line.includes("listed more than once") && line.includes("responseFix.denyTools"))).toHaveLength(1);
    await host.buildContext("ses_1", DEEPSEEK, [user("msg_u1", "run the tests")]);
    script = () => LEAK;
    expect((await callsIn("chat", await post(host.nativeFetch("ses_1", DEEPSEEK)))).calls).toEqual([]);
  });

  test("hard negative: once the serving entry is cleaned up, a new setup on the host serves (a reload); another host is never affected", async () => {
    const { host, cleanups } = await setUp({ providers: ["deepseek"] }, 1);
    const other = await setUp({ providers: ["deepseek"] }, 1);
    expect(other.host.session.get("context")).toHaveLength(1);
    await cleanups[0]!();
    const { definition } = await loadLikeV2(ROOT);
    await definition.setup!(host.context({ providers: ["deepseek"] }));
    expect(host.session.get("context")).toHaveLength(1);
    await host.buildContext("ses_1", DEEPSEEK, [user("msg_u1", "run the tests")]);
    script = () => LEAK;
    expect((await callsIn("chat", await post(host.nativeFetch("ses_1", DEEPSEEK)))).calls).toEqual([{ name: "bash", input: { command: "npm test" } }]);
    expect(logs.filter((line) => line.includes("listed more than once"))).toEqual([]);
  });
});
