/**
 * One Responses reply is one documentation context, however the server splits its text: a fence
 * opened in one output_text part (or message item) still holds in the next, so an example inside
 * it never runs. Each case has its hard negative beside it: a fence that closed in the first part
 * leaves a real leak in the second part free to run. Streams are checked whole, with one-character
 * deltas read byte by byte, and at seeded random byte cuts.
 */
import { describe, expect, test } from "bun:test";
import { repairFetch } from "../../src/adapters/fetch.ts";
import { block, live } from "../golden/notation.ts";
import { JSON_HEADERS, type Json, type ResponsesItems as Items, byteByByte, chunkedFetch, dataEvents, encode, postInit, responsesMessages as messages, responsesItemsStream as streamOf, seededCuts } from "./wire-support.ts";

const URL_RESPONSES = "http://model.test/v1/responses";
const TOOLS = [{ type: "function", name: "read", parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] } }];
const LEAK = live(block("tool_calls", [["read", [["path", "a.ts"]]]]));
const FENCE = "```";
const SEEDS = [1, 2, 3, 4, 5, 6, 7, 8];

/** An example inside a fence that opens in the first piece of text; its markup is in the second. */
const FENCED = [`Here is what the format looks like:\n\n${FENCE}\n`, `${LEAK}\n${FENCE}\n\nThat is all.`];
/** The fence opens and closes in the first piece; the second piece is a real leak. */
const CLOSED = [`An example:\n\n${FENCE}\nplain code\n${FENCE}\n\nNow I read it:\n`, `${LEAK}\n`];

const asParts = (texts: string[]): Items => [{ id: "msg_1", parts: texts }];
const asItems = (texts: string[]): Items => texts.map((text, i) => ({ id: `msg_${i + 1}`, parts: [text] }));

function request(stream: boolean): RequestInit {
  return postInit({ model: "m", stream, input: "show me the format", tools: TOOLS });
}

/** What a client keeps of a reply: each output item in order (a message as its joined text, a call as its path). */
function outputOf(output: Json[]): string[] {
  return output.map((item) => (item.type === "message" ? `message ${item.content.map((p: Json) => p.text).join("")}` : `call ${JSON.parse(item.arguments).path}`));
}

/** The items as response.completed lists them, after checking they agree with the items streamed before. */
function streamedOutput(text: string): string[] {
  const done: Json[] = [];
  let completed: Json[] | undefined;
  for (const event of dataEvents(text)) {
    if (event.type === "response.output_item.done") done[event.output_index] = event.item;
    if (event.type === "response.completed") completed = event.response.output;
  }
  expect(completed).toEqual(done);
  return outputOf(done);
}

async function throughJson(items: Items): Promise<string[]> {
  const upstream = chunkedFetch([encode(JSON.stringify({ id: "resp_1", object: "response", status: "completed", model: "m", output: messages(items) }))], JSON_HEADERS);
  const body = (await (await repairFetch({}, upstream)(URL_RESPONSES, request(false))).json()) as Json;
  return outputOf(body.output);
}

async function throughStream(chunks: Uint8Array[]): Promise<string[]> {
  return streamedOutput(await (await repairFetch({}, chunkedFetch(chunks))(URL_RESPONSES, request(true))).text());
}

/** The same answer whole, with one-character deltas read byte by byte, and at seeded random byte cuts. */
async function everyStreamRun(items: Items): Promise<string[][]> {
  const runs = [await throughStream([encode(streamOf(items, 1000))]), await throughStream(byteByByte(encode(streamOf(items, 1))))];
  for (const seed of SEEDS) runs.push(await throughStream(seededCuts(encode(streamOf(items, 1 + (seed % 5))), seed)));
  return runs;
}

const untouched = (items: Items) => items.map(({ parts }) => `message ${parts.join("")}`);

describe("Responses JSON: one reply, one documentation context", () => {
  test("a fence opened in one output_text part keeps the example in the next part from running; closed, the next part's leak runs", async () => {
    expect(await throughJson(asParts(FENCED))).toEqual(untouched(asParts(FENCED)));
    expect(await throughJson(asParts(CLOSED))).toEqual([`message ${CLOSED[0]}`, "call a.ts"]);
  });

  test("a fence opened in one message item keeps the example in the next item from running; closed, the next item's leak runs right after its item", async () => {
    expect(await throughJson(asItems(FENCED))).toEqual(untouched(asItems(FENCED)));
    expect(await throughJson(asItems(CLOSED))).toEqual([`message ${CLOSED[0]}`, "message ", "call a.ts"]);
  });
});

describe("Responses stream: one reply, one documentation context, at every split", () => {
  test("a fence opened in one output_text part keeps the example in the next part from running; closed, the next part's leak runs", async () => {
    for (const run of await everyStreamRun(asParts(FENCED))) expect(run).toEqual(untouched(asParts(FENCED)));
    for (const run of await everyStreamRun(asParts(CLOSED))) expect(run).toEqual([`message ${CLOSED[0]}`, "call a.ts"]);
  });

  test("a fence opened in one message item keeps the example in the next item from running; closed, the next item's leak runs right after its item", async () => {
    for (const run of await everyStreamRun(asItems(FENCED))) expect(run).toEqual(untouched(asItems(FENCED)));
    for (const run of await everyStreamRun(asItems(CLOSED))) expect(run).toEqual([`message ${CLOSED[0]}`, "message ", "call a.ts"]);
  });
});
