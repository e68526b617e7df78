// Anthropic Messages (`POST …/v1/messages`), as @ai-sdk/anthropic speaks it for Zen/Go Qwen and
// MiniMax routes and MiniMax's own provider: leaked markup in text blocks becomes tool_use blocks.
import { anthropicOneCall, anthropicToolChoice } from "../tool-choice.ts";
import type { RecoveredCall, ToolSpec } from "../../parse/types.ts";
import type { EngineEvent } from "../../engine/types.ts";
import { AnthropicStreamRewriter } from "./stream.ts";
import { isBlank } from "./held-text-start.ts";
import { CUT_STOP_REASONS, NATIVE_BLOCKS } from "./blocks.ts";
import { givenFromMessagesBody } from "../../echo/from-request.ts";
import { citesSource, givenFromMessagesBlock, isGivenBlock } from "../../echo/from-reply.ts";
import { type Json, isObject } from "../../sse/json.ts";
import { declaredTool, declaredToolNames } from "../declared-names.ts";
import { messagesPrefill } from "../prefill.ts";
import type { Wire, WireJsonContext } from "../wire.ts";

export const anthropicWire: Wire = {
  name: "anthropic-messages",
  declared: declaredTools,
  declaredNames: declaredToolNames,
  allowed: (body) => ({ choice: anthropicToolChoice(body.tool_choice), oneCall: anthropicOneCall(body.tool_choice) }),
  given: givenFromMessagesBody,
  prefill: messagesPrefill,
  repairJson: repairMessageJson,
  rewriter: (stream) => new AnthropicStreamRewriter(stream),
};

/** Client tools carry an input_schema; server tools (web search, code execution…) are typed and have none. */
function declaredTools(body: Json): ToolSpec[] {
  if (!Array.isArray(body.tools)) return [];
  const tools: ToolSpec[] = [];
  for (const tool of body.tools) {
    if (!isObject(tool) || typeof tool.name !== "string" || !tool.name) continue;
    if (tool.type !== undefined && tool.type !== "custom") continue;
    tools.push(declaredTool(tool.name, tool.input_schema));
  }
  return tools;
}

// ---------------------------------------------------------------- JSON

function repairMessageJson(body: Json, ctx: WireJsonContext): boolean {
  if (body.type !== "message" || !Array.isArray(body.content)) return false;
  const content = body.content as unknown[];
  let lastText = content.length - 1;
  while (lastText >= 0 && !isTextBlock(content[lastText])) lastText--;
  if (lastText === -1) return false;
  const guard = ctx.engine();
  // A reply the classifier stopped (refusal) was cut, not ended, as on the stream: its last text
  // block's held text stays as written, and the stop reason stays.
  const cut = CUT_STOP_REASONS.has(body.stop_reason as string);
  if (content.some((block) => isObject(block) && NATIVE_BLOCKS.has(block.type as string))) guard.step({ native: true });
  const out: unknown[] = [];
  let changed = false;
  let calls = 0;
  // Whitespace a text block's span ended holding, going on to the next text block (as on the stream).
  let blank = "";
  for (let i = 0; i < content.length; i++) {
    const block = content[i];
    if (!isTextBlock(block)) {
      // A server tool's result (a fetched page): given content for the text blocks after it.
      if (ctx.addGiven && isGivenBlock(block)) ctx.addGiven(() => givenFromMessagesBlock(block));
      out.push(block);
      continue;
    }
    // Its citations quote sources (cited_text): given to its text.
    if (ctx.addGiven && citesSource(block)) ctx.addGiven(() => givenFromMessagesBlock(block));
    // Markup never spans a text block and a block of another kind after it (a text block right after may continue it).
    const step = guard.step({ delta: block.text, endSpan: i !== lastText && !isTextBlock(content[i + 1]), flush: i === lastText && !cut });
    if (!step.ok) return false;
    const events = i === lastText && cut ? [...step.events, { type: "text" as const, text: guard.stop() }] : step.events;
    // The engine holds text at the block's end and a text block follows: the span goes on there.
    const goesOn = i !== lastText && isTextBlock(content[i + 1]) && guard.held > 0;
    const { blocks, rest } = blocksOf(events, block, blank, goesOn);
    blank = rest;
    calls += blocks.filter((b) => b.type === "tool_use").length;
    if (blocks.length !== 1 || blocks[0] !== block) changed = true;
    out.push(...blocks);
  }
  const summary = guard.summary();
  ctx.report(summary ? [summary] : []);
  if (!changed) return false;
  body.content = out;
  if (calls > 0 && !cut) body.stop_reason = "tool_use";
  return true;
}

function isTextBlock(block: unknown): block is Json & { text: string } {
  return isObject(block) && block.type === "text" && typeof block.text === "string";
}

/**
 * What replaces one text block: the original when the engine let it through whole. As on the
 * stream (held-text-start.ts), a text piece of whitespace alone (at the block's start or after a
 * call; `blank` carried from the block before) waits for words: a call drops it, and at the span's
 * end it is kept only when no call was taken out of the block, or goes on as `rest` (`goesOn`).
 */
function blocksOf(events: EngineEvent[], block: Json & { text: string }, blank: string, goesOn: boolean): { blocks: Json[]; rest: string } {
  if (blank === "" && events.length === 1 && events[0]!.type === "text" && events[0]!.text === block.text) return { blocks: [block], rest: "" };
  const out: Json[] = [];
  // The block's other fields (citations above all) go with its first text piece only: a copy on
  // every piece would list each source once per piece. A citation says which document it quotes,
  // not where in the text it sits, so the first piece is as good a home as any.
  const { citations, ...bare } = block;
  let first = true;
  let removed = false;
  const piece = (text: string) => {
    out.push(first && citations !== undefined ? { ...bare, citations, text } : { ...bare, text });
    first = false;
  };
  for (const event of events) {
    if (event.type === "call") {
      out.push(toolUseBlock(event.call));
      blank = "";
      removed = true;
    } else if (event.text === "") continue;
    else if (out.at(-1)?.type === "text") (out.at(-1) as { text: string }).text += event.text;
    // (The stream's BLANK_LIMIT never binds here: a JSON answer past the same 4 MiB is not read.)
    else if (isBlank(event.text)) blank += event.text;
    else {
      piece(blank + event.text);
      blank = "";
    }
  }
  if (blank !== "" && !goesOn) {
    if (!removed) piece(blank);
    blank = "";
  }
  // Text only, as it came (a cut reply's held text handed back after what was released).
  if (out.length === 1 && out[0]!.type === "text" && out[0]!.text === block.text) return { blocks: [block], rest: blank };
  return { blocks: out, rest: blank };
}

function toolUseBlock(call: RecoveredCall): Json {
  return { type: "tool_use", id: call.id, name: call.tool, input: call.input };
}
