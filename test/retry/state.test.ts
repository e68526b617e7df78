import { describe, expect, test } from "bun:test";
import type { NudgeReason } from "../../src/parse/types.ts";
import { RetryController } from "../../src/plugin/retry-controller.ts";
import { RetryLedger, correctionText, wakeText } from "../../src/retry/state.ts";

describe("corrections", () => {
  test("a reply that needs correcting yields exactly one correction", () => {
    const ledger = new RetryLedger();
    ledger.recordReply("ses_a", "msg_1", "broken-markup");
    expect(ledger.takeCorrection("ses_a")).toEqual({ messageID: "msg_1", reason: "broken-markup" });
    expect(ledger.takeCorrection("ses_a")).toBeNull();
    expect(ledger.takeCorrection("ses_a")).toBeNull();
  });

  test("a clean reply, or an unknown session, yields nothing", () => {
    const ledger = new RetryLedger();
    ledger.recordReply("ses_a", "msg_1", null);
    expect(ledger.takeCorrection("ses_a")).toBeNull();
    expect(ledger.takeWake("ses_a")).toBeNull();
    expect(ledger.takeCorrection("ses_unknown")).toBeNull();
    expect(ledger.takeWake("ses_unknown")).toBeNull();
  });

  test("recording the same message again does not re-arm its correction", () => {
    const ledger = new RetryLedger();
    ledger.recordReply("ses_a", "msg_1", "broken-markup");
    ledger.takeCorrection("ses_a");
    ledger.recordReply("ses_a", "msg_1", "truncated-call");
    expect(ledger.takeCorrection("ses_a")).toBeNull();
  });

  test("a message whose reply is recorded clean before delivery needs no correction", () => {
    const ledger = new RetryLedger();
    ledger.recordReply("ses_a", "msg_1", "truncated-call");
    ledger.recordReply("ses_a", "msg_1", null);
    expect(ledger.takeCorrection("ses_a")).toBeNull();
    expect(ledger.takeWake("ses_a")).toBeNull();
  });
});

describe("wakes", () => {
  test("an idle session with an unanswered correction gets exactly one wake", () => {
    const ledger = new RetryLedger();
    ledger.recordReply("ses_a", "msg_1", "undeclared-tool");
    ledger.takeCorrection("ses_a");
    expect(ledger.takeWake("ses_a")).toEqual({ messageID: "msg_1", reason: "undeclared-tool" });
    expect(ledger.takeWake("ses_a")).toBeNull();
  });

  test("a wake may come before the correction is delivered; the correction still follows once", () => {
    const ledger = new RetryLedger();
    ledger.recordReply("ses_a", "msg_1", "broken-markup");
    expect(ledger.takeWake("ses_a")).toEqual({ messageID: "msg_1", reason: "broken-markup" });
    expect(ledger.takeCorrection("ses_a")).toEqual({ messageID: "msg_1", reason: "broken-markup" });
    expect(ledger.takeCorrection("ses_a")).toBeNull();
    expect(ledger.takeWake("ses_a")).toBeNull();
  });

  test("a message that stays silent after its wake is left alone", () => {
    const ledger = new RetryLedger();
    ledger.recordReply("ses_a", "msg_1", "broken-markup");
    ledger.takeCorrection("ses_a");
    ledger.takeWake("ses_a");
    for (let idle = 0; idle < 3; idle++) {
      expect(ledger.takeWake("ses_a")).toBeNull();
      expect(ledger.takeCorrection("ses_a")).toBeNull();
    }
  });
});

describe("a new reply starts fresh", () => {
  test("a clean reply answers the pending message: no correction, no wake", () => {
    const ledger = new RetryLedger();
    ledger.recordReply("ses_a", "msg_1", "broken-markup");
    ledger.takeCorrection("ses_a");
    ledger.recordReply("ses_a", "msg_2", null);
    expect(ledger.takeWake("ses_a")).toBeNull();
    expect(ledger.takeCorrection("ses_a")).toBeNull();
  });

  test("a clean reply drops a correction that was never delivered", () => {
    const ledger = new RetryLedger();
    ledger.recordReply("ses_a", "msg_1", "broken-markup");
    ledger.recordReply("ses_a", "msg_2", null);
    expect(ledger.takeCorrection("ses_a")).toBeNull();
  });

  test("a newer message the user wrote that fails again gets its own correction and wake", () => {
    const ledger = new RetryLedger();
    ledger.recordReply("ses_a", "msg_1", "broken-markup");
    ledger.takeCorrection("ses_a");
    ledger.takeWake("ses_a");
    ledger.awaitWake("ses_a", "Continue.");
    ledger.noteTurn("ses_a", { id: "msg_2", text: "Now fix the failing test." });
    ledger.recordReply("ses_a", "msg_2", "truncated-call");
    expect(ledger.takeCorrection("ses_a")).toEqual({ messageID: "msg_2", reason: "truncated-call" });
    expect(ledger.takeWake("ses_a")).toEqual({ messageID: "msg_2", reason: "truncated-call" });
    expect(ledger.takeCorrection("ses_a")).toBeNull();
    expect(ledger.takeWake("ses_a")).toBeNull();
  });
});

test("sessions are independent", () => {
  const ledger = new RetryLedger();
  ledger.recordReply("ses_a", "msg_a1", "broken-markup");
  ledger.recordReply("ses_b", "msg_b1", "echoed-markup");
  expect(ledger.takeCorrection("ses_a")).toEqual({ messageID: "msg_a1", reason: "broken-markup" });
  expect(ledger.takeWake("ses_a")).toEqual({ messageID: "msg_a1", reason: "broken-markup" });

  ledger.recordReply("ses_a", "msg_a2", null);
  expect(ledger.takeCorrection("ses_b")).toEqual({ messageID: "msg_b1", reason: "echoed-markup" });
  expect(ledger.takeWake("ses_b")).toEqual({ messageID: "msg_b1", reason: "echoed-markup" });
});

test("forget drops a session", () => {
  const ledger = new RetryLedger();
  ledger.recordReply("ses_a", "msg_1", "broken-markup");
  ledger.forget("ses_a");
  expect(ledger.takeCorrection("ses_a")).toBeNull();
  expect(ledger.sessionCount).toBe(0);
});

describe("memory bound", () => {
  test("the least recently used session is forgotten beyond the limit", () => {
    const ledger = new RetryLedger({ maxSessions: 3 });
    for (const session of ["ses_1", "ses_2", "ses_3"]) ledger.recordReply(session, `msg_${session}`, "broken-markup");
    // ses_1 becomes the most recently used, so ses_2 is the one to go.
    ledger.takeWake("ses_1");
    ledger.recordReply("ses_4", "msg_ses_4", "broken-markup");

    expect(ledger.sessionCount).toBe(3);
    expect(ledger.takeCorrection("ses_2")).toBeNull();
    for (const session of ["ses_1", "ses_3", "ses_4"]) {
      expect(ledger.takeCorrection(session)).toEqual({ messageID: `msg_${session}`, reason: "broken-markup" });
    }
  });

  test("the default limit is 500 sessions", () => {
    const ledger = new RetryLedger();
    for (let index = 0; index < 750; index++) ledger.recordReply(`ses_${index}`, "msg", "broken-markup");
    expect(ledger.sessionCount).toBe(500);
    expect(ledger.takeCorrection("ses_249")).toBeNull();
    expect(ledger.takeCorrection("ses_250")).not.toBeNull();
  });

  test("clean replies leave nothing behind", () => {
    const ledger = new RetryLedger();
    for (let index = 0; index < 50; index++) ledger.recordReply(`ses_${index}`, "msg", null);
    expect(ledger.sessionCount).toBe(0);
  });
});

describe("texts", () => {
  const reasons: NudgeReason[] = ["broken-markup", "undeclared-tool", "truncated-call", "echoed-markup", "invalid-arguments"];
  // DSML markers and the full-width/double bars and block characters DeepSeek's markup is built from.
  const markers = [/dsml/i, /\uFF5C/, /\u2016/, /\u2581/, /</, />/, /invoke/i, /function_calls/i];

  test("each reason has its own correction that asks for a re-issue through the tool-calling interface", () => {
    const texts = reasons.map((reason) => correctionText(reason));
    expect(new Set(texts).size).toBe(reasons.length);
    for (const text of texts) {
      expect(text).toContain("tool-calling interface");
      expect(text).toMatch(/never write tool calls as text markup/i);
    }
    expect(correctionText("broken-markup")).toContain("malformed");
    expect(correctionText("undeclared-tool")).toContain("not available");
    expect(correctionText("truncated-call")).toContain("cut off");
  });

  test("no text carries markup the model could imitate", () => {
    for (const text of [...reasons.map((reason) => correctionText(reason)), wakeText()]) {
      for (const marker of markers) expect(text).not.toMatch(marker);
    }
  });

  test("invalid-arguments names the parameter that did not fit its schema, and only for that reason", () => {
    const text = correctionText("invalid-arguments", "todos");
    expect(text).toContain("declared parameters");
    expect(text).toContain("`todos`");
    expect(correctionText("invalid-arguments")).not.toContain("`");
    expect(correctionText("broken-markup", "todos")).not.toContain("todos");
  });

  test("the ledger carries the parameter from the reply to the correction and the wake", () => {
    const ledger = new RetryLedger();
    ledger.recordReply("ses_a", "msg_1", "invalid-arguments", "todos");
    expect(ledger.takeCorrection("ses_a")).toEqual({ messageID: "msg_1", reason: "invalid-arguments", parameter: "todos" });
    expect(ledger.takeWake("ses_a")).toEqual({ messageID: "msg_1", reason: "invalid-arguments", parameter: "todos" });
  });

  test("the controller's correction (user and system channel) names the parameter", () => {
    for (const channel of ["user", "system"] as const) {
      const controller = new RetryController({ enabled: true, nudge: true, channel }, async () => {});
      controller.onReply("ses_a", "msg_1", 0, "invalid-arguments", "todos");
      const taken = controller.takeCorrectionFor("ses_a", { id: "msg_1" });
      const text = channel === "user" ? taken?.userText : controller.takeSystemText("ses_a");
      expect(text).toBe(correctionText("invalid-arguments", "todos"));
      expect(text).toContain("`todos`");
    }
  });

  test("undeclared-tool names the declared tool another agent's name meant (issue 29 item 6), and only for that reason", () => {
    expect(correctionText("undeclared-tool", undefined, "bash")).toContain("available here as `bash`");
    expect(correctionText("undeclared-tool")).not.toContain("`");
    expect(correctionText("broken-markup", undefined, "bash")).not.toContain("bash");
    for (const channel of ["user", "system"] as const) {
      const controller = new RetryController({ enabled: true, nudge: true, channel }, async () => {});
      controller.onReply("ses_a", "msg_1", 0, "undeclared-tool", undefined, "bash");
      const taken = controller.takeCorrectionFor("ses_a", { id: "msg_1" });
      const text = channel === "user" ? taken?.userText : controller.takeSystemText("ses_a");
      expect(text).toBe(correctionText("undeclared-tool", undefined, "bash"));
    }
  });

  test("an undeclared argument is said without a name, for invalid-arguments only (review 44)", () => {
    const text = correctionText("invalid-arguments", undefined, undefined, true);
    expect(text).toContain("not a parameter of that tool");
    expect(text).not.toContain("`");
    expect(correctionText("invalid-arguments")).not.toContain("not a parameter of that tool");
    expect(correctionText("broken-markup", undefined, undefined, true)).toBe(correctionText("broken-markup"));
    const ledger = new RetryLedger();
    ledger.recordReply("ses_a", "msg_1", "invalid-arguments", undefined, undefined, true);
    expect(ledger.takeCorrection("ses_a")).toEqual({ messageID: "msg_1", reason: "invalid-arguments", undeclaredArgument: true });
    for (const channel of ["user", "system"] as const) {
      const controller = new RetryController({ enabled: true, nudge: true, channel }, async () => {});
      controller.onReply("ses_a", "msg_1", 0, "invalid-arguments", undefined, undefined, true);
      const taken = controller.takeCorrectionFor("ses_a", { id: "msg_1" });
      expect(channel === "user" ? taken?.userText : controller.takeSystemText("ses_a")).toBe(text);
    }
  });

  test("the wake is a single short line", () => {
    expect(wakeText()).toBe("Continue.");
  });
});

describe("a wake only for the latest turn, never behind the user's back (review: plugin, findings 3 and 4)", () => {
  test("ledger: once a newer turn was built, the older reply's leak still gets its one correction but no wake", () => {
    const ledger = new RetryLedger();
    ledger.noteTurn("ses_a", { id: "msg_1", text: "search the repo" });
    ledger.recordReply("ses_a", "msg_1", "undeclared-tool");
    expect(ledger.wakeDue("ses_a")).toBe(true);
    ledger.noteTurn("ses_a", { id: "msg_2", text: "never mind, list the files" });
    expect(ledger.wakeDue("ses_a")).toBe(false);
    expect(ledger.takeWake("ses_a")).toBeNull();
    expect(ledger.takeCorrection("ses_a")).toEqual({ messageID: "msg_1", reason: "undeclared-tool" });
    expect(ledger.takeWake("ses_a")).toBeNull();
  });

  test("controller: a wake never follows a newer user message (its request carried the correction)", async () => {
    const wakes: string[] = [];
    const retry = new RetryController({ enabled: true, nudge: true, channel: "system" }, async (_sessionID, text) => void wakes.push(text));
    retry.takeCorrectionFor("ses_1", { id: "msg_u1", text: "search the repo" });
    // The reply to msg_u1 ended in markup that could not be repaired.
    retry.onReply("ses_1", "msg_u1", 0, "undeclared-tool");
    // The user's next message is already being answered (its request carries the correction) ...
    expect(retry.takeCorrectionFor("ses_1", { id: "msg_u2", text: "never mind, list the files" })?.reason).toBe("undeclared-tool");
    // ... when the idle event of msg_u1's reply is handled: a "Continue." now would land after msg_u2.
    expect(await retry.onIdle("ses_1")).toBe(false);
    expect(wakes).toEqual([]);
  });

  test("an abort drops the pending leak: no wake and no correction for it", async () => {
    const wakes: string[] = [];
    const retry = new RetryController({ enabled: true, nudge: true, channel: "system" }, async (_sessionID, text) => void wakes.push(text));
    retry.onReply("ses_1", "msg_u1", 0, "broken-markup");
    retry.onAbort("ses_1");
    expect(await retry.onIdle("ses_1")).toBe(false);
    expect(retry.takeCorrectionFor("ses_1", { id: "msg_u2", text: "next" })).toBeNull();
    expect(wakes).toEqual([]);
    // The next message's own leak gets its own wake.
    retry.onReply("ses_1", "msg_u2", 0, "broken-markup");
    expect(await retry.onIdle("ses_1")).toBe(true);
  });
});

describe("the host's check before a wake (a sub-agent's session is never woken; review: plugin, finding 1)", () => {
  const setup = () => {
    const wakes: string[] = [];
    const retry = new RetryController({ enabled: true, nudge: true, channel: "system" }, async (_sessionID, text) => void wakes.push(text));
    return { wakes, retry };
  };

  // Review 54 (optional item): "never" used to forget the session, correction included, so a parent
  // continuing the same sub-agent session lost it. Fixed: "never" turns that reply's wake off only
  // (RetryLedger.noWake); test/retry/subagent-correction.test.ts.
  test("asked only when a wake is due; \"never\" turns the wake off, the correction stays for the next request", async () => {
    const { wakes, retry } = setup();
    const asked: string[] = [];
    const check = async (id: string) => (asked.push(id), "never" as const);
    retry.onReply("ses_1", "msg_u1", 0, null);
    expect(await retry.onIdle("ses_1", check)).toBe(false);
    expect(asked).toEqual([]);
    retry.onReply("ses_1", "msg_u1", 0, "undeclared-tool");
    expect(await retry.onIdle("ses_1", check)).toBe(false);
    expect(asked).toEqual(["ses_1"]);
    // No wake due any more: not asked again.
    expect(await retry.onIdle("ses_1", check)).toBe(false);
    expect(asked).toEqual(["ses_1"]);
    expect(retry.takeCorrectionFor("ses_1", { id: "msg_u2" })?.reason).toBe("undeclared-tool");
    expect(retry.takeCorrectionFor("ses_1", { id: "msg_u3" })).toBeNull();
    expect(wakes).toEqual([]);
  });

  test("\"unknown\" or a throw: no wake now, the leak stays pending; \"wake\" then wakes once", async () => {
    const { wakes, retry } = setup();
    retry.onReply("ses_1", "msg_u1", 0, "undeclared-tool");
    expect(await retry.onIdle("ses_1", async () => "unknown")).toBe(false);
    expect(await retry.onIdle("ses_1", async () => { throw new Error("lookup failed"); })).toBe(false);
    expect(wakes).toEqual([]);
    expect(await retry.onIdle("ses_1", async () => "wake")).toBe(true);
    expect(await retry.onIdle("ses_1", async () => "wake")).toBe(false);
    expect(wakes).toEqual([wakeText()]);
  });
});

describe("one wake per user message: a wake still waiting never blocks a later message's own (review of the day's code, finding 5)", () => {
  const make = () => {
    const wakes: string[] = [];
    const retry = new RetryController({ enabled: true, nudge: true, channel: "system" }, async (_s, text) => void wakes.push(text));
    return { retry, wakes };
  };

  test("a woken turn that leaked again blocks every later user message's wake (awaitingWake never cleared)", async () => {
    const { retry, wakes } = make();
    retry.takeCorrectionFor("s", { id: "u1", text: "run the tests" });
    retry.onReply("s", "u1", 0, "broken-markup");
    expect(await retry.onIdle("s")).toBe(true);
    // The wake's own turn leaks again: no second wake for u1 (right).
    retry.takeCorrectionFor("s", { id: "w1", text: wakes[0] });
    retry.onReply("s", "w1", 0, "broken-markup");
    expect(await retry.onIdle("s")).toBe(false);
    // The user writes again and that reply leaks: u2 has had no wake of its own.
    retry.takeCorrectionFor("s", { id: "u2", text: "please try again" });
    retry.onReply("s", "u2", 0, "broken-markup");
    expect(await retry.onIdle("s")).toBe(true);
  });

  test("the user aborts the woken turn: the next user message's leak still gets its wake", async () => {
    const { retry, wakes } = make();
    retry.takeCorrectionFor("s", { id: "u1", text: "run the tests" });
    retry.onReply("s", "u1", 0, "broken-markup");
    expect(await retry.onIdle("s")).toBe(true);
    retry.takeCorrectionFor("s", { id: "w1", text: wakes[0] });
    retry.onAbort("s");
    retry.takeCorrectionFor("s", { id: "u2", text: "ok now really" });
    retry.onReply("s", "u2", 0, "broken-markup");
    expect(await retry.onIdle("s")).toBe(true);
  });
});
