/**
 * Hostile review 50: the retry and history layers of the OpenCode 2 entry (src/plugin/v2/setup.ts,
 * context-hook.ts) under the stand-in 2.x host (test/v2/stand-in-host.ts): a message edited
 * (reverted and sent again), cleanup while the idle wake is being decided, several sessions at
 * once, sub-agents, aborts, and the context hook given reasoning, tool-call and tool-result parts.
 * The findings were marked `test.failing` (they failed on main at the time of writing); each is
 * fixed now and says how on its "Fixed:" line. The others are hard negatives that must keep passing.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, spyOn, test } from "bun:test";
import path from "node:path";
import { correctionText, wakeText } from "../../src/retry/state.ts";
import type { V2Context, V2Message, V2ModelRef } from "../../src/plugin/v2/host-types.ts";
import { block, live } from "../golden/notation.ts";
import { callsIn, pathOf, requestBody, startFakeWires, type FakeWires, type Wire } from "../v2/fake-wires.ts";
import { loadLikeV2, StandInHost } from "../v2/stand-in-host.ts";

const ROOT = path.resolve(import.meta.dir, "../..");
const UNDECLARED = live(`Cleaning up.\n\n${block("tool_calls", [["wipe_disk", [["path", "/"]]]])}`);
const TRUNCATED = live(`Checking.\n<{D}invoke name="bash">\n<{D}parameter name="command" string="true">git st`);
const LEAK = live(`Let me check.\n\n${block("tool_calls", [["bash", [["command", "npm test"]]]])}`);
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

const user = (id: string, text: string): V2Message => ({ id, role: "user", content: [{ type: "text", text }] });
const assistant = (id: string, text: string): V2Message => ({ id, role: "assistant", content: [{ type: "text", text }] });

/** The plugin set up on a new stand-in host; `shape` may change the context first. */
async function v2(options: unknown, shape: (ctx: V2Context) => V2Context = (ctx) => ctx) {
  const { definition } = await loadLikeV2(ROOT);
  const host = new StandInHost();
  const cleanup = (await definition.setup!(shape(host.context(options)))) as (() => Promise<void>) | undefined;
  return { host, cleanup: cleanup! };
}

/** One model request of `sessionID` through the HTTP hooks, answered with `reply`. */
async function reply(host: StandInHost, sessionID: string, text: string) {
  script = () => text;
  const response = await host.nativeFetch(sessionID, DEEPSEEK)(`${upstream.baseURL}${pathOf("chat")}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(requestBody("chat", "go", true)),
  });
  return callsIn("chat", response);
}

const CORRECTIONS = (["broken-markup", "undeclared-tool", "truncated-call", "invalid-arguments"] as const).map((r) => correctionText(r));
function carriesCorrection(context: { system: { text: string }[]; messages: V2Message[] }): boolean {
  const texts = [...context.system.map((s) => s.text), ...context.messages.flatMap((m) => m.content.map((p) => String(p.text ?? "")))];
  return texts.some((text) => CORRECTIONS.some((c) => text.includes(c)));
}

describe("V2: a message edited (reverted and sent again) after a leak", () => {
  // FINDING (severity: a correction sent with the wrong message; src/plugin/v2/setup.ts context
  // hook -> RetryController.takeCorrectionFor, src/retry/state.ts takeCorrection). Same defect as
  // on 1.18 (review-50-hosts-v1, confirmed on the real 1.18.33 in review-50-hosts-e2e): the reply
  // to msg_u1 leaked, its wake's turn leaked again (wake spent, correction pending); the user then
  // edits msg_u1, so the next context holds the edited message alone, and gets "Your last reply
  // ... was cut off ... call it again" about a reply that is no longer in the conversation.
  // Expected: no correction when the corrected reply's turn (msg_w1) is not among the messages.
  // Fixed: a pending correction goes only with a request whose history still holds the reply it
  // corrects or the user message that reply answered (src/retry/state.ts takeCorrection, given the
  // history by messages.transform / the V2 context hook); otherwise it is dropped, not kept.
  test("the edited message's context (no earlier reply in it) carries no correction", async () => {
    const { host, cleanup } = await v2({ providers: ["deepseek"] });
    const u1 = user("msg_u1", "clean up the temp files");
    await host.buildContext("ses_1", DEEPSEEK, [u1]);
    await reply(host, "ses_1", UNDECLARED);
    await host.goIdle("ses_1");
    expect(host.prompts.map((p) => p.text)).toEqual([wakeText()]);
    const w1 = user("msg_w1", wakeText());
    const woken = await host.buildContext("ses_1", DEEPSEEK, [u1, assistant("msg_a1", UNDECLARED), w1]);
    expect(woken.system.map((s) => s.text)).toEqual([correctionText("undeclared-tool")]);
    await reply(host, "ses_1", TRUNCATED);
    await host.goIdle("ses_1");
    expect(host.prompts).toHaveLength(1);
    const edited = await host.buildContext("ses_1", DEEPSEEK, [user("msg_u1b", "clean up the temp files, but only in /tmp")]);
    expect(carriesCorrection(edited)).toBe(false);
    await cleanup();
  });

  test("hard negative: no edit, the user's next message carries the woken turn's correction once", async () => {
    const { host, cleanup } = await v2({ providers: ["deepseek"] });
    const u1 = user("msg_u1", "clean up");
    await host.buildContext("ses_1", DEEPSEEK, [u1]);
    await reply(host, "ses_1", TRUNCATED);
    const history = [u1, assistant("msg_a1", TRUNCATED), user("msg_u2", "what now?")];
    const next = await host.buildContext("ses_1", DEEPSEEK, history);
    expect(next.system.map((s) => s.text)).toEqual([correctionText("truncated-call")]);
    expect((await host.buildContext("ses_1", DEEPSEEK, history)).system).toEqual([]);
    await cleanup();
  });
});

describe("V2 fix: a correction goes only with a context that holds its reply (hard negatives)", () => {
  test("after an edit dropped the old correction, the edited message's own leak gets its one correction and one wake", async () => {
    const { host, cleanup } = await v2({ providers: ["deepseek"] });
    await host.buildContext("ses_1", DEEPSEEK, [user("msg_u1", "clean up")]);
    await reply(host, "ses_1", TRUNCATED);
    const edited = user("msg_u1b", "clean up /tmp only");
    expect((await host.buildContext("ses_1", DEEPSEEK, [edited])).system).toEqual([]);
    await reply(host, "ses_1", UNDECLARED);
    await host.goIdle("ses_1");
    expect(host.prompts.map((p) => p.text)).toEqual([wakeText()]);
    const history = [edited, assistant("msg_a1b", UNDECLARED), user("msg_w1", wakeText())];
    expect((await host.buildContext("ses_1", DEEPSEEK, history)).system.map((s) => s.text)).toEqual([correctionText("undeclared-tool")]);
    expect((await host.buildContext("ses_1", DEEPSEEK, history)).system).toEqual([]);
    await cleanup();
  });

  test("messages without ids (turns named by position): the reply still in the context is corrected", async () => {
    const { host, cleanup } = await v2({ providers: ["deepseek"] });
    const first: V2Message = { role: "user", content: [{ type: "text", text: "clean up" }] };
    await host.buildContext("ses_1", DEEPSEEK, [first]);
    await reply(host, "ses_1", UNDECLARED);
    const next = await host.buildContext("ses_1", DEEPSEEK, [first, { role: "assistant", content: [{ type: "text", text: UNDECLARED }] }, { role: "user", content: [{ type: "text", text: "go on" }] }]);
    expect(next.system.map((s) => s.text)).toEqual([correctionText("undeclared-tool")]);
    await cleanup();
  });
});

describe("V2: cleanup while the idle wake is being decided", () => {
  // FINDING (severity: a wake sent by a plugin the host already disposed; src/plugin/v2/setup.ts
  // wakeWhenIdle -> RetryController.onIdle). The fix for review 48 checks `disposed` when
  // `session.wait` resolves and before `session.get` (the sub-agent check); a cleanup that lands
  // while `session.get` is pending is not seen, and the disposed instance still queues
  // "Continue." into the session (the user may have just removed the plugin or turned the wake
  // off, which is what a reload with new options is). Minimal input: leak, idle with
  // `session.get` held, cleanup, `session.get` answers. Expected: no prompt after cleanup.
  // Fixed: wakeWhenIdle hands RetryController.onIdle the host's side (`!disposed`), read again
  // after the session.get await (and `retry.enabled` with it), before anything is queued.
  test("cleanup while session.get is pending: no wake is queued", async () => {
    let answer!: () => void;
    const held = new Promise<void>((resolve) => (answer = resolve));
    const { host, cleanup } = await v2({ providers: ["deepseek"] }, (ctx) => {
      const get = ctx.session.get!;
      return { ...ctx, session: { ...ctx.session, get: async (input) => (await held, get(input)) } };
    });
    await host.buildContext("ses_1", DEEPSEEK, [user("msg_u1", "clean up")]);
    await reply(host, "ses_1", UNDECLARED);
    await host.goIdle("ses_1");
    await cleanup();
    answer();
    await host.goIdle("ses_1");
    expect(host.prompts).toEqual([]);
  });

  test("hard negative: the same held lookup without cleanup queues exactly one wake (the finding can fail)", async () => {
    let answer!: () => void;
    const held = new Promise<void>((resolve) => (answer = resolve));
    const { host, cleanup } = await v2({ providers: ["deepseek"] }, (ctx) => {
      const get = ctx.session.get!;
      return { ...ctx, session: { ...ctx.session, get: async (input) => (await held, get(input)) } };
    });
    await host.buildContext("ses_1", DEEPSEEK, [user("msg_u1", "clean up")]);
    await reply(host, "ses_1", UNDECLARED);
    await host.goIdle("ses_1");
    answer();
    await host.goIdle("ses_1");
    expect(host.prompts).toEqual([{ sessionID: "ses_1", text: wakeText(), delivery: "queue" }]);
    await cleanup();
  });
});

describe("V2: several sessions at once (hard negatives)", () => {
  test("two sessions leak with interleaved contexts, replies and idles: one wake each, each with its own correction (user channel)", async () => {
    const { host, cleanup } = await v2({ providers: ["deepseek"], retry: { channel: "user" } });
    await host.buildContext("ses_a", DEEPSEEK, [user("msg_a", "clean a")]);
    await host.buildContext("ses_b", DEEPSEEK, [user("msg_b", "check b")]);
    await reply(host, "ses_a", UNDECLARED);
    await reply(host, "ses_b", TRUNCATED);
    await host.goIdle("ses_b");
    await host.goIdle("ses_a");
    await host.goIdle("ses_b");
    expect(host.prompts.map((p) => [p.sessionID, p.text])).toEqual([
      ["ses_b", correctionText("truncated-call")],
      ["ses_a", correctionText("undeclared-tool")],
    ]);
    await cleanup();
  });

  test("a leak in a sub-agent's session: the child is never woken, and the parent's next context carries nothing", async () => {
    const { host, cleanup } = await v2({ providers: ["deepseek"] });
    host.parents.set("ses_child", "ses_parent");
    await host.buildContext("ses_parent", DEEPSEEK, [user("msg_p1", "delegate")]);
    await host.buildContext("ses_child", DEEPSEEK, [user("msg_c1", "the sub task")]);
    await reply(host, "ses_child", UNDECLARED);
    await host.goIdle("ses_child");
    expect(host.prompts).toEqual([]);
    const parent = await host.buildContext("ses_parent", DEEPSEEK, [user("msg_p1", "delegate")]);
    expect(carriesCorrection(parent)).toBe(false);
    await cleanup();
  });

  test("a user abort in one session leaves the other's wake due", async () => {
    const { host, cleanup } = await v2({ providers: ["deepseek"] });
    await host.startExecution("ses_a");
    await host.startExecution("ses_b");
    await host.buildContext("ses_a", DEEPSEEK, [user("msg_a", "clean a")]);
    await host.buildContext("ses_b", DEEPSEEK, [user("msg_b", "check b")]);
    await reply(host, "ses_a", UNDECLARED);
    await reply(host, "ses_b", UNDECLARED);
    await host.endExecution("ses_a", { type: "interrupted", reason: "user" });
    await host.endExecution("ses_b", { type: "succeeded" });
    expect(host.prompts.map((p) => p.sessionID)).toEqual(["ses_b"]);
    expect((await host.buildContext("ses_a", DEEPSEEK, [user("msg_a2", "stop")])).system).toEqual([]);
    await cleanup();
  });
});

describe("V2: the context hook given reasoning, tool-call and tool-result parts (hard negatives)", () => {
  test("only assistant text is rewritten: reasoning, a tool call's input and a tool result holding markup stay as they are, and none becomes a call", async () => {
    const { host, cleanup } = await v2({ providers: ["deepseek"] });
    const toolResult: V2Message = { role: "tool", content: [{ type: "tool-result", toolCallId: "c1", toolName: "read", result: LEAK }] };
    const turn: V2Message = {
      id: "msg_a1",
      role: "assistant",
      content: [
        { type: "reasoning", text: LEAK },
        { type: "tool-call", toolCallId: "c1", toolName: "read", input: { filePath: "notes.md" } },
      ],
    };
    const answer = assistant("msg_a2", `The file says:\n\n${LEAK}`);
    const messages = [user("msg_u1", "read notes.md"), turn, toolResult, answer, user("msg_u2", "and?")];
    const before = structuredClone(messages);
    const built = await host.buildContext("ses_1", DEEPSEEK, messages);
    expect(built.messages[1]).toEqual(before[1]!);
    expect(built.messages[2]).toEqual(before[2]!);
    expect(built.messages[4]).toEqual(before[4]!);
    const text = String(built.messages[3]!.content[0]!.text);
    // The prose is kept; whatever the note policy for a quote, the markup is not replayed live.
    expect(text.startsWith("The file says:")).toBe(true);
    expect(text).not.toContain(live("<{D}invoke"));
    // The history holds no new tool-call part anywhere.
    expect(built.messages.flatMap((m) => m.content).filter((p) => p.type === "tool-call")).toHaveLength(1);
    await cleanup();
  });

  test("history.sanitize false: the replayed leak goes as written (and still no correction from history alone)", async () => {
    const { host, cleanup } = await v2({ providers: ["deepseek"], history: { sanitize: false } });
    const messages = [user("msg_u1", "go"), assistant("msg_a1", LEAK), user("msg_u2", "and?")];
    const built = await host.buildContext("ses_1", DEEPSEEK, structuredClone(messages));
    expect(built.messages).toEqual(messages);
    expect(built.system).toEqual([]);
    await cleanup();
  });
});
