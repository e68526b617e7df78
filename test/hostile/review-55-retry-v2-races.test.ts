/**
 * Hostile review 55 (retry): the OpenCode 2 entry's idle wake (src/plugin/v2/setup.ts wakeWhenIdle,
 * src/plugin/v2/executions.ts) when a second execution of the same session begins before the first
 * one's `session.wait` resolved. That is what a user who types while the model works produces: 2.x
 * queues the prompt (`delivery: "queue"`) and starts its execution as soon as the running one ends.
 *
 * wakeWhenIdle runs once per session at a time (`waiting`): a second leak while the first wait is
 * pending returns at once, so the wake finally decided is guarded by the FIRST execution's terminal
 * event only (`executions.settled`, asked while that one ran), and by `idleSince`, which starts
 * counting new executions only once `wait` resolved. `wait` and the event stream are two channels
 * (host-types.ts; the stand-in host delivers them in either order, as the real one may).
 *
 * FINDING 1 (a wake after an abort; severity: a wake the user did not want, which restarts a turn
 *   the user stopped and, with markup in it, may run a call the user refused: next to a wrong
 *   execution). Minimal input: E1 starts, its reply leaks (undeclared tool), E1 succeeds; E2 (the
 *   queued message msg_u2) starts, its reply leaks too; the user stops E2: `wait` resolves, then
 *   `session.execution.interrupted` {reason "user"} is delivered. The wake for msg_u2's leak is
 *   queued before the abort is read: E2's settle was never asked for.
 *   Suspected source: src/plugin/v2/setup.ts wakeWhenIdle (`waiting.has` returns before asking
 *   `executions.settled` for the newer execution).
 *   Expected: no wake (as the same stop of E1 alone: test/v2/abort.test.ts "no wake after the stop
 *   (wait resolving first, the event after)").
 *   Fixed: the wake is decided against the LAST execution of the session whose reply owes one: a
 *   later execution's leak re-arms the decision (its own terminal event, a `wait` asked again), so
 *   the user's stop of that execution, read in either order, cancels the wake.
 *
 * FINDING 2 (a wake after the user wrote again; severity: a wake queued behind the user's own
 *   message, restarting an exchange the user moved on from). Minimal input: E1's reply leaks, E1
 *   succeeds, E2 (the user's queued msg_u2) is seen starting, then `wait` resolves (the session was
 *   idle for a moment between the two). The start came after E1's terminal event but before
 *   `wait`, so `idleSince` does not count it, and E2's context is not built yet, so the ledger
 *   still sees msg_u1 as the latest turn: the wake is queued behind msg_u2.
 *   Suspected source: src/plugin/v2/setup.ts (onStarted counts only starts after `wait`
 *   resolved; an execution that starts once the awaited one has ended is the user's as well).
 *   Expected: no wake (review 52's finding 2 rule: an execution the user started before the wake is
 *   sent stops it).
 *   Fixed: any execution of the session seen starting once the awaited one ended (its terminal
 *   event read, or `wait` resolved) cancels the wake, before `wait` resolves or after; a start read
 *   before that end (the leaking execution's own, delivered late) cancels nothing, nor does another
 *   session's.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, spyOn, test } from "bun:test";
import path from "node:path";
import { correctionText } from "../../src/retry/state.ts";
import type { V2Message, V2ModelRef } from "../../src/plugin/v2/host-types.ts";
import { block, live } from "../golden/notation.ts";
import { callsIn, pathOf, requestBody, startFakeWires, type FakeWires } from "../v2/fake-wires.ts";
import { loadLikeV2, StandInHost } from "../v2/stand-in-host.ts";

const ROOT = path.resolve(import.meta.dir, "../..");
const UNDECLARED = live(`Cleaning up.\n\n${block("tool_calls", [["wipe_disk", [["path", "/"]]]])}`);
const DEEPSEEK: V2ModelRef = { providerID: "deepseek", id: "deepseek-chat" };
const WAKE = { text: "Continue.", delivery: "queue" } as const;

let upstream: FakeWires;
let reply = UNDECLARED;
let errorSpy: ReturnType<typeof spyOn>;
beforeAll(async () => {
  upstream = await startFakeWires(() => reply);
});
afterAll(() => upstream.close());
beforeEach(() => {
  reply = UNDECLARED;
  errorSpy = spyOn(console, "error").mockImplementation(() => undefined);
});
afterEach(() => errorSpy.mockRestore());

const user = (id: string, text: string): V2Message => ({ id, role: "user", content: [{ type: "text", text }] });
const assistant = (text: string): V2Message => ({ role: "assistant", content: [{ type: "text", text }] });

async function hostWith(options: unknown = { providers: ["deepseek"] }) {
  const { definition } = await loadLikeV2(ROOT);
  const host = new StandInHost();
  await definition.setup!(host.context(options));
  return host;
}

/** One model request of the session, its context built from `messages`, answered with `text`. */
async function step(host: StandInHost, sessionID: string, messages: V2Message[], text: string) {
  reply = text;
  const context = await host.buildContext(sessionID, DEEPSEEK, messages);
  const response = await host.nativeFetch(sessionID, DEEPSEEK)(`${upstream.baseURL}${pathOf("chat")}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(requestBody("chat", "go", true)),
  });
  const seen = await callsIn("chat", response);
  return { system: context.system.map((part) => part.text), calls: seen.calls };
}

const U1 = user("msg_u1", "clean up the temp files");
const U2 = user("msg_u2", "actually, list them first");

/** E1 (msg_u1) leaks and succeeds, and the user's queued msg_u2 starts E2 before `wait` resolved. */
async function secondExecutionQueued(host: StandInHost) {
  await host.startExecution("ses_1");
  expect((await step(host, "ses_1", [U1], UNDECLARED)).calls).toEqual([]);
  await host.publish("session.execution.succeeded", { sessionID: "ses_1" });
  await host.startExecution("ses_1");
}

describe("finding 1: the user stops a second execution whose wait was folded into the first's", () => {
  test("E2's own leak, E2 stopped by the user (wait first, the event after): no wake", async () => {
    const host = await hostWith();
    await secondExecutionQueued(host);
    const e2 = await step(host, "ses_1", [U1, assistant(UNDECLARED), U2], UNDECLARED);
    // The correction for E1's leak rode on E2's request (the one right after it): as designed.
    expect(e2.system).toEqual([correctionText("undeclared-tool")]);
    expect(e2.calls).toEqual([]);
    await host.endExecution("ses_1", { type: "interrupted", reason: "user" }, { eventFirst: false });
    expect(host.prompts).toEqual([]);
  });

  test("hard negative: the same stop delivered before wait resolves: no wake, no correction next", async () => {
    const host = await hostWith();
    await secondExecutionQueued(host);
    await step(host, "ses_1", [U1, assistant(UNDECLARED), U2], UNDECLARED);
    await host.endExecution("ses_1", { type: "interrupted", reason: "user" }, { eventFirst: true });
    expect(host.prompts).toEqual([]);
    const next = await step(host, "ses_1", [U1, assistant(UNDECLARED), U2, assistant(UNDECLARED), user("msg_u3", "ok")], "Done.");
    expect(next.system).toEqual([]);
  });

  test("hard negative: E2's leak and E2 succeeding: one wake (for the latest reply), never two", async () => {
    for (const eventFirst of [true, false]) {
      const host = await hostWith();
      await secondExecutionQueued(host);
      await step(host, "ses_1", [U1, assistant(UNDECLARED), U2], UNDECLARED);
      await host.endExecution("ses_1", { type: "succeeded" }, { eventFirst });
      await host.goIdle("ses_1");
      expect(host.prompts).toEqual([{ sessionID: "ses_1", ...WAKE }]);
    }
  });

  test("the latest run decides: E1 stopped by the user, E2 (the user's next message) leaks and succeeds: E2's one wake", async () => {
    for (const eventFirst of [true, false]) {
      const host = await hostWith();
      await host.startExecution("ses_1");
      await step(host, "ses_1", [U1], UNDECLARED);
      await host.publish("session.execution.interrupted", { sessionID: "ses_1", reason: "user" });
      await host.startExecution("ses_1");
      const e2 = await step(host, "ses_1", [U1, assistant(UNDECLARED), U2], UNDECLARED);
      // The stop dropped E1's correction: E2's request carries none.
      expect(e2.system).toEqual([]);
      await host.endExecution("ses_1", { type: "succeeded" }, { eventFirst });
      await host.goIdle("ses_1");
      expect(host.prompts).toEqual([{ sessionID: "ses_1", ...WAKE }]);
    }
  });

  test("the latest run decides: E2 leaks, ends, and a third execution (another queued message) starts: no wake", async () => {
    const host = await hostWith();
    await secondExecutionQueued(host);
    await step(host, "ses_1", [U1, assistant(UNDECLARED), U2], UNDECLARED);
    await host.publish("session.execution.succeeded", { sessionID: "ses_1" });
    await host.startExecution("ses_1");
    await host.goIdle("ses_1");
    await host.goIdle("ses_1");
    expect(host.prompts).toEqual([]);
  });

  test("hard negative: E2 answers cleanly: nothing is woken", async () => {
    const host = await hostWith();
    await secondExecutionQueued(host);
    await step(host, "ses_1", [U1, assistant(UNDECLARED), U2], "Here they are.");
    await host.endExecution("ses_1", { type: "succeeded" }, { eventFirst: false });
    expect(host.prompts).toEqual([]);
  });
});

describe("finding 2: the user's execution seen starting between the first's end and wait", () => {
  test("E2 started (its context not built yet), then wait resolves: no wake queued behind msg_u2", async () => {
    const host = await hostWith();
    await secondExecutionQueued(host);
    await host.goIdle("ses_1");
    expect(host.prompts).toEqual([]);
  });

  test("hard negative: no second execution: E1's leak gets its one wake", async () => {
    const host = await hostWith();
    await host.startExecution("ses_1");
    await step(host, "ses_1", [U1], UNDECLARED);
    await host.publish("session.execution.succeeded", { sessionID: "ses_1" });
    await host.goIdle("ses_1");
    expect(host.prompts).toEqual([{ sessionID: "ses_1", ...WAKE }]);
  });

  test("hard negative: E1's own start read late (after its leak, before its end): the wake still follows", async () => {
    const host = await hostWith();
    await step(host, "ses_1", [U1], UNDECLARED);
    await host.startExecution("ses_1");
    await host.publish("session.execution.succeeded", { sessionID: "ses_1" });
    await host.goIdle("ses_1");
    expect(host.prompts).toEqual([{ sessionID: "ses_1", ...WAKE }]);
  });

  test("hard negative: another session's execution starting in the same window leaves the wake due", async () => {
    const host = await hostWith();
    await host.startExecution("ses_1");
    await step(host, "ses_1", [U1], UNDECLARED);
    await host.publish("session.execution.succeeded", { sessionID: "ses_1" });
    await host.startExecution("ses_2");
    await host.goIdle("ses_1");
    expect(host.prompts).toEqual([{ sessionID: "ses_1", ...WAKE }]);
  });

  test("hard negative: E2's context built before wait resolves: no wake for msg_u1's leak, its correction rode on msg_u2", async () => {
    const host = await hostWith();
    await secondExecutionQueued(host);
    const e2 = await step(host, "ses_1", [U1, assistant(UNDECLARED), U2], "Here they are.");
    expect(e2.system).toEqual([correctionText("undeclared-tool")]);
    await host.goIdle("ses_1");
    expect(host.prompts).toEqual([]);
  });
});

/**
 * Moved here from fx55-diff-a-v2-wake-after-end.test.ts (the same stand-in host harness).
 * Diff review 55a, suspicion 4 (checked by its fixer with the stand-in host): the OpenCode 2 idle
 * wake (src/plugin/v2/setup.ts wakeWhenIdle) armed only AFTER the leaking execution's terminal
 * event was read. The reply's result (onResult -> onUnrecovered) fires when the client has read the
 * response, while the terminal event comes on the event stream, a channel of its own: the end may
 * be read first. The arm was made with `ended: false`, and `executions.settled` answered "unknown"
 * at once (the execution no longer running), so a start read next (the user's queued message)
 * counted as the leaking run's own late start, and the wake was queued behind the user's message.
 *
 * FINDING (a wake after the user wrote again; severity: a wake queued behind the user's own message,
 *   restarting an exchange the user moved on from, as review 55's retry finding 2). Minimal input:
 *   E1 starts, its request is made, E1's `succeeded` is read, then the reply (a leak to an
 *   undeclared tool) is read by the client; E2 (the user's msg_u2) is seen starting; `wait` resolves.
 *   Expected: no wake.
 *   Fixed: src/plugin/v2/setup.ts counts the terminal events read per session and notes the count
 *   at each model request's context; an arm made once an end was read after the request that gave
 *   the reply starts as ended, so a start read next is the user's and cancels the wake. An end read
 *   before that request (an earlier execution's) does not count: the leaking run's own start, read
 *   late, still cancels nothing.
 *
 * FINDING (found beside it: a wake and a correction after the user's stop; severity as above, next to
 *   a wrong execution). Minimal input: E1 starts, its request is made, the user stops E1
 *   (`interrupted`, reason "user") and that event is read before the client reads E1's leaking
 *   reply. The stop dropped the session's pending leak before this one was recorded, so the leak
 *   stood: a wake was queued, and the next request carried the correction.
 *   Expected: no wake, no correction (as when the stop is read after the reply).
 *   Fixed: src/plugin/v2/setup.ts counts the user's stops the same way: a reply whose run was stopped
 *   by the user before it was read arms no wake, and its leak is dropped from the ledger once recorded.
 *
 * Only the streamed reply shows these orders: a JSON reply's result fires inside the http.response
 * hook, before the test can deliver an event between the response and its reading.
 */
/**
 * One model request of the session answered with `text`; `beforeRead` runs once the response has
 * come back and before the client reads it (the reply's result fires as it is read).
 */
async function stepRead(host: StandInHost, sessionID: string, messages: V2Message[], text: string, beforeRead: () => Promise<void> = async () => undefined, stream = true) {
  reply = text;
  await host.buildContext(sessionID, DEEPSEEK, messages);
  const response = await host.nativeFetch(sessionID, DEEPSEEK)(`${upstream.baseURL}${pathOf("chat")}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(requestBody("chat", "go", stream)),
  });
  await beforeRead();
  return (await callsIn("chat", response)).calls;
}

const ended = (host: StandInHost) => () => host.publish("session.execution.succeeded", { sessionID: "ses_1" });

describe("the leaking run's end read before its reply arms the wake", () => {
  test("E1 ends (event read), its leak is read, the user's E2 starts, wait resolves: no wake", async () => {
    const host = await hostWith();
    await host.startExecution("ses_1");
    expect(await stepRead(host, "ses_1", [U1], UNDECLARED, ended(host))).toEqual([]);
    await host.startExecution("ses_1");
    await host.goIdle("ses_1");
    await host.goIdle("ses_1");
    expect(host.prompts).toEqual([]);
  });

  test("hard negative: the same order with no second execution: one wake", async () => {
    const host = await hostWith();
    await host.startExecution("ses_1");
    expect(await stepRead(host, "ses_1", [U1], UNDECLARED, ended(host))).toEqual([]);
    await host.goIdle("ses_1");
    expect(host.prompts).toEqual([{ sessionID: "ses_1", ...WAKE }]);
  });

  test("hard negative: the user's E2 starts only once the wake was sent: the one wake stands", async () => {
    const host = await hostWith();
    await host.startExecution("ses_1");
    await stepRead(host, "ses_1", [U1], UNDECLARED, ended(host));
    await host.goIdle("ses_1");
    expect(host.prompts).toEqual([{ sessionID: "ses_1", ...WAKE }]);
    await host.startExecution("ses_1");
    expect(host.prompts).toEqual([{ sessionID: "ses_1", ...WAKE }]);
  });

  test("hard negative: the run's end read before its reply, whose answer is clean: nothing is woken", async () => {
    const host = await hostWith();
    await host.startExecution("ses_1");
    await stepRead(host, "ses_1", [U1], "All clean.", ended(host));
    await host.goIdle("ses_1");
    expect(host.prompts).toEqual([]);
  });

  test("hard negative: an EARLIER execution's end, then this run's leak and its own start read late: the wake still follows", async () => {
    const host = await hostWith();
    await host.startExecution("ses_1");
    expect(await stepRead(host, "ses_1", [user("msg_u0", "hi")], "Hello.")).toEqual([]);
    await host.endExecution("ses_1", { type: "succeeded" });
    // E1: its request and leak come before its start is read.
    await stepRead(host, "ses_1", [user("msg_u0", "hi"), assistant("Hello."), U1], UNDECLARED);
    await host.startExecution("ses_1");
    await host.publish("session.execution.succeeded", { sessionID: "ses_1" });
    await host.goIdle("ses_1");
    expect(host.prompts).toEqual([{ sessionID: "ses_1", ...WAKE }]);
  });

  test("the user's stop of E1 read before its leak: no wake, and no correction on the user's next message", async () => {
    const host = await hostWith();
    await host.startExecution("ses_1");
    await stepRead(host, "ses_1", [U1], UNDECLARED, () => host.publish("session.execution.interrupted", { sessionID: "ses_1", reason: "user" }));
    await host.goIdle("ses_1");
    expect(host.prompts).toEqual([]);
    await host.startExecution("ses_1");
    const next = await host.buildContext("ses_1", DEEPSEEK, [U1, assistant(UNDECLARED), user("msg_u2", "never mind")]);
    expect(next.system.map((part) => part.text)).toEqual([]);
  });

  test("hard negative: a stop of an EARLIER run, then this run's leak: its correction and wake stand", async () => {
    const host = await hostWith();
    await host.startExecution("ses_1");
    await stepRead(host, "ses_1", [user("msg_u0", "hi")], "Hel");
    await host.endExecution("ses_1", { type: "interrupted", reason: "user" });
    await host.startExecution("ses_1");
    await stepRead(host, "ses_1", [user("msg_u0", "hi"), U1], UNDECLARED);
    await host.endExecution("ses_1", { type: "succeeded" });
    expect(host.prompts).toEqual([{ sessionID: "ses_1", ...WAKE }]);
  });
});
