/**
 * Hostile review 55 (retry): the ledger's bounds under many sessions (src/retry/state.ts keeps at
 * most 500, least recently used first out) and sessions in parallel, through the controller
 * (src/plugin/retry-controller.ts). Suspected: a session evicted while its woken turn was answering
 * comes back as a fresh entry whose woken turn has a budget of its own, and so a second wake.
 * Disproved (hard negatives below): the controller's own `wokeAndWaiting` holds the session until a
 * user-written turn or a clean reply answers the wake, and no path reports an already corrected
 * reply again, so an eviction can only cost a correction (the lowest severity), never add one.
 */
import { describe, expect, test } from "bun:test";
import { RetryController } from "../../src/plugin/retry-controller.ts";
import { correctionText, wakeText } from "../../src/retry/state.ts";

type Channel = "system" | "user";

function harness(channel: Channel) {
  const sent: { sessionID: string; text: string }[] = [];
  const controller = new RetryController({ enabled: true, nudge: true, channel }, async (sessionID, text) => void sent.push({ sessionID, text }));
  const corrections: { sessionID: string; turn: string; text: string }[] = [];
  /** The request of `turn` being built; a correction it takes is recorded. */
  const request = (sessionID: string, turn: string, text: string) => {
    const taken = controller.takeCorrectionFor(sessionID, { id: turn, text });
    const carried = taken?.userText ?? controller.takeSystemText(sessionID);
    if (carried) corrections.push({ sessionID, turn, text: carried });
  };
  /** 500 other sessions with a request in flight: every one holds an entry, the oldest go first. */
  const crowd = (tag: string) => {
    for (let i = 0; i < 500; i++) request(`ses_${tag}_${i}`, `msg_${tag}_${i}`, "hi");
  };
  /** Sessions the ledger holds (the cap is 500: a crowd of 500 after ses_a's last use evicts it). */
  const held = () => (controller as unknown as { ledger: { sessionCount: number } }).ledger.sessionCount;
  return { sent, corrections, controller, request, crowd, held };
}

describe("an evicted session never earns a second wake or a second correction", () => {
  for (const channel of ["system", "user"] as const) {
    test(`${channel} channel: evicted while the woken turn answers, that turn leaking again: one wake, one correction per reply`, async () => {
      const h = harness(channel);
      h.request("ses_a", "msg_u1", "clean up");
      h.controller.onReply("ses_a", "msg_u1", 0, "undeclared-tool");
      await h.controller.onIdle("ses_a");
      expect(h.sent).toHaveLength(1);
      const woke = h.sent[0]!.text;
      h.request("ses_a", "msg_w1", woke);
      h.crowd("x");
      expect(h.held()).toBe(500);
      h.controller.onReply("ses_a", "msg_w1", 0, "undeclared-tool");
      await h.controller.onIdle("ses_a");
      await h.controller.onIdle("ses_a");
      expect(h.sent).toHaveLength(1);
      // msg_u1's reply got its one correction (on the wake's request, or as the wake itself).
      expect(h.corrections.filter((c) => c.sessionID === "ses_a")).toHaveLength(channel === "user" ? 0 : 1);
      if (channel === "user") expect(woke).toBe(correctionText("undeclared-tool"));
      else expect(woke).toBe(wakeText());
      // The user's next message: at most the woken turn's own correction, once.
      h.request("ses_a", "msg_u2", "never mind");
      h.request("ses_a", "msg_u2", "never mind");
      const later = h.corrections.filter((c) => c.sessionID === "ses_a" && c.turn === "msg_u2");
      expect(later.length).toBeLessThanOrEqual(1);
    });
  }

  test("evicted after its correction went: the same reply is never corrected again on later requests", async () => {
    const h = harness("system");
    h.request("ses_a", "msg_u1", "clean up");
    h.controller.onReply("ses_a", "msg_u1", 0, "truncated-call");
    h.request("ses_a", "msg_u2", "go on");
    expect(h.corrections).toHaveLength(1);
    h.crowd("y");
    expect(h.held()).toBe(500);
    h.request("ses_a", "msg_u3", "and?");
    h.request("ses_a", "msg_u3", "and?");
    expect(h.corrections.filter((c) => c.sessionID === "ses_a")).toHaveLength(1);
  });
});

describe("sessions in parallel share nothing", () => {
  test("two sessions leaking at once, interleaved: each its own wake and its own correction, once", async () => {
    const h = harness("system");
    h.request("ses_a", "msg_a1", "one");
    h.request("ses_b", "msg_b1", "two");
    h.controller.onReply("ses_b", "msg_b1", 0, "broken-markup");
    h.controller.onReply("ses_a", "msg_a1", 0, "undeclared-tool");
    await Promise.all([h.controller.onIdle("ses_a"), h.controller.onIdle("ses_b"), h.controller.onIdle("ses_a")]);
    expect(h.sent.map((s) => s.sessionID).sort()).toEqual(["ses_a", "ses_b"]);
    // A's wake turn is built first; B's system text must not ride on A's request, nor A's on B's.
    h.request("ses_a", "msg_a2", wakeText());
    h.request("ses_b", "msg_b2", wakeText());
    expect(h.corrections).toEqual([
      { sessionID: "ses_a", turn: "msg_a2", text: correctionText("undeclared-tool") },
      { sessionID: "ses_b", turn: "msg_b2", text: correctionText("broken-markup") },
    ]);
  });

  test("an abort in one session leaves the other's wake due", async () => {
    const h = harness("system");
    h.request("ses_a", "msg_a1", "one");
    h.request("ses_b", "msg_b1", "two");
    h.controller.onReply("ses_a", "msg_a1", 0, "undeclared-tool");
    h.controller.onReply("ses_b", "msg_b1", 0, "undeclared-tool");
    h.controller.onAbort("ses_a");
    await h.controller.onIdle("ses_a");
    await h.controller.onIdle("ses_b");
    expect(h.sent.map((s) => s.sessionID)).toEqual(["ses_b"]);
  });
});
