/**
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
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, spyOn, test } from "bun:test";
import path from "node:path";
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
const U1 = user("msg_u1", "clean up the temp files");

async function hostWith(options: unknown = { providers: ["deepseek"] }) {
  const { definition } = await loadLikeV2(ROOT);
  const host = new StandInHost();
  await definition.setup!(host.context(options));
  return host;
}

/**
 * One model request of the session answered with `text`; `beforeRead` runs once the response has
 * come back and before the client reads it (the reply's result fires as it is read).
 */
async function step(host: StandInHost, sessionID: string, messages: V2Message[], text: string, beforeRead: () => Promise<void> = async () => undefined, stream = true) {
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
    expect(await step(host, "ses_1", [U1], UNDECLARED, ended(host))).toEqual([]);
    await host.startExecution("ses_1");
    await host.goIdle("ses_1");
    await host.goIdle("ses_1");
    expect(host.prompts).toEqual([]);
  });

  test("hard negative: the same order with no second execution: one wake", async () => {
    const host = await hostWith();
    await host.startExecution("ses_1");
    expect(await step(host, "ses_1", [U1], UNDECLARED, ended(host))).toEqual([]);
    await host.goIdle("ses_1");
    expect(host.prompts).toEqual([{ sessionID: "ses_1", ...WAKE }]);
  });

  test("hard negative: the user's E2 starts only once the wake was sent: the one wake stands", async () => {
    const host = await hostWith();
    await host.startExecution("ses_1");
    await step(host, "ses_1", [U1], UNDECLARED, ended(host));
    await host.goIdle("ses_1");
    expect(host.prompts).toEqual([{ sessionID: "ses_1", ...WAKE }]);
    await host.startExecution("ses_1");
    expect(host.prompts).toEqual([{ sessionID: "ses_1", ...WAKE }]);
  });

  test("hard negative: the run's end read before its reply, whose answer is clean: nothing is woken", async () => {
    const host = await hostWith();
    await host.startExecution("ses_1");
    await step(host, "ses_1", [U1], "All clean.", ended(host));
    await host.goIdle("ses_1");
    expect(host.prompts).toEqual([]);
  });

  test("hard negative: an EARLIER execution's end, then this run's leak and its own start read late: the wake still follows", async () => {
    const host = await hostWith();
    await host.startExecution("ses_1");
    expect(await step(host, "ses_1", [user("msg_u0", "hi")], "Hello.")).toEqual([]);
    await host.endExecution("ses_1", { type: "succeeded" });
    // E1: its request and leak come before its start is read.
    await step(host, "ses_1", [user("msg_u0", "hi"), { role: "assistant", content: [{ type: "text", text: "Hello." }] }, U1], UNDECLARED);
    await host.startExecution("ses_1");
    await host.publish("session.execution.succeeded", { sessionID: "ses_1" });
    await host.goIdle("ses_1");
    expect(host.prompts).toEqual([{ sessionID: "ses_1", ...WAKE }]);
  });

  test("the user's stop of E1 read before its leak: no wake, and no correction on the user's next message", async () => {
    const host = await hostWith();
    await host.startExecution("ses_1");
    await step(host, "ses_1", [U1], UNDECLARED, () => host.publish("session.execution.interrupted", { sessionID: "ses_1", reason: "user" }));
    await host.goIdle("ses_1");
    expect(host.prompts).toEqual([]);
    await host.startExecution("ses_1");
    const next = await host.buildContext("ses_1", DEEPSEEK, [U1, { role: "assistant", content: [{ type: "text", text: UNDECLARED }] }, user("msg_u2", "never mind")]);
    expect(next.system.map((part) => part.text)).toEqual([]);
  });

  test("hard negative: a stop of an EARLIER run, then this run's leak: its correction and wake stand", async () => {
    const host = await hostWith();
    await host.startExecution("ses_1");
    await step(host, "ses_1", [user("msg_u0", "hi")], "Hel");
    await host.endExecution("ses_1", { type: "interrupted", reason: "user" });
    await host.startExecution("ses_1");
    await step(host, "ses_1", [user("msg_u0", "hi"), U1], UNDECLARED);
    await host.endExecution("ses_1", { type: "succeeded" });
    expect(host.prompts).toEqual([{ sessionID: "ses_1", ...WAKE }]);
  });
});
