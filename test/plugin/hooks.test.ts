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
  await expect(hooks.event!({ event: null } as never)).resolves.toBeUndefined();
  expect(lines.length).toBeGreaterThanOrEqual(4);
  for (const line of lines) {
    expect(line).toStartWith("dsml-fix: ");
    expect(line).not.toContain("secret-value");
  }
});

test("providers [] disables the plugin: no hooks at all", async () => {
  expect(await plugin.server(fakeInput([]), { providers: [] })).toEqual({});
});

test("the request tag goes only on requests that pass through the repairing fetch (issue 10 item 8)", async () => {
  const hooks = await plugin.server(fakeInput([]), { providers: ["*"] });
  const cfg = { provider: { "my-deepseek": { options: { baseURL: "http://127.0.0.1:1/v1" } } } };
  await hooks.config!(cfg as never);
  const headersFor = async (providerID: string) => {
    const output = { headers: {} as Record<string, string> };
    await hooks["chat.headers"]!({ sessionID: "ses_1", provider: { info: { id: providerID } }, model: { providerID }, message: { id: "msg_1" } } as never, output as never);
    return output.headers;
  };
  expect(await headersFor("my-deepseek")).toEqual({ "x-dsml-fix-tag": "ses_1/msg_1" });
  // In scope by "*", but only a stored login: OpenCode builds it without our fetch.
  expect(await headersFor("anthropic")).toEqual({});
  const previous = process.env.OPENCODE_EXPERIMENTAL_NATIVE_LLM;
  process.env.OPENCODE_EXPERIMENTAL_NATIVE_LLM = "1";
  try {
    expect(await headersFor("my-deepseek")).toEqual({});
  } finally {
    if (previous === undefined) delete process.env.OPENCODE_EXPERIMENTAL_NATIVE_LLM;
    else process.env.OPENCODE_EXPERIMENTAL_NATIVE_LLM = previous;
  }
});
