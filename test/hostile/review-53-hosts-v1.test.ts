/**
 * Hostile review 53: the 1.18 entry's retry (src/plugin/index.ts, retry-controller.ts,
 * src/retry/state.ts) against the host's OWN model requests that share a session with the
 * model's reply: the title request and the compaction summary request.
 *
 * What 1.18.33 does (read from the binary, node_modules/opencode-linux-x64/bin/opencode):
 * - `SessionPrompt.ensureTitle` is forked on step 1 of a session's first user message and calls
 *   `LLM.stream({ agent: <title agent>, user: <that user message>, tools: {}, small: true, ... })`;
 *   LLM.stream triggers `chat.headers` with `{ sessionID, agent: "title", model, provider,
 *   message: <that user message> }` (the bundled copilot/openai plugins test `agent === "title"`
 *   there). So the title request is tagged `<session>/<first user message>`: the very same tag as
 *   the model's reply to that message, and it runs concurrently with it.
 * - `SessionCompaction.process` calls `processor.process({ user: a, agent: <compaction>,
 *   tools: {}, ... })` where `a` is the compaction's parent user message; the summary request goes
 *   through `chat.headers` (agent "compaction") and so through the repairing fetch.
 *
 * The plugin's chat.headers hook never reads `agent`, so both requests are tagged with the turn of
 * the model's reply. Suspected: their clean text reported as that turn's reply would clear the
 * pending leak (RetryLedger.recordReply(turn, null)). Not so: both send no tools, and the fetch
 * adapter reports only requests that declare tools (src/adapters/fetch.ts plan: no tools, not
 * ours). These are hard negatives pinning that: a change that reports tool-less requests (or a
 * host that sends a no-op tool with them) must not let the host's own requests answer a leak.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { server } from "../../src/plugin/index.ts";
import { correctionText, wakeText } from "../../src/retry/state.ts";
import { block, live } from "../golden/notation.ts";
import { assemble, deltas, openAiTools, sseText, type Json } from "../security/support.ts";

const SERVE = ["/usr/bin/bun", "/$bunfs/root/src/index.js", "serve"];
const savedArgv = process.argv;
afterEach(() => {
  process.argv = savedArgv;
});

const UNDECLARED = live(`Cleaning up.\n\n${block("tool_calls", [["wipe_disk", [["path", "/"]]]])}`);
const DEEPSEEK = { providerID: "deepseek", id: "deepseek-chat", api: { id: "deepseek-chat", npm: "@ai-sdk/openai-compatible" } };
const CHAT_URL = "https://api.deepseek.com/v1/chat/completions";
type Msg = { info: Record<string, unknown>; parts: Record<string, unknown>[] };

/** The 1.18 plugin over a fake client and upstream; `request` sends one model request as LLM.stream does. */
async function startV1(options: unknown, host: { get?: (id: string) => Promise<unknown>; prompt?: () => Promise<unknown> } = {}) {
  let reply = "";
  const wakes: { sessionID: string; text: string }[] = [];
  const lines: string[] = [];
  const upstream = async () => new Response(sseText(deltas(reply, 7)), { status: 200, headers: { "content-type": "text/event-stream" } });
  const scope = { fetch: Object.assign(upstream, { preconnect: () => undefined }) as unknown as typeof fetch } as { fetch: typeof fetch; [key: symbol]: unknown };
  const client = {
    app: { log: async ({ body }: { body: { message: string } }) => void lines.push(body.message) },
    tui: { showToast: async () => undefined },
    session: {
      promptAsync: async ({ path: p, body }: { path: { id: string }; body: { parts: { text: string }[] } }) => {
        wakes.push({ sessionID: p.id, text: body.parts[0]!.text });
        return host.prompt?.();
      },
      get: async ({ path: p }: { path: { id: string } }) => (host.get ? host.get(p.id) : { data: { id: p.id, projectID: "prj_1", directory: "/tmp/p", title: "t" } }),
      message: async () => ({ error: { name: "NotFoundError" } }),
    },
  };
  process.argv = SERVE;
  const hooks = await server({ client } as never, options as never, scope);
  process.argv = savedArgv;

  /**
   * One model request of `sessionID` for user message `turn` by `agent`, answered with `text`:
   * chat.headers, system.transform (LLM.stream runs both for every request), then the fetch.
   * The host's own agents (title, compaction) send no tools.
   */
  const request = async (sessionID: string, turn: string, text: string, agent = "build") => {
    reply = text;
    const output = { headers: {} as Record<string, string> };
    await hooks["chat.headers"]!({ sessionID, agent, provider: { id: "deepseek" }, model: DEEPSEEK, message: { id: turn } } as never, output as never);
    await hooks["experimental.chat.system.transform"]!({ sessionID, model: DEEPSEEK } as never, { system: [] } as never);
    const body: Json = { model: "deepseek-chat", stream: true, messages: [{ role: "user", content: "go" }], ...(agent === "build" ? { tools: openAiTools() } : {}) };
    const response = await scope.fetch(CHAT_URL, { method: "POST", headers: { "content-type": "application/json", ...output.headers }, body: JSON.stringify(body) });
    return assemble(await response.text());
  };
  /** The next primary request as 1.18 builds it: messages.transform, then system.transform. */
  const build = async (sessionID: string, history: Msg[]) => {
    const messages = structuredClone(history);
    await hooks["experimental.chat.messages.transform"]!({} as never, { messages } as never);
    const system = { system: [] as string[] };
    await hooks["experimental.chat.system.transform"]!({ sessionID, model: DEEPSEEK } as never, system as never);
    return { system: system.system, messages };
  };
  const idle = (sessionID: string) => hooks.event!({ event: { type: "session.idle", properties: { sessionID } } } as never);
  const event = (type: string, properties: Record<string, unknown>) => hooks.event!({ event: { type, properties } } as never);
  return { hooks, wakes, lines, request, build, idle, event };
}

function userMsg(sessionID: string, id: string, text: string, extra: Record<string, unknown>[] = []): Msg {
  return { info: { role: "user", id, sessionID, model: { providerID: DEEPSEEK.providerID, modelID: DEEPSEEK.id } }, parts: [{ type: "text", id: `${id}_p`, sessionID, messageID: id, text }, ...extra] };
}
function assistantMsg(sessionID: string, id: string, parentID: string, text: string, extra: Record<string, unknown> = {}): Msg {
  return {
    info: { role: "assistant", id, sessionID, parentID, providerID: DEEPSEEK.providerID, modelID: DEEPSEEK.id, ...extra },
    parts: [
      { type: "step-start", id: `${id}_s`, sessionID, messageID: id },
      { type: "text", id: `${id}_t`, sessionID, messageID: id, text },
      { type: "step-finish", id: `${id}_f`, sessionID, messageID: id },
    ],
  };
}

const OPTIONS = { providers: ["deepseek"] };

describe("V1: the title request of the first message shares the reply's tag", () => {
  // Hard negative (suspected finding, disproved): the title request 1.18 forks on the first step
  // (agent "title", message msg_u1, no tools) answering after the leaking reply must not answer the leak.
  test("hard negative: the title answering after the leaking reply: the leak still gets its one wake and its correction", async () => {
    const p = await startV1(OPTIONS);
    const u1 = userMsg("ses_1", "msg_u1", "clean up the temp files");
    await p.build("ses_1", [u1]);
    const leaked = await p.request("ses_1", "msg_u1", UNDECLARED);
    expect(leaked.calls).toEqual([]);
    const title = await p.request("ses_1", "msg_u1", "Temp file cleanup", "title");
    expect(title.content).toBe("Temp file cleanup");
    await p.idle("ses_1");
    expect(p.wakes).toEqual([{ sessionID: "ses_1", text: wakeText() }]);
    const next = await p.build("ses_1", [u1, assistantMsg("ses_1", "msg_a1", "msg_u1", UNDECLARED), userMsg("ses_1", "msg_w1", wakeText())]);
    expect(next.system).toEqual([correctionText("undeclared-tool")]);
  });

  test("hard negative: the title answering before the leaking reply: one wake, then the correction once", async () => {
    const p = await startV1(OPTIONS);
    const u1 = userMsg("ses_1", "msg_u1", "clean up the temp files");
    await p.build("ses_1", [u1]);
    await p.request("ses_1", "msg_u1", "Temp file cleanup", "title");
    await p.request("ses_1", "msg_u1", UNDECLARED);
    await p.idle("ses_1");
    await p.idle("ses_1");
    expect(p.wakes).toEqual([{ sessionID: "ses_1", text: wakeText() }]);
    const history = [u1, assistantMsg("ses_1", "msg_a1", "msg_u1", UNDECLARED), userMsg("ses_1", "msg_w1", wakeText())];
    expect((await p.build("ses_1", history)).system).toEqual([correctionText("undeclared-tool")]);
    expect((await p.build("ses_1", history)).system).toEqual([]);
  });

  test("hard negative: a clean reply of the model itself after the leak does answer it (no wake, no correction)", async () => {
    const p = await startV1(OPTIONS);
    const u1 = userMsg("ses_1", "msg_u1", "clean up the temp files");
    await p.build("ses_1", [u1]);
    await p.request("ses_1", "msg_u1", UNDECLARED);
    await p.request("ses_1", "msg_u1", "Done, nothing to clean.");
    await p.idle("ses_1");
    expect(p.wakes).toEqual([]);
    expect((await p.build("ses_1", [u1, assistantMsg("ses_1", "msg_a1", "msg_u1", "Done."), userMsg("ses_1", "msg_u2", "ok")])).system).toEqual([]);
  });
});

describe("V1: the compaction summary's own response", () => {
  // Hard negative (suspected finding, disproved): 1.18 sends the summary request through chat.headers
  // and the repairing fetch (SessionCompaction.process -> processor.process with `user: <compaction
  // message>`, no tools); its clean text must not answer the leak whose reply the tail kept
  // (RetryController.onCompacting: the summary neither takes nor passes over the correction).
  test("hard negative: a clean summary response does not answer the leak: the next real request still carries the correction", async () => {
    const p = await startV1(OPTIONS);
    const u1 = userMsg("ses_1", "msg_u1", "clean up the temp files");
    const a1 = assistantMsg("ses_1", "msg_a1", "msg_u1", UNDECLARED);
    await p.build("ses_1", [u1]);
    await p.request("ses_1", "msg_u1", UNDECLARED);
    const c1 = userMsg("ses_1", "msg_c1", "", [{ type: "compaction", id: "msg_c1_c", sessionID: "ses_1", messageID: "msg_c1", auto: false }]);
    await p.hooks["experimental.session.compacting"]!({ sessionID: "ses_1" } as never, { context: [], prompt: undefined } as never);
    await p.build("ses_1", [u1]); // the summary head (1.18 structuredClones M.head)
    await p.request("ses_1", "msg_c1", "Summary: the user asked to clean temp files.", "compaction");
    const summary = assistantMsg("ses_1", "msg_s1", "msg_c1", "Summary: the user asked to clean temp files.", { summary: true, mode: "compaction" });
    const next = await p.build("ses_1", [c1, summary, u1, a1, userMsg("ses_1", "msg_u2", "go on")]);
    expect(next.system).toEqual([correctionText("undeclared-tool")]);
  });

  test("hard negative: the same compaction without the summary going through the fetch: correction once", async () => {
    const p = await startV1(OPTIONS);
    const u1 = userMsg("ses_1", "msg_u1", "clean up the temp files");
    const a1 = assistantMsg("ses_1", "msg_a1", "msg_u1", UNDECLARED);
    await p.build("ses_1", [u1]);
    await p.request("ses_1", "msg_u1", UNDECLARED);
    const c1 = userMsg("ses_1", "msg_c1", "", [{ type: "compaction", id: "msg_c1_c", sessionID: "ses_1", messageID: "msg_c1", auto: false }]);
    await p.hooks["experimental.session.compacting"]!({ sessionID: "ses_1" } as never, { context: [], prompt: undefined } as never);
    await p.build("ses_1", [u1]);
    const summary = assistantMsg("ses_1", "msg_s1", "msg_c1", "Summary.", { summary: true, mode: "compaction" });
    const history = [c1, summary, u1, a1, userMsg("ses_1", "msg_u2", "go on")];
    expect((await p.build("ses_1", history)).system).toEqual([correctionText("undeclared-tool")]);
    expect((await p.build("ses_1", history)).system).toEqual([]);
  });
});

describe("V1: the idle wake against a host that aborts or fails (hard negatives)", () => {
  test("the user aborts while the session lookup is held: no wake, and the next request carries no correction", async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const p = await startV1(OPTIONS, { get: async (id) => (await held, { data: { id, projectID: "prj_1", directory: "/tmp/p", title: "t" } }) });
    const u1 = userMsg("ses_1", "msg_u1", "clean up the temp files");
    await p.build("ses_1", [u1]);
    await p.request("ses_1", "msg_u1", UNDECLARED);
    const idle = p.idle("ses_1");
    await p.event("session.error", { sessionID: "ses_1", error: { name: "MessageAbortedError", data: { message: "aborted" } } });
    release();
    await idle;
    await p.idle("ses_1");
    expect(p.wakes).toEqual([]);
    const next = await p.build("ses_1", [u1, assistantMsg("ses_1", "msg_a1", "msg_u1", UNDECLARED), userMsg("ses_1", "msg_u2", "never mind")]);
    expect(next.system).toEqual([]);
  });

  test("a non-abort session.error (the provider failed) leaves the wake due: one wake (documented: a failed execution still gets its wake)", async () => {
    const p = await startV1(OPTIONS);
    await p.build("ses_1", [userMsg("ses_1", "msg_u1", "clean up")]);
    await p.request("ses_1", "msg_u1", UNDECLARED);
    await p.event("session.error", { sessionID: "ses_1", error: { name: "APIError", data: { message: "overloaded" } } });
    await p.idle("ses_1");
    await p.idle("ses_1");
    expect(p.wakes).toEqual([{ sessionID: "ses_1", text: wakeText() }]);
  });

  test("promptAsync rejects: the event hook resolves, one warning, and a second idle sends no second wake", async () => {
    const p = await startV1(OPTIONS, { prompt: async () => Promise.reject(new Error("500 Internal Server Error")) });
    await p.build("ses_1", [userMsg("ses_1", "msg_u1", "clean up")]);
    await p.request("ses_1", "msg_u1", UNDECLARED);
    await expect(p.idle("ses_1")).resolves.toBeUndefined();
    await p.idle("ses_1");
    expect(p.wakes).toHaveLength(1);
    expect(p.lines.filter((line) => line.includes("idle wake"))).toHaveLength(1);
  });

  test("promptAsync resolves with a 500 error body (the SDK does not throw): one wake attempt, never a loop", async () => {
    const p = await startV1(OPTIONS, { prompt: async () => ({ error: { name: "UnknownError" }, response: { status: 500 } }) });
    await p.build("ses_1", [userMsg("ses_1", "msg_u1", "clean up")]);
    await p.request("ses_1", "msg_u1", UNDECLARED);
    for (let i = 0; i < 4; i++) await p.idle("ses_1");
    expect(p.wakes).toHaveLength(1);
  });
});
