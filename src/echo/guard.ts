/**
 * The echo guard's entry point (createEchoGuard, deciding by src/echo/search.ts), and the
 * former stateful reader of given content (findGivenCalls): the calls in it, read by the engine
 * that reads replies with every tolerance and dialect on. The reader no longer decides anything;
 * the tests use it as an oracle (every call it finds, the search must find).
 */
import { DIALECTS, type DialectSwitches } from "../grammar/dialects.ts";
import type { Segment } from "../parse/segments.ts";
import type { ParseOptionsInput, ToolSpec } from "../parse/types.ts";
import { createRepairEngine } from "../engine/engine.ts";
import type { EchoGuard } from "../engine/types.ts";
import { normalizeForEcho } from "./linear-search.ts";
import { createEchoSearch } from "./search.ts";
import { givenForms, mayHoldMarkup } from "./given-text.ts";

const EVERY_DIALECT = Object.fromEntries(Object.keys(DIALECTS).map((id) => [id, true])) as DialectSwitches;
const READ_EVERYTHING: ParseOptionsInput = { orphanInvoke: true, looseParameters: true, rawJsonBody: true, wrappedTool: true, codeCostumes: true, dialects: EVERY_DIALECT };

/** Texts of one round are read as one, so a request of many small parts costs one engine, not one per part. */
const SEPARATOR = "\n\n";
/**
 * Markup a candidate swallowed and markup inside a call's arguments is read again in a later
 * round. Each round reads at most what the previous one held, but nested unclosed openers can
 * make every round as long as the first: the rounds after the first may read this many times the
 * first round (plus a floor), and there are at most MAX_ROUNDS of them.
 */
const REREAD_FACTOR = 4;
const REREAD_FLOOR = 65_536;
const MAX_ROUNDS = 8;
/** Arguments nest; deeper than this they are not walked (the canonical key cuts them off the same way). */
const MAX_DEPTH = 64;

/**
 * The guard handed to the engine as `isEchoed`: a call is a quote when the given content holds it
 * next to tool-call markup (src/echo/search.ts). Nothing is read until the first call is
 * about to be recovered; then the given content is normalized once per request.
 */
export function createEchoGuard(given: () => readonly string[]): EchoGuard {
  return createEchoSearch(given);
}

/*
 * The stateful reader below is no longer the guard's decision (decoys, line prefixes and glued
 * costumes defeat a reader with state: issue 27). It stays as the oracle of the echo tests: every
 * call it finds in given content, the search must find too.
 */

interface GivenCalls {
  /** callKey() of every call found. */
  keys: Set<string>;
  /**
   * False when the rereading budget ran out: hostile nesting may hide a call, so the guard must
   * treat every call as given.
   */
  complete: boolean;
}

export function findGivenCalls(texts: readonly string[], tools: readonly ToolSpec[]): GivenCalls {
  const keys = new Set<string>();
  let round = texts.filter(mayHoldMarkup);
  let budget = -1;
  for (let n = 0; round.length > 0; n++) {
    const text = round.join(SEPARATOR);
    if (n === 0) budget = REREAD_FACTOR * text.length + REREAD_FLOOR;
    else if (n > MAX_ROUNDS || (budget -= text.length) < 0) return { keys, complete: false };
    const again: string[] = [];
    readCalls(text, tools, keys, again);
    round = again.flatMap(givenForms).filter(mayHoldMarkup);
  }
  return { keys, complete: true };
}

/** Reads one text: its calls into `keys`; the text to read again (arguments, swallowed markup) into `again`. */
function readCalls(text: string, tools: readonly ToolSpec[], keys: Set<string>, again: string[]): void {
  const engine = createRepairEngine({
    tools,
    parse: READ_EVERYTHING,
    bufferLimit: Number.MAX_SAFE_INTEGER,
    idPrefix: "given_",
    readingGiven: { candidateEnded: (span, openerLength, segments) => leftovers(span, openerLength, segments, again) },
  });
  for (const event of [...engine.feed(text), ...engine.flush()]) {
    if (event.type !== "call") continue;
    keys.add(callKey(event.call.tool, event.call.input));
    collectStrings(event.call.input, again);
  }
}

/**
 * What of an ended candidate did not become a call, past its opener (so the same candidate does
 * not open again): a quote inside an unclosed `<shell>`, a broken invoke, a block of undeclared tools.
 */
function leftovers(span: string, openerLength: number, segments: readonly Segment[] | null, again: string[]): void {
  const skip = Math.max(openerLength, 1);
  const pieces = segments ?? [{ kind: "text", start: 0, end: span.length }];
  for (const seg of pieces) {
    if (seg.kind === "call" || seg.end <= skip) continue;
    again.push(span.slice(Math.max(seg.start, skip), seg.end));
  }
}

function collectStrings(value: unknown, out: string[]): void {
  const stack: { value: unknown; depth: number }[] = [{ value, depth: 0 }];
  while (stack.length > 0) {
    const next = stack.pop()!;
    if (typeof next.value === "string") out.push(next.value);
    else if (typeof next.value === "object" && next.value !== null && next.depth < MAX_DEPTH) {
      for (const child of Object.values(next.value)) stack.push({ value: child, depth: next.depth + 1 });
    }
  }
}

/**
 * A call as the guard compares it: the tool and its input with keys in a stable order and every
 * scalar as whitespace-normalized text, so `"15"` and `15`, or a value with and without the
 * newlines around it, are the same call. Looser than the parser, never stricter: a call that
 * only differs in layout is still a quote.
 */
export function callKey(tool: string, input: unknown): string {
  return `${tool}\u0000${canonical(input, 0)}`;
}

function canonical(value: unknown, depth: number): string {
  if (depth > MAX_DEPTH) return "\u2026";
  if (Array.isArray(value)) return `[${value.map((v) => canonical(v, depth + 1)).join(",")}]`;
  if (typeof value === "object" && value !== null) {
    const record = value as Record<string, unknown>;
    const fields = Object.keys(record).sort();
    return `{${fields.map((k) => `${JSON.stringify(k)}:${canonical(record[k], depth + 1)}`).join(",")}}`;
  }
  return JSON.stringify(normalizeForEcho(String(value)));
}
