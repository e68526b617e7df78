import type { Message, Part } from "@opencode-ai/sdk";
import type { ParseOptions } from "../parse/types.ts";
import { repairModules } from "./repair-modules.ts";

type Entry = { info: Message; parts: Part[] };

/**
 * Rewrites leaked markup in replayed assistant text parts; the stored session is untouched. Each
 * step of an assistant message (from one step-start to the next: one model reply) is read as one
 * text, as the live repair read that reply, so an example whose fence opens in one text part stays
 * an example in the next.
 */
export async function sanitizeHistory(messages: Entry[], options: Partial<ParseOptions>): Promise<{ messages: number; parts: number }> {
  const { redactReply, replyTextParts } = await repairModules();
  let touchedMessages = 0;
  let touchedParts = 0;
  for (const message of messages) {
    if (message.info.role !== "assistant") continue;
    let touched = false;
    for (const step of stepsOf(message.parts)) {
      const { parts, at } = replyTextParts(step, (part) => (part.type === "text" ? part.text : undefined));
      if (parts.length === 0) continue;
      const result = redactReply(parts, options);
      if (result.removed === 0) continue;
      result.texts.forEach((text, i) => {
        const part = step[at[i]!]!;
        if (part.type !== "text" || part.text === text) return;
        part.text = text;
        touched = true;
        touchedParts++;
      });
    }
    if (touched) touchedMessages++;
  }
  return { messages: touchedMessages, parts: touchedParts };
}

/** An assistant message's parts cut where each step (one request to the model) starts. */
function stepsOf(parts: Part[]): Part[][] {
  const steps: Part[][] = [[]];
  for (const part of parts) {
    if (part.type === "step-start" && steps.at(-1)!.length > 0) steps.push([]);
    steps.at(-1)!.push(part);
  }
  return steps;
}

/** The "user" retry channel: the correction as one synthetic user turn at the end of the request. */
export function appendUserTurn(messages: Entry[], lastUser: Entry, text: string): void {
  const id = `${lastUser.info.id}_dsmlfix`;
  const info = { ...lastUser.info, id } as Message;
  const part = { id: `${id}_text`, sessionID: lastUser.info.sessionID, messageID: id, type: "text", text, synthetic: true } as Part;
  messages.push({ info, parts: [part] });
}
