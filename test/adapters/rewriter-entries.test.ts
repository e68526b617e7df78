// The rewriter contract is one entry per event: rewriteEventStream asks a wire's rewriter once about
// each event (and once at the end), whatever the chunking. Before it became { event, end }, one
// leaked call of 30 events entered the chat rewriter 94 times (byte, text and plain variants).
import { describe, expect, test } from "bun:test";
import { GuardedEngine } from "../../src/engine/guarded.ts";
import { createRepairEngine } from "../../src/engine/engine.ts";
import { type EventRewriter, rewriteEventStream } from "../../src/sse/rewrite.ts";
import { chatWire } from "../../src/wires/chat/wire.ts";
import { block, live } from "../golden/notation.ts";
import { fixtureTools } from "../golden/tools.ts";

const envelope = { id: "chatcmpl-e", object: "chat.completion.chunk", created: 1, model: "m" };
const chunk = (delta: object, finish: string | null = null) => `data: ${JSON.stringify({ ...envelope, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;

/** One leaked read call with a line of prose before it, as 30 events: a role event, 27 content events, a finish, [DONE]. */
function leakedCallEvents(): string[] {
  const text = `Let me read it.\n\n${live(block("tool_calls", [["read", [["filePath", "/tmp/a.ts"]]]]))}`;
  const size = Math.ceil(text.length / 27);
  const deltas = Array.from({ length: 27 }, (_, k) => text.slice(k * size, (k + 1) * size));
  expect(deltas.join("")).toBe(text);
  return [chunk({ role: "assistant", content: "" }), ...deltas.map((content) => chunk({ content })), chunk({}, "stop"), "data: [DONE]\n\n"];
}

/** The chat wire's rewriter, every call into it counted. */
function counted(): { rewriter: EventRewriter; entries: () => number } {
  const engine = () => new GuardedEngine(createRepairEngine({ tools: fixtureTools, idPrefix: "call_" }), () => undefined);
  const inner = chatWire.rewriter({ guard: engine(), onFinal: () => undefined, engine, oneCall: false });
  let entries = 0;
  const rewriter = new Proxy(inner, {
    get(target, key) {
      const value = Reflect.get(target, key, target);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        entries++;
        return value.apply(target, args);
      };
    },
  });
  return { rewriter, entries: () => entries };
}

async function rewrite(chunks: string[], rewriter: EventRewriter): Promise<string> {
  const encoder = new TextEncoder();
  let i = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (i < chunks.length) controller.enqueue(encoder.encode(chunks[i++]!));
      else controller.close();
    },
  });
  const out = rewriteEventStream(body, rewriter, (error) => {
    throw error;
  });
  return new TextDecoder().decode(new Uint8Array(await new Response(out).arrayBuffer()));
}

describe("rewriter entries per event", () => {
  for (const [name, chunking] of [
    ["one chunk per event", (events: string[]) => events],
    ["the whole body in one chunk", (events: string[]) => [events.join("")]],
    ["every event cut in two", (events: string[]) => events.flatMap((e) => [e.slice(0, 9), e.slice(9)])],
  ] as const) {
    test(`one leaked call of 30 events, ${name}: the call is recovered, and the rewriter is entered at most once per event and once at the end`, async () => {
      const events = leakedCallEvents();
      expect(events).toHaveLength(30);
      const { rewriter, entries } = counted();
      const out = await rewrite(chunking(events), rewriter);
      expect(out).toContain('"tool_calls":[{"index":0,');
      expect(out).toContain('"name":"read"');
      expect(out).toContain('"finish_reason":"tool_calls"');
      expect(entries()).toBeLessThanOrEqual(events.length + 1);
    });
  }
});
