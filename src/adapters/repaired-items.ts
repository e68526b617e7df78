// Responses message items whose text the repair changed, by the id the server gave them, for the
// next request of the same conversation. @ai-sdk/openai (`store` on, its default) replays an
// assistant text part that carries an item id as `{ type: "item_reference", id }`, and the server
// then puts back its stored copy: the leaked markup the repair took out, where neither the client
// nor history sanitizing can see it. Such an id must stay on the item (the client's stream schema
// requires one, and any id it reads it references), so the request side resolves it: an
// item_reference to an item the repair changed goes up as that message inline, as it went out to
// the client, without an id (as the client itself sends a text part it has no id for). Kept in the
// repairFetch that repaired the reply (the proxy's one for all its clients: ids are the server's,
// unguessable); bounded, the oldest forgotten first: a reference to a forgotten item goes up as it
// came (the behaviour without this).
import { type Json, isObject } from "../sse/json.ts";
import type { JsonEdit } from "./json-splice.ts";

/** At most this many items are remembered. */
export const REPAIRED_ITEMS_LIMIT = 1024;

export class RepairedItems {
  /** Item id → the message item as it went out (read when a request refers to it: its latest text). */
  #items = new Map<string, Json>();

  /** A message item whose text the repair changed went out under `id`. */
  note(id: string, item: Json): void {
    this.#items.delete(id);
    this.#items.set(id, item);
    if (this.#items.size > REPAIRED_ITEMS_LIMIT) this.#items.delete(this.#items.keys().next().value!);
  }

  get size(): number {
    return this.#items.size;
  }

  /** A Responses request body's edits: each item_reference to an item remembered becomes that message inline. */
  edits(body: unknown): JsonEdit[] {
    if (this.#items.size === 0 || !isObject(body) || !Array.isArray(body.input)) return [];
    const edits: JsonEdit[] = [];
    body.input.forEach((entry, index) => {
      if (!isObject(entry) || entry.type !== "item_reference" || typeof entry.id !== "string") return;
      const item = this.#items.get(entry.id);
      if (item === undefined) return;
      const message = inlineMessage(item);
      if (message !== undefined) edits.push({ kind: "replace", path: ["input", index], json: JSON.stringify(message) });
    });
    return edits;
  }
}

/** The message as an input item: its text and refusal parts as they went out, no id; undefined when it holds neither. */
function inlineMessage(item: Json): Json | undefined {
  if (!Array.isArray(item.content)) return undefined;
  const content: Json[] = [];
  for (const part of item.content) {
    if (!isObject(part)) continue;
    if (part.type === "output_text" && typeof part.text === "string") content.push({ type: "output_text", text: part.text });
    else if (part.type === "refusal" && typeof part.refusal === "string") content.push({ type: "refusal", refusal: part.refusal });
  }
  if (content.length === 0) return undefined;
  return { type: "message", role: "assistant", content, ...(typeof item.phase === "string" ? { phase: item.phase } : {}) };
}
