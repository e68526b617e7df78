/**
 * Hostile review 50: the retry and history layers inside the OpenCode 1.18 entry (`server`,
 * src/plugin/index.ts, src/plugin/retry-controller.ts, src/retry/state.ts), driven in process:
 * chat.headers tags the request, the plugin's process fetch repairs the stream and reports it,
 * messages.transform / system.transform build the next request, `event` delivers session events.
 * Attacks: a message edited (reverted and sent again), the plugin disposed while an idle wake is
 * being decided, compaction builds (a head without a user message, the wake's turn replayed after
 * an overflow), several sessions at once, sub-agents, aborts, idle twice, options, and the history
 * transform given reasoning, tool, file parts and parts out of order.
 * The findings were marked `test.failing` (they failed on main at the time of writing); each is
 * fixed now and says how on its "Fixed:" line. The others are hard negatives that must keep passing.
 */
import { describe, expect, test } from "bun:test";
import { correctionText, wakeText } from "../../src/retry/state.ts";
import { block, live } from "../golden/notation.ts";
import { assistantMsg, carriesCorrection, DEEPSEEK, type Msg, startV1, TRUNCATED, UNDECLARED, userMsg } from "./review-50-hosts-support.ts";

/**
 * One user message whose reply leaks, its wake, and a woken turn that leaks again (the wake budget
 * of msg_u1 is spent, so the second leak's correction waits for the session's next request).
 * Returns the stored history at that point.
 */
async function leakTwice(v1: Awaited<ReturnType<typeof startV1>>, sessionID = "ses_1") {
  const u1 = userMsg(sessionID, "msg_u1", "clean up the temp files");
  await v1.build(sessionID, [u1]);
  await v1.answer(sessionID, "msg_u1", UNDECLARED);
  await v1.idle(sessionID);
  expect(v1.wakes).toEqual([{ sessionID, text: wakeText() }]);
  const a1 = assistantMsg(sessionID, "msg_a1", "msg_u1", UNDECLARED);
  const w1 = userMsg(sessionID, "msg_w1", wakeText());
  const woken = await v1.build(sessionID, [u1, a1, w1]);
  // The wake's request carries the first correction (system channel).
  expect(woken.system).toEqual([correctionText("undeclared-tool")]);
  await v1.answer(sessionID, "msg_w1", TRUNCATED);
  await v1.idle(sessionID);
  // No second wake for msg_u1.
  expect(v1.wakes).toHaveLength(1);
  return [u1, a1, w1, assistantMsg(sessionID, "msg_a2", "msg_w1", TRUNCATED)];
}

describe("V1: a message edited (reverted and sent again) after a leak", () => {
  // FINDING (severity: a correction sent with the wrong message; src/plugin/index.ts
  // messages.transform -> RetryController.takeCorrectionFor, src/retry/state.ts takeCorrection).
  // OpenCode 1.18 edits a message by reverting to it (session.revert: that message and every one
  // after it are removed when the next prompt starts) and sending the new text as a new message.
  // Here the user edits their first message after its reply and the woken turn both leaked: the
  // edited message's request has no earlier reply at all (history = the edited message alone),
  // yet it carries "Your last reply contained tool-call markup written as text that was cut off
  // ... If you still need a tool, call it again": a correction about a reply the user removed,
  // pushing the model to redo a call from the conversation the user threw away.
  // Minimal input: leakTwice() then build([edited message]) with nothing before it.
  // Expected: a correction goes only with a request whose history still holds the reply it
  // corrects (the ledger knows that reply's turn: msg_w1; it is not among the messages), and is
  // then dropped. The wake bound is untouched by this (the edited message is a new message).
  // Fixed: a pending correction goes only with a request whose history still holds the reply it
  // corrects or the user message that reply answered (src/retry/state.ts takeCorrection, given the
  // history by messages.transform / the V2 context hook); otherwise it is dropped, not kept.
  test("the edited message's request (its history no longer holds the leaking reply) carries no correction", async () => {
    const v1 = await startV1({ providers: ["deepseek"] });
    await leakTwice(v1);
    const edited = userMsg("ses_1", "msg_u1b", "clean up the temp files, but only in /tmp");
    const built = await v1.build("ses_1", [edited]);
    expect(carriesCorrection(built)).toBe(false);
  });

  test("user channel: the same edit gets no synthetic correction turn either", async () => {
    const v1 = await startV1({ providers: ["deepseek"], retry: { channel: "user" } });
    const u1 = userMsg("ses_1", "msg_u1", "clean up the temp files");
    await v1.build("ses_1", [u1]);
    await v1.answer("ses_1", "msg_u1", UNDECLARED);
    // The wake (user channel) carries the correction; the woken turn leaks again.
    await v1.idle("ses_1");
    expect(v1.wakes).toEqual([{ sessionID: "ses_1", text: correctionText("undeclared-tool") }]);
    const a1 = assistantMsg("ses_1", "msg_a1", "msg_u1", UNDECLARED);
    await v1.build("ses_1", [u1, a1, userMsg("ses_1", "msg_w1", correctionText("undeclared-tool"))]);
    await v1.answer("ses_1", "msg_w1", TRUNCATED);
    await v1.idle("ses_1");
    expect(v1.wakes).toHaveLength(1);
    const built = await v1.build("ses_1", [userMsg("ses_1", "msg_u1b", "clean up the temp files, but only in /tmp")]);
    expect(built.messages).toHaveLength(1);
  });

  // Hard negative: without the edit, the user's next message is the request right after the
  // leaking woken turn, and carries its correction once (the rule the finding must keep).
  test("hard negative: no edit, the user's next message carries the woken turn's correction, once", async () => {
    const v1 = await startV1({ providers: ["deepseek"] });
    const history = await leakTwice(v1);
    const u2 = userMsg("ses_1", "msg_u2", "what now?");
    const built = await v1.build("ses_1", [...history, u2]);
    expect(built.system).toEqual([correctionText("truncated-call")]);
    const again = await v1.build("ses_1", [...history, u2]);
    expect(again.system).toEqual([]);
  });

  // Hard negative: an edit that keeps the leaking reply (the user edits a later message) still
  // corrects: only a history without that reply should drop it.
  test("hard negative: a reply still in history is corrected even when the newest message is new", async () => {
    const v1 = await startV1({ providers: ["deepseek"] });
    const u1 = userMsg("ses_1", "msg_u1", "clean up");
    await v1.build("ses_1", [u1]);
    await v1.answer("ses_1", "msg_u1", UNDECLARED);
    const built = await v1.build("ses_1", [u1, assistantMsg("ses_1", "msg_a1", "msg_u1", UNDECLARED), userMsg("ses_1", "msg_u2", "go on")]);
    expect(built.system).toEqual([correctionText("undeclared-tool")]);
  });
});

describe("V1: the plugin disposed while the idle wake is being decided", () => {
  // FINDING (severity: a wake sent where none may go, by an instance OpenCode already disposed;
  // src/plugin/retry-controller.ts onIdle, src/plugin/index.ts onSessionEvent). The idle wake asks
  // GET /session/{id} (is this a sub-agent's session?) before it wakes. 1.18 disposes a
  // directory's instance on a config reload (the user just turned `retry.enabled` off, or removed
  // the plugin) or on shutdown. `disposed` is checked before the lookup only: when the dispose
  // lands while the lookup is pending, the disposed instance still sends "Continue." into the
  // session. Minimal input: leak, idle (lookup held), dispose, lookup answers.
  // Expected: no wake once dispose() has run (checked again after the lookup, as before it).
  // Fixed: RetryController.onIdle reads the host's side (`!disposed`) and `retry.enabled` again
  // after the lookup's await, before anything is taken or sent.
  test("dispose during the session lookup: no wake is sent", async () => {
    let answerLookup!: () => void;
    const held = new Promise<void>((resolve) => (answerLookup = resolve));
    const v1 = await startV1({ providers: ["deepseek"] }, {
      get: async (id) => {
        await held;
        return { data: { id, projectID: "prj_1", directory: "/tmp/p", title: "t" } };
      },
    });
    await v1.build("ses_1", [userMsg("ses_1", "msg_u1", "clean up")]);
    await v1.answer("ses_1", "msg_u1", UNDECLARED);
    const idling = v1.idle("ses_1");
    await v1.hooks.dispose!();
    answerLookup();
    await idling;
    expect(v1.wakes).toEqual([]);
  });

  test("hard negative: the same lookup held, no dispose: exactly one wake (the finding can fail)", async () => {
    let answerLookup!: () => void;
    const held = new Promise<void>((resolve) => (answerLookup = resolve));
    const v1 = await startV1({ providers: ["deepseek"] }, {
      get: async (id) => {
        await held;
        return { data: { id, projectID: "prj_1", directory: "/tmp/p", title: "t" } };
      },
    });
    await v1.build("ses_1", [userMsg("ses_1", "msg_u1", "clean up")]);
    await v1.answer("ses_1", "msg_u1", UNDECLARED);
    const first = v1.idle("ses_1");
    const second = v1.idle("ses_1");
    answerLookup();
    await Promise.all([first, second]);
    expect(v1.wakes).toEqual([{ sessionID: "ses_1", text: wakeText() }]);
  });
});

describe("V1: compaction builds", () => {
  // FINDING (severity: missed correction; src/plugin/index.ts messages.transform returns before
  // RetryController.buildsCompaction when the messages hold no user message). 1.18's
  // SessionCompaction.process announces the compaction (`experimental.session.compacting`), then
  // runs messages.transform over the *head* it summarizes (SessionCompaction.select:
  // `messages.slice(0, tail.start)`, read from the 1.18.33 bundle). After an earlier compaction
  // whose kept tail began inside a turn (select's `ny` split), the head of the next compaction is
  // that tail's assistant messages alone: no user message. The hook returns early, the
  // announcement stays, and the session's next real request is taken for the summary: its
  // system-channel correction is withheld (and the state then lets the request after it take it).
  // Minimal input: leak, compacting, messages.transform([assistant only]), the wake's request.
  // Expected: a summary build is recognised whatever its messages (the sessionID is on every
  // message's info), so the next real request carries the correction.
  // Fixed: messages.transform without a user message clears the announced compaction
  // (RetryController.buildsCompaction) for the sessionID on the messages before it returns.
  test("a summary head without a user message: the next real request still carries the correction", async () => {
    const v1 = await startV1({ providers: ["deepseek"] });
    const u1 = userMsg("ses_1", "msg_u1", "clean up");
    await v1.build("ses_1", [u1]);
    await v1.answer("ses_1", "msg_u1", UNDECLARED);
    await v1.hooks["experimental.session.compacting"]!({ sessionID: "ses_1" } as never, { context: [], prompt: undefined } as never);
    // The summary request: its head is an earlier kept tail (assistant messages only).
    const head = [assistantMsg("ses_1", "msg_a0", "msg_u0", "Ran the tests; 3 failed.")];
    const summary = await v1.build("ses_1", head);
    expect(summary.system).toEqual([]);
    const next = await v1.build("ses_1", [u1, assistantMsg("ses_1", "msg_a1", "msg_u1", UNDECLARED), userMsg("ses_1", "msg_u2", "go on")]);
    expect(next.system).toEqual([correctionText("undeclared-tool")]);
  });

  test("hard negative: a summary head holding a user message takes nothing, and the next real request carries the correction once", async () => {
    const v1 = await startV1({ providers: ["deepseek"] });
    const u1 = userMsg("ses_1", "msg_u1", "clean up");
    await v1.build("ses_1", [u1]);
    await v1.answer("ses_1", "msg_u1", UNDECLARED);
    await v1.hooks["experimental.session.compacting"]!({ sessionID: "ses_1" } as never, { context: [], prompt: undefined } as never);
    const a1 = assistantMsg("ses_1", "msg_a1", "msg_u1", UNDECLARED);
    const summary = await v1.build("ses_1", [u1, a1]);
    expect(summary.system).toEqual([]);
    // The summary replays the leak sanitized, never as markup.
    expect(JSON.stringify(summary.messages)).not.toContain("wipe_disk");
    const next = await v1.build("ses_1", [u1, a1, userMsg("ses_1", "msg_u2", "go on")]);
    expect(next.system).toEqual([correctionText("undeclared-tool")]);
    expect((await v1.build("ses_1", [u1, a1, userMsg("ses_1", "msg_u2", "go on")])).system).toEqual([]);
  });

  test("hard negative: compaction of ses_2 while ses_1 owes a correction: ses_1's next request carries it, ses_2's summary does not", async () => {
    const v1 = await startV1({ providers: ["deepseek"] });
    const u1 = userMsg("ses_1", "msg_u1", "clean up");
    await v1.build("ses_1", [u1]);
    await v1.answer("ses_1", "msg_u1", UNDECLARED);
    await v1.hooks["experimental.session.compacting"]!({ sessionID: "ses_2" } as never, { context: [], prompt: undefined } as never);
    const summary2 = await v1.build("ses_2", [userMsg("ses_2", "msg_v1", "hello"), assistantMsg("ses_2", "msg_b1", "msg_v1", "Hi.")]);
    expect(carriesCorrection(summary2)).toBe(false);
    const next = await v1.build("ses_1", [u1, assistantMsg("ses_1", "msg_a1", "msg_u1", UNDECLARED), userMsg("ses_1", "msg_u2", "go on")]);
    expect(next.system).toEqual([correctionText("undeclared-tool")]);
  });
});

describe("V1: the wake's turn replayed by an overflow compaction", () => {
  /** A 1.18 compaction request's user message: a `compaction` part, no text. */
  const compactionUser = (id: string): Msg => ({ info: { role: "user", id, sessionID: "ses_1", model: { providerID: DEEPSEEK.providerID, modelID: DEEPSEEK.id } }, parts: [{ type: "compaction", auto: true, overflow: true }] });
  const summaryMsg = (id: string, parentID: string): Msg => {
    const m = assistantMsg("ses_1", id, parentID, "Summary: the user asked to clean up temp files.");
    m.info.summary = true;
    return m;
  };

  /**
   * u1's reply leaks; the wake goes; the wake's request overflows the context (no reply: 1.18's
   * processor answers "compact", SessionPrompt.loop creates a compaction with overflow: true);
   * the compaction summarizes, then replays the last real user message, the wake's "Continue.",
   * as a new user message (SessionCompaction.process, `if (v === "continue" && w.auto) { if (x)
   * ... }`, read from the 1.18.33 bundle). Returns the history after the compaction.
   */
  async function overflowAfterWake(v1: Awaited<ReturnType<typeof startV1>>, replayText: string) {
    const u1 = userMsg("ses_1", "msg_u1", "clean up the temp files");
    await v1.build("ses_1", [u1]);
    await v1.answer("ses_1", "msg_u1", UNDECLARED);
    await v1.idle("ses_1");
    expect(v1.wakes).toHaveLength(1);
    const a1 = assistantMsg("ses_1", "msg_a1", "msg_u1", UNDECLARED);
    const w1 = userMsg("ses_1", "msg_w1", wakeText());
    await v1.build("ses_1", [u1, a1, w1]);
    // The wake's request failed (context overflow): no reply was recorded for it.
    await v1.hooks["experimental.session.compacting"]!({ sessionID: "ses_1" } as never, { context: [], prompt: undefined } as never);
    await v1.build("ses_1", [u1, a1]);
    return [compactionUser("msg_c1"), summaryMsg("msg_s1", "msg_c1"), userMsg("ses_1", "msg_w1r", replayText)];
  }

  // FINDING (severity: a second wake for one user message; src/retry/state.ts noteTurn gives
  // every new turn whose text no awaited wake has its own budget). The replayed "Continue." is
  // the plugin's own wake, copied by OpenCode under a new id after the compaction; the ledger
  // takes it for a message the user wrote, so when its reply leaks again the session is woken a
  // second time for the one message msg_u1 (bounded only by WAKES_PER_HOUR). The replay also
  // carries no correction (the wake's failed request spent it), so the model gets a second bare
  // "Continue." and nothing else. Minimal input: overflowAfterWake(), the replay's reply leaks, idle.
  // Expected: a turn OpenCode replays after a compaction keeps the origin of the turn it copies
  // (here msg_u1's spent wake): no second wake.
  // Fixed: a compaction right after a woken turn remembers that wake's text and origin
  // (RetryLedger.noteCompaction); the first new turn after it with that text (the replay, as the
  // plugin wrote it) spends from the same message. Any other new turn clears it.
  test("the replayed wake's leaking reply gets no second wake", async () => {
    const v1 = await startV1({ providers: ["deepseek"] });
    const history = await overflowAfterWake(v1, wakeText());
    await v1.build("ses_1", history);
    await v1.answer("ses_1", "msg_w1r", UNDECLARED);
    await v1.idle("ses_1");
    expect(v1.wakes).toHaveLength(1);
  });

  // Hard negative: after the same compaction, a message the user really wrote (new text) has its
  // own budget: its leak is woken once (a fix must not carry the spent budget forward to it).
  test("hard negative: after the compaction, a new message of the user's whose reply leaks gets its one wake", async () => {
    const v1 = await startV1({ providers: ["deepseek"] });
    const history = await overflowAfterWake(v1, wakeText());
    await v1.build("ses_1", [...history.slice(0, 2), userMsg("ses_1", "msg_u2", "ok, now delete build/ too")]);
    await v1.answer("ses_1", "msg_u2", UNDECLARED);
    await v1.idle("ses_1");
    expect(v1.wakes).toHaveLength(2);
    await v1.idle("ses_1");
    expect(v1.wakes).toHaveLength(2);
  });
});

describe("V1: several sessions at once (hard negatives)", () => {
  test("two sessions leak, their requests and idles interleave: each gets its own one wake and its own correction, never the other's", async () => {
    const v1 = await startV1({ providers: ["deepseek"], retry: { channel: "user" } });
    const a = userMsg("ses_a", "msg_a", "clean a");
    const b = userMsg("ses_b", "msg_b", "check b");
    await v1.build("ses_a", [a]);
    await v1.build("ses_b", [b]);
    // ses_a: undeclared tool; ses_b: a cut-off call (a different correction text).
    await v1.answer("ses_a", "msg_a", UNDECLARED);
    await v1.answer("ses_b", "msg_b", TRUNCATED);
    await v1.idle("ses_b");
    await v1.idle("ses_a");
    await v1.idle("ses_b");
    expect(v1.wakes).toEqual([
      { sessionID: "ses_b", text: correctionText("truncated-call") },
      { sessionID: "ses_a", text: correctionText("undeclared-tool") },
    ]);
  });

  test("an abort in one session leaves the other's wake due, and idle twice in each sends one wake in total", async () => {
    const v1 = await startV1({ providers: ["deepseek"] });
    await v1.build("ses_a", [userMsg("ses_a", "msg_a", "clean a")]);
    await v1.build("ses_b", [userMsg("ses_b", "msg_b", "check b")]);
    await v1.answer("ses_a", "msg_a", UNDECLARED);
    await v1.answer("ses_b", "msg_b", UNDECLARED);
    await v1.event("session.error", { sessionID: "ses_a", error: { name: "MessageAbortedError", data: { message: "aborted" } } });
    await Promise.all([v1.idle("ses_a"), v1.idle("ses_b"), v1.idle("ses_a"), v1.idle("ses_b")]);
    expect(v1.wakes).toEqual([{ sessionID: "ses_b", text: wakeText() }]);
    // The aborted session's next request carries nothing; the other's wake turn carries its correction.
    expect((await v1.build("ses_a", [userMsg("ses_a", "msg_a2", "stop")])).system).toEqual([]);
    const woken = await v1.build("ses_b", [userMsg("ses_b", "msg_b", "check b"), assistantMsg("ses_b", "msg_bb", "msg_b", UNDECLARED), userMsg("ses_b", "msg_bw", wakeText())]);
    expect(woken.system).toEqual([correctionText("undeclared-tool")]);
  });

  test("a sub-agent's session leaks beside its parent: the child is never woken nor corrected through the parent", async () => {
    const v1 = await startV1({ providers: ["deepseek"] }, {
      get: async (id) => ({ data: { id, projectID: "prj_1", directory: "/tmp/p", title: "t", ...(id === "ses_child" ? { parentID: "ses_parent" } : {}) } }),
    });
    await v1.build("ses_parent", [userMsg("ses_parent", "msg_p1", "delegate")]);
    await v1.build("ses_child", [userMsg("ses_child", "msg_c1", "do the sub task")]);
    await v1.answer("ses_child", "msg_c1", UNDECLARED);
    await v1.idle("ses_child");
    expect(v1.wakes).toEqual([]);
    // The parent's next step (after the task tool returned) carries nothing.
    const parent = await v1.build("ses_parent", [userMsg("ses_parent", "msg_p1", "delegate")]);
    expect(carriesCorrection(parent)).toBe(false);
    await v1.answer("ses_parent", "msg_p1", "Done.");
    await v1.idle("ses_parent");
    expect(v1.wakes).toEqual([]);
  });

  test("idle before the reply is recorded sends nothing; the idle after it sends the one wake", async () => {
    const v1 = await startV1({ providers: ["deepseek"] });
    await v1.build("ses_1", [userMsg("ses_1", "msg_u1", "clean up")]);
    await v1.idle("ses_1");
    expect(v1.wakes).toEqual([]);
    await v1.answer("ses_1", "msg_u1", UNDECLARED);
    await v1.idle("ses_1");
    await v1.idle("ses_1");
    expect(v1.wakes).toEqual([{ sessionID: "ses_1", text: wakeText() }]);
  });
});

describe("V1: the history transform given reasoning, tool, file parts and parts out of order (hard negatives)", () => {
  const BASH_LEAK = live(`Let me check.\n\n${block("tool_calls", [["bash", [["command", "npm test"]]]])}`);
  const INVOKE = live("<{D}invoke");
  const cut = BASH_LEAK.indexOf("<", BASH_LEAK.indexOf("invoke") + 10);
  const stored = (parts: Record<string, unknown>[]): Msg[] => [
    userMsg("ses_1", "msg_u1", "run the tests"),
    { info: { role: "assistant", id: "msg_a1", sessionID: "ses_1", parentID: "msg_u1", providerID: "deepseek", modelID: "deepseek-chat" }, parts },
    userMsg("ses_1", "msg_u2", "and?"),
  ];
  const texts = (built: { messages: Msg[] }) => built.messages[1]!.parts.filter((p) => p.type === "text").map((p) => String(p.text));

  test("a leak cut by a reasoning part, by a tool part holding markup, or placed before its step-start: no markup is replayed, prose kept; reasoning, tool output and file parts untouched; no part added", async () => {
    const v1 = await startV1({ providers: ["deepseek"], retry: { nudge: false } });
    const tool = { type: "tool", tool: "read", callID: "c1", state: { status: "completed", input: { filePath: "notes.md" }, output: BASH_LEAK, title: "notes.md", metadata: {}, time: { start: 1, end: 2 } } };
    const file = { type: "file", mime: "text/plain", filename: "notes.md", url: "data:text/plain;base64,eA==" };
    const shapes: Record<string, unknown>[][] = [
      [{ type: "step-start" }, { type: "text", text: BASH_LEAK.slice(0, cut) }, { type: "reasoning", text: BASH_LEAK }, { type: "text", text: `${BASH_LEAK.slice(cut)}\n\nDone.` }],
      [{ type: "step-start" }, { type: "text", text: BASH_LEAK.slice(0, cut) }, tool, { type: "text", text: `${BASH_LEAK.slice(cut)}\n\nDone.` }],
      [{ type: "text", text: BASH_LEAK.slice(0, cut) }, { type: "step-start" }, { type: "text", text: `${BASH_LEAK.slice(cut)}\n\nDone.` }, file],
    ];
    for (const parts of shapes) {
      const built = await v1.build("ses_1", stored(parts));
      const out = built.messages[1]!.parts;
      expect(out.length).toBe(parts.length);
      out.forEach((part, i) => {
        if (part.type !== "text") expect(part).toEqual(parts[i]!);
      });
      const replayed = texts(built);
      expect(replayed.some((t) => t.includes(INVOKE) || t.includes("npm test"))).toBe(false);
      expect(replayed[0]!.startsWith("Let me check.")).toBe(true);
      expect(replayed.at(-1)!.endsWith("Done.")).toBe(true);
      expect(carriesCorrection(built)).toBe(false);
    }
  });

  test("a tool result holding a call, replayed: never a call and never rewritten; the user's own text holding markup is never rewritten", async () => {
    const v1 = await startV1({ providers: ["deepseek"] });
    const tool = { type: "tool", tool: "webfetch", callID: "c1", state: { status: "completed", input: { url: "https://x.test" }, output: BASH_LEAK, title: "x", metadata: {}, time: { start: 1, end: 2 } } };
    const history = stored([{ type: "step-start" }, tool, { type: "step-start" }, { type: "text", text: "The page is about tests." }]);
    history[2] = userMsg("ses_1", "msg_u2", `what does this mean?\n\n${BASH_LEAK}`);
    const built = await v1.build("ses_1", history);
    expect(built.messages).toEqual(history);
    // The live reply quoting the tool result is refused by the echo guard elsewhere; here the
    // request is all there is: nothing in it turned into a call or a correction.
    expect(carriesCorrection(built)).toBe(false);
  });
});

describe("V1: options (hard negatives)", () => {
  test("retry.nudge false: the wake is the bare \"Continue.\" and no request carries a correction", async () => {
    const v1 = await startV1({ providers: ["deepseek"], retry: { nudge: false } });
    const u1 = userMsg("ses_1", "msg_u1", "clean up");
    await v1.build("ses_1", [u1]);
    await v1.answer("ses_1", "msg_u1", UNDECLARED);
    await v1.idle("ses_1");
    expect(v1.wakes).toEqual([{ sessionID: "ses_1", text: wakeText() }]);
    const woken = await v1.build("ses_1", [u1, assistantMsg("ses_1", "msg_a1", "msg_u1", UNDECLARED), userMsg("ses_1", "msg_w1", wakeText())]);
    expect(carriesCorrection(woken)).toBe(false);
  });

  test("history.sanitize false: the replayed leak goes as written; true: replaced by the note, prose kept", async () => {
    for (const sanitize of [false, true]) {
      const v1 = await startV1({ providers: ["deepseek"], history: { sanitize }, retry: { nudge: false } });
      const history = [userMsg("ses_1", "msg_u1", "clean up"), assistantMsg("ses_1", "msg_a1", "msg_u1", UNDECLARED), userMsg("ses_1", "msg_u2", "and?")];
      const built = await v1.build("ses_1", history);
      const text = String(built.messages[1]!.parts[1]!.text);
      if (sanitize) {
        expect(text.startsWith("Cleaning up.")).toBe(true);
        expect(text).not.toContain("wipe_disk");
      } else expect(text).toBe(UNDECLARED);
    }
  });

  test("a bad retry value: one warning line naming it, and the defaults (one wake, system channel)", async () => {
    const v1 = await startV1({ providers: ["deepseek"], retry: { channel: "shout", nudge: "yes" } });
    const warnings = v1.lines.filter((line) => line.includes("retry."));
    expect(warnings.length).toBe(2);
    const u1 = userMsg("ses_1", "msg_u1", "clean up");
    await v1.build("ses_1", [u1]);
    await v1.answer("ses_1", "msg_u1", UNDECLARED);
    await v1.idle("ses_1");
    expect(v1.wakes).toEqual([{ sessionID: "ses_1", text: wakeText() }]);
    const woken = await v1.build("ses_1", [u1, assistantMsg("ses_1", "msg_a1", "msg_u1", UNDECLARED), userMsg("ses_1", "msg_w1", wakeText())]);
    expect(woken.system).toEqual([correctionText("undeclared-tool")]);
  });
});
