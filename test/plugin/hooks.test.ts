import { expect, test } from "bun:test";
import plugin from "../../src/plugin/index.ts";

function fakeInput(lines: string[]) {
  const client = {
    app: { log: async ({ body }: { body: { message: string } }) => void lines.push(body.message) },
    session: { promptAsync: async () => undefined },
  };
  return { client } as unknown as Parameters<typeof plugin.server>[0];
}

test("a hook given input it cannot read logs one line and never throws into OpenCode", async () => {
  const lines: string[] = [];
  const hooks = await plugin.server(fakeInput(lines), { providers: ["*"] });
  const hostile = { get messages(): never { throw new Error("secret-value"); } };
  await expect(hooks["experimental.chat.messages.transform"]!({}, hostile as never)).resolves.toBeUndefined();
  await expect(hooks["chat.headers"]!(null as never, null as never)).resolves.toBeUndefined();
  await expect(hooks["experimental.chat.system.transform"]!({ sessionID: "s" } as never, null as never)).resolves.toBeUndefined();
  await expect(hooks.config!(null as never)).resolves.toBeUndefined();
  // An event it cannot read is no session event: turned away without a line. A session event whose
  // properties throw is read, fails, and leaves its one line.
  await expect(hooks.event!({ event: null } as never)).resolves.toBeUndefined();
  await expect(hooks.event!({ event: { type: "session.idle", get properties(): never { throw new Error("secret-value"); } } } as never)).resolves.toBeUndefined();
  expect(lines.length).toBeGreaterThanOrEqual(4);
  for (const line of lines) {
    expect(line).toStartWith("[dsml] ");
    expect(line).not.toContain("secret-value");
  }
});

test("providers [] disables the plugin: no hooks at all", async () => {
  expect(await plugin.server(fakeInput([]), { providers: [] })).toEqual({});
});

test("the request tag goes only on routes the repairing fetch rewrites, and never on a route the native runtime serves (issue 10 item 8, issue 12 item 3)", async () => {
  const lines: string[] = [];
  const hooks = await plugin.server(fakeInput(lines), { debug: true });
  await hooks.config!({} as never);
  const headersFor = async (providerID: string, modelID: string, npm: string) => {
    const output = { headers: {} as Record<string, string> };
    const model = { id: modelID, providerID, api: { id: modelID, npm } };
    await hooks["chat.headers"]!({ sessionID: "ses_1", provider: { id: providerID }, model, message: { id: "msg_1" } } as never, output as never);
    return output.headers;
  };
  const tagged = await headersFor("fireworks-ai", "accounts/fireworks/models/deepseek-v3p2", "@ai-sdk/openai-compatible");
  expect(Object.keys(tagged)).toEqual(["x-dsml-fix-tag"]);
  expect(tagged["x-dsml-fix-tag"]).toEndWith(" ses_1/msg_1");
  // Not a leak-prone family under the default scope.
  expect(await headersFor("openai", "gpt-5.4", "@ai-sdk/openai")).toEqual({});
  // In scope, but a signed or unknown wire: the tag could not be removed before it is sent.
  expect(await headersFor("amazon-bedrock", "deepseek.v3-v1:0", "@ai-sdk/amazon-bedrock")).toEqual({});
  const previous = process.env.OPENCODE_EXPERIMENTAL_NATIVE_LLM;
  process.env.OPENCODE_EXPERIMENTAL_NATIVE_LLM = "1";
  try {
    // OpenCode serves opencode* natively under the flag: its requests bypass the AI SDK.
    expect(await headersFor("opencode-go", "deepseek-v4", "@ai-sdk/openai-compatible")).toEqual({});
    // Every other provider still runs through the AI SDK and the repairing fetch.
    expect(Object.keys(await headersFor("fireworks-ai", "accounts/fireworks/models/deepseek-v3p2", "@ai-sdk/openai-compatible"))).toEqual(["x-dsml-fix-tag"]);
  } finally {
    if (previous === undefined) delete process.env.OPENCODE_EXPERIMENTAL_NATIVE_LLM;
    else process.env.OPENCODE_EXPERIMENTAL_NATIVE_LLM = previous;
  }
  await Promise.resolve();
  expect(lines.filter((l) => l.startsWith("[dsml] route "))).toEqual([
    "[dsml] route fireworks-ai/accounts/fireworks/models/deepseek-v3p2 package=@ai-sdk/openai-compatible mode=wire",
    "[dsml] route openai/gpt-5.4 package=@ai-sdk/openai mode=off",
    "[dsml] route amazon-bedrock/deepseek.v3-v1:0 package=@ai-sdk/amazon-bedrock mode=fallback",
    "[dsml] route opencode-go/deepseek-v4 package=@ai-sdk/openai-compatible mode=fallback",
  ]);
});

test("the start-up line is logged at info level without debug, and [] says the plugin is disabled", async () => {
  const logged: { level: string; message: string }[] = [];
  const input = {
    client: { app: { log: async ({ body }: { body: { level: string; message: string } }) => void logged.push(body) }, session: { promptAsync: async () => undefined } },
  } as unknown as Parameters<typeof plugin.server>[0];
  const hooks = await plugin.server(input, {});
  await hooks.config!({ provider: { fireworks: { npm: "@ai-sdk/openai-compatible" } } } as never);
  // Another load (a new input): the same input would be the plugin listed twice, and [] would then
  // stand aside with the "listed more than once" warning (off stays off) instead of this line.
  await plugin.server({ ...input }, { providers: [] });
  await Promise.resolve();
  expect(logged.map((l) => `${l.level} ${l.message.replace(/v[0-9][^:]*:/, "vX:")}`)).toEqual([
    "info [dsml] loaded vX: wired every provider (leak-prone models); not wired: none",
    "info [dsml] loaded vX: disabled (providers is [])",
  ]);
});

test("the event hook turns away every non-session event (a part delta per streamed token) without setting up any async work", async () => {
  const lines: string[] = [];
  const hooks = await plugin.server(fakeInput(lines), { providers: ["*"] });
  const delta = { event: { type: "message.part.delta", properties: { sessionID: "s", delta: "x" } } } as never;
  const updated = { event: { type: "message.part.updated", properties: {} } } as never;
  // One settled promise for all of them: no async function ran, so none was made.
  const first = hooks.event!(delta);
  expect(hooks.event!(delta)).toBe(first);
  expect(hooks.event!(updated)).toBe(first);
  await expect(first).resolves.toBeUndefined();
  // A session event still takes the full path (its own promise).
  expect(hooks.event!({ event: { type: "session.status", properties: {} } } as never)).not.toBe(first);
  expect(lines).toEqual([]);
});
