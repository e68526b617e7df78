import type { UnitOutcome } from "../segments.ts";
import type { JsonSchema } from "../types.ts";
import type { Shape } from "../../grammar/shapes.ts";
import { PROTOTYPE_KEY_DETAIL, coerceValue, parseJson } from "../values.ts";
import { parsePythonLiteral } from "../python-literal.ts";
import { pairsOutcome, type SpanContext } from "../call.ts";

/**
 * One `--key VALUE` value of MiniMax's bracket form as it was written: `quoted` (a JSON string's
 * or a single-quoted string's text, its quotes read), `bare` (a word such as `20`, `true`, `ls`),
 * or `bracketed` (the source text of a value that opens with `{` or `[`, by the syntax a JSON
 * object or array).
 */
export type BracketValue = { kind: "quoted" | "bare" | "bracketed"; text: string };

/**
 * The call of `{tool => NAME, args => { --key VALUE ... }}` (review 54). Its values carry their
 * own type and escaping, so they are read as the JSON-valued readers (Hermes, Mistral, Kimi,
 * pythonic, the bracket's own `args => {json}`) read the same value, not as the tag dialects' raw
 * text:
 * - no entity decoding (P08 is the tag dialects' rule for raw text between tags): a quoted value
 *   is its string, and a bare word its text, so `--command "grep -c '&amp;' index.html"` runs
 *   with `&amp;`; this form is no XML, and nothing here escaped the text for a page;
 * - a bracketed value is the JSON (or Python literal) it spells, never its source text: for a
 *   parameter that takes only a string, the schema gate refuses it (invalid-arguments), as it
 *   refuses `args => {"mode": ["7","5"]}`, rather than run with mode `["7","5"]`. Bracketed text
 *   that is neither (`{ ls; }`) stays text, read as before. JSON that JSON.parse would settle in
 *   silence (a key twice, `1e999`, a prototype-member key) is refused whole (broken-markup), as
 *   the bracket's JSON body is (refusedJson).
 * Quoted and bare values are then typed by the schema as before (coerceValue: `--limit 5` and
 * `--limit "5"` are the integer 5).
 */
export function bracketPairsOutcome(name: string, pairs: [string, BracketValue][], shape: Shape, ctx: SpanContext): UnitOutcome {
  if (ctx.tools.has(name)) {
    for (const [, value] of pairs) {
      const detail = refusedBracketed(value);
      if (detail !== null) return { kind: "broken", shape, reason: "broken-markup", detail, tool: name };
    }
  }
  return pairsOutcome(name, pairs, shape, ctx, bracketValue);
}

/** Why a bracketed value that JSON would read is refused (a key twice, a number out of range, a prototype-member key), or null. */
function refusedBracketed(value: BracketValue): string | null {
  if (value.kind !== "bracketed") return null;
  const parsed = parseJson(value.text);
  if (parsed.ok) return null;
  if (parsed.prototypeKey) return PROTOTYPE_KEY_DETAIL;
  try {
    JSON.parse(value.text);
  } catch {
    return null;
  }
  return "a value's JSON names a key twice or holds a number no call can carry";
}

function bracketValue(value: BracketValue, schema: JsonSchema | undefined): unknown {
  if (value.kind !== "bracketed") return coerceValue(value.text, schema, undefined);
  const json = parseJson(value.text);
  if (json.ok) return json.value;
  const literal = parsePythonLiteral(value.text.trim(), schema);
  return literal.ok ? literal.value : coerceValue(value.text, schema, undefined);
}
