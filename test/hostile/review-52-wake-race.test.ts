/**
 * Hostile review 52 (wake race): the idle wake must be for the latest reply only. Once the user
 * wrote again, no wake.
 *
 * FINDING 1 (1.18 entry): a user message created while onIdle awaits its session lookup is not seen.
 *   What is wrong: src/plugin/index.ts hands `session.idle` to RetryController.onIdle, which awaits
 *   mayWake (client.session.get) before takeWake/promptAsync. The ledger refuses a wake once a newer
 *   turn was BUILT (messages.transform), but a user message the host CREATED in that window (its
 *   `message.updated` / `message.part.updated` events) is not seen: the event hook reads only
 *   `session.*` events. OpenCode queues a prompt sent while the session is busy, so the wake lands
 *   after "two" was answered, telling the model to continue (or redo a broken call of) an exchange
 *   the user moved on from.
 *   Severity: between a wrong execution and a missed nudge: an unrequested turn that may redo an old,
 *   broken call (a wrong execution when it does).
 *   Minimal input: a reply with an undeclared tool's call (UNDECLARED_LEAK), `session.idle`, and
 *   while GET /session/{id} is pending: `message.updated` {role "user", id "msg_two"} then
 *   `message.part.updated` {type "text", text "two"}.
 *   Suspected source: src/plugin/index.ts (event hook), src/plugin/retry-controller.ts onIdle,
 *   src/retry/state.ts wakeDue/takeWake.
 *   Expected: no wake.
 *   Fixed: the event hook notes every user message the host creates (RetryLedger.noteUserMessage /
 *   noteUserText); wakeDue (read again by takeWake after the lookup) refuses a wake when the latest
 *   user message is not the broken reply's turn, unless its text is a wake of ours still awaited.
 *
 * FINDING 2 (V2 entry): the same window in src/plugin/v2/setup.ts wakeWhenIdle: after `wait`
 *   resolved, onIdle awaits session.get; an execution the user's new prompt started in that window
 *   (`session.execution.started`) is not seen, and the wake is sent with delivery "queue" behind it.
 *   Fixed: an execution seen starting after the session went idle stops the wake (the `live` check
 *   onIdle reads after every await).
 *
 * Shapes: @opencode-ai/sdk 1.18.33 `EventMessageUpdated` ({ info: Message }), `EventMessagePartUpdated`
 * ({ part: Part }); OpenCode 1.18 creates a user message with message.updated first, then one
 * message.part.updated per part. V2 shapes: src/plugin/v2/host-types.ts.
 */
import { afterAll, afterEach, beforeAll, describe, expect, spyOn, test } from "bun:test";
import path from "node:path";
import { server } from "../../src/plugin/index.ts";
import type { V2Context, V2Message, V2ModelRef } from "../../src/plugin/v2/host-types.ts";
import { block, live } from "../golden/notation.ts";
import { leakScope, UNDECLARED_LEAK, wireReply } from "../support/wire-leak.ts";
import { callsIn, pathOf, requestBody, startFakeWires, type FakeWires } from "../v2/fake-wires.ts";
import { loadLikeV2, StandInHost } from "../v2/stand-in-host.ts";

const SERVE = ["/usr/bin/bun", "/$bunfs/root/src/index.js", "serve"];
const savedArgv = process.argv;
afterEach(() => {
  process.argv = savedArgv;
});

function deferred<T>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

/** The 1.18 plugin over a fake client whose GET /session/{id} answers only when the test says. */
async function startV1(options: Record<string, unknown> = { providers: ["*"] }) {
  const wakes: string[] = [];
  let lookup = deferred<void>();
  let lookups = 0;
  let reply = UNDECLARED_LEAK;
  const client = {
    app: { log: async () => undefined },
    session: {
      promptAsync: async ({ body }: { body: { parts: { text: string }[] } }) => void wakes.push(body.parts[0]!.text),
      get: async ({ path: p }: { path: { id: string } }) => {
        lookups++;
        await lookup.promise;
        return { data: { id: p.id, projectID: "prj_1", directory: "/tmp/p", title: "t" } };
      },
      message: async () => ({ error: { name: "NotFoundError" } }),
    },
  };
  process.argv = SERVE;
  const scope = leakScope(() => reply);
  const hooks = await server({ client } as never, options, scope);
  process.argv = savedArgv;
  const event = (event: unknown) => hooks.event!({ event } as never);
  const model = { providerID: "deepseek", modelID: "deepseek-chat" };
  /** OpenCode 1.18 creating a user message: message.updated, then its text part. */
  const userMessage = async (sessionID: string, id: string, text: string | null, extra: Record<string, unknown> = {}) => {
    await event({ type: "message.updated", properties: { info: { id, sessionID, role: "user", time: { created: 1 }, agent: "build", model, ...extra } } });
    if (text !== null) await event({ type: "message.part.updated", properties: { part: { id: `prt_${id}`, sessionID, messageID: id, type: "text", text } } });
  };
  /** The request of `turn` being built (messages.transform), its history the turns so far. */
  const history: unknown[] = [];
  const build = async (sessionID: string, turn: string, text: string) => {
    history.push({ info: { role: "user", id: turn, sessionID, model }, parts: [{ type: "text", text }] });
    await hooks["experimental.chat.messages.transform"]!({} as never, { messages: [...history] } as never);
  };
  /** The model's reply to `turn`, through the plugin's wire repair; `text` defaults to the leak. */
  const answer = async (sessionID: string, turn: string, text = UNDECLARED_LEAK) => {
    reply = text;
    const seen = await wireReply(hooks, scope, sessionID, turn);
    history.push({ info: { role: "assistant", id: `${turn}_reply`, sessionID, parentID: turn, ...model }, parts: [{ type: "text", text: seen }] });
  };
  /** session.idle, with the lookup held open while `during` runs; resolves once onIdle finished. */
  const idleWith = async (sessionID: string, during: () => Promise<void> = async () => undefined) => {
    lookup = deferred<void>();
    const before = lookups;
    const idle = event({ type: "session.idle", properties: { sessionID } });
    await settle();
    const held = lookups > before;
    await during();
    lookup.resolve();
    await idle;
    return held;
  };
  return { wakes, event, userMessage, build, answer, idleWith };
}

async function settle() {
  for (let i = 0; i < 5; i++) await Promise.resolve();
  await new Promise((resolve) => setTimeout(resolve, 0));
}

/** One exchange whose reply leaked: the user's message, its request, the reply. */
async function leakedExchange(h: Awaited<ReturnType<typeof startV1>>, sessionID: string, turn: string, text: string) {
  await h.userMessage(sessionID, turn, text);
  await h.build(sessionID, turn, text);
  await h.answer(sessionID, turn);
}

describe("finding 1 (1.18): a user message created while onIdle's lookup is pending stops the wake", () => {
  test("message.updated (role user) and its text part during the lookup: no wake", async () => {
    const h = await startV1();
    await leakedExchange(h, "ses_1", "msg_one", "one");
    expect(await h.idleWith("ses_1", () => h.userMessage("ses_1", "msg_two", "two"))).toBe(true);
    expect(h.wakes).toEqual([]);
  });

  test("message.updated alone (its text part not yet seen): no wake, a user message of unknown text counts", async () => {
    const h = await startV1();
    await leakedExchange(h, "ses_1", "msg_one", "one");
    await h.idleWith("ses_1", () => h.userMessage("ses_1", "msg_two", null));
    expect(h.wakes).toEqual([]);
  });

  test("a user who types the wake's own text during the lookup is still a user: no wake", async () => {
    const h = await startV1();
    await leakedExchange(h, "ses_1", "msg_one", "one");
    await h.idleWith("ses_1", () => h.userMessage("ses_1", "msg_two", "Continue."));
    expect(h.wakes).toEqual([]);
  });

  test("a user message created before idle whose request was not built yet: no wake either", async () => {
    const h = await startV1();
    await leakedExchange(h, "ses_1", "msg_one", "one");
    await h.userMessage("ses_1", "msg_two", "two");
    await h.idleWith("ses_1");
    expect(h.wakes).toEqual([]);
  });
});

describe("hard negatives (1.18): the wake still goes where it is due", () => {
  test("no user message during the lookup: the one wake goes out", async () => {
    const h = await startV1();
    await leakedExchange(h, "ses_1", "msg_one", "one");
    expect(await h.idleWith("ses_1")).toBe(true);
    expect(h.wakes).toEqual(["Continue."]);
  });

  test("an update of the broken turn's own message (its summary), an assistant message, another session's user: still woken", async () => {
    const h = await startV1();
    await leakedExchange(h, "ses_1", "msg_one", "one");
    await h.idleWith("ses_1", async () => {
      await h.userMessage("ses_1", "msg_one", null, { summary: { diffs: [] } });
      await h.event({ type: "message.updated", properties: { info: { id: "msg_one_reply", sessionID: "ses_1", role: "assistant", parentID: "msg_one" } } });
      await h.event({ type: "message.part.updated", properties: { part: { id: "prt_x", sessionID: "ses_1", messageID: "msg_one_reply", type: "text", text: "two" } } });
      await h.userMessage("ses_2", "msg_other", "two");
    });
    expect(h.wakes).toEqual(["Continue."]);
  });

  test("events that cannot be read are ignored: the wake still goes out, nothing throws", async () => {
    const h = await startV1();
    await leakedExchange(h, "ses_1", "msg_one", "one");
    await h.idleWith("ses_1", async () => {
      for (const properties of [undefined, null, {}, { info: null }, { info: { role: "user" } }, { info: { role: "user", id: 7, sessionID: "ses_1" } }, { part: null }, { part: { type: "text" } }]) {
        await h.event({ type: "message.updated", properties });
        await h.event({ type: "message.part.updated", properties });
      }
    });
    expect(h.wakes).toEqual(["Continue."]);
  });

  test("a second leak in a later message gets its own wake, after the first wake's own turn", async () => {
    const h = await startV1();
    await leakedExchange(h, "ses_1", "msg_one", "one");
    await h.idleWith("ses_1");
    expect(h.wakes).toEqual(["Continue."]);
    // The wake's own turn (created by OpenCode from our promptAsync), answered without markup.
    await h.userMessage("ses_1", "msg_wake", "Continue.");
    await h.build("ses_1", "msg_wake", "Continue.");
    await h.answer("ses_1", "msg_wake", "Done.");
    await h.idleWith("ses_1");
    expect(h.wakes).toEqual(["Continue."]);
    // The user writes again; that reply leaks too: it is owed its own wake.
    await leakedExchange(h, "ses_1", "msg_three", "three");
    await h.idleWith("ses_1");
    expect(h.wakes).toEqual(["Continue.", "Continue."]);
  });

  test("the wake's own message arriving during a later lookup of the same leak never earns a second wake", async () => {
    const h = await startV1();
    await leakedExchange(h, "ses_1", "msg_one", "one");
    await h.idleWith("ses_1");
    await h.idleWith("ses_1", () => h.userMessage("ses_1", "msg_wake", "Continue."));
    expect(h.wakes).toEqual(["Continue."]);
  });
});

// ---- V2 entry (finding 2) ----

const ROOT = path.resolve(import.meta.dir, "../..");
const UNDECLARED = live(`Cleaning up.\n\n${block("tool_calls", [["wipe_disk", [["path", "/"]]]])}`);
const DEEPSEEK: V2ModelRef = { providerID: "deepseek", id: "deepseek-chat" };
const user = (id: string, text: string): V2Message => ({ id, role: "user", content: [{ type: "text", text }] });

let upstream: FakeWires;
let errorSpy: ReturnType<typeof spyOn> | undefined;
beforeAll(async () => {
  upstream = await startFakeWires(() => UNDECLARED);
});
afterAll(() => upstream.close());

async function v2Host() {
  errorSpy ??= spyOn(console, "error").mockImplementation(() => undefined);
  const { definition } = await loadLikeV2(ROOT);
  const host = new StandInHost();
  let lookup = deferred<void>();
  const held: string[] = [];
  const shape = (ctx: V2Context): V2Context => ({
    ...ctx,
    session: {
      ...ctx.session,
      get: async (input) => {
        held.push(input.sessionID);
        await lookup.promise;
        return ctx.session.get!(input);
      },
    },
  });
  await definition.setup!(shape(host.context({ providers: ["deepseek"] })));
  const leak = async (sessionID: string, turn: string) => {
    await host.startExecution(sessionID);
    await host.buildContext(sessionID, DEEPSEEK, [user(turn, "clean up")]);
    const response = await host.nativeFetch(sessionID, DEEPSEEK)(`${upstream.baseURL}${pathOf("chat")}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(requestBody("chat", "clean up", true)) });
    expect((await callsIn("chat", response)).calls).toEqual([]);
  };
  /** The execution ends and the session goes idle; `during` runs while the session lookup is held. */
  const endWith = async (sessionID: string, during: () => Promise<void> = async () => undefined) => {
    lookup = deferred<void>();
    await host.endExecution(sessionID, { type: "succeeded" });
    await settle();
    expect(held.at(-1)).toBe(sessionID);
    await during();
    lookup.resolve();
    await settle();
  };
  return { host, leak, endWith };
}

describe("finding 2 (V2): an execution the user started while the wake's lookup is pending stops the wake", () => {
  test("session.execution.started during the lookup: no wake queued behind the user's turn", async () => {
    const { host, leak, endWith } = await v2Host();
    await leak("ses_1", "msg_u1");
    await endWith("ses_1", () => host.startExecution("ses_1"));
    expect(host.prompts).toEqual([]);
  });

  test("hard negative: no execution started during the lookup, the wake goes out", async () => {
    const { host, leak, endWith } = await v2Host();
    await leak("ses_1", "msg_u1");
    await endWith("ses_1");
    expect(host.prompts.map((p) => ({ text: p.text, delivery: p.delivery }))).toEqual([{ text: "Continue.", delivery: "queue" }]);
  });

  test("hard negative: another session's execution during the lookup leaves the wake due", async () => {
    const { host, leak, endWith } = await v2Host();
    await leak("ses_1", "msg_u1");
    await endWith("ses_1", () => host.startExecution("ses_2"));
    expect(host.prompts.map((p) => p.sessionID)).toEqual(["ses_1"]);
  });

  test("hard negative: a later leak of the same session, after the user's turn, gets its own wake", async () => {
    const { host, leak, endWith } = await v2Host();
    await leak("ses_1", "msg_u1");
    await endWith("ses_1", () => host.startExecution("ses_1"));
    const before = host.prompts.length;
    // The user's turn (its execution already started) leaks too.
    await host.buildContext("ses_1", DEEPSEEK, [user("msg_u2", "two")]);
    const response = await host.nativeFetch("ses_1", DEEPSEEK)(`${upstream.baseURL}${pathOf("chat")}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(requestBody("chat", "two", true)) });
    expect((await callsIn("chat", response)).calls).toEqual([]);
    await endWith("ses_1");
    expect(host.prompts.slice(before).map((p) => p.text)).toEqual(["Continue."]);
  });
});
