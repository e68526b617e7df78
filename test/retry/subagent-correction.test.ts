/**
 * Review 54 (optional item): the idle wake's "never" (a sub-agent's session, whose reply its parent
 * already has) must cost that session its wake only. The parent may continue the same sub-agent
 * session (the task tool given its task id): the request built then is the one right after the
 * broken reply, and its correction is due there, as on any session.
 */
import { describe, expect, test } from "bun:test";
import { RetryController } from "../../src/plugin/retry-controller.ts";
import { correctionText } from "../../src/retry/state.ts";

describe("a sub-agent session the wake check says never to wake keeps its pending correction", () => {
  for (const channel of ["user", "system"] as const) {
    test(`${channel} channel: no wake, and the parent continuing the session gets the correction once`, async () => {
      const wakes: string[] = [];
      const controller = new RetryController({ enabled: true, nudge: true, channel }, async (sessionID) => void wakes.push(sessionID));
      controller.onReply("ses_child", "msg_1", 0, "broken-markup");
      let asked = 0;
      const never = async () => (asked++, "never" as const);
      expect(await controller.onIdle("ses_child", never)).toBe(false);
      // Idle again: no wake is due any more, so the host is not asked again.
      expect(await controller.onIdle("ses_child", never)).toBe(false);
      expect(asked).toBe(1);
      expect(wakes).toEqual([]);
      // The parent sends the sub-agent a new message in the same session.
      const taken = controller.takeCorrectionFor("ses_child", { id: "msg_2", text: "also check the tests" }, () => true);
      expect(taken?.reason).toBe("broken-markup");
      expect(channel === "user" ? taken?.userText : controller.takeSystemText("ses_child")).toBe(correctionText("broken-markup"));
      // Once: the request after carries nothing.
      expect(controller.takeCorrectionFor("ses_child", { id: "msg_3", text: "thanks" }, () => true)).toBeNull();
      expect(wakes).toEqual([]);
    });
  }

  test("hard negative: a wake-check of \"wake\" still wakes, and a clean reply after \"never\" leaves nothing pending", async () => {
    const wakes: string[] = [];
    const controller = new RetryController({ enabled: true, nudge: true, channel: "system" }, async (sessionID) => void wakes.push(sessionID));
    controller.onReply("ses_main", "msg_1", 0, "broken-markup");
    expect(await controller.onIdle("ses_main", async () => "wake")).toBe(true);
    expect(wakes).toEqual(["ses_main"]);
    controller.onReply("ses_child", "msg_1", 0, "broken-markup");
    expect(await controller.onIdle("ses_child", async () => "never")).toBe(false);
    controller.onReply("ses_child", "msg_1", 0, null);
    expect(controller.takeCorrectionFor("ses_child", { id: "msg_2", text: "go on" }, () => true)).toBeNull();
  });
});
