/**
 * Hostile review 45, area 1: the 1.18 plugin (V1 `server`, src/plugin/index.ts and its modules),
 * driven as OpenCode 1.18 drives it: chat.headers tags the request, the process fetch repairs it,
 * messages.transform / system.transform build the next request, text.complete sees finished text
 * parts, and the event hook gets session.idle / session.error. Every test named FINDING fails on
 * main at the time of writing; the others are hard negatives (guards that hold, pinned).
 */
import { afterEach, describe, expect, test } from "bun:test";
import plugin, { server } from "../../src/plugin/index.ts";
import { REMOVED_NOTE } from "../../src/history/sanitize.ts";
import { correctionText } from "../../src/retry/state.ts";
import { block, live } from "../golden/notation.ts";
import { assemble, deltas, openAiTools, sseText, type Json } from "../security/support.ts";

const PROSE = "Let me check.\n\n";
const LEAK = live(`${PROSE}${block("tool_calls", [["bash", [["command", "npm test"]]]])}`);
/** A leak naming a tool no request declares: never a call, always a correction (and a wake). */
const UNDECLARED = live(`Cleaning up.\n\n${block("tool_calls", [["wipe_disk", [["path", "/"]]]])}`);
const CHAT_URL = "https://model.example/v1/chat/completions";
/** Not a one-shot `opencode run`, which never wakes (test/plugin/one-shot.test.ts). */
const SERVE = ["/usr/bin/bun", "/$bunfs/root/src/index.js", "serve"];
const savedArgv = process.argv;
afterEach(() => {
  process.argv = savedArgv;
});

type ModelRef = { providerID: string; modelID: string };
const DEEPSEEK: ModelRef = { providerID: "deepseek", modelID: "deepseek-chat" };
const GPT: ModelRef = { providerID: "openai", modelID: "gpt-5" };

/** The 1.18 plugin over a fake in-process client and a fake process fetch (the upstream). */
async function startV1(options: Record<string, unknown>) {
  const wakes: { sessionID: string; text: string }[] = [];
  const lines: string[] = [];
  const toasts: unknown[] = [];
  /** Assistant message -> the user message it answers (GET /session/{id}/message/{messageID}). */
  const parents = new Map<string, { turn: string; model: ModelRef }>();
  let reply = LEAK;
  const client = {
    app: { log: async ({ body }: { body: { message: string } }) => void lines.push(body.message) },
    tui: { showToast: async (request: unknown) => void toasts.push(request) },
    session: {
      promptAsync: async ({ path: p, body }: { path: { id: string }; body: { parts: { text: string }[] } }) => void wakes.push({ sessionID: p.id, text: body.parts[0]!.text }),
      get: async ({ path: p }: { path: { id: string } }) => ({ data: { id: p.id, projectID: "prj_1", directory: "/tmp/p", title: "t" } }),
      message: async ({ path: p }: { path: { id: string; messageID: string } }) => {
        const parent = parents.get(p.messageID);
        if (!parent) return { error: { name: "NotFoundError" } };
        return { data: { info: { id: p.messageID, role: "assistant", parentID: parent.turn, providerID: parent.model.providerID, modelID: parent.model.modelID }, parts: [] } };
      },
    },
  };
  const upstream = async () => new Response(sseText(deltas(reply, 7)), { status: 200, headers: { "content-type": "text/event-stream" } });
  const scope = { fetch: Object.assign(upstream, { preconnect: () => undefined }) as unknown as typeof fetch } as { fetch: typeof fetch; [key: symbol]: unknown };
  process.argv = SERVE;
  const hooks = await server({ client } as never, options, scope);
  process.argv = savedArgv;

  /** One model request of `turn` (a user message): chat.headers, then the provider's fetch. */
  const request = async (sessionID: string, turn: string, text: string, { model = DEEPSEEK, tools = true }: { model?: ModelRef; tools?: boolean } = {}) => {
    reply = text;
    const output = { headers: {} as Record<string, string> };
    const modelInfo = { id: model.modelID, providerID: model.providerID, api: { id: model.modelID, npm: "@ai-sdk/openai-compatible" } };
    await hooks["chat.headers"]!({ sessionID, agent: "build", provider: { id: model.providerID }, model: modelInfo, message: { id: turn } } as never, output as never);
    const body: Json = { model: model.modelID, stream: true, messages: [{ role: "user", content: "go" }], ...(tools ? { tools: openAiTools() } : {}) };
    const response = await scope.fetch(CHAT_URL, { method: "POST", headers: { "content-type": "application/json", ...output.headers }, body: JSON.stringify(body) });
    return assemble(await response.text());
  };
  /** OpenCode stores the reply's text part and hands it to text.complete; returns what it keeps. */
  const complete = async (sessionID: string, assistantID: string, turn: string, text: string, model = DEEPSEEK) => {
    parents.set(assistantID, { turn, model });
    const output = { text };
    await hooks["experimental.text.complete"]!({ sessionID, messageID: assistantID, partID: `${assistantID}_p` } as never, output as never);
    return output.text;
  };
  /** The next request's build: messages.transform then system.transform; returns what it carries. */
  // Each build's history holds the session's earlier user messages, as OpenCode's does: since
  // review 50 (hosts) a correction goes only with a history that still holds the reply it corrects.
  const earlier = new Map<string, { info: { id: string } }[]>();
  const build = async (sessionID: string, turn: string, userText = "next", model = DEEPSEEK, history: unknown[] = []) => {
    const user = { info: { role: "user", id: turn, sessionID, model }, parts: [{ type: "text", text: userText }] };
    const before = (earlier.get(sessionID) ?? []).filter((m) => m.info.id !== turn);
    earlier.set(sessionID, [...before, user]);
    const messages = [...before, ...history, user] as unknown[];
    await hooks["experimental.chat.messages.transform"]!({} as never, { messages } as never);
    const system = { system: [] as string[] };
    await hooks["experimental.chat.system.transform"]!({ sessionID, model: { id: model.modelID, providerID: model.providerID } } as never, system as never);
    return { system: system.system, messages: messages.slice(before.length) };
  };
  const event = (e: unknown) => hooks.event!({ event: e } as never);
  const idle = (sessionID: string) => event({ type: "session.idle", properties: { sessionID } });
  return { hooks, wakes, lines, toasts, request, complete, build, event, idle, scope };
}

describe("V1: the wire route and the text fallback agree on one reply", () => {
  // FINDING (severity: a correction and a wake that must not be sent, plus markup the model wrote
  // replaced where nothing could have run; src/plugin/fallback.ts + src/plugin/index.ts): a
  // request on a wire route (mode "wire", tagged) that declares no tools (an agent with every tool
  // off, a model without tool calling) is passed through by the fetch adapter on purpose: nothing
  // can become a call. The adapter then never announces it (onRepairing fires only for requests
  // with tools), so OpenCode's text hook hands the same reply to the fallback, which treats it as
  // a route the wire could not rewrite: the text is rewritten to the removal note, a correction
  // ("call it again through the tool-calling interface, using only the tools you have been
  // given") is scheduled for a model that has none, and the session is woken with "Continue.".
  test("FINDING: a reply to a tagged request that declared no tools is neither rewritten nor woken by the text fallback", async () => {
    const v1 = await startV1({ providers: ["deepseek"] });
    await v1.build("ses_1", "msg_u1", "show me what a leaked call looks like");
    const wire = await v1.request("ses_1", "msg_u1", LEAK, { tools: false });
    expect(wire.calls).toEqual([]);
    expect(wire.content).toBe(LEAK);
    expect(await v1.complete("ses_1", "msg_a1", "msg_u1", LEAK)).toBe(LEAK);
    await v1.idle("ses_1");
    expect(v1.wakes).toEqual([]);
    expect((await v1.build("ses_1", "msg_u2")).system).toEqual([]);
  });

  test("hard negative: the same reply on a request with tools is one real call, untouched by the fallback, no wake", async () => {
    const v1 = await startV1({ providers: ["deepseek"] });
    await v1.build("ses_1", "msg_u1", "run the tests");
    const wire = await v1.request("ses_1", "msg_u1", LEAK);
    expect(wire.calls.map((c) => c.name)).toEqual(["bash"]);
    expect(await v1.complete("ses_1", "msg_a1", "msg_u1", PROSE)).toBe(PROSE);
    await v1.idle("ses_1");
    expect(v1.wakes).toEqual([]);
  });
});

describe("V1: one correction and at most one wake per user message", () => {
  // Review 48 (retry, finding 3) changed the correction's bound from one per user message to one
  // per leaking reply (counted against the reply it corrects, on the request right after it): the
  // woken turn's own leak is corrected on its re-render, once. The wake stays one per message.
  test("hard negative: two user messages in a row, each with unrepairable replies (the woken turn too): one wake per message, one correction per leaking reply, never twice", async () => {
    const v1 = await startV1({ providers: ["deepseek"] });
    const corrections: string[] = [];
    const build = async (turn: string, text: string) => corrections.push(...(await v1.build("ses_1", turn, text)).system);
    for (const [turn, woken] of [["msg_u1", "msg_w1"], ["msg_u2", "msg_w2"]] as const) {
      await build(turn, "clean up");
      expect((await v1.request("ses_1", turn, UNDECLARED)).calls).toEqual([]);
      await v1.idle("ses_1");
      await v1.idle("ses_1");
      // The wake's own turn; its reply is as broken again, and built twice (a re-render).
      await build(woken, "Continue.");
      expect((await v1.request("ses_1", woken, UNDECLARED)).calls).toEqual([]);
      await v1.idle("ses_1");
      await build(woken, "Continue.");
      await v1.idle("ses_1");
    }
    expect(v1.wakes.map((w) => w.text)).toEqual(["Continue.", "Continue."]);
    // u1's reply (on w1's request), w1's (on its re-render), u2's (on w2's), w2's (on its re-render).
    expect(corrections).toEqual(Array(4).fill(correctionText("undeclared-tool")));
  });

  test("hard negative: the user aborts (MessageAbortedError): no wake, no correction, even with idle twice", async () => {
    const v1 = await startV1({ providers: ["deepseek"] });
    await v1.build("ses_1", "msg_u1", "clean up");
    await v1.request("ses_1", "msg_u1", UNDECLARED);
    await v1.event({ type: "session.error", properties: { sessionID: "ses_1", error: { name: "MessageAbortedError", data: { message: "aborted" } } } });
    await v1.idle("ses_1");
    await v1.idle("ses_1");
    expect(v1.wakes).toEqual([]);
    expect((await v1.build("ses_1", "msg_u2")).system).toEqual([]);
  });

  test("hard negative: the same request built twice (messages.transform re-run) carries the user-channel correction once", async () => {
    const v1 = await startV1({ providers: ["deepseek"], retry: { channel: "user", enabled: false } });
    await v1.build("ses_1", "msg_u1", "clean up");
    await v1.request("ses_1", "msg_u1", UNDECLARED);
    const first = await v1.build("ses_1", "msg_u2", "and?");
    const second = await v1.build("ses_1", "msg_u2", "and?");
    expect(first.messages).toHaveLength(2);
    expect(second.messages).toHaveLength(1);
  });

  // FINDING (severity: low, a correction lost; src/plugin/retry-controller.ts takeSystemText):
  // OpenCode 1.18 retries a request that failed before any answer (429, overloaded) inside the
  // same step: LLM.stream runs again, so system.transform runs again, but messages.transform does
  // not. The system-channel correction was taken by the first (failed) attempt, so the request the
  // model actually answers carries none; on the user channel the retried request keeps it (the
  // messages are reused). The one correction of the message is lost, not sent once.
  test("FINDING: a request retried by the host (system.transform again, no new messages.transform) still carries the system correction", async () => {
    const v1 = await startV1({ providers: ["deepseek"], retry: { enabled: false } });
    await v1.build("ses_1", "msg_u1", "clean up");
    await v1.request("ses_1", "msg_u1", UNDECLARED);
    const first = await v1.build("ses_1", "msg_u2", "and?");
    expect(first.system).toEqual([correctionText("undeclared-tool")]);
    const retried = { system: [] as string[] };
    await v1.hooks["experimental.chat.system.transform"]!({ sessionID: "ses_1", model: { id: "deepseek-chat", providerID: "deepseek" } } as never, retried as never);
    expect(retried.system).toEqual([correctionText("undeclared-tool")]);
  });
});

describe("V1: scope", () => {
  // FINDING (severity: low, a false correction; src/plugin/index.ts messages.transform,
  // src/retry/state.ts): a session whose model the user switched to an out-of-scope one is left
  // alone for that message (right), but its reply is never seen, so the leak of the in-scope reply
  // before it stays pending. When the user switches back, that request is told "Your last reply
  // contained tool-call markup ..." although the last reply (the out-of-scope model's) was clean
  // and the leak is two user messages old.
  test("FINDING: a leak is not corrected two messages later, after a clean reply from an out-of-scope model", async () => {
    const v1 = await startV1({ providers: ["deepseek"], retry: { enabled: false } });
    await v1.build("ses_1", "msg_u1", "clean up");
    await v1.request("ses_1", "msg_u1", UNDECLARED);
    // The user switches to an out-of-scope model: nothing here (right).
    expect((await v1.build("ses_1", "msg_u2", "try with gpt", GPT)).system).toEqual([]);
    await v1.request("ses_1", "msg_u2", "Done, cleanly.", { model: GPT });
    // And back.
    expect((await v1.build("ses_1", "msg_u3", "thanks, back to deepseek")).system).toEqual([]);
  });

  test("hard negative: an out-of-scope provider whose id contains an in-scope one's is not tagged, sanitized or corrected", async () => {
    const v1 = await startV1({ providers: ["deepseek"] });
    for (const providerID of ["deepseek-proxy", "my-deepseek", "DeepSeek", "deepseek "]) {
      const model = { providerID, modelID: "gpt-5" };
      const output = { headers: {} as Record<string, string> };
      await v1.hooks["chat.headers"]!({ sessionID: "ses_1", agent: "build", provider: { id: providerID }, model: { id: "gpt-5", providerID, api: { id: "gpt-5", npm: "@ai-sdk/openai-compatible" } }, message: { id: "msg_u1" } } as never, output as never);
      expect(output.headers).toEqual({});
      const history = [{ info: { role: "assistant", id: "msg_a0", sessionID: "ses_1" }, parts: [{ type: "text", text: LEAK }] }];
      const built = await v1.build("ses_1", "msg_u1", "hi", model, history);
      expect((built.messages[0] as { parts: { text: string }[] }).parts[0]!.text).toBe(LEAK);
    }
  });

  test("hard negative: an in-scope route's history is sanitized before it is replayed", async () => {
    const v1 = await startV1({ providers: ["deepseek"] });
    const history = [{ info: { role: "assistant", id: "msg_a0", sessionID: "ses_1" }, parts: [{ type: "text", text: LEAK }] }];
    const built = await v1.build("ses_1", "msg_u1", "hi", DEEPSEEK, history);
    expect((built.messages[0] as { parts: { text: string }[] }).parts[0]!.text).toBe(`${PROSE}${REMOVED_NOTE}`);
  });
});

describe("V1: a hook never throws into OpenCode", () => {
  // FINDING (severity: thrown error escaping a hook; src/plugin/index.ts `event` and
  // isSessionEvent): the event hook is the one hook not wrapped in `guard`: it reads
  // `input.event.type` synchronously to turn away non-session events cheaply, so an event whose
  // `event` or `type` cannot be read throws synchronously out of the hook (test/plugin/hooks.test.ts
  // pins only `event: null` and a throwing `properties`). Every other hook logs one line instead.
  test("FINDING: an event whose `event` or `type` cannot be read neither throws nor rejects", async () => {
    const lines: string[] = [];
    const client = { app: { log: async ({ body }: { body: { message: string } }) => void lines.push(body.message) }, session: { promptAsync: async () => undefined } };
    const hooks = await plugin.server({ client } as never, { providers: ["*"] });
    const outcome = async (input: unknown) => {
      try {
        await hooks.event!(input as never);
        return "ok";
      } catch (error) {
        return `threw ${(error as Error).message}`;
      }
    };
    expect(await outcome({ get event(): never { throw new Error("secret-value"); } })).toBe("ok");
    expect(await outcome({ event: { get type(): never { throw new Error("secret-value"); } } })).toBe("ok");
  });

  // FINDING (severity: low, thrown error at start-up; src/plugin/index.ts server): the logger is
  // built from `input?.client` (an absent input is expected), but the fallback's
  // `messageLookup(input.client)` then reads `input.client` unguarded, so server() throws a
  // TypeError instead of starting (or giving one clear line) when OpenCode hands no input.
  test("FINDING: server() with no input starts (or returns no hooks) instead of throwing", async () => {
    const errors: unknown[] = [];
    const spy = (await import("bun:test")).spyOn(console, "error").mockImplementation(() => undefined);
    try {
      await plugin.server(undefined as never, {});
    } catch (error) {
      errors.push(error);
    } finally {
      spy.mockRestore();
    }
    expect(errors).toEqual([]);
  });
});
