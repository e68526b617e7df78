import { CR, LF, LT, SP, TAB } from "../grammar/chars.ts";
import { codeLanguage, executeLanguage } from "../grammar/dialects.ts";
import type { Tag } from "../grammar/tags.ts";
import { ShellLines } from "./code-lines.ts";

/**
 * Review 52 (a costume's closer in a heredoc): a shell costume's code that opens a heredoc
 * (`cat > a.md <<'EOF'`, `<<EOF`, `<<"EOF"`, `<<-EOF`) reads every line after it as the heredoc's
 * body until the delimiter's own line (`EOF` alone, after tabs for `<<-`). The costume's closer on
 * such a line (`</shell>` in a page the heredoc writes) is that body's text, not the costume's
 * end: taken as the end, the command ran with its heredoc cut (a file written short) and the rest
 * (`EOF`, the real closer) was stripped unseen. So it is read as a closer read as code is
 * (costume-hold.ts): the costume goes on, and the same hold past it decides. A costume whose span
 * ends with that heredoc still open (the reply's end, a part's end) is refused whole: a command
 * whose heredoc never ended never runs; nor does one whose closer stands on the line that opens
 * a heredoc (`cat <<EOF </shell>`), whose body then never comes.
 *
 * Quotes, comments, `<<<` (a here-string) and `<<` in arithmetic (`$((1<<2))`, `$((x << n))`) open
 * no heredoc (code-lines.ts ShellLines). Python's code (`<python>`, `<py>`, `<code_interpreter>`
 * unless it names a shell, `<execute_ipython>`) has no heredocs and is not read. A `<pre>` block's
 * language is named inside it, after the point where reading must start, so it is read as shell:
 * a Python shift (`a << b`) there may be taken for a heredoc, and a closer after it then refuses
 * the block (never runs it cut).
 *
 * Read lazily, only where an own closer asks, each character once (the stream and the span parser
 * step the same reader over the same text, so both agree at every split): complete lines go to the
 * shell scanner as they end, the line being written is kept until its end comes. Until a `<<`
 * shows up nothing is scanned (a native search per piece); then the code is read from its start,
 * once.
 */
export class CostumeHeredocs {
  private readonly lines = new ShellLines(true);
  /** Where reading stopped: the text before it went into `partial` or the scanner. */
  private readTo: number;
  /** The start of the line being written, up to readTo. */
  private partial = "";
  /** Where spaces and tabs at the start of `partial` end (kept as it grows, so each is looked at once). */
  private indentEnd = 0;
  /** The last character read was a CR: an LF right after it ends no further line. */
  private afterCr = false;
  /** The heredoc (ShellLines.construct) whose body held the last own closer sheltered, or -1. */
  private shelteredIn = -1;
  private readonly on: boolean;
  /** Where the code starts: read from there once a `<<` shows up. */
  private readonly from: number;
  /** No `<<` in what was looked at so far: no heredoc can be open, and the lines wait unread. */
  private idle = true;
  /** The text looked at so far ends with `<` (a `<<` may straddle two pieces). */
  private endsLt = false;

  /** `from`: where the costume's code starts (its opener's end), in the offsets `read` takes. */
  constructor(opener: Tag, from: number) {
    this.on = readsShell(opener);
    this.readTo = this.from = from;
  }

  /**
   * The costume's own closer at `at`: true when the line it stands on is an open heredoc's body,
   * and not its delimiter line (`EOF</shell>`: the code ends with that line, the heredoc ended).
   * `read(from, to)` hands over the text between two offsets (each piece asked for once).
   * `endsLine`: nothing but spaces follows the closer on its line (the parser's question, for openAt).
   */
  shelters(at: number, read: (from: number, to: number) => string, endsLine = false): boolean {
    if (!this.on) return false;
    this.advance(at, read);
    if (!this.lines.inHeredoc()) return false;
    while (this.indentEnd < this.partial.length && isIndent(this.partial.charCodeAt(this.indentEnd))) this.indentEnd++;
    if (this.lines.endsHeredoc(this.partial, this.indentEnd, this.partial.length)) return false;
    if (endsLine) this.shelteredIn = this.lines.construct;
    return true;
  }

  /**
   * The span was cut off at `at`: whether a heredoc is still open there that sheltered an own
   * closer ending its line, one that would have ended the costume but for the heredoc (a costume
   * merely cut off inside its heredoc, or after a closer with text after it on its line, stays
   * what it always was: costume-hold.ts). Reads the line being written: call it last.
   */
  openAt(at: number, read: (from: number, to: number) => string): boolean {
    if (!this.on) return false;
    this.advance(at, read);
    this.lines.line(this.partial, 0, this.partial.length);
    this.partial = "";
    this.indentEnd = 0;
    return this.lines.inHeredoc() && this.shelteredIn === this.lines.construct;
  }

  private advance(at: number, read: (from: number, to: number) => string): void {
    if (at <= this.readTo) return;
    let text = read(this.readTo, at);
    if (this.idle) {
      // Most code opens no heredoc: one native search per piece, and the scan starts (from the
      // code's start, once) only where a `<<` was written.
      const seen = text.includes("<<") || (this.endsLt && text.charCodeAt(0) === LT);
      this.endsLt = text.charCodeAt(text.length - 1) === LT;
      if (!seen) {
        this.readTo = at;
        return;
      }
      this.idle = false;
      if (this.readTo > this.from) text = read(this.from, at);
    }
    this.readTo = at;
    let from = 0;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (this.afterCr) {
        this.afterCr = false;
        if (c === LF) {
          from = i + 1;
          continue;
        }
      }
      if (c !== LF && c !== CR) continue;
      // A line ends at LF, CR LF or a lone CR, as code-lines.ts reads a costume's code.
      const line = this.partial + text.slice(from, i);
      this.partial = "";
      this.indentEnd = 0;
      this.lines.line(line, 0, line.length);
      from = i + 1;
      this.afterCr = c === CR;
    }
    if (from < text.length) this.partial += text.slice(from);
  }
}

const isIndent = (c: number) => c === SP || c === TAB;

/** The costume's code is a shell's: read for heredocs. */
function readsShell(opener: Tag): boolean {
  if (opener.name === "pre") return true;
  if (opener.name === "code_interpreter") return codeLanguage(opener.attrs.lang ?? opener.attrs.language ?? "python") === "shell";
  const executes = executeLanguage(opener.name);
  return codeLanguage(executes ?? opener.name) === "shell";
}

/**
 * The span parser's reading of a span cut off at `end` (costume-hold.ts): the span's own closers
 * stepped as the stream steps them, then CostumeHeredocs.openAt. `closers`: the own closers, in order.
 */
export function heredocOpenAtEnd(span: string, opener: Tag, closers: readonly Tag[], end: number): boolean {
  const heredocs = new CostumeHeredocs(opener, opener.end);
  const read = (from: number, to: number) => span.slice(from, to);
  for (const closer of closers) if (closer.start < end) heredocs.shelters(closer.start, read, endsItsLine(span, closer.end));
  return heredocs.openAt(end, read);
}

/** Only spaces or tabs from `at` to its line's end or the span's. Stops at the first other character. */
function endsItsLine(span: string, at: number): boolean {
  for (let i = at; i < span.length; i++) {
    const c = span.charCodeAt(i);
    if (c === LF || c === CR) return true;
    if (!isIndent(c)) return false;
  }
  return true;
}
