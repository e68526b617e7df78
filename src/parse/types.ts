import { defaultDialects, type DialectSwitches } from "../grammar/dialects.ts";
import type { Shape } from "../grammar/shapes.ts";

/** A JSON schema as OpenCode and the AI SDK send it for a tool's parameters. */
export type JsonSchema = {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema | JsonSchema[] | boolean;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  enum?: unknown[];
  [key: string]: unknown;
};

/** A tool the request declared: only these may become calls. */
export interface ToolSpec {
  name: string;
  parameters?: JsonSchema;
}

/** Why a reply deserves one correction. */
export type NudgeReason =
  | "broken-markup"
  | "undeclared-tool"
  | "truncated-call"
  | "echoed-markup"
  /** The call was read but its arguments do not fit the tool's declared schema (BrokenSpan.parameter names which). */
  | "invalid-arguments"
  /** A well-formed call after the one call a request that switched parallel tool calls off allows. */
  | "extra-call"
  /**
   * A well-formed call after markup whose end is unknown (a candidate that outgrew
   * responseFix.bufferLimit; a code costume refused after a closer read as its code, at the end of
   * its span past its hold cap or at its own closer ending a line; a prefill that ended inside
   * open markup): it may be that markup's text (a tool-call example in a file being written), so
   * it never runs.
   */
  | "overflowed-markup";

/** [start, end) offsets into the text the parser or engine was given. */
export type Span = readonly [number, number];

export interface RecoveredCall {
  /** Unique within one response (engine) or one parse. */
  id: string;
  tool: string;
  input: Record<string, unknown>;
  /** Every character the call consumed: markup, trailing closers, end-of-sentence noise. */
  span: Span;
  /** Shape id from docs/PATTERNS.md, e.g. "D02" or "P01". */
  shape: Shape;
}

export interface BrokenSpan {
  span: Span;
  shape: Shape;
  reason: NudgeReason;
  /** Human-readable detail for debug lines and the CLI; never carries argument values. */
  detail: string;
  tool?: string;
  /** For "invalid-arguments": the parameter that does not fit (a name the tool's schema declares, never a value). */
  parameter?: string;
  /** For "invalid-arguments": the arguments hold a key the tool's schema does not declare; never named (it may be anything the model pasted). */
  undeclaredArgument?: true;
  /** For "undeclared-tool": the declared tool the model called by another agent's name (src/parse/aliases.ts). */
  declared?: string;
}

/** Characters consumed without becoming visible text or a call (only where the catalogue says strip). */
export interface StrippedSpan {
  span: Span;
  kind: "native-call-duplicate" | "fabricated-result" | "noise" | "echoed-markup";
}

export interface ParseOptions {
  /** Accept an invoke that has no outer block opener (B05). */
  orphanInvoke: boolean;
  /** Accept mis-closed, mangled and truncated parameters (P01, P02, P11); a runaway parameter (P03) refuses its call either way. */
  looseParameters: boolean;
  /** Accept a bare JSON object as an invoke body, and the arguments/input wrapper (I03, I04). */
  rawJsonBody: boolean;
  /** Accept a parameter named after a declared tool that holds the real parameters (I02). */
  wrappedTool: boolean;
  /** Recover fenceless code costumes (<shell>, HTML pre/code, XML execute calls) as bash (C01-C04, C07). */
  codeCostumes: boolean;
  /** Other models' dialects (O01-O08), one switch each. */
  dialects: DialectSwitches;
  /**
   * Accept a JSON call standing alone as a whole paragraph, with no marker (`{"name", "arguments"}`,
   * a list of them, `{"tool_calls": [...]}`; J01). Off by default: see docs/PATTERNS.md.
   */
  standaloneJson: boolean;
}

export const defaultParseOptions: ParseOptions = {
  orphanInvoke: true,
  looseParameters: true,
  rawJsonBody: true,
  wrappedTool: true,
  codeCostumes: true,
  dialects: defaultDialects,
  standaloneJson: false,
};

/** Partial options as users give them: `dialects` may name only the switches they change. */
export type ParseOptionsInput = Partial<Omit<ParseOptions, "dialects">> & { dialects?: Partial<DialectSwitches> };

/**
 * The parse options for `input`: every switch is a boolean, and a value that is not one (the string
 * "false" from a config file read as text, null from plain JavaScript) leaves the switch at its
 * default. Spreading it as given made "false" turn J01 on, since the engine tests a switch for
 * truth. The library adapters say which values they dropped (options/settle.ts); parse() has no
 * channel to say it.
 */
export function resolveParseOptions(input: ParseOptionsInput | null | undefined): ParseOptions {
  const given = switchesOf(input);
  const dialects = switchesOf(given.dialects);
  return { ...defaultParseOptions, ...booleansOf(given, defaultParseOptions), dialects: { ...defaultDialects, ...booleansOf(dialects, defaultDialects) } };
}

/** A plain object's own keys, or none (a value that is no object, or a list). */
function switchesOf(value: unknown): Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

/** The keys of `defaults` that `given` sets to a boolean. */
function booleansOf<T extends object>(given: Record<string, unknown>, defaults: T): Partial<T> {
  const out: Record<string, boolean> = {};
  for (const key of Object.keys(defaults)) {
    if (!Object.hasOwn(given, key)) continue;
    const value = given[key];
    if (typeof value === "boolean") out[key] = value;
  }
  return out as Partial<T>;
}

export interface ParseResult {
  calls: RecoveredCall[];
  broken: BrokenSpan[];
  stripped: StrippedSpan[];
  /** The input with recovered and stripped spans removed; broken spans stay visible. */
  text: string;
  nudge: NudgeReason | null;
}
