// Shared by the Anthropic Messages and Responses adapter tests: named SSE events, a base fetch
// that answers in given byte chunks, and readers of what came out.
export type Json = Record<string, any>;

export const SSE_HEADERS = { "content-type": "text/event-stream" };
export const JSON_HEADERS = { "content-type": "application/json" };

/** `event: <type>` then `data: <json>`, as Anthropic and OpenAI's Responses API write them. */
export function namedSse(events: Json[], eol = "\n"): string {
  return events.map((e) => `event: ${e.type}${eol}data: ${JSON.stringify(e)}${eol}${eol}`).join("");
}

/** A base fetch answering with exactly these byte chunks, recording every request it saw. */
export function chunkedFetch(parts: Uint8Array[] | (() => Uint8Array[]), headers: Record<string, string> = SSE_HEADERS) {
  const seen: { url: string; init: RequestInit | undefined }[] = [];
  const fn = (async (input: string | URL | Request, init?: RequestInit) => {
    seen.push({ url: String(input instanceof Request ? input.url : input), init });
    const list = typeof parts === "function" ? parts() : parts;
    return new Response(
      new ReadableStream<Uint8Array>({
        start(controller) {
          for (const part of list) controller.enqueue(part);
          controller.close();
        },
      }),
      { status: 200, headers },
    );
  }) as unknown as typeof fetch;
  return Object.assign(fn, { seen });
}

export const encode = (text: string) => new TextEncoder().encode(text);

/** Every data payload, parsed, in order. */
export function dataEvents(text: string): Json[] {
  return text
    .split(/\r?\n\r?\n/)
    .map((block) => block.split(/\r?\n/).filter((l) => l.startsWith("data:")).map((l) => l.slice(5).trim()).join("\n"))
    .filter((data) => data !== "" && data !== "[DONE]")
    .map((data) => JSON.parse(data) as Json);
}

/** Every event's `event:` line matches its data's type (synthetic events are named too). */
export function namedConsistently(text: string): boolean {
  for (const block of text.split(/\n\n/)) {
    const name = /^event: (.*)$/m.exec(block)?.[1];
    const data = /^data: (.*)$/m.exec(block)?.[1];
    if (data === undefined) continue;
    if (name !== (JSON.parse(data) as Json).type) return false;
  }
  return true;
}

/** All byte splits of `bytes` into two parts, plus one byte per chunk. */
export function everySplit(bytes: Uint8Array): Uint8Array[][] {
  const splits: Uint8Array[][] = [[...bytes].map((b) => Uint8Array.of(b))];
  for (let at = 1; at < bytes.length; at++) splits.push([bytes.subarray(0, at), bytes.subarray(at)]);
  return splits;
}

export function postInit(body: Json, headers: Record<string, string> = {}): RequestInit {
  return { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) };
}
