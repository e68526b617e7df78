import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { LineEnds, type LineMarkup } from "../../src/engine/line-ends.ts";
import { createRepairEngine } from "../../src/engine/engine.ts";
import { fixtureTools } from "../golden/tools.ts";
import { countWork } from "../support/work.ts";

// LineEnds folds the pieces it was given lazily (only when a fact is asked for, or when too many
// wait), skipping every piece before the one that ends the line before the line before. These
// tests hold it to the eager reader it replaced: the same facts after any pieces, asked for at any
// point, whatever the line ends (LF, CR, CR LF cut between pieces), spaces, markup and piece sizes.

const LF = 0x0a;
const CR = 0x0d;
const SP = 0x20;
const TAB = 0x09;
const COMMA = 0x2c;
const LBRACKET = 0x5b;
const DASH = 0x2d;
const MID_SENTENCE = /^[\p{L}\p{M}\p{N}]$/u;
const OPEN_AT_END = new Set([COMMA, 0xff0c, 0x3001, 0x060c, 0x2013, 0x2014, 0x2015, 0x2026, 0x22ef, 0x28, 0xff08, 0x201c, 0xab, 0x300c, 0x300e]);
const BACKSLASH = 0x5c;
/** Spaces and tabs, every other \p{Zs} space, and the zero-width characters (review 50, finding 5). */
const isLineSpace = (c: number) => c === SP || c === TAB || /^[\p{Zs}\u200b-\u200d\u2060\ufeff]$/u.test(String.fromCharCode(c));
const isIndent = (c: number) => c === SP || c === TAB;

/** The eager reader, as the engine had it: every piece read when it comes. The model the lazy one must match. */
class EagerLineEnds {
  before = -1;
  beforeMarkup = false;
  private last = -1;
  /** The current line's deciding character: its last, or the one before a hard break's backslash. */
  private lastKey = -1;
  private lastMarkup = false;
  private lineShown = false;
  private beforeFirst = -1;
  private first = -1;
  private crEnded = false;
  lead: string | null = "";
  prev = -1;

  read(s: string, from: number, to: number, markup?: LineMarkup): void {
    if (to <= from) return;
    this.prev = s.charCodeAt(to - 1);
    let k = to - 1;
    while (k >= from && s.charCodeAt(k) !== LF && s.charCodeAt(k) !== CR) k--;
    const crLf = k === from && this.crEnded && s.charCodeAt(k) === LF;
    this.crEnded = s.charCodeAt(to - 1) === CR;
    if (crLf) from = k + 1;
    else if (k >= from) {
      let m = k - 1;
      if (s.charCodeAt(k) === LF && m >= from && s.charCodeAt(m) === CR) m--;
      while (m >= from && isLineSpace(s.charCodeAt(m))) m--;
      const inText = m >= from && s.charCodeAt(m) !== LF && s.charCodeAt(m) !== CR;
      this.before = m >= from ? (inText ? this.key(s, from, m) : -1) : this.lastKey;
      let b = m;
      while (b >= from && s.charCodeAt(b) !== LF && s.charCodeAt(b) !== CR) b--;
      const shown = markup === "shown" || (b < from && this.lineShown);
      this.beforeMarkup = shown || (m >= from ? inText && markup !== undefined : this.lastMarkup);
      let f = b < from ? from : b + 1;
      while (f < k && isLineSpace(s.charCodeAt(f))) f++;
      this.beforeFirst = b < from && this.first >= 0 ? this.first : f < k ? s.charCodeAt(f) : -1;
      this.first = -1;
      this.last = -1;
      this.lastKey = -1;
      this.lastMarkup = false;
      this.lineShown = false;
      this.lead = "";
      from = k + 1;
    }
    if (this.first < 0) {
      let f = from;
      while (f < to && isLineSpace(s.charCodeAt(f))) f++;
      if (f < to) this.first = s.charCodeAt(f);
    }
    if (this.lead !== null) {
      let indent = true;
      for (let q = from; q < to; q++) if (!isIndent(s.charCodeAt(q))) indent = false;
      this.lead = markup !== undefined || !indent ? null : this.lead + s.slice(from, to);
    }
    let m = to - 1;
    while (m >= from && isLineSpace(s.charCodeAt(m))) m--;
    if (m >= from) {
      this.lastKey = this.key(s, from, m);
      this.last = s.charCodeAt(m);
      this.lastMarkup = markup !== undefined;
    }
    if (markup === "shown") this.lineShown = true;
  }

  /** A hard break's backslash last on the line: the non-space character before it decides (-1 at the line's start). */
  private key(s: string, from: number, m: number): number {
    if (s.charCodeAt(m) !== BACKSLASH) return s.charCodeAt(m);
    let p = m - 1;
    while (p >= from && isLineSpace(s.charCodeAt(p))) p--;
    if (p < from) return this.last;
    return s.charCodeAt(p) === LF || s.charCodeAt(p) === CR ? -1 : s.charCodeAt(p);
  }

  endsMidSentence(): boolean {
    const c = this.before;
    if (this.beforeMarkup || this.beforeFirst === LBRACKET || c < 0) return false;
    if (c === DASH) return this.beforeFirst !== DASH;
    return OPEN_AT_END.has(c) || MID_SENTENCE.test(String.fromCharCode(c));
  }
}

interface Piece {
  /** Text around the piece (the piece is s.slice(from, to)), as text mode passes one delta in ranges. */
  before: string;
  text: string;
  after: string;
  markup: LineMarkup | undefined;
  /** Ask for every fact after this piece. */
  ask: boolean;
}

const alphabet = ["a", "Z", "1", ",", ".", ":", "[", "-", "(", "\u2014", "\uff0c", " ", "\t", "\n", "\r", "\r\n", ">", "<", "\u4e2d", "\u00a0", "\u3000", "\u200b", "\\", "\\\\"];
const textArb = fc.array(fc.constantFrom(...alphabet), { maxLength: 12 }).map((xs) => xs.join(""));
const pieceArb = fc.record({ before: fc.constantFrom("", "x\n", "  "), text: textArb, after: fc.constantFrom("", "\ny", " "), markup: fc.constantFrom(undefined, "call" as const, "shown" as const), ask: fc.boolean() });

function facts(l: { prev: number; lead: string | null; before: number; beforeMarkup: boolean; endsMidSentence(): boolean }) {
  return { prev: l.prev, lead: l.lead, before: l.before, beforeMarkup: l.beforeMarkup, mid: l.endsMidSentence() };
}

function run(pieces: Piece[]) {
  const lazy = new LineEnds();
  const eager = new EagerLineEnds();
  const seen: unknown[][] = [];
  for (const p of pieces) {
    const s = p.before + p.text + p.after;
    lazy.read(s, p.before.length, p.before.length + p.text.length, p.markup);
    eager.read(s, p.before.length, p.before.length + p.text.length, p.markup);
    if (p.ask) seen.push([facts(lazy), facts(eager)]);
  }
  seen.push([facts(lazy), facts(eager)]);
  return seen;
}

describe("LineEnds: the lazy reader gives the eager reader's facts", () => {
  test("at seeded random pieces, asked at random points", () => {
    fc.assert(
      fc.property(fc.array(pieceArb, { maxLength: 40 }), (pieces) => {
        for (const [lazy, eager] of run(pieces)) expect(lazy).toEqual(eager);
      }),
      { seed: 4901, numRuns: 400 },
    );
  });

  test("past the bound on waiting pieces (folded without being asked), and asked after", () => {
    fc.assert(
      fc.property(fc.array(pieceArb, { minLength: 300, maxLength: 700 }), (pieces) => {
        const quiet = pieces.map((p, i) => ({ ...p, ask: i === pieces.length - 1 }));
        for (const [lazy, eager] of run(quiet)) expect(lazy).toEqual(eager);
      }),
      { seed: 4902, numRuns: 30 },
    );
  });

  test("a CR ending one piece and its LF starting the next are one line end", () => {
    const lazy = new LineEnds();
    lazy.read("Run it,\r", 0, 8);
    lazy.read("\n", 0, 1);
    expect(lazy.endsMidSentence()).toBe(true);
    lazy.read("Done.\r", 0, 6);
    lazy.read("\n  ", 0, 3);
    expect(lazy.endsMidSentence()).toBe(false);
    expect(lazy.lead).toBe("  ");
  });

  test("folding starts at a piece whose LF follows no CR, though the text folded last ended with one", () => {
    const lazy = new LineEnds();
    lazy.read("<shell>a</shell>\r", 0, 17, "shown");
    expect(lazy.endsMidSentence()).toBe(false);
    for (const piece of ["q", "\n", "w", "\n"]) lazy.read(piece, 0, piece.length);
    // The line `w` holds no markup: the markup ended two lines up.
    expect(lazy.endsMidSentence()).toBe(true);
  });

  test("Unicode spaces and a backslash hard break cut between pieces: the character before them decides", () => {
    const nbsp = new LineEnds();
    nbsp.read("Run it like", 0, 11);
    nbsp.read("\u00a0\u200b", 0, 2);
    nbsp.read("\n", 0, 1);
    expect(nbsp.endsMidSentence()).toBe(true);
    const hard = new LineEnds();
    hard.read("Run it like ", 0, 12);
    hard.read("\\", 0, 1);
    hard.read("\u00a0\n", 0, 2);
    expect(hard.endsMidSentence()).toBe(true);
    const escaped = new LineEnds();
    escaped.read("Path C:\\", 0, 8);
    escaped.read("\\\n", 0, 2);
    expect(escaped.endsMidSentence()).toBe(false);
    const stop = new LineEnds();
    stop.read("Done.\u3000\\", 0, 7);
    stop.read("\n", 0, 1);
    expect(stop.endsMidSentence()).toBe(false);
  });

  test("markup shown as text marks its whole line; a call marks it only when it ends it", () => {
    const shown = new LineEnds();
    shown.read("<shell>", 0, 7, "shown");
    shown.read("ok go\n", 0, 6);
    expect(shown.endsMidSentence()).toBe(false);
    const call = new LineEnds();
    call.read("<shell>ls</shell>", 0, 17, "call");
    call.read(" ok go\n", 0, 7);
    expect(call.endsMidSentence()).toBe(true);
  });

  test("a line of markup before: no running sentence", () => {
    const lazy = new LineEnds();
    lazy.read("<shell>ls</shell>", 0, 17, "call");
    lazy.read("\nnext", 0, 5);
    lazy.read("\n", 0, 1);
    expect(lazy.endsMidSentence()).toBe(true);
    const marked = new LineEnds();
    marked.read("and", 0, 3);
    marked.read("<shell>ls</shell>\n", 0, 18, "call");
    expect(marked.endsMidSentence()).toBe(false);
  });

  test("a long line past the bound on waiting characters keeps its first character and its lead", () => {
    const lazy = new LineEnds();
    lazy.read("[ref]", 0, 5);
    for (let i = 0; i < 3000; i++) lazy.read("abcdefghij", 0, 10);
    lazy.read(" word\n", 0, 6);
    // The line began with `[`: a link reference definition may, so no sentence.
    expect(lazy.endsMidSentence()).toBe(false);
    const spaces = new LineEnds();
    spaces.read("\n", 0, 1);
    for (let i = 0; i < 2000; i++) spaces.read("          ", 0, 10);
    expect(spaces.lead).toBe(" ".repeat(20000));
  });

  test("a costume refused before prose on its line keeps a run of them linear (counted, not timed)", () => {
    // Markup shown as text (a candidate past the buffer limit) marks its line, so the next costume
    // is a line-start one and the run is read once; read as a call's markup it made each `<bash>` a
    // paragraph costume and the work grew ~6.6x per 4x of input.
    const unit = "<shell>\nls\n</shell>ok\n<bash>\npwd\n</bash>\n";
    const work = (n: number) =>
      countWork(() => {
        const text = unit.repeat(Math.ceil(n / unit.length)).slice(0, n);
        const engine = createRepairEngine({ tools: fixtureTools, idPrefix: "w_" });
        for (let i = 0; i < text.length; i += 4096) engine.feed(text.slice(i, i + 4096));
        engine.flush();
      });
    expect(work(400_000) / work(100_000)).toBeLessThan(4.5);
  });
});
