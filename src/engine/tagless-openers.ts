import { DASH, DOT, GT, LBRACKET, UNDERSCORE } from "../grammar/chars.ts";
import { Flaw, NEED_MORE, readTag, type Tag } from "../grammar/tags.ts";
import { isElementNameCode } from "../parse/tool-element-name.ts";
import type { ToolSpec } from "../parse/types.ts";

/**
 * Openers text mode reads without a tag of their own. Two are a declared tool's name at the start
 * of a line (the O06 residue `NAME[ARGS]`, the O09 plain element `<NAME>`), so each holds only
 * while the text ends inside what could still be one, never longer than the longest declared name.
 * The engine asks only where its documentation context says a line starts.
 */
export class ToolNameOpeners {
  /** Declared tool names and aliases, and the longest. */
  private readonly names: string[];
  private readonly longest: number;

  constructor(private readonly tools: ReadonlyMap<string, ToolSpec>) {
    this.names = [...tools.keys()];
    this.longest = Math.max(0, ...this.names.map((n) => n.length));
  }

  /**
   * O06 residue: a declared tool name at the start of a line followed by `[ARGS]`. "hold" when the
   * text ends inside what could still be one.
   */
  residueAt(s: string, j: number, final: boolean): "open" | "hold" | "no" {
    let e = j;
    while (e < s.length && e - j <= this.longest && isNameChar(s.charCodeAt(e))) e++;
    const name = s.slice(j, e);
    if (e === s.length) return !final && this.names.some((n) => n.startsWith(name)) ? "hold" : "no";
    if (s.charCodeAt(e) !== LBRACKET || !this.tools.has(name)) return "no";
    const r = readTag(s, e, final);
    if (r === NEED_MORE) return "hold";
    return r !== null && r.family === "mistral" && r.name === "args" ? "open" : "no";
  }

  /**
   * O09: `<NAME>` at the start of a line, NAME a declared tool (or alias) as written, no
   * attributes: the opener of a plain tool-named element, with offsets relative to its own span.
   */
  elementAt(s: string, j: number, final: boolean): Tag | "hold" | null {
    let e = j + 1;
    while (e < s.length && e - j <= this.longest && isElementNameCode(s.charCodeAt(e))) e++;
    const name = s.slice(j + 1, e);
    if (e === s.length) return !final && e - j <= this.longest && this.names.some((n) => n.startsWith(name)) ? "hold" : null;
    if (s.charCodeAt(e) !== GT || !this.tools.has(name)) return null;
    return { start: 0, end: e + 1 - j, family: "costume", closing: false, role: "other", name, attrs: {}, sentinel: "", flaws: Flaw.None };
  }
}

/** J01 has no tag of its own either: the candidate starts at the paragraph's `{` or `[`. */
export const STANDALONE_OPENER: Tag = { start: 0, end: 0, family: "mistral", closing: false, role: "other", name: "standalone-json", attrs: {}, sentinel: "", flaws: Flaw.None };

/** The O06 residue has no tag of its own: the candidate starts at the tool name. */
export const RESIDUE_OPENER: Tag = { start: 0, end: 0, family: "mistral", closing: false, role: "other", name: "residue", attrs: {}, sentinel: "", flaws: Flaw.None };

/** Whether `c` can begin an O06 residue's tool name. */
export const isNameStart = (c: number) => (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || c === UNDERSCORE;
const isNameChar = (c: number) => isNameStart(c) || (c >= 0x30 && c <= 0x39) || c === DASH || c === DOT;
