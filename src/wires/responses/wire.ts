// OpenAI's Responses API (`POST …/responses`), as @ai-sdk/openai speaks it for custom providers
// declared with that package, vivgrid and Azure: leaked markup in output_text becomes
// function_call output items.
import { openAiOneCall, responsesToolChoice } from "../tool-choice.ts";
import type { RecoveredCall, ToolSpec } from "../../parse/types.ts";
import type { AnswerSoFar, EngineSummary } from "../../engine/types.ts";
import { givenFromResponsesBody, ownItem } from "../../echo/from-request.ts";
import { givenFromResponsesItem } from "../../echo/from-reply.ts";
import { type Json, isObject } from "../../sse/json.ts";
import { NATIVE_ITEMS, QUIET_ITEMS, functionCallItem, textOf, textOfStep } from "./items.ts";
import { filteredOut, ResponsesStreamRewriter } from "./stream.ts";
import { declaredFunction, declaredToolNames } from "../declared-names.ts";
import { movedAnnotations } from "../annotations.ts";
import { responsesPrefill } from "../prefill.ts";
import type { Wire, WireJsonContext } from "../wire.ts";
import type { GuardedEngine } from "../../engine/guarded.ts";

export const responsesWire: Wire = {
  name: "responses",
  declared: declaredTools,
  declaredNames: declaredToolNames,
  allowed: (body) => ({ choice: responsesToolChoice(body.tool_choice), oneCall: openAiOneCall(body.parallel_tool_calls) }),
  given: givenFromResponsesBody,
  prefill: responsesPrefill,
  repairJson: repairResponseJson,
  rewriter: (stream) => new ResponsesStreamRewriter(stream),
};

function declaredTools(body: Json): ToolSpec[] {
  if (!Array.isArray(body.tools)) return [];
  const tools: ToolSpec[] = [];
  for (const tool of body.tools) {
    if (!isObject(tool) || tool.type !== "function" || typeof tool.name !== "string" || !tool.name) continue;
    tools.push(declaredFunction(tool.name, tool.parameters));
  }
  return tools;
}

// ---------------------------------------------------------------- JSON

/**
 * Every output_text part of every message item, each through an engine of its own (markup never
 * spans two parts) that reads on where the part before it ended: one reply is one documentation
 * context and one count of calls. Calls go right after their item. A part's end is not the
 * reply's: text held after a call there stays undecided (its engine's span ended, not flushed)
 * until a later part decides it, as the one text would: a call there shows it where it stood, the
 * reply's end strips it (S03).
 */
function repairResponseJson(body: Json, ctx: WireJsonContext): boolean {
  if (!Array.isArray(body.output)) return false;
  const output = body.output as unknown[];
  // Every id the reply gives is the server's newest item under it: what was noted under it goes
  // (ItemNotes.seen), before anything here can return; the reply's own notes come after.
  if (ctx.items) for (const item of output) if (isObject(item) && typeof item.id === "string") ctx.items.seen(item.id);
  if (!output.some((item) => isMessage(item) && item.content.some(isOutputText))) return false;
  const native = output.some((item) => isObject(item) && NATIVE_ITEMS.has(item.type as string));
  // A failed reply, or one a content filter stopped, was cut (as on the stream, stream.ts cutsReply):
  // its last part, if nothing but reasoning came after it, keeps what its engine held as written,
  // and so does the text held after the reply's last call; nothing there is decided.
  const cut = body.status === "failed" || (body.status === "incomplete" && filteredOut(body));
  // The reply's last text part (only quiet items after it): cut, it stays as written; else its end
  // is the reply's end (a flush, not endSpan), as the stream's response.completed decides it and
  // as the engine reads the one text (a costume the reply ended open is read again, review 53).
  const lastPart = replyEnd(output);
  const guards: GuardedEngine[] = [];
  /** Parts whose engine still holds text after the reply's last call, undecided. */
  let undecided: Held[] = [];
  const out: unknown[] = [];
  let changed = false;
  let before: AnswerSoFar | undefined;
  /** Annotated parts, with their text as the server wrote it. */
  const written = new Map<Json & { text: string }, string>();
  /** Each message item's output_text texts as the server wrote them (by content index). */
  const original = new Map<Json & { content: unknown[] }, (string | undefined)[]>();
  /** Calls decided at a message's end, waiting past the reasoning items after it (as on the stream). */
  let late: unknown[] = [];
  for (const item of output) {
    if (late.length > 0 && !(isObject(item) && QUIET_ITEMS.has(item.type as string))) {
      out.push(...late);
      late = [];
    }
    out.push(item);
    if (ctx.items && isMessage(item)) original.set(item, item.content.map((part) => (isOutputText(part) ? part.text : undefined)));
    // A server tool's item (an MCP call's output, code interpreter logs): given content for the messages after it.
    if (ctx.addGiven && !ownItem(item)) ctx.addGiven(() => givenFromResponsesItem(item));
    if (!isMessage(item)) continue;
    const calls: RecoveredCall[] = [];
    const ending: RecoveredCall[] = [];
    for (const part of item.content) {
      if (!isOutputText(part)) continue;
      const guard = ctx.engine(undefined, before);
      guards.push(guard);
      if (Array.isArray(part.annotations) && part.annotations.length > 0) written.set(part, part.text);
      const stopped = cut && part === lastPart;
      const endsReply = !cut && part === lastPart;
      const fed = guard.step({ native, delta: part.text });
      if (!fed.ok) return false;
      // The message's last part still holding text at its end: the stream decides that text only
      // when the reply goes on past the reasoning items after it, so calls it becomes go after them.
      const endCalls = !stopped && guard.held > 0 && part === item.content.at(-1) ? ending : calls;
      // Still holding text after a call before the reply's end decides it (the flush strips it).
      const tailHeld = endsReply && guard.afterCall;
      const step = stopped ? fed : guard.step(endsReply ? { flush: true } : { endSpan: true });
      if (!step.ok) return false;
      const found = calls.length + ending.length;
      let text = textOf(fed.events, calls) + (stopped ? "" : textOf(step.events, endCalls));
      before = guard.carryOver();
      // A call here, or this part's text no longer held after one (past the tail limit): what the parts before held shows.
      if (undecided.length > 0 && (calls.length + ending.length > found || (!stopped && (endsReply ? !tailHeld : before?.tail === undefined)))) {
        changed = decide(undecided, "release") || changed;
        undecided = [];
      }
      if (stopped) text += guard.stop();
      else if (endsReply) {
        // Flushed above: nothing more to read.
      } else if (before?.tail !== undefined && guard.held > 0) undecided.push({ guard, part });
      else text += textOfStep(guard.step({ flush: true }), endCalls);
      if (text !== part.text) {
        part.text = text;
        changed = true;
      }
    }
    if (calls.length + ending.length > 0) changed = true;
    out.push(...calls.map((call) => functionCallItem(call, "completed")));
    late.push(...ending.map((call) => functionCallItem(call, "completed")));
  }
  out.push(...late);
  // The reply's end: text after its last call is stripped (cut, it stays as written).
  if (cut) changed = stopAll(undecided) || changed;
  else decide(undecided, "end");
  const summaries: EngineSummary[] = [];
  for (const guard of guards) {
    const summary = guard.summary();
    if (summary) summaries.push(summary);
  }
  // Every message item as it went out (the reply ends here, changed or not).
  const shown = () => {
    for (const item of original.keys()) if (typeof item.id === "string") ctx.items!.shown(item.id, item);
  };
  ctx.report(summaries);
  if (!changed) {
    if (ctx.items) shown();
    return false;
  }
  for (const [part, text] of written) if (part.text !== text) part.annotations = movedAnnotations(part.annotations as unknown[], text, part.text);
  body.output = out;
  // The convenience field restating the text (OpenAI's SDKs join every output_text part into it,
  // some servers send it): the repaired text, or a client reading it shows the markup of a call that runs.
  if (typeof body.output_text === "string") body.output_text = outputText(out);
  // Message items whose text changed: the next request's item_reference to one must not replay the stored leak.
  if (ctx.items) {
    for (const [item, texts] of original) {
      if (typeof item.id === "string" && item.content.some((part, at) => isOutputText(part) && part.text !== texts[at])) ctx.items.repaired(item.id, item);
    }
    shown();
  }
  return true;
}

/** A part whose engine holds text after the reply's last call, and the part it goes into. */
interface Held {
  guard: GuardedEngine;
  part: Json & { text: string };
}

/** The reply decided what the parts held: released into them where it stood, or stripped at the end. True when a part's text grew. */
function decide(undecided: Held[], decision: "release" | "end"): boolean {
  let grew = false;
  for (const { guard, part } of undecided) {
    let text = "";
    if (decision === "release") {
      text += textOfStep(guard.step({ releaseTail: true }), []);
    }
    text += textOfStep(guard.step({ flush: true }), []);
    if (text !== "") {
      part.text += text;
      grew = true;
    }
  }
  return grew;
}

/** The reply was cut: what the parts held goes back into them as written. True when a part's text grew. */
function stopAll(undecided: Held[]): boolean {
  let grew = false;
  for (const { guard, part } of undecided) {
    const text = guard.stop();
    if (text !== "") {
      part.text += text;
      grew = true;
    }
  }
  return grew;
}

/** The reply's last content part, when only reasoning items (QUIET_ITEMS) come after its message item. */
function replyEnd(output: unknown[]): unknown {
  for (let at = output.length - 1; at >= 0; at--) {
    const item = output[at];
    if (isMessage(item)) return item.content.at(-1);
    if (!isObject(item) || !QUIET_ITEMS.has(item.type as string)) return undefined;
  }
  return undefined;
}

/** The text of every output_text part of every message item, joined as OpenAI's SDKs do. */
function outputText(output: unknown[]): string {
  return output.flatMap((item) => (isMessage(item) ? item.content.filter(isOutputText).map((part) => part.text) : [])).join("");
}

function isMessage(item: unknown): item is Json & { content: unknown[] } {
  return isObject(item) && item.type === "message" && Array.isArray(item.content);
}

function isOutputText(part: unknown): part is Json & { text: string } {
  return isObject(part) && part.type === "output_text" && typeof part.text === "string";
}
