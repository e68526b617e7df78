/**
 * Hard negatives for the fixes of hostile review 50 (hosts), on the OpenCode 1.18 entry: each
 * fix narrows when a correction or a wake goes, so each test here is a case where one must still
 * go (or still go only once). The findings themselves are in review-50-hosts-v1.test.ts.
 */
import { describe, expect, test } from "bun:test";
import { correctionText, wakeText } from "../../src/retry/state.ts";
import { assistantMsg, DEEPSEEK, type Msg, startV1, TRUNCATED, UNDECLARED, userMsg } from "./review-50-hosts-support.ts";

describe("V1 fix: a correction goes only with a history that holds its reply", () => {
  test("after an edit dropped the old correction, the edited message's own leak gets its one correction and one wake", async () => {
    const v1 = await startV1({ providers: ["deepseek"] });
    const u1 = userMsg("ses_1", "msg_u1", "clean up");
    await v1.build("ses_1", [u1]);
    await v1.answer("ses_1", "msg_u1", TRUNCATED);
    // The user edits msg_u1 before anything else was built: the old correction is dropped.
    const edited = userMsg("ses_1", "msg_u1b", "clean up /tmp only");
    expect((await v1.build("ses_1", [edited])).system).toEqual([]);
    await v1.answer("ses_1", "msg_u1b", UNDECLARED);
    await v1.idle("ses_1");
    expect(v1.wakes).toEqual([{ sessionID: "ses_1", text: wakeText() }]);
    const a1b = assistantMsg("ses_1", "msg_a1b", "msg_u1b", UNDECLARED);
    const woken = await v1.build("ses_1", [edited, a1b, userMsg("ses_1", "msg_w1", wakeText())]);
    expect(woken.system).toEqual([correctionText("undeclared-tool")]);
    // Once: the woken turn's next step carries nothing.
    expect((await v1.build("ses_1", [edited, a1b, userMsg("ses_1", "msg_w1", wakeText())])).system).toEqual([]);
    await v1.idle("ses_1");
    expect(v1.wakes).toHaveLength(1);
  });

  test("a later message's second leak, after the first was corrected, gets its own correction and its own wake", async () => {
    const v1 = await startV1({ providers: ["deepseek"] });
    const u1 = userMsg("ses_1", "msg_u1", "clean up");
    await v1.build("ses_1", [u1]);
    await v1.answer("ses_1", "msg_u1", UNDECLARED);
    await v1.idle("ses_1");
    const a1 = assistantMsg("ses_1", "msg_a1", "msg_u1", UNDECLARED);
    const w1 = userMsg("ses_1", "msg_w1", wakeText());
    expect((await v1.build("ses_1", [u1, a1, w1])).system).toEqual([correctionText("undeclared-tool")]);
    await v1.answer("ses_1", "msg_w1", "Done, cleaned.");
    const history = [u1, a1, w1, assistantMsg("ses_1", "msg_a2", "msg_w1", "Done, cleaned.")];
    const u2 = userMsg("ses_1", "msg_u2", "now check the build");
    expect((await v1.build("ses_1", [...history, u2])).system).toEqual([]);
    await v1.answer("ses_1", "msg_u2", TRUNCATED);
    await v1.idle("ses_1");
    expect(v1.wakes).toEqual([
      { sessionID: "ses_1", text: wakeText() },
      { sessionID: "ses_1", text: wakeText() },
    ]);
    const a3 = assistantMsg("ses_1", "msg_a3", "msg_u2", TRUNCATED);
    const w2 = userMsg("ses_1", "msg_w2", wakeText());
    expect((await v1.build("ses_1", [...history, u2, a3, w2])).system).toEqual([correctionText("truncated-call")]);
  });

  test("a compaction that kept the leaking reply but not the message it answered: the reply is still there, the correction goes", async () => {
    const v1 = await startV1({ providers: ["deepseek"] });
    const u1 = userMsg("ses_1", "msg_u1", "clean up");
    await v1.build("ses_1", [u1]);
    await v1.answer("ses_1", "msg_u1", UNDECLARED);
    // The reply answers msg_u1 (parentID); the user message itself was summarized away.
    const built = await v1.build("ses_1", [assistantMsg("ses_1", "msg_a1", "msg_u1", UNDECLARED), userMsg("ses_1", "msg_u2", "go on")]);
    expect(built.system).toEqual([correctionText("undeclared-tool")]);
  });

  test("user channel: with the reply in history, the synthetic correction turn is still added, once", async () => {
    const v1 = await startV1({ providers: ["deepseek"], retry: { channel: "user", enabled: false } });
    const u1 = userMsg("ses_1", "msg_u1", "clean up");
    await v1.build("ses_1", [u1]);
    await v1.answer("ses_1", "msg_u1", UNDECLARED);
    const history = [u1, assistantMsg("ses_1", "msg_a1", "msg_u1", UNDECLARED), userMsg("ses_1", "msg_u2", "go on")];
    const built = await v1.build("ses_1", history);
    expect(built.messages).toHaveLength(4);
    expect(String(built.messages[3]!.parts[0]!.text)).toBe(correctionText("undeclared-tool"));
    expect((await v1.build("ses_1", history)).messages).toHaveLength(3);
  });
});

describe("V1 fix: the wake re-checks the plugin's state after the lookup", () => {
  test("a dispose after the wake was sent changes nothing; a later idle of the disposed plugin sends nothing", async () => {
    const v1 = await startV1({ providers: ["deepseek"] });
    await v1.build("ses_1", [userMsg("ses_1", "msg_u1", "clean up")]);
    await v1.answer("ses_1", "msg_u1", UNDECLARED);
    await v1.idle("ses_1");
    expect(v1.wakes).toEqual([{ sessionID: "ses_1", text: wakeText() }]);
    await v1.hooks.dispose!();
    await v1.answer("ses_1", "msg_u1", UNDECLARED);
    await v1.idle("ses_1");
    expect(v1.wakes).toHaveLength(1);
  });
});

describe("V1 fix: a replayed wake spends from the message it was for", () => {
  const compactionUser = (id: string): Msg => ({ info: { role: "user", id, sessionID: "ses_1", model: { providerID: DEEPSEEK.providerID, modelID: DEEPSEEK.id } }, parts: [{ type: "compaction", auto: true, overflow: true }] });
  const compacting = (v1: Awaited<ReturnType<typeof startV1>>) =>
    v1.hooks["experimental.session.compacting"]!({ sessionID: "ses_1" } as never, { context: [], prompt: undefined } as never);

  test("without a compaction, a user who types \"Continue.\" themselves after a woken turn has their own wake", async () => {
    const v1 = await startV1({ providers: ["deepseek"] });
    const u1 = userMsg("ses_1", "msg_u1", "clean up");
    await v1.build("ses_1", [u1]);
    await v1.answer("ses_1", "msg_u1", UNDECLARED);
    await v1.idle("ses_1");
    const a1 = assistantMsg("ses_1", "msg_a1", "msg_u1", UNDECLARED);
    const w1 = userMsg("ses_1", "msg_w1", wakeText());
    await v1.build("ses_1", [u1, a1, w1]);
    await v1.answer("ses_1", "msg_w1", "Cleaned.");
    const u2 = userMsg("ses_1", "msg_u2", wakeText());
    await v1.build("ses_1", [u1, a1, w1, assistantMsg("ses_1", "msg_a2", "msg_w1", "Cleaned."), u2]);
    await v1.answer("ses_1", "msg_u2", UNDECLARED);
    await v1.idle("ses_1");
    expect(v1.wakes).toHaveLength(2);
  });

  test("a compaction after the user's own message (not a woken turn): their \"Continue.\" after it has its own wake", async () => {
    const v1 = await startV1({ providers: ["deepseek"] });
    const u1 = userMsg("ses_1", "msg_u1", "clean up");
    await v1.build("ses_1", [u1]);
    await v1.answer("ses_1", "msg_u1", "Cleaned.");
    await compacting(v1);
    await v1.build("ses_1", [u1, assistantMsg("ses_1", "msg_a1", "msg_u1", "Cleaned.")]);
    const u2 = userMsg("ses_1", "msg_u2", wakeText());
    await v1.build("ses_1", [compactionUser("msg_c1"), u2]);
    await v1.answer("ses_1", "msg_u2", UNDECLARED);
    await v1.idle("ses_1");
    expect(v1.wakes).toEqual([{ sessionID: "ses_1", text: wakeText() }]);
  });

  test("after the replay, the user's next message has its own budget: its leak gets its correction and one wake", async () => {
    const v1 = await startV1({ providers: ["deepseek"] });
    const u1 = userMsg("ses_1", "msg_u1", "clean up");
    await v1.build("ses_1", [u1]);
    await v1.answer("ses_1", "msg_u1", UNDECLARED);
    await v1.idle("ses_1");
    const a1 = assistantMsg("ses_1", "msg_a1", "msg_u1", UNDECLARED);
    await v1.build("ses_1", [u1, a1, userMsg("ses_1", "msg_w1", wakeText())]);
    await compacting(v1);
    await v1.build("ses_1", [u1, a1]);
    const head = [compactionUser("msg_c1"), userMsg("ses_1", "msg_w1r", wakeText())];
    await v1.build("ses_1", head);
    await v1.answer("ses_1", "msg_w1r", "Cleaned.");
    const u2 = userMsg("ses_1", "msg_u2", "now the build dir");
    const replied = [...head, assistantMsg("ses_1", "msg_a2", "msg_w1r", "Cleaned."), u2];
    await v1.build("ses_1", replied);
    await v1.answer("ses_1", "msg_u2", TRUNCATED);
    await v1.idle("ses_1");
    expect(v1.wakes).toHaveLength(2);
    const woken = await v1.build("ses_1", [...replied, assistantMsg("ses_1", "msg_a3", "msg_u2", TRUNCATED), userMsg("ses_1", "msg_w2", wakeText())]);
    expect(woken.system).toEqual([correctionText("truncated-call")]);
  });
});

describe("V1 fix: a summary head without a user message", () => {
  test("the next real request carries the correction once, the one after it nothing", async () => {
    const v1 = await startV1({ providers: ["deepseek"] });
    const u1 = userMsg("ses_1", "msg_u1", "clean up");
    await v1.build("ses_1", [u1]);
    await v1.answer("ses_1", "msg_u1", UNDECLARED);
    await v1.hooks["experimental.session.compacting"]!({ sessionID: "ses_1" } as never, { context: [], prompt: undefined } as never);
    expect((await v1.build("ses_1", [assistantMsg("ses_1", "msg_a0", "msg_u0", "Ran the tests.")])).system).toEqual([]);
    const history = [u1, assistantMsg("ses_1", "msg_a1", "msg_u1", UNDECLARED), userMsg("ses_1", "msg_u2", "go on")];
    expect((await v1.build("ses_1", history)).system).toEqual([correctionText("undeclared-tool")]);
    expect((await v1.build("ses_1", history)).system).toEqual([]);
  });

  test("an assistant-only build with no compaction announced changes nothing: the correction still goes", async () => {
    const v1 = await startV1({ providers: ["deepseek"] });
    const u1 = userMsg("ses_1", "msg_u1", "clean up");
    await v1.build("ses_1", [u1]);
    await v1.answer("ses_1", "msg_u1", UNDECLARED);
    await v1.build("ses_1", [assistantMsg("ses_1", "msg_a0", "msg_u0", "Ran the tests.")]);
    const next = await v1.build("ses_1", [u1, assistantMsg("ses_1", "msg_a1", "msg_u1", UNDECLARED), userMsg("ses_1", "msg_u2", "go on")]);
    expect(next.system).toEqual([correctionText("undeclared-tool")]);
  });
});
