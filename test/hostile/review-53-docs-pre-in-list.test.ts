/**
 * Review 53: an unclosed `<pre>` inside a list item hides every later call of the reply.
 *
 * FINDING (missed call + nudge, the lowest severity, but wide: every later call of the reply).
 * What is wrong: CommonMark ends an HTML block (type 1 `<pre>` included) when its container ends.
 * An HTML block takes no lazy continuation lines, so a line not indented to the list item's
 * content column closes the item and the `<pre>` block with it; commonmark.js reads the next line
 * as a top-level paragraph, and a real call there should run. The engine holds everything after
 * `- <pre>` (past the item's end, blank lines, paragraphs, closed fences, headings) to the reply's
 * end; the call in it does not run and is reported broken-markup (a correction nudge; the text is
 * kept). `<script>`, `<style>`, `<textarea>` and `<!--` in the same place end with the item, and
 * so does `<pre>` in a block quote (hard negatives below).
 * Mechanism (suspected): `<pre>` is a line-start costume (src/grammar/dialects.ts
 * LINE_START_COSTUMES) and `- <pre>` starts its line after the marker, so an unclosed `<pre>`
 * costume candidate swallows the rest of the reply and the call inside it is refused. The same
 * root as review-53-docs-costume-mention.test.ts (a costume opener mentioned mid-line in prose).
 * Minimal input: "- <pre>\n  x\n" then a one-line Hermes call on its own line.
 * Suspected source: the costume candidate in src/engine/text-mode.ts / costume-chain.ts (it should
 * end where CommonMark ends the `<pre>`: the container's end), not doc-html.ts.
 * Expected: the call after the list item runs (commonmark.js: text < paragraph < document), as
 * it does after `- <script>` and after `> <pre>`.
 *
 * Fixed (fix 53, src/parse/costume-hold.ts unclosedRereadAt): at the reply's end, a `<pre>` that
 * starts a line or ends the line it stands on (`- <pre>`) and never closed is released as text,
 * and the documentation context reads CommonMark's type-1 HTML block from it: the block ends with
 * its list item, so a call after the item runs; one inside the block, or after a top-level
 * `<pre>` (which runs to the document's end), stays documentation. A heredoc opened in it still
 * open at the call reads nothing again.
 */
import { casesThatHold, casesThatRun, type Cases } from "./html-block-oracle.ts";

/** Documents where commonmark.js shows the call (X) as a top-level paragraph after an unclosed `<pre>` in a list item. */
const MISSED: Cases = [
  ["the next line at column 0", "- <pre>\n  x\nX\n"],
  ["right after the opener line", "- <pre>\nX\n"],
  ["an ordered item", "1. <pre>\n   x\nX\n"],
  ["with an attribute", '- <pre class="a">\n  x\nX\n'],
  ["after a blank line", "- <pre>\n  x\n\nX\n"],
  ["after a heading that closed the list", "- <pre>\n  x\n# H\nX\n"],
  ["after a second item and a blank line", "- <pre>\n  x\n- y\n\nX\n"],
  ["in a later item paragraph block", "- a\n\n  <pre>\n  x\nX\n"],
  ["paragraphs and a closed fence later", "- <pre>\n  x\n\nPara.\n\n```\nfoo\n```\n\nMore.\n\nX\n"],
];

casesThatRun("review 53 finding: an unclosed <pre> in a list item hides every later call (missed call)", MISSED);

/** The same shapes where the engine already agrees with commonmark.js: the call runs. */
const RUNS: Cases = [
  ["<script> in a list item", "- <script>\n  x\nX\n"],
  ["<style> in a list item", "- <style>\n  x\nX\n"],
  ["<textarea> in a list item", "- <textarea>\n  x\nX\n"],
  ["a comment in a list item", "- <!--\n  x\nX\n"],
  ["<pre> in a block quote", "> <pre>\n> x\nX\n"],
  ["<pre> closed inside the item", "- <pre>\n  x\n  </pre>\nX\n"],
  ["a top-level <pre> closed, then a blank line", "<pre>\nx\n</pre>\n\nX\n"],
];
/** And where the call is documentation (commonmark.js: raw HTML): it must keep not running. */
const HOLDS: Cases = [
  ["inside the <pre> in the item", "- <pre>\n  X\n"],
  ["a top-level <pre> over a blank line", "<pre>\nx\n\nX\n</pre>\n"],
  ["an item's <pre> closed at column 0 opens a type-7 block", "- <pre>\n  x\n</pre>\nX\n"],
  ["a <div> in the item, the call indented into it", "- <div>\n  X\n"],
];

casesThatRun("review 53 hard negatives: HTML blocks in list items and quotes", RUNS, "runs: ");
casesThatHold("review 53 hard negatives: HTML blocks in list items and quotes", HOLDS);
