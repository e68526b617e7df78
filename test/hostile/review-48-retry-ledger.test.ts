/**
 * Hostile review 48: the retry layer (src/retry/state.ts, src/plugin/retry-controller.ts) driven
 * as the 1.18 plugin drives it: takeCorrectionFor on each request build (messages.transform),
 * onReply when a reply finished, onIdle on session.idle, onAbort on MessageAbortedError. Tests
 * named FINDING fail on main at the time of writing; the others are hard negatives, kept because
 * they pin a bound an attacker (or a racing host) would go after.
 */
import { describe, expect, test } from "bun:test";
import { RetryController } from "../../src/plugin/retry-controller.ts";
import { correctionText, wakeText, type CorrectionReason } from "../../src/retry/state.ts";

type Channel = "system" | "user";

function controller(channel: Channel, opts: { enabled?: boolean; nudge?: boolean } = {}) {
  const wakes: { sessionID: string; text: string }[] = [];
  const retry = new RetryController({ enabled: opts.enabled ?? true, nudge: opts.nudge ?? true, channel }, async (sessionID, text) => void wakes.push({ sessionID, text }));
  /** One request build of `turn` as messages.transform then system.transform see it: what correction text it carries. */
  const build = (sessionID: string, turn: string, text: string): string | null => {
    const taken = retry.takeCorrectionFor(sessionID, { id: turn, text });
    return taken?.userText ?? retry.takeSystemText(sessionID);
  };
  return { retry, wakes, build };
}

/** A deferred promise, to hold a mayWake answer while the host races on. */
function deferred<T>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

describe("two leaks in a row: each user message's own leak gets its own correction", () => {
  for (const channel of ["system", "user"] as const) {
    // FINDING (severity: medium; a leak is woken with no correction at all, so the model is told
    // "Continue." and nothing else, and typically repeats the same markup; suspected source:
    // src/retry/state.ts takeCorrection / Budget, which spends the correction of the *user message*
    // whose request carried it, not of the assistant reply it corrects).
    // Sequence: m1 leaks (undeclared-tool) -> wake w1 carries m1's correction -> w1 leaks again
    // (truncated-call, no second wake: right) -> the user writes m2, whose request carries w1's
    // leftover correction (truncated-call) and so spends m2's correction budget -> m2's own reply
    // leaks (broken-markup) -> idle -> wake w2. Observed: w2 carries no correction for m2's leak
    // (system channel: nothing in the system prompt; user channel: the wake is the bare
    // "Continue."). Expected: the broken-markup reply of m2 gets its one correction (on w2's
    // request, or as the user-channel wake), as the first message's leak did.
    test(`fixed (${channel} channel): m2's own leak, after m2's request carried w1's leftover correction, still gets its own correction`, async () => {
      const { retry, wakes, build } = controller(channel);
      const S = "ses_two";
      expect(build(S, "msg_m1", "search the repo")).toBeNull();
      retry.onReply(S, "msg_m1", 0, "undeclared-tool");
      expect(await retry.onIdle(S)).toBe(true);
      const firstWake = wakes[0]!.text;
      // The wake's own turn (its text is the one sent), carrying m1's correction.
      const w1 = build(S, "msg_w1", firstWake);
      expect([w1, firstWake]).toContain(correctionText("undeclared-tool"));
      retry.onReply(S, "msg_w1", 0, "truncated-call");
      expect(await retry.onIdle(S)).toBe(false);
      // The user writes again: the leftover correction of w1's leak rides on m2's request.
      expect(build(S, "msg_m2", "what now?")).toBe(correctionText("truncated-call"));
      retry.onReply(S, "msg_m2", 0, "broken-markup");
      expect(await retry.onIdle(S)).toBe(true);
      expect(wakes).toHaveLength(2);
      const secondWake = wakes[1]!.text;
      const w2 = build(S, "msg_w2", secondWake);
      // m2's broken-markup reply is corrected once: in the wake itself or on the wake's request.
      const delivered = [secondWake, w2].filter((t) => t === correctionText("broken-markup"));
      expect(delivered).toHaveLength(1);
    });
  }

  test("hard negative: two user messages whose replies leak with no wake in between each get their own correction, once", () => {
    const { retry, build } = controller("system", { enabled: false });
    const S = "ses_two_b";
    build(S, "msg_m1", "a");
    retry.onReply(S, "msg_m1", 0, "undeclared-tool");
    expect(build(S, "msg_m2", "b")).toBe(correctionText("undeclared-tool"));
    retry.onReply(S, "msg_m2", 0, "truncated-call");
    expect(build(S, "msg_m3", "c")).toBe(correctionText("truncated-call"));
    // A re-render of m3's request and a later message carry nothing more.
    expect(build(S, "msg_m3", "c")).toBeNull();
    retry.onReply(S, "msg_m3", 0, null);
    expect(build(S, "msg_m4", "d")).toBeNull();
  });
});

describe("one correction per assistant reply, even when a call was recovered", () => {
  // FINDING (severity: low-medium; the model is never told its extra calls did not run, though
  // the text for exactly that exists: correctionText("extra-call") says "the calls written as text
  // after the first were not executed"; suspected source: src/plugin/retry-controller.ts onReply,
  // `recovered === 0 ? nudge : null`, which drops every nudge of a reply that recovered a call, so
  // "extra-call", produced only when one call was recovered (src/engine/output.ts), can never be
  // delivered by the plugin; the proxy drops it too, since the replayed turn carries the native
  // call, src/adapters/request-history.ts madeNativeCall).
  test("fixed: a reply that ran its first call and dropped the rest (extra-call) gets the extra-call correction on the next request", () => {
    const { retry, build } = controller("system");
    build("ses_x", "msg_1", "run the tests and the linter");
    retry.onReply("ses_x", "msg_1", 1, "extra-call");
    expect(build("ses_x", "msg_1", "run the tests and the linter")).toBe(correctionText("extra-call"));
  });

  test("hard negative: a recovered call with nothing broken gets no correction and no wake", async () => {
    const { retry, wakes, build } = controller("user");
    build("ses_r", "msg_1", "go");
    retry.onReply("ses_r", "msg_1", 1, null);
    expect(await retry.onIdle("ses_r")).toBe(false);
    expect(build("ses_r", "msg_1", "go")).toBeNull();
    expect(wakes).toEqual([]);
  });
});

describe("races around session.idle", () => {
  test("hard negative: session.idle fired twice while the sub-agent lookup is slow: one wake", async () => {
    const { retry, wakes, build } = controller("system");
    build("ses_i", "msg_1", "go");
    retry.onReply("ses_i", "msg_1", 0, "undeclared-tool");
    const slow = deferred<"wake">();
    const first = retry.onIdle("ses_i", () => slow.promise);
    const second = retry.onIdle("ses_i", () => slow.promise);
    slow.resolve("wake");
    expect((await Promise.all([first, second])).filter(Boolean)).toHaveLength(1);
    expect(await retry.onIdle("ses_i", async () => "wake")).toBe(false);
    expect(wakes).toHaveLength(1);
  });

  test("hard negative: the user's next prompt is built while the idle's lookup is pending: no wake lands behind it", async () => {
    const { retry, wakes, build } = controller("system");
    build("ses_race", "msg_1", "go");
    retry.onReply("ses_race", "msg_1", 0, "undeclared-tool");
    const slow = deferred<"wake">();
    const idle = retry.onIdle("ses_race", () => slow.promise);
    expect(build("ses_race", "msg_2", "something else")).toBe(correctionText("undeclared-tool"));
    slow.resolve("wake");
    expect(await idle).toBe(false);
    expect(wakes).toEqual([]);
  });

  test("hard negative: idle out of order (before the reply is recorded, then twice after): one wake", async () => {
    const { retry, wakes, build } = controller("user");
    build("ses_o", "msg_1", "go");
    expect(await retry.onIdle("ses_o")).toBe(false);
    retry.onReply("ses_o", "msg_1", 0, "truncated-call");
    await Promise.all([retry.onIdle("ses_o"), retry.onIdle("ses_o"), retry.onIdle("ses_o")]);
    expect(wakes.map((w) => w.text)).toEqual([correctionText("truncated-call")]);
  });

  test("hard negative: an abort after the wake was taken, then idle again: no second wake, no correction", async () => {
    const { retry, wakes, build } = controller("system");
    build("ses_ab", "msg_1", "go");
    retry.onReply("ses_ab", "msg_1", 0, "undeclared-tool");
    expect(await retry.onIdle("ses_ab")).toBe(true);
    retry.onAbort("ses_ab");
    expect(await retry.onIdle("ses_ab")).toBe(false);
    expect(build("ses_ab", "msg_w", wakeText())).toBeNull();
    expect(wakes).toHaveLength(1);
  });
});

describe("a user writing the wake's own text", () => {
  // Probe: a wake whose delivery failed (promptAsync threw) stays "awaited" with its text; the user
  // then types the very same "Continue." (a common thing to type). The ledger takes the user's
  // message for our wake's turn and bills it to m1's spent budget.
  // FINDING (severity: low; the user's own message is denied its wake, and every later leak in the
  // session is too until the user writes something else, since wokeAndWaiting is never cleared;
  // suspected source: src/retry/state.ts #noteTurn (matching an awaited wake by text only) with
  // src/plugin/retry-controller.ts onIdle (awaitWake/wokeAndWaiting set before the send succeeds)).
  test("fixed: after a wake that failed to send, the user's own \"Continue.\" whose reply leaks gets its wake", async () => {
    let fail = true;
    const wakes: string[] = [];
    const retry = new RetryController({ enabled: true, nudge: true, channel: "system" }, async (_s, text) => {
      if (fail) throw new Error("ECONNRESET");
      wakes.push(text);
    });
    retry.takeCorrectionFor("ses_f", { id: "msg_1", text: "go" });
    retry.onReply("ses_f", "msg_1", 0, "undeclared-tool");
    await retry.onIdle("ses_f").catch(() => false);
    fail = false;
    // The user types "Continue." themselves; its request carries m1's correction (fine) ...
    retry.takeCorrectionFor("ses_f", { id: "msg_2", text: wakeText() });
    retry.onReply("ses_f", "msg_2", 0, "broken-markup");
    // ... and its own reply leaks: a message the user wrote has its own wake.
    expect(await retry.onIdle("ses_f")).toBe(true);
    expect(wakes).toEqual([wakeText()]);
  });
});

describe("options", () => {
  const reasons: CorrectionReason[] = ["undeclared-tool", "truncated-call"];
  test("hard negative: enabled false and nudge false: neither a correction nor a wake, on either channel", async () => {
    for (const channel of ["system", "user"] as const) {
      const { retry, wakes, build } = controller(channel, { enabled: false, nudge: false });
      for (const [i, reason] of reasons.entries()) {
        build("ses_off", `msg_${i}`, "go");
        retry.onReply("ses_off", `msg_${i}`, 0, reason);
        expect(await retry.onIdle("ses_off")).toBe(false);
      }
      expect(build("ses_off", "msg_z", "z")).toBeNull();
      expect(wakes).toEqual([]);
    }
  });

  test("hard negative: nudge false with the user channel: the one wake is the bare \"Continue.\", never a correction", async () => {
    const { retry, wakes, build } = controller("user", { nudge: false });
    build("ses_n", "msg_1", "go");
    retry.onReply("ses_n", "msg_1", 0, "undeclared-tool");
    expect(await retry.onIdle("ses_n")).toBe(true);
    expect(build("ses_n", "msg_w", wakeText())).toBeNull();
    expect(wakes.map((w) => w.text)).toEqual([wakeText()]);
  });
});
