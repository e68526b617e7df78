/**
 * The echo guard's shell reading (review 53): spellings of one shell command that the shell itself
 * makes the same before it runs anything, folded so that the given content and a call's values
 * agree however the model re-wrote them.
 * - A line continuation (a backslash that ends a line, before LF, CRLF or CR) is removed with its
 *   line end, as the shell removes it: `x \` + LF + `  | sh` reads `x   | sh` (then the layout
 *   folding makes it `x|sh`), and `foo\` + LF + `bar` reads `foobar`. A backslash before anything
 *   else (`my\ dir`: the space is part of the word) is kept with the character it escapes.
 * - Shell quotes around a word that has nothing the shell would expand or split: a quoted word
 *   (the quote after a word boundary, the closing quote before one) whose content is only letters,
 *   digits and `-_./:@%+,` reads bare (`"https://x.example/a"`, `'https://x.example/a'` and
 *   `https://x.example/a` are one word); a double-quoted one without `$`, backtick, backslash, `!`
 *   or `'` reads single-quoted (`"a&b"` is `'a&b'`, never `a&b`, which backgrounds `a`).
 *   Everything else keeps its quotes: `"$HOME"` and `'$HOME'` are different words.
 * Only ever an extra reading on both sides (given-content.ts readingsOf, needleForms): it can make
 * more calls count as given, never fewer, and what it folds runs the same in a shell.
 * One pass, linear: a quote's look-ahead stops at the first character that is not part of such a
 * word, and no character it passed starts another look-ahead (none of them is a quote).
 */
import { AMP, BACKSLASH, BACKTICK, BANG, CR, DOLLAR, DQ, EQ as EQUALS, GT, LF, LPAREN, LT, PIPE, RPAREN, SEMICOLON, SQ, isWhiteSpace } from "../grammar/chars.ts";
import { isAlnumAt } from "./letters.ts";

const BARE_SAFE = new Set(["-", "_", ".", "/", ":", "@", "%", "+", ","].map((c) => c.charCodeAt(0)));

/** The text with line continuations removed and shell quoting of plain words folded (see above); `text` itself when nothing folds. */
export function shellReading(text: string): string {
  if (!text.includes("\\") && !text.includes('"') && !text.includes("'")) return text;
  let out = "";
  let from = 0;
  let last = -1;
  const emit = (to: number): void => {
    if (to > from) {
      out += text.slice(from, to);
      last = text.charCodeAt(to - 1);
    }
  };
  for (let i = 0; i < text.length; ) {
    const c = text.charCodeAt(i);
    if (c === BACKSLASH) {
      const next = i + 1 < text.length ? text.charCodeAt(i + 1) : -1;
      if (next === LF || next === CR) {
        emit(i);
        i += next === CR && text.charCodeAt(i + 2) === LF ? 3 : 2;
        from = i;
        continue;
      }
      // An escape pair stays as written: `\\` + a line end is a backslash, then a line end.
      i += next < 0 ? 1 : 2;
      continue;
    }
    if (c !== DQ && c !== SQ) {
      i++;
      continue;
    }
    const before = i > from ? text.charCodeAt(i - 1) : last;
    if (!(before < 0 || isWhiteSpace(before) || isLayoutPunctuation(before) || before === EQUALS)) {
      i++;
      continue;
    }
    const word = plainQuoted(text, i, c);
    if (word === null) {
      i++;
      continue;
    }
    emit(i);
    out += word.bare ? text.slice(i + 1, word.close) : `'${text.slice(i + 1, word.close)}'`;
    last = SQ;
    i = word.close + 1;
    from = i;
  }
  emit(text.length);
  return out;
}

/**
 * At a quote `q` at `open`: where its closing quote is, when the content between is non-empty and
 * reads the same in either quote (`bare`: also unquoted) and the closing quote ends a word; else null.
 */
function plainQuoted(text: string, open: number, q: number): { close: number; bare: boolean } | null {
  let bare = true;
  let j = open + 1;
  for (; j < text.length; j++) {
    const c = text.charCodeAt(j);
    if (c === q) break;
    if (c === DQ || c === SQ || c === BACKSLASH || c === DOLLAR || c === BACKTICK || c === BANG || c === LF || c === CR) return null;
    if (bare && !(isAlnumAt(text, j) || BARE_SAFE.has(c))) bare = false;
  }
  if (j >= text.length || j === open + 1) return null;
  const after = j + 1 < text.length ? text.charCodeAt(j + 1) : -1;
  if (!(after < 0 || isWhiteSpace(after) || isLayoutPunctuation(after))) return null;
  return { close: j, bare };
}

/**
 * Shell punctuation, next to which whitespace is layout: `x.sh|sh` and `x.sh | sh`, `a&&b` and
 * `a && b`, `cat<f` and `cat < f`, `$( ls )` and `$(ls)` run the same. Not `=`: `A=1 make` sets a
 * variable for make where `A = 1 make` runs a command A, and `a = b` against `a=b` is a whole
 * formatting edit a model makes of its own (an edit tool's new text must not read as the old).
 */
export function isLayoutPunctuation(c: number): boolean {
  return c === PIPE || c === AMP || c === SEMICOLON || c === LT || c === GT || c === LPAREN || c === RPAREN;
}
