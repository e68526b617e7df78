import { isPollutingKey } from "../grammar/plain-data.ts";
import type { SchemaGate } from "./schema-gate.ts";
import type { Segment, UnitOutcome } from "./segments.ts";
import type { JsonSchema, ParseOptions, ToolSpec } from "./types.ts";
import { PROTOTYPE_KEY_DETAIL, coerceObject, coerceValue, decodeEntitiesIfEscaped, propertySchema, readArguments } from "./values.ts";
import type { Shape } from "../grammar/shapes.ts";

/**
 * What every span parser reads a call against, and the outcomes every dialect builds its calls
 * from: one place below the dialects and the DSML walk, so none of them imports another for it.
 */
export interface SpanContext {
  tools: ReadonlyMap<string, ToolSpec>;
  options: ParseOptions;
  /** Checks every call a span yields against its tool's schema (src/parse/schema-gate.ts). */
  schemas: SchemaGate;
  /** The spaces and tabs before the span's opener on its line (a container's indentation), null when other text stands there or unknown. */
  openerIndent?: string | null;
  /**
   * Where the span's opener stood: starting a line ("line-start"), starting a line that
   * goes on with a sentence the line before left open ("paragraph", text-mode's continuesParagraph),
   * or after other text on its line ("inline"). Unknown when absent.
   */
  openerPlace?: "line-start" | "paragraph" | "inline";
  /**
   * The reply ended with the span still open (not a part's end, after which a later part may
   * close it), and the engine may still read the rest of a never-closed costume again (review 53,
   * costume-hold.ts): set only then.
   */
  replyEnded?: boolean;
}

/** One call from a tool name and an arguments object (or a JSON string of one), gated on declared tools. */
export function callOutcome(name: unknown, args: unknown, shape: Shape, ctx: SpanContext): UnitOutcome {
  if (typeof name !== "string" || name === "") return { kind: "broken", shape, reason: "broken-markup", detail: "tool call without a name" };
  const tool = ctx.tools.get(name);
  if (!tool) return { kind: "broken", shape, reason: "undeclared-tool", detail: "tool not declared by the request", tool: name };
  const input = readArguments(args ?? {});
  if (input === "prototype-key") return { kind: "broken", shape, reason: "broken-markup", detail: PROTOTYPE_KEY_DETAIL, tool: name };
  if (!input) return { kind: "broken", shape, reason: "broken-markup", detail: "tool call arguments are not a JSON object", tool: name };
  return checkedCall(tool, coerceObject(input, tool.parameters), shape);
}

/**
 * The keys a JSON call object may hold its arguments under. Models write all four (`arguments` is
 * OpenAI's and Hermes', `parameters` Llama's, `input` Anthropic's, `args` MiniMax's and many
 * agents'); each is unambiguous alone, so any one of them is read. Two of them at once, or a key
 * that is none of these nor the envelope's own, is content the reader cannot place: the call is
 * broken rather than run with part of what the model wrote.
 */
export const ARGUMENT_KEYS = ["arguments", "parameters", "args", "input"] as const;
const ENVELOPE_KEYS = new Set(["name", "id", "type"]);
export { PROTOTYPE_KEY_DETAIL };

type JsonCallRead =
  | { kind: "call"; name: unknown; args: unknown; argumentsKey: string | null }
  | { kind: "unread"; name: unknown; detail: string };

/** Reads `{"name": ..., <one argument key>: ...}`, accounting for every key. */
export function readJsonCall(entry: Record<string, unknown>): JsonCallRead {
  const keys = Object.keys(entry);
  const argumentKeys = keys.filter((k) => (ARGUMENT_KEYS as readonly string[]).includes(k));
  const strangers = keys.filter((k) => !ENVELOPE_KEYS.has(k) && !(ARGUMENT_KEYS as readonly string[]).includes(k));
  if (argumentKeys.length > 1) return { kind: "unread", name: entry.name, detail: `arguments under more than one key (${argumentKeys.join(", ")})` };
  if (strangers.length > 0) return { kind: "unread", name: entry.name, detail: "the call object has keys that are neither its name nor its arguments" };
  const key = argumentKeys[0] ?? null;
  return { kind: "call", name: entry.name, args: key === null ? undefined : entry[key], argumentsKey: key };
}

/** callOutcome for a JSON call object (Hermes, a Mistral or LFM2 list entry), with every key accounted for. */
export function jsonCallOutcome(entry: Record<string, unknown>, shape: Shape, ctx: SpanContext): UnitOutcome {
  const read = readJsonCall(entry);
  if (read.kind === "call") return callOutcome(read.name, read.args, shape, ctx);
  const out: UnitOutcome = { kind: "broken", shape, reason: "broken-markup", detail: read.detail };
  if (typeof read.name === "string" && read.name !== "") out.tool = read.name;
  return out;
}

/** The first declared tool whose quoted name the text holds (`"bash"`), or undefined: who a cut-off call was for. */
export function declaredNameIn(text: string, ctx: SpanContext): string | undefined {
  for (const name of ctx.tools.keys()) if (text.includes(`"${name}"`)) return name;
  return undefined;
}

/** The first parameter the tool's schema requires that `input` lacks, or null. */
export function missingRequired(tool: ToolSpec, input: Record<string, unknown>): string | null {
  const required = tool.parameters?.required;
  if (!Array.isArray(required)) return null;
  for (const key of required) if (typeof key === "string" && !Object.prototype.hasOwnProperty.call(input, key)) return key;
  return null;
}

/** A call that lacks a required parameter would only fail in the tool: it is broken markup, never emitted. */
export function checkedCall(tool: ToolSpec, input: Record<string, unknown>, shape: Shape): UnitOutcome {
  const missing = missingRequired(tool, input);
  if (missing !== null) return { kind: "broken", shape, reason: "broken-markup", detail: `required parameter ${missing} is missing`, tool: tool.name };
  return { kind: "call", tool: tool.name, input, shape };
}

/** A call cut off by the end of the reply: the same reason and detail in every dialect (and as DSML says it). */
export function truncatedCall(shape: Shape, tool?: string | null): UnitOutcome {
  const out: UnitOutcome = { kind: "broken", shape, reason: "truncated-call", detail: "the call never closed" };
  if (tool) out.tool = tool;
  return out;
}

/** Key/value pairs whose values are raw text, typed from the tool's schema (GLM, Qwen3-Coder). */
export function textArgsOutcome(name: string, pairs: [string, string][], shape: Shape, ctx: SpanContext): UnitOutcome {
  return pairsOutcome(name, pairs, shape, ctx, tagValue);
}

/** A tag dialect's raw text typed by the schema; P08, as in the invoke dialects: a value escaped throughout reads the same in every tag dialect. */
function tagValue(raw: string, schema: JsonSchema | undefined): unknown {
  const value = coerceValue(raw, schema, undefined);
  return typeof value === "string" ? decodeEntitiesIfEscaped(value) : value;
}

/**
 * Key/value pairs, each value read against its parameter's schema by `read`: the tag dialects'
 * raw text (textArgsOutcome), or MiniMax's bracket pairs, whose values carry their own quoting
 * (src/parse/dialects/minimax-bracket-values.ts). Every key is checked the same way for both.
 */
export function pairsOutcome<V>(name: string, pairs: [string, V][], shape: Shape, ctx: SpanContext, read: (value: V, schema: JsonSchema | undefined) => unknown): UnitOutcome {
  const tool = ctx.tools.get(name);
  if (!tool) return { kind: "broken", shape, reason: "undeclared-tool", detail: "tool not declared by the request", tool: name };
  const input: Record<string, unknown> = {};
  for (const [key, raw] of pairs) {
    // A key that names a prototype member is never set (it would reach a prototype) nor dropped (the call would run without it).
    if (isPollutingKey(key)) return { kind: "broken", shape, reason: "broken-markup", detail: PROTOTYPE_KEY_DETAIL, tool: name };
    if (Object.prototype.hasOwnProperty.call(input, key)) {
      return { kind: "broken", shape, reason: "broken-markup", detail: "the same parameter twice", tool: name };
    }
    input[key] = read(raw, propertySchema(tool.parameters, key));
  }
  return checkedCall(tool, input, shape);
}

export function wholeSpan(length: number, outcome: UnitOutcome): Segment[] {
  switch (outcome.kind) {
    case "call":
      return [{ kind: "call", start: 0, end: length, tool: outcome.tool, input: outcome.input, shape: outcome.shape }];
    case "broken": {
      const seg: Segment = { kind: "broken", start: 0, end: length, shape: outcome.shape, reason: outcome.reason, detail: outcome.detail };
      if (outcome.tool !== undefined) seg.tool = outcome.tool;
      return [seg];
    }
    case "foreign":
      return [{ kind: "text", start: 0, end: length }];
  }
}

/** Several calls from one span (a JSON array, a pythonic list): the first carries the span, the rest are empty. */
export function callsOverSpan(length: number, outcomes: UnitOutcome[], shape: Shape): Segment[] {
  const bad = outcomes.find((o) => o.kind !== "call");
  if (outcomes.length === 0) return wholeSpan(length, { kind: "broken", shape, reason: "broken-markup", detail: "no call in the list" });
  if (bad) return wholeSpan(length, bad);
  return outcomes.map((o, i) => ({ ...(wholeSpan(length, o)[0] as Segment), start: i === 0 ? 0 : length, end: length }));
}
