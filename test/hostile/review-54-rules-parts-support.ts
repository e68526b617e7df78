/**
 * Review 54 (rules): goldens cut into parts, read both ways the wires read parts
 * (test/support/read-parts.ts). Golden inputs come from fixtures.json (escaped there), so no marker
 * byte is written here.
 */
import fixtures from "../golden/fixtures.json";

export { READINGS, readParts } from "../support/read-parts.ts";

/** A golden fixture's input (fixtures.json). */
export function golden(id: string): string {
  const f = (fixtures as { id: string; input: string }[]).find((x) => x.id === id);
  if (!f) throw new Error(`no golden ${id}`);
  return f.input;
}

/** `text` cut in two right after the first occurrence of `after` (plus `extra` characters). */
export function cutAfter(text: string, after: string, extra = 0): [string, string] {
  const at = text.indexOf(after);
  if (at < 0) throw new Error(`no ${JSON.stringify(after)}`);
  const k = at + after.length + extra;
  return [text.slice(0, k), text.slice(k)];
}

/** A later, clean Hermes call the reply makes after the markup (its own paragraph). */
export const LATER = '\n\n<tool_call>{"name":"bash","arguments":{"command":"echo ZQ"}}</tool_call>';
export const LATER_INPUT = { command: "echo ZQ" };
