import type { Message, Part } from "@opencode-ai/sdk";
import type { ParseOptions } from "../parse/types.ts";
import { repairModules } from "./repair-modules.ts";

type Entry = { info: Message; parts: Part[] };

/** Rewrites leaked markup in replayed assistant text parts; the stored session is untouched. */
export async function sanitizeHistory(messages: Entry[], options: Partial<ParseOptions>): Promise<{ messages: number; parts: number }> {
  const { sanitizeAssistantText } = await repairModules();
  let touchedMessages = 0;
  let touchedParts = 0;
  for (const message of messages) {
    if (message.info.role !== "assistant") continue;
    let touched = false;
    for (const part of message.parts) {
      if (part.type !== "text") continue;
      const result = sanitizeAssistantText(part.text, options);
      if (result.removed === 0) continue;
      part.text = result.text;
      touched = true;
      touchedParts++;
    }
    if (touched) touchedMessages++;
  }
  return { messages: touchedMessages, parts: touchedParts };
}

/** The "user" retry channel: the correction as one synthetic user turn at the end of the request. */
export function appendUserTurn(messages: Entry[], lastUser: Entry, text: string): void {
  const id = `${lastUser.info.id}_dsmlfix`;
  const info = { ...lastUser.info, id } as Message;
  const part = { id: `${id}_text`, sessionID: lastUser.info.sessionID, messageID: id, type: "text", text, synthetic: true } as Part;
  messages.push({ info, parts: [part] });
}
