// What OpenCode 1.18 sends the model, read from its stored messages (an `opencode export` file, or
// the session store read into the same shape): the content `dsml-fix scan` gives the echo guard, so
// that scan's verdict on a reply is the plugin's, whose echo guard reads the request itself.
//
// Verified against the OpenCode 1.18.33 binary (node_modules/opencode-linux-x64): its message
// history (filterCompacted) starts at the last finished compaction summary, and its request builder
// (toModelMessages) sends of a user message the text parts not marked `ignored`, its files, and a
// fixed line for a compaction or subtask part; of an assistant message (none whose reply failed,
// unless it was aborted) the result of each tool part, "[Old tool result content cleared]" (and no
// attachments) once compaction has cleared it. Content stored but never sent is not given: a call
// the model wrote out of it is one the plugin ran, and scan reports it as such.
import { collectStrings } from "../echo/from-request.ts";
import { isObject } from "../grammar/plain-data.ts";

/** What OpenCode sends for a tool result compaction cleared (its `state.time.compacted` set). */
const CLEARED_TOOL_RESULT = "[Old tool result content cleared]";
/** What OpenCode sends for a tool part still pending or running when the reply ended. */
const INTERRUPTED_TOOL = "[Tool execution was interrupted]";
/** What OpenCode sends for a user message's compaction part. */
const COMPACTION_PROMPT = "What did we do so far?";
/** What OpenCode sends for a user message's subtask part. */
const SUBTASK_PROMPT = "The following tool was executed by the user";

/** File parts OpenCode does not send (a text file's content goes as a synthetic text part instead). */
const UNSENT_FILE_TYPES: ReadonlySet<unknown> = new Set(["text/plain", "application/x-directory"]);

type Loose = Record<string, unknown>;

const infoOf = (message: unknown): Loose | null => (isObject(message) && isObject(message.info) ? message.info : null);
const partsOf = (message: unknown): Loose[] => (isObject(message) && Array.isArray(message.parts) ? message.parts.filter(isObject) : []);

/**
 * What the model had been given before `messages[index]`: the given content of every earlier
 * message OpenCode still sends (those from the last compaction on), each as OpenCode sends it.
 * A message's own tool results come after its text, so they count for the messages after it.
 */
export function givenBefore(messages: readonly unknown[], index: number): string[] {
  const out: string[] = [];
  for (const message of sentHistory(messages.slice(0, index))) givenOf(message, out);
  return out;
}

/**
 * The messages OpenCode 1.18 keeps in the history it sends (its filterCompacted), from the
 * oldest: walking back from the newest, a finished summary (an assistant message with `summary`
 * and `finish` and no `error`) marks its parent, and the walk stops at that parent when it holds a
 * compaction part, or, when the part names a `tail_start_id` (the turns compaction kept), at that
 * message. Order is not kept (given content is a set of texts).
 */
function sentHistory(messages: readonly unknown[]): unknown[] {
  const kept: unknown[] = [];
  const summarized = new Set<unknown>();
  let tail: unknown;
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i];
    kept.push(message);
    const info = infoOf(message);
    if (info === null) continue;
    if (tail !== undefined) {
      if (info.id === tail) break;
      continue;
    }
    if (info.role === "user" && summarized.has(info.id)) {
      const compaction = partsOf(message).find((part) => part.type === "compaction");
      if (!compaction) continue;
      if (!compaction.tail_start_id) break;
      tail = compaction.tail_start_id;
      if (info.id === tail) break;
      continue;
    }
    if (info.role === "assistant" && info.summary && info.finish && !info.error) summarized.add(info.parentID);
  }
  return kept.reverse();
}

/** What OpenCode sends of one stored message, besides the model's own words. */
function givenOf(message: unknown, out: string[]): void {
  const info = infoOf(message);
  if (info === null) return;
  const parts = partsOf(message);
  if (info.role === "user") {
    for (const part of parts) {
      if (part.type === "text" && !part.ignored && typeof part.text === "string") out.push(part.text);
      else if (part.type === "file" && !UNSENT_FILE_TYPES.has(part.mime)) collectStrings(part, out);
      else if (part.type === "compaction") out.push(COMPACTION_PROMPT);
      else if (part.type === "subtask") out.push(SUBTASK_PROMPT);
    }
    return;
  }
  if (info.role !== "assistant") return; // no role OpenCode sends
  // A failed reply is left out of the history, unless it was aborted with something in it.
  if (info.error && !(isObject(info.error) && info.error.name === "MessageAbortedError")) return;
  for (const part of parts) {
    if (part.type !== "tool" || !isObject(part.state)) continue;
    const state = part.state;
    const compacted = isObject(state.time) && Boolean(state.time.compacted);
    if (state.status === "completed") {
      if (compacted) out.push(CLEARED_TOOL_RESULT);
      else collectStrings([state.output, state.attachments], out);
    } else if (state.status === "error") {
      const interrupted = isObject(state.metadata) && state.metadata.interrupted === true && typeof state.metadata.output === "string";
      collectStrings(interrupted ? (state.metadata as Loose).output : state.error, out);
    } else if (state.status === "pending" || state.status === "running") {
      out.push(INTERRUPTED_TOOL);
    }
  }
}
