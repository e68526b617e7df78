// doGenerate's result repaired: leaked markup in its text parts becomes tool-call parts after the
// rest of the content; reasoning parts go through the reasoning channel (D06) unless a provider
// signed them; a provider-executed tool's result is given content for the parts after it; a
// content-filter or error finish cuts the reply (what the engine holds stays as written).
import type { LanguageModelV3Content, LanguageModelV3GenerateResult, LanguageModelV3Text } from "@ai-sdk/provider";
import type { RecoveredCall } from "../../parse/types.ts";
import type { EngineEvent } from "../../engine/types.ts";
import { BlankWait } from "../../grammar/blank.ts";
import { ownParts, separates } from "./text-spans.ts";
import { type CallContext, callMetadata, cutsReply, finishReason, finishReport, metadata, noteToolResult, reasoningCalls, signedReasoning, toolCallPart } from "./call-context.ts";

/** The result as the model sent it whenever the engine fails: nothing half-repaired reaches the host. */
export function repairGenerate(result: LanguageModelV3GenerateResult, ctx: CallContext): LanguageModelV3GenerateResult {
  const { guard, reasoning } = ctx;
  // A call the provider ran itself (providerExecuted: a web search) is no native call: the client
  // runs nothing for it, so a leak beside it duplicates nothing, and it spends no one call.
  const native = result.content.some((part) => part.type === "tool-call" && part.providerExecuted !== true);
  if (native && !guard.step({ native }).ok) return result;
  if (native) reasoning.noteNative();
  const content: LanguageModelV3Content[] = [];
  const calls: RecoveredCall[] = [];
  /** Text parts the repair emptied, each with where its recovered calls begin and end in `calls`. */
  const emptied = new Map<LanguageModelV3Content, { from: number; to: number }>();
  let lastText: LanguageModelV3Text | undefined;
  for (const part of result.content) {
    if (part.type === "text") reasoning.noteContent(part.text);
  }
  /** The reasoning part whose trailing block the channel holds: a block that does not run goes back there. */
  let holder: Extract<LanguageModelV3Content, { type: "reasoning" }> | undefined;
  const thoughts = new Set<LanguageModelV3Content>();
  const shown = (more: string) => {
    if (more && holder) holder.text += more;
  };
  /** A part other than text came since the last text part: the next one begins a new span, as in the stream (text-spans.ts). */
  let apart = false;
  // Whitespace beside recovered calls, as the stream keeps it (blank-parts.ts, grammar/blank.ts):
  // while the text part read shows no words, its whitespace waits for them; a call taken out of
  // the part drops it, and at the part's end (finish) it is kept only when no call was.
  const blank = new BlankWait();
  let worded = false;
  const read = (events: readonly EngineEvent[]) => {
    let text = "";
    const found: RecoveredCall[] = [];
    for (const event of events) {
      if (event.type === "call") {
        blank.callTaken();
        found.push(event.call);
      } else if (worded || !blank.waits(event.text)) {
        text += blank.take() + event.text;
        worded ||= event.text !== "";
      }
    }
    return { text, calls: found };
  };
  const finish = (part: LanguageModelV3Text) => {
    const rest = blank.atEnd();
    if (rest === "") return;
    part.text += rest;
    emptied.delete(part);
  };
  for (const part of result.content) {
    if (separates(part.type)) apart = true;
    // A signed part goes on as written, its calls never run (signedReasoning).
    if (part.type === "reasoning" && !signedReasoning(part.providerMetadata)) {
      const released = reasoning.feed(part.text);
      shown(reasoning.take());
      const text = released + reasoning.close();
      if (text !== part.text || reasoning.holding) {
        const copy = { ...part, text };
        // A part left empty is dropped, unless the block it held goes back into it.
        if (part.text !== "") thoughts.add(copy);
        if (reasoning.holding) holder = copy;
        content.push(copy);
        continue;
      }
    }
    // A provider-executed tool's result (a fetched page): given content for the parts after it.
    if (part.type === "tool-result") noteToolResult(ctx, part);
    if (part.type !== "text") {
      content.push(part);
      continue;
    }
    if (lastText && (apart || ownParts(lastText.providerMetadata, part.providerMetadata))) {
      // The last text part's markup is decided at its end, into that part.
      const ended = guard.step({ endSpan: true });
      if (!ended.ok) return result;
      const more = read(ended.events);
      calls.push(...more.calls);
      const span = emptied.get(lastText);
      if (span) span.to = calls.length;
      if (more.text) {
        lastText.text += more.text;
        emptied.delete(lastText);
      }
    }
    apart = false;
    if (lastText) finish(lastText);
    blank.start();
    worded = false;
    const step = guard.step({ delta: part.text });
    if (!step.ok) return result;
    const released = read(step.events);
    const from = calls.length;
    calls.push(...released.calls);
    lastText = { ...part, text: released.text };
    if (part.text !== "" && released.text === "") emptied.set(lastText, { from, to: calls.length });
    content.push(lastText);
  }
  // A content filter or a failure stopped the reply: cut, what the engine holds stays as written
  // and no call runs from the reasoning (as the stream does).
  const cut = cutsReply(result.finishReason);
  const step = cut ? ({ ok: true, events: [{ type: "text", text: guard.stop() }] } as const) : guard.step({ flush: true });
  if (!step.ok) return result;
  const tail = read(step.events);
  if (cut) reasoning.abandon();
  // Calls decided at the end were held in the last text part: they are its calls too.
  const lastSpan = lastText && emptied.get(lastText);
  calls.push(...tail.calls);
  if (lastSpan) lastSpan.to = calls.length;
  calls.push(...(cut ? [] : reasoningCalls(ctx)));
  shown(reasoning.take());
  if (tail.text && lastText) {
    lastText.text += tail.text;
    emptied.delete(lastText);
  } else if (tail.text) content.push({ type: "text", text: tail.text });
  if (lastText) finish(lastText);
  finishReport(ctx);
  const callParts = calls.map(toolCallPart);
  const dropped = signedOnto(emptied, callParts);
  return {
    ...result,
    content: [...content.filter((part) => !dropped.has(part) && !(thoughts.has(part) && part.type === "reasoning" && part.text === "")), ...callParts],
    finishReason: finishReason(result.finishReason, ctx),
    providerMetadata: metadata(result.providerMetadata, ctx),
  };
}

/**
 * The emptied text parts that can go: a provider's data on one is never lost with it. What belongs
 * to a call (callMetadata: Gemini's thoughtSignature) moves onto the first call recovered from that
 * part, where @ai-sdk/google reads it back on the next request; what names the text item (an
 * OpenAI itemId) never does, and stays on the part, empty, as the stream leaves it on the part's
 * end. A part that gave no call and carries metadata stays, empty, with all of it.
 */
function signedOnto(emptied: Map<LanguageModelV3Content, { from: number; to: number }>, callParts: ReturnType<typeof toolCallPart>[]): Set<LanguageModelV3Content> {
  const dropped = new Set<LanguageModelV3Content>();
  for (const [part, { from, to }] of emptied) {
    if (part.type !== "text") continue;
    const onto = from < to ? callParts[from] : undefined;
    if (part.providerMetadata === undefined) {
      dropped.add(part);
      continue;
    }
    if (!onto) continue;
    const split = callMetadata(part.providerMetadata);
    if (split.call) onto.providerMetadata = { ...split.call, ...onto.providerMetadata };
    if (split.text) part.providerMetadata = split.text;
    else dropped.add(part);
  }
  return dropped;
}
