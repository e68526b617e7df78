// Drop-in fetch for OpenAI chat-completions endpoints: leaked tool-call markup in `content`
// comes back as real `tool_calls`, so any OpenAI-compatible client sees a normal tool call.
import type { ToolSpec } from "../parse/types.ts";
import type { EchoGuard, EngineOptions, EngineSummary, RepairEngine } from "../stream/types.ts";
import { ChunkRewriter } from "../wires/chat/rewriter.ts";
import { givenFromChatBody, requestEchoGuard } from "../echo/given.ts";
import { rewriteEventStream } from "../sse/rewrite.ts";
import { textAndCalls } from "../stream/events.ts";
import { type Json, isObject } from "../sse/json.ts";
import { openAiCall } from "../wires/chat/openai.ts";
import { chatToolChoice, offeredTools } from "../wires/tool-choice.ts";
import { ReasoningChannel } from "../engine/reasoning-channel.ts";
import type { Wire } from "../wires/wire.ts";
import { mayBeWire, wireFor } from "../wires/registry.ts";
import { createRepairEngine } from "../stream/engine.ts";
import { createAttemptCounter } from "./attempt-counter.ts";
import { describeError } from "../engine/describe-error.ts";
import { engineOptions } from "./engine-options.ts";
import { GuardedEngine } from "../engine/guarded.ts";
import { mergeSummaries } from "./merge-summaries.ts";
import { type AdapterDeps, type AdapterOptions, type EngineFactory, REQUEST_TAG_HEADER, repairEnabled } from "./options.ts";
import { announceRepair, debugLine, report } from "./report.ts";
import { readRequestBody } from "./request-body.ts";
import { settleOptions } from "./settle-options.ts";

interface Plan {
  input: string | URL | Request;
  init: RequestInit | undefined;
  tag: string | undefined;
  attempt: number;
  /** Declared tools; undefined means the response is not ours to touch. */
  tools: ToolSpec[] | undefined;
  /** The echo guard over this request's given content, shared by every choice of the response. */
  isEchoed?: EchoGuard;
  /** The wire of a request that is not chat-completions. */
  wire?: Wire;
}

interface ResponseContext {
  options: AdapterOptions;
  plan: Plan;
  engine: (extra?: Partial<EngineOptions>) => RepairEngine;
}

export function repairFetch(
  given: AdapterOptions = {},
  baseFetch: typeof fetch = globalThis.fetch,
  deps: AdapterDeps = {},
): typeof fetch {
  const options = settleOptions(given);
  const nextAttempt = createAttemptCounter();
  const factory = deps.createEngine ?? createRepairEngine;
  const repaired = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    // What goes upstream: planning may swap in the tag-free request and a re-readable body.
    const forward: Forward = { input, init };
    let plan: Plan;
    try {
      plan = await planRequest(forward, options, nextAttempt);
    } catch (error) {
      debugLine(options, `request inspection failed, passing through: ${describeError(error)}`);
      return baseFetch(forward.input, forward.init);
    }
    if (plan.tools) announceRepair(options, plan.tag);
    const response = await baseFetch(plan.input, plan.init);
    if (!plan.tools) return response;
    try {
      return await repairResponse(response, { options, plan, engine: bindFactory(factory, options, plan) });
    } catch (error) {
      debugLine(options, `response repair failed, passing through: ${describeError(error)}`);
      return response;
    }
  };
  return Object.assign(repaired, { preconnect: baseFetch.preconnect }) as typeof fetch;
}

function bindFactory(factory: EngineFactory, options: AdapterOptions, plan: Plan): (extra?: Partial<EngineOptions>) => RepairEngine {
  return (extra) => factory({ ...engineOptions(options, plan.tools ?? [], plan.isEchoed), ...extra });
}

// ---------------------------------------------------------------- request

interface Forward {
  input: string | URL | Request;
  init: RequestInit | undefined;
}

async function planRequest(forward: Forward, options: AdapterOptions, nextAttempt: (tag: string | undefined) => number): Promise<Plan> {
  const { input, init } = forward;
  const stripped = stripTag(input, init);
  Object.assign(forward, { input: stripped.input, init: stripped.init });
  const plan: Plan = { ...stripped, attempt: 0, tools: undefined };
  if (!repairEnabled(options)) return plan;
  const method = (init?.method ?? (input instanceof Request ? input.method : "GET")).toUpperCase();
  const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
  const pathname = new URL(url, "http://localhost").pathname;
  const chat = pathname.endsWith("/chat/completions");
  if (method !== "POST" || !(chat || mayBeWire(pathname))) return plan;
  const read = await readRequestBody(forward.input, forward.init);
  Object.assign(forward, { input: read.input, init: read.init });
  Object.assign(plan, { input: read.input, init: read.init });
  if (!("text" in read)) {
    debugLine(options, `${read.why}: passing through unrepaired`);
    return plan;
  }
  let body: unknown;
  try {
    body = JSON.parse(read.text);
  } catch {
    debugLine(options, "request body is not JSON: passing through unrepaired");
    return plan;
  }
  if (!chat) return planWire(plan, wireFor(pathname, body), body as Json, options, nextAttempt);
  const tools = declaredTools(body);
  if (tools.length === 0) return plan;
  // A recovered call never gets more than the model was offered (S06).
  const choice = chatToolChoice((body as { tool_choice?: unknown }).tool_choice);
  if (choice.type === "invalid") debugLine(options, `${choice.why}: no call is recovered from this response`);
  plan.tools = offeredTools(tools, choice);
  // Read only if a call is about to be recovered: the passthrough path never walks the messages.
  plan.isEchoed = requestEchoGuard(options, () => givenFromChatBody(body));
  plan.attempt = nextAttempt(stripped.tag);
  return plan;
}

function planWire(plan: Plan, wire: Wire | undefined, body: Json, options: AdapterOptions, nextAttempt: (tag: string | undefined) => number): Plan {
  if (!wire) return plan;
  const tools = wire.declared(body);
  if (tools.length === 0) return plan;
  plan.wire = wire;
  plan.tools = offeredTools(tools, wire.allowed(body));
  plan.isEchoed = requestEchoGuard(options, () => wire.given(body));
  plan.attempt = nextAttempt(plan.tag);
  return plan;
}

function stripTag(input: string | URL | Request, init: RequestInit | undefined) {
  if (init?.headers !== undefined) {
    const headers = new Headers(init.headers);
    const tag = headers.get(REQUEST_TAG_HEADER) ?? undefined;
    if (tag === undefined) return { input, init, tag };
    headers.delete(REQUEST_TAG_HEADER);
    return { input, init: { ...init, headers }, tag };
  }
  if (input instanceof Request && input.headers.has(REQUEST_TAG_HEADER)) {
    const tag = input.headers.get(REQUEST_TAG_HEADER) ?? undefined;
    const request = new Request(input);
    request.headers.delete(REQUEST_TAG_HEADER);
    return { input: request, init, tag };
  }
  return { input, init, tag: undefined };
}

function declaredTools(body: unknown): ToolSpec[] {
  if (!isObject(body) || !Array.isArray(body.tools)) return [];
  const tools: ToolSpec[] = [];
  for (const tool of body.tools) {
    if (!isObject(tool) || tool.type !== "function" || !isObject(tool.function)) continue;
    const { name, parameters } = tool.function;
    if (typeof name !== "string" || !name) continue;
    tools.push(isObject(parameters) ? { name, parameters } : { name });
  }
  return tools;
}

// ---------------------------------------------------------------- response

async function repairResponse(response: Response, ctx: ResponseContext): Promise<Response> {
  if (!response.ok || response.body === null) return response;
  const type = response.headers.get("content-type") ?? "";
  if (type.includes("text/event-stream")) return repairStream(response, ctx);
  if (type.includes("json")) return repairJson(response, ctx);
  return response;
}

function rebuilt(response: Response, body: BodyInit): Response {
  const headers = new Headers(response.headers);
  headers.delete("content-length");
  return new Response(body, { status: response.status, statusText: response.statusText, headers });
}

function onEngineError(ctx: ResponseContext) {
  return (line: string) => debugLine(ctx.options, `${ctx.plan.tag ?? "untagged"}: ${line}`);
}

function finishReport(ctx: ResponseContext, guard: GuardedEngine, reasoning: ReasoningChannel, more: readonly EngineSummary[] = []): void {
  const summary = guard.summary();
  if (!summary) return;
  const thought = reasoning.summaries();
  const merged = thought.length > 0 || more.length > 0 ? mergeSummaries([summary, ...more, ...thought]) : summary;
  report(ctx.options, { requestTag: ctx.plan.tag, summary: merged, attempt: ctx.plan.attempt });
}

/** D06: one engine per stretch of reasoning, with the same tools, echo guard and options as the content's. */
function reasoningChannel(ctx: ResponseContext): ReasoningChannel {
  return new ReasoningChannel(() => new GuardedEngine(ctx.engine({ channel: "reasoning" }), onEngineError(ctx)));
}

async function repairJson(response: Response, ctx: ResponseContext): Promise<Response> {
  const text = await response.clone().text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return response;
  }
  if (ctx.plan.wire) return repairWireJson(response, body, ctx.plan.wire, ctx);
  if (!isObject(body) || !Array.isArray(body.choices)) return response;
  const summaries: EngineSummary[] = [];
  let changed = false;
  for (const choice of body.choices) {
    const message = isObject(choice) ? choice.message : undefined;
    if (!isObject(choice) || !isObject(message)) continue;
    // A reply whose answer is all in reasoning (D06) may come with no content at all.
    const content = typeof message.content === "string" ? message.content : message.content == null && hasReasoning(message) ? "" : undefined;
    if (content === undefined) continue;
    const native = Array.isArray(message.tool_calls) && message.tool_calls.length > 0;
    const guard = new GuardedEngine(ctx.engine(), onEngineError(ctx));
    const thinking = messageReasoning(message, content, native, ctx);
    const step = guard.step({ native, delta: content, flush: true });
    if (!step.ok) return response;
    const { text: visible, calls: contentCalls } = textAndCalls(step.events);
    const calls = [...contentCalls, ...(thinking?.channel.settle(contentCalls.length) ?? [])];
    // A trailing block that did not run goes back into the reasoning.
    if (thinking) thinking.text += thinking.channel.take();
    const summary = guard.summary();
    if (summary) summaries.push(summary, ...(thinking?.channel.summaries() ?? []));
    if (thinking && thinking.text !== message[thinking.key]) {
      message[thinking.key] = thinking.text;
      changed = true;
    }
    if (visible === content && calls.length === 0) continue;
    changed = true;
    message.content = visible === "" && calls.length > 0 ? null : visible;
    if (calls.length > 0) {
      const existing = Array.isArray(message.tool_calls) ? message.tool_calls : [];
      message.tool_calls = [...existing, ...calls.map((call) => openAiCall(call))];
      choice.finish_reason = "tool_calls";
    }
  }
  if (summaries.length > 0) {
    report(ctx.options, { requestTag: ctx.plan.tag, summary: mergeSummaries(summaries), attempt: ctx.plan.attempt });
  }
  if (!changed) return response;
  // The clone was read; the original's untouched branch is no longer needed.
  response.body?.cancel().catch(() => undefined);
  return rebuilt(response, JSON.stringify(body));
}

/** D06 for a whole message: its reasoning text without a trailing block that may run, and the channel holding that block. */
function messageReasoning(message: Record<string, unknown>, content: string, native: boolean, ctx: ResponseContext) {
  const key = reasoningKey(message);
  if (key === undefined) return undefined;
  const channel = reasoningChannel(ctx);
  if (native) channel.noteNative();
  channel.noteContent(content);
  const text = channel.feed(message[key] as string) + channel.close();
  return { key, channel, text };
}

function reasoningKey(message: Record<string, unknown>): "reasoning_content" | "reasoning" | undefined {
  if (typeof message.reasoning_content === "string") return "reasoning_content";
  return typeof message.reasoning === "string" ? "reasoning" : undefined;
}

function hasReasoning(message: Record<string, unknown>): boolean {
  return reasoningKey(message) !== undefined;
}

function repairWireJson(response: Response, body: unknown, wire: Wire, ctx: ResponseContext): Response {
  if (!isObject(body)) return response;
  const changed = wire.repairJson(body, {
    engine: () => new GuardedEngine(ctx.engine(), onEngineError(ctx)),
    report: (summaries) => {
      if (summaries.length > 0) report(ctx.options, { requestTag: ctx.plan.tag, summary: mergeSummaries(summaries), attempt: ctx.plan.attempt });
    },
  });
  if (!changed) return response;
  response.body?.cancel().catch(() => undefined);
  return rebuilt(response, JSON.stringify(body));
}

// ---------------------------------------------------------------- SSE

function repairStream(response: Response, ctx: ResponseContext): Response {
  const guard = new GuardedEngine(ctx.engine(), onEngineError(ctx));
  const reasoning = reasoningChannel(ctx);
  const onFinal = (more?: readonly EngineSummary[]) => finishReport(ctx, guard, reasoning, more);
  const another = () => new GuardedEngine(ctx.engine(), onEngineError(ctx));
  const rewriter = ctx.plan.wire ? ctx.plan.wire.rewriter(guard, onFinal, another) : new ChunkRewriter(guard, onFinal, reasoning);
  const onError = (error: unknown) => debugLine(ctx.options, `SSE rewrite failed, passing the event through: ${describeError(error)}`);
  return rebuilt(response, rewriteEventStream(response.body!, rewriter, onError));
}
