import type { LanguageModelV3Prompt } from "@ai-sdk/provider";
import type { ParseOptionsInput, ToolSpec } from "../parse/types.ts";
import { emptiedParts, onlyText } from "./emptied-parts.ts";
import { assistantRuns, REMOVED_NOTE, redactReply, replyTextParts } from "./sanitize.ts";

/**
 * The AI SDK form of history sanitizing: assistant text parts of the prompt, nothing else; `tools`
 * as redactReply's (the request's declared tools; left out, OpenCode's built-in ones). The text
 * parts of one reply (an assistant message, or consecutive ones: assistantRuns) are read as one
 * text (redactReply), as the live repair read that reply: an example whose fence opens in one part
 * stays an example in the next.
 *
 * `dropItemIds` (on unless the caller knows better): the provider sends a part that carries an item
 * id (providerOptions.<provider>.itemId) as a reference to its own stored copy, as @ai-sdk/openai's
 * Responses model does with `store` on (its default), so the changed text would never be sent and
 * the server would replay the leak. A message whose text changed then loses the item ids of its
 * text and reasoning parts, and goes as written here. Its reasoning goes too: OpenAI pairs a
 * reasoning item with the item after it by id, so a reasoning reference followed by a message that
 * has none can be refused; with store on, reasoning without an id or encrypted content is left out
 * (that turn's stored reasoning is lost, a leak replayed would cost more). A clean message keeps
 * its ids. Off: the ids stay (the provider sends each part as written with its id: `store` off; or
 * the server holds the conversation, and a part sent again would repeat it).
 */
export function sanitizePrompt(prompt: LanguageModelV3Prompt, options: ParseOptionsInput = {}, tools?: readonly ToolSpec[], dropItemIds = true): LanguageModelV3Prompt {
  let out: LanguageModelV3Prompt | undefined;
  // Consecutive assistant messages are one reply (assistantRuns), read as one text.
  for (const run of assistantRuns(prompt, (message) => message.role === "assistant")) {
    const content = run.flatMap((index) => (prompt[index] as AssistantMessage).content.map((part, at) => ({ part, index, at })));
    const { parts, at } = replyTextParts(content, ({ part }) => (part.type === "text" ? part.text : undefined));
    if (parts.length === 0) continue;
    const result = redactReply(parts, options, tools);
    if (result.removed === 0) continue;
    // A part the markup left empty leaves its message, or holds the note (emptied-parts.ts); a part
    // that carries more than its text (provider options that stay: a cache breakpoint) holds it.
    const fates = emptiedParts(
      result.texts.map((after, i) => {
        const { part, index } = content[at[i]!]!;
        const kept = dropItemIds ? withoutItemId(part) : part;
        return { before: part.type === "text" ? part.text : "", after, message: index, droppable: onlyText(kept) };
      }),
      (index) => (prompt[index] as AssistantMessage).content.length,
    );
    const changed = new Map<number, (AssistantPart | undefined)[]>();
    result.texts.forEach((text, i) => {
      const { part, index, at: slot } = content[at[i]!]!;
      if (part.type !== "text" || text === part.text) return;
      let parts = changed.get(index);
      if (!parts) changed.set(index, (parts = (prompt[index] as AssistantMessage).content.slice()));
      const fate = fates.get(i);
      parts[slot] = fate === "drop" ? undefined : { ...part, text: fate === "note" ? REMOVED_NOTE : text };
    });
    for (const [index, slots] of changed) {
      const parts = slots.filter((part): part is AssistantPart => part !== undefined);
      out ??= prompt.slice();
      out[index] = { ...(prompt[index] as AssistantMessage), content: dropItemIds ? parts.map(withoutItemId) : parts };
    }
  }
  return out ?? prompt;
}

type AssistantMessage = Extract<LanguageModelV3Prompt[number], { role: "assistant" }>;
type AssistantPart = AssistantMessage["content"][number];

/** A text or reasoning part without the item id any provider's options give it (the part itself if none does). */
function withoutItemId<P extends AssistantPart>(part: P): P {
  if ((part.type !== "text" && part.type !== "reasoning") || !part.providerOptions) return part;
  let providerOptions: NonNullable<P["providerOptions"]> | undefined;
  for (const [provider, entry] of Object.entries(part.providerOptions)) {
    if (entry === null || typeof entry !== "object" || !("itemId" in entry)) continue;
    const { itemId: _, ...rest } = entry;
    providerOptions ??= { ...part.providerOptions };
    if (Object.keys(rest).length > 0) providerOptions[provider] = rest;
    else delete providerOptions[provider];
  }
  if (providerOptions === undefined) return part;
  const { providerOptions: _, ...bare } = part;
  return (Object.keys(providerOptions).length > 0 ? { ...bare, providerOptions } : bare) as P;
}
