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
