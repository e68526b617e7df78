/**
 * Hostile review of the plugin's retry (src/plugin/retry-controller.ts, src/retry/state.ts,
 * src/plugin/fallback.ts): unit tests, each failing on the code as reviewed. The end-to-end
 * counterparts against the real OpenCode 1.18.33 are in plugin-review-e2e.test.ts.
 */
import { describe, expect, test } from "bun:test";
import { WireFallback, type ReplyOrigin } from "../../src/plugin/fallback.ts";
import { RetryController } from "../../src/plugin/retry-controller.ts";
import { block, live } from "../golden/notation.ts";

const SESSION = "ses_1";
const LEAK = live(block("tool_calls", [["bash", [["command", "echo hi > x.txt"]]]]));

function controller(channel: "system" | "user" = "system") {
  const wakes: string[] = [];
  const retry = new RetryController({ enabled: true, nudge: true, channel }, async (_sessionID, text) => void wakes.push(text));
  return { retry, wakes };
}

describe("review: retry", () => {
  test("a wake never follows a newer user message: once the user wrote again (and that request carried the correction), the old reply's idle wake is void", async () => {
    const { retry, wakes } = controller();
    retry.takeCorrectionFor(SESSION, { id: "msg_u1", text: "search the repo" });
    // The reply to msg_u1 ended in markup that could not be repaired.
    retry.onReply(SESSION, "msg_u1", 0, "undeclared-tool");
    // The user's next message is already being answered (its request carries the correction) ...
    expect(retry.takeCorrectionFor(SESSION, { id: "msg_u2", text: "never mind, list the files" })?.reason).toBe("undeclared-tool");
    // ... when the idle event of msg_u1's reply is handled: a "Continue." now lands after msg_u2.
    expect(await retry.onIdle(SESSION)).toBe(false);
    expect(wakes).toEqual([]);
  });

  test("fallback route: a clean reply after the leak's correction clears it, as on the wire route; no idle wake after the model ended cleanly", async () => {
    const { retry, wakes } = controller();
    const origins: Record<string, ReplyOrigin> = {
      msg_a1: { turn: "msg_u1", providerID: "opencode-go" },
      msg_a2: { turn: "msg_u1", providerID: "opencode-go" },
    };
    const fallback = new WireFallback({ enabled: true, parse: {}, inScope: () => true, retry, lookup: async (_s, id) => origins[id] });
    retry.takeCorrectionFor(SESSION, { id: "msg_u1", text: "write the file" });
    // Step 1: prose, a leaked call (not executable on this route) and a native call: the loop goes on.
    await fallback.onTextComplete({ sessionID: SESSION, messageID: "msg_a1" }, { text: `Writing.\n\n${LEAK}` });
    // Step 2's request carries the correction ...
    expect(retry.takeCorrectionFor(SESSION, { id: "msg_u1", text: "write the file" })?.reason).toBe("unexecuted-call");
    // ... and its reply is a clean final answer.
    await fallback.onTextComplete({ sessionID: SESSION, messageID: "msg_a2" }, { text: "All done: the file is written." });
    expect(await retry.onIdle(SESSION)).toBe(false);
    expect(wakes).toEqual([]);
  });
});
