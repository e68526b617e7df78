/**
 * Where the 1.18 entry's idle wake must not go (review: plugin, findings 1 and 3): a sub-agent's
 * session (the `task` tool's child, `parentID` set on GET /session/{id}) is never woken, a lookup
 * that fails sends no wake, and a `session.error` whose error is `MessageAbortedError` (the user
 * stopped the model) drops the pending leak. Shapes from @opencode-ai/sdk 1.18.33 (`Session`,
 * `EventSessionError`); the end-to-end counterparts are in test/e2e/plugin-retry.test.ts.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { server } from "../../src/plugin/index.ts";
import { subAgentCheck } from "../../src/plugin/session-kind.ts";
import { leakScope, UNDECLARED_LEAK, wireReply } from "../support/wire-leak.ts";

/** Not a one-shot `opencode run`, which never wakes (test/plugin/one-shot.test.ts). */
const SERVE = ["/usr/bin/bun", "/$bunfs/root/src/index.js", "serve"];

const savedArgv = process.argv;
afterEach(() => {
  process.argv = savedArgv;
});

/** The plugin over a fake in-process client; `session` answers GET /session/{id} as 1.18.33 does. */
async function start(session: (id: string) => Promise<unknown>, options: Record<string, unknown> = { providers: ["*"] }) {
  const wakes: { sessionID: string; text: string }[] = [];
  const reads: string[] = [];
  const client = {
    app: { log: async () => undefined },
    session: {
      promptAsync: async ({ path: p, body }: { path: { id: string }; body: { parts: { text: string }[] } }) => void wakes.push({ sessionID: p.id, text: body.parts[0]!.text }),
      get: async ({ path: p }: { path: { id: string } }) => (reads.push(p.id), session(p.id)),
      message: async ({ path: p }: { path: { id: string; messageID: string } }) => ({
        data: { info: { id: p.messageID, role: "assistant", parentID: `${p.id}_u1`, providerID: "deepseek", modelID: "deepseek-chat" }, parts: [] },
      }),
    },
  };
  process.argv = SERVE;
  const scope = leakScope();
  const hooks = await server({ client } as never, options, scope);
  process.argv = savedArgv;
  /**
   * One reply of the session's first user message whose text leaked a call of an undeclared tool,
   * on the wire route (the repair keeps it visible and schedules the correction and wake; the text
   * fallback never does: src/plugin/fallback.ts). 
   */
  const leak = async (sessionID: string, _messageID = "msg_a1", _repaired = true) => {
    // Kept visible either way: an undeclared tool's call never runs, and with responseFix off it is not read.
    expect(await wireReply(hooks, scope, sessionID, `${sessionID}_u1`)).toBe(UNDECLARED_LEAK);
  };
  const event = (event: unknown) => hooks.event!({ event } as never);
  const idle = (sessionID: string) => event({ type: "session.idle", properties: { sessionID } });
  /**
   * The system text the next request of `sessionID` (for user message `turn`) carries. Its history
   * holds the first exchange, as OpenCode's does: a correction goes only with a history that still
   * holds the reply it corrects (review 50, hosts).
   */
  const nextSystem = async (sessionID: string, turn: string) => {
    const model = { providerID: "deepseek", modelID: "deepseek-chat" };
    const first = { info: { role: "user", id: `${sessionID}_u1`, sessionID, model }, parts: [{ type: "text", text: "go" }] };
    const reply = { info: { role: "assistant", id: `${sessionID}_a1`, sessionID, parentID: `${sessionID}_u1`, ...model }, parts: [{ type: "text", text: "Cleaning up." }] };
    const user = { info: { role: "user", id: turn, sessionID, model }, parts: [{ type: "text", text: "next" }] };
    await hooks["experimental.chat.messages.transform"]!({} as never, { messages: [first, reply, user] } as never);
    const output = { system: [] as string[] };
    await hooks["experimental.chat.system.transform"]!({ sessionID } as never, output as never);
    return output.system;
  };
  return { wakes, reads, leak, event, idle, nextSystem };
}

const sessionInfo = (id: string, parentID?: string) => ({ data: { id, projectID: "prj_1", directory: "/tmp/p", title: "t", ...(parentID ? { parentID } : {}) } });

describe("the idle wake asks OpenCode whether the session is a sub-agent's", () => {
  test("a session with a parentID (the task tool's child) is never woken; the parent session is", async () => {
    const h = await start(async (id) => sessionInfo(id, id === "ses_child" ? "ses_parent" : undefined));
    await h.leak("ses_child");
    await h.idle("ses_child");
    // Forgotten: a later idle asks nothing and wakes nothing.
    await h.idle("ses_child");
    expect(h.wakes).toEqual([]);
    expect(h.reads).toEqual(["ses_child"]);
    await h.leak("ses_parent");
    await h.idle("ses_parent");
    expect(h.wakes).toEqual([{ sessionID: "ses_parent", text: "Continue." }]);
  });

  test("no lookup while no wake is due; one lookup per session, however often it leaks", async () => {
    const h = await start(async (id) => sessionInfo(id, "ses_parent"));
    await h.idle("ses_child");
    expect(h.reads).toEqual([]);
    await h.leak("ses_child", "msg_a1");
    await h.idle("ses_child");
    await h.leak("ses_child", "msg_a2");
    await h.idle("ses_child");
    expect(h.reads).toEqual(["ses_child"]);
    expect(h.wakes).toEqual([]);
  });

  test("fail safe: a lookup that throws, answers an error, or another session sends no wake", async () => {
    for (const answer of [
      async () => {
        throw new Error("down");
      },
      async () => ({ error: { name: "NotFoundError" } }),
      async () => ({ data: { id: "ses_other", projectID: "prj_1" } }),
      async () => ({ data: { id: "ses_1", parentID: 42 } }),
    ]) {
      const h = await start(answer);
      await h.leak("ses_1");
      await h.idle("ses_1");
      expect(h.wakes).toEqual([]);
    }
  });
});

describe("the user aborts: nothing restarts the model behind their back", () => {
  test("session.error with MessageAbortedError drops the pending leak: no wake on idle", async () => {
    const h = await start(async (id) => sessionInfo(id));
    await h.leak("ses_1");
    await h.event({ type: "session.error", properties: { sessionID: "ses_1", error: { name: "MessageAbortedError", data: { message: "The operation was aborted." } } } });
    await h.idle("ses_1");
    expect(h.wakes).toEqual([]);
  });

  test("another session error, or an abort of another session, leaves the wake due", async () => {
    const h = await start(async (id) => sessionInfo(id));
    await h.leak("ses_1");
    await h.event({ type: "session.error", properties: { sessionID: "ses_1", error: { name: "APIError", data: { message: "overloaded", isRetryable: true } } } });
    await h.event({ type: "session.error", properties: { sessionID: "ses_2", error: { name: "MessageAbortedError", data: { message: "aborted" } } } });
    await h.event({ type: "session.error", properties: { error: { name: "MessageAbortedError", data: { message: "aborted" } } } });
    await h.idle("ses_1");
    expect(h.wakes).toEqual([{ sessionID: "ses_1", text: "Continue." }]);
  });
});

describe("responseFix.enabled false: what the start-up line says is what happens (review: plugin, finding 6)", () => {
  test("a leaked reply is left as written and unread: no correction on the next request, no wake", async () => {
    const h = await start(async (id) => sessionInfo(id), { providers: ["*"], responseFix: { enabled: false } });
    await h.leak("ses_1", "msg_a1", false);
    await h.idle("ses_1");
    expect(await h.nextSystem("ses_1", "msg_u2")).toEqual([]);
    expect(h.wakes).toEqual([]);
    // The control: with the repair on, the same reply gets its correction.
    const on = await start(async (id) => sessionInfo(id));
    await on.leak("ses_1");
    expect((await on.nextSystem("ses_1", "msg_u2")).length).toBe(1);
  });
});

describe("subAgentCheck", () => {
  test("reads each session once; an unreadable answer is asked again", async () => {
    const answers: unknown[] = [undefined, { id: "ses_1" }];
    let reads = 0;
    const check = subAgentCheck(async () => answers[reads++]);
    expect(await check("ses_1")).toBe("unknown");
    expect(await check("ses_1")).toBe("wake");
    expect(await check("ses_1")).toBe("wake");
    expect(reads).toBe(2);
  });
});
