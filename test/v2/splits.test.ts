/**
 * The OpenCode 2 HTTP-hook route at every split: each wire's SSE reply cut byte by byte and at
 * seeded random points (fast-check) comes out of `session.hook("http.response")` with the same
 * call and the same prose.
 */
import { describe, expect, spyOn, test } from "bun:test";
import path from "node:path";
import fc from "fast-check";
import { anthropicStream, responsesStream } from "../e2e/wire-servers.ts";
import { block, live } from "../golden/notation.ts";
import { chunkedFetch, encode } from "../adapters/wire-support.ts";
import { callsIn, chatStream, pathOf, requestBody, type Wire } from "./fake-wires.ts";
import { loadLikeV2, StandInHost } from "./stand-in-host.ts";

const ROOT = path.resolve(import.meta.dir, "../..");
const PROSE = "Let me check the tests.\n\n";
const LEAK = live(`${PROSE}${block("tool_calls", [["bash", [["command", "npm test -- --grep \u00e9t\u00e9"]]]])}`);
const SEED = 20261203;
const RUNS = 60;
const MODEL = { providerID: "deepseek", id: "deepseek-chat" };

function sse(wire: Wire): Uint8Array {
  return encode(wire === "chat" ? chatStream(LEAK) : wire === "messages" ? anthropicStream(LEAK, "deepseek-chat") : responsesStream(LEAK, "deepseek-chat"));
}

function cut(bytes: Uint8Array, points: number[]): Uint8Array[] {
  const sorted = [...new Set(points.map((p) => p % bytes.length))].sort((a, b) => a - b);
  const parts: Uint8Array[] = [];
  let at = 0;
  for (const point of sorted) {
    if (point > at) parts.push(bytes.subarray(at, point));
    at = Math.max(at, point);
  }
  parts.push(bytes.subarray(at));
  return parts;
}

async function through(host: StandInHost, wire: Wire, parts: Uint8Array[]) {
  const send = chunkedFetch(parts);
  const response = await host.nativeFetch("ses_1", MODEL, send)(`http://127.0.0.1:9/v1${pathOf(wire)}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(requestBody(wire, "run", true)) });
  return callsIn(wire, response);
}

async function pluginHost(): Promise<StandInHost> {
  const { definition } = await loadLikeV2(ROOT);
  const host = new StandInHost();
  const quiet = spyOn(console, "error").mockImplementation(() => undefined);
  try {
    await definition.setup!(host.context({ providers: ["deepseek"] }));
  } finally {
    quiet.mockRestore();
  }
  return host;
}

const expected = { calls: [{ name: "bash", input: { command: "npm test -- --grep \u00e9t\u00e9" } }], text: PROSE };

describe("the HTTP-hook route at every split", () => {
  for (const wire of ["chat", "messages", "responses"] as const) {
    test(`${wire}: byte by byte`, async () => {
      const host = await pluginHost();
      const bytes = sse(wire);
      expect(await through(host, wire, [...bytes].map((_, i) => bytes.subarray(i, i + 1)))).toEqual(expected);
    });

    test(`${wire}: at seeded random splits`, async () => {
      const host = await pluginHost();
      const bytes = sse(wire);
      await fc.assert(
        fc.asyncProperty(fc.array(fc.nat(), { maxLength: 40 }), async (points) => {
          expect(await through(host, wire, cut(bytes, points))).toEqual(expected);
        }),
        { seed: SEED, numRuns: RUNS, endOnFailure: false },
      );
    });

    test(`${wire}: the control, byte by byte without the plugin, is only text`, async () => {
      const bytes = sse(wire);
      expect(await through(new StandInHost(), wire, [...bytes].map((_, i) => bytes.subarray(i, i + 1)))).toEqual({ calls: [], text: LEAK });
    });
  }
});
