// From settled adapter options and a request's declared tools to the engine's options.
import type { ToolSpec } from "../parse/types.ts";
import type { EchoGuard, EngineOptions } from "../engine/types.ts";
import type { AdapterOptions } from "./options.ts";

export function engineOptions(
  options: AdapterOptions,
  tools: readonly ToolSpec[],
  isEchoed?: EchoGuard,
): EngineOptions {
  const out: EngineOptions = { tools: recoverableTools(options, tools) };
  if (options.parse) out.parse = options.parse;
  const bufferLimit = saneBufferLimit(options.responseFix?.bufferLimit);
  if (bufferLimit !== undefined) out.bufferLimit = bufferLimit;
  if (isEchoed) out.isEchoed = isEchoed;
  return out;
}

/** The plugin's upper bound; the adapters are public API too, so they do not trust their caller more. */
const MAX_BUFFER_LIMIT = 16_777_216;

function saneBufferLimit(value: unknown): number | undefined {
  if (typeof value !== "number" || !(value >= 1)) return undefined;
  return Math.min(Math.floor(value), MAX_BUFFER_LIMIT);
}

/**
 * Tools a recovered call may name: declared by the request, then narrowed by allowTools and
 * denyTools. A tool left out is undeclared as far as the engine knows, so its markup becomes an
 * undeclared-tool nudge instead of a call. A list that is not an array of strings fails closed.
 */
export function recoverableTools(options: AdapterOptions, declared: readonly ToolSpec[]): ToolSpec[] {
  const allow = toolNames(options.responseFix?.allowTools, { absent: "*", invalid: [] });
  const deny = toolNames(options.responseFix?.denyTools, { absent: [], invalid: "*" });
  if (deny === "*") return [];
  return declared.filter((tool) => (allow === "*" || allow.has(tool.name)) && !deny.has(tool.name));
}

type Names = Set<string> | "*";

function toolNames(value: unknown, fallback: { absent: "*" | []; invalid: "*" | [] }): Names {
  const as = (f: "*" | []): Names => (f === "*" ? "*" : new Set());
  if (value === undefined) return as(fallback.absent);
  if (!Array.isArray(value)) return as(fallback.invalid);
  const names = new Set<string>();
  for (const name of value) {
    if (typeof name !== "string") return as(fallback.invalid);
    if (name === "*") return "*";
    names.add(name);
  }
  return names;
}
