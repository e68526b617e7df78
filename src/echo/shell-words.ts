/**
 * The echo guard's shell reading (review 53, widened in review 54): spellings of one shell command
 * that the shell itself makes the same before it runs anything, folded so that the given content
 * and a call's values agree however the model re-wrote them. Two passes, each linear:
 * 1. foldPlainQuotes (fix 53):
 *    - A line continuation (a backslash that ends a line, before LF, CRLF or CR) is removed with
 *      its line end, as the shell removes it: `x \` + LF + `  | sh` reads `x   | sh` (then the
 *      layout folding makes it `x|sh`), and `foo\` + LF + `bar` reads `foobar`. A backslash before
 *      anything else (`my\ dir`: the space is part of the word) is kept with what it escapes.
 *    - A quoted word (the quote after a word boundary or `=`, the closing quote before a boundary)
 *      whose content is only letters, digits and `-_./:@%+,` reads bare; a double-quoted one
 *      without `$`, backtick, backslash, `!` or `'` reads single-quoted (`"a&b"` is `'a&b'`, never
 *      `a&b`, which backgrounds `a`). It looks at each quote alone, whatever quote it sits in, so
 *      `sh -c "curl 'https://x.example/a'"` still reads its inner word bare.
 * 2. foldQuotedWords (review 54): a whole word, as the shell cuts it (between whitespace and
 *    `|&;<>()`; also a backtick, which delimits a substitution on both sides), is the concatenation of its unquoted, `'…'`, `"…"` and `$'…'` segments; when every
 *    segment holds only letters, digits and `-_./:@%+,=` (nothing a shell expands, splits or globs,
 *    and none of them means anything else inside quotes), the word reads as that concatenation:
 *    `"TOKEN=abc"`, `$'https://x.example/a'`, `https://"x.example/a"` and `''https://x.example/a`
 *    all read as the bare word. Any other character anywhere in the word (`$`, a backtick, a
 *    backslash, `*?[`, `~`, `{`, whitespace inside quotes, ...) keeps the whole word as written:
 *    `"$HOME"` against `'$HOME'`, `"my dir"` against `my dir`, `'x?'` against `x?`, `$X"a"` against
 *    `$Xa` stay apart. A word that is only quotes (`''`, an empty argument) stays too. `=` folds
 *    although a command's leading `A=1` assigns where `"A=1"` runs a command named `A=1`: that
 *    only ever refuses more, never less.
 * Only ever an extra reading on both sides (given-content.ts readingsOf, needleForms): it can make
 * more calls count as given, never fewer, and what it folds runs the same in a shell.
 */
import { AMP, BACKSLASH, BACKTICK, BANG, CR, DOLLAR, DQ, EQ as EQUALS, GT, LF, LPAREN, LT, PIPE, RPAREN, SEMICOLON, SQ, isWhiteSpace } from "../grammar/chars.ts";
import { isAlnumAt } from "./letters.ts";

const BARE_SAFE = new Set(["-", "_", ".", "/", ":", "@", "%", "+", ","].map((c) => c.charCodeAt(0)));

/** The text with line continuations removed and shell quoting of plain words folded (see above); `text` itself when nothing folds. */
export function shellReading(text: string): string {
  if (!text.includes("\\") && !text.includes('"') && !text.includes("'")) return text;
  return foldQuotedWords(foldPlainQuotes(text));
}

/**
 * Pass 1 (see above). One pass, linear: a quote's look-ahead stops at the first character that is
 * not part of such a word, and no character it passed starts another look-ahead (none is a quote).
 */
function foldPlainQuotes(text: string): string {
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

/** The characters a word may hold, quoted or not, and read the same bare: none expands, splits, globs or changes meaning inside quotes. */
const WORD_SAFE = new Set([...BARE_SAFE, EQUALS]);

function isWordSafeAt(text: string, i: number): boolean {
  return isAlnumAt(text, i) || WORD_SAFE.has(text.charCodeAt(i));
}

/** Where pass 2's words end. A backtick too: `a"b"` before or after a substitution (or a Markdown code span's edge) reads as `ab` there. */
function endsWord(c: number): boolean {
  return isWhiteSpace(c) || isLayoutPunctuation(c) || c === BACKTICK;
}

/**
 * Pass 2 (see above): every word whose segments all hold only word-safe characters, with at least
 * one quote, reads as the concatenation of its segments. Linear: a segment's look-ahead passes only
 * word-safe characters (no quote, so none of them starts another look-ahead); when it fails, the
 * rest of the word is only walked to its end, once.
 */
function foldQuotedWords(text: string): string {
  const n = text.length;
  let out = "";
  let from = 0;
  let i = 0;
  while (i < n) {
    if (endsWord(text.charCodeAt(i))) {
      i++;
      continue;
    }
    const start = i;
    let value = "";
    let piece = i;
    let quoted = false;
    let plain = true;
    while (i < n) {
      const c = text.charCodeAt(i);
      if (endsWord(c)) break;
      if (plain) {
        const open = c === SQ || c === DQ ? i : c === DOLLAR && i + 1 < n && text.charCodeAt(i + 1) === SQ ? i + 1 : -1;
        if (open >= 0) {
          let close = open + 1;
          while (close < n && isWordSafeAt(text, close)) close++;
          if (close < n && text.charCodeAt(close) === text.charCodeAt(open)) {
            value += text.slice(piece, i) + text.slice(open + 1, close);
            quoted = true;
            i = close + 1;
            piece = i;
            continue;
          }
          plain = false;
          i = open + 1;
          continue;
        }
        if (isWordSafeAt(text, i)) {
          i++;
          continue;
        }
        plain = false;
      }
      // Outside a plain word only its end matters; an escaped character (`my\ dir`) never ends it.
      i += c === BACKSLASH ? 2 : 1;
    }
    if (i > n) i = n;
    if (!plain || !quoted) continue;
    value += text.slice(piece, i);
    if (value === "") continue;
    out += text.slice(from, start) + value;
    from = i;
  }
  return from === 0 ? text : out + text.slice(from);
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
