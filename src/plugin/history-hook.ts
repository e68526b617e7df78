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
  const { redactReply, replyTextParts, REMOVED_NOTE, emptiedParts, onlyText } = await repairModules();
  let touchedMessages = 0;
  let touchedParts = 0;
  for (const message of messages) {
    if (message.info.role !== "assistant") continue;
    let touched = false;
    const dropped = new Set<Part>();
    for (const step of stepsOf(message.parts)) {
      const { parts, at } = replyTextParts(step, (part) => (part.type === "text" ? part.text : undefined));
      if (parts.length === 0) continue;
      const result = redactReply(parts, options);
      if (result.removed === 0) continue;
      // A part the markup left empty leaves the message, or holds the note, as on the AI SDK prompt
      // (emptied-parts.ts): 1.18 drops an empty text part only for @ai-sdk/anthropic. Of a text
      // part, toModelMessages sends its text and its metadata (as providerMetadata): one with
      // metadata holds the note. It reads the parts in order and keys none by id.
      const fates = emptiedParts(
        result.texts.map((after, i) => {
          const part = step[at[i]!] as Extract<Part, { type: "text" }>;
          return { before: parts[i]!.text, after, message: 0, droppable: onlyText({ metadata: part.metadata }) };
        }),
        () => message.parts.filter((part) => SENT.has(part.type) && !dropped.has(part)).length,
      );
      result.texts.forEach((text, i) => {
        const part = step[at[i]!]!;
        if (part.type !== "text" || part.text === text) return;
        const fate = fates.get(i);
        if (fate === "drop") dropped.add(part);
        else part.text = fate === "note" ? REMOVED_NOTE : text;
        touched = true;
        touchedParts++;
      });
    }
    // A new array: the loaded one is left as it was for anyone else holding it.
    if (dropped.size > 0) message.parts = message.parts.filter((part) => !dropped.has(part));
    if (touched) touchedMessages++;
  }
  return { messages: touchedMessages, parts: touchedParts };
}

/** The part types 1.18's toModelMessages turns into content of an assistant message (a step-start alone is left out). */
const SENT = new Set<string>(["text", "tool", "reasoning"]);

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
