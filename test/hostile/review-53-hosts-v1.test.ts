/**
 * Hostile review 53: the 1.18 entry's retry (src/plugin/index.ts, retry-controller.ts,
 * src/retry/state.ts) against the host's OWN model requests that share a session with the
 * model's reply: the title request and the compaction summary request.
 *
 * What 1.18.33 does (read from the binary, node_modules/opencode-linux-x64/bin/opencode):
 * - `SessionPrompt.ensureTitle` is forked on step 1 of a session's first user message and calls
 *   `LLM.stream({ agent: <title agent>, user: <that user message>, tools: {}, small: true, ... })`;
 *   LLM.stream triggers `chat.headers` with `{ sessionID, agent: "title", model, provider,
 *   message: <that user message> }` (the bundled copilot/openai plugins test `agent === "title"`
 *   there). So the title request is tagged `<session>/<first user message>`: the very same tag as
 *   the model's reply to that message, and it runs concurrently with it.
 * - `SessionCompaction.process` calls `processor.process({ user: a, agent: <compaction>,
 *   tools: {}, ... })` where `a` is the compaction's parent user message; the summary request goes
 *   through `chat.headers` (agent "compaction") and so through the repairing fetch.
 *
 * The plugin's chat.headers hook never reads `agent`, so both requests are tagged with the turn of
 * the model's reply. Suspected: their clean text reported as that turn's reply would clear the
 * pending leak (RetryLedger.recordReply(turn, null)). Not so: both send no tools, and the fetch
 * adapter reports only requests that declare tools (src/adapters/fetch.ts plan: no tools, not
 * ours). These are hard negatives pinning that: a change that reports tool-less requests (or a
 * host that sends a no-op tool with them) must not let the host's own requests answer a leak.
 */
import { describe, expect, test } from "bun:test";
import { correctionText, wakeText } from "../../src/retry/state.ts";
import { UNDECLARED, assistantMsg, startV1, userMsg } from "./review-50-hosts-support.ts";

const OPTIONS = { providers: ["deepseek"] };

describe("V1: the title request of the first message shares the reply's tag", () => {
  // Hard negative (suspected finding, disproved): the title request 1.18 forks on the first step
  // (agent "title", message msg_u1, no tools) answering after the leaking reply must not answer the leak.
  test("hard negative: the title answering after the leaking reply: the leak still gets its one wake and its correction", async () => {
    const p = await startV1(OPTIONS);
    const u1 = userMsg("ses_1", "msg_u1", "clean up the temp files");
    await p.build("ses_1", [u1]);
    const leaked = await p.request("ses_1", "msg_u1", UNDECLARED);
    expect(leaked.calls).toEqual([]);
    const title = await p.request("ses_1", "msg_u1", "Temp file cleanup", "title");
    expect(title.content).toBe("Temp file cleanup");
    await p.idle("ses_1");
    expect(p.wakes).toEqual([{ sessionID: "ses_1", text: wakeText() }]);
    const next = await p.build("ses_1", [u1, assistantMsg("ses_1", "msg_a1", "msg_u1", UNDECLARED), userMsg("ses_1", "msg_w1", wakeText())]);
    expect(next.system).toEqual([correctionText("undeclared-tool")]);
  });

  test("hard negative: the title answering before the leaking reply: one wake, then the correction once", async () => {
    const p = await startV1(OPTIONS);
    const u1 = userMsg("ses_1", "msg_u1", "clean up the temp files");
    await p.build("ses_1", [u1]);
    await p.request("ses_1", "msg_u1", "Temp file cleanup", "title");
    await p.request("ses_1", "msg_u1", UNDECLARED);
    await p.idle("ses_1");
    await p.idle("ses_1");
    expect(p.wakes).toEqual([{ sessionID: "ses_1", text: wakeText() }]);
    const history = [u1, assistantMsg("ses_1", "msg_a1", "msg_u1", UNDECLARED), userMsg("ses_1", "msg_w1", wakeText())];
    expect((await p.build("ses_1", history)).system).toEqual([correctionText("undeclared-tool")]);
    expect((await p.build("ses_1", history)).system).toEqual([]);
  });

  test("hard negative: a clean reply of the model itself after the leak does answer it (no wake, no correction)", async () => {
    const p = await startV1(OPTIONS);
    const u1 = userMsg("ses_1", "msg_u1", "clean up the temp files");
    await p.build("ses_1", [u1]);
    await p.request("ses_1", "msg_u1", UNDECLARED);
    await p.request("ses_1", "msg_u1", "Done, nothing to clean.");
    await p.idle("ses_1");
    expect(p.wakes).toEqual([]);
    expect((await p.build("ses_1", [u1, assistantMsg("ses_1", "msg_a1", "msg_u1", "Done."), userMsg("ses_1", "msg_u2", "ok")])).system).toEqual([]);
  });
});

describe("V1: the compaction summary's own response", () => {
  // Hard negative (suspected finding, disproved): 1.18 sends the summary request through chat.headers
  // and the repairing fetch (SessionCompaction.process -> processor.process with `user: <compaction
  // message>`, no tools); its clean text must not answer the leak whose reply the tail kept
  // (RetryController.onCompacting: the summary neither takes nor passes over the correction).
  test("hard negative: a clean summary response does not answer the leak: the next real request still carries the correction", async () => {
    const p = await startV1(OPTIONS);
    const u1 = userMsg("ses_1", "msg_u1", "clean up the temp files");
    const a1 = assistantMsg("ses_1", "msg_a1", "msg_u1", UNDECLARED);
    await p.build("ses_1", [u1]);
    await p.request("ses_1", "msg_u1", UNDECLARED);
    const c1 = userMsg("ses_1", "msg_c1", "", [{ type: "compaction", id: "msg_c1_c", sessionID: "ses_1", messageID: "msg_c1", auto: false }]);
    await p.hooks["experimental.session.compacting"]!({ sessionID: "ses_1" } as never, { context: [], prompt: undefined } as never);
    await p.build("ses_1", [u1]); // the summary head (1.18 structuredClones M.head)
    await p.request("ses_1", "msg_c1", "Summary: the user asked to clean temp files.", "compaction");
    const summary = assistantMsg("ses_1", "msg_s1", "msg_c1", "Summary: the user asked to clean temp files.", { summary: true, mode: "compaction" });
    const next = await p.build("ses_1", [c1, summary, u1, a1, userMsg("ses_1", "msg_u2", "go on")]);
    expect(next.system).toEqual([correctionText("undeclared-tool")]);
  });

  test("hard negative: the same compaction without the summary going through the fetch: correction once", async () => {
    const p = await startV1(OPTIONS);
    const u1 = userMsg("ses_1", "msg_u1", "clean up the temp files");
    const a1 = assistantMsg("ses_1", "msg_a1", "msg_u1", UNDECLARED);
    await p.build("ses_1", [u1]);
    await p.request("ses_1", "msg_u1", UNDECLARED);
    const c1 = userMsg("ses_1", "msg_c1", "", [{ type: "compaction", id: "msg_c1_c", sessionID: "ses_1", messageID: "msg_c1", auto: false }]);
    await p.hooks["experimental.session.compacting"]!({ sessionID: "ses_1" } as never, { context: [], prompt: undefined } as never);
    await p.build("ses_1", [u1]);
    const summary = assistantMsg("ses_1", "msg_s1", "msg_c1", "Summary.", { summary: true, mode: "compaction" });
    const history = [c1, summary, u1, a1, userMsg("ses_1", "msg_u2", "go on")];
    expect((await p.build("ses_1", history)).system).toEqual([correctionText("undeclared-tool")]);
    expect((await p.build("ses_1", history)).system).toEqual([]);
  });
});

describe("V1: the idle wake against a host that aborts or fails (hard negatives)", () => {
  test("the user aborts while the session lookup is held: no wake, and the next request carries no correction", async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const p = await startV1(OPTIONS, { get: async (id) => (await held, { data: { id, projectID: "prj_1", directory: "/tmp/p", title: "t" } }) });
    const u1 = userMsg("ses_1", "msg_u1", "clean up the temp files");
    await p.build("ses_1", [u1]);
    await p.request("ses_1", "msg_u1", UNDECLARED);
    const idle = p.idle("ses_1");
    await p.event("session.error", { sessionID: "ses_1", error: { name: "MessageAbortedError", data: { message: "aborted" } } });
    release();
    await idle;
    await p.idle("ses_1");
    expect(p.wakes).toEqual([]);
    const next = await p.build("ses_1", [u1, assistantMsg("ses_1", "msg_a1", "msg_u1", UNDECLARED), userMsg("ses_1", "msg_u2", "never mind")]);
    expect(next.system).toEqual([]);
  });

  test("a non-abort session.error (the provider failed) leaves the wake due: one wake (documented: a failed execution still gets its wake)", async () => {
    const p = await startV1(OPTIONS);
    await p.build("ses_1", [userMsg("ses_1", "msg_u1", "clean up")]);
    await p.request("ses_1", "msg_u1", UNDECLARED);
    await p.event("session.error", { sessionID: "ses_1", error: { name: "APIError", data: { message: "overloaded" } } });
    await p.idle("ses_1");
    await p.idle("ses_1");
    expect(p.wakes).toEqual([{ sessionID: "ses_1", text: wakeText() }]);
  });

  test("promptAsync rejects: the event hook resolves, one warning, and a second idle sends no second wake", async () => {
    const p = await startV1(OPTIONS, { prompt: async () => Promise.reject(new Error("500 Internal Server Error")) });
    await p.build("ses_1", [userMsg("ses_1", "msg_u1", "clean up")]);
    await p.request("ses_1", "msg_u1", UNDECLARED);
    await expect(p.idle("ses_1")).resolves.toBeUndefined();
    await p.idle("ses_1");
    expect(p.wakes).toHaveLength(1);
    expect(p.lines.filter((line) => line.includes("idle wake"))).toHaveLength(1);
  });

  test("promptAsync resolves with a 500 error body (the SDK does not throw): one wake attempt, never a loop", async () => {
    const p = await startV1(OPTIONS, { prompt: async () => ({ error: { name: "UnknownError" }, response: { status: 500 } }) });
    await p.build("ses_1", [userMsg("ses_1", "msg_u1", "clean up")]);
    await p.request("ses_1", "msg_u1", UNDECLARED);
    for (let i = 0; i < 4; i++) await p.idle("ses_1");
    expect(p.wakes).toHaveLength(1);
  });
});
