// AI SDK middleware: leaked tool-call markup in text parts comes back as real tool-call parts.
import type {
  LanguageModelV3CallOptions,
  LanguageModelV3Content,
  LanguageModelV3FinishReason,
  LanguageModelV3GenerateResult,
  LanguageModelV3Middleware,
  LanguageModelV3Prompt,
  LanguageModelV3StreamPart,
  LanguageModelV3Text,
  SharedV3ProviderMetadata,
} from "@ai-sdk/provider";
import { sanitizePrompt } from "../history/prompt.ts";
import { textAndCalls } from "../engine/events.ts";
import type { JsonSchema, RecoveredCall, ToolSpec } from "../parse/types.ts";
import type { EngineEvent } from "../engine/types.ts";
import { givenFromCallOptions, requestEchoGuard } from "../echo/from-request.ts";
import { offeredTools, sdkOneCall, sdkToolChoice } from "../wires/tool-choice.ts";
import { pullStage, type Stage } from "../sse/pull-stage.ts";
import { ReasoningChannel } from "../engine/reasoning-channel.ts";
import { createRepairEngine } from "../engine/engine.ts";
import { createAttemptCounter } from "./attempt-counter.ts";
import { engineOptions } from "../options/engine.ts";
import { GuardedEngine } from "../engine/guarded.ts";
import { mergeSummaries } from "./merge-summaries.ts";
import { type AdapterDeps, type AdapterOptions, REQUEST_TAG_HEADER, repairEnabled } from "./options.ts";
import { debugLine, noteFailure, orPassThrough, report } from "./report.ts";
import { readGuarded, settleOptions } from "../options/settle.ts";
import { OPTIONS } from "../options/spec.ts";

type Part = LanguageModelV3StreamPart;

export interface MiddlewareOptions extends AdapterOptions {
  /** Replaces the built-in history sanitizer (src/history/prompt.ts). */
  sanitizeHistory?: (prompt: LanguageModelV3Prompt) => LanguageModelV3Prompt;
}

interface CallContext {
  options: MiddlewareOptions;
  guard: GuardedEngine;
  /** D06: reasoning parts through their own engines; their calls run only when reasoning was the answer. */
  reasoning: ReasoningChannel;
  /** Calls emitted from the reasoning channel. */
  fromReasoning: number;
  /** The call switched parallel tool calls off (sdkOneCall): one call per reply, held back until it ends. */
  oneCall: boolean;
  tag: string | undefined;
  attempt: number;
  reported: boolean;
}

export function repairMiddleware(given: MiddlewareOptions = {}, deps: AdapterDeps = {}): LanguageModelV3Middleware {
  const options: MiddlewareOptions = settleOptions(given);
  const nextAttempt = createAttemptCounter();
  const sanitizeHistory = historySanitizer(given, options);
  // wrapGenerate/wrapStream receive the very object transformParams returned, so the tag can ride along.
  const tags = new WeakMap<LanguageModelV3CallOptions, string>();

  const factory = deps.createEngine ?? createRepairEngine;

  /** undefined: nothing to repair for this call, pass it through. */
  function prepare(params: LanguageModelV3CallOptions): (() => CallContext) | undefined {
    const tools = declaredTools(params);
    if (tools.length === 0 || !repairEnabled(options)) return undefined;
    const tag = tags.get(params);
    const attempt = nextAttempt(tag);
    const onError = (line: string) => debugLine(options, `${tag ?? "untagged"}: ${line}`);
    // Read only if a call is about to be recovered: the passthrough path never walks the prompt.
    const isEchoed = requestEchoGuard(options, () => givenFromCallOptions(params));
    // A recovered call never gets more than the model was offered (S06).
    const choice = sdkToolChoice(params.toolChoice);
    if (choice.type === "invalid") debugLine(options, `${choice.why}: no call is recovered from this response`);
    const offered = offeredTools(tools, choice);
    // Every name the call declared, of any kind: another agent's name for a tool never stands for one.
    const names = declaredNames(params);
    // ...and never more calls than it allowed: one, when the call switched parallel calls off.
    const oneCall = sdkOneCall(params.providerOptions);
    const limit = oneCall ? { maxCalls: 1 } : {};
    return () => ({
      options,
      guard: new GuardedEngine(factory({ ...engineOptions(options, offered, names, isEchoed), ...limit }), onError),
      // One engine per reasoning part, each reading on where the part before it left off.
      reasoning: new ReasoningChannel((continues) => new GuardedEngine(factory({ ...engineOptions(options, offered, names, isEchoed), ...limit, channel: "reasoning", ...(continues ? { continues } : {}) }), onError)),
      fromReasoning: 0,
      oneCall,
      tag,
      attempt,
      reported: false,
    });
  }

  function create(make: (() => CallContext) | undefined): CallContext | undefined {
    return make && orPassThrough(options, "engine creation", make, () => undefined);
  }

  return {
    specificationVersion: "v3",

    async transformParams({ params }) {
      let out = params;
      const key = Object.keys(params.headers ?? {}).find((k) => k.toLowerCase() === REQUEST_TAG_HEADER);
      const tag = key === undefined ? undefined : params.headers?.[key];
      if (key !== undefined) {
        const { [key]: _dropped, ...headers } = params.headers ?? {};
        out = { ...out, headers };
      }
      if (sanitizeHistory) {
        const prompt = out.prompt;
        out = { ...out, prompt: orPassThrough(options, "sanitizeHistory", () => sanitizeHistory(prompt, declaredTools(params)), () => prompt) };
      }
      if (tag) tags.set(out, tag);
      return out;
    },

    async wrapGenerate({ doGenerate, params }) {
      const make = prepare(params);
      const result = await doGenerate();
      const ctx = create(make);
      if (!ctx) return result;
      return orPassThrough(options, "generate repair", () => repairGenerate(result, ctx), () => result);
    },

    async wrapStream({ doStream, params }) {
      const make = prepare(params);
      const result = await doStream();
      const ctx = create(make);
      if (!ctx) return result;
      return { ...result, stream: pullStage(result.stream, (out: (part: Part) => void) => repairParts(ctx, out)) };
    },
  };
}

const SANITIZE = OPTIONS.fields.history.fields.sanitize;

/** The built-in sanitizer reads history with the call's declared tools, as the live repair reads the reply. */
type HistorySanitizer = (prompt: LanguageModelV3Prompt, tools: readonly ToolSpec[]) => LanguageModelV3Prompt;

function historySanitizer(given: MiddlewareOptions, settled: MiddlewareOptions): HistorySanitizer | undefined {
  const custom = readGuarded(given, "sanitizeHistory");
  if (!custom.ok) debugLine(settled, "option sanitizeHistory could not be read; using the built-in sanitizer");
  if (custom.ok && typeof custom.value === "function") {
    const replacement = custom.value as NonNullable<MiddlewareOptions["sanitizeHistory"]>;
    return (prompt) => replacement(prompt);
  }
  // settleOptions read history.sanitize already (an unreadable key: its default, with a debug line).
  if ((settled.history?.sanitize ?? SANITIZE.default) === false) return undefined;
  return (prompt, tools) => sanitizePrompt(prompt, settled.parse, tools);
}

function declaredTools(params: LanguageModelV3CallOptions): ToolSpec[] {
  const tools: ToolSpec[] = [];
  for (const tool of params.tools ?? []) {
    if (tool.type === "function") tools.push({ name: tool.name, parameters: tool.inputSchema as JsonSchema });
  }
  return tools;
}

/** Function and provider tools alike: a provider tool's name is declared too. */
function declaredNames(params: LanguageModelV3CallOptions): string[] {
  const names: string[] = [];
  for (const tool of params.tools ?? []) {
    const name: unknown = (tool as { name?: unknown }).name;
    if (typeof name === "string" && name) names.push(name);
  }
  return names;
}

function finishReport(ctx: CallContext): void {
  if (ctx.reported || ctx.guard.failed) return;
  ctx.reported = true;
  const summary = fullSummary(ctx);
  if (summary) report(ctx.options, { requestTag: ctx.tag, summary, attempt: ctx.attempt });
}

/** The content engine's report, with the reasoning engines' when the reasoning was the answer. */
function fullSummary(ctx: CallContext) {
  const summary = ctx.guard.summary();
  if (!summary) return undefined;
  const thought = ctx.reasoning.summaries();
  return thought.length > 0 ? mergeSummaries([summary, ...thought]) : summary;
}

function recovered(ctx: CallContext): number {
  return ctx.guard.recovered + ctx.fromReasoning;
}

/** The reply ended: calls written in reasoning, if the reasoning was the whole answer. */
function reasoningCalls(ctx: CallContext): RecoveredCall[] {
  const calls = ctx.reasoning.settle(ctx.guard.recovered);
  ctx.fromReasoning += calls.length;
  return calls;
}

function finishReason(reason: LanguageModelV3FinishReason, ctx: CallContext): LanguageModelV3FinishReason {
  return recovered(ctx) > 0 ? { unified: "tool-calls", raw: reason.raw } : reason;
}

function metadata(existing: SharedV3ProviderMetadata | undefined, ctx: CallContext): SharedV3ProviderMetadata {
  const nudge = ctx.guard.failed ? null : (fullSummary(ctx)?.nudge ?? null);
  return { ...existing, dsmlFix: { recovered: recovered(ctx), nudge } };
}

function repairGenerate(result: LanguageModelV3GenerateResult, ctx: CallContext): LanguageModelV3GenerateResult {
  const { guard, reasoning } = ctx;
  const native = result.content.some((part) => part.type === "tool-call");
  if (native && !guard.step({ native }).ok) return result;
  if (native) reasoning.noteNative();
  const content: LanguageModelV3Content[] = [];
  const calls: RecoveredCall[] = [];
  const emptied = new Set<LanguageModelV3Content>();
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
  for (const part of result.content) {
    if (part.type === "reasoning") {
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
    if (part.type !== "text") {
      content.push(part);
      continue;
    }
    const step = guard.step({ delta: part.text });
    if (!step.ok) return result;
    const released = textAndCalls(step.events);
    calls.push(...released.calls);
    lastText = { ...part, text: released.text };
    if (part.text !== "" && released.text === "") emptied.add(lastText);
    content.push(lastText);
  }
  const step = guard.step({ flush: true });
  if (!step.ok) return result;
  const tail = textAndCalls(step.events);
  calls.push(...tail.calls, ...reasoningCalls(ctx));
  shown(reasoning.take());
  if (tail.text && lastText) {
    lastText.text += tail.text;
    emptied.delete(lastText);
  } else if (tail.text) content.push({ type: "text", text: tail.text });
  finishReport(ctx);
  return {
    ...result,
    content: [...content.filter((part) => !emptied.has(part) && !(thoughts.has(part) && part.type === "reasoning" && part.text === "")), ...calls.map(toolCallPart)],
    finishReason: finishReason(result.finishReason, ctx),
    providerMetadata: metadata(result.providerMetadata, ctx),
  };
}

function toolCallPart(call: RecoveredCall): Extract<Part, { type: "tool-call" }> {
  return { type: "tool-call", toolCallId: call.id, toolName: call.tool, input: JSON.stringify(call.input) };
}

/** The id our fed text belongs to when released text has no open text part to go to. */
const FALLBACK_TEXT_ID = "dsml-fix-text";

/**
 * One engine per stream. Released text keeps the id of the text part it was fed under; a text-end
 * is held back while the engine still holds that part's text, so no delta ever follows its end.
 */
function repairParts(ctx: CallContext, out: (part: Part) => void): Stage<Part> {
  const { guard, options, reasoning } = ctx;
  const open = new Set<string>();
  /** The reasoning part the reasoning channel's held text belongs to. */
  let thinking: string | undefined;
  // The id checked last, known to be open: consecutive deltas nearly always share it.
  let lastOpen: string | undefined;
  let owner: string | undefined;
  let deferredEnd: Extract<Part, { type: "text-end" }> | undefined;
  let nativeNoted = false;
  /** The reasoning part a held trailing block belongs to, and its end, kept until the block runs or goes back. */
  let heldThought: { id: string; end?: Part } | undefined;
  /**
   * One call per reply (ctx.oneCall): recovered calls are held back until the reply ends, so a
   * native call that comes first still wins (the engine withdraws them). Off once the reply ended.
   */
  let hold = ctx.oneCall;
  let heldCalls: RecoveredCall[] = [];

  return {
    each(part) {
      // The boundary written out, not orPassThrough(): this runs once per token, and a closure per token shows.
      try {
        if (part.type === "text-delta" && !guard.done) delta(part);
        else handle(part);
      } catch (error) {
        noteFailure(options, `stream repair on ${part.type}`, error);
        out(part);
      }
    },
    end() {
      endThought();
      if (!guard.done) settle(guard.step({ flush: true }), true);
      else reasoning.abandon();
      payThought();
      releaseEnd();
      finishReport(ctx);
    },
  };

  // Apart from handle() because it runs once per token: it should stay short.
  function delta(part: Extract<Part, { type: "text-delta" }>): void {
    if (deferredEnd !== undefined && deferredEnd.id !== part.id) releaseEnd();
    if (thinking !== undefined) endThought();
    if (!reasoning.answered) reasoning.noteContent(part.delta);
    if (heldThought !== undefined) payThought();
    owner = part.id;
    const step = guard.step({ delta: part.delta });
    if (!step.ok) {
      unhold();
      text(step.held);
      out(part);
      return releaseEnd();
    }
    const events = step.events;
    // Nothing held, nothing changed: the part itself goes on, providerMetadata and all.
    if (events.length === 1 && events[0]!.type === "text" && events[0]!.text === part.delta && isOpen(part.id)) out(part);
    else emit(events);
    if (deferredEnd !== undefined && guard.held === 0) releaseEnd();
  }

  function handle(part: Part): void {
    if (guard.done) {
      // The content side gave up: no reasoning call runs, and a held block goes back first.
      if (heldThought !== undefined) {
        reasoning.abandon();
        payThought();
      }
      if (part.type === "finish") return out(decorate(part));
      return out(part);
    }
    switch (part.type) {
      case "text-start":
        releaseEnd();
        open.add(part.id);
        // Held text moves to the newest part, so it never has to reopen one that already ended.
        if (guard.held > 0) owner = part.id;
        return out(part);
      case "text-end":
        if (part.id === owner && guard.held > 0) {
          deferredEnd = part;
          return;
        }
        close(part.id);
        return out(part);
      case "reasoning-delta":
        return thought(part);
      case "reasoning-end":
        if (part.id === thinking) endThought();
        if (heldThought?.id === part.id && heldThought.end === undefined) {
          heldThought.end = part;
          return;
        }
        return out(part);
      case "tool-input-start":
      case "tool-call":
        if (!nativeNoted) {
          nativeNoted = true;
          reasoning.noteNative();
          endThought();
          payThought();
          // Calls held back never go out; the text the engine held after them is the model's own again.
          const withdraw = heldCalls.length > 0;
          heldCalls = [];
          const step = guard.step({ native: true, withdraw });
          if (!step.ok) {
            text(step.held);
            releaseEnd();
          } else if (withdraw) {
            emit(step.events);
            if (guard.held === 0) releaseEnd();
          }
        }
        return out(part);
      case "finish":
        endThought();
        settle(guard.step({ flush: true }), true);
        releaseEnd();
        finishReport(ctx);
        return out(decorate(part));
      default:
        return out(part);
    }
  }

  function settle(step: ReturnType<GuardedEngine["step"]>, final = false): void {
    // The reply ended (or the engine gave up): calls held back go out first, as they came.
    if (final || !step.ok) unhold();
    if (!step.ok) {
      if (final) reasoning.abandon();
      payThought();
      return text(step.held);
    }
    const late = final ? reasoningCalls(ctx) : [];
    payThought();
    emit(step.events);
    for (const recovered of late) call(recovered);
  }

  /** D06: reasoning text passes on without the markup its engine took; the calls wait for the end. */
  function thought(part: Extract<Part, { type: "reasoning-delta" }>): void {
    if (thinking !== undefined && thinking !== part.id) endThought();
    thinking = part.id;
    const released = reasoning.feed(part.delta);
    payThought();
    if (released === part.delta) return out(part);
    if (released) out({ ...part, delta: released });
  }

  /** The reasoning stretch is over: what its engine held goes out under its own part, before anything else. */
  function endThought(): void {
    const id = thinking;
    thinking = undefined;
    const rest = reasoning.close();
    if (rest && id !== undefined) out({ type: "reasoning-delta", id, delta: rest });
    if (reasoning.holding && id !== undefined) heldThought ??= { id };
  }

  /** A held block that will not run goes back into its reasoning part; once nothing is held, that part may end. */
  function payThought(): void {
    const held = heldThought;
    if (held === undefined) return;
    const owed = reasoning.take();
    if (owed) out({ type: "reasoning-delta", id: held.id, delta: owed });
    if (reasoning.holding) return;
    heldThought = undefined;
    if (held.end) out(held.end);
  }

  function emit(events: EngineEvent[]): void {
    for (const event of events) {
      if (event.type === "text") text(event.text);
      else if (hold) heldCalls.push(event.call);
      else call(event.call);
    }
  }

  function unhold(): void {
    hold = false;
    const calls = heldCalls;
    heldCalls = [];
    for (const recovered of calls) call(recovered);
  }

  function text(delta: string): void {
    if (!delta) return;
    const id = owner ?? FALLBACK_TEXT_ID;
    if (isOpen(id)) return out({ type: "text-delta", id, delta });
    // The part already ended (held text at a boundary the engine did not report): give it a part of its own.
    out({ type: "text-start", id });
    out({ type: "text-delta", id, delta });
    out({ type: "text-end", id });
  }

  // Streamed like a native provider call so hosts that track tool-input-start see the call too.
  function call(recovered: RecoveredCall): void {
    const part = toolCallPart(recovered);
    out({ type: "tool-input-start", id: part.toolCallId, toolName: part.toolName });
    out({ type: "tool-input-delta", id: part.toolCallId, delta: part.input });
    out({ type: "tool-input-end", id: part.toolCallId });
    out(part);
  }

  function isOpen(id: string): boolean {
    if (id === lastOpen) return true;
    if (!open.has(id)) return false;
    lastOpen = id;
    return true;
  }

  function close(id: string): void {
    open.delete(id);
    if (id === lastOpen) lastOpen = undefined;
  }

  function releaseEnd(): void {
    if (!deferredEnd) return;
    close(deferredEnd.id);
    out(deferredEnd);
    deferredEnd = undefined;
  }

  function decorate(part: Extract<Part, { type: "finish" }>): Part {
    // A failed engine that emitted nothing leaves the finish exactly as the model sent it.
    if (guard.failed && guard.recovered === 0) return part;
    return {
      ...part,
      finishReason: finishReason(part.finishReason, ctx),
      providerMetadata: metadata(part.providerMetadata, ctx),
    };
  }
}
