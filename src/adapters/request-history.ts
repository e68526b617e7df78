// History on the request side, for every adapter that forwards a request body (the fetch adapter,
// the proxy): leaked markup in replayed assistant turns becomes the plugin's inline note before the
// request goes up, so the model does not imitate its own old leaks; and, when asked (the proxy, which
// keeps no session state), the plugin's one-time correction rides along when the newest model reply ended in
// such markup (consecutive assistant turns are one reply: repliesOf), the request may call a tool
// (mayCall) and its system prompt does not hold that text yet (systemHolds). The turns are read
// with the tools the request declares, as the live repair reads a reply; a Responses reference to a
// reply the repair remembers is read as that reply went out (HistoryOptions.resolve).
import { requestEchoGuard } from "../echo/from-request.ts";
import { citesSource, givenFromMessagesBlock, givenFromResponsesItem, isGivenBlock } from "../echo/from-reply.ts";
import type { EchoGuard } from "../engine/types.ts";
import { isObject } from "../grammar/plain-data.ts";
import { emptiedParts, onlyText } from "../history/emptied-parts.ts";
import { REMOVED_NOTE, redactReply, replyTextParts, type ReplyPart, type TextEdit } from "../history/sanitize.ts";
import type { NudgeReason, ParseOptionsInput, ToolSpec } from "../parse/types.ts";
import { correctionText, type CorrectionReason } from "../retry/state.ts";
import { hasOffsets } from "../wires/annotations.ts";
import { wireFor, wirePathname } from "../wires/registry.ts";
import { NATIVE_ITEMS } from "../wires/responses/items.ts";
import type { Wire } from "../wires/wire.ts";
import { spliceJson, spliceJsonBytes, type JsonEdit, type JsonPath } from "./json-splice.ts";

type Json = Record<string, unknown>;
type Shape = "chat" | "messages" | "responses";

/** Text parts of an assistant turn on the three wires: chat and Messages "text", Responses "output_text". */
const TEXT_PARTS = new Set(["text", "output_text"]);
/**
 * Responses items the model produced that carry no role: its reasoning, its approval requests and
 * every kind of call (`function_call`, `local_shell_call`, `mcp_call`, ... all end in `_call`), never
 * a `*_call_output`. After any of them the model has answered, so an older leak needs no correction.
 * An `item_reference` names a stored item by id, most often the model's own output (the call it
 * made after the message): it counts as one, so the leak before it is no longer the newest thing
 * the model said (a correction after it could only be due, never needed).
 */
function isModelItem(type: unknown): boolean {
  return typeof type === "string" && (type === "reasoning" || type === "mcp_approval_request" || type === "item_reference" || type.endsWith("_call"));
}

/**
 * A model item between a reply's messages answers that reply only when it is a native call of the
 * reply's own (a `function_call`, a `custom_tool_call`): the live repair let that call win over the
 * markup anywhere in the reply, so the markup needs no correction. Reasoning or a server tool's
 * call there (mcp_call, file_search_call, ...) came before the text after it. A reference there
 * that nothing resolved may name the reply's own call: only a reasoning id (`rs_`) is known not to.
 */
function answersReply(turn: Json): boolean {
  if (turn.type === "item_reference") return !(typeof turn.id === "string" && turn.id.startsWith("rs_"));
  return NATIVE_ITEMS.has(turn.type as string);
}

/** An item_reference that `resolve` knows, as the message it names (`found` is told); any other turn as it is. */
function resolvedTurn(turn: unknown, resolve: (id: string) => Json | undefined, found: () => void): unknown {
  if (!isObject(turn) || turn.type !== "item_reference" || typeof turn.id !== "string") return turn;
  const message = resolve(turn.id);
  if (message === undefined) return turn;
  found();
  return message;
}

export interface HistoryOptions {
  parse: ParseOptionsInput;
  /** history.sanitize: replace leaked markup in replayed assistant turns. */
  sanitize: boolean;
  /** retry.nudge: add the correction when the newest model turn held markup that ran nothing. */
  correct: boolean;
  /**
   * responseFix.echoGuard (default on): the newest model turn is read against what the request gave
   * the model before it, so markup it only quoted from there is no call of its own to correct.
   */
  echoGuard?: boolean;
  /**
   * A Responses item_reference's message as it went out to the client, when the repair remembers
   * it (src/adapters/repaired-items.ts resolve): the reply it names is read as if it were replayed
   * inline, for the correction only (its text is not in the body, so nothing of it is rewritten).
   * Absent, or undefined for an id: the reference reads as the model's answer, as before.
   */
  resolve?: (id: string) => Json | undefined;
}

interface SanitizedRequest {
  /** The request body's text: the very string given when nothing changed. */
  text: string;
  /** Leaked spans replaced; with no correction either, the text is the one given. */
  removed: number;
  /** Assistant turns that had a span replaced. */
  turns: number;
  correction: CorrectionReason | null;
}

/** A request body that came as bytes, after the history pass. */
interface SanitizedBytes {
  /** The body: the very bytes given when nothing changed. */
  bytes: Uint8Array;
  removed: number;
  turns: number;
  correction: CorrectionReason | null;
  /** Why a due change was not made (a debug line, never body content); the bytes are the ones given. */
  why?: string;
}

/** The edits of the history pass, or undefined when it changes nothing. */
interface HistoryEdits {
  edits: JsonEdit[];
  removed: number;
  turns: number;
  correction: CorrectionReason | null;
}

/**
 * Chat `messages`, Messages `messages` and Responses `input` hold the replayed turns; `body` is
 * `text` parsed. Only the changed strings are rewritten (src/adapters/json-splice.ts): every other
 * character goes up as the client sent it.
 *
 * The correction needs no state, so a restarted proxy behaves the same: it is added only while the
 * leaking turn is the newest thing the model said. Once the model answers the corrected request,
 * that answer is the newest model turn in every later request, so the correction is sent once.
 */
export function sanitizeRequestText(pathname: string, text: string, body: unknown, options: HistoryOptions): SanitizedRequest {
  const found = historyEdits(pathname, body, options);
  if (!found) return { text, removed: 0, turns: 0, correction: null };
  return { text: spliceJson(text, found.edits), removed: found.removed, turns: found.turns, correction: found.correction };
}

/**
 * `sanitizeRequestText` for a body that came as bytes: `text` is `bytes` decoded by a replacing
 * UTF-8 decoder with `ignoreBOM`, `body` its JSON parsed. Only the byte ranges of the changed
 * strings are rewritten, so a byte order mark and bytes that are not valid UTF-8 elsewhere in the
 * body (which the text holds as U+FFFD) go up exactly as the client sent them.
 */
export function sanitizeRequestBytes(pathname: string, bytes: Uint8Array, text: string, body: unknown, options: HistoryOptions): SanitizedBytes {
  const found = historyEdits(pathname, body, options);
  if (!found) return { bytes, removed: 0, turns: 0, correction: null };
  const spliced = spliceJsonBytes(bytes, text, found.edits);
  if (!spliced) return { bytes, removed: 0, turns: 0, correction: null, why: "request body bytes do not pair off with their text: history not sanitized" };
  return { bytes: spliced, removed: found.removed, turns: found.turns, correction: found.correction };
}

function historyEdits(pathname: string, body: unknown, options: HistoryOptions): HistoryEdits | undefined {
  const shape = shapeOf(pathname);
  if (!shape || (!options.sanitize && !options.correct) || !isObject(body)) return undefined;
  const key = shape === "responses" ? "input" : "messages";
  const given = body[key];
  if (!Array.isArray(given)) return undefined;
  // History is read with the tools this request declares, as the live repair reads the reply.
  const wire = wireFor(pathname, body);
  const tools = wire?.declared(body) ?? [];
  // A reply replayed by reference is read as it went out, when the repair remembers it (resolve).
  const resolved = new Set<number>();
  const turns = shape === "responses" && options.resolve ? given.map((turn, index) => resolvedTurn(turn, options.resolve!, () => resolved.add(index))) : given;
  const replies = repliesOf(shape, turns);
  // A prefill the server surely continues (src/wires/prefill.ts `certain`: a Messages trailing
  // assistant turn, chat `prefix: true` or `continue_final_message`) is the reply being written, not
  // one that ended: it owes no correction now. Once its continuation is stored, the whole reply is
  // the newest one before the user's next message and gets its one correction there (repliesOf
  // reads the cut text and its continuation as one reply). Correcting the prefill too would send a
  // second correction for one reply, the first of them about a call the reply had yet to finish.
  const continuing = options.correct && wire !== undefined && wire.prefill(body)?.certain === true;
  const edits: JsonEdit[] = [];
  let removed = 0;
  let changedTurns = 0;
  let newest: NudgeReason | null = null;
  let reply = 0;
  /** The index of the newest reply's last assistant turn. */
  let end = -1;
  turns.forEach((turn, index) => {
    const next = replies[reply];
    if (next?.[0] !== index) {
      // A model item after the reply's last message (a call, reasoning, an item_reference: isModelItem):
      // the model has answered, so an older leak needs no correction. One inside the reply came
      // before the text after it and answers nothing (answersReply).
      if (isObject(turn) && turn.role !== "assistant" && isModelItem(turn.type) && (index > end || answersReply(turn))) newest = null;
      return;
    }
    reply++;
    end = next[next.length - 1]!;
    // Only the newest reply's reason can become a correction: it alone is read against the given content.
    const isEchoed = options.correct && reply === replies.length ? echoGuardBefore(wire, body, key, given, index, options) : undefined;
    // What the model was given inside the reply, between its messages (a server tool's output), for each message after the first.
    const read = next.map((at, n) => ({ turn: turns[at] as Json, path: [key, at] as JsonPath, between: n === 0 ? [] : turns.slice(next[n - 1]! + 1, at), readOnly: resolved.has(at) }));
    const found = redactTurns(read, shape, options, edits, tools, isEchoed);
    removed += found.removed;
    changedTurns += found.turns;
    // A turn that also made a native call did call a tool: its markup ran nothing because the
    // native call won, as the live repair decides, so it needs no correction.
    newest = next.some((at) => madeNativeCall(turns[at] as Json)) ? null : found.nudge;
    // The unfinished reply is the model's newest: an older reply's correction was due before it.
    if (continuing && reply === replies.length && next.at(-1) === turns.length - 1) newest = null;
  });
  const correction = options.correct && newest !== null && mayCall(wire, body, tools) ? reasonFor(newest) : null;
  // Never twice: a layer in front (the fetch adapter, a second proxy) or the client may have added
  // the very text already. Only that exact text in the system prompt counts, never a marker: nothing
  // a message holds can stand for a correction and keep one away.
  if (correction && !systemHolds(body, shape, correctionText(correction))) edits.push(addToSystem(body, shape, correctionText(correction)));
  if (removed === 0 && !correction) return undefined;
  return { edits, removed, turns: changedTurns, correction };
}

/**
 * The replies among the turns, each as the indices of its assistant turns, in order: every
 * assistant message of one run of turns the model produced with nothing given between. Anthropic
 * merges consecutive assistant messages into one turn (src/wires/prefill.ts reads them so too), and
 * a client that stores a reply's continuation (after max_tokens, a resumed stream) as a message of
 * its own replays one reply as two, on every wire; a Responses run may also hold the model's
 * reasoning and calls between its message items. The live repair read such a reply as one text (one
 * documentation context: a fence opened in one message holds the example in the next), so history
 * does too, and the correction looks at the whole reply.
 */
function repliesOf(shape: Shape, turns: readonly unknown[]): number[][] {
  const replies: number[][] = [];
  /** The newest reply, while nothing given has come after it. */
  let open: number[] | undefined;
  turns.forEach((turn, index) => {
    const assistant = isObject(turn) && turn.role === "assistant";
    if (assistant && open) open.push(index);
    else if (assistant) replies.push((open = [index]));
    else if (!(shape === "responses" && isObject(turn) && isModelItem(turn.type))) open = undefined;
  });
  return replies;
}

/**
 * Whether the request lets the model call a tool at all. A request that declares none, or whose
 * tool choice is "none" (a title, summary or compaction request replaying the conversation), gets
 * no correction: its text asks the model to call the tool again through the tool-calling
 * interface, which that request forbids, and the instruction could end up in the summary the
 * client keeps. The live repair recovers nothing there either (src/wires/tool-choice.ts).
 */
function mayCall(wire: Wire | undefined, body: Json, tools: readonly ToolSpec[]): boolean {
  return wire !== undefined && tools.length > 0 && wire.allowed(body).choice.type !== "none";
}

/**
 * The echo guard over what the request gave the model before the turn at `index` (the wire's
 * given content of the body with its turns cut there): never the model's own words, and never what
 * came after (a user who later pastes the markup back does not make the model's turn a quote).
 * What a server tool returned inside the reply's own turn (a `web_fetch_tool_result` before its
 * text) is given too, to the text after it only: each text part carries it (textPartsOf, ReplyPart.given).
 */
function echoGuardBefore(wire: Wire | undefined, body: Json, key: string, turns: readonly unknown[], index: number, options: HistoryOptions): EchoGuard | undefined {
  if (!wire) return undefined;
  return requestEchoGuard({ responseFix: options.echoGuard === undefined ? {} : { echoGuard: options.echoGuard } }, () => wire.given({ ...body, [key]: turns.slice(0, index) }));
}

/** Whether a request to this path carries replayed turns this module reads (chat, Messages, Responses). */
export function holdsHistory(pathname: string): boolean {
  return shapeOf(pathname) !== undefined;
}

function shapeOf(path: string): Shape | undefined {
  const pathname = wirePathname(path);
  if (pathname.endsWith("/chat/completions")) return "chat";
  if (pathname.endsWith("/messages")) return "messages";
  if (pathname.endsWith("/responses")) return "responses";
  return undefined;
}

/**
 * A leak naming a tool the request does not declare reads "undeclared-tool" and is corrected as an
 * unexecuted call (a request with no tools at all gets no correction: mayCall).
 * Markup the model only quoted from content it was given gets no correction: it made no call of
 * its own that failed, and every correction ends by asking it to call the tool it still needs
 * again, which after a quote is the push to run injected content that the echo guard exists to stop.
 */
function reasonFor(nudge: NudgeReason): CorrectionReason | null {
  if (nudge === "echoed-markup") return null;
  return nudge === "undeclared-tool" ? "unexecuted-call" : nudge;
}

/**
 * Replaces leaks in the assistant turns of one reply (when sanitizing) as edits at their paths;
 * says how many spans and turns changed, and why the reply's leaks ran nothing. All the text parts
 * of the reply are read as one text, as the live repair read them (src/history/sanitize.ts redactReply).
 */
function redactTurns(
  turns: readonly ReplyTurn[],
  shape: Shape,
  options: HistoryOptions,
  edits: JsonEdit[],
  tools: readonly ToolSpec[],
  isEchoed: EchoGuard | undefined,
): { removed: number; turns: number; nudge: NudgeReason | null } {
  const parts = textPartsOf(turns, shape, isEchoed !== undefined);
  if (parts.length === 0) return { removed: 0, turns: 0, nudge: null };
  // What each reading replaced in each part: annotations move through these edits (annotationEdits).
  let passes: readonly (readonly TextEdit[])[][] = [];
  const reading = { edits: (given: typeof passes) => void (passes = given), ...(isEchoed ? { isEchoed } : {}) };
  const result = redactReply(parts, options.parse, tools, reading);
  if (!options.sanitize || result.removed === 0) return { removed: 0, turns: 0, nudge: result.nudge };
  const changed = new Set<number>();
  let skipped = false;
  // A part the markup left empty leaves its turn's content, or holds the note (emptied-parts.ts).
  const fates = emptiedParts(
    parts.map((part, i) => ({ before: part.text, after: result.texts[i]!, message: part.turn, droppable: part.droppable })),
    (turn) => (Array.isArray(turns[turn]!.turn.content) ? (turns[turn]!.turn.content as unknown[]).length : 1),
  );
  result.texts.forEach((text, i) => {
    const part = parts[i]!;
    if (text === part.text) return;
    // A turn resolved from a reference is not in the body: read, never rewritten.
    if (turns[part.turn]!.readOnly) return void (skipped = true);
    const fate = fates.get(i);
    // A droppable part is an element of a content array: its path ends in [index, "text"].
    if (fate === "drop") edits.push({ kind: "remove", path: part.path.slice(0, -1) });
    else {
      const now = fate === "note" ? REMOVED_NOTE : text;
      edits.push({ kind: "replace", path: part.path, json: JSON.stringify(now) });
      // A part that holds the note alone had all of its text replaced by it.
      const own = fate === "note" ? [[{ start: 0, end: part.text.length, length: now.length }]] : passes.map((pass) => pass[i] ?? []);
      if (part.annotations) edits.push(...annotationEdits(part.annotations, part.text, own));
    }
    changed.add(part.turn);
  });
  return { removed: skipped ? changed.size : result.removed, turns: changed.size, nudge: result.nudge };
}

/**
 * Annotations that point into a part's text by offsets (a Responses output_text part's url_citation
 * and container_file_citation; a chat message's, into its string content) and where they are.
 */
interface PartAnnotations {
  path: JsonPath;
  list: readonly unknown[];
}

/**
 * The edits that move a rewritten text's annotations with it: each offset goes through the edits
 * the readings made (`passes`: each reading's edits in order, in the offsets of the text it read),
 * not through a search for the cited words (as the live repair's mover does: it only takes text
 * out, while history puts a note in that may be longer than the markup, so words after it stand
 * later than they did, and the same words earlier are other words). An offset after an edit moves
 * by that edit's change in length; an annotation that shares a character with a replaced range (or
 * holds an insertion inside it) is removed; one without offsets stays. Only those numbers and the
 * removed elements change in the body: every other field (an id, a title, a URL) goes up as the
 * client sent it. Each annotation costs a binary search per reading (log edits).
 * Anthropic has none to move: a citation names a place in the cited document (start_char_index
 * and the like count in that document), never in the text block, which it cites as a whole.
 */
function annotationEdits({ path, list }: PartAnnotations, was: string, passes: readonly (readonly TextEdit[])[]): JsonEdit[] {
  const shifts = passes.map(shiftsOf);
  const edits: JsonEdit[] = [];
  list.forEach((annotation, j) => {
    if (!isObject(annotation)) return;
    // A chat annotation keeps its offsets under url_citation (annotations.ts reads both forms).
    const nested = isObject(annotation.url_citation);
    const from = (nested ? annotation.url_citation : annotation) as Json;
    if (!hasOffsets(from, was.length)) return;
    let start = from.start_index as number;
    let end = from.end_index as number;
    for (let k = 0; k < passes.length; k++) {
      const moved = movedThrough(passes[k]!, shifts[k]!, start, end);
      if (moved === undefined) return void edits.push({ kind: "remove", path: [...path, j] });
      [start, end] = moved;
    }
    const to: Record<string, number> = { start_index: start, end_index: end };
    for (const key of ["start_index", "end_index"]) {
      if (from[key] !== to[key]) edits.push({ kind: "replace", path: [...path, j, ...(nested ? ["url_citation"] : []), key], json: String(to[key]) });
    }
  });
  return edits;
}

/** For each edit of a reading, how far offsets after all the edits before it moved (prefix sums of the length changes). */
function shiftsOf(edits: readonly TextEdit[]): number[] {
  const shifts = [0];
  for (const edit of edits) shifts.push(shifts.at(-1)! + edit.length - (edit.end - edit.start));
  return shifts;
}

/** [start, end) after one reading's edits (in order, apart), or undefined when one of them touched it. */
function movedThrough(edits: readonly TextEdit[], shifts: readonly number[], start: number, end: number): [number, number] | undefined {
  // The first edit that ends after `start`: every edit before it lies wholly before the span.
  let lo = 0;
  let hi = edits.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (edits[mid]!.end <= start) lo = mid + 1;
    else hi = mid;
  }
  const next = edits[lo];
  // It starts inside the span (or, for an empty span, the span's point lies strictly inside it).
  if (next !== undefined && (start < end ? next.start < end : next.start < start)) return undefined;
  return [start + shifts[lo]!, end + shifts[lo]!];
}

/** One assistant turn of a reply: where it is, what the model was given inside the reply before it (Responses items), and whether it is only read (resolved). */
interface ReplyTurn {
  turn: Json;
  path: JsonPath;
  between: readonly unknown[];
  readOnly: boolean;
}

/**
 * The text parts of one reply's assistant turns with their paths, each turn's content after the
 * one before it (consecutive assistant messages are one turn: repliesOf). Markup runs on from one
 * part into the next only where the live repair reads them as one span: consecutive text parts (an
 * Anthropic text block after a text block, also the first block of the next message; a Responses
 * output_text part after one of the same message item). A Responses message item is read apart
 * from the one before it, and so is a part after a part of another kind (a tool_use block between).
 */
function textPartsOf(turns: readonly ReplyTurn[], shape: Shape, readGiven: boolean): (ReplyPart & { path: JsonPath; turn: number; droppable: boolean; annotations?: PartAnnotations })[] {
  /** Every content part of the reply in order; a string content is one text part (never dropped: it is the turn's whole content). */
  const content: { part: unknown; path: JsonPath; turn: number; element: boolean }[] = [];
  turns.forEach(({ turn, path }, n) => {
    if (typeof turn.content === "string") content.push({ part: { type: "text", text: turn.content }, path: [...path, "content"], turn: n, element: false });
    else if (Array.isArray(turn.content)) turn.content.forEach((part, at) => content.push({ part, path: [...path, "content", at, "text"], turn: n, element: true }));
  });
  const { parts, at } = replyTextParts(content, ({ part }) => (isObject(part) && TEXT_PARTS.has(part.type as string) && typeof part.text === "string" ? part.text : undefined));
  return parts.map((part, i) => {
    const { path, turn, element, part: whole } = content[at[i]!]!;
    // A Responses message item's output_text parts are read together, as a chat content array is; the next item is read apart.
    const newItem = shape === "responses" && i > 0 && content[at[i - 1]!]!.turn !== turn;
    const droppable = element && onlyText(whole as Json);
    const out: ReplyPart & { path: JsonPath; turn: number; droppable: boolean; annotations?: PartAnnotations } = { text: part.text, path, turn, droppable, apart: newItem || part.apart === true };
    // Offsets into this text: a content part's own annotations, or a chat message's beside its string content.
    const holder = element ? whole : shape === "chat" ? turns[turn]!.turn : undefined;
    if (isObject(holder) && Array.isArray(holder.annotations) && holder.annotations.length > 0) out.annotations = { path: [...path.slice(0, -1), "annotations"], list: holder.annotations };
    // The server tool results (web_fetch_tool_result, ...) of a Messages reply before this text block were given to it.
    const blocks =
      readGiven && shape === "messages"
        ? content
            .slice(i === 0 ? 0 : at[i - 1]! + 1, at[i])
            .map((c) => c.part)
            .filter(isGivenBlock)
        : [];
    // Its own citations quote sources (cited_text): given to its text.
    if (readGiven && shape === "messages" && citesSource(content[at[i]!]!.part)) blocks.push(content[at[i]!]!.part);
    if (blocks.length > 0) out.given = () => blocks.flatMap(givenFromMessagesBlock);
    // A Responses reply's server tool items (an MCP call's output, file search results) between its
    // messages were given to the text after them, as the live repair reads them (addGiven).
    const items = readGiven && shape === "responses" ? turns.slice((i === 0 ? 0 : content[at[i - 1]!]!.turn) + 1, turn + 1).flatMap((t) => t.between) : [];
    if (items.length > 0) out.given = () => items.flatMap(givenFromResponsesItem);
    return out;
  });
}

/** A chat turn with `tool_calls`, or a Messages turn with a `tool_use` block (Responses keeps calls in items of their own). */
function madeNativeCall(turn: Json): boolean {
  if (Array.isArray(turn.tool_calls) && turn.tool_calls.length > 0) return true;
  return Array.isArray(turn.content) && turn.content.some((part) => isObject(part) && part.type === "tool_use");
}

/**
 * Whether the system prompt addToSystem writes to already holds `text`: the chat system and
 * developer messages, the Messages `system`, the Responses `instructions` and system or developer
 * input items. Only the system channel counts: the client (or a layer in front) writes it, never
 * the model or a tool.
 */
function systemHolds(body: Json, shape: Shape, text: string): boolean {
  // A text part's text, or (Responses instructions as input items) an item's content parts.
  const holds = (value: unknown, depth = 0): boolean => {
    if (typeof value === "string") return value.includes(text);
    if (!Array.isArray(value)) return false;
    return value.some((part) => isObject(part) && ((typeof part.text === "string" && part.text.includes(text)) || (depth === 0 && holds(part.content, 1))));
  };
  const systemTurns = (turns: unknown) => Array.isArray(turns) && turns.some((turn) => isObject(turn) && (turn.role === "system" || turn.role === "developer") && holds(turn.content));
  if (shape === "chat") return systemTurns(body.messages);
  if (shape === "messages") return holds(body.system);
  return holds(body.instructions) || systemTurns(body.input);
}

/** The plugin's "system" channel: the correction joins the system prompt of each wire. */
function addToSystem(body: Json, shape: Shape, text: string): JsonEdit {
  const joined = (before: unknown) => JSON.stringify(typeof before === "string" && before ? `${before}\n\n${text}` : text);
  const field = (name: string): JsonEdit => (name in body ? { kind: "replace", path: [name], json: joined(body[name]) } : { kind: "first-member", path: [], member: `${JSON.stringify(name)}:${joined(undefined)}` });
  // Responses `instructions` may be an array of input items (as a Response object reports it):
  // every one of them is the client's system prompt, so the correction is one more item after them.
  if (shape === "responses") return Array.isArray(body.instructions) ? { kind: "last-element", path: ["instructions"], json: JSON.stringify(instructionItem(body.instructions, text)) } : field("instructions");
  if (shape === "messages") return Array.isArray(body.system) ? { kind: "last-element", path: ["system"], json: JSON.stringify({ type: "text", text }) } : field("system");
  // Chat: the client's own system (or developer) message takes it, as text or as one more text
  // part; a second system message could be refused by a chat template, or land after theirs.
  const first = (body.messages as unknown[])[0];
  if (isObject(first) && (first.role === "system" || first.role === "developer")) {
    if (typeof first.content === "string") return { kind: "replace", path: ["messages", 0, "content"], json: joined(first.content) };
    if (Array.isArray(first.content)) return { kind: "last-element", path: ["messages", 0, "content"], json: JSON.stringify({ type: "text", text }) };
    // No prompt yet (`content: null`, or none at all, which some clients send for an empty one): the correction is it.
    if (first.content === null) return { kind: "replace", path: ["messages", 0, "content"], json: joined(undefined) };
    if (!("content" in first)) return { kind: "first-member", path: ["messages", 0], member: `"content":${joined(undefined)}` };
  }
  return { kind: "first-element", path: ["messages"], json: JSON.stringify({ role: "system", content: text }) };
}

/** The correction as an input item of a Responses `instructions` array, in the role the client's own items there use. */
function instructionItem(items: readonly unknown[], text: string): Json {
  const own = [...items].reverse().find((item) => isObject(item) && (item.role === "system" || item.role === "developer")) as Json | undefined;
  return { type: "message", role: own?.role ?? "developer", content: [{ type: "input_text", text }] };
}
