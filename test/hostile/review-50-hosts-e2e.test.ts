/**
 * Hostile review 50, end to end against the real OpenCode 1.18.33 (`opencode serve`, isolated
 * HOME/XDG dirs by test/e2e/harness.ts, a scripted fake model): a message edited after its reply
 * leaked. OpenCode edits a message by reverting to it (POST /session/{id}/revert) and prompting
 * again; the next prompt removes the reverted messages before the loop builds the request.
 * The unit-level counterparts (both hosts, both channels) are in review-50-hosts-v1/-v2.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { correctionText } from "../../src/retry/state.ts";
import { live } from "../golden/notation.ts";
import { setup } from "../e2e/harness.ts";
import { countOf, newSession, partsText, pluginEntry, prompt, requestText, serve, sessionMessages, systemText, TIMEOUT, userTexts } from "../e2e/plugin-helpers.ts";

const UNDECLARED =
  "Searching.\n" +
  live(`<{D}invoke name="AgenticSearch">\n<{D}parameter name="query" string="true">x</{D}parameter>\n</{D}invoke>`);

let teardowns: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const t of teardowns.reverse()) await t().catch(() => {});
  teardowns = [];
});

describe("OpenCode 1.18.33: a message edited after its reply leaked", () => {
  // FINDING (severity: a correction sent with the wrong message; src/plugin/index.ts
  // messages.transform -> RetryController.takeCorrectionFor, src/retry/state.ts takeCorrection).
  // The reply to "search the repo" leaks a call of an undeclared tool (its correction is due on
  // the session's next request; the wake is off here so nothing else takes it). The user edits
  // that message: revert to it, send the new text. OpenCode removes the old message and its reply,
  // so the request for the edited text holds no earlier reply at all, yet the plugin puts "Your
  // last reply contained tool-call markup ... If you still need a tool, call it again" into its
  // system prompt. Expected: no correction in a request whose history no longer holds the reply
  // it is about.
  // Fixed: a pending correction goes only with a request whose history still holds the reply it
  // corrects or the user message that reply answered (src/retry/state.ts takeCorrection, given the
  // history by messages.transform / the V2 context hook); otherwise it is dropped, not kept.
  test(
    "the edited message's request carries no correction for the reply the revert removed",
    async () => {
      const env = await setup([{ content: UNDECLARED }, { content: "Here is a different search." }], {
        plugin: [pluginEntry({ providers: ["fake"], retry: { enabled: false } })],
      });
      teardowns.push(env.teardown);
      const { client, server } = await serve(env.project);
      teardowns.push(() => server.stop());
      const sessionID = await newSession(client);

      const first = await prompt(client, sessionID, "search the repo");
      expect(partsText(first)).toBe(UNDECLARED);
      const [original] = await sessionMessages(client, sessionID);
      expect(original!.info.role).toBe("user");
      const reverted = await client.session.revert({ path: { id: sessionID }, body: { messageID: original!.info.id } });
      expect(reverted.error).toBeUndefined();

      await prompt(client, sessionID, "search the repo for TODO comments only");
      const [, req2] = env.model.mainRequests();
      // The revert really removed the old exchange: the request holds the edited text alone.
      expect(userTexts(req2!)).toEqual(["search the repo for TODO comments only"]);
      expect(requestText(req2!)).not.toContain("Searching.");
      expect(countOf(systemText(req2!), correctionText("undeclared-tool"))).toBe(0);
    },
    TIMEOUT,
  );
});
