/**
 * Issue 10 item 5: at most one correction and one idle wake per user-written message, and at most
 * WAKES_PER_HOUR wakes per session per rolling hour, whatever happens in between. A turn our wake
 * started spends from the message that led to it.
 */
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import type { NudgeReason } from "../../src/parse/types.ts";
import { RetryController } from "../../src/plugin/retry-controller.ts";
import { correctionText, HOUR_MS, WAKES_PER_HOUR } from "../../src/retry/state.ts";

const retryOptions = { enabled: true, nudge: true, channel: "user" as const };

/** A controller over a fake OpenCode: wakes become new user turns with the text that was sent. */
function harness() {
  let clock = 0;
  const sent: { sessionID: string; text: string }[] = [];
  const controller = new RetryController(retryOptions, async (sessionID, text) => void sent.push({ sessionID, text }), () => clock);
  let turns = 0;
  let corrections = 0;
  return {
    sent,
    get corrections() {
      return corrections;
    },
    advance: (ms: number) => void (clock += ms),
    /** A request for a turn: OpenCode builds it from the last user message. */
    request(turn: string, text: string) {
      if (controller.takeCorrectionFor("ses", { id: turn, text })) corrections++;
    },
    reply: (turn: string, recovered: number, nudge: NudgeReason | null) => controller.onReply("ses", turn, recovered, nudge),
    idle: () => controller.onIdle("ses"),
    newTurnId: () => `msg_${++turns}`,
  };
}

describe("the idle wake is bounded", () => {
  test("a woken turn that makes one clean step and then ends in markup is never woken again (10 turns, 1 wake)", async () => {
    const h = harness();
    let turn = h.newTurnId();
    h.request(turn, "Please refactor the parser.");
    h.reply(turn, 0, "broken-markup");
    for (let round = 0; round < 10; round++) {
      await h.idle();
      const wake = h.sent.at(-1);
      if (!wake || h.sent.length <= round) break;
      turn = h.newTurnId();
      h.request(turn, wake.text);
      h.reply(turn, 0, null); // a native tool call: a clean step
      h.request(turn, wake.text);
      h.reply(turn, 0, "broken-markup");
    }
    await h.idle();
    // One wake, which (on the user channel) carries the one correction; no request got another.
    expect(h.sent.map((w) => w.text)).toEqual([correctionText("broken-markup")]);
    expect(h.corrections).toBe(0);
  });

  test(`at most ${WAKES_PER_HOUR} wakes per session in any hour, even for messages the user wrote`, async () => {
    const h = harness();
    for (let i = 0; i < WAKES_PER_HOUR + 3; i++) {
      const turn = h.newTurnId();
      h.request(turn, `User request ${i}`);
      h.reply(turn, 0, "undeclared-tool");
      await h.idle();
      const wake = h.sent.at(-1);
      if (wake) {
        const woken = h.newTurnId();
        h.request(woken, wake.text);
        h.reply(woken, 1, null);
      }
    }
    expect(h.sent.length).toBe(WAKES_PER_HOUR);
    h.advance(HOUR_MS);
    const turn = h.newTurnId();
    h.request(turn, "A new hour");
    h.reply(turn, 0, "broken-markup");
    await h.idle();
    expect(h.sent.length).toBe(WAKES_PER_HOUR + 1);
  });

  test("property: over random turn sequences, one correction and one wake per user message, and the hourly bound", async () => {
    type Step =
      | { kind: "user" }
      | { kind: "step"; recovered: number; nudge: NudgeReason | null }
      | { kind: "idle" }
      | { kind: "wait"; ms: number };
    const step: fc.Arbitrary<Step> = fc.oneof(
      fc.constant<Step>({ kind: "user" }),
      fc.record({ kind: fc.constant("step" as const), recovered: fc.constantFrom(0, 0, 1), nudge: fc.constantFrom<NudgeReason | null>(null, "broken-markup", "truncated-call", "undeclared-tool") }),
      fc.constant<Step>({ kind: "idle" }),
      fc.record({ kind: fc.constant("wait" as const), ms: fc.integer({ min: 0, max: HOUR_MS / 2 }) }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(step, { maxLength: 60 }), async (steps) => {
        const h = harness();
        let clock = 0;
        let turn = h.newTurnId();
        let text = "first";
        let origin = turn;
        const wakesPer = new Map<string, number>();
        const wakeTimes: number[] = [];
        h.request(turn, text);
        for (const s of steps) {
          if (s.kind === "user") {
            turn = origin = h.newTurnId();
            text = `user ${turn}`;
            h.request(turn, text);
          } else if (s.kind === "step") {
            h.reply(turn, s.recovered, s.nudge);
            h.request(turn, text);
          } else if (s.kind === "wait") {
            h.advance(s.ms);
            clock += s.ms;
          } else {
            const before = h.sent.length;
            await h.idle();
            if (h.sent.length > before) {
              wakesPer.set(origin, (wakesPer.get(origin) ?? 0) + 1);
              wakeTimes.push(clock);
              // The wake starts a turn of its own, spending from the same user message.
              turn = h.newTurnId();
              text = h.sent.at(-1)!.text;
              h.request(turn, text);
            }
          }
        }
        for (const n of wakesPer.values()) expect(n).toBeLessThanOrEqual(1);
        for (const at of wakeTimes) expect(wakeTimes.filter((t) => t >= at && t < at + HOUR_MS).length).toBeLessThanOrEqual(WAKES_PER_HOUR);
      }),
      { numRuns: 300, seed: 20261201 },
    );
  });
});
