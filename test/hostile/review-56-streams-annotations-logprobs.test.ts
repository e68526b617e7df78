/**
 * Review 56 (fixer, streams): two suspicions of the reviewer, each proven by a test first. The
 * real repairFetch, every stream read whole, byte by byte and at seeded byte cuts. Markup is a
 * Hermes `<tool_call>`, so no DSML marker bytes are written here.
 */
import { describe, expect, test } from "bun:test";
import { byteByByte, dataEvents, encode, seededCuts } from "../adapters/wire-support.ts";
import { type Json, chatJson, hermes, keptJson, keptSse, namedSse, repairedRaw, requestFor, responseJson } from "./review-51-wires-support.ts";

const READ = hermes("read", { path: "a.ts" });
const BASH = hermes("bash", { command: "ls" });

/** Every run's raw repaired stream on `wire`: whole, byte by byte, at seeded cuts. */
async function everySplit(wire: "chat" | "responses", sse: string): Promise<string[]> {
  const bytes = encode(sse);
  const request = requestFor(wire, true);
  const out: string[] = [];
  for (const body of [sse, byteByByte(bytes), ...[1, 2, 3, 4].map((seed) => seededCuts(bytes, seed, 40))]) out.push(await repairedRaw(wire, request, body, "text/event-stream"));
  return out;
}

// ---------------------------------------------------------------------------------------------
// (a) Responses annotations (url_citation start_index/end_index) after markup is removed.
// ---------------------------------------------------------------------------------------------

interface Cite {
  words: string;
  /** Which occurrence of the words in the part's text (0: the first). */
  nth?: number;
}

function annotation(text: string, { words, nth = 0 }: Cite): Json {
  let start = -1;
  for (let i = 0; i <= nth; i++) start = text.indexOf(words, start + 1);
  if (start === -1) throw new Error(`no ${words}`);
  return { type: "url_citation", start_index: start, end_index: start + words.length, url: `http://x.test/${words.replace(/\W/g, "")}`, title: words };
}

/**
 * A Responses reply: message items (one output_text part each, with annotations), streamed in
 * deltas of 7; each annotation.added right after the delta where its words end (as OpenAI sends
 * them), the part's annotations in content_part.done, output_item.done and response.completed.
 */
function responsesReply(parts: { text: string; cites: Cite[] }[]): { sse: string; json: Json } {
  const items = parts.map(({ text, cites }, i) => ({
    id: `msg_${i}`, type: "message", status: "completed", role: "assistant",
    content: [{ type: "output_text", text, annotations: cites.map((c) => annotation(text, c)) }],
  }));
  const events: Json[] = [{ type: "response.created", response: responseJson([], "in_progress") }];
  items.forEach((item, output_index) => {
    const part = item.content[0]!;
    const at = { item_id: item.id, output_index, content_index: 0 };
    events.push({ type: "response.output_item.added", output_index, item: { ...item, status: "in_progress", content: [] } });
    events.push({ type: "response.content_part.added", ...at, part: { ...part, text: "", annotations: [] } });
    let next = 0;
    for (let i = 0; i < part.text.length; i += 7) {
      const end = Math.min(i + 7, part.text.length);
      events.push({ type: "response.output_text.delta", ...at, delta: part.text.slice(i, end), logprobs: [] });
      while (next < part.annotations.length && part.annotations[next]!.end_index <= end) {
        events.push({ type: "response.output_text.annotation.added", ...at, annotation_index: next, annotation: part.annotations[next] });
        next++;
      }
    }
    events.push({ type: "response.output_text.done", ...at, text: part.text, logprobs: [] });
    events.push({ type: "response.content_part.done", ...at, part });
    events.push({ type: "response.output_item.done", output_index, item });
  });
  events.push({ type: "response.completed", response: responseJson(items) });
  return { sse: namedSse(events.map((e, sequence_number) => ({ ...e, sequence_number }))), json: responseJson(items) };
}

/** Per message item: the text its deltas spelled, and its annotations as every event gives them. */
interface StreamedPart {
  text: string;
  added: Json[];
  indexes: number[];
  partDone: Json[] | undefined;
  itemDone: Json[] | undefined;
  completed: Json[] | undefined;
}

function streamedParts(raw: string): Map<string, StreamedPart> {
  const parts = new Map<string, StreamedPart>();
  const of = (id: string) => {
    let p = parts.get(id);
    if (!p) parts.set(id, (p = { text: "", added: [], indexes: [], partDone: undefined, itemDone: undefined, completed: undefined }));
    return p;
  };
  for (const e of dataEvents(raw)) {
    if (e.type === "response.output_text.delta") of(e.item_id).text += e.delta;
    else if (e.type === "response.output_text.annotation.added") {
      of(e.item_id).added.push(e.annotation);
      of(e.item_id).indexes.push(e.annotation_index);
    } else if (e.type === "response.content_part.done") of(e.item_id).partDone = e.part.annotations;
    else if (e.type === "response.output_item.done" && e.item.type === "message") of(e.item.id).itemDone = e.item.content[0].annotations;
    else if (e.type === "response.completed") for (const item of e.response.output) if (item.type === "message") of(item.id).completed = item.content[0].annotations;
  }
  return parts;
}

/** The JSON answer's annotations per message item, and its text. */
async function jsonParts(json: Json): Promise<Map<string, { text: string; annotations: Json[] }>> {
  const raw = await repairedRaw("responses", requestFor("responses", false), JSON.stringify(json), "application/json");
  const out = new Map<string, { text: string; annotations: Json[] }>();
  for (const item of JSON.parse(raw).output as Json[]) if (item.type === "message") out.set(item.id, { text: item.content[0].text, annotations: item.content[0].annotations });
  return out;
}

/** The words each annotation points at in `text`. */
const citedWords = (text: string, annotations: Json[]) => annotations.map((a) => text.slice(a.start_index, a.end_index));

/**
 * Every split: the stream's annotations (annotation.added, in order and numbered from 0, and the
 * `done` events' lists) are the JSON answer's, pointing at the same words in the same shown text.
 */
async function agreesWithJson(reply: { sse: string; json: Json }, expected: Record<string, string[]>): Promise<void> {
  const json = await jsonParts(reply.json);
  for (const [id, words] of Object.entries(expected)) expect(citedWords(json.get(id)!.text, json.get(id)!.annotations)).toEqual(words);
  const kept = keptJson("responses", await repairedRaw("responses", requestFor("responses", false), JSON.stringify(reply.json), "application/json"));
  for (const raw of await everySplit("responses", reply.sse)) {
    expect(keptSse("responses", raw)).toEqual(kept);
    for (const [id, part] of streamedParts(raw)) {
      const want = json.get(id)!;
      expect(part.text).toBe(want.text);
      expect(part.added).toEqual(want.annotations);
      expect(part.indexes).toEqual(want.annotations.map((_, i) => i));
      expect(part.partDone).toEqual(want.annotations);
      expect(part.itemDone).toEqual(want.annotations);
      expect(part.completed).toEqual(want.annotations);
    }
  }
}

// Suspicion (a) (lost/invented text's kin: a citation that points past the shown text or at other
// words; the stream and the JSON answer disagree): on a Responses stream, the
// `response.output_text.annotation.added` events and the `annotations` of content_part.done,
// output_item.done and response.completed kept their upstream start_index/end_index after the
// repair took markup out of the part's text, while the JSON path moves them (annotations.ts
// movedAnnotations). Minimal input: one part `Intro <tool_call>read</tool_call> then the docs.\n
// <tool_call>bash</tool_call>` citing "the docs": the stream said start_index 78 in a shown text
// of 22 characters; the JSON answer says 12.
// Fixed: every annotation of a streamed part points into the text as it went out, as the JSON
// path sets it: the `done` events' lists are moved from their own upstream text (fed-parts.ts);
// an annotation.added event whose words already went out unchanged passes as it came, any other
// waits with its part until the part's text is decided (its end, or the reply's decision on the
// text it held after a call), then goes out moved, or is dropped when its words are gone (inside
// a recovered call, or prose stripped after one); annotation_index counts the ones that went out.
describe("(a) Responses annotations point into the shown text after markup is removed", () => {
  test("an annotation after a removed leak is moved back onto its words; one before it is unchanged (every split, = JSON)", async () => {
    const reply = responsesReply([{ text: "Intro " + READ + " then the docs.\n" + BASH, cites: [{ words: "Intro" }, { words: "the docs" }] }]);
    await agreesWithJson(reply, { msg_0: ["Intro", "the docs"] });
  });

  test("an annotation inside the markup is dropped, and the ones after it are numbered on (every split, = JSON)", async () => {
    const reply = responsesReply([{ text: "See " + READ + " then the docs.\n" + BASH, cites: [{ words: "See" }, { words: "a.ts" }, { words: "the docs" }] }]);
    await agreesWithJson(reply, { msg_0: ["See", "the docs"] });
  });

  test("an annotation in prose stripped after the last call is dropped (every split, = JSON)", async () => {
    const reply = responsesReply([{ text: "See the docs. " + READ + "\nPer the docs, a.ts is fine.", cites: [{ words: "the docs" }, { words: "the docs", nth: 1 }] }]);
    await agreesWithJson(reply, { msg_0: ["the docs"] });
  });

  test("a part whose text after a call waits for the reply (the next item's call releases it): its annotation goes out with that text (every split, = JSON)", async () => {
    const reply = responsesReply([
      { text: "Intro " + READ + " then the docs.\n", cites: [{ words: "the docs" }] },
      { text: BASH, cites: [] },
    ]);
    await agreesWithJson(reply, { msg_0: ["the docs"] });
  });

  // ------------------------------------------------------------------ hard negatives

  test("hard negative: no markup: the stream goes out byte for byte as it came, annotations untouched (every split)", async () => {
    const reply = responsesReply([{ text: "Per the docs, a < b and x > y hold.", cites: [{ words: "the docs" }, { words: "a < b" }] }]);
    for (const raw of await everySplit("responses", reply.sse)) expect(raw).toBe(reply.sse);
  });

  test("hard negative: an annotation on words before the leak is unchanged and goes out where it came, before the call (every split)", async () => {
    const reply = responsesReply([{ text: "Per the docs, I read it. " + READ, cites: [{ words: "the docs" }] }]);
    await agreesWithJson(reply, { msg_0: ["the docs"] });
    for (const raw of await everySplit("responses", reply.sse)) {
      const types = dataEvents(raw).map((e) => e.type);
      expect(types.indexOf("response.output_text.annotation.added")).toBeLessThan(types.indexOf("response.output_text.done"));
    }
  });

  test("hard negative: an annotation without offsets (a file citation) passes as it came", async () => {
    const file = { type: "file_citation", file_id: "file_1", index: 0 };
    const text = "Intro " + READ + " then the docs.\n" + BASH;
    const base = responsesReply([{ text, cites: [] }]);
    const events = dataEvents(base.sse);
    const at = events.findIndex((e) => e.type === "response.output_text.done");
    events.splice(at, 0, { type: "response.output_text.annotation.added", item_id: "msg_0", output_index: 0, content_index: 0, annotation_index: 0, annotation: file });
    const sse = namedSse(events.map((e, sequence_number) => ({ ...e, sequence_number })));
    for (const raw of await everySplit("responses", sse)) expect(streamedParts(raw).get("msg_0")!.added).toEqual([file]);
  });
});

// ---------------------------------------------------------------------------------------------
// (b) Chat logprobs of content taken out of a chunk.
// ---------------------------------------------------------------------------------------------

const CHUNK = { id: "chatcmpl-1", object: "chat.completion.chunk", created: 1, model: "m" };
const entry = (token: string) => ({ token, logprob: -0.5, bytes: [...encode(token)], top_logprobs: [] });

/** A chat stream of `text` in chunks of `size`, each chunk's logprobs one entry per character (a token each). */
function chatWithLogprobs(text: string, size = 6): string {
  const chunks: Json[] = [{ ...CHUNK, choices: [{ index: 0, delta: { role: "assistant", content: "" }, logprobs: null, finish_reason: null }] }];
  for (let at = 0; at < text.length; at += size) {
    const piece = text.slice(at, at + size);
    chunks.push({ ...CHUNK, choices: [{ index: 0, delta: { content: piece }, logprobs: { content: [...piece].map(entry), refusal: null }, finish_reason: null }] });
  }
  chunks.push({ ...CHUNK, choices: [{ index: 0, delta: {}, logprobs: null, finish_reason: "stop" }] });
  return chunks.map((c) => `data: ${JSON.stringify(c)}\n\n`).join("") + "data: [DONE]\n\n";
}

/** Per chunk of choice 0: its content and the tokens of its logprobs. */
function chunksOf(raw: string): { content: string; tokens: string[] }[] {
  return dataEvents(raw).flatMap((e) =>
    ((e.choices ?? []) as Json[]).filter((c) => c.index === 0).map((c) => ({ content: typeof c.delta?.content === "string" ? c.delta.content : "", tokens: ((c.logprobs?.content ?? []) as Json[]).map((t) => t.token) })),
  );
}

// Suspicion (b) (metadata of text that is not shown: the tokens of markup taken into a call reach
// the client's logprobs): a chat chunk whose content the repair took out (all or part of it) kept
// its `logprobs.content` entries, so a client collecting logprobs (the AI SDK's
// providerMetadata.openai.logprobs) lists the tokens of the markup the call was made of, on a
// chunk that shows none of them.
// Choice and fix: on a chunk whose own content the repair changed, logprobs.content keeps only
// the leading entries whose tokens spell what still goes out in that chunk's content; the others
// are dropped (the chunk's logprobs become null when nothing is left and it says nothing else).
// Text the engine held there and released later goes out in a chunk of its own, without
// logprobs, as every synthetic chunk does: a client's logprobs never list a token it was not shown
// in that chunk. A chunk the repair left alone keeps its logprobs as they came.
describe("(b) chat logprobs of content taken out of a chunk", () => {
  test("every chunk's logprob tokens spell a prefix of its own content; the markup's tokens never reach the client (every split)", async () => {
    const sse = chatWithLogprobs("Sure. " + READ + "\n" + "and " + BASH);
    for (const raw of await everySplit("chat", sse)) {
      expect(keptSse("chat", raw).calls.map((c) => c.name)).toEqual(["read", "bash"]);
      const all = chunksOf(raw);
      for (const { content, tokens } of all) expect(content.startsWith(tokens.join(""))).toBe(true);
      const spelled = all.flatMap((c) => c.tokens).join("");
      expect(spelled).not.toContain("tool_call");
      expect(spelled).not.toContain("a.ts");
    }
  });

  test("a chunk whose content all became part of a call carries no logprobs (every split)", async () => {
    const sse = chatWithLogprobs(READ, 5);
    for (const raw of await everySplit("chat", sse)) {
      expect(keptSse("chat", raw).calls.map((c) => c.name)).toEqual(["read"]);
      expect(chunksOf(raw).flatMap((c) => c.tokens)).toEqual([]);
    }
  });

  // ------------------------------------------------------------------ hard negatives

  test("hard negative: no markup: the stream goes out byte for byte, logprobs and all (every split)", async () => {
    const sse = chatWithLogprobs("Plain words, a > b, and [b]bold[/b] text.");
    for (const raw of await everySplit("chat", sse)) expect(raw).toBe(sse);
  });

  test("hard negative: a `<` that is no tag, held at a chunk's end and then released: every character is shown; a token is never listed on a chunk that does not show it (every split)", async () => {
    const text = "Plain words, a < b, and <b>bold</b> text.";
    for (const raw of await everySplit("chat", chatWithLogprobs(text))) {
      expect(keptSse("chat", raw).text).toBe(text);
      for (const { content, tokens } of chunksOf(raw)) expect(content.startsWith(tokens.join(""))).toBe(true);
    }
  });

  test("hard negative: the text before the leak keeps the logprobs of its tokens, in the chunk that shows it (every split)", async () => {
    const sse = chatWithLogprobs("Sure. " + READ);
    for (const raw of await everySplit("chat", sse)) {
      const all = chunksOf(raw);
      expect(all.find((c) => c.content === "Sure. ")?.tokens.join("")).toBe("Sure. ");
      expect(keptSse("chat", raw).text).toBe("Sure. ");
    }
  });

  test("hard negative: the JSON answer's logprobs are not touched by this rule (it has no per-chunk content)", async () => {
    const body = chatJson([{ message: { content: "Sure. " + READ }, extra: { logprobs: { content: [entry("Sure.")], refusal: null } } }]);
    const out = JSON.parse(await repairedRaw("chat", requestFor("chat", false), JSON.stringify(body), "application/json"));
    expect(out.choices[0].logprobs).toEqual({ content: [entry("Sure.")], refusal: null });
  });
});
