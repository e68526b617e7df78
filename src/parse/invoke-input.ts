import { isObject, isPollutingKey } from "../grammar/plain-data.ts";
import { lineEndAt, lineEndBefore } from "../grammar/chars.ts";
import { ARGUMENT_KEYS, PROTOTYPE_KEY_DETAIL, missingRequired } from "./call.ts";
import type { NudgeReason, ParseOptions, ToolSpec } from "./types.ts";
import { argumentsObject, coerceObject, coerceValue, decodeEntitiesIfEscaped, parseJson, propertySchema, trimHuggingNewlines } from "./values.ts";
import type { Shape } from "../grammar/shapes.ts";

export interface ParamValue {
  name: string;
  hint: "true" | "false" | undefined;
  raw: string;
  /** A runaway parameter (P03): the next parameter's opener came before its own closer. The call is refused. */
  dropped: boolean;
  /** Closed by something other than its own closer: the newline before that boundary is layout. */
  implicitEnd: boolean;
  /** Its opener lost its `>` at a line end (B03): the newline that stands in for it is layout. */
  openerNewline?: boolean;
  /** The indentation of the line its opener stands on (values.ts lineIndentBefore): only that much is a container's. */
  indent?: string | null;
}

type BuiltInput =
  | { ok: true; input: Record<string, unknown>; shapes: Shape[] }
  | { ok: false; shape: Shape; reason: NudgeReason; detail: string };

const refuse = (shape: Shape, detail: string): BuiltInput => ({ ok: false, shape, reason: "broken-markup", detail });

/** Turns a parsed invoke (parameters, or a bare body) into the tool's input object; a call lacking a required parameter is refused. */
export function buildInput(tool: ToolSpec, values: ParamValue[], body: string, options: ParseOptions): BuiltInput {
  const built = buildAnyInput(tool, values, body, options);
  const missing = built.ok ? missingRequired(tool, built.input) : null;
  return missing === null ? built : refuse("I05", `required parameter ${missing} is missing`);
}

function buildAnyInput(tool: ToolSpec, values: ParamValue[], body: string, options: ParseOptions): BuiltInput {
  const schema = tool.parameters;
  const required = new Set(Array.isArray(schema?.required) ? schema.required : []);
  if (values.length === 0) return fromBody(body, required, tool, options);
  const shapes: Shape[] = [];
  const input: Record<string, unknown> = {};
  const seen = new Set<string>();
  for (const v of values) {
    if (seen.has(v.name)) return refuse("P10", "the same parameter twice");
    seen.add(v.name);
    // A runaway value (P03, golden P47.1-P47.3, P47.8, P47.9) is never left out nor cut at the opener that reached it, optional or not
    // (`workdir` before `rm -rf ./*`; a heredoc documenting `<parameter name="workdir">` then closed by its own closer).
    if (v.dropped) return refuse("P03", "a parameter never closed before the next parameter's opener: that opener may be the value's text, so where the value ends is unknowable");
    if (!v.name) return refuse("P04", "parameter without a name");
    if (isPollutingKey(v.name)) return refuse("P04", PROTOTYPE_KEY_DETAIL);
    // P09: a newline on both sides is layout, a lone one content; a value another tag ended (P01,
    // P03) also loses the newline before that boundary, whether or not one opened it.
    const raw = v.raw;
    let hugged = trimHuggingNewlines(raw, v.indent ?? null);
    if (hugged === raw && v.openerNewline) hugged = raw.slice(lineEndAt(raw, 0));
    if (hugged !== raw) shapes.push("P09");
    if (v.implicitEnd) hugged = hugged.slice(0, hugged.length - lineEndBefore(hugged));
    let value = coerceValue(hugged, propertySchema(schema, v.name), v.hint);
    if (typeof value === "string") {
      const decoded = decodeEntitiesIfEscaped(value);
      if (decoded !== value) shapes.push("P08");
      value = decoded;
    }
    if (typeof value === "string" && v.hint === "false" && propertySchema(schema, v.name) === undefined) shapes.push("P06");
    input[v.name] = value;
  }
  const only = values.length === 1 ? values[0]! : null;
  if (only && (ARGUMENT_KEYS as readonly string[]).includes(only.name) && !propertySchema(schema, only.name)) {
    const value = input[only.name];
    const wrapped = argumentsObject(value);
    if (wrapped) {
      if (!options.rawJsonBody) return refuse("I03", "arguments wrapper (parse.rawJsonBody is off)");
      return { ok: true, input: coerceObject(wrapped, schema), shapes: ["I03", ...shapes] };
    }
  }
  return { ok: true, input, shapes };
}

function fromBody(body: string, required: Set<string>, tool: ToolSpec, options: ParseOptions): BuiltInput {
  const trimmed = body.trim();
  if (trimmed === "") {
    if (required.size > 0) return refuse("I05", "invoke without parameters");
    return { ok: true, input: {}, shapes: ["I05"] };
  }
  if (!trimmed.startsWith("{")) return refuse("I04", "invoke body is neither parameters nor JSON");
  if (!options.rawJsonBody) return refuse("I04", "raw JSON body (parse.rawJsonBody is off)");
  const parsed = parseJson(trimmed);
  if (!parsed.ok || !isObject(parsed.value)) return refuse("I04", "invoke body is not a JSON object");
  return { ok: true, input: coerceObject(parsed.value, tool.parameters), shapes: ["I04"] };
}
