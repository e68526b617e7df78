/**
 * Review 45 (hosts), finding 6 on the 1.18 plugin: the system-channel correction is kept for a
 * host retry of its request (system.transform again), but goes to no other model's request and
 * to no later request. And OpenCode 1.18's compaction summary (announced by
 * experimental.session.compacting, then built by messages.transform with an empty input and sent
 * through system.transform with the session's id, as 1.18.33's compaction code does) neither takes
 * nor passes over the correction: the request after it carries it.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { server } from "../../src/plugin/index.ts";
import { correctionText } from "../../src/retry/state.ts";
import { block, live } from "../golden/notation.ts";
import { deltas, openAiTools, sseText } from "../security/support.ts";

const UNDECLARED = live(`Cleaning up.\n\n${block("tool_calls", [["wipe_disk", [["path", "/"]]]])}`);
const SERVE = ["/usr/bin/bun", "/$bunfs/root/src/index.js", "serve"];
const savedArgv = process.argv;
afterEach(() => {
  process.argv = savedArgv;
});

async function leaked(retry: Record<string, unknown> = { enabled: false }) {
  const client = { app: { log: async () => undefined }, session: { promptAsync: async () => undefined } };
  const upstream = async () => new Response(sseText(deltas(UNDECLARED, 7)), { status: 200, headers: { "content-type": "text/event-stream" } });
  const scope = { fetch: Object.assign(upstream, { preconnect: () => undefined }) as unknown as typeof fetch } as { fetch: typeof fetch; [key: symbol]: unknown };
  process.argv = SERVE;
  const hooks = await server({ client } as never, { providers: ["deepseek"], retry }, scope);
  process.argv = savedArgv;
  const model = { providerID: "deepseek", modelID: "deepseek-chat" };
  /**
   * Builds the request for `turn`; after the first, its history holds the first exchange (msg_u1
   * and its reply), as OpenCode's does: a correction goes only with a history that still holds the
   * reply it corrects (review 50, hosts). Returns how many messages the request has beyond it.
   */
  const messagesFor = async (turn: string) => {
    const earlier =
      turn === "msg_u1"
        ? []
        : [
            { info: { role: "user", id: "msg_u1", sessionID: "ses_1", model }, parts: [{ type: "text", text: "msg_u1" }] },
            { info: { role: "assistant", id: "msg_a1", sessionID: "ses_1", parentID: "msg_u1", ...model }, parts: [{ type: "text", text: "Cleaning up." }] },
          ];
    const messages = [...earlier, { info: { role: "user", id: turn, sessionID: "ses_1", model }, parts: [{ type: "text", text: turn }] }];
    await hooks["experimental.chat.messages.transform"]!({} as never, { messages } as never);
    return messages.length - earlier.length;
  };
  const compacting = () => hooks["experimental.session.compacting"]!({ sessionID: "ses_1" }, { context: [] });
  const system = async (providerID = "deepseek", id = "deepseek-chat") => {
    const output = { system: [] as string[] };
    await hooks["experimental.chat.system.transform"]!({ sessionID: "ses_1", model: { id, providerID } } as never, output as never);
    return output.system;
  };
  await messagesFor("msg_u1");
  const headers = { headers: {} as Record<string, string> };
  await hooks["chat.headers"]!({ sessionID: "ses_1", agent: "build", provider: { id: "deepseek" }, model: { id: "deepseek-chat", providerID: "deepseek", api: { id: "deepseek-chat", npm: "@ai-sdk/openai-compatible" } }, message: { id: "msg_u1" } } as never, headers as never);
  const body = JSON.stringify({ model: "deepseek-chat", stream: true, messages: [{ role: "user", content: "go" }], tools: openAiTools() });
  await (await scope.fetch("https://model.example/v1/chat/completions", { method: "POST", headers: { "content-type": "application/json", ...headers.headers }, body })).text();
  return { messagesFor, system, compacting };
}

describe("V1: the system correction and the requests it may go with", () => {
  test("a host retry carries it again; the next request built does not", async () => {
    const v1 = await leaked();
    await v1.messagesFor("msg_u2");
    expect(await v1.system()).toEqual([correctionText("undeclared-tool")]);
    expect(await v1.system()).toEqual([correctionText("undeclared-tool")]);
    await v1.messagesFor("msg_u2");
    expect(await v1.system()).toEqual([]);
    await v1.messagesFor("msg_u3");
    expect(await v1.system()).toEqual([]);
  });

  test("another model's system.transform (an out-of-scope small model) never carries it, and takes nothing from the primary", async () => {
    const v1 = await leaked();
    await v1.messagesFor("msg_u2");
    expect(await v1.system("openai", "gpt-5-nano")).toEqual([]);
    expect(await v1.system()).toEqual([correctionText("undeclared-tool")]);
  });
});

describe("V1: OpenCode's compaction summary is no request of the model's", () => {
  test("system channel: the summary carries nothing (nor a host retry of it); the request after it carries the correction", async () => {
    const v1 = await leaked();
    await v1.compacting();
    await v1.messagesFor("msg_u1");
    expect(await v1.system()).toEqual([]);
    expect(await v1.system()).toEqual([]);
    await v1.messagesFor("msg_u2");
    expect(await v1.system()).toEqual([correctionText("undeclared-tool")]);
    await v1.messagesFor("msg_u3");
    expect(await v1.system()).toEqual([]);
  });

  test("user channel: the summary's messages get no correction turn; the request after it does, once", async () => {
    const v1 = await leaked({ enabled: false, channel: "user" });
    await v1.compacting();
    expect(await v1.messagesFor("msg_u1")).toBe(1);
    expect(await v1.messagesFor("msg_u2")).toBe(2);
    expect(await v1.messagesFor("msg_u2")).toBe(1);
  });

  test("hard negative: without the announcement the next build takes the correction, and the announcement counts for one build only", async () => {
    const plain = await leaked({ enabled: false, channel: "user" });
    expect(await plain.messagesFor("msg_u1")).toBe(2);
    const once = await leaked({ enabled: false, channel: "user" });
    await once.compacting();
    await once.messagesFor("msg_u1");
    await once.compacting();
    await once.messagesFor("msg_u1");
    expect(await once.messagesFor("msg_u2")).toBe(2);
  });
});
