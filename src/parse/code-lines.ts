import {
  AMP,
  BACKSLASH,
  DASH,
  DOLLAR,
  DQ,
  GT,
  HASH,
  LPAREN,
  LT,
  PIPE,
  RPAREN,
  SEMICOLON,
  SLASH,
  SP,
  SQ,
  TAB,
  isAsciiDigit,
  isSpaceInTag,
  lineEndAt,
  lineEndFrom,
} from "../grammar/chars.ts";
import type { CodeLanguage } from "../grammar/dialects.ts";
import { NAME_LIMIT } from "./char-form.ts";
import { isElementNameCode, isElementNameStart } from "./tool-element-name.ts";

/**
 * Where a code costume's body (`<bash>`, `<shell>`, `<python>`, an HTML pre/code block,
 * ...) holds the Cline/Roo element form instead of code.
 *
 * The rule: a line that begins (after spaces) with a tag named after a parameter of the tool that
 * would run the code (`<command>`, `<command timeout="5">`, `<Command`, `</command>`; the name, in
 * any case, then `>`, `/`, a space or the line's end) is the element form, not code, wherever it
 * stands in the body: after code (`echo hi`), after comment lines (`# list`), after an XML comment
 * or declaration (`<!-- c -->`, `<?xml ...?>`). A shell reads such a line as redirections that end
 * in a syntax error (`<command>ls</command>`) or from a file named after the parameter, and Python
 * cannot compile it, so refusing such a body never loses code that would have run as written.
 *
 * Except where the code itself reads the line as data: the body of a heredoc (`cat > x.xml <<'EOF'`
 * ... `EOF`), a string that spans lines (`echo '` ... `'`, Python's `"""` ... `"""`). Only a heredoc
 * or string the body also ends counts: one left open (`# it's`-like text the scanner misreads, or a
 * shift `x << y` read as a heredoc) shelters nothing, so a misreading errs towards refusing.
 * Shell comments (`#` at a word's start) and Python ones are skipped, so a quote in a comment
 * opens nothing; a line that opens with an XML comment or declaration is markup, not code, and is
 * skipped to its end (`-->`, `?>`) without reading quotes in it. Neither the shell nor Python
 * knows XML comments, so one shelters nothing: a parameter element on a line inside it counts.
 *
 * A hand-written forward scan: every character is looked at a bounded number of times.
 */
export function parameterElementLine(code: string, language: CodeLanguage | null, isParameter: (name: string) => boolean): string | undefined {
  const scanner = language === "python" ? new PythonLines() : new ShellLines();
  return firstLine(code, scanner, (text, from, to) => {
    const name = elementAtLineStart(text, from, to);
    return name !== undefined && isParameter(name) ? name : undefined;
  });
}

/**
 * Review 52: what makes a costume's body something other than the code the model meant to run,
 * by the same line rule as parameterElementLine (a heredoc's body or a string the code ends is
 * its data, not counted):
 * - `prompt`: a shell line that starts with a shell prompt (`$ `, `user@host:~/app$ `,
 *   `root@box:/srv# `, `[user@host dir]$ `, `PS C:\> `). The body is a terminal transcript: which
 *   lines are output (a file `cat` printed, `rm -rf build` among them) is unknowable, and a prompt
 *   line is no command either (`$` is none), so nothing of it runs; the prompt is never stripped,
 *   since an argument is what the model wrote. `$VAR=`, `${x}`, `$(cmd)` are code (no space after
 *   the `$`); `# ` alone is a comment, a prompt only after `user@host:path`; a `> ` line is a
 *   continuation only after a prompt line, which refuses the body already.
 * - `html-comment`: an HTML comment opener `<!--` the code does not quote, at a line's start (shell
 *   or Python) or within a shell line. Neither language knows it: bash reads `<!--` as a failed
 *   redirection and goes on, so the line the model commented out would run (Python would not
 *   compile it, so refusing loses nothing).
 */
export function notCommandLine(code: string, language: CodeLanguage): "prompt" | "html-comment" | undefined {
  if (language === "python") return firstLine(code, new PythonLines(), (text, from, to) => (htmlCommentAtLineStart(text, from, to) ? "html-comment" : undefined));
  const scanner = new ShellLines();
  const found = firstLine(code, scanner, (text, from, to): "prompt" | "html-comment" | undefined => {
    if (PROMPT.test(text.slice(from, to))) return "prompt";
    return htmlCommentAtLineStart(text, from, to) ? "html-comment" : undefined;
  });
  return found ?? (scanner.htmlComment ? "html-comment" : undefined);
}

/**
 * A shell prompt opening a line (after spaces): `$`, `user@host:path` then `$` or `#`,
 * `[user@host dir]` then `$` or `#`, or PowerShell's `PS C:\path>`; then a space or tab. Anchored
 * at the line's start, every part a run that stops at a character it cannot hold: linear.
 */
const PROMPT = /^[ \t]*(?:\$|(?:[\w.-]+@[\w.-]+:[^\s$#]*|\[[\w.-]+@[^\]\r\n]*\])[$#]|PS (?:[A-Za-z]:\\|[/~])[^>\r\n]*>)[ \t]/;

const htmlCommentAtLineStart = (text: string, from: number, to: number) => xmlMarkupAt(text, from, to)?.terminator === "-->";

/**
 * The first line `find` names, or undefined. A line the open heredoc or string shelters counts only
 * if that one is never ended (a misread construct shelters nothing, so a misreading errs towards
 * refusing). A line ends at LF, CR LF or a lone CR (lineEndAt).
 */
function firstLine<T>(code: string, scanner: LineScanner, find: (text: string, from: number, to: number) => T | undefined): T | undefined {
  let sheltered: { found: T; construct: number } | undefined;
  let lineStart = 0;
  while (lineStart <= code.length) {
    const end = lineEndFrom(code, lineStart);
    const found = find(code, lineStart, end);
    if (found !== undefined) {
      if (!scanner.sheltered()) return found;
      if (sheltered === undefined || sheltered.construct !== scanner.construct) sheltered = { found, construct: scanner.construct };
    }
    scanner.line(code, lineStart, end);
    lineStart = end + Math.max(1, lineEndAt(code, end));
  }
  return scanner.sheltered() && sheltered?.construct === scanner.construct ? sheltered.found : undefined;
}

/**
 * The name of the tag a line opens with, after spaces: `<name` or `</name`, then `>`, `/`, a space
 * or the line's end. A space is any a reader takes for one (isSpaceInTag: `<command\u00A0timeout`
 * shows the same tag as `<command timeout`, golden C46.5, C46.6).
 */
function elementAtLineStart(text: string, from: number, to: number): string | undefined {
  let at = from;
  while (at < to && isSpaceInTag(text.charCodeAt(at))) at++;
  if (text.charCodeAt(at) !== LT) return undefined;
  at++;
  if (text.charCodeAt(at) === SLASH) at++;
  if (at >= to || !isElementNameStart(text.charCodeAt(at))) return undefined;
  let end = at + 1;
  while (end < to && end - at < NAME_LIMIT && isElementNameCode(text.charCodeAt(end))) end++;
  if (end < to) {
    const c = text.charCodeAt(end);
    if (c !== GT && c !== SLASH && !isSpaceInTag(c)) return undefined;
  }
  return text.slice(at, end);
}

/** Where a line that opens with an XML comment or declaration (`<!--`, `<?`) ends its markup: the terminator, or undefined. */
function xmlMarkupAt(text: string, from: number, to: number): { at: number; terminator: string } | undefined {
  let at = from;
  while (at < to && (text.charCodeAt(at) === SP || text.charCodeAt(at) === TAB)) at++;
  if (matchesAt(text, "<!--", at)) return { at: at + 4, terminator: "-->" };
  if (matchesAt(text, "<?", at)) return { at: at + 2, terminator: "?>" };
  return undefined;
}

/** Whether `needle` (a few characters) is written at `at`; read through charCodeAt, so the work bound counts it. */
function matchesAt(text: string, needle: string, at: number): boolean {
  if (at + needle.length > text.length) return false;
  for (let i = 0; i < needle.length; i++) if (text.charCodeAt(at + i) !== needle.charCodeAt(i)) return false;
  return true;
}

/** Where `needle` starts between `from` and `to` (it must end by `to`), or -1: bounded by the line, so a scan never reads past it. */
function indexWithin(text: string, needle: string, from: number, to: number): number {
  for (let at = from; at + needle.length <= to; at++) if (matchesAt(text, needle, at)) return at;
  return -1;
}

interface LineScanner {
  /** Counts the heredocs and strings opened so far: which one shelters the next line. */
  readonly construct: number;
  /** Whether the next line starts inside data the code reads (a heredoc's body, a string; not an XML comment, which no shell or Python skips). */
  sheltered(): boolean;
  /** Reads one line (without its line end) and carries its state to the next. */
  line(text: string, from: number, to: number): void;
}

/**
 * Skips XML markup a line opens with, or continues it: the position after its terminator on this
 * line, or -1 when the markup runs past the line (`open` then holds its terminator).
 */
function skipXmlMarkup(text: string, from: number, to: number, open: { terminator: string | undefined }): number {
  let at = from;
  if (open.terminator === undefined) {
    const markup = xmlMarkupAt(text, from, to);
    if (markup === undefined) return from;
    open.terminator = markup.terminator;
    at = markup.at;
  }
  const end = indexWithin(text, open.terminator, at, to);
  if (end < 0) return -1;
  const after = end + open.terminator.length;
  open.terminator = undefined;
  return after;
}

/** Characters that end a shell word (and so let `#` start a comment after them). */
const isShellBreak = (c: number) => c === SP || c === TAB || c === SEMICOLON || c === PIPE || c === AMP || c === LPAREN || c === RPAREN || c === LT || c === GT;

/**
 * A shell's view of the lines: quotes (`'`, `"`, `$'`), backslash escapes, comments, and heredocs
 * (`<<`, `<<-`, the delimiter quoted or not; several on one line run one after another). A `<<`
 * inside arithmetic (`$((x << n))`, `(( x <<= 2 ))`) is a shift, no heredoc. Also read by
 * costume-heredoc.ts (a costume's closer inside a heredoc's body is that body's text).
 */
export class ShellLines implements LineScanner {
  construct = 0;
  /** The quote the next line continues: `'`, `"`, or `$` for `$'...'`; 0 outside one. */
  private quote = 0;
  private readonly xml: { terminator: string | undefined } = { terminator: undefined };
  /** Heredocs whose bodies follow, the first being read once `reading` is set. */
  private readonly heredocs: { delimiter: string; stripTabs: boolean }[] = [];
  private reading = false;
  /** An HTML comment opener `<!--` was met outside quotes, heredoc bodies and comments (notCommandLine). */
  htmlComment = false;

  /** `((` opened and not yet closed by `))`: arithmetic, where `<<` shifts. */
  private arithmetic = 0;

  /**
   * `indentedDelimiter`: a delimiter line with spaces or tabs around the word ends the heredoc too
   * (a costume in a list item, its lines indented by the container, golden C48.2, whose code is
   * dedented only once it is whole). Errs towards a heredoc ended: what then runs is checked whole
   * by heredocLeftOpen, exactly.
   */
  constructor(private readonly indentedDelimiter = false) {}

  sheltered(): boolean {
    return this.quote !== 0 || this.reading;
  }

  /** The next line starts inside a heredoc's body (opened on an earlier line, its delimiter line not yet read). */
  inHeredoc(): boolean {
    return this.reading;
  }

  /** In a heredoc's body, the text from `from` to `to` is its delimiter line (`EOF`, after tabs for `<<-`). */
  endsHeredoc(text: string, from: number, to: number): boolean {
    if (!this.reading) return false;
    const doc = this.heredocs[0]!;
    let at = from;
    let end = to;
    if (this.indentedDelimiter) {
      while (at < end && (text.charCodeAt(at) === SP || text.charCodeAt(at) === TAB)) at++;
      while (end > at && (text.charCodeAt(end - 1) === SP || text.charCodeAt(end - 1) === TAB)) end--;
    } else if (doc.stripTabs) while (at < to && text.charCodeAt(at) === TAB) at++;
    return end - at === doc.delimiter.length && matchesAt(text, doc.delimiter, at);
  }

  line(text: string, from: number, to: number): void {
    if (this.reading) {
      if (this.endsHeredoc(text, from, to)) {
        this.heredocs.shift();
        this.reading = this.heredocs.length > 0;
        if (this.reading) this.construct++;
      }
      return;
    }
    let at = from;
    if (this.quote === 0) {
      if (this.xml.terminator === undefined && htmlCommentAtLineStart(text, from, to)) this.htmlComment = true;
      at = skipXmlMarkup(text, from, to, this.xml);
      if (at < 0) return;
    }
    while (at < to) {
      const c = text.charCodeAt(at);
      if (this.quote !== 0) {
        if (c === BACKSLASH && this.quote !== SQ) at += 2;
        else {
          if (c === (this.quote === DOLLAR ? SQ : this.quote)) this.quote = 0;
          at++;
        }
        continue;
      }
      if (c === BACKSLASH) at += 2;
      else if (c === SQ || c === DQ) {
        this.quote = c;
        this.construct++;
        at++;
      } else if (c === DOLLAR && text.charCodeAt(at + 1) === SQ) {
        this.quote = DOLLAR;
        this.construct++;
        at += 2;
      } else if (c === HASH && (at === from || isShellBreak(text.charCodeAt(at - 1)))) at = to;
      else if (c === LT && matchesAt(text, "<!--", at)) {
        this.htmlComment = true;
        at += 4;
      } else if (c === LPAREN && text.charCodeAt(at + 1) === LPAREN) {
        this.arithmetic++;
        at += 2;
      } else if (c === RPAREN && text.charCodeAt(at + 1) === RPAREN && this.arithmetic > 0) {
        this.arithmetic--;
        at += 2;
      } else if (c === LT && text.charCodeAt(at + 1) === LT) {
        if (this.arithmetic > 0) at += 2;
        else if (text.charCodeAt(at + 2) === LT) at += 3;
        else at = this.heredoc(text, at + 2, to);
      } else at++;
    }
    if (this.quote === 0 && this.heredocs.length > 0) {
      this.reading = true;
      this.construct++;
    }
  }

  /**
   * After `<<`: `-`, spaces, then the delimiter word, its quotes and backslashes removed. A word
   * that starts with a digit or is empty is no heredoc (`$((1<<2))`). Returns where reading goes on.
   */
  private heredoc(text: string, from: number, to: number): number {
    let at = from;
    const stripTabs = text.charCodeAt(at) === DASH;
    if (stripTabs) at++;
    while (at < to && (text.charCodeAt(at) === SP || text.charCodeAt(at) === TAB)) at++;
    if (at >= to || isAsciiDigit(text.charCodeAt(at))) return at;
    let delimiter = "";
    while (at < to) {
      const c = text.charCodeAt(at);
      if (isShellBreak(c)) break;
      if (c === SQ || c === DQ) {
        const close = indexWithin(text, String.fromCharCode(c), at + 1, to);
        const end = close < 0 ? to : close;
        delimiter += text.slice(at + 1, end);
        at = end + 1;
      } else if (c === BACKSLASH) {
        if (at + 1 < to) delimiter += text[at + 1];
        at += 2;
      } else {
        delimiter += text[at];
        at++;
      }
    }
    if (delimiter !== "") this.heredocs.push({ delimiter, stripTabs });
    return Math.min(at, to);
  }
}

/**
 * Shell code that leaves a heredoc open: its delimiter line never comes, or it opens on the last
 * line. Bash then reads the heredoc to the end of the command and runs it with a warning: a file
 * written short or padded with what was meant to follow. A hand-written forward scan, linear.
 */
export function heredocLeftOpen(code: string): boolean {
  // Most code opens none: one native search instead of the scan.
  if (!code.includes("<<")) return false;
  const scanner = new ShellLines();
  let lineStart = 0;
  while (lineStart <= code.length) {
    const end = lineEndFrom(code, lineStart);
    scanner.line(code, lineStart, end);
    lineStart = end + Math.max(1, lineEndAt(code, end));
  }
  return scanner.inHeredoc();
}

/** Python's view of the lines: strings (`'`, `"`, and the triple-quoted ones that span lines), escapes, comments. */
class PythonLines implements LineScanner {
  construct = 0;
  /** The string the next line continues (`'''`, `"""`, or a one-quote string ended by a backslash), or "". */
  private quote = "";
  private readonly xml: { terminator: string | undefined } = { terminator: undefined };

  sheltered(): boolean {
    return this.quote !== "";
  }

  line(text: string, from: number, to: number): void {
    let at = from;
    if (this.quote === "") {
      at = skipXmlMarkup(text, from, to, this.xml);
      if (at < 0) return;
    }
    let continued = false;
    while (at < to) {
      const c = text.charCodeAt(at);
      if (this.quote !== "") {
        if (c === BACKSLASH) {
          continued = at + 1 >= to;
          at += 2;
        } else if (matchesAt(text, this.quote, at)) {
          at += this.quote.length;
          this.quote = "";
        } else at++;
        continue;
      }
      if (c === HASH) at = to;
      else if (c === SQ || c === DQ) {
        const triple = text.charCodeAt(at + 1) === c && text.charCodeAt(at + 2) === c;
        this.quote = String.fromCharCode(c).repeat(triple ? 3 : 1);
        this.construct++;
        at += this.quote.length;
      } else at += c === BACKSLASH ? 2 : 1;
    }
    // A one-quote string ends with its line unless a backslash continues it.
    if (this.quote.length === 1 && !continued) this.quote = "";
  }
}
