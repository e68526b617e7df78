// OpenAI's Responses API (`POST …/responses`), as @ai-sdk/openai speaks it for custom providers
// declared with that package, vivgrid and Azure: leaked markup in output_text becomes
// function_call output items.
import { openAiOneCall, responsesToolChoice } from "../tool-choice.ts";
import type { RecoveredCall, ToolSpec } from "../../parse/types.ts";
import type { AnswerSoFar, EngineSummary } from "../../engine/types.ts";
import { givenFromResponsesBody, ownItem } from "../../echo/from-request.ts";
import { givenFromResponsesItem } from "../../echo/from-reply.ts";
import { type Json, isObject } from "../../sse/json.ts";
import { NATIVE_ITEMS, functionCallItem, textOf, textOfStep } from "./items.ts";
import { ResponsesStreamRewriter } from "./stream.ts";
import { declaredToolNames } from "../declared-names.ts";
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
  rewriter: (guard, onFinal, engine, oneCall, addGiven) => new ResponsesStreamRewriter(guard, onFinal, engine, oneCall, addGiven),
};

function declaredTools(body: Json): ToolSpec[] {
  if (!Array.isArray(body.tools)) return [];
  const tools: ToolSpec[] = [];
  for (const tool of body.tools) {
    if (!isObject(tool) || tool.type !== "function" || typeof tool.name !== "string" || !tool.name) continue;
    tools.push(isObject(tool.parameters) ? { name: tool.name, parameters: tool.parameters } : { name: tool.name });
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
  if (!output.some((item) => isMessage(item) && item.content.some(isOutputText))) return false;
  const native = output.some((item) => isObject(item) && NATIVE_ITEMS.has(item.type as string));
  const guards: GuardedEngine[] = [];
  /** Parts whose engine still holds text after the reply's last call, undecided. */
  let undecided: Held[] = [];
  const out: unknown[] = [];
  let changed = false;
  let before: AnswerSoFar | undefined;
  for (const item of output) {
    out.push(item);
    // A server tool's item (an MCP call's output, code interpreter logs): given content for the messages after it.
    if (ctx.addGiven && !ownItem(item)) ctx.addGiven(() => givenFromResponsesItem(item));
    if (!isMessage(item)) continue;
    const calls: RecoveredCall[] = [];
    for (const part of item.content) {
      if (!isOutputText(part)) continue;
      const guard = ctx.engine(undefined, before);
      guards.push(guard);
      const step = guard.step({ native, delta: part.text, endSpan: true });
      if (!step.ok) return false;
      const found = calls.length;
      let text = textOf(step.events, calls);
      before = guard.carryOver();
      // A call here, or this part's text no longer held after one (past the tail limit): what the parts before held shows.
      if (undecided.length > 0 && (calls.length > found || before?.tail === undefined)) {
        changed = decide(undecided, "release") || changed;
        undecided = [];
      }
      if (before?.tail !== undefined && guard.held > 0) undecided.push({ guard, part });
      else text += textOfStep(guard.step({ flush: true }), calls);
      if (text !== part.text) {
        part.text = text;
        changed = true;
      }
    }
    if (calls.length > 0) changed = true;
    out.push(...calls.map((call) => functionCallItem(call, "completed")));
  }
  // The reply's end: text after its last call is stripped.
  decide(undecided, "end");
  const summaries: EngineSummary[] = [];
  for (const guard of guards) {
    const summary = guard.summary();
    if (summary) summaries.push(summary);
  }
  ctx.report(summaries);
  if (!changed) return false;
  body.output = out;
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

function isMessage(item: unknown): item is Json & { content: unknown[] } {
  return isObject(item) && item.type === "message" && Array.isArray(item.content);
}

function isOutputText(part: unknown): part is Json & { text: string } {
  return isObject(part) && part.type === "output_text" && typeof part.text === "string";
}
