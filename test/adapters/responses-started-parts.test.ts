/**
 * Responses stream: a part may arrive with text already in it, in `response.content_part.added`
 * or in the content of the message item `response.output_item.added` starts (OpenAI sends both
 * empty; a Responses-compatible server may not). A client that accumulates parts (the OpenAI SDK's
 * stream snapshot) starts each part from that text, so the repair must read it as the part's first
 * delta, in the one documentation context of the reply: a fence it opens keeps a call in the
 * deltas an example (review 43). Every reply is checked whole, with one-character deltas read byte
 * by byte and at seeded random byte cuts, against the JSON answer of the same reply, and must stay
 * a stream a strict client accepts: sequence numbers run on, the `added` part or item plus the
 * deltas equal every `done` text, response.completed lists what went out.
 */
import { describe, expect, test } from "bun:test";
import { repairFetch } from "../../src/adapters/fetch.ts";
import { block, live } from "../golden/notation.ts";
import { JSON_HEADERS, type Json, byteByByte, chunkedFetch, dataEvents, encode, namedConsistently, namedSse, postInit, seededCuts } from "./wire-support.ts";

const URL_RESPONSES = "http://model.test/v1/responses";
const READ = { type: "object", properties: { path: { type: "string" } }, required: ["path"] };
const SEEDS = [1, 2, 3, 4, 5, 6];
const HERMES = '<tool_call>{"name":"read","arguments":{"path":"a.ts"}}</tool_call>';
const DSML = live(block("tool_calls", [["read", [["path", "a.ts"]]]]));
const FENCE = "Example:\n```\n";

/** One output_text part: `initial` is the text it arrives with, `rest` comes in deltas. */
interface Part {
  initial: string;
  rest: string;
}
/** Where a part's initial text rides: its content_part.added, or the message item's content as it is added (no content_part.added then). */
type Start = "part" | "item";
interface Item {
  id: string;
  parts: Part[];
}

function request(stream: boolean): RequestInit {
  return postInit({ model: "m", stream, input: "show me", tools: [{ type: "function", name: "read", parameters: READ }] });
}

const textPart = (text: string) => ({ type: "output_text", text, annotations: [] });
const message = (item: Item, status: string, texts: string[]) => ({ id: item.id, type: "message", status, role: "assistant", content: texts.map(textPart) });
const full = (part: Part) => part.initial + part.rest;

/** The named SSE a server sends for `items`, deltas `size` characters long. */
function sse(items: Item[], start: Start, size: number): string {
  const response = (status: string, output: Json[]) => ({ id: "resp_1", object: "response", created_at: 1, status, model: "m", output });
  const events: Json[] = [{ type: "response.created", response: response("in_progress", []) }];
  items.forEach((item, index) => {
    events.push({ type: "response.output_item.added", output_index: index, item: message(item, "in_progress", start === "item" ? item.parts.map((p) => p.initial) : []) });
    item.parts.forEach((part, content) => {
      const at = { item_id: item.id, output_index: index, content_index: content };
      if (start === "part") events.push({ type: "response.content_part.added", ...at, part: textPart(part.initial) });
      for (let i = 0; i < part.rest.length; i += size) events.push({ type: "response.output_text.delta", ...at, delta: part.rest.slice(i, i + size), logprobs: [] });
      events.push({ type: "response.output_text.done", ...at, text: full(part), logprobs: [] });
      events.push({ type: "response.content_part.done", ...at, part: textPart(full(part)) });
    });
    events.push({ type: "response.output_item.done", output_index: index, item: message(item, "completed", item.parts.map(full)) });
  });
  events.push({ type: "response.completed", response: response("completed", items.map((item) => message(item, "completed", item.parts.map(full)))) });
  return namedSse(events.map((e, sequence_number) => ({ ...e, sequence_number })));
}

/**
 * What a strict client keeps of a repaired stream, failing unless the stream agrees with itself:
 * sequence numbers from 0, each part's text is what its `added` event carried plus its deltas, and
 * every `done` event and response.completed say just that.
 */
function readStrict(out: string): Json[] {
  expect(namedConsistently(out)).toBe(true);
  const output: Json[] = [];
  let final: Json[] | undefined;
  dataEvents(out).forEach((event, seq) => {
    expect(event.sequence_number).toBe(seq);
    const item = output[event.output_index];
    const text = () => item!.content[event.content_index].text;
    switch (event.type) {
      case "response.output_item.added":
        expect(event.output_index).toBe(output.length);
        output.push(structuredClone(event.item));
        break;
      case "response.content_part.added":
        item!.content[event.content_index] = structuredClone(event.part);
        break;
      case "response.output_text.delta":
        item!.content[event.content_index].text += event.delta;
        break;
      case "response.output_text.done":
        expect(event.text).toBe(text());
        break;
      case "response.content_part.done":
        expect(event.part.text).toBe(text());
        break;
      case "response.function_call_arguments.delta":
        item!.arguments += event.delta;
        break;
      case "response.output_item.done":
        if (item!.type === "message") expect(event.item.content.map((p: Json) => p.text)).toEqual(item!.content.map((p: Json) => p.text));
        else expect(event.item.arguments).toBe(item!.arguments);
        output[event.output_index] = event.item;
        break;
      case "response.completed":
        final = event.response.output;
        break;
    }
  });
  expect(final).toEqual(output);
  return output;
}

/** A message as its parts' texts, a call as its path. */
function outputOf(output: Json[]): unknown[] {
  return output.map((item) => (item.type === "message" ? { message: item.content.map((p: Json) => p.text) } : `call ${JSON.parse(item.arguments).path}`));
}

async function jsonOutput(items: Item[]): Promise<unknown[]> {
  const body = { id: "resp_1", object: "response", status: "completed", model: "m", output: items.map((item) => message(item, "completed", item.parts.map(full))) };
  const res = await repairFetch({}, chunkedFetch([encode(JSON.stringify(body))], JSON_HEADERS))(URL_RESPONSES, request(false));
  return outputOf(((await res.json()) as Json).output);
}

const body = async (chunks: Uint8Array[]) => (await repairFetch({}, chunkedFetch(chunks))(URL_RESPONSES, request(true))).text();

/** Whole, one-character deltas byte by byte, seeded random byte cuts: what a strict client keeps of each. */
async function everyRun(items: Item[], start: Start): Promise<unknown[][]> {
  const runs = [outputOf(readStrict(await body([encode(sse(items, start, 1000))]))), outputOf(readStrict(await body(byteByByte(encode(sse(items, start, 1))))))];
  for (const seed of SEEDS) runs.push(outputOf(readStrict(await body(seededCuts(encode(sse(items, start, 1 + (seed % 5))), seed)))));
  return runs;
}

const one = (initial: string, rest: string): Item[] => [{ id: "msg_1", parts: [{ initial, rest }] }];

describe("Responses stream: a part that arrives with text is read as its first delta", () => {
  const cases: [string, Item[], unknown[]][] = [
    ["a fence opened in the initial text keeps a Hermes call in the deltas an example", one(FENCE, `${HERMES}\n\`\`\``), [{ message: [`${FENCE}${HERMES}\n\`\`\``] }]],
    ["a fence opened in the initial text keeps a DSML call in the deltas an example", one(FENCE, `${DSML}\n\`\`\`\nThat is the format.`), [{ message: [`${FENCE}${DSML}\n\`\`\`\nThat is the format.`] }]],
    ["a live call wholly in the initial text is recovered", one(`Reading:\n${HERMES}`, ""), [{ message: ["Reading:\n"] }, "call a.ts"]],
    ["a live call begun in the initial text and ended in the deltas is recovered", one('Reading:\n<tool_call>{"name":"read"', ',"arguments":{"path":"a.ts"}}</tool_call>'), [{ message: ["Reading:\n"] }, "call a.ts"]],
    ["a DSML call cut inside its marker between the initial text and the deltas is recovered", one(`Now:\n${DSML.slice(0, 4)}`, DSML.slice(4)), [{ message: ["Now:\n"] }, "call a.ts"]],
    ["plain text stays as it came", one("Hello", ", world."), [{ message: ["Hello, world."] }]],
  ];
  for (const [name, items, expected] of cases) {
    for (const start of ["part", "item"] as Start[]) {
      test(`${name} (initial text in the ${start === "part" ? "content_part.added" : "output_item.added"}), as in JSON, at every split`, async () => {
        expect(await jsonOutput(items)).toEqual(expected);
        for (const run of await everyRun(items, start)) expect(run).toEqual(expected);
      });
    }
  }

  test("a later message item that arrives with content reads on in the fence an earlier item opened", async () => {
    const items: Item[] = [
      { id: "msg_1", parts: [{ initial: "", rest: FENCE }] },
      { id: "msg_2", parts: [{ initial: `${HERMES}\n\`\`\``, rest: "" }] },
    ];
    const expected = [{ message: [FENCE] }, { message: [`${HERMES}\n\`\`\``] }];
    expect(await jsonOutput(items)).toEqual(expected);
    for (const start of ["part", "item"] as Start[]) for (const run of await everyRun(items, start)) expect(run).toEqual(expected);
  });

  test("a message item added with two parts of text: the second reads on in the fence the first opened", async () => {
    const items: Item[] = [{ id: "msg_1", parts: [{ initial: FENCE, rest: "" }, { initial: HERMES, rest: "\n```" }] }];
    const expected = [{ message: [FENCE, `${HERMES}\n\`\`\``] }];
    expect(await jsonOutput(items)).toEqual(expected);
    for (const run of await everyRun(items, "item")) expect(run).toEqual(expected);
  });

  // The two tests above and "plain text" are hard negatives (unread text stays text too); these two fail when the text is not read.
  test("a later message item that arrives with a live call in its content: the call is recovered", async () => {
    const items: Item[] = [
      { id: "msg_1", parts: [{ initial: "", rest: "Reading:\n" }] },
      { id: "msg_2", parts: [{ initial: HERMES, rest: "" }] },
    ];
    const expected = [{ message: ["Reading:\n"] }, { message: [""] }, "call a.ts"];
    expect(await jsonOutput(items)).toEqual(expected);
    for (const start of ["part", "item"] as Start[]) for (const run of await everyRun(items, start)) expect(run).toEqual(expected);
  });

  test("a message item added with two parts of text, the second a live call: the call is recovered", async () => {
    const items: Item[] = [{ id: "msg_1", parts: [{ initial: "Reading:\n", rest: "" }, { initial: HERMES, rest: "" }] }];
    const expected = [{ message: ["Reading:\n", ""] }, "call a.ts"];
    expect(await jsonOutput(items)).toEqual(expected);
    for (const run of await everyRun(items, "item")) expect(run).toEqual(expected);
  });

  test("text the engine lets through as it came stays where it came: the stream goes out byte for byte", async () => {
    for (const start of ["part", "item"] as Start[]) {
      // Delta sizes whose cuts fall outside the closer after the quoted call (the test below).
      for (const size of [17, 18]) {
        const input = sse(one(FENCE, `${HERMES}\n\`\`\``), start, size);
        expect(await body([encode(input)])).toBe(input);
        expect(await body(byteByByte(encode(input)))).toBe(input);
      }
    }
  });

  // Round 52 (the quote hand-over): a `<` ending a delta right after a quoted call's end waits for
  // the next delta, which tells whether it starts a further call's opener (quoted too) or a stray
  // closer (reported), the same at every split. This wire keeps no deferred events, so those two
  // deltas go out regrouped: the text a client reads is the same, every event still agrees.
  test("a delta ending in `</` right after a quoted call's end: the client reads the same text", async () => {
    for (const start of ["part", "item"] as Start[]) {
      const input = sse(one(FENCE, `${HERMES}\n\`\`\``), start, 7);
      for (const out of [await body([encode(input)]), await body(byteByByte(encode(input)))]) {
        expect(outputOf(readStrict(out))).toEqual(outputOf(readStrict(input)));
      }
    }
  });

  test("initial text the engine changed leaves its event empty, and the deltas that replace it come right after it, numbered on", async () => {
    const out = dataEvents(await body([encode(sse(one(`Reading:\n${HERMES}`, ""), "part", 1000))]));
    const added = out.findIndex((e) => e.type === "response.content_part.added");
    expect(out[added]!.part.text).toBe("");
    expect(out[added + 1]).toMatchObject({ type: "response.output_text.delta", item_id: "msg_1", output_index: 0, content_index: 0, delta: "Reading:\n", sequence_number: added + 1 });
  });
});
