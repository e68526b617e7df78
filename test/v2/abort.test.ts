/**
 * The user's stop on OpenCode 2: the 2.x counterpart of 1.18's `session.error` with
 * `MessageAbortedError` (test/plugin/idle-wake.test.ts). 2.x ends every execution with one terminal
 * event on the plugin context's event stream (`session.execution.succeeded` / `failed` /
 * `interrupted`, the user's stop being `interrupted` with `reason: "user"`); shapes and sources in
 * src/plugin/v2/host-types.ts (E, V, T). The stand-in host publishes them in the envelope a promise
 * plugin receives, and may hand one over before or after `session.wait` resolves.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, spyOn, test } from "bun:test";
import path from "node:path";
import { correctionText } from "../../src/retry/state.ts";
import { executionEventOf, watchExecutions } from "../../src/plugin/v2/executions.ts";
import type { V2Context, V2Message, V2ModelRef } from "../../src/plugin/v2/host-types.ts";
import { block, live } from "../golden/notation.ts";
import { callsIn, pathOf, requestBody, startFakeWires, type FakeWires } from "./fake-wires.ts";
import { loadLikeV2, StandInHost } from "./stand-in-host.ts";

const ROOT = path.resolve(import.meta.dir, "../..");
/** A leak naming a tool the request never declared: never a call, always a correction and a wake. */
const UNDECLARED = live(`Cleaning up.\n\n${block("tool_calls", [["wipe_disk", [["path", "/"]]]])}`);
const DEEPSEEK: V2ModelRef = { providerID: "deepseek", id: "deepseek-chat" };
const WAKE = { text: "Continue.", delivery: "queue" } as const;

let upstream: FakeWires;
let logs: string[] = [];
let errorSpy: ReturnType<typeof spyOn>;

beforeAll(async () => {
  upstream = await startFakeWires(() => UNDECLARED);
});
afterAll(() => upstream.close());
beforeEach(() => {
  logs = [];
  errorSpy = spyOn(console, "error").mockImplementation((line: unknown) => void logs.push(String(line)));
});
afterEach(() => errorSpy.mockRestore());

const user = (id: string, text: string): V2Message => ({ id, role: "user", content: [{ type: "text", text }] });

async function hostWith(options: unknown = { providers: ["deepseek"] }, shape: (ctx: V2Context) => V2Context = (ctx) => ctx): Promise<{ host: StandInHost; cleanup: () => Promise<void> }> {
  const { definition } = await loadLikeV2(ROOT);
  const host = new StandInHost();
  const cleanup = (await definition.setup!(shape(host.context(options)))) as () => Promise<void>;
  return { host, cleanup };
}

/** One execution of `sessionID` whose reply is an unrepairable leak; it stays running. */
async function leakIn(host: StandInHost, sessionID: string, turn = "msg_u1"): Promise<void> {
  await host.startExecution(sessionID);
  await host.buildContext(sessionID, DEEPSEEK, [user(turn, "clean up")]);
  const response = await host.nativeFetch(sessionID, DEEPSEEK)(`${upstream.baseURL}${pathOf("chat")}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(requestBody("chat", "clean up", true)) });
  expect((await callsIn("chat", response)).calls).toEqual([]);
}

/** The next request of the session, a new user message: the system parts it carries. */
async function nextSystem(host: StandInHost, sessionID: string): Promise<string[]> {
  const event = await host.buildContext(sessionID, DEEPSEEK, [user("msg_u1", "clean up"), { role: "assistant", content: [{ type: "text", text: UNDECLARED }] }, user("msg_u2", "something else")]);
  return event.system.map((part) => part.text);
}

describe("the user's stop (session.execution.interrupted, reason user) drops the pending leak", () => {
  for (const eventFirst of [true, false]) {
    const order = eventFirst ? "the event before wait resolves" : "wait resolving first, the event after";
    test(`no wake after the stop (${order})`, async () => {
      const { host } = await hostWith();
      await leakIn(host, "ses_1");
      await host.endExecution("ses_1", { type: "interrupted", reason: "user" }, { eventFirst });
      expect(host.prompts).toEqual([]);
    });
  }

  test("and no correction on the user's next message (as 1.18's onAbort)", async () => {
    const { host } = await hostWith({ providers: ["deepseek"], retry: { enabled: false } });
    await leakIn(host, "ses_1");
    await host.endExecution("ses_1", { type: "interrupted", reason: "user" });
    expect(await nextSystem(host, "ses_1")).toEqual([]);
    // The control: without the stop, the same reply's correction rides on the next request.
    const control = await hostWith({ providers: ["deepseek"], retry: { enabled: false } });
    await leakIn(control.host, "ses_1");
    await control.host.endExecution("ses_1", { type: "succeeded" });
    expect(await nextSystem(control.host, "ses_1")).toEqual([correctionText("undeclared-tool")]);
  });

  test("the control: an execution that succeeds gets its one wake, in either order", async () => {
    for (const eventFirst of [true, false]) {
      const { host } = await hostWith();
      await leakIn(host, "ses_1");
      await host.endExecution("ses_1", { type: "succeeded" }, { eventFirst });
      expect(host.prompts).toEqual([{ sessionID: "ses_1", ...WAKE }]);
    }
  });

  test("the wake waits for the terminal event: wait alone sends nothing while the execution runs", async () => {
    const { host } = await hostWith();
    await leakIn(host, "ses_1");
    await host.goIdle("ses_1");
    expect(host.prompts).toEqual([]);
    await host.publish("session.execution.succeeded", { sessionID: "ses_1" });
    expect(host.prompts).toEqual([{ sessionID: "ses_1", ...WAKE }]);
  });
});

describe("what is not the user's stop leaves the wake as 1.18 does", () => {
  test("another session's stop: this session is still woken", async () => {
    const { host } = await hostWith();
    await leakIn(host, "ses_1");
    await host.startExecution("ses_2");
    await host.endExecution("ses_2", { type: "interrupted", reason: "user" });
    await host.endExecution("ses_1", { type: "succeeded" });
    expect(host.prompts).toEqual([{ sessionID: "ses_1", ...WAKE }]);
  });

  test("a failed execution (1.18: a session.error other than MessageAbortedError): the wake still follows", async () => {
    const { host } = await hostWith();
    await leakIn(host, "ses_1");
    await host.endExecution("ses_1", { type: "failed", error: { type: "api", message: "overloaded", status: 529 } });
    expect(host.prompts).toEqual([{ sessionID: "ses_1", ...WAKE }]);
  });

  test("an interruption by shutdown: no wake queued into a closing process, and the leak is not dropped", async () => {
    const { host } = await hostWith();
    await leakIn(host, "ses_1");
    await host.endExecution("ses_1", { type: "interrupted", reason: "shutdown" });
    expect(host.prompts).toEqual([]);
    expect(await nextSystem(host, "ses_1")).toEqual([correctionText("undeclared-tool")]);
  });

  test("events the plugin does not read (another dialect, other types, other shapes) never hold a wake back", async () => {
    const { host } = await hostWith();
    await host.publish("session.status", { sessionID: "ses_1", status: { type: "busy" } });
    await host.buildContext("ses_1", DEEPSEEK, [user("msg_u1", "clean up")]);
    await callsIn("chat", await host.nativeFetch("ses_1", DEEPSEEK)(`${upstream.baseURL}${pathOf("chat")}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(requestBody("chat", "clean up", true)) }));
    await host.goIdle("ses_1");
    expect(host.prompts).toEqual([{ sessionID: "ses_1", ...WAKE }]);
  });
});

describe("the event stream as a host may give it", () => {
  test("a host without an event domain: the start-up line says aborts are unseen; the wake as before", async () => {
    const { host } = await hostWith(undefined, (ctx) => ({ ...ctx, event: undefined }));
    expect(logs.find((line) => line.startsWith("[dsml] loaded v"))).toContain("aborts unseen: no event.subscribe");
    await leakIn(host, "ses_1");
    await host.goIdle("ses_1");
    expect(host.prompts).toEqual([{ sessionID: "ses_1", ...WAKE }]);
  });

  test("a stream that breaks mid-execution: one warn line, and the waiting wake is decided by wait alone", async () => {
    const { host } = await hostWith();
    await leakIn(host, "ses_1");
    await host.breakEvents(new TypeError("socket closed"));
    expect(logs).toContain("[dsml] event stream failed (TypeError); aborts are no longer seen");
    await host.goIdle("ses_1");
    expect(host.prompts).toEqual([{ sessionID: "ses_1", ...WAKE }]);
    expect(host.hookErrors).toEqual([]);
  });

  test("subscribe throwing at setup: setup still completes and wakes as before", async () => {
    const { host } = await hostWith(undefined, (ctx) => ({ ...ctx, event: { subscribe: () => { throw new Error("no stream"); } } }));
    expect(host.session.get("http.response")).toHaveLength(1);
    expect(logs).toContain("[dsml] event stream failed (Error); aborts are no longer seen");
    await leakIn(host, "ses_1");
    await host.goIdle("ses_1");
    expect(host.prompts).toEqual([{ sessionID: "ses_1", ...WAKE }]);
  });

  test("setup's cleanup ends its subscription", async () => {
    const { host, cleanup } = await hostWith();
    expect(host.subscriptions.size).toBe(1);
    await cleanup();
    await host.publish("session.execution.started", { sessionID: "ses_1" });
    expect(host.subscriptions.size).toBe(0);
  });

  test("no subscription when nothing could be dropped (no wake and no correction, or no repair)", async () => {
    for (const options of [{ retry: { enabled: false, nudge: false } }, { responseFix: { enabled: false } }]) {
      const { host } = await hostWith({ providers: ["deepseek"], ...options });
      expect(host.subscriptions.size).toBe(0);
      expect(logs.find((line) => line.startsWith("[dsml] loaded v"))).not.toContain("aborts unseen");
    }
  });

  test("a host that refuses a hook fails setup, and the subscription does not outlive it", async () => {
    const { definition } = await loadLikeV2(ROOT);
    const host = new StandInHost();
    const ctx = host.context({ providers: ["deepseek"] });
    const refusing = { ...ctx, session: { ...ctx.session, hook: (async () => { throw new Error("refused"); }) as V2Context["session"]["hook"] } };
    await expect(Promise.resolve(definition.setup!(refusing))).rejects.toThrow("refused");
    await host.publish("session.status", { sessionID: "ses_1" });
    expect(host.subscriptions.size).toBe(0);
  });
});

describe("executionEventOf and watchExecutions", () => {
  test("reads the documented envelope; anything else is not an execution event", () => {
    expect(executionEventOf({ id: "evt_1", type: "session.execution.interrupted", created: 1, data: { sessionID: "ses_1", reason: "user" } })).toEqual({ sessionID: "ses_1", kind: "interrupted", byUser: true });
    expect(executionEventOf({ type: "session.execution.interrupted", data: { sessionID: "ses_1", reason: "shutdown" } })).toEqual({ sessionID: "ses_1", kind: "interrupted", byUser: false });
    expect(executionEventOf({ type: "session.execution.started", data: { sessionID: "ses_1" } })).toEqual({ sessionID: "ses_1", kind: "started", byUser: false });
    // 1.18's shape (`properties`), a missing session, an inherited name, a non-object: all ignored.
    expect(executionEventOf({ type: "session.execution.interrupted", properties: { sessionID: "ses_1", reason: "user" } })).toBeNull();
    expect(executionEventOf({ type: "session.execution.failed", data: { error: {} } })).toBeNull();
    expect(executionEventOf({ type: "toString", data: { sessionID: "ses_1" } })).toBeNull();
    expect(executionEventOf("session.execution.succeeded")).toBeNull();
  });

  test("an onAbort that throws does not end the stream", async () => {
    const host = new StandInHost();
    const aborted: string[] = [];
    const watch = watchExecutions(host.context({}).event!.subscribe, {
      onAbort: (sessionID) => {
        aborted.push(sessionID);
        throw new Error("ledger");
      },
      onLost: () => aborted.push("lost"),
    });
    await host.startExecution("ses_1");
    await host.publish("session.execution.interrupted", { sessionID: "ses_1", reason: "user" });
    await host.startExecution("ses_2");
    const settled = watch.settled("ses_2");
    await host.publish("session.execution.interrupted", { sessionID: "ses_2", reason: "user" });
    expect(await settled).toBe("interrupted");
    expect(aborted).toEqual(["ses_1", "ses_2"]);
    watch.stop();
    expect(await watch.settled("ses_3")).toBe("unknown");
  });
});
