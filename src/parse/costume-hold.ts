import { COSTUME_INNER } from "../grammar/dialects.ts";
import { HTML_TYPE1_NAMES, type Tag } from "../grammar/tags.ts";
import { CR, GT, LF, SP, TAB } from "../grammar/chars.ts";
import { brokenSpan, tagsOf, textSpan, type Segment } from "./segments.ts";
import { ignoreContent, type SpanKind } from "./span-kind.ts";
import { closerRule } from "./closer-in-value.ts";
import { ownCloser, parseCostumeSpan } from "./costume.ts";
import { CostumeHeredocs, heredocOpenAtEnd } from "./costume-heredoc.ts";
import { isProse } from "./costume-prose.ts";

/** A costume's closer is its code's end only at the end of its line (closer-in-value.ts). */
const COSTUME_CODE = closerRule(null);
/** The same for a costume opened inside a paragraph: the line after the closer's decides (CloserRule.nextLine). */
const PARAGRAPH_COSTUME_CODE = { ...closerRule(null), nextLine: true };

/**
 * A code costume (C01-C04, C07) ends only at its own closer, and only one that ends its line (or
 * the reply): `<shell>grep -c "</shell>" a.html && rm -rf build</shell>` is one command, not
 * `grep -c "` (golden A40.n5; A40.8 for text after the closer).
 *
 * Once a closer was read as the code's text, a tag that opens a call or a block (the same costume
 * again, another, `<tool_call>`, a DSML block, ...) may be the start of what comes after a costume
 * that ended at that closer (`<shell>\nls\n</shell>ok\n<shell>\npwd\n</shell>`, golden A40.16;
 * a DSML block after `</shell> to list files.`, A40.17), or an example inside the code (a heredoc
 * writing a document that mentions `</shell>` and shows `<bash>rm -rf build</bash>`; golden
 * A40.19, A40.20). Which one is known only later, so the costume holds on from there:
 * - its own closer ends a line (one the same costume opened after it does not count): the whole
 *   was one costume whose code holds markup after a closer read as code. Which closer ended it
 *   stays unknowable, so nothing of it runs: broken markup, a nudge (HELD_COSTUME). That closer
 *   may be the code's text as well (a heredoc documenting it, going on after it), so where the
 *   code ends is unknown: no later call of the reply runs either (Segment.unbounded, golden
 *   A44.3-A44.4);
 * - the reply ends after another own closer of it that has text after it on its line
 *   (`EOF\n</shell> done`; golden A40.24, A40.25): refused too. A closer with text after it is no
 *   weaker a candidate end than the first one was, so the call opener between them may as well
 *   be the code's text (a heredoc's example): refused up to the last own closer, the furthest
 *   the costume can reach in the reply, and the engine reads the rest again (not unbounded: no
 *   later closer of it follows, so a later call runs). This gives up a legit costume, text after
 *   its closer, a real call, then the costume's closer again with text after it: the call is
 *   refused with a nudge instead of run. Nothing in the markup tells those apart, and a wrong
 *   execution outranks a lost call;
 * - the reply ends without one: the costume ended at its first closer, and is text up to there;
 *   the engine reads the rest again, so a later costume or leak runs on its own;
 * - the reply ends more than HELD_LOOKAHEAD characters after that tag (with or without a later
 *   closer): the whole is refused as above (a long document could still be the code's, and
 *   reading it again once per such costume would make the work grow with the square of the reply).
 *   Where it ends was never found, so no later call of the reply (a later Responses part or
 *   reasoning stretch, a later Anthropic text block) runs either (Segment.unbounded). A costume
 *   that outgrows responseFix.bufferLimit while it holds is released as text, and the same holds.
 * A costume the reply cut off after a closer read as code, with no such tag, is text up to its
 * first closer likewise (the engine reads the rest again).
 */
export const COSTUME = costumeKind(false);

/**
 * A code costume opening a line right after a prose line of the same paragraph (golden N48.1-N48.3)
 * (`The agent wraps commands like` / `<bash>rm -rf build</bash>` / `in its replies.`). A
 * structural rule: when the line after its closer's line goes on with the sentence (it starts with
 * a lower-case letter), the costume sits inside a running paragraph, a sentence showing the tag,
 * and is text (nothing runs, nothing stripped as a fabricated result). A blank line, the reply's
 * end, a tag, or a line that starts anew (`Done.`, `Now mine:`) after it: the costume stood as its
 * own block after the prose (`Cleaning:` / `<shell>` ... `</shell>`, C04) and runs as COSTUME does.
 * The stream decides at the first thing written on that next line (engine/candidate.ts,
 * tentative-closer.ts).
 */
export const PARAGRAPH_COSTUME = costumeKind(false, PARAGRAPH_COSTUME_CODE);

/**
 * A code costume's opener that does not start its line (`Run this: <shell>...`, or only a BOM, a
 * zero-width space, a word joiner or an NBSP before it, golden C46.1-C46.3): never run, since
 * only a costume opening a line is read as code to run. Its body is still the costume's, read by
 * the same rules as COSTUME: what makes a heredoc's example the code's text (closers, the hold
 * past a closer read as code) must not depend on where the outer opener sits on its line, or
 * the example quoted in it (`<bash>rm -rf build</bash>` on its own line) runs by itself. So the
 * span is text where COSTUME would have run its code, refused where COSTUME refuses it (held past
 * a closer read as code), and refused as well when the text it covers holds tool-call markup
 * (a call opener inside the code, or a reply that ends with the costume open): which of it is the
 * code's text and which a call is unknowable (a nudge, never a run). A costume closed on its
 * line (`Let me check: <bash>ls</bash>`) is text as before.
 */
export const INLINE_COSTUME = costumeKind(true);

function costumeKind(inline: boolean, closerCode = COSTUME_CODE): SpanKind<{ firstCloserEnd: number; held: boolean; depth: number; heredocs: CostumeHeredocs }> {
  return {
    watchesContent: false,
    content: ignoreContent,
    body: (r) => ({ firstCloserEnd: -1, held: false, depth: 0, heredocs: new CostumeHeredocs(r.opener, r.start + r.opener.end) }),
    tag: (r, tag, base, _first, _closesBlock, body) => {
      if (ownCloser(tag, r.opener)) {
        // The closer of the same costume opened again after the hold began: code, never the end.
        if (body.depth > 0) {
          body.depth--;
          return null;
        }
        if (body.firstCloserEnd < 0) body.firstCloserEnd = base + tag.end;
        // On a line of an open heredoc's body it is that body's text: read as code, as a closer
        // with text after it is, so the hold past it applies alike (costume-heredoc.ts). A costume
        // that holds is refused at such a closer all the same (heldPast): nothing of it runs.
        if (!body.held && body.heredocs.shelters(base + tag.start, (from, to) => r.textBetween(from, to))) return null;
        return r.tentatively(closerCode, base + tag.end);
      }
      if (body.firstCloserEnd >= 0 && opensCall(tag)) {
        body.held = true;
        if (sameOpener(tag, r.opener)) body.depth++;
      }
      return null;
    },
    // Review 52: after a closer that ended its line, a further closer of the same costume before
    // the next call or block opener (`<shell>\na\n</shell>\nb\n</shell>`): which of them is the
    // costume's is unknowable (the first one may be the code's text, `b` its next line), so neither
    // runs: refused whole to that closer (a nudge), and what follows is read again. The next call
    // opener, the reply's end or the buffer limit end the hold: the costume ended at its closer.
    holdsAfterCloserLine: (_r, body) => closerCode === COSTUME_CODE && !inline && !body.held,
    tagWhileHeld: (r, tag, heldAt) => {
      if (ownCloser(tag, r.opener)) {
        r.refuseWhole(costumeShape(r.opener), FURTHER_CLOSER, heldAt);
        return "refused";
      }
      return opensCall(tag) ? "ends" : null;
    },
    parse: ({ span, opener, truncated, ctx }) => {
      // Cut off with a heredoc still open that held an own closer ending its line: no command of
      // it runs, and where its code ends is unknown, so no later call of the reply runs either
      // (costume-heredoc.ts). A span ended at its closer with a heredoc open there (opened on the
      // closer's line) is refused by the code's own check (costume.ts codeCall).
      if (truncated && heredocOpen(span, opener)) return unbounded(brokenSpan(span.length, costumeShape(opener), "broken-markup", HEREDOC_OPEN));
      const held = heldPast(span, opener);
      if (held === null) {
        // Review 53: never closed, the opener was prose (a mention) or an HTML block's start: what
        // the rest holds is read again (an inline mention's paragraph is decided here first).
        const reread = truncated && ctx.replyEnded === true ? unclosedRereadAt(span, opener, inline) : -1;
        if (reread >= 0) return inline && holdsCallMarkup(span, opener, reread) ? brokenSpan(reread, costumeShape(opener), "broken-markup", INLINE_COSTUME_MARKUP) : textSpan(reread);
        const end = truncated ? firstCloserEnd(span, opener) : span.length;
        if (!inline) return truncated ? textSpan(end) : parseCostumeSpan(span, opener, ctx);
        // Never run: text, unless tool-call markup stands in the code it covers.
        return holdsCallMarkup(span, opener, end) ? brokenSpan(end, costumeShape(opener), "broken-markup", INLINE_COSTUME_MARKUP) : textSpan(end);
      }
      const shape = costumeShape(opener);
      // Its own closer ended a line, yet an earlier one was read as code: that closer may be the
      // code's text as well (a heredoc documenting `</shell>`), so where the code ends is unknown
      // and what follows may still be it. No later call of the reply runs (Segment.unbounded).
      if (!truncated) return unbounded(brokenSpan(span.length, shape, "broken-markup", HELD_COSTUME));
      // The hold cap: the span ended (a Responses part, a reasoning stretch, an Anthropic text block)
      // so far past the call opener that where the costume ends was never found. What the reply
      // writes next may still be its code, so no later call of the reply runs (Segment.unbounded).
      if (span.length - held.callAt > HELD_LOOKAHEAD) return unbounded(brokenSpan(span.length, shape, "broken-markup", HELD_COSTUME));
      // A later own closer, wherever it stands on its line: refused up to the last one; what follows
      // it is no costume's code, so the engine reads it again.
      if (held.lastCloserEnd >= 0) return brokenSpan(held.lastCloserEnd, shape, "broken-markup", HELD_COSTUME);
      return textSpan(held.firstCloserEnd);
    },
  };
}

const FURTHER_CLOSER = "a code costume's closer ended its line, and a further closer of it followed: which one ends it is unknowable";
const HEREDOC_OPEN = "a code costume cut off in a heredoc that holds its closer: where its code ends is unknowable";

/**
 * A span cut off with a heredoc open (CostumeHeredocs.openAt) that holds an own closer ending its
 * line. Linear: one pass over the tags, one over the code's lines.
 */
function heredocOpen(span: string, opener: Tag): boolean {
  const closers = tagsOf(span, opener.end).filter((tag) => ownCloser(tag, opener));
  return closers.length > 0 && heredocOpenAtEnd(span, opener, closers, span.length);
}

const costumeShape = (opener: Tag) => (opener.name === "code_interpreter" ? "C07" : "C04");
const INLINE_COSTUME_MARKUP = "a code costume opened inside a line holds tool-call markup: which of it is the code's text is unknowable";

/**
 * Tool-call markup inside the costume's text up to `end`, past its opener: a tag that opens a call
 * or a block (opensCall), a costume only when its own closer follows it there (`<bash> is a
 * placeholder` with none is a word in prose, golden N09). Linear: one pass over the tags from the
 * end, keeping the costume names whose closer was seen.
 */
function holdsCallMarkup(span: string, opener: Tag, end: number): boolean {
  const tags = tagsOf(span, opener.end, end);
  const closed = new Set<string>();
  for (let i = tags.length - 1; i >= 0; i--) {
    const tag = tags[i]!;
    if (tag.family === "costume" && tag.closing) closed.add(tag.name);
    else if (opensCall(tag) && (tag.family !== "costume" || closed.has(tag.name))) return true;
  }
  return false;
}

/**
 * Review 53: a code costume the reply ended without ever closing (no own closer after its opener),
 * with tool-call markup after it: where the engine reads the rest again as text, or -1 (the span
 * stays as it was: text, or refused when it holds call markup). Only at the reply's end
 * (SpanContext.replyEnded; a later part may still close it), and only a bounded number of times
 * per reply (the engine's count), so the work stays linear.
 * - A mention inside a line (`I will use the <python> tool.`) is inline raw HTML in a paragraph:
 *   that paragraph ends at its first blank line, after which a call stands as its own paragraph
 *   and runs. The mention's own paragraph is decided here (text, or refused when call markup
 *   stands in it: a cut-off costume's code may go on there, so the rule only reaches past a
 *   blank line).
 * - A `<pre>` that opens a line, or ends the line it stands on (`- <pre>`, a list item's first
 *   line), may start CommonMark's HTML block of type 1, which ends on the first line holding a
 *   type-1 closer (`</pre>`, and as well `</script>`, `</style>`, `</textarea>`, any case; review
 *   56) or where its container ends (`- <pre>` then a line at column 0). Never closed, its opener is released as
 *   text and the documentation context reads the block's extent: a call after the list item runs,
 *   one inside the block (or anywhere after a top-level `<pre>`) stays documentation.
 * Every other line-start costume, and any other opener that ends its line (code lines follow it:
 * review 53a), keeps holding what follows to the reply's end. Review 54: nothing (a mention's
 * rest or a `<pre>`'s) is read again unless the text from the opener to the first call's markup
 * after `at` is prose (costume-prose.ts: no word glued to the opener, no quote, apostrophe,
 * backtick, `$`, `#`, `//`, bracket, `=`, `;`, `<<`, ...), or, for a `<pre>`, the text from the
 * end of the line holding the type-1 closer that ended its block is (typeOneCloserLineEnd): a costume's code there
 * (`<python>import os`, a template literal, `$(` over a blank line, a string a comment's
 * apostrophe put a reader out of step with) may still be open at the call, and the re-read only
 * recovers a missed call, so it reads no code and refuses instead. Later calls are read again by
 * the engine as any text is.
 * Linear: one pass over the span's tags, one over the text up to the first call.
 */
function unclosedRereadAt(span: string, opener: Tag, inline: boolean): number {
  const endsLine = endsItsLine(span, opener.end);
  const pre = opener.name === "pre" && (!inline || endsLine);
  if (!inline && !pre) return -1;
  // Review 53a: any other opener that ends its own line (`Running it now: <python>`) has code
  // lines after it: a costume, not a mention, whatever its code holds.
  if (!pre && endsLine) return -1;
  const at = pre ? opener.end : blankLineAfter(span, opener.end);
  if (at < 0) return -1;
  const tags = tagsOf(span, opener.end);
  if (tags.some((tag) => ownCloser(tag, opener))) return -1;
  const call = tags.find((tag) => tag.start >= at && opensCall(tag));
  if (call === undefined) return -1;
  if (isProse(span, opener.end, call.start, tags)) return at;
  if (!pre) return -1;
  // Review 56: a `<pre>` block ends, as every type-1 block does, on the first line holding any
  // type-1 closer (`</script>`, `</style>`, `</textarea>`, any case; the opener's own line too).
  // That line is the block's HTML, not a costume's code to keep reading; past it the same prose
  // rule applies up to the call. Review 57: a further `<pre>` on or before that line (`a</script>b<pre>`,
  // `<pre>x</style><pre>`) is the block's raw HTML: it starts no block, and a `<pre>` holds no
  // code to run but in a `<code>` it closes, so it is not the call asked for; the first other
  // call markup is. Any other markup inside the block keeps the rule: past the opener, prose only.
  const blockEnd = typeOneCloserLineEnd(span, opener.end, span.length);
  if (blockEnd < 0) return -1;
  const first = tags.find((tag) => tag.start >= at && opensCall(tag) && !(tag.start < blockEnd && sameOpener(tag, opener)));
  return first !== undefined && first.start > blockEnd && isProse(span, blockEnd, first.start, tags) ? at : -1;
}

/**
 * Where the first line holding a CommonMark type-1 closer (`</script>`, `</pre>`, `</style>`,
 * `</textarea>`, any case, nothing else between `</` and `>`) from `from` on ends (its line-end
 * character), when a later line starts before `to`; else -1. Linear: each `</` is looked at once.
 */
function typeOneCloserLineEnd(span: string, from: number, to: number): number {
  for (let lt = span.indexOf("</", from); lt >= 0 && lt < to; lt = span.indexOf("</", lt + 2)) {
    const name = HTML_TYPE1_NAMES.find((n) => span.charCodeAt(lt + 2 + n.length) === GT && span.slice(lt + 2, lt + 2 + n.length).toLowerCase() === n);
    if (name === undefined) continue;
    let end = lt + 3 + name.length;
    while (end < span.length && span.charCodeAt(end) !== LF && span.charCodeAt(end) !== CR) end++;
    return end < to ? end : -1;
  }
  return -1;
}

/** Only spaces or tabs from `at` to its line's end or the span's. */
function endsItsLine(span: string, at: number): boolean {
  for (let i = at; i < span.length; i++) {
    const c = span.charCodeAt(i);
    if (c === LF || c === CR) return true;
    if (c !== SP && c !== TAB) return false;
  }
  return true;
}

/** The start of the first line after `from`'s line that holds only spaces or tabs, or -1. */
function blankLineAfter(span: string, from: number): number {
  let lineStart = -1;
  let blank = false;
  for (let i = from; i < span.length; i++) {
    const c = span.charCodeAt(i);
    if (c === LF || c === CR) {
      if (lineStart >= 0 && blank) return lineStart;
      // CR LF ends one line.
      if (c === CR && span.charCodeAt(i + 1) === LF) i++;
      lineStart = i + 1;
      blank = true;
    } else if (c !== SP && c !== TAB) blank = false;
  }
  return -1;
}

function unbounded(segments: Segment[]): Segment[] {
  for (const seg of segments) if (seg.kind === "broken") seg.unbounded = true;
  return segments;
}

/** How far past a call opener after a closer read as code a reply may run on before the costume is refused whole (COSTUME). */
export const HELD_LOOKAHEAD = 4096;
const HELD_COSTUME = "a code costume whose code holds tool-call markup after a closer read as code: which closer ended it is unknowable";

function firstCloserEnd(span: string, opener: Tag): number {
  const first = tagsOf(span, opener.end).find((t) => ownCloser(t, opener));
  return first === undefined ? span.length : first.end;
}

/**
 * A tag that opens a call or a block after a closer read as the code's text (COSTUME): where it
 * starts, the first closer's end, and the end of the costume's last own closer after it, or -1.
 * Every later own closer counts whatever follows it on its line (`</shell> done` after a heredoc's
 * example, golden A40.24-A40.26), except the closer of the same costume opened again at the start of
 * a line after that tag (A40.16); the last one counts even then, since the reopened costume may
 * itself be the code's text. Null when there is no such tag.
 */
function heldPast(span: string, opener: Tag): { callAt: number; firstCloserEnd: number; lastCloserEnd: number } | null {
  const tags = tagsOf(span, opener.end);
  let firstEnd = -1;
  let callAt = -1;
  let depth = 0;
  let closedLater = false;
  let lastEnd = -1;
  for (const tag of tags) {
    if (callAt < 0) {
      if (ownCloser(tag, opener)) {
        if (firstEnd < 0) firstEnd = tag.end;
      } else if (firstEnd >= 0 && opensCall(tag)) {
        callAt = tag.start;
        if (sameOpener(tag, opener) && startsLineOrSpan(span, tag.start)) depth++;
      }
      continue;
    }
    if (sameOpener(tag, opener) && startsLineOrSpan(span, tag.start)) depth++;
    else if (ownCloser(tag, opener)) {
      lastEnd = tag.end;
      if (depth > 0) depth--;
      else closedLater = true;
    }
  }
  if (callAt < 0) return null;
  return { callAt, firstCloserEnd: firstEnd, lastCloserEnd: closedLater ? lastEnd : -1 };
}

const sameOpener = (tag: Tag, opener: Tag) => tag.family === "costume" && !tag.closing && tag.name === opener.name;

/** Only spaces or tabs between the line's start (or the span's: the span's first line counts) and `at`. */
function startsLineOrSpan(span: string, at: number): boolean {
  for (let i = at - 1; i >= 0; i--) {
    const c = span.charCodeAt(i);
    if (c === LF || c === CR) return true;
    if (c !== SP && c !== TAB) return false;
  }
  return true;
}

/**
 * A tag that opens a call or a block wherever the engine's text mode meets it: any costume but an
 * inner one (the same costume again, another, `<tool_call>`), a DSML tag (its sentinel is
 * markup, never code), a Claude-style or MiniMax wrapper, invoke or function, a special token that
 * begins a section or call, Mistral's or MiniMax's bracket opener.
 */
function opensCall(tag: Tag): boolean {
  if (tag.closing) return false;
  switch (tag.family) {
    case "costume":
      return !COSTUME_INNER.has(tag.name);
    case "dsml":
      return true;
    case "naked":
      return tag.role === "block" || tag.role === "invoke" || tag.role === "function";
    case "legacy":
      return tag.legacy === "section-begin" || tag.legacy === "call-begin" || tag.legacy === "call-start";
    case "mistral":
      return tag.name === "tool_calls" || tag.name === "tool_call";
  }
}
