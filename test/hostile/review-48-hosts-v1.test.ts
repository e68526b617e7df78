/**
 * Hostile review 48: the 1.18 plugin (V1 `server`, src/plugin/index.ts) as OpenCode 1.18 drives it:
 * the `providers` scope read by each hook, and the plugin listed twice in one process. Every test
 * named FINDING fails on main at the time of writing; the others are hard negatives.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { server } from "../../src/plugin/index.ts";
import { REMOVED_NOTE } from "../../src/history/sanitize.ts";
import { block, live } from "../golden/notation.ts";
import { assemble, deltas, openAiTools, sseText, type Json } from "../security/support.ts";

const PROSE = "Let me check.\n\n";
const LEAK = live(`${PROSE}${block("tool_calls", [["bash", [["command", "npm test"]]]])}`);
const UNDECLARED = live(`Cleaning up.\n\n${block("tool_calls", [["wipe_disk", [["path", "/"]]]])}`);
const CHAT_URL = "https://model.example/v1/chat/completions";
const SERVE = ["/usr/bin/bun", "/$bunfs/root/src/index.js", "serve"];
const savedArgv = process.argv;
afterEach(() => {
  process.argv = savedArgv;
});

/** A model as OpenCode 1.18 hands it to chat.headers / system.transform (`Model`): its id, the upstream id, its family. */
type ModelInfo = { providerID: string; id: string; api: { id: string; npm: string }; family?: string };
const DEEPSEEK: ModelInfo = { providerID: "deepseek", id: "deepseek-chat", api: { id: "deepseek-chat", npm: "@ai-sdk/openai-compatible" } };

/** Assistant message -> the user message it answers (GET /session/{id}/message/{messageID}), shared by every instance. */
const PARENTS = new Map<string, { turn: string; model: ModelInfo }>();

type Scope = { fetch: typeof fetch; [key: symbol]: unknown };

/** A fake process (one global fetch, the upstream) shared by every plugin instance started in it. */
function fakeProcess() {
  let reply = LEAK;
  const upstream = async () => new Response(sseText(deltas(reply, 7)), { status: 200, headers: { "content-type": "text/event-stream" } });
  const scope = { fetch: Object.assign(upstream, { preconnect: () => undefined }) as unknown as typeof fetch } as Scope;
  return { scope, setReply: (text: string) => void (reply = text) };
}

/**
 * One load of the plugin list: 1.18 builds one `PluginInput` per directory instance and hands that
 * same object to every entry it loads (read from the 1.18.33 binary: its plugin state builds
 * `input` once, then calls each plugin with it). Two entries of one config share it; a reload or
 * another directory gets a new one.
 */
type Load = { client?: unknown; wakes?: { sessionID: string; text: string }[]; lines?: string[] };

async function startV1(options: unknown, proc = fakeProcess(), load: Load = {}) {
  const wakes: { sessionID: string; text: string }[] = (load.wakes ??= []);
  const lines: string[] = (load.lines ??= []);
  const client = load.client ?? {
    app: { log: async ({ body }: { body: { message: string } }) => void lines.push(body.message) },
    tui: { showToast: async () => undefined },
    session: {
      promptAsync: async ({ path: p, body }: { path: { id: string }; body: { parts: { text: string }[] } }) => void wakes.push({ sessionID: p.id, text: body.parts[0]!.text }),
      get: async ({ path: p }: { path: { id: string } }) => ({ data: { id: p.id, projectID: "prj_1", directory: "/tmp/p", title: "t" } }),
      message: async ({ path: p }: { path: { messageID: string } }) => {
        const parent = PARENTS.get(p.messageID);
        if (!parent) return { error: { name: "NotFoundError" } };
        return { data: { info: { id: p.messageID, role: "assistant", parentID: parent.turn, providerID: parent.model.providerID, modelID: parent.model.id }, parts: [] } };
      },
    },
  };
  load.client = client;
  process.argv = SERVE;
  const hooks = await server(load as never, options as never, proc.scope);
  process.argv = savedArgv;
  return { hooks, wakes, lines, proc };
}

type V1 = Awaited<ReturnType<typeof startV1>>;

/** One model request of `turn`: chat.headers of every instance (in load order), then the process fetch. */
async function request(instances: V1[], sessionID: string, turn: string, text: string, model = DEEPSEEK) {
  instances[0]!.proc.setReply(text);
  const output = { headers: {} as Record<string, string> };
  for (const v1 of instances) {
    await v1.hooks["chat.headers"]?.({ sessionID, agent: "build", provider: { id: model.providerID }, model, message: { id: turn } } as never, output as never);
  }
  const body: Json = { model: model.api.id, stream: true, messages: [{ role: "user", content: "go" }], tools: openAiTools() };
  const response = await instances[0]!.proc.scope.fetch(CHAT_URL, { method: "POST", headers: { "content-type": "application/json", ...output.headers }, body: JSON.stringify(body) });
  return { tagged: Object.keys(output.headers).length > 0, reply: assemble(await response.text()) };
}

/** The next request's build: messages.transform then system.transform of every instance. */
// Each build's history holds the session's earlier user messages, as OpenCode's does: since
// review 50 (hosts) a correction goes only with a history that still holds the reply it corrects.
const earlierUsers = new WeakMap<V1, Map<string, { info: { id: string } }[]>>();
async function build(instances: V1[], sessionID: string, turn: string, model = DEEPSEEK, history: unknown[] = []) {
  const user = { info: { role: "user", id: turn, sessionID, model: { providerID: model.providerID, modelID: model.id } }, parts: [{ type: "text", text: "next" }] };
  let sessions = earlierUsers.get(instances[0]!);
  if (!sessions) earlierUsers.set(instances[0]!, (sessions = new Map()));
  const before = (sessions.get(sessionID) ?? []).filter((m) => m.info.id !== turn);
  sessions.set(sessionID, [...before, user]);
  const all = [...before, ...history, user] as unknown[];
  for (const v1 of instances) await v1.hooks["experimental.chat.messages.transform"]?.({} as never, { messages: all } as never);
  const system = { system: [] as string[] };
  for (const v1 of instances) await v1.hooks["experimental.chat.system.transform"]?.({ sessionID, model } as never, system as never);
  return { system: system.system, messages: all.slice(before.length) };
}

/** OpenCode stores the reply's text part and hands it to each instance's text.complete; returns what it keeps. */
async function complete(instances: V1[], sessionID: string, assistantID: string, turn: string, text: string, model = DEEPSEEK) {
  PARENTS.set(assistantID, { turn, model });
  const output = { text };
  for (const v1 of instances) await v1.hooks["experimental.text.complete"]?.({ sessionID, messageID: assistantID, partID: `${assistantID}_p` } as never, output as never);
  return output.text;
}

const idle = async (instances: V1[], sessionID: string) => {
  for (const v1 of instances) await v1.hooks.event?.({ event: { type: "session.idle", properties: { sessionID } } } as never);
};

const leakHistory = () => [{ info: { role: "assistant", id: "msg_a0", sessionID: "ses_1" }, parts: [{ type: "text", text: LEAK }] }];
const textOf = (messages: unknown[]) => (messages[0] as { parts: { text: string }[] }).parts[0]!.text;

describe("V1: providers \"auto\" decides the same for every hook of one route", () => {
  // FINDING (severity: medium, the repair and its history/correction applied to different routes;
  // src/plugin/index.ts: chat.headers uses routeOf (model id, api.id, family) while
  // messages.transform and system.transform pass only { providerID, modelID }): under the default
  // providers ["auto"], a custom model alias whose upstream id (api.id) or family is DeepSeek's
  // (`"fast": { "id": "deepseek-chat" }` under a gateway provider) is in scope for chat.headers,
  // so its replies are repaired on the wire and an unrepairable one is recorded for a correction;
  // but the next request's messages.transform finds the same route out of scope: the leak in its
  // history is replayed verbatim (the model imitates it) and the pending correction is passed over
  // (never delivered). Expected: one scope decision per route, the same in every hook.
  const ALIAS: ModelInfo = { providerID: "gateway", id: "fast", api: { id: "deepseek-chat", npm: "@ai-sdk/openai-compatible" }, family: "deepseek" };

  // Lower severity than the correction below: the tagged request's body is also sanitized by the
  // fetch adapter on the wire, so this shows the hooks disagreeing more than a replayed leak.
  test("fixed: the route chat.headers repairs has its history sanitized", async () => {
    const v1 = await startV1(undefined);
    const { tagged } = await request([v1], "ses_1", "msg_u1", LEAK, ALIAS);
    expect(tagged).toBe(true);
    const built = await build([v1], "ses_1", "msg_u2", ALIAS, leakHistory());
    expect(textOf(built.messages)).toBe(`${PROSE}${REMOVED_NOTE}`);
  });

  // The worse half: with the default retry the session is woken ("Continue.", the system
  // channel's minimal ping), but the correction that ping relies on never reaches the system
  // prompt, so the model is poked with no explanation.
  test("fixed: the route chat.headers repairs gets the correction its unrepairable reply earned (and its wake carries it)", async () => {
    const v1 = await startV1(undefined);
    await build([v1], "ses_1", "msg_u1", ALIAS);
    const { tagged } = await request([v1], "ses_1", "msg_u1", UNDECLARED, ALIAS);
    expect(tagged).toBe(true);
    await idle([v1], "ses_1");
    const built = await build([v1], "ses_1", "msg_u2", ALIAS);
    expect({ wakes: v1.wakes.length, corrections: built.system.length }).toEqual({ wakes: 1, corrections: 1 });
  });

  test("hard negative: a model whose own id is DeepSeek's gets both (the tests above can fail)", async () => {
    const v1 = await startV1({ retry: { enabled: false } });
    await build([v1], "ses_1", "msg_u1");
    expect((await request([v1], "ses_1", "msg_u1", UNDECLARED)).tagged).toBe(true);
    const built = await build([v1], "ses_1", "msg_u2", DEEPSEEK, leakHistory());
    expect({ history: textOf(built.messages), corrections: built.system.length }).toEqual({ history: `${PROSE}${REMOVED_NOTE}`, corrections: 1 });
  });
});

describe("V1: the plugin listed twice in one process", () => {
  test("hard negative: one fetch wrapper, one call, for two instances with the same options", async () => {
    const proc = fakeProcess();
    const load: Load = {};
    const a = await startV1({ providers: ["deepseek"] }, proc, load);
    const before = proc.scope.fetch;
    const b = await startV1({ providers: ["deepseek"] }, proc, load);
    expect(proc.scope.fetch).toBe(before);
    const { reply } = await request([a, b], "ses_1", "msg_u1", LEAK);
    expect(reply.calls.map((c) => c.name)).toEqual(["bash"]);
  });

  // FINDING (severity: high by the trust rule, a configured deny list ignored; src/plugin/index.ts
  // chat.headers + src/plugin/wiring.ts, one request tag header that the last instance overwrites):
  // two entries of the plugin (a global and a project config both listing it, or a copy-paste),
  // the first with responseFix.denyTools ["bash"], the second without. Both chat.headers hooks run
  // for the request; the second overwrites the first's tag, so only the second instance's options
  // read the reply and the leaked bash call runs although one entry denies it. Expected: the
  // stricter reading wins (or the first instance keeps the request), never a deny list dropped in
  // silence. (If OpenCode dedupes plugin entries by name this needs two spellings of the entry,
  // e.g. a file: path and the package name.)
  test("fixed: a deny list in one of two entries is not silently overridden by the other", async () => {
    const proc = fakeProcess();
    const load: Load = {};
    const strict = await startV1({ providers: ["deepseek"], responseFix: { denyTools: ["bash"] } }, proc, load);
    const loose = await startV1({ providers: ["deepseek"] }, proc, load);
    const { reply } = await request([strict, loose], "ses_1", "msg_u1", LEAK);
    expect(reply.calls).toEqual([]);
    expect(load.lines!.filter((line) => line.includes("listed more than once"))).toHaveLength(1);
  });

  // FINDING (severity: medium, a doubled correction and wake, and the visible text rewritten;
  // src/plugin/index.ts + src/plugin/fallback.ts): listed twice, the request carries only the
  // second instance's tag (chat.headers overwrites it), so only that instance hears onRepairing.
  // The first instance's text fallback then takes the same reply as one the wire could not
  // rewrite: it replaces the markup the wire left visible with the removal note and records its
  // own correction, so the next request carries the correction twice and the session is woken
  // twice. Expected: one correction and one wake, as with the entry listed once.
  test("fixed: listed twice, an unrepairable reply is corrected once and woken once", async () => {
    const proc = fakeProcess();
    const load: Load = {};
    const a = await startV1({ providers: ["deepseek"] }, proc, load);
    const b = await startV1({ providers: ["deepseek"] }, proc, load);
    await build([a, b], "ses_1", "msg_u1");
    const { reply } = await request([a, b], "ses_1", "msg_u1", UNDECLARED);
    await complete([a, b], "ses_1", "msg_a1", "msg_u1", reply.content);
    await idle([a, b], "ses_1");
    const built = await build([a, b], "ses_1", "msg_u2");
    // Both entries share the host's client (one input per load): one list of wakes.
    expect(b.wakes).toBe(a.wakes);
    expect({ wakes: a.wakes.length, corrections: built.system.length }).toEqual({ wakes: 1, corrections: 1 });
  });

  test("hard negative: listed once, the same steps give one correction and one wake (the test above can fail)", async () => {
    const a = await startV1({ providers: ["deepseek"] });
    await build([a], "ses_1", "msg_u1");
    const { reply } = await request([a], "ses_1", "msg_u1", UNDECLARED);
    expect(await complete([a], "ses_1", "msg_a1", "msg_u1", reply.content)).toBe(reply.content);
    await idle([a], "ses_1");
    const built = await build([a], "ses_1", "msg_u2");
    expect({ wakes: a.wakes.length, corrections: built.system.length }).toEqual({ wakes: 1, corrections: 1 });
  });
});

describe("V1: many plugin instances in one process (one per project directory, one per reload)", () => {
  // FINDING (severity: low-medium, a live instance silently loses its wire repair; src/plugin/
  // wiring.ts registerRepair, MAX_INSTANCES evicts by age of registration, not by use): an
  // OpenCode server serving several directories keeps one plugin instance per directory. The
  // first directory's instance stays live while another directory is reloaded 64 times (each
  // reload registers a new instance); the first instance is then evicted from the dispatcher
  // although it still tags its requests, so its tagged requests are only stripped: a leaked call
  // stays text. Expected: a live instance is never dropped (evict least recently used, or drop an
  // instance only when its tag has not been seen for a while).
  test("fixed: the first directory's instance still repairs after another directory reloaded 64 times", async () => {
    const proc = fakeProcess();
    const first = await startV1({ providers: ["deepseek"] }, proc);
    expect((await request([first], "ses_1", "msg_u1", LEAK)).reply.calls.map((c) => c.name)).toEqual(["bash"]);
    for (let i = 0; i < 64; i++) await startV1({ providers: ["deepseek"] }, proc);
    const { tagged, reply } = await request([first], "ses_1", "msg_u2", LEAK);
    expect(tagged).toBe(true);
    expect(reply.calls.map((c) => c.name)).toEqual(["bash"]);
  });

  test("hard negative: 63 later instances leave the first one repairing (the bound, not an earlier loss)", async () => {
    const proc = fakeProcess();
    const first = await startV1({ providers: ["deepseek"] }, proc);
    for (let i = 0; i < 63; i++) await startV1({ providers: ["deepseek"] }, proc);
    expect((await request([first], "ses_1", "msg_u1", LEAK)).reply.calls.map((c) => c.name)).toEqual(["bash"]);
  });

  test("hard negative: two instances with different options each keep their own deny list", async () => {
    const proc = fakeProcess();
    const strict = await startV1({ providers: ["deepseek"], responseFix: { denyTools: ["bash"] } }, proc);
    const loose = await startV1({ providers: ["deepseek"] }, proc);
    expect((await request([strict], "ses_1", "msg_u1", LEAK)).reply.calls).toEqual([]);
    expect((await request([loose], "ses_2", "msg_u1", LEAK)).reply.calls.map((c) => c.name)).toEqual(["bash"]);
    expect((await request([strict], "ses_1", "msg_u2", LEAK)).reply.calls).toEqual([]);
  });
});

describe("fx48: listed twice, the restrictions of every entry hold (the first serves, a later one hands over its own)", () => {
  test("the deny list of the second entry is added to the first's: the leaked bash call never runs", async () => {
    const proc = fakeProcess();
    const load: Load = {};
    const loose = await startV1({ providers: ["deepseek"] }, proc, load);
    const strict = await startV1({ providers: ["deepseek"], responseFix: { denyTools: ["bash"] } }, proc, load);
    expect(Object.keys(strict.hooks)).toEqual([]);
    const { reply } = await request([loose, strict], "ses_1", "msg_u1", LEAK);
    expect(reply.calls).toEqual([]);
    const warnings = load.lines!.filter((line) => line.includes("listed more than once"));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain("responseFix.denyTools");
  });

  test("an allow list in the second entry narrows the first's \"*\"; a disabled echo guard is turned back on", async () => {
    const proc = fakeProcess();
    const load: Load = {};
    const a = await startV1({ providers: ["deepseek"], responseFix: { echoGuard: false } }, proc, load);
    await startV1({ providers: ["deepseek"], responseFix: { allowTools: ["read"] } }, proc, load);
    expect((await request([a], "ses_1", "msg_u1", LEAK)).reply.calls).toEqual([]);
    const warning = load.lines!.find((line) => line.includes("listed more than once"))!;
    expect(warning).toContain("responseFix.allowTools");
    expect(warning).toContain("responseFix.echoGuard");
  });

  test("hard negative: a second entry with the same restrictions changes nothing and says its options are not used", async () => {
    const proc = fakeProcess();
    const load: Load = {};
    const a = await startV1({ providers: ["deepseek"] }, proc, load);
    await startV1({ providers: ["deepseek"], retry: { enabled: false } }, proc, load);
    expect((await request([a], "ses_1", "msg_u1", LEAK)).reply.calls.map((c) => c.name)).toEqual(["bash"]);
    expect(load.lines!.filter((line) => line.includes("listed more than once") && line.includes("options are not used"))).toHaveLength(1);
  });
});

describe("fx48: V1 dispose (1.18 disposes a directory's instance on reload and shutdown)", () => {
  test("after dispose no wake is sent and no request is tagged; a new load serves again", async () => {
    const proc = fakeProcess();
    const a = await startV1({ providers: ["deepseek"] }, proc);
    await build([a], "ses_1", "msg_u1");
    await request([a], "ses_1", "msg_u1", UNDECLARED);
    await a.hooks.dispose!();
    await idle([a], "ses_1");
    expect(a.wakes).toEqual([]);
    expect((await request([a], "ses_1", "msg_u2", LEAK)).tagged).toBe(false);
    const b = await startV1({ providers: ["deepseek"] }, proc);
    expect((await request([b], "ses_1", "msg_u3", LEAK)).reply.calls.map((c) => c.name)).toEqual(["bash"]);
  });

  test("hard negative: without the dispose the same steps wake once (the test above can fail)", async () => {
    const a = await startV1({ providers: ["deepseek"] });
    await build([a], "ses_1", "msg_u1");
    await request([a], "ses_1", "msg_u1", UNDECLARED);
    await idle([a], "ses_1");
    expect(a.wakes).toHaveLength(1);
  });
});
