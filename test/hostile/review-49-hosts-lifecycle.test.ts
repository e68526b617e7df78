/**
 * Hostile review 49: lifecycle and the correction/wake on both hosts (V1 `server`,
 * src/plugin/index.ts; V2 `setup`, src/plugin/v2/setup.ts): disposal and eviction with a stream
 * open, setup again after cleanup, and the wake never sent once the user wrote. Tests named FINDING
 * fail on main at the time of writing; the others are hard negatives (each says why it is kept).
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, spyOn, test } from "bun:test";
import path from "node:path";
import { server } from "../../src/plugin/index.ts";
import type { V2Message, V2ModelRef } from "../../src/plugin/v2/host-types.ts";
import { block, live } from "../golden/notation.ts";
import { assemble, chunk, deltas, openAiTools, type Json } from "../security/support.ts";
import { callsIn, pathOf, requestBody, startFakeWires, type FakeWires, type Wire } from "../v2/fake-wires.ts";
import { loadLikeV2, StandInHost } from "../v2/stand-in-host.ts";

const PROSE = "Let me check.\n\n";
const LEAK = live(`${PROSE}${block("tool_calls", [["bash", [["command", "npm test"]]]])}`);
const UNDECLARED = live(`Cleaning up.\n\n${block("tool_calls", [["wipe_disk", [["path", "/"]]]])}`);
const CHAT_URL = "https://model.example/v1/chat/completions";
const SERVE = ["/usr/bin/bun", "/$bunfs/root/src/index.js", "serve"];
const savedArgv = process.argv;
afterEach(() => {
  process.argv = savedArgv;
});

type ModelInfo = { providerID: string; id: string; api: { id: string; npm: string } };
const DEEPSEEK: ModelInfo = { providerID: "deepseek", id: "deepseek-chat", api: { id: "deepseek-chat", npm: "@ai-sdk/openai-compatible" } };
type Scope = { fetch: typeof fetch; [key: symbol]: unknown };

/** A process whose upstream answers with SSE frames the test pushes one by one (`gate`) or all at once. */
function fakeProcess() {
  let reply = LEAK;
  let gated: { push: (frame: string) => void; end: () => void } | undefined;
  let wantGate = false;
  const encoder = new TextEncoder();
  const upstream = async () => {
    if (!wantGate) {
      const body = deltas(reply, 7).map((d) => `data: ${JSON.stringify(chunk({ content: d }))}\n\n`).join("") + `data: ${JSON.stringify(chunk({}, "stop"))}\n\ndata: [DONE]\n\n`;
      return new Response(body, { status: 200, headers: { "content-type": "text/event-stream" } });
    }
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        gated = { push: (frame) => controller.enqueue(encoder.encode(frame)), end: () => controller.close() };
      },
    });
    return new Response(stream, { status: 200, headers: { "content-type": "text/event-stream" } });
  };
  const scope = { fetch: Object.assign(upstream, { preconnect: () => undefined }) as unknown as typeof fetch } as Scope;
  return {
    scope,
    setReply: (text: string) => void (reply = text),
    gate: () => void (wantGate = true),
    ungate: () => void (wantGate = false),
    pushText: (text: string) => gated!.push(`data: ${JSON.stringify(chunk({ content: text }))}\n\n`),
    finish: () => {
      gated!.push(`data: ${JSON.stringify(chunk({}, "stop"))}\n\ndata: [DONE]\n\n`);
      gated!.end();
    },
  };
}
type Proc = ReturnType<typeof fakeProcess>;
type Load = { client?: unknown; wakes?: string[]; lines?: string[] };

async function startV1(options: unknown, proc: Proc, load: Load = {}) {
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
  return { hooks, wakes, lines, proc };
}
type V1 = Awaited<ReturnType<typeof startV1>>;

async function tag(v1: V1, sessionID: string, turn: string, model = DEEPSEEK) {
  const output = { headers: {} as Record<string, string> };
  await v1.hooks["chat.headers"]?.({ sessionID, agent: "build", provider: { id: model.providerID }, model, message: { id: turn } } as never, output as never);
  return output.headers;
}

function send(proc: Proc, headers: Record<string, string>, model = DEEPSEEK) {
  const body: Json = { model: model.api.id, stream: true, messages: [{ role: "user", content: "go" }], tools: openAiTools() };
  return proc.scope.fetch(CHAT_URL, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) });
}

async function request(v1: V1, sessionID: string, turn: string, text: string) {
  v1.proc.setReply(text);
  const headers = await tag(v1, sessionID, turn);
  return assemble(await (await send(v1.proc, headers)).text());
}

// Each build's history holds the session's earlier user messages, as OpenCode's does: since
// review 50 (hosts) a correction goes only with a history that still holds the reply it corrects.
const earlierUsers = new WeakMap<V1, Map<string, { info: { id: string } }[]>>();
async function build(v1: V1, sessionID: string, turn: string, text = "next") {
  const user = { info: { role: "user", id: turn, sessionID, model: { providerID: DEEPSEEK.providerID, modelID: DEEPSEEK.id } }, parts: [{ type: "text", text }] };
  let sessions = earlierUsers.get(v1);
  if (!sessions) earlierUsers.set(v1, (sessions = new Map()));
  const before = (sessions.get(sessionID) ?? []).filter((m) => m.info.id !== turn);
  sessions.set(sessionID, [...before, user]);
  const messages = [...before, user] as unknown[];
  await v1.hooks["experimental.chat.messages.transform"]?.({} as never, { messages } as never);
  const system = { system: [] as string[] };
  await v1.hooks["experimental.chat.system.transform"]?.({ sessionID, model: DEEPSEEK } as never, system as never);
  return { system: system.system, messages: messages.slice(before.length) };
}

const idle = (v1: V1, sessionID: string) => v1.hooks.event?.({ event: { type: "session.idle", properties: { sessionID } } } as never);

/** Every character of the reply is visible or inside a recovered call (no text lost). */
function noTextLost(reply: { text: string; calls: { name: string }[] }, written: string) {
  if (reply.calls.length === 0) expect(reply.text).toBe(written);
  else expect({ text: reply.text, calls: reply.calls.map((c) => c.name) }).toEqual({ text: PROSE, calls: ["bash"] });
}

describe("V1: the instance goes away while its stream is open", () => {
  // Hard negative, kept: the adapter's closure must outlive the instance; a regression that made
  // the repair look the instance up per chunk would drop or duplicate the held markup.
  test("disposed mid-stream: every character of the reply comes out (visible or in the call)", async () => {
    const proc = fakeProcess();
    const v1 = await startV1({ providers: ["deepseek"] }, proc);
    proc.gate();
    const headers = await tag(v1, "ses_1", "msg_u1");
    const response = await send(proc, headers);
    const text = response.text();
    const pieces = deltas(LEAK, 11);
    const half = Math.floor(pieces.length / 2);
    for (const piece of pieces.slice(0, half)) proc.pushText(piece);
    await new Promise((resolve) => setTimeout(resolve, 0));
    await v1.hooks.dispose!();
    for (const piece of pieces.slice(half)) proc.pushText(piece);
    proc.finish();
    const reply = assemble(await text);
    noTextLost({ text: reply.content, calls: reply.calls as { name: string }[] }, LEAK);
  });

  // Hard negative, kept: 1.18 keeps at most 64 instances behind the global fetch (LRU); an evicted
  // instance comes back with ITS options (here a deny list), never with the defaults or a stranger's.
  test("evicted mid-stream by 70 other directories' instances: the stream completes, and its next request keeps its deny list", async () => {
    const proc = fakeProcess();
    const strict = await startV1({ providers: ["deepseek"], responseFix: { denyTools: ["bash"] } }, proc);
    proc.gate();
    const response = await send(proc, await tag(strict, "ses_1", "msg_u1"));
    const text = response.text();
    for (const piece of deltas(LEAK, 11)) proc.pushText(piece);
    const others: V1[] = [];
    for (let i = 0; i < 70; i++) {
      const other = await startV1({ providers: ["deepseek"] }, proc);
      await tag(other, `ses_o${i}`, "msg_x");
      others.push(other);
    }
    proc.finish();
    proc.ungate();
    const first = assemble(await text);
    expect(first.calls).toEqual([]);
    expect(first.content).toContain(PROSE.trim());
    const again = await request(strict, "ses_1", "msg_u2", LEAK);
    expect(again.calls).toEqual([]);
    // ...while an instance without the deny list still recovers the same leak.
    expect((await request(others[69]!, "ses_o69", "msg_y", LEAK)).calls.map((c) => c.name)).toEqual(["bash"]);
  });

  // Hard negative, kept: the serving entry is evicted, then a second entry of its load narrows it
  // (RepairRoute.update while evicted): the narrowing must survive the instance's return.
  test("a narrowing handed over while the serving instance is evicted still holds when it comes back", async () => {
    const proc = fakeProcess();
    const load: Load = {};
    const serving = await startV1({ providers: ["deepseek"] }, proc, load);
    for (let i = 0; i < 70; i++) await tag(await startV1({ providers: ["deepseek"] }, proc), `ses_o${i}`, "msg_x");
    await startV1({ providers: ["deepseek"], responseFix: { denyTools: ["bash"] } }, proc, load);
    expect((await request(serving, "ses_1", "msg_u1", LEAK)).calls).toEqual([]);
  });
});

describe("V1: the wake is per session and never follows a user message", () => {
  // Hard negative, kept: the ledger is keyed by session; a regression keyed by instance would
  // wake or correct the wrong conversation.
  test("a leak in ses_1: idle ses_2 sends nothing and ses_2's next request carries no correction; ses_1 gets one wake", async () => {
    const proc = fakeProcess();
    const v1 = await startV1({ providers: ["deepseek"] }, proc);
    await build(v1, "ses_1", "msg_u1");
    await build(v1, "ses_2", "msg_v1");
    await request(v1, "ses_1", "msg_u1", UNDECLARED);
    await request(v1, "ses_2", "msg_v1", "All clean.");
    await idle(v1, "ses_2");
    expect(v1.wakes).toEqual([]);
    expect((await build(v1, "ses_2", "msg_v2")).system).toEqual([]);
    await idle(v1, "ses_1");
    expect(v1.wakes).toEqual(["ses_1"]);
  });

  test("the user wrote after the leak (their message's request was built, its reply is clean): idle sends no wake", async () => {
    const proc = fakeProcess();
    const v1 = await startV1({ providers: ["deepseek"] }, proc);
    await build(v1, "ses_1", "msg_u1", "clean up");
    await request(v1, "ses_1", "msg_u1", UNDECLARED);
    const next = await build(v1, "ses_1", "msg_u2", "never mind, stop");
    expect(next.system).toHaveLength(1);
    await request(v1, "ses_1", "msg_u2", "Stopped.");
    await idle(v1, "ses_1");
    expect(v1.wakes).toEqual([]);
  });
});

// ---------------------------------------------------------------- V2
const ROOT = path.resolve(import.meta.dir, "../..");
const V2_DEEPSEEK: V2ModelRef = { providerID: "deepseek", id: "deepseek-chat" };
let upstream: FakeWires;
let script: (wire: Wire, body: unknown) => string = () => "Done.";
let logs: string[] = [];
let errorSpy: ReturnType<typeof spyOn>;
beforeAll(async () => {
  upstream = await startFakeWires((wire, body) => script(wire, body));
});
afterAll(() => upstream.close());
beforeEach(() => {
  script = () => "Done.";
  logs = [];
  errorSpy = spyOn(console, "error").mockImplementation((line: unknown) => void logs.push(String(line)));
});
afterEach(() => errorSpy.mockRestore());
const user = (id: string, text: string): V2Message => ({ id, role: "user", content: [{ type: "text", text }] });

async function v2(options: unknown, host = new StandInHost()) {
  const { definition } = await loadLikeV2(ROOT);
  const cleanup = (await definition.setup!(host.context(options))) as (() => Promise<void>) | undefined;
  return { host, cleanup };
}
async function v2Reply(host: StandInHost, sessionID: string, reply: string) {
  script = () => reply;
  const response = await host.nativeFetch(sessionID, V2_DEEPSEEK)(`${upstream.baseURL}${pathOf("chat")}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(requestBody("chat", "go", true)),
  });
  return callsIn("chat", response);
}

describe("V2: setup again, and the wake after the user wrote", () => {
  // Hard negative, kept: cleanup releases the host's claim (wiring.ts claim/release); a reload
  // that sets the plugin up again on the same host must serve, not stand aside for a dead entry.
  test("setup, cleanup, setup again on the same host: the second setup serves (the leak runs, no stand-aside warning)", async () => {
    const first = await v2({ providers: ["deepseek"] });
    await first.cleanup!();
    const second = await v2({ providers: ["deepseek"] }, first.host);
    expect(typeof second.cleanup).toBe("function");
    await first.host.buildContext("ses_1", V2_DEEPSEEK, [user("msg_u1", "run")]);
    expect((await v2Reply(first.host, "ses_1", LEAK)).calls.map((c) => c.name)).toEqual(["bash"]);
    expect(logs.filter((l) => l.includes("listed more than once"))).toEqual([]);
    await second.cleanup!();
  });

  test("a leak, then the user's next message (built, answered cleanly), then idle: no wake is queued", async () => {
    const { host, cleanup } = await v2({ providers: ["deepseek"] });
    await host.buildContext("ses_1", V2_DEEPSEEK, [user("msg_u1", "clean up")]);
    await v2Reply(host, "ses_1", UNDECLARED);
    const next = await host.buildContext("ses_1", V2_DEEPSEEK, [user("msg_u1", "clean up"), user("msg_u2", "never mind, stop")]);
    expect(next.system).toHaveLength(1);
    await v2Reply(host, "ses_1", "Stopped.");
    await host.goIdle("ses_1");
    expect(host.prompts).toEqual([]);
    await cleanup!();
  });

  test("a leak in ses_1: ses_2 going idle queues nothing, ses_1 going idle queues one wake", async () => {
    const { host, cleanup } = await v2({ providers: ["deepseek"] });
    await host.buildContext("ses_1", V2_DEEPSEEK, [user("msg_u1", "clean up")]);
    await host.buildContext("ses_2", V2_DEEPSEEK, [user("msg_v1", "hello")]);
    await v2Reply(host, "ses_1", UNDECLARED);
    await v2Reply(host, "ses_2", "Hi.");
    await host.goIdle("ses_2");
    expect(host.prompts).toEqual([]);
    expect((await host.buildContext("ses_2", V2_DEEPSEEK, [user("msg_v2", "again")])).system).toEqual([]);
    await host.goIdle("ses_1");
    expect(host.prompts.map((p) => p.sessionID)).toEqual(["ses_1"]);
    await cleanup!();
  });

  test("cleanup while a stream is open: every character of the reply comes out", async () => {
    const { host, cleanup } = await v2({ providers: ["deepseek"] });
    await host.buildContext("ses_1", V2_DEEPSEEK, [user("msg_u1", "run")]);
    script = () => LEAK;
    const response = await host.nativeFetch("ses_1", V2_DEEPSEEK)(`${upstream.baseURL}${pathOf("chat")}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(requestBody("chat", "go", true)),
    });
    await cleanup!();
    const out = await callsIn("chat", response);
    noTextLost({ text: out.text, calls: out.calls }, LEAK);
  });
});

describe("the user wrote to another model (out of scope) after the leak: no wake, no late correction", () => {
  const LLAMA: ModelInfo = { providerID: "my-llama", id: "llama-3.3-70b", api: { id: "llama-3.3-70b", npm: "@ai-sdk/openai-compatible" } };

  // Hard negative, kept: passOver is the only path that clears a pending wake when the next
  // request is one the plugin leaves alone; a regression there wakes a session the user already
  // took elsewhere.
  test("V1: leak on DeepSeek, the user's next message goes to an out-of-scope Llama, idle: no wake; back on DeepSeek: no correction", async () => {
    const proc = fakeProcess();
    const v1 = await startV1({ providers: ["deepseek"] }, proc);
    await build(v1, "ses_1", "msg_u1", "clean up");
    await request(v1, "ses_1", "msg_u1", UNDECLARED);
    const user2 = { info: { role: "user", id: "msg_u2", sessionID: "ses_1", model: { providerID: LLAMA.providerID, modelID: LLAMA.id } }, parts: [{ type: "text", text: "use llama" }] };
    await v1.hooks["experimental.chat.messages.transform"]?.({} as never, { messages: [user2] } as never);
    const system = { system: [] as string[] };
    await v1.hooks["experimental.chat.system.transform"]?.({ sessionID: "ses_1", model: LLAMA } as never, system as never);
    expect(system.system).toEqual([]);
    await idle(v1, "ses_1");
    expect(v1.wakes).toEqual([]);
    expect((await build(v1, "ses_1", "msg_u3", "back")).system).toEqual([]);
  });

  test("V2: the same on the stand-in host", async () => {
    const { host, cleanup } = await v2({ providers: ["deepseek"] });
    await host.buildContext("ses_1", V2_DEEPSEEK, [user("msg_u1", "clean up")]);
    await v2Reply(host, "ses_1", UNDECLARED);
    const other = await host.buildContext("ses_1", { providerID: "my-llama", id: "llama-3.3-70b" }, [user("msg_u1", "clean up"), user("msg_u2", "use llama")]);
    expect(other.system).toEqual([]);
    await host.goIdle("ses_1");
    expect(host.prompts).toEqual([]);
    expect((await host.buildContext("ses_1", V2_DEEPSEEK, [user("msg_u3", "back")])).system).toEqual([]);
    await cleanup!();
  });
});
