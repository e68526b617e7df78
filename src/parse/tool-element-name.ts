// Reading a tag as a tool-named element's (I11): the name as written, and whether it may name a
// tool. Apart from tool-element.ts (the element's span kind) so the value rules and the example
// reader (dsml-value.ts, example-in-value.ts) can ask without importing the span kinds.
import { DASH, DOT, UNDERSCORE, isAsciiDigit, isAsciiLetter } from "../grammar/chars.ts";
import { Flaw, type Tag } from "../grammar/tags.ts";

/** Element names (tools, parameters): a letter or `_`, then letters, digits, `_`, `-`, `.` (MCP tools), never a space or `>`. */
export const isElementNameStart = (c: number) => isAsciiLetter(c) || c === UNDERSCORE;
export const isElementNameCode = (c: number) => isElementNameStart(c) || isAsciiDigit(c) || c === DASH || c === DOT;
const isNameStart = isElementNameStart;

/**
 * A tag's name as the model wrote it (the tag scanner lowers it): tool and parameter names are
 * case-sensitive (`filePath`). The name follows the tag's sentinel, or its `<` and `/`.
 */
export function writtenName(text: string, tag: Tag): string {
  let at = tag.start;
  if (tag.sentinel !== "") {
    const sentinel = text.indexOf(tag.sentinel, tag.start);
    at = sentinel < 0 ? tag.start : sentinel + tag.sentinel.length;
  }
  while (at < tag.end && !isNameStart(text.charCodeAt(at))) at++;
  return text.slice(at, at + tag.name.length);
}

/**
 * A DSML tag that can open a tool-named element: not a closer, not self-closing, and without
 * attributes (an attribute would carry an argument nobody reads, issue 29 item 1).
 */
export function opensToolElement(tag: Tag): boolean {
  return !tag.closing && mayNameTool(tag) && (tag.flaws & Flaw.SelfClosing) === 0 && Object.keys(tag.attrs).length === 0;
}

/**
 * A DSML tag whose name may be a tool's or a parameter's (I11): any name but the exact structural
 * ones. The grammar guesses a role from the spelling alone (`…call…` a block, `invok…` an invoke,
 * `param…` a parameter, dsmlRole) since it knows no tools; a declared `recall_memory` or
 * `param_store` is checked against the tools before that guess counts.
 */
export function mayNameTool(tag: Tag): boolean {
  return tag.family === "dsml" && (tag.role === "other" || !STRUCTURAL_NAMES.has(tag.name));
}

/** The names that are always structure, whatever the request declares: the canonical wrappers, an invoke, a parameter. */
const STRUCTURAL_NAMES: ReadonlySet<string> = new Set(["tool_calls", "function_calls", "invoke", "parameter"]);
