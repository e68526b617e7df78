// Review 50 (hostile, tests only): stream invariants on the Responses wire, as property tests. A
// reply made of a golden fixture between prose is cut at random places into output_text parts of
// one or two message items (a part's text sometimes given in its content_part.added), with a
// reasoning item first and sometimes one between the items, and every end (completed, incomplete
// for max_output_tokens, a body that ends with no response.completed; incomplete for the content
// filter, response.failed and an `error` event cut it). Written in every legal SSE framing, under
// the default and small bufferLimit values, sent whole, at seeded random byte offsets and cut inside
// every multi-byte character, CRLF and `data:` field name. Invariants: the same client view every
// way; the text and calls are the engine's with endSpan() between parts (at a cut what is held
// shows as written); the reasoning is never lost; items, parts, output_index and sequence_number
// stay well formed. And items streamed in parallel (output_item.added for two messages before
// either is done, their deltas interleaved): nothing is lost or invented. Seeded, bounded.
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { BUFFER_LIMITS, type Framing, FRAMINGS, type Json, type Outcome, URLS, byteCuts, cutAt, deltas, encode, piecesOf, readSse, reference, repaired, replyArb, show, spannedReference, trickyOffsets, writeSse } from "./review-50-streams-support.ts";
import { fixtureTools } from "../golden/tools.ts";

const TOOLS = fixtureTools.map((t) => ({ type: "function", name: t.name, parameters: t.parameters }));
const ENDS = ["completed", "max_output_tokens", "no-completed", "content_filter", "failed", "error"] as const;
type End = (typeof ENDS)[number];
const CUT: ReadonlySet<End> = new Set(["content_filter", "failed", "error"]);

interface Case {
  text: string;
  cuts: number[];
  /** How many of the parts go in the first message item (the rest in a second). */
  split: number;
  reasoningFirst: boolean;
  reasoningBetween: boolean;
  startText: boolean;
  size: number;
  end: End;
  framing: Framing;
  bufferLimit?: number;
}

const caseArb: fc.Arbitrary<Case> = fc
  .record({
    reply: replyArb,
    cuts: fc.array(fc.nat(400), { maxLength: 3 }),
    split: fc.nat(4),
    reasoningFirst: fc.boolean(),
    reasoningBetween: fc.boolean(),
    startText: fc.boolean(),
    size: fc.integer({ min: 1, max: 9 }),
    end: fc.constantFrom(...ENDS),
    framing: fc.constantFrom(...FRAMINGS),
    bufferLimit: fc.constantFrom(...BUFFER_LIMITS),
  })
  .map(({ reply, ...rest }) => ({ ...rest, text: reply.text }));

const REASONING = "Thinking \u00e9 \uD83D\uDE00 it over.";
const responseObject = (status: string, output: Json[], extra: Json = {}) => ({ id: "resp_1", object: "response", created_at: 1, status, model: "m", output, ...extra });

function itemsOf(c: Case): Json[] {
  const parts = piecesOf(c.text, c.cuts);
  const groups = [parts.slice(0, Math.max(1, c.split)), parts.slice(Math.max(1, c.split))].filter((g) => g.length > 0);
  const out: Json[] = [];
  if (c.reasoningFirst) out.push({ id: "rs_0", type: "reasoning", summary: [{ type: "summary_text", text: REASONING }] });
  groups.forEach((g, i) => {
    if (i > 0 && c.reasoningBetween) out.push({ id: `rs_${i}`, type: "reasoning", summary: [{ type: "summary_text", text: REASONING }] });
    out.push({ id: `msg_${i}`, type: "message", status: "completed", role: "assistant", content: g.map((text) => ({ type: "output_text", text, annotations: [] })) });
  });
  return out;
}

function body(c: Case): { sse: string; parts: string[] } {
  const output = itemsOf(c);
  const events: Json[] = [{ type: "response.created", response: responseObject("in_progress", []) }];
  output.forEach((item, index) => {
    if (item.type === "reasoning") {
      events.push({ type: "response.output_item.added", output_index: index, item: { ...item, summary: [] } });
      const at = { item_id: item.id, output_index: index, summary_index: 0 };
      events.push({ type: "response.reasoning_summary_part.added", ...at, part: { type: "summary_text", text: "" } });
      for (const d of deltas(REASONING, c.size)) events.push({ type: "response.reasoning_summary_text.delta", ...at, delta: d });
      events.push({ type: "response.reasoning_summary_text.done", ...at, text: REASONING });
      events.push({ type: "response.reasoning_summary_part.done", ...at, part: { type: "summary_text", text: REASONING } });
      events.push({ type: "response.output_item.done", output_index: index, item });
      return;
    }
    events.push({ type: "response.output_item.added", output_index: index, item: { ...item, status: "in_progress", content: [] } });
    (item.content as Json[]).forEach((part, content) => {
      const at = { item_id: item.id, output_index: index, content_index: content };
      const first = c.startText ? (part.text as string).slice(0, c.size) : "";
      events.push({ type: "response.content_part.added", ...at, part: { type: "output_text", text: first, annotations: [] } });
      for (const d of deltas((part.text as string).slice(first.length), c.size)) events.push({ type: "response.output_text.delta", ...at, delta: d, logprobs: [] });
      events.push({ type: "response.output_text.done", ...at, text: part.text, logprobs: [] });
      events.push({ type: "response.content_part.done", ...at, part });
    });
    events.push({ type: "response.output_item.done", output_index: index, item });
  });
  if (c.end === "completed") events.push({ type: "response.completed", response: responseObject("completed", output) });
  if (c.end === "max_output_tokens" || c.end === "content_filter") events.push({ type: "response.incomplete", response: responseObject("incomplete", output, { incomplete_details: { reason: c.end } }) });
  if (c.end === "failed") events.push({ type: "response.failed", response: responseObject("failed", output, { error: { code: "server_error", message: "x" } }) });
  if (c.end === "error") events.push({ type: "error", code: "server_error", message: "x", param: null });
  const parts = output.filter((i) => i.type === "message").flatMap((i) => (i.content as Json[]).map((p) => p.text as string));
  return { sse: writeSse(events.map((e, sequence_number) => ({ ...e, sequence_number })), c.framing, true), parts };
}

interface View {
  text: string;
  reasoning: string;
  calls: { tool: string; input: unknown }[];
  last: string | undefined;
  final?: { text: string; calls: number };
}

/** A strict client: items one at a time at output_index 0, 1, 2...; parts inside their item; sequence numbers 0, 1, 2... */
function read(raw: string): View {
  const { events, problem } = readSse(raw);
  if (problem) throw new Error(`framing: ${problem}`);
  const v: View = { text: "", reasoning: "", calls: [], last: undefined };
  let open: Json | undefined;
  let next = 0;
  const parts = new Set<string>();
  events.forEach((e, at) => {
    const j = JSON.parse(e.data) as Json;
    if (e.event !== j.type) throw new Error(`event name ${e.event} for ${j.type}`);
    if (j.sequence_number !== at) throw new Error(`event ${at} (${j.type}) has sequence_number ${j.sequence_number}`);
    if (v.last !== undefined) throw new Error(`${j.type} after ${v.last}`);
    if (j.type === "response.output_item.added") {
      if (open) throw new Error(`item ${j.output_index} added while ${open.output_index} open`);
      if (j.output_index !== next++) throw new Error(`item added at ${j.output_index}`);
      open = { output_index: j.output_index, id: j.item.id };
    } else if (j.type === "response.output_item.done") {
      if (!open || open.output_index !== j.output_index || open.id !== j.item.id) throw new Error(`item done at ${j.output_index} (${j.item.id}), open ${open?.output_index}`);
      if (j.item.type === "function_call") v.calls.push({ tool: j.item.name, input: JSON.parse(j.item.arguments) });
      open = undefined;
    } else if (j.type === "response.content_part.added") {
      if (open?.output_index !== j.output_index) throw new Error(`part in item ${j.output_index}, open ${open?.output_index}`);
      parts.add(`${j.output_index}/${j.content_index}`);
      v.text += j.part.text ?? "";
    } else if (j.type === "response.output_text.delta") {
      if (!parts.has(`${j.output_index}/${j.content_index}`)) throw new Error(`delta for part ${j.output_index}/${j.content_index} not open`);
      v.text += j.delta;
    } else if (j.type === "response.content_part.done") {
      if (!parts.delete(`${j.output_index}/${j.content_index}`)) throw new Error(`part ${j.output_index}/${j.content_index} done, not open`);
    } else if (j.type === "response.reasoning_summary_text.delta") v.reasoning += j.delta;
    else if (/^response\.(completed|incomplete|failed)$/.test(j.type) || j.type === "error") {
      v.last = j.type;
      const output = (j.response?.output ?? []) as Json[];
      if (j.type !== "error") v.final = { text: output.filter((i) => i.type === "message").flatMap((i) => i.content).map((p: Json) => p.text ?? "").join(""), calls: output.filter((i) => i.type === "function_call").length };
    }
  });
  if (v.last === undefined && (open || parts.size > 0)) throw new Error("the body ends with an item open");
  return v;
}

const request = { model: "gpt-x", stream: true, input: [{ role: "user", content: "hi" }], tools: TOOLS };

describe("Responses: whole = every split, nothing lost or invented (property, hard negatives)", () => {
  test("golden replies over parts and items, reasoning items before and between, every end and framing", async () => {
    await fc.assert(
      fc.asyncProperty(caseArb, fc.integer({ min: 1, max: 1e6 }), async (c, seed) => {
        const { sse, parts } = body(c);
        const bytes = encode(sse);
        const whole = read(await repaired(URLS.responses, request, [bytes], c.bufferLimit));
        for (const pieces of [byteCuts(bytes, seed, 1 + (seed % 23)), cutAt(bytes, trickyOffsets(bytes))]) {
          expect(show(read(await repaired(URLS.responses, request, pieces, c.bufferLimit)))).toBe(show(whole));
        }
        const ref = spannedReference(parts, { cut: CUT.has(c.end), bufferLimit: c.bufferLimit });
        expect(show({ text: whole.text, calls: whole.calls })).toBe(show(ref));
        expect(whole.reasoning).toBe(REASONING.repeat((c.reasoningFirst ? 1 : 0) + (c.reasoningBetween && parts.length > Math.max(1, c.split) ? 1 : 0)));
        if (whole.final && whole.last !== "response.failed") expect(show(whole.final)).toBe(show({ text: ref.text, calls: ref.calls.length }));
      }),
      { seed: 5003, numRuns: 150 },
    );
  }, 120_000);
});

// ---------------------------------------------------------------- items in parallel

interface Parallel {
  a: string;
  b: string;
  /** The second item: another message, a native function_call, or a reasoning item. */
  kind: "message" | "function_call" | "reasoning";
  order: number[];
  size: number;
  framing: Framing;
}

const parallelArb: fc.Arbitrary<Parallel> = fc.record({
  a: replyArb.map((r) => r.text),
  b: replyArb.map((r) => r.text),
  kind: fc.constantFrom("message" as const, "function_call" as const, "reasoning" as const),
  order: fc.array(fc.boolean(), { minLength: 4, maxLength: 60 }).map((bs) => bs.map((b) => (b ? 1 : 0))),
  size: fc.integer({ min: 1, max: 9 }),
  framing: fc.constantFrom(...FRAMINGS),
});

/** Two items added before either is done, their deltas interleaved in `order` (0: the first item's next delta, 1: the second's). */
function parallelBody(p: Parallel): string {
  const events: Json[] = [{ type: "response.created", response: responseObject("in_progress", []) }];
  const msg = (id: string, text: string) => ({ id, type: "message", status: "completed", role: "assistant", content: [{ type: "output_text", text, annotations: [] }] });
  const first = msg("msg_a", p.a);
  const second =
    p.kind === "message" ? msg("msg_b", p.b) : p.kind === "function_call" ? { id: "fc_b", type: "function_call", status: "completed", call_id: "call_b", name: "glob", arguments: JSON.stringify({ pattern: p.b }) } : { id: "rs_b", type: "reasoning", summary: [{ type: "summary_text", text: p.b }] };
  events.push({ type: "response.output_item.added", output_index: 0, item: { ...first, status: "in_progress", content: [] } });
  events.push({ type: "response.content_part.added", item_id: "msg_a", output_index: 0, content_index: 0, part: { type: "output_text", text: "", annotations: [] } });
  if (p.kind === "message") {
    events.push({ type: "response.output_item.added", output_index: 1, item: { ...second, status: "in_progress", content: [] } });
    events.push({ type: "response.content_part.added", item_id: "msg_b", output_index: 1, content_index: 0, part: { type: "output_text", text: "", annotations: [] } });
  } else if (p.kind === "function_call") events.push({ type: "response.output_item.added", output_index: 1, item: { ...second, status: "in_progress", arguments: "" } });
  else {
    events.push({ type: "response.output_item.added", output_index: 1, item: { ...second, summary: [] } });
    events.push({ type: "response.reasoning_summary_part.added", item_id: "rs_b", output_index: 1, summary_index: 0, part: { type: "summary_text", text: "" } });
  }
  const streams = [deltas(p.a, p.size), p.kind === "function_call" ? deltas((second as Json).arguments, p.size) : deltas(p.b, p.size)];
  const at = [0, 0];
  const push = (which: number) => {
    const d = streams[which]![at[which]!++];
    if (d === undefined) return;
    if (which === 0) events.push({ type: "response.output_text.delta", item_id: "msg_a", output_index: 0, content_index: 0, delta: d, logprobs: [] });
    else if (p.kind === "message") events.push({ type: "response.output_text.delta", item_id: "msg_b", output_index: 1, content_index: 0, delta: d, logprobs: [] });
    else if (p.kind === "function_call") events.push({ type: "response.function_call_arguments.delta", item_id: "fc_b", output_index: 1, delta: d });
    else events.push({ type: "response.reasoning_summary_text.delta", item_id: "rs_b", output_index: 1, summary_index: 0, delta: d });
  };
  for (const which of p.order) push(which);
  while (at[0]! < streams[0]!.length || at[1]! < streams[1]!.length) push(at[0]! < streams[0]!.length ? 0 : 1);
  events.push({ type: "response.output_text.done", item_id: "msg_a", output_index: 0, content_index: 0, text: p.a, logprobs: [] });
  events.push({ type: "response.content_part.done", item_id: "msg_a", output_index: 0, content_index: 0, part: first.content[0] });
  if (p.kind === "message") {
    events.push({ type: "response.output_text.done", item_id: "msg_b", output_index: 1, content_index: 0, text: p.b, logprobs: [] });
    events.push({ type: "response.content_part.done", item_id: "msg_b", output_index: 1, content_index: 0, part: (second as Json).content[0] });
  } else if (p.kind === "function_call") events.push({ type: "response.function_call_arguments.done", item_id: "fc_b", output_index: 1, arguments: (second as Json).arguments });
  else {
    events.push({ type: "response.reasoning_summary_text.done", item_id: "rs_b", output_index: 1, summary_index: 0, text: p.b });
    events.push({ type: "response.reasoning_summary_part.done", item_id: "rs_b", output_index: 1, summary_index: 0, part: { type: "summary_text", text: p.b } });
  }
  events.push({ type: "response.output_item.done", output_index: 0, item: first });
  events.push({ type: "response.output_item.done", output_index: 1, item: second });
  events.push({ type: "response.completed", response: responseObject("completed", [first, second]) });
  return writeSse(events.map((e, sequence_number) => ({ ...e, sequence_number })), p.framing, true);
}

/**
 * Per item id: the text its deltas carried; the calls in the done items; the reasoning. Items may
 * be open together, but each is added under the next output_index (0, 1, 2...), every event of it
 * carries that index, and response.completed lists it there (finding 1, review-50-streams-findings.test.ts, fixed).
 */
function readLoose(raw: string) {
  const { events, problem } = readSse(raw);
  if (problem) throw new Error(`framing: ${problem}`);
  const text: Record<string, string> = {};
  const calls: { tool: string; input: unknown }[] = [];
  let reasoning = "";
  const indexOf = new Map<string, number>();
  events.forEach((e, at) => {
    const j = JSON.parse(e.data) as Json;
    if (j.sequence_number !== at) throw new Error(`event ${at} (${j.type}) has sequence_number ${j.sequence_number}`);
    if (j.type === "response.output_item.added") {
      if (j.output_index !== indexOf.size || indexOf.has(j.item.id)) throw new Error(`item ${j.item.id} added at ${j.output_index}, ${indexOf.size} items before it`);
      indexOf.set(j.item.id, j.output_index);
    } else if (typeof j.output_index === "number") {
      const id = j.item?.id ?? j.item_id;
      if (indexOf.get(id) !== j.output_index) throw new Error(`${j.type} of ${id} at ${j.output_index}, added at ${indexOf.get(id)}`);
    } else if (j.type === "response.completed") {
      const listed = (j.response.output as Json[]).map((item) => item.id);
      const streamed = [...indexOf.keys()];
      if (listed.join() !== streamed.join()) throw new Error(`response.completed lists ${listed.join()}, streamed ${streamed.join()}`);
    }
    if (j.type === "response.output_text.delta") text[j.item_id] = (text[j.item_id] ?? "") + j.delta;
    if (j.type === "response.reasoning_summary_text.delta") reasoning += j.delta;
    if (j.type === "response.output_item.done" && j.item.type === "function_call") calls.push({ tool: j.item.name, input: JSON.parse(j.item.arguments) });
  });
  return { text, calls, reasoning };
}

/** Every call of `got` is among `all` (as many times at most): none invented. */
function subCalls(got: string[], all: string[]): boolean {
  const left = [...all];
  return got.every((c) => {
    const at = left.indexOf(c);
    if (at < 0) return false;
    left.splice(at, 1);
    return true;
  });
}

/** `got` is `written` with characters left out, in order: nothing invented. Linear. */
function isSubsequence(got: string, written: string): boolean {
  let k = 0;
  for (let i = 0; i < written.length && k < got.length; i++) if (written[i] === got[k]) k++;
  return k === got.length;
}

describe("Responses: items streamed in parallel (property, hard negatives)", () => {
  test("a message beside another message, a native function_call or a reasoning item, deltas interleaved: nothing lost or invented, the same every way", async () => {
    await fc.assert(
      fc.asyncProperty(parallelArb, fc.integer({ min: 1, max: 1e6 }), async (p, seed) => {
        const bytes = encode(parallelBody(p));
        const whole = readLoose(await repaired(URLS.responses, request, [bytes]));
        for (const pieces of [byteCuts(bytes, seed, 1 + (seed % 23)), cutAt(bytes, trickyOffsets(bytes))]) {
          expect(show(readLoose(await repaired(URLS.responses, request, pieces)))).toBe(show(whole));
        }
        // Each message item reads as the engine reads it alone, or (the repair stood aside) exactly as written.
        const native = p.kind === "function_call" ? [{ tool: "glob", input: { pattern: p.b } }] : [];
        // A native call added before the text: leaked markup is stripped, never a second call (native wins).
        const readings = (text: string) => [{ text, calls: [] as Outcome["calls"] }, reference(text, { native: p.kind === "function_call" })];
        const options = p.kind === "message" ? readings(p.a).flatMap((x) => readings(p.b).map((y) => [x, y])) : readings(p.a).map((x) => [x]);
        const sorted = (calls: Outcome["calls"]) => calls.map((c) => show(c)).sort();
        const got = { a: whole.text.msg_a ?? "", b: p.kind === "message" ? (whole.text.msg_b ?? "") : undefined, calls: sorted(whole.calls) };
        const fits = options.some(([x, y]) => show(got) === show({ a: x!.text, b: y?.text, calls: sorted([...x!.calls, ...(y?.calls ?? []), ...native]) }));
        // Changed by fix 54b: a part's end decides nothing. An item (or the stretch of it a reasoning
        // delta ends, `</tool_calls>\uD83D\uDE00 ok` then a reasoning item) that ends with markup still pending
        // shows it as written and no later call of the reply runs: fewer calls than any reading
        // alone, none invented, and each item's text only what was written (what follows a call is
        // stripped at the reply's end, S03).
        const refused = !fits && subCalls(got.calls, sorted([...options.flatMap(([x, y]) => [...x!.calls, ...(y?.calls ?? [])]), ...native])) && isSubsequence(got.a, p.a) && (got.b === undefined || isSubsequence(got.b, p.b));
        expect(fits || refused ? "accounted" : show({ got, options })).toBe("accounted");
        if (p.kind === "reasoning") expect(whole.reasoning).toBe(p.b);
      }),
      { seed: 5004, numRuns: 120 },
    );
  }, 120_000);
});
