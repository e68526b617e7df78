/**
 * Chat completions stream with n > 1: the repair reads choice 0 and leaves every other choice
 * alone (their text would interleave with choice 0's in one engine). A chunk may carry several
 * choices, in any order: choice 0 must be read wherever the chunk lists it, or a chunk that lists
 * choice 1 first passes unread, and a fence opener in it never reaches the engine, so the fenced
 * example after it runs (review 43). Choice 0 must come out the same whatever order its chunks list
 * the choices in, whole, one character per chunk read byte by byte, and at seeded random byte cuts.
 */
import { describe, expect, test } from "bun:test";
import { repairFetch } from "../../src/adapters/fetch.ts";
import { block, live } from "../golden/notation.ts";
import { type Json, byteByByte, chunkedFetch, dataEvents, encode, postInit, seededCuts } from "./wire-support.ts";

const URL_CHAT = "http://model.test/v1/chat/completions";
const READ = { type: "function", function: { name: "read", parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] } } };
const HERMES = '<tool_call>{"name":"read","arguments":{"path":"a.ts"}}</tool_call>';
const DSML = live(block("tool_calls", [["read", [["path", "a.ts"]]]]));
const SEEDS = [1, 2, 3, 4, 5, 6];
const ENVELOPE = { id: "chatcmpl-1", object: "chat.completion.chunk", created: 1, model: "m" };

/**
 * How a chunk lists the choices: choice 1 first, choice 0 first, alternating from one chunk to
 * the next, or each choice in chunks of its own.
 */
type Order = "1 first" | "0 first" | "alternating" | "apart";
const ORDERS: Order[] = ["1 first", "0 first", "alternating", "apart"];

/** The SSE of a reply whose choice 0 says `zero` and choice 1 says `one`, `size` characters per chunk each, then both finish. */
function sse(zero: string, one: string, order: Order, size: number): string {
  const chunks: Json[][] = [];
  const steps = Math.max(Math.ceil(zero.length / size), Math.ceil(one.length / size));
  const choice = (index: number, text: string, finish: string | null = null) => ({ index, delta: text === "" ? {} : { content: text }, finish_reason: finish });
  const listed = (step: number, a: Json, b: Json) => {
    if (order === "apart") chunks.push([a], [b]);
    else chunks.push(order === "0 first" || (order === "alternating" && step % 2 === 0) ? [a, b] : [b, a]);
  };
  for (let step = 0; step < steps; step++) {
    const a = zero.slice(step * size, (step + 1) * size);
    const b = one.slice(step * size, (step + 1) * size);
    if (a === "") chunks.push([choice(1, b)]);
    else if (b === "") chunks.push([choice(0, a)]);
    else listed(step, choice(0, a), choice(1, b));
  }
  listed(steps, choice(0, "", "stop"), choice(1, "", "stop"));
  return `${chunks.map((choices) => `data: ${JSON.stringify({ ...ENVELOPE, choices })}\n\n`).join("")}data: [DONE]\n\n`;
}

interface Choice {
  content: string;
  calls: string[];
  finish: string | null;
}

/** What a client keeps of each choice: its content, its calls (name and path), its finish_reason. */
function choices(out: string): Choice[] {
  const kept: Choice[] = [];
  for (const chunk of dataEvents(out)) {
    for (const c of chunk.choices as Json[]) {
      const choice = (kept[c.index] ??= { content: "", calls: [], finish: null });
      if (typeof c.delta?.content === "string") choice.content += c.delta.content;
      for (const call of c.delta?.tool_calls ?? []) if (call.function?.name) choice.calls.push(`${call.function.name} ${JSON.parse(call.function.arguments).path}`);
      if (c.finish_reason != null) choice.finish = c.finish_reason;
    }
  }
  return kept;
}

const body = async (chunks: Uint8Array[]) => (await repairFetch({}, chunkedFetch(chunks))(URL_CHAT, postInit({ model: "m", stream: true, n: 2, messages: [{ role: "user", content: "show me" }], tools: [READ] }))).text();

/** Whole, one character per chunk byte by byte, seeded random byte cuts. */
async function everyRun(zero: string, one: string, order: Order): Promise<Choice[][]> {
  const runs = [choices(await body([encode(sse(zero, one, order, 1000))])), choices(await body(byteByByte(encode(sse(zero, one, order, 1)))))];
  for (const seed of SEEDS) runs.push(choices(await body(seededCuts(encode(sse(zero, one, order, 1 + (seed % 7))), seed))));
  return runs;
}

const OTHER = "The other answer, in prose.";

describe("n > 1: choice 0 is read wherever a chunk lists it", () => {
  const cases: [string, string, Choice][] = [
    ["a fenced Hermes example stays an example", `Example:\n\`\`\`\n${HERMES}\n\`\`\`\n`, { content: `Example:\n\`\`\`\n${HERMES}\n\`\`\`\n`, calls: [], finish: "stop" }],
    ["a fenced DSML example stays an example", `Example:\n\`\`\`\n${DSML}\n\`\`\`\nThat is all.`, { content: `Example:\n\`\`\`\n${DSML}\n\`\`\`\nThat is all.`, calls: [], finish: "stop" }],
    ["a live call is recovered", `Reading:\n${HERMES}`, { content: "Reading:\n", calls: ["read a.ts"], finish: "tool_calls" }],
    ["plain text stays as it came", "Just words, no markup.", { content: "Just words, no markup.", calls: [], finish: "stop" }],
  ];
  for (const [name, zero, expected] of cases) {
    for (const order of ORDERS) {
      test(`${name} (${order}), at every split; choice 1 is left alone`, async () => {
        for (const run of await everyRun(zero, OTHER, order)) expect(run).toEqual([expected, { content: OTHER, calls: [], finish: "stop" }]);
      });
    }
  }

  test("choice 1 is left alone: its markup stays text in the stream, whatever the order", async () => {
    for (const order of ORDERS) {
      for (const run of await everyRun("Reading.", HERMES, order)) expect(run[1]).toEqual({ content: HERMES, calls: [], finish: "stop" });
    }
  });

  test("a chunk that lists only choice 1 passes as it came", async () => {
    const input = `data: ${JSON.stringify({ ...ENVELOPE, choices: [{ index: 1, delta: { content: HERMES }, finish_reason: null }] })}\n\ndata: [DONE]\n\n`;
    expect(await body([encode(input)])).toBe(input);
  });
});
