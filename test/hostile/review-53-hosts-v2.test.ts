/**
 * Hostile review 53: the OpenCode 2 entry's correction (src/plugin/v2/setup.ts context hook,
 * src/plugin/v2/context-hook.ts lastUserTurn/turnsIn, src/retry/state.ts takeCorrection) when the
 * host's messages carry no ids (V2Message.id is optional, host-types.ts G): turns are then named
 * by position ("user-1", "user-2", ...), and a message the user edited (OpenCode reverts and sends
 * again) gets the very same name as the message it replaced.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, spyOn, test } from "bun:test";
import path from "node:path";
import { correctionText } from "../../src/retry/state.ts";
import type { V2Context, V2Message, V2ModelRef } from "../../src/plugin/v2/host-types.ts";
import { live } from "../golden/notation.ts";
import { callsIn, pathOf, requestBody, startFakeWires, type FakeWires, type Wire } from "../v2/fake-wires.ts";
import { loadLikeV2, StandInHost } from "../v2/stand-in-host.ts";

const ROOT = path.resolve(import.meta.dir, "../..");
const TRUNCATED = live(`Checking.\n<{D}invoke name="bash">\n<{D}parameter name="command" string="true">git st`);
const DEEPSEEK: V2ModelRef = { providerID: "deepseek", id: "deepseek-chat" };

let upstream: FakeWires;
let script: (wire: Wire, body: any) => string = () => "Done.";
let errorSpy: ReturnType<typeof spyOn>;
beforeAll(async () => {
  upstream = await startFakeWires((wire, body) => script(wire, body));
});
afterAll(() => upstream.close());
beforeEach(() => {
  script = () => "Done.";
  errorSpy = spyOn(console, "error").mockImplementation(() => undefined);
});
afterEach(() => errorSpy.mockRestore());

/** Messages as a host that gives no ids hands them. */
const user = (text: string): V2Message => ({ role: "user", content: [{ type: "text", text }] });
const assistant = (text: string): V2Message => ({ role: "assistant", content: [{ type: "text", text }] });

async function v2(options: unknown, shape: (ctx: V2Context) => V2Context = (ctx) => ctx) {
  const { definition } = await loadLikeV2(ROOT);
  const host = new StandInHost();
  const cleanup = (await definition.setup!(shape(host.context(options)))) as (() => Promise<void>) | undefined;
  return { host, cleanup: cleanup! };
}

async function reply(host: StandInHost, sessionID: string, text: string) {
  script = () => text;
  const response = await host.nativeFetch(sessionID, DEEPSEEK)(`${upstream.baseURL}${pathOf("chat")}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(requestBody("chat", "go", true)),
  });
  return callsIn("chat", response);
}

const OPTIONS = { providers: ["deepseek"] };

describe("V2, messages without ids: a message edited after a leak", () => {
  // FINDING (severity: a correction sent with the wrong message, as review-50-hosts-v2's edit
  // finding, which its fix closed for messages WITH ids only; src/plugin/v2/context-hook.ts
  // lastUserTurn names an id-less turn by its position, so src/retry/state.ts #noteTurn sees the
  // same turn and takeCorrection's inHistory("user-1") is true).
  // Minimal input: context [user "clean up"] -> the reply leaks a cut-off bash call (no call,
  // "truncated-call"); the user edits the message: the next context is [user "clean up /tmp only,
  // and do not run anything"], no ids.
  // Expected: no correction ("Your last reply ... was cut off ... call it again" about a reply that
  // is no longer in the conversation pushes the model to redo a call the user threw away).
  // Suggested signal: the turn's text (lastUserTurn already reads it) differs from the one seen.
  // Fixed: an id-less user message is named by its position AND a digest of its content
  // (context-hook.ts turnName: `user-<position>-<digest>`), so the edited message is another turn,
  // the broken reply's turn is not in the history and takeCorrection drops the correction.
  test("the edited first message (same position, other text) carries no correction", async () => {
    const { host, cleanup } = await v2(OPTIONS);
    await host.buildContext("ses_1", DEEPSEEK, [user("clean up")]);
    expect((await reply(host, "ses_1", TRUNCATED)).calls).toEqual([]);
    const edited = await host.buildContext("ses_1", DEEPSEEK, [user("clean up /tmp only, and do not run anything")]);
    expect(edited.system).toEqual([]);
    await cleanup();
  });

  test("user channel: the edited message gets no synthetic correction turn either", async () => {
    const { host, cleanup } = await v2({ ...OPTIONS, retry: { channel: "user" } });
    await host.buildContext("ses_1", DEEPSEEK, [user("clean up")]);
    await reply(host, "ses_1", TRUNCATED);
    const edited = await host.buildContext("ses_1", DEEPSEEK, [user("clean up /tmp only, and do not run anything")]);
    expect(edited.messages).toHaveLength(1);
    await cleanup();
  });

  test("hard negative: no edit, the next id-less message carries the correction once", async () => {
    const { host, cleanup } = await v2(OPTIONS);
    await host.buildContext("ses_1", DEEPSEEK, [user("clean up")]);
    await reply(host, "ses_1", TRUNCATED);
    const history = [user("clean up"), assistant(TRUNCATED), user("what now?")];
    expect((await host.buildContext("ses_1", DEEPSEEK, history)).system.map((s) => s.text)).toEqual([correctionText("truncated-call")]);
    expect((await host.buildContext("ses_1", DEEPSEEK, history)).system).toEqual([]);
    await cleanup();
  });

  test("hard negative: the same id-less request built again (a host retry) takes nothing a second time", async () => {
    const { host, cleanup } = await v2(OPTIONS);
    await host.buildContext("ses_1", DEEPSEEK, [user("clean up")]);
    await reply(host, "ses_1", TRUNCATED);
    const history = [user("clean up"), assistant(TRUNCATED), user("go on")];
    const first = await host.buildContext("ses_1", DEEPSEEK, history);
    const again = await host.buildContext("ses_1", DEEPSEEK, history);
    expect(first.system.map((s) => s.text)).toEqual([correctionText("truncated-call")]);
    expect(again.system).toEqual([]);
    await cleanup();
  });

  test("a compaction that shortened the history: a new message on the broken turn's old position carries no correction", async () => {
    // The reply that leaked answered the second message; after a compaction the history holds a
    // summary and the user's new message, which lands on position 2 again. By position alone it
    // was the broken turn, still "in history"; with ids the old message is simply gone.
    const { host, cleanup } = await v2(OPTIONS);
    await host.buildContext("ses_1", DEEPSEEK, [user("hello"), assistant("Hi."), user("clean up")]);
    await reply(host, "ses_1", TRUNCATED);
    const compacted = await host.buildContext("ses_1", DEEPSEEK, [user("Summary: the user asked to clean up."), assistant("Noted."), user("what now?")]);
    expect(compacted.system).toEqual([]);
    await cleanup();
  });

  test("an attachment swapped under the same text is another message too", async () => {
    const file = (data: string): V2Message => ({ role: "user", content: [{ type: "text", text: "look at this" }, { type: "file", mediaType: "image/png", data }] });
    const { host, cleanup } = await v2(OPTIONS);
    await host.buildContext("ses_1", DEEPSEEK, [file("aGVsbG8=")]);
    await reply(host, "ses_1", TRUNCATED);
    expect((await host.buildContext("ses_1", DEEPSEEK, [file("d29ybGQ=")])).system).toEqual([]);
    await cleanup();
  });

  test("hard negative: options the host moves between requests (a cache mark) leave the turn the same", async () => {
    const { host, cleanup } = await v2(OPTIONS);
    const marked: V2Message = { role: "user", content: [{ type: "text", text: "clean up", providerOptions: { anthropic: { cacheControl: { type: "ephemeral" } } } }] };
    await host.buildContext("ses_1", DEEPSEEK, [marked]);
    await reply(host, "ses_1", TRUNCATED);
    const history = [user("clean up"), assistant(TRUNCATED), user("what now?")];
    expect((await host.buildContext("ses_1", DEEPSEEK, history)).system.map((s) => s.text)).toEqual([correctionText("truncated-call")]);
    await cleanup();
  });

  test("two equal id-less messages are two turns (the position still counts): the later one edited carries no correction", async () => {
    const { host, cleanup } = await v2(OPTIONS);
    await host.buildContext("ses_1", DEEPSEEK, [user("go on"), assistant("Step one."), user("go on")]);
    await reply(host, "ses_1", TRUNCATED);
    // The user edited the second "go on" away: only the first is left, which is not the broken turn.
    expect((await host.buildContext("ses_1", DEEPSEEK, [user("go on"), assistant("Step one."), user("stop here")])).system).toEqual([]);
    await cleanup();
  });

  test("hard negative: with ids, the same edit carries no correction (the rule the finding asks for)", async () => {
    const { host, cleanup } = await v2(OPTIONS);
    await host.buildContext("ses_1", DEEPSEEK, [{ ...user("clean up"), id: "msg_u1" }]);
    await reply(host, "ses_1", TRUNCATED);
    const edited = await host.buildContext("ses_1", DEEPSEEK, [{ ...user("clean up /tmp only, and do not run anything"), id: "msg_u1b" }]);
    expect(edited.system).toEqual([]);
    await cleanup();
  });
});
