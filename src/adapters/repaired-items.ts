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
// came (the behaviour without this). The message items of a reply whose markup ran nothing are
// kept too (shown), not to be inlined but for the proxy's stateless correction to read a reply
// the client replays by reference (resolve); a restarted proxy has no such memory, and a reference
// to a reply it did not see reads as before (an answer, no correction).
import { type Json, isObject } from "../sse/json.ts";
import type { JsonEdit } from "./json-splice.ts";

/** At most this many items are remembered. */
export const REPAIRED_ITEMS_LIMIT = 1024;

/** At most this many characters of remembered message JSON, all items together (a few huge replies must not pile up). */
export const REPAIRED_ITEMS_CHARS = 8 * 1024 * 1024;

/**
 * Where an id came back from: the request URL's origin and path (no query), e.g.
 * `https://api.openai.com/v1/responses`. Ids are the server's own; one repairFetch (the proxy's)
 * serves several upstreams, and another server may well number its items the same way, so an id
 * noted from one upstream is never resolved in a request to another.
 */
export function itemScope(url: string | URL | Request): string {
  const href = typeof url === "string" ? url : url instanceof URL ? url.href : url.url;
  try {
    const parsed = new URL(href, "http://localhost");
    return `${parsed.origin}${parsed.pathname}`;
  } catch {
    return href;
  }
}

interface Remembered {
  /** The message as it went out to the client, as an input item. */
  message: Json;
  /** Its JSON text, counted against REPAIRED_ITEMS_CHARS. */
  json: string;
  /**
   * The repair changed its text: a reference to it goes up as `message` inline. Otherwise it was
   * kept (shown) because its reply held markup that ran nothing: the reference goes up as sent,
   * and `message` only tells the proxy's correction what the reply said (resolve).
   */
  inline: boolean;
}

export class RepairedItems {
  /** Scope + id → the message item as it went out (its latest text), the oldest first. */
  #items = new Map<string, Remembered>();
  #chars = 0;

  /**
   * A message item whose text the repair changed went out under `id`, in a reply to a request to
   * `scope` (itemScope); `item` undefined: an item came back under `id` unchanged (seen). Either
   * way the server's newest item under that id is this one, so what was noted under it before
   * goes: an id given again (a restarted local server, one that numbers per response) never
   * resolves to an older reply's text, perhaps another client's.
   */
  note(id: string, item: Json | undefined, scope = ""): void {
    const key = keyOf(scope, id);
    this.#forget(key);
    if (item !== undefined) this.#keep(key, item, true);
  }

  /** An item came back under `id` in a reply to `scope`: what was noted under it goes (note without an item). */
  seen(id: string, scope = ""): void {
    this.#forget(keyOf(scope, id));
  }

  /**
   * A message item of a reply whose markup ran nothing went out under `id` as `item` (its text as
   * the client saw it). A client that replays that reply by item_reference hides the text from the
   * proxy's history pass, and the stateless correction would never be sent: resolve gives it back
   * for reading. A repaired entry of the same reply under the id stays as it is (it also resolves).
   */
  shown(id: string, item: Json, scope = ""): void {
    const key = keyOf(scope, id);
    if (this.#items.get(key)?.inline) return;
    this.#forget(key);
    this.#keep(key, item, false);
  }

  /** The message under `id` as it went out to the client, for reading (a repaired or a shown one); undefined when none is remembered. */
  resolve(id: string, scope = ""): Json | undefined {
    return this.#items.get(keyOf(scope, id))?.message;
  }

  #keep(key: string, item: Json, inline: boolean): void {
    const message = inlineMessage(item);
    if (message === undefined) return;
    const json = JSON.stringify(message);
    if (json.length > REPAIRED_ITEMS_CHARS) return;
    this.#items.set(key, { message, json, inline });
    this.#chars += json.length;
    while (this.#items.size > REPAIRED_ITEMS_LIMIT || this.#chars > REPAIRED_ITEMS_CHARS) this.#forget(this.#items.keys().next().value!);
  }

  get size(): number {
    return this.#items.size;
  }

  /** Characters of message JSON remembered. */
  get chars(): number {
    return this.#chars;
  }

  #forget(key: string): void {
    const old = this.#items.get(key);
    if (old === undefined) return;
    this.#items.delete(key);
    this.#chars -= old.json.length;
  }

  /**
   * A Responses request body's edits, for a request to `scope`: each item_reference to an item
   * remembered from that same scope becomes that message inline. A reasoning item right before it
   * (an item_reference to an `rs_` id, or a reasoning item) is dropped with it: OpenAI pairs a
   * reasoning item with the item that follows it by id and refuses a request where it is followed
   * by anything else (400 "provided without its required following item", for every later turn),
   * and the message inline has no id to pair with (the stored one holds the leak). Without its
   * reasoning the repaired turn goes up as the client itself sends a turn it has no ids for; the
   * recovered function_call after it carries no server id either and needs no reasoning item.
   *
   * But a reasoning item is also required BEFORE every item of its reply that goes up with its
   * server id (a native `fc_` function_call by reference or inline with its id: 400 "provided
   * without its required 'reasoning' item"). When such an item of the same reply follows, the
   * reasoning can neither go (that item is refused) nor stay before the message inline (its
   * required following item is gone): the reference then goes up as the client sent it, the only
   * shape OpenAI is sure to accept. The server's stored copy, leak included, is back in that
   * request's context, as without this store: never breaking the host outranks keeping an old
   * leak out of sight (it runs nothing either way).
   */
  edits(body: unknown, scope = ""): JsonEdit[] {
    if (this.#items.size === 0 || !isObject(body) || !Array.isArray(body.input)) return [];
    const input = body.input;
    const edits: JsonEdit[] = [];
    input.forEach((entry, index) => {
      if (!isObject(entry) || entry.type !== "item_reference" || typeof entry.id !== "string") return;
      const item = this.#items.get(keyOf(scope, entry.id));
      if (!item?.inline) return;
      if (index > 0 && isReasoning(input[index - 1])) {
        if (this.#needsReasoning(input, index + 1, scope)) return;
        edits.push({ kind: "remove", path: ["input", index - 1] });
      }
      edits.push({ kind: "replace", path: ["input", index], json: item.json });
    });
    return edits;
  }

  /**
   * Whether an item of the same reply from `from` on still goes up by its server id (so needs the
   * reasoning before it): a reference this store does not inline, or an inline item with an `id`.
   * The reply ends at the next item the model did not produce (a user turn, a tool's output) or at
   * the next reasoning item (the items after it pair with that one).
   */
  #needsReasoning(input: readonly unknown[], from: number, scope: string): boolean {
    for (let at = from; at < input.length; at++) {
      const entry = input[at];
      if (!isObject(entry) || isReasoning(entry) || !modelProduced(entry)) return false;
      if (entry.type === "item_reference") {
        if (typeof entry.id !== "string" || !this.#items.get(keyOf(scope, entry.id))?.inline) return true;
      } else if (typeof entry.id === "string") return true;
    }
    return false;
  }
}

/** An input item the model produced: an assistant message, a call of any kind (never its output), a reference to a stored item. */
function modelProduced(entry: Record<string, unknown>): boolean {
  const type = entry.type;
  if (type === undefined || type === "message") return entry.role === "assistant";
  return typeof type === "string" && (type === "item_reference" || type.endsWith("_call") || type === "mcp_approval_request");
}

function keyOf(scope: string, id: string): string {
  return `${scope}\n${id}`;
}

/** A reasoning item, by reference (OpenAI's reasoning ids start `rs_`) or inline. */
function isReasoning(entry: unknown): boolean {
  if (!isObject(entry)) return false;
  if (entry.type === "reasoning") return true;
  return entry.type === "item_reference" && typeof entry.id === "string" && entry.id.startsWith("rs_");
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
