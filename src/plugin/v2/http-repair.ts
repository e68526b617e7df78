// Live repair on OpenCode 2's session HTTP hooks. In 2.x DeepSeek and every other
// `@ai-sdk/openai-compatible`, `@ai-sdk/openai` and `@ai-sdk/anthropic` route runs on OpenCode's
// native providers, which never call a plugin's fetch or an AI SDK middleware; the hooks that see
// their traffic are `session.hook("http.request")` (the outgoing Request) and
// `session.hook("http.response")` (a mutable `response`): anomalyco/opencode
// packages/plugin/src/promise/session.ts @ 03545fd3bb099af708c5f1146c42c10c7f24c359.
// The response is rewritten by the fetch adapter itself (repairFetch over a fetch that answers with
// the host's response), so the three wires, SSE and JSON, behave exactly as on 1.18.
import { repairFetch } from "../../adapters/fetch.ts";
import { REQUEST_TAG_HEADER, type AdapterOptions } from "../../adapters/options.ts";
import { mayBeWire } from "../../wires/registry.ts";
import type { V2SessionHttpRequest, V2SessionHttpResponse } from "./host-types.ts";

/**
 * Set on every response these hooks took charge of (in-process only: it is added after the network),
 * so the aisdk middleware on the same call steps aside and a call is never repaired twice.
 */
export const REPAIRED_HEADER = "x-dsml-fix-repaired";
/** Carries one response from onResponse into the repairing fetch; never leaves the process. */
const SLOT_HEADER = "x-dsml-fix-v2-slot";

interface Recorded {
  /** The request body as sent (the Request's own body is consumed by the time the response arrives). */
  body: string;
  tag: string;
}

interface HttpRepairDeps {
  /** Whether the plugin acts on this request's route at all (the `providers` option). */
  inScope(event: V2SessionHttpRequest): boolean;
  /** `<instance> <sessionID>/<turn>`, read back by onResult through readTag. */
  tagFor(event: V2SessionHttpRequest): string;
  debug?: (line: string) => void;
}

export class HttpRepair {
  private readonly recorded = new WeakMap<Request, Recorded>();
  private readonly slots = new Map<string, Response>();
  private nextSlot = 0;
  private readonly repairing: typeof fetch;

  constructor(adapter: AdapterOptions, private readonly deps: HttpRepairDeps) {
    const answer = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
      const slot = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined)).get(SLOT_HEADER) ?? "";
      const response = this.slots.get(slot);
      this.slots.delete(slot);
      if (!response) throw new Error("dsml-fix: no recorded response for this request");
      return response;
    };
    this.repairing = repairFetch(adapter, answer as typeof fetch);
  }

  /** `http.request`: record what the request declared, for its response. */
  async onRequest(event: V2SessionHttpRequest): Promise<void> {
    const recorded = await this.record(event);
    if (recorded) this.recorded.set(event.request, recorded);
  }

  /** What a response needs from its request: the body and the tag; undefined when it is not ours. */
  private async record(event: V2SessionHttpRequest): Promise<Recorded | undefined> {
    const request = event.request;
    if (request.method !== "POST" || request.bodyUsed || !this.deps.inScope(event)) return undefined;
    const pathname = new URL(request.url).pathname;
    if (!mayBeWire(pathname)) return undefined;
    return { body: await request.clone().text(), tag: this.deps.tagFor(event) };
  }

  /** `http.response`: the response the host goes on with, repaired when its request was recorded. */
  async onResponse(event: V2SessionHttpResponse): Promise<void> {
    // A host that hands this hook another Request object than http.request's: read it here if it still can be.
    const recorded = this.recorded.get(event.request) ?? (await this.record(event));
    if (!recorded) return;
    this.recorded.delete(event.request);
    const slot = String(++this.nextSlot);
    this.slots.set(slot, event.response);
    const headers = new Headers(event.request.headers);
    headers.set(REQUEST_TAG_HEADER, recorded.tag);
    headers.set(SLOT_HEADER, slot);
    try {
      event.response = marked(await this.repairing(event.request.url, { method: "POST", headers, body: recorded.body }));
    } finally {
      this.slots.delete(slot);
    }
  }
}

/** The same response (body untouched) with REPAIRED_HEADER; a fetched Response's own headers are immutable. */
function marked(response: Response): Response {
  const headers = new Headers(response.headers);
  headers.set(REPAIRED_HEADER, "1");
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
}
