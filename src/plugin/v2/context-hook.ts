// History and correction on OpenCode 2's `session.hook("context")`, whose `messages` and `system`
// the plugin may rewrite before the request is built (anomalyco/opencode
// packages/plugin/src/promise/session.ts @ 03545fd3, SessionContext; message shape from
// packages/ai/src/schema/messages.ts @ 2b33fbee). The stored session is never touched.
import { createHash } from "node:crypto";
import { emptiedParts, onlyText } from "../../history/emptied-parts.ts";
import { assistantRuns, REMOVED_NOTE, redactReply, replyTextParts } from "../../history/sanitize.ts";
import type { JsonSchema, ParseOptions, ToolSpec } from "../../parse/types.ts";
import { isPlainObject } from "../../options/security-search.ts";
import { opencodeBuiltinTools } from "../../tools/opencode-builtins.ts";
import type { TurnSeen } from "../../retry/state.ts";
import type { V2Message } from "./host-types.ts";

/**
 * Rewrites leaked markup in replayed assistant text parts with the inline note, as on 1.18, reading
 * them with `tools`: the request's own (SessionContext.tools) and OpenCode's built-in ones. The text
 * parts of one reply (an assistant message, or consecutive ones: assistantRuns) are read as one
 * text, as the live repair read them.
 */
export function sanitizeContext(messages: V2Message[], options: Partial<ParseOptions>, tools: readonly ToolSpec[] = opencodeBuiltinTools): { messages: number; parts: number } {
  let touchedMessages = 0;
  let touchedParts = 0;
  // Consecutive assistant messages are one reply (assistantRuns), read as one text.
  for (const run of assistantRuns(messages, (message) => message.role === "assistant")) {
    const content = run.flatMap((index) => {
      const parts = messages[index]!.content;
      return Array.isArray(parts) ? parts.map((part, at) => ({ part, index, at })) : [];
    });
    const { parts, at } = replyTextParts(content, ({ part }) => (part.type === "text" && typeof part.text === "string" ? part.text : undefined));
    if (parts.length === 0) continue;
    const result = redactReply(parts, options, tools);
    if (result.removed === 0) continue;
    // A part the markup left empty ("" is refused by Anthropic-style APIs, and 1.18-style hosts do
    // not all drop it) leaves its message, or holds the note, as on the AI SDK prompt
    // (emptied-parts.ts). These are the request's messages, never the stored ones, and a part that
    // carries anything beside its text (an id, provider options) is not droppable: it holds the note.
    const fates = emptiedParts(
      result.texts.map((after, i) => {
        const { part, index } = content[at[i]!]!;
        return { before: parts[i]!.text, after, message: index, droppable: onlyText(part) };
      }),
      (index) => messages[index]!.content.length,
    );
    const changed = new Map<number, (V2Message["content"][number] | undefined)[]>();
    result.texts.forEach((text, i) => {
      const { part, index, at: slot } = content[at[i]!]!;
      if (text === part.text) return;
      let slots = changed.get(index);
      if (!slots) changed.set(index, (slots = messages[index]!.content.slice()));
      const fate = fates.get(i);
      slots[slot] = fate === "drop" ? undefined : { ...part, text: fate === "note" ? REMOVED_NOTE : text };
      touchedParts++;
    });
    for (const [index, slots] of changed) {
      messages[index] = sameKind(messages[index]!, { content: slots.filter((part) => part !== undefined) });
      touchedMessages++;
    }
  }
  return { messages: touchedMessages, parts: touchedParts };
}

/**
 * The tools a context's history is read with: every tool the request offers, with its parameters
 * when the host gives them as plain JSON Schema (a shape whose verdict needs them, the tool-named
 * element form `<gh_issue><title>..</title></gh_issue>`, reads declared parameters only: review
 * 57), and the built-in ones it may not offer this turn, since an old leak may name one.
 */
export function historyTools(offered: unknown): ToolSpec[] {
  const tools = new Map<string, ToolSpec>(opencodeBuiltinTools.map((tool) => [tool.name, tool]));
  if (offered !== null && typeof offered === "object") {
    for (const name of Object.keys(offered)) {
      if (!name || tools.has(name)) continue;
      const parameters = plainSchema(offered, name);
      tools.set(name, parameters === undefined ? { name } : { name, parameters });
    }
  }
  return [...tools.values()];
}

/**
 * A tool's `input` when it is a JSON Schema object as plain data (SessionContext.tools is
 * `{ description, input: JsonSchema }`, packages/plugin/src/promise/session.ts @ 03545fd3): an
 * object of Object's own prototype (or of none) with `type: "object"`, or no `type` and a
 * `properties` object, the form the wires hand the schema gate from a request's declared tools.
 * Anything else stays name-only, as before: the gate reads JSON Schema only, and a value of another
 * form (an Effect Schema instance, a class, a boolean schema, a `$ref` alone) would be guessed at;
 * name-only still replaces every shape whose verdict needs no parameters (DSML, Hermes, ...). A
 * getter that throws (a host Proxy) costs that tool's parameters only. History only reads with
 * it: what runs is decided live, on the schemas the request itself declares.
 */
function plainSchema(offered: object, name: string): JsonSchema | undefined {
  try {
    const tool: unknown = (offered as Record<string, unknown>)[name];
    if (!isPlainObject(tool)) return undefined;
    const input = tool.input;
    if (!isPlainObject(input)) return undefined;
    return input.type === "object" || (input.type === undefined && isPlainObject(input.properties)) ? (input as JsonSchema) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The user message the request answers: its id, or when the host gave none (V2Message.id is
 * optional) a name from its position and its content (turnName), and its text.
 */
export function lastUserTurn(messages: readonly V2Message[]): TurnSeen | undefined {
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index]!;
    if (message.role !== "user") continue;
    const parts = Array.isArray(message.content) ? message.content : [];
    const text = parts.filter((p) => p.type === "text" && typeof p.text === "string").map((p) => p.text).join("");
    const users = messages.slice(0, index + 1).filter((m) => m.role === "user").length;
    return { id: turnName(message, users), text };
  }
  return undefined;
}

/**
 * Whether a turn is still in the context's history: a user message whose turn id (as lastUserTurn
 * names it) is that turn.
 */
export function turnsIn(messages: readonly V2Message[]): (turn: string) => boolean {
  return (turn) => {
    let users = 0;
    for (const message of messages) {
      if (message.role !== "user") continue;
      users++;
      // An id-less name starts with its position: only the message at that position is digested.
      if (typeof message.id === "string" && message.id ? message.id === turn : turn.startsWith(`user-${users}-`) && turnName(message, users) === turn) return true;
    }
    return false;
  };
}

/**
 * A user message's turn name: the host's id, else `user-<position>-<digest of its content>`. The
 * position alone would give a message the user edited (OpenCode reverts and sends again), or a new
 * one landing where a compaction shortened the history, the name of the message it replaced, and
 * the ledger would send a correction about a reply that is gone. The content alone would make two
 * equal messages ("go on") one turn. A host retry builds the same messages: the same name.
 */
function turnName(message: V2Message, position: number): string {
  if (typeof message.id === "string" && message.id) return message.id;
  return `user-${position}-${contentDigest(message.content)}`;
}

/**
 * A digest of what the user wrote or attached: each part's type and its own top-level text, numbers
 * and bytes (text, a file's data, url, media type, name). Nested objects (provider options such as a
 * cache mark the host may move from request to request) and part ids are left out, so the same
 * message built again digests the same. Linear in the content.
 */
function contentDigest(content: unknown): string {
  const hash = createHash("sha256");
  const parts = Array.isArray(content) ? (content as unknown[]) : [];
  for (const part of parts) {
    if (part === null || typeof part !== "object") continue;
    hash.update("\u0000part");
    for (const key of Object.keys(part).sort()) {
      if (key === "id") continue;
      const value = (part as Record<string, unknown>)[key];
      // Each field framed by its name and kind, so a text moved between fields digests apart.
      if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") hash.update(`\u0000${key}\u0000${typeof value}\u0000${String(value).length}\u0000`).update(String(value));
      else if (value instanceof URL) hash.update(`\u0000${key}\u0000url\u0000${value.href.length}\u0000`).update(value.href);
      else if (value instanceof Uint8Array) hash.update(`\u0000${key}\u0000bytes\u0000${value.byteLength}\u0000`).update(value);
      else if (value instanceof ArrayBuffer) hash.update(`\u0000${key}\u0000bytes\u0000${value.byteLength}\u0000`).update(new Uint8Array(value));
    }
  }
  return hash.digest("hex").slice(0, 12);
}

/** The "user" retry channel: the correction as one more user turn at the end of this request only. */
export function addCorrection(messages: V2Message[], text: string): void {
  const last = [...messages].reverse().find((m) => m.role === "user");
  const fields = { role: "user" as const, content: [{ type: "text", text }] };
  messages.push(last ? sameKind(last, { ...fields, id: undefined }) : fields);
}

/** A copy that keeps the host's class (`LLM.Message` is a schema class), with some fields replaced. */
function sameKind(message: V2Message, fields: Partial<V2Message>): V2Message {
  const copy = Object.assign(Object.create(Object.getPrototypeOf(message) as object) as V2Message, message, fields);
  if (copy.id === undefined) delete copy.id;
  return copy;
}
