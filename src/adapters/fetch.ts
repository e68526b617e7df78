// Drop-in fetch for OpenAI chat-completions, Anthropic Messages and Responses endpoints: leaked
// tool-call markup comes back as the wire's real tool calls, so any client sees a normal tool call.
// The wire (src/wires/registry.ts) decides everything protocol-specific; this file owns the plan.
import type { ToolSpec } from "../parse/types.ts";
import type { EchoGuard, EngineOptions, EngineSummary, RepairEngine } from "../engine/types.ts";
import { requestEchoGuard } from "../echo/from-request.ts";
import { rewriteEventStream } from "../sse/rewrite.ts";
import { type Json, isObject } from "../sse/json.ts";
import { jsonOrUndefined } from "../grammar/plain-data.ts";
import { offeredTools } from "../wires/tool-choice.ts";
import type { EngineFor, Wire } from "../wires/wire.ts";
import { mayBeWire, wireFor } from "../wires/registry.ts";
import { createRepairEngine } from "../engine/engine.ts";
import { createAttemptCounter } from "./attempt-counter.ts";
import { engineOptions } from "../options/engine.ts";
import { GuardedEngine } from "../engine/guarded.ts";
import { mergeSummaries } from "./merge-summaries.ts";
import { type AdapterDeps, type AdapterOptions, type EngineFactory, repairEnabled } from "./options.ts";
import { announceRepair, debugLine, noteFailure, orPassThrough, report } from "./report.ts";
import { readRequestBody } from "./request-body.ts";
import { stripTag } from "./request-tag.ts";
import { settleOptions } from "../options/settle.ts";

interface Plan {
  input: string | URL | Request;
  init: RequestInit | undefined;
  tag: string | undefined;
  attempt: number;
  /** Declared tools; undefined means the response is not ours to touch. */
  tools: ToolSpec[] | undefined;
  /** The echo guard over this request's given content, shared by every choice of the response. */
  isEchoed?: EchoGuard;
  /** The wire the request speaks; set whenever `tools` is. */
  wire?: Wire;
  /** The request switched parallel tool calls off: one call per reply (CallPolicy.oneCall). */
  oneCall?: boolean;
}

interface ResponseContext {
  options: AdapterOptions;
  plan: Plan;
  wire: Wire;
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
    const plan = await orPassThrough<Promise<Plan | undefined>>(options, "request inspection", () => planRequest(forward, options, nextAttempt), async () => undefined);
    if (!plan) return baseFetch(forward.input, forward.init);
    if (plan.tools) announceRepair(options, plan.tag);
    const response = await baseFetch(plan.input, plan.init);
    const wire = plan.wire;
    if (!plan.tools || !wire) return response;
    return orPassThrough(options, "response repair", () => repairResponse(response, { options, plan, wire, engine: bindFactory(factory, options, plan) }), async () => response);
  };
  return Object.assign(repaired, { preconnect: baseFetch.preconnect }) as typeof fetch;
}

function bindFactory(factory: EngineFactory, options: AdapterOptions, plan: Plan): (extra?: Partial<EngineOptions>) => RepairEngine {
  return (extra) => factory({ ...engineOptions(options, plan.tools ?? [], plan.isEchoed), ...(plan.oneCall ? { maxCalls: 1 } : {}), ...extra });
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
  if (method !== "POST" || !mayBeWire(pathname)) return plan;
  const read = await readRequestBody(forward.input, forward.init);
  Object.assign(forward, { input: read.input, init: read.init });
  Object.assign(plan, { input: read.input, init: read.init });
  if (!("text" in read)) {
    debugLine(options, `${read.why}: passing through unrepaired`);
    return plan;
  }
  const body = jsonOrUndefined(read.text);
  if (body === undefined) {
    debugLine(options, "request body is not JSON: passing through unrepaired");
    return plan;
  }
  return planWire(plan, wireFor(pathname, body), body as Json, options, nextAttempt);
}

function planWire(plan: Plan, wire: Wire | undefined, body: Json, options: AdapterOptions, nextAttempt: (tag: string | undefined) => number): Plan {
  if (!wire) return plan;
  const tools = wire.declared(body);
  if (tools.length === 0) return plan;
  // A recovered call never gets more than the model was offered (S06): its tools, and its number.
  const { choice, oneCall } = wire.allowed(body);
  if (choice.type === "invalid") debugLine(options, `${choice.why}: no call is recovered from this response`);
  plan.wire = wire;
  plan.tools = offeredTools(tools, choice);
  if (oneCall) plan.oneCall = true;
  // Read only if a call is about to be recovered: the passthrough path never walks the messages.
  plan.isEchoed = requestEchoGuard(options, () => wire.given(body));
  plan.attempt = nextAttempt(plan.tag);
  return plan;
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

function finishReport(ctx: ResponseContext, guard: GuardedEngine, more: readonly EngineSummary[] = []): void {
  const summary = guard.summary();
  if (!summary) return;
  const merged = more.length > 0 ? mergeSummaries([summary, ...more]) : summary;
  report(ctx.options, { requestTag: ctx.plan.tag, summary: merged, attempt: ctx.plan.attempt });
}

/** A fresh guarded engine for one text channel; "reasoning" for a D06 reasoning stretch; `continues` for a later part of one reply. */
function channelEngine(ctx: ResponseContext): EngineFor {
  return (channel, continues) => {
    const extra: Partial<EngineOptions> = {};
    if (channel) extra.channel = channel;
    if (continues) extra.continues = continues;
    return new GuardedEngine(ctx.engine(extra), onEngineError(ctx));
  };
}

async function repairJson(response: Response, ctx: ResponseContext): Promise<Response> {
  const body = jsonOrUndefined(await response.clone().text());
  return body === undefined ? response : repairWireJson(response, body, ctx.wire, ctx);
}

function repairWireJson(response: Response, body: unknown, wire: Wire, ctx: ResponseContext): Response {
  if (!isObject(body)) return response;
  const changed = wire.repairJson(body, {
    engine: channelEngine(ctx),
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
  const engine = channelEngine(ctx);
  const guard = engine();
  const onFinal = (more?: readonly EngineSummary[]) => finishReport(ctx, guard, more);
  const rewriter = ctx.wire.rewriter(guard, onFinal, engine);
  const onError = (error: unknown) => noteFailure(ctx.options, "SSE rewrite of an event", error);
  return rebuilt(response, rewriteEventStream(response.body!, rewriter, onError));
}
