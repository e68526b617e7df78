// While the engine holds a candidate, each content event of the learned shape is swallowed
// without a JSON.parse; an event that carries anything besides its content still goes out, content
// removed. Checked through repairFetch, whole and at seeded random byte cuts.
import { afterEach, describe, expect, test } from "bun:test";
import { repairFetch } from "../../src/adapters/fetch.ts";
import { block, live } from "../golden/notation.ts";
import { type Json, chunkedFetch, dataEvents, encode, postInit } from "./wire-support.ts";
import { seeded } from "../support/run-engine.ts";

const envelope = { id: "chatcmpl-h", object: "chat.completion.chunk", created: 1, model: "deepseek-chat" };
const tools = [{ type: "function", function: { name: "write", parameters: { type: "object", properties: { filePath: { type: "string" }, content: { type: "string" } } } } }];
const request = postInit({ model: "deepseek-chat", stream: true, messages: [{ role: "user", content: "write it" }], tools });
const URL_ = "http://x/v1/chat/completions";

const ARGUMENT = Array.from({ length: 300 }, (_, i) => `line ${i}: const x = ${i};`).join("\n");
const LEAK = live(block("tool_calls", [["write", [["filePath", "/tmp/a.ts"], ["content", ARGUMENT]]]]));

function body(choiceExtra: Json): string {
  const event = (delta: Json, finish: string | null = null) => `data: ${JSON.stringify({ ...envelope, choices: [{ index: 0, delta, ...choiceExtra, finish_reason: finish }] })}\n\n`;
  let out = event({ role: "assistant", content: "" }) + event({ content: "Writing it now.\n\n" });
  for (let i = 0; i < LEAK.length; i += 10) out += event({ content: LEAK.slice(i, i + 10) });
  return `${out}${event({}, "stop")}data: [DONE]\n\n`;
}

function cutsOf(bytes: Uint8Array, seed: number): Uint8Array[] {
  const next = seeded(seed);
  const parts: Uint8Array[] = [];
  for (let at = 0; at < bytes.length; ) {
    const size = 1 + Math.floor(next() * 400);
    parts.push(bytes.slice(at, at + size));
    at += size;
  }
  return parts;
}

async function run(parts: Uint8Array[]): Promise<Json[]> {
  const response = await repairFetch({}, chunkedFetch(parts))(URL_, request);
  return dataEvents(await response.text());
}

function content(events: Json[]): string {
  return events.map((e) => e.choices?.[0]?.delta?.content ?? "").join("");
}

function calls(events: Json[]): Json[] {
  return events.flatMap((e) => e.choices?.[0]?.delta?.tool_calls ?? []);
}

const realParse = JSON.parse;
afterEach(() => {
  JSON.parse = realParse;
});

describe("held content events", () => {
  test("are swallowed without a JSON.parse each: 1 call, the text before it intact", async () => {
    const bytes = encode(body({ logprobs: null }));
    const held = Math.ceil(LEAK.length / 10);
    let parses = 0;
    JSON.parse = ((text: string, reviver?: never) => {
      parses++;
      return realParse(text, reviver);
    }) as typeof JSON.parse;
    const response = await repairFetch({}, chunkedFetch(bytes.length > 0 ? [bytes] : []))(URL_, request);
    const out = await response.text();
    JSON.parse = realParse;
    const events = dataEvents(out);
    expect(content(events)).toBe("Writing it now.\n\n");
    const call = calls(events)[0]!;
    expect(calls(events)).toHaveLength(1);
    expect(realParse(call.function.arguments)).toEqual({ filePath: "/tmp/a.ts", content: ARGUMENT });
    // The request body, the learning and the finish: a handful, not one per held event.
    expect(held).toBeGreaterThan(700);
    expect(parses).toBeLessThan(20);
  });

  // The extra field is Azure's content_filter_results, which a client may read. (It was logprobs
  // until review 56: the logprobs of content taken out of a chunk now go with it, chunk-logprobs.ts,
  // test/hostile/review-56-streams-annotations-logprobs.test.ts.)
  test("an event carrying more than its content still goes out, its content taken out", async () => {
    const content_filter_results = { hate: { filtered: false, severity: "safe" } };
    for (const seed of [1, 2, 3]) {
      const events = await run(cutsOf(encode(body({ content_filter_results })), seed));
      expect(content(events)).toBe("Writing it now.\n\n");
      expect(calls(events)).toHaveLength(1);
      // Held events go out as their extra field alone; only the few merged while an undecided tag waited do not.
      const heldOut = events.filter((e) => e.choices?.[0]?.content_filter_results?.hate?.severity === "safe" && e.choices[0].delta?.content === undefined && !e.choices[0].delta?.tool_calls);
      expect(heldOut.length).toBeGreaterThan(Math.ceil(LEAK.length / 10) - 20);
    }
  });

  test("at seeded random cuts the plain shape gives the same client view as one chunk per event", async () => {
    const whole = await run([encode(body({ logprobs: null }))]);
    for (const seed of [4, 5, 6, 7]) {
      const events = await run(cutsOf(encode(body({ logprobs: null })), seed));
      expect(content(events)).toBe(content(whole));
      expect(calls(events).map((c) => c.function)).toEqual(calls(whole).map((c) => c.function));
    }
  });
});
