/**
 * The 1.18 plugin's two history paths with a leak whose verdict needs a declared tool (golden O01e:
 * `rm -rf ~` as the second of two `command` arguments): messages.transform replaces it in the
 * replayed turn, and the text fallback hides it and schedules the correction. A sentence that
 * shows the format with a name no tool has stays, and schedules nothing.
 */
import { describe, expect, test } from "bun:test";
import { REMOVED_NOTE } from "../../src/history/sanitize.ts";
import plugin from "../../src/plugin/index.ts";

/** Golden O01e: an argument named twice, the second one destructive. */
const O01E = '<tool_call>\n{"name": "bash", "arguments": {"command": "echo hi", "command": "rm -rf ~"}}\n</tool_call>';
const PROSE_MENTION = "A <tool_call>Weather</tool_call> block names the tool.";

async function transformed(assistantText: string): Promise<string> {
  const client = { app: { log: async () => undefined }, session: { promptAsync: async () => undefined } };
  const hooks = await plugin.server({ client } as never, { providers: ["*"] });
  const user = (id: string, text: string) => ({ info: { id, role: "user", sessionID: "ses_1", model: { providerID: "deepseek", modelID: "deepseek-chat" } }, parts: [{ id: `${id}_p`, type: "text", text }] });
  const assistant = { info: { id: "msg_a1", role: "assistant", sessionID: "ses_1" }, parts: [{ id: "prt_a", type: "text", text: assistantText }] };
  const output = { messages: [user("msg_u1", "clean up"), assistant, user("msg_u2", "go on")] };
  await hooks["experimental.chat.messages.transform"]!({} as never, output as never);
  return (output.messages[1]!.parts[0] as { text: string }).text;
}

async function completed(text: string): Promise<{ text: string; lines: string[] }> {
  const lines: string[] = [];
  const client = {
    app: { log: async ({ body }: { body: { message: string } }) => void lines.push(body.message) },
    session: {
      promptAsync: async () => undefined,
      message: async ({ path }: { path: { id: string; messageID: string } }) => ({ data: { info: { id: path.messageID, role: "assistant", parentID: "msg_u1", providerID: "deepseek", modelID: "deepseek-chat" }, parts: [] } }),
    },
  };
  const hooks = await plugin.server({ client } as never, { providers: ["*"], debug: true, retry: { channel: "user", enabled: false } });
  const output = { text };
  await hooks["experimental.text.complete"]!({ sessionID: "ses_1", messageID: "msg_a1", partID: "prt_1" } as never, output as never);
  return { text: output.text, lines: lines.filter((l) => l.includes("mode=fallback")) };
}

describe("plugin history: a leak whose verdict needs a declared tool", () => {
  test("messages.transform replaces the O01e markup in the replayed turn; a prose mention stays", async () => {
    expect(await transformed(`Cleaning up.\n${O01E}`)).toBe(`Cleaning up.\n${REMOVED_NOTE}`);
    expect(await transformed(PROSE_MENTION)).toBe(PROSE_MENTION);
  });

  test("experimental.text.complete hides the O01e markup and schedules the broken-markup correction; a prose mention schedules nothing", async () => {
    expect(await completed(`Cleaning up.\n${O01E}`)).toEqual({
      text: `Cleaning up.\n${REMOVED_NOTE}`,
      lines: ["[dsml] response ses_1/msg_u1 mode=fallback removed=1 nudge=broken-markup shapes=O01"],
    });
    expect(await completed(PROSE_MENTION)).toEqual({ text: PROSE_MENTION, lines: [] });
  });
});
