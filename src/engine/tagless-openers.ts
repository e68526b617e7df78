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
  /** Declared tool names and aliases, sorted (a prefix is found by binary search), and the longest. */
  private readonly names: string[];
  private readonly longest: number;

  constructor(private readonly tools: ReadonlyMap<string, ToolSpec>) {
    this.names = [...tools.keys()].sort();
    this.longest = Math.max(0, ...this.names.map((n) => n.length));
  }

  /**
   * Whether some declared name starts with `prefix`: the first name not below it in the sorted
   * list is one if any is. O(|prefix| log names), whatever the names' lengths (MCP names run long).
   */
  private isPrefix(prefix: string): boolean {
    let lo = 0;
    let hi = this.names.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.names[mid]! < prefix) lo = mid + 1;
      else hi = mid;
    }
    return lo < this.names.length && this.names[lo]!.startsWith(prefix);
  }

  /**
   * O06 residue: a declared tool name at the start of a line followed by `[ARGS]`. "hold" when the
   * text ends inside what could still be one.
   */
  residueAt(s: string, j: number, final: boolean): "open" | "hold" | "no" {
    let e = j;
    while (e < s.length && e - j <= this.longest && isNameChar(s.charCodeAt(e))) e++;
    const name = s.slice(j, e);
    if (e === s.length) return !final && this.isPrefix(name) ? "hold" : "no";
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
    // The name starts after the `<`: it is read to at most the longest name's length, and the text
    // ending right after a whole declared name holds too (its `>` may come next). The hold once also
    // bounded `e - j`, which counts the `<`: a split right after the longest name let it go as text,
    // masked up to 16 characters by the tag reader's namespace wait (review 57).
    while (e < s.length && e - j - 1 < this.longest && isElementNameCode(s.charCodeAt(e))) e++;
    const name = s.slice(j + 1, e);
    if (e === s.length) return !final && this.isPrefix(name) ? "hold" : null;
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
