// Drop-in fetch for OpenAI chat-completions, Anthropic Messages and Responses endpoints: leaked
// tool-call markup comes back as the wire's real tool calls, so any client sees a normal tool call.
// The wire (src/wires/registry.ts) decides everything protocol-specific; this file owns the plan.
import type { ToolSpec } from "../parse/types.ts";
import type { EchoGuard, EngineSummary } from "../engine/types.ts";
import { requestEchoGuard } from "../echo/from-request.ts";
import { rewriteEventStream } from "../sse/rewrite.ts";
import { concatBytes } from "../sse/framing.ts";
import { isEventStream, isJson } from "../sse/media-type.ts";
import { type Json, isObject } from "../sse/json.ts";
import { jsonOrUndefined } from "../grammar/plain-data.ts";
import { offeredTools } from "../wires/tool-choice.ts";
import type { AddGiven, EngineFor, ItemNotes, Wire } from "../wires/wire.ts";
import type { Prefill } from "../wires/prefill.ts";
import { mayBeWire, wireFor } from "../wires/registry.ts";
import { createRepairEngine } from "../engine/engine.ts";
import { createAttemptCounter } from "./attempt-counter.ts";
import { callEngines } from "./call-engines.ts";
import type { GuardedEngine } from "../engine/guarded.ts";
import { mergeSummaries } from "./merge-summaries.ts";
import { type AdapterDeps, type AdapterOptions, repairEnabled, sanitizeEnabled } from "./options.ts";
import { announceRepair, debugLine, noteFailure, orPassThrough, report, requestDebug } from "./report.ts";
import { MAX_BUFFERED_BODY_BYTES, readRequestBody, withBody } from "./request-body.ts";
import { type RequestCoding, decodeBody, encodeBody, requestCoding } from "./request-coding.ts";
import { keyWrittenTwice } from "./request-keys.ts";
import { sanitizeRequestBytes, sanitizeRequestText } from "./request-history.ts";
import { type JsonEdit, spliceJson, spliceJsonBytes, valueEdits, withoutBom } from "./json-splice.ts";
import { RepairedItems, itemScope } from "./repaired-items.ts";
import { bodyCoding } from "./content-coding.ts";
import { stripTag } from "./request-tag.ts";
import { settleOptions } from "../options/settle.ts";

interface Plan {
  input: string | URL | Request;
  init: RequestInit | undefined;
  tag: string | undefined;
  attempt: number;
  /** Declared tools the request offers a call (its tool choice applied); undefined means the response is not ours to touch. */
  tools: ToolSpec[] | undefined;
  /** Every tool name the request declared, of any kind (Wire.declaredNames): no alias stands for one. */
  declaredNames?: string[];
  /** The echo guard over this request's given content, shared by every choice of the response. */
  isEchoed?: EchoGuard;
  /**
   * The wire the request speaks, when it is a known one (set whenever `tools` is): its reply is
   * this adapter's, repaired or passed through as written on purpose (a request that declares no
   * tools: nothing in it can be a call), and it is announced (onRepairing) either way.
   */
  wire?: Wire;
  /** The request switched parallel tool calls off: one call per reply (CallPolicy.oneCall). */
  oneCall?: boolean;
  /** The text the reply continues: the request ended in an assistant turn (Wire.prefill). */
  prefill?: Prefill;
}

interface ResponseContext {
  options: AdapterOptions;
  plan: Plan;
  wire: Wire;
  /** A fresh guarded engine for each text channel of the response. */
  engine: EngineFor;
  /** Responses message items this adapter changed, for the next request's references to them. */
  items: RepairedItems;
}

export function repairFetch(
  given: AdapterOptions = {},
  baseFetch: typeof fetch = globalThis.fetch,
  deps: AdapterDeps = {},
): typeof fetch {
  const options = settleOptions(given);
  const nextAttempt = createAttemptCounter();
  const factory = deps.createEngine ?? createRepairEngine;
  const items = deps.items ?? new RepairedItems();
  const bodyLimit = deps.maxBodyBytes ?? MAX_BUFFERED_BODY_BYTES;
  const repaired = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    // What goes upstream: planning may swap in the tag-free request and a re-readable body.
    const forward: Forward = { input, init };
    const plan = await orPassThrough<Promise<Plan | undefined>>(options, "request inspection", () => planRequest(forward, options, nextAttempt, items, bodyLimit), async () => undefined);
    if (!plan) return baseFetch(forward.input, forward.init);
    if (plan.wire) announceRepair(options, plan.tag);
    const response = await baseFetch(plan.input, plan.init);
    const wire = plan.wire;
    if (!plan.tools || !wire) return response;
    const scope = { tools: plan.tools, declaredNames: plan.declaredNames ?? [], isEchoed: plan.isEchoed, oneCall: plan.oneCall === true, prefill: plan.prefill };
    const engine = callEngines(factory, options, scope, requestDebug(options, plan.tag));
    return orPassThrough(options, "response repair", () => repairResponse(response, { options, plan, wire, engine, items }), async () => response);
  };
  return Object.assign(repaired, { preconnect: baseFetch.preconnect }) as typeof fetch;
}

// ---------------------------------------------------------------- request

interface Forward {
  input: string | URL | Request;
  init: RequestInit | undefined;
}

/** A request body's text, and its exact bytes when it came as bytes (request-body.ts BodyRead). */
type BodyText = { text: string; bytes?: Uint8Array };

async function planRequest(forward: Forward, options: AdapterOptions, nextAttempt: (tag: string | undefined) => number, items: RepairedItems, bodyLimit: number): Promise<Plan> {
  const { input, init } = forward;
  const stripped = stripTag(input, init);
  Object.assign(forward, { input: stripped.input, init: stripped.init });
  const plan: Plan = { ...stripped, attempt: 0, tools: undefined };
  const repair = repairEnabled(options);
  const sanitize = sanitizeEnabled(options);
  if (!repair && !sanitize) return plan;
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
  // A compressed body is read decoded (request-coding.ts); one this runtime cannot decode goes up as sent.
  const coding = requestCoding(forward.input, forward.init);
  if (coding.kind === "unread") {
    debugLine(options, `${coding.why}: passing through unrepaired`);
    return plan;
  }
  let text: BodyText = read;
  if (coding.kind === "coded") {
    const decoded = read.bytes ? await decodeBody(read.bytes, coding.coding, bodyLimit) : { why: "request body is content-encoded but was given as a string" };
    if ("why" in decoded) {
      debugLine(options, `${decoded.why}: passing through unrepaired`);
      return plan;
    }
    text = { text: new TextDecoder("utf-8", { ignoreBOM: true }).decode(decoded.bytes), bytes: decoded.bytes };
  }
  // A leading byte order mark is no part of the JSON (JSON.parse refuses it); it stays in the body.
  let body = jsonOrUndefined(withoutBom(text.text));
  if (body === undefined) {
    debugLine(options, "request body is not JSON: passing through unrepaired");
    return plan;
  }
  // A Responses item_reference to a message item this adapter repaired goes up as the message inline (repaired-items.ts).
  // Only items noted from this same upstream URL (itemScope): another upstream's ids are its own.
  const inlined = items.size > 0 && wireFor(pathname, body)?.name === "responses" ? inlineRepaired(text, items.edits(body, itemScope(url))) : undefined;
  if (inlined !== undefined) {
    text = inlined;
    body = jsonOrUndefined(withoutBom(text.text)) ?? body;
  }
  const sent = sanitize ? sanitizedHistory(pathname, text, body, options) : undefined;
  if (inlined !== undefined || sent !== undefined) await forwardBody(forward, plan, sent ?? text, coding);
  if (!repair) return plan;
  // A key written twice in any object: which copy the upstream obeyed cannot be known
  // (request-keys.ts), so no call is recovered. The history pass above still ran: it rewrites the
  // copy JSON.parse keeps, and leaves the other as sent.
  const twice = keyWrittenTwice(text.text);
  if (twice !== undefined) {
    debugLine(options, `request body writes ${twice} twice: passing through unrepaired`);
    return plan;
  }
  // The reply is read against the request the model got: history sanitizing may have rewritten
  // the last assistant turn, and a reply that continues it (a prefill) continues that text, not
  // the client's (a fence or comment only the client's text opens would hold a real call as text).
  const upstream = sent === undefined ? body : (jsonOrUndefined(withoutBom(sent.text)) ?? body);
  return planWire(plan, wireFor(pathname, upstream), upstream as Json, options, nextAttempt);
}

/**
 * The request body with `edits` made (item_references resolved), spliced as sanitizedHistory splices
 * (a body read as bytes keeps every other byte); undefined when there is nothing to do or no place
 * can be trusted (it then goes up as it came).
 */
function inlineRepaired(read: BodyText, edits: JsonEdit[]): BodyText | undefined {
  if (edits.length === 0) return undefined;
  if (!read.bytes) return { text: spliceJson(read.text, edits) };
  const bytes = spliceJsonBytes(read.bytes, read.text, edits);
  return bytes === undefined ? undefined : { text: new TextDecoder("utf-8", { ignoreBOM: true }).decode(bytes), bytes };
}

/**
 * history.sanitize: the replayed assistant turns go up with their leaks replaced by the note, read
 * with the tools this request declares (the plugin's own history hook knows only OpenCode's
 * built-in tools, so a leak that names an MCP tool is caught here). The body's other bytes stay:
 * a body read as bytes is spliced as bytes, so nothing outside the changed strings is re-encoded.
 * Returns the body that now goes up, or undefined when it goes up as it came.
 */
function sanitizedHistory(pathname: string, read: BodyText, body: unknown, options: AdapterOptions): BodyText | undefined {
  const history = { parse: options.parse ?? {}, sanitize: true, correct: false };
  if (read.bytes) {
    const result = sanitizeRequestBytes(pathname, read.bytes, read.text, body, history);
    if (result.why) debugLine(options, result.why);
    if (result.removed === 0) return undefined;
    return { text: new TextDecoder("utf-8", { ignoreBOM: true }).decode(result.bytes), bytes: result.bytes };
  }
  const result = sanitizeRequestText(pathname, read.text, body, history);
  return result.removed === 0 ? undefined : { text: result.text };
}

/**
 * The changed body goes up in place of the one read: as its bytes (or its text, for a string body),
 * encoded again with the body's own content coding when it came compressed, so the request's
 * content-encoding still holds (withBody drops the stale content-length).
 */
async function forwardBody(forward: Forward, plan: Plan, next: BodyText, coding: RequestCoding): Promise<void> {
  const replaced = coding.kind === "coded" ? await encodeBody(next.bytes ?? new TextEncoder().encode(next.text), coding.coding) : (next.bytes ?? next.text);
  const sent = withBody(forward.input, forward.init, replaced);
  Object.assign(forward, sent);
  Object.assign(plan, sent);
}

function planWire(plan: Plan, wire: Wire | undefined, body: Json, options: AdapterOptions, nextAttempt: (tag: string | undefined) => number): Plan {
  if (!wire) return plan;
  plan.wire = wire;
  const tools = wire.declared(body);
  if (tools.length === 0) return plan;
  // A recovered call never gets more than the model was offered (S06): its tools, and its number.
  const { choice, oneCall } = wire.allowed(body);
  if (choice.type === "invalid") debugLine(options, `${choice.why}: no call is recovered from this response`);
  plan.tools = offeredTools(tools, choice);
  plan.declaredNames = wire.declaredNames(body);
  if (oneCall) plan.oneCall = true;
  // A reply that continues the request's last assistant turn is read after that turn's text.
  const prefill = wire.prefill(body);
  if (prefill) plan.prefill = prefill;
  // Read only if a call is about to be recovered: the passthrough path never walks the messages.
  plan.isEchoed = requestEchoGuard(options, () => wire.given(body));
  plan.attempt = nextAttempt(plan.tag);
  return plan;
}


// ---------------------------------------------------------------- response

async function repairResponse(response: Response, ctx: ResponseContext): Promise<Response> {
  if (!response.ok || response.body === null) return response;
  // A coding fetch did not decode (x-custom; under Bun a chain such as `gzip, gzip`): the bytes are
  // still encoded, no text to read, and they go on as they came with their content-encoding.
  if (bodyCoding(response, ctx.plan.init as { decompress?: unknown } | undefined) === "encoded") {
    requestDebug(ctx.options, ctx.plan.tag)("the answer is still content-encoded (a coding fetch does not decode): passing through unrepaired");
    return response;
  }
  // Media types compare case-insensitively, parameters ignored (RFC 9110): src/sse/media-type.ts.
  const type = response.headers.get("content-type");
  if (isEventStream(type)) return repairStream(response, ctx);
  if (isJson(type)) return repairJson(response, ctx);
  return response;
}

function rebuilt(response: Response, body: BodyInit): Response {
  const headers = new Headers(response.headers);
  headers.delete("content-length");
  return new Response(body, { status: response.status, statusText: response.statusText, headers });
}

/** Reports the reply's summary; says whether it holds markup that ran nothing (EngineSummary.nudge). */
function finishReport(ctx: ResponseContext, guard: GuardedEngine, more: readonly EngineSummary[] = []): boolean {
  const summary = guard.summary();
  if (!summary) return false;
  const merged = more.length > 0 ? mergeSummaries([summary, ...more]) : summary;
  report(ctx.options, { requestTag: ctx.plan.tag, summary: merged, attempt: ctx.plan.attempt });
  return merged.nudge !== null;
}

/**
 * Where a Responses reply tells its items under the server's ids (ItemNotes), into the store for
 * the next request's references (repaired-items.ts). The items shown are kept only when the
 * reply's markup ran nothing (`end`, its summary: before or after them), for the proxy's
 * correction to read.
 */
function itemNotes(ctx: ResponseContext): ItemNotes & { end(ranNothing: boolean): void } {
  const scope = itemScope(ctx.plan.input);
  let waiting: [string, Json][] = [];
  let ranNothing: boolean | undefined;
  return {
    seen: (id) => ctx.items.seen(id, scope),
    repaired: (id, item) => ctx.items.note(id, item, scope),
    shown: (id, item) => {
      if (ranNothing === undefined) waiting.push([id, item]);
      else if (ranNothing) ctx.items.shown(id, item, scope);
    },
    end: (ran) => {
      ranNothing = ran;
      if (ran) for (const [id, item] of waiting) ctx.items.shown(id, item, scope);
      waiting = [];
    },
  };
}

/**
 * The most bytes of a JSON answer read whole to repair it. A model's whole answer is far smaller
 * (about 0.5 MB at 128k output tokens; a Responses object adds the request's instructions and
 * tools, tens of KB each); an answer past it is not one to repair, and reading on would hold all an
 * endless or huge body sends, with the client waiting even for the headers. The same 4 MiB as one
 * SSE event may take (src/sse/rewrite.ts), since a Responses stream's last event repeats the answer.
 */
const JSON_READ_LIMIT = 4 * 1024 * 1024;

/**
 * Reads the answer up to JSON_READ_LIMIT and repairs it; past the limit, or when the upstream fails
 * mid-read, it goes on unrepaired: the same status and headers, the bytes read, then the rest of
 * the original body as it comes (read only as the client reads, so nothing more piles up here).
 */
async function repairJson(response: Response, ctx: ResponseContext): Promise<Response> {
  const reader = response.body!.getReader();
  const parts: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      parts.push(value);
      size += value.length;
      if (size > JSON_READ_LIMIT) {
        requestDebug(ctx.options, ctx.plan.tag)(`JSON answer over ${JSON_READ_LIMIT} bytes: passing through unrepaired`);
        return asSent(response, parts, reader);
      }
    }
  } catch (error) {
    // The read failed: the client gets what came and then the same error, as without the plugin.
    noteFailure(ctx.options, "reading the JSON answer", error);
    return asSent(response, parts, reader);
  }
  const bytes = concatBytes(parts);
  // The body is read: from here on a failure must still answer with these bytes, not the spent response.
  return orPassThrough(ctx.options, "JSON repair", () => repairWireJson(response, bytes, ctx), () => asSent(response, [bytes]));
}

function repairWireJson(response: Response, bytes: Uint8Array, ctx: ResponseContext): Response {
  // Read as spliceJsonBytes needs it: a leading byte order mark stays in the text (and the bytes).
  const text = new TextDecoder("utf-8", { ignoreBOM: true }).decode(bytes);
  const body = jsonOrUndefined(withoutBom(text));
  if (!isObject(body)) return asSent(response, [bytes]);
  const asRead = jsonOrUndefined(withoutBom(text));
  const addGiven = addGivenOf(ctx);
  const notes = itemNotes(ctx);
  let ranNothing = false;
  const changed = ctx.wire.repairJson(body, {
    engine: ctx.engine,
    ...(addGiven ? { addGiven } : {}),
    items: notes,
    report: (summaries) => {
      if (summaries.length === 0) return;
      const summary = mergeSummaries(summaries);
      ranNothing = summary.nudge !== null;
      report(ctx.options, { requestTag: ctx.plan.tag, summary, attempt: ctx.plan.attempt });
    },
  });
  notes.end(ranNothing);
  if (!changed) return asSent(response, [bytes]);
  // Only the values the repair changed are written anew; every other byte is the server's.
  return rebuilt(response, spliceJsonBytes(bytes, text, valueEdits(asRead, body)) ?? JSON.stringify(body));
}

/**
 * The answer unrepaired: its status and headers (content-length included, the bytes are the same),
 * `read` (what was already read), then whatever `rest` still yields, pulled only as the client reads.
 */
function asSent(response: Response, read: Uint8Array[], rest?: ReadableStreamDefaultReader<Uint8Array>): Response {
  const init = { status: response.status, statusText: response.statusText, headers: response.headers };
  if (rest === undefined) return new Response(concatBytes(read), init);
  let queued = read;
  const body = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        // The bytes read go out first, queued at once (they are in memory already); the next pull
        // comes only once the client took them all, so an error from `rest` never drops them.
        if (queued.length > 0) {
          for (const part of queued) controller.enqueue(part);
          queued = [];
          return;
        }
        const next = await rest.read();
        if (next.done) controller.close();
        else controller.enqueue(next.value);
      },
      cancel(reason) {
        return rest.cancel(reason);
      },
    },
    { highWaterMark: 0 },
  );
  return new Response(body, init);
}


// ---------------------------------------------------------------- SSE

function repairStream(response: Response, ctx: ResponseContext): Response {
  const guard = ctx.engine();
  const notes = itemNotes(ctx);
  const onFinal = (more?: readonly EngineSummary[]) => notes.end(finishReport(ctx, guard, more));
  const rewriter = ctx.wire.rewriter({ guard, onFinal, engine: ctx.engine, oneCall: ctx.plan.oneCall === true, addGiven: addGivenOf(ctx), items: notes, tools: ctx.plan.tools });
  const onError = (error: unknown) => noteFailure(ctx.options, "SSE rewrite of an event", error);
  return rebuilt(response, rewriteEventStream(response.body!, rewriter, onError));
}

/** Where a server tool's result in the reply goes (EchoGuard.addGiven); undefined when the echo guard is off. */
function addGivenOf(ctx: ResponseContext): AddGiven | undefined {
  const echo = ctx.plan.isEchoed;
  return echo?.addGiven ? (texts) => echo.addGiven!(texts) : undefined;
}
