/**
 * Helpers for hostile reviews 50 and 53 (review-50-hosts-v1, review-53-hosts-v1): the OpenCode 1.18
 * entry started over a fake in-process client and a fake upstream, with stored messages in 1.18's shapes.
 */
import { afterEach } from "bun:test";
import { server } from "../../src/plugin/index.ts";
import { correctionText } from "../../src/retry/state.ts";
import { block, live } from "../golden/notation.ts";
import { assemble, deltas, openAiTools, sseText, type Json } from "../security/support.ts";

/** Not a one-shot `opencode run`, which never wakes (src/plugin/one-shot.ts). */
export const SERVE = ["/usr/bin/bun", "/$bunfs/root/src/index.js", "serve"];
const savedArgv = process.argv;
afterEach(() => {
  process.argv = savedArgv;
});

/** A call of a tool no request declares: never run, an "undeclared-tool" correction, one wake. */
export const UNDECLARED = live(`Cleaning up.\n\n${block("tool_calls", [["wipe_disk", [["path", "/"]]]])}`);
/** A bash call cut off mid-value: never run, a "truncated-call" correction. */
export const TRUNCATED = live(`Checking.\n<{D}invoke name="bash">\n<{D}parameter name="command" string="true">git st`);
export const DEEPSEEK = { providerID: "deepseek", id: "deepseek-chat", api: { id: "deepseek-chat", npm: "@ai-sdk/openai-compatible" } };
const CHAT_URL = "https://api.deepseek.com/v1/chat/completions";

type Scope = { fetch: typeof fetch; [key: symbol]: unknown };
export type Msg = { info: Record<string, unknown>; parts: Record<string, unknown>[] };

interface StartOpts {
  /** GET /session/{id}; default: a primary session. */
  get?: (id: string) => Promise<unknown>;
  /** What promptAsync answers after recording the wake; default: undefined. */
  prompt?: () => Promise<unknown>;
}

/** The 1.18 plugin over a fake in-process client and a fake upstream that answers with `reply`. */
export async function startV1(options: unknown, { get, prompt }: StartOpts = {}) {
  let reply = UNDECLARED;
  const wakes: { sessionID: string; text: string }[] = [];
  const lines: string[] = [];
  const upstream = async () => new Response(sseText(deltas(reply, 7)), { status: 200, headers: { "content-type": "text/event-stream" } });
  const scope = { fetch: Object.assign(upstream, { preconnect: () => undefined }) as unknown as typeof fetch } as Scope;
  const client = {
    app: { log: async ({ body }: { body: { message: string } }) => void lines.push(body.message) },
    tui: { showToast: async () => undefined },
    session: {
      promptAsync: async ({ path: p, body }: { path: { id: string }; body: { parts: { text: string }[] } }) => {
        wakes.push({ sessionID: p.id, text: body.parts[0]!.text });
        return prompt?.();
      },
      get: async ({ path: p }: { path: { id: string } }) => (get ? get(p.id) : { data: { id: p.id, projectID: "prj_1", directory: "/tmp/p", title: "t" } }),
      message: async () => ({ error: { name: "NotFoundError" } }),
    },
  };
  process.argv = SERVE;
  const hooks = await server({ client } as never, options as never, scope);
  process.argv = savedArgv;

  /** One model request of `turn` in `sessionID`, answered with `text`; the reply as OpenCode reads it. */
  const answer = async (sessionID: string, turn: string, text: string) => {
    reply = text;
    const output = { headers: {} as Record<string, string> };
    await hooks["chat.headers"]!({ sessionID, agent: "build", provider: { id: "deepseek" }, model: DEEPSEEK, message: { id: turn } } as never, output as never);
    const body: Json = { model: "deepseek-chat", stream: true, messages: [{ role: "user", content: "go" }], tools: openAiTools() };
    const response = await scope.fetch(CHAT_URL, { method: "POST", headers: { "content-type": "application/json", ...output.headers }, body: JSON.stringify(body) });
    return assemble(await response.text());
  };

  /**
   * One model request of `sessionID` for user message `turn` by `agent`, answered with `text`, as
   * LLM.stream sends it: chat.headers, system.transform, then the fetch. The host's own agents
   * (title, compaction) send no tools.
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

  /**
   * The next request of `sessionID` as 1.18 builds it: messages.transform over `history` (the
   * session's stored messages, as OpenCode loads them), then system.transform.
   */
  const build = async (sessionID: string, history: Msg[]) => {
    const messages = structuredClone(history);
    await hooks["experimental.chat.messages.transform"]!({} as never, { messages } as never);
    const system = { system: [] as string[] };
    await hooks["experimental.chat.system.transform"]!({ sessionID, model: DEEPSEEK } as never, system as never);
    return { system: system.system, messages };
  };

  const event = (type: string, properties: Record<string, unknown>) => hooks.event!({ event: { type, properties } } as never);
  const idle = (sessionID: string) => event("session.idle", { sessionID });
  return { hooks, wakes, lines, answer, request, build, event, idle };
}

/** A stored user message (OpenCode 1.18 `UserMessage` with one text part, then `extra` parts). */
export function userMsg(sessionID: string, id: string, text: string, extra: Record<string, unknown>[] = []): Msg {
  return { info: { role: "user", id, sessionID, model: { providerID: DEEPSEEK.providerID, modelID: DEEPSEEK.id } }, parts: [{ type: "text", id: `${id}_p`, sessionID, messageID: id, text }, ...extra] };
}

/** A stored assistant message answering `parentID`: one step with one text part; `extra` joins its info. */
export function assistantMsg(sessionID: string, id: string, parentID: string, text: string, extra: Record<string, unknown> = {}): Msg {
  return {
    info: { role: "assistant", id, sessionID, parentID, providerID: DEEPSEEK.providerID, modelID: DEEPSEEK.id, ...extra },
    parts: [
      { type: "step-start", id: `${id}_s`, sessionID, messageID: id },
      { type: "text", id: `${id}_t`, sessionID, messageID: id, text },
      { type: "step-finish", id: `${id}_f`, sessionID, messageID: id },
    ],
  };
}

/** Every correction text the plugin can send, to find one anywhere in a request. */
const CORRECTIONS = (["broken-markup", "undeclared-tool", "truncated-call", "invalid-arguments", "unexecuted-call"] as const).map((r) => correctionText(r));
export const carriesCorrection = (built: { system: string[]; messages: Msg[] }) =>
  [...built.system, ...built.messages.flatMap((m) => m.parts.map((p) => String(p.text ?? "")))].some((text) => CORRECTIONS.some((c) => text.includes(c)));
