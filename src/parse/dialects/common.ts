// Text helpers the XML-like dialects share (Qwen3-Coder, GLM, the <tool_call> bodies); the call
// outcomes they build live one layer down in ../call.ts.
import { lineEndAt, lineEndBefore } from "../../grammar/chars.ts";
import { trimHuggingNewlines } from "../values.ts";

/**
 * P09 in these dialects as in every other: one newline hugging *both* sides of a value is layout
 * (what the Qwen3-Coder template writes, `<parameter=k>\nvalue\n</parameter>`); a lone leading or
 * trailing newline is content (a file's final newline, P09b; its first empty line, P09c).
 * `implicitEnd`: another tag ended the value (the next parameter, the function's or the wrapper's
 * closer: its own `</parameter>` was lost, O02.4, O02.5). The newline before that boundary is
 * layout (as in DSML, P01, P03), and so is one opening the value: the template writes it, and
 * the side that would have confirmed the hug is gone.
 */
export function trimLayoutNewlines(value: string, implicitEnd = false, indent: string | null = null): string {
  if (!implicitEnd) return trimHuggingNewlines(value, indent);
  const from = lineEndAt(value, 0);
  const to = value.length - lineEndBefore(value);
  return from <= to ? value.slice(from, to) : "";
}
