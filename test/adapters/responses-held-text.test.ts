/**
 * Responses stream, parallel tool calls switched off: a recovered call is held back until the
 * reply ends, and the text its part's engine holds after it (S03: it may be a fabricated tool
 * result) must not be decided when the part ends. A native call item that comes later withdraws
 * the recovered call, and that text is then the model's own words again: it must show, in the
 * part it was written in, exactly as the JSON answer of the same reply shows it. Without a native
 * call it is stripped at the reply's end, as in JSON. Every stream is checked whole, with
 * one-character deltas read byte by byte and at seeded random byte cuts, and must stay a valid
 * Responses event stream (sequence numbers, output indices, `done` texts equal to the deltas).
 */
import { describe, expect, test } from "bun:test";
import { repairFetch } from "../../src/adapters/fetch.ts";
import type { AdapterResult } from "../../src/adapters/options.ts";
import { block, live } from "../golden/notation.ts";
import { JSON_HEADERS, type Json, byteByByte, chunkedFetch, encode, postInit, seededCuts } from "./wire-support.ts";
import { type Item, completedItem, readStream as readItems, responsesItemSse as sse } from "./responses-support.ts";

const URL_RESPONSES = "http://model.test/v1/responses";
const READ = { type: "object", properties: { path: { type: "string" } }, required: ["path"] };
const leak = (path: string) => live(block("tool_calls", [["read", [["path", path]]]]));
const SEEDS = [1, 2, 3, 4, 5, 6, 7, 8];
const OFF = { parallel_tool_calls: false };

const TEXT = `Reading:\n${leak("a.ts")}\nDone, the file says hello.`;

function request(stream: boolean, parallel: Json): RequestInit {
  return postInit({ model: "m", stream, input: "read a.ts", tools: [{ type: "function", name: "read", parameters: READ }], ...parallel });
}

/** A valid stream's output items, as a client keeps them. */
const readStream = (out: string, completed = true) => outputOf(readItems(out, completed));

/** What a client keeps of the output: a message as its parts' texts, a call as its path, anything else as its type. */
function outputOf(output: Json[]): unknown[] {
  return output.map((item) => {
    if (item.type === "message") return { message: item.content.map((p: Json) => p.text) };
    if (item.type === "function_call") return `call ${JSON.parse(item.arguments).path}`;
    return item.type;
  });
}

async function jsonOutput(items: Item[], parallel: Json = OFF): Promise<unknown[]> {
  const body = { id: "resp_1", object: "response", status: "completed", model: "m", output: items.map(completedItem) };
  const res = await repairFetch({}, chunkedFetch([encode(JSON.stringify(body))], JSON_HEADERS))(URL_RESPONSES, request(false, parallel));
  return outputOf(((await res.json()) as Json).output);
}

interface Run {
  output: unknown[];
  results: AdapterResult[];
}

async function streamRun(chunks: Uint8Array[], completed = true, parallel: Json = OFF): Promise<Run> {
  const results: AdapterResult[] = [];
  const res = await repairFetch({ onResult: (r) => results.push(r) }, chunkedFetch(chunks))(URL_RESPONSES, request(true, parallel));
  return { output: readStream(await res.text(), completed), results };
}

/** Whole, one-character deltas byte by byte, seeded random byte cuts. */
async function everyRun(items: Item[], completed = true, parallel: Json = OFF): Promise<Run[]> {
  const runs = [await streamRun([encode(sse(items, 1000, completed))], completed, parallel), await streamRun(byteByByte(encode(sse(items, 1, completed))), completed, parallel)];
  for (const seed of SEEDS) runs.push(await streamRun(seededCuts(encode(sse(items, 1 + (seed % 5), completed)), seed), completed, parallel));
  return runs;
}

const isCall = (o: unknown) => typeof o === "string" && o.startsWith("call ");
const callsLast = (output: unknown[]) => [...output.filter((o) => !isCall(o)), ...output.filter(isCall)];

const nativeWins = (results: AdapterResult[]) => {
  expect(results.map((r) => [r.summary.recovered, r.summary.nudge])).toEqual([[0, null]]);
  expect(results[0]!.summary.stripped.map((s) => s.kind)).toContain("native-call-duplicate");
  expect(results[0]!.summary.stripped.map((s) => s.kind)).not.toContain("fabricated-result");
};

describe("Responses stream, parallel calls off: text held after a recovered call survives a native call that comes after its part ended", () => {
  const withNative: Record<string, Item[]> = {
    "the native call right after the message": [{ message: "msg_1", parts: [TEXT] }, { native: "fc_n" }],
    "a reasoning item between": [{ message: "msg_1", parts: [TEXT] }, { reasoning: "rs_1", text: "thinking" }, { native: "fc_n" }],
    "another message item between": [{ message: "msg_1", parts: [TEXT] }, { message: "msg_2", parts: ["More prose.\n"] }, { native: "fc_n" }],
    "another part of the same item between": [{ message: "msg_1", parts: [TEXT, "A second part.\n"] }, { native: "fc_n" }],
    "a later part with a leak of its own (a duplicate once the native call came)": [{ message: "msg_1", parts: [TEXT] }, { message: "msg_2", parts: [`And:\n${leak("b.ts")}\nthen.`] }, { native: "fc_n" }],
  };

  for (const [name, items] of Object.entries(withNative)) {
    test(`${name}: the stream shows what the JSON answer shows, the native call only, at every split`, async () => {
      const json = await jsonOutput(items);
      expect(json.filter(isCall)).toEqual(["call n.ts"]);
      // The text after the leak is in the JSON answer (the hard negative below strips it).
      expect(JSON.stringify(json)).toContain("Done, the file says hello.");
      for (const { output, results } of await everyRun(items)) {
        expect(output).toEqual(json);
        nativeWins(results);
      }
    });
  }

  test("no native call: the text after the recovered call is stripped at the reply's end and the call runs, as in JSON, at every split", async () => {
    for (const items of [[{ message: "msg_1", parts: [TEXT] }], [{ message: "msg_1", parts: [TEXT] }, { reasoning: "rs_1", text: "thinking" }], [{ message: "msg_1", parts: [TEXT, "A second part.\n"] }]] as Item[][]) {
      // JSON puts a call right after its message item; a held call goes out after every item.
      const json = callsLast(await jsonOutput(items));
      expect(JSON.stringify(json)).not.toContain("Done, the file");
      expect(json.at(-1)).toBe("call a.ts");
      for (const { output, results } of await everyRun(items)) {
        expect(output).toEqual(json);
        expect(results.map((r) => r.summary.recovered)).toEqual([1]);
      }
    }
  });

  test("CR LF line ends: the events kept back go out the same at every split, byte for byte", async () => {
    const items: Item[] = [{ message: "msg_1", parts: [TEXT] }, { reasoning: "rs_1", text: "thinking" }, { native: "fc_n" }];
    const json = await jsonOutput(items);
    // A comment kept back too: it goes out as its own bytes, not re-serialized.
    const text = sse(items, 3, true, "\r\n");
    const second = text.indexOf("event: response.output_item.added", text.indexOf("event: response.output_item.done"));
    const bytes = encode(`${text.slice(0, second)}: keep-alive\r\n\r\n${text.slice(second)}`);
    const body = async (chunks: Uint8Array[]) => (await repairFetch({}, chunkedFetch(chunks))(URL_RESPONSES, request(true, OFF))).text();
    const whole = await body([bytes]);
    expect(whole).toContain(": keep-alive\r\n\r\n");
    expect(readStream(whole.replaceAll("\r\n", "\n"))).toEqual(json);
    expect(await body(byteByByte(bytes))).toBe(whole);
    for (const seed of SEEDS) expect(await body(seededCuts(bytes, seed, 7))).toBe(whole);
  });

  test("a body that ends without response.completed: the held events still go out, then the call", async () => {
    const items: Item[] = [{ message: "msg_1", parts: [TEXT] }, { reasoning: "rs_1", text: "thinking" }];
    for (const { output } of await everyRun(items, false)) expect(output).toEqual([{ message: ["Reading:\n"] }, "reasoning", "call a.ts"]);
  });

  test("parallel calls on: the recovered call goes out after its message, the native one after it; the text after the recovered call shows (another call follows it, S03: review 48)", async () => {
    const items: Item[] = [{ message: "msg_1", parts: [TEXT] }, { native: "fc_n" }];
    for (const { output } of await everyRun(items, true, {})) expect(output).toEqual([{ message: ["Reading:\n\nDone, the file says hello."] }, "call a.ts", "call n.ts"]);
  });

  test("what is held is bounded: past it the held text is released as text (as a tail past bufferLimit), so it is never lost", async () => {
    // About 5 MiB of reasoning after the message, in events of 256 KiB.
    const big: Item = { reasoning: "rs_1", text: "r".repeat(256 * 1024), chunks: 20 };
    const withNative: Item[] = [{ message: "msg_1", parts: [TEXT] }, big, { native: "fc_n" }];
    const json = await jsonOutput(withNative);
    const run = await streamRun([encode(sse(withNative, 1000))]);
    expect(run.output).toEqual(json);
    // Without a native call the text was already out when the reply ended: it stays, and the call still runs.
    const alone = await streamRun([encode(sse([{ message: "msg_1", parts: [TEXT] }, big], 1000))]);
    expect(alone.output).toEqual([{ message: ["Reading:\n\nDone, the file says hello."] }, "reasoning", "call a.ts"]);
  });
});
