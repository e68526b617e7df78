/**
 * Review 56 (hostile, tests only): a real `dsml-fix proxy` on 127.0.0.1 whose upstream writes an
 * event stream with CR or CR LF line ends (each a valid SSE line end), at every byte, and drops it
 * mid-event; and a client that goes away while the repair is holding a leak it has not finished
 * reading. Whole events or a clean end, never half an event, never a hang; every wait is bounded by
 * a count of polls, not a clock assertion. No DSML marker bytes here (markup via live()).
 */
import { describe, expect, test } from "bun:test";
import { repairFetch } from "../../src/adapters/fetch.ts";
import { block, live } from "../golden/notation.ts";
import { sameCallIds } from "../support/call-ids.ts";
import { chatBody, chatSse, type Scenario } from "../property/diff-harness.ts";
import { proxyFixture, type Proxy, type Upstream } from "../proxy/support.ts";

const LEAK = live(`Reading it.\n\n${block("tool_calls", [["read", [["filePath", "a.ts"]]]])}`);
const S: Scenario = { text: LEAK };

let upstream: Upstream;
let proxy: Proxy;
proxyFixture("/v1", (both) => ({ upstream, proxy } = both));

const tick = () => new Promise((r) => setImmediate(r));

/** The upstream writes `body` one byte at a time (each its own write), then ends, or stops after `stopAt` bytes and drops. */
function serveBytes(body: string, stopAt = Infinity): void {
  upstream.answer(async (_req, res) => {
    res.writeHead(200, { "content-type": "text/event-stream" });
    const bytes = new TextEncoder().encode(body);
    for (let at = 0; at < Math.min(bytes.length, stopAt); at++) {
      res.write(bytes.subarray(at, at + 1));
      await tick();
    }
    if (stopAt < bytes.length) res.destroy();
    else res.end();
  });
}

const init = () => ({ method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(chatBody(S, true)) });

/** The client's body, read to its end or its cut (a cut reads as what came before it). */
async function readAll(res: Response): Promise<string> {
  const reader = res.body!.getReader();
  const parts: Uint8Array[] = [];
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      parts.push(value);
    }
  } catch {
    // A cut connection: what came is what counts.
  }
  return Buffer.concat(parts).toString("utf8");
}

/** The body as LF line ends, so its events can be read whatever the upstream used. */
const lf = (text: string) => text.replace(/\r\n|\r/g, "\n");

describe("CR and CR LF line ends, at every byte", () => {
  for (const [name, eol] of [["CR LF", "\r\n"], ["CR", "\r"]] as const) {
    test(`${name}: the proxy gives what repairFetch gives on the same bytes, the call recovered`, async () => {
      const body = chatSse(S, 6).replaceAll("\n", eol);
      serveBytes(body);
      const viaProxy = await readAll(await fetch(`${proxy.url}/chat/completions`, init()));
      const direct = await (await repairFetch({}, (async () => new Response(body, { headers: { "content-type": "text/event-stream" } })) as unknown as typeof fetch)("http://model.test/v1/chat/completions", init())).text();
      expect(sameCallIds(viaProxy)).toBe(sameCallIds(direct));
      expect(viaProxy).toContain('"name":"read"');
    });

    test(`${name}: dropped mid-event at 24 places, the client gets only whole events`, async () => {
      const body = chatSse(S, 6).replaceAll("\n", eol);
      // Stops spread over the body, each a few bytes into an event or on its end (the CR of a CR LF pair among them).
      const stops = Array.from({ length: 24 }, (_, i) => Math.floor(((i + 1) * body.length) / 25) + (i % 4));
      for (const stop of stops) {
        serveBytes(body, stop);
        const got = lf(await readAll(await fetch(`${proxy.url}/chat/completions`, init())));
        expect({ stop, whole: got === "" || got.endsWith("\n\n") }).toEqual({ stop, whole: true });
        for (const event of got.split("\n\n").filter((e) => e.startsWith("data: {"))) expect(() => JSON.parse(event.slice(6))).not.toThrow();
      }
    });
  }
});

describe("a client that goes away while the repair holds a leak", () => {
  test("the upstream sent half the leak and waits: the client aborts, the upstream request is aborted, nothing stays in flight", async () => {
    const body = chatSse(S, 6);
    const half = body.indexOf("\n\n", body.length / 2) + 2;
    let closed!: Promise<boolean>;
    upstream.answer((req, res) => {
      closed = req.closedEarly;
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write(body.slice(0, half));
    });
    const abort = new AbortController();
    const before = proxy.lines.length;
    const res = await fetch(`${proxy.url}/chat/completions`, { ...init(), signal: abort.signal });
    const reader = res.body!.getReader();
    // The text before the leak comes through; the leak itself is held.
    await reader.read();
    abort.abort();
    await reader.read().catch(() => undefined);
    for (let i = 0; i < 500 && proxy.inFlight() > 0; i++) await new Promise((r) => setTimeout(r, 2));
    expect(proxy.inFlight()).toBe(0);
    expect(await closed).toBe(true);
    expect(proxy.lines.slice(before)).toEqual([expect.stringMatching(/^POST \/chat\/completions 200 \d+ms recovered=0 ended=client$/)]);
  });
});
