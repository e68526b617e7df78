/**
 * Review 45 (hosts), findings 5 and 6: a correction is due only for the request right after the
 * reply it corrects, and the system-channel text goes with that one request (and the host's
 * retries of it), never with a later message's request.
 */
import { describe, expect, test } from "bun:test";
import { RetryController } from "../../src/plugin/retry-controller.ts";
import { RetryLedger, correctionText, wakeText } from "../../src/retry/state.ts";

const SYSTEM = { enabled: true, channel: "system", nudge: true } as const;

describe("the ledger: due for the next request only", () => {
  test("a request passed over (an out-of-scope model) ends the pending correction and its wake", () => {
    const ledger = new RetryLedger();
    ledger.recordReply("ses_a", "msg_u1", "broken-markup");
    expect(ledger.passOver("ses_a", { id: "msg_u2", text: "try gpt" })).toBe(true);
    expect(ledger.wakeDue("ses_a")).toBe(false);
    expect(ledger.takeCorrection("ses_a", { id: "msg_u3", text: "back" })).toBeNull();
  });

  test("hard negative: passing over a session with nothing recorded leaves nothing behind", () => {
    const ledger = new RetryLedger();
    expect(ledger.passOver("ses_a", { id: "msg_u1", text: "hi" })).toBe(false);
    expect(ledger.sessionCount).toBe(0);
  });

  test("a correction is counted against the reply it corrects: the woken turn's own leak gets its one, on the next request only (review 48, retry finding 3)", () => {
    const ledger = new RetryLedger();
    ledger.recordReply("ses_a", "msg_u1", "broken-markup");
    expect(ledger.takeWake("ses_a")).not.toBeNull();
    ledger.awaitWake("ses_a", wakeText());
    // The woken turn's request carries the first reply's correction; its own reply is broken again.
    expect(ledger.takeCorrection("ses_a", { id: "msg_w1", text: wakeText() })?.reason).toBe("broken-markup");
    ledger.recordReply("ses_a", "msg_w1", "truncated-call");
    // The request right after it carries that reply's own correction, whatever message it is for ...
    expect(ledger.takeCorrection("ses_a", { id: "msg_w1", text: wakeText() })?.reason).toBe("truncated-call");
    // ... and no later request is told about it again, nor is a second wake due for the message.
    expect(ledger.takeCorrection("ses_a", { id: "msg_u2", text: "and now?" })).toBeNull();
    expect(ledger.takeWake("ses_a")).toBeNull();
  });

  test("hard negative: the reply right before a new message's request is still corrected there", () => {
    const ledger = new RetryLedger();
    ledger.recordReply("ses_a", "msg_u1", "undeclared-tool");
    expect(ledger.takeCorrection("ses_a", { id: "msg_u2", text: "go on" })?.reason).toBe("undeclared-tool");
  });
});

describe("the controller's system text: one request and its host retries", () => {
  test("read again by a retried system.transform; gone once the next request is built", () => {
    const retry = new RetryController(SYSTEM, async () => undefined);
    retry.onReply("ses_a", "msg_u1", 0, "broken-markup");
    retry.takeCorrectionFor("ses_a", { id: "msg_u2", text: "next" });
    const text = correctionText("broken-markup");
    expect(retry.takeSystemText("ses_a")).toBe(text);
    expect(retry.takeSystemText("ses_a")).toBe(text);
    // The next step (or message) builds a new request: it never carries the text again.
    retry.takeCorrectionFor("ses_a", { id: "msg_u2", text: "next" });
    expect(retry.takeSystemText("ses_a")).toBeNull();
    retry.takeCorrectionFor("ses_a", { id: "msg_u3", text: "more" });
    expect(retry.takeSystemText("ses_a")).toBeNull();
  });

  test("a request passed over drops a text taken for the one before; an abort does too", () => {
    const retry = new RetryController(SYSTEM, async () => undefined);
    retry.onReply("ses_a", "msg_u1", 0, "broken-markup");
    retry.takeCorrectionFor("ses_a", { id: "msg_u2", text: "next" });
    retry.passOver("ses_a", { id: "msg_u3", text: "gpt" });
    expect(retry.takeSystemText("ses_a")).toBeNull();

    const aborted = new RetryController(SYSTEM, async () => undefined);
    aborted.onReply("ses_a", "msg_u1", 0, "broken-markup");
    aborted.takeCorrectionFor("ses_a", { id: "msg_u2", text: "next" });
    aborted.onAbort("ses_a");
    expect(aborted.takeSystemText("ses_a")).toBeNull();
  });
});
