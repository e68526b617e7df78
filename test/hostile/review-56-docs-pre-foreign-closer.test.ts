/**
 * Review 56 (hostile, tests only): a top-level `<pre>` HTML block that CommonMark ends with another
 * type-1 closing tag (`</script>`, `</style>`, `</textarea>`) hides every later call of the reply.
 *
 * FINDING (missed call, the lowest severity; silent: no nudge, no broken-markup).
 * What is wrong: CommonMark's HTML block of type 1 starts at `<pre`, `<script`, `<style` or
 * `<textarea` and ends at the first line holding ANY of `</pre>`, `</script>`, `</style>`,
 * `</textarea>` (any case; the closer need not match the opener; spec 4.6, commonmark.js
 * reHtmlBlockClose[1]). So in "<pre>\na</script>\nX\n" the block ends on the second line and X is
 * a top-level paragraph: a real call there should run. The engine runs it after `<script>`,
 * `<style>` and `<textarea>` blocks closed by a foreign closer (hard negatives below), but after a
 * `<pre>` one it shows the call as text, with no nudge, to the end of the reply (blank lines and
 * paragraphs in between do not help).
 * Mechanism (suspected): `<pre>` is a line-start costume; its candidate never sees its own
 * `</pre>`, so at the reply's end src/parse/costume-hold.ts unclosedRereadAt decides the rest; it
 * (or isProse, which sees the foreign `</script>` tag between) keeps everything after `<pre>` as
 * the costume's text instead of handing it back to the documentation context (src/engine/doc-html.ts
 * already ends type 1 at a foreign closer: `<script>\n</style>\nX` runs).
 * Minimal input: "<pre>\na</script>\n" then a one-line Hermes call on its own line.
 * Expected: the call after the line holding the foreign closer runs (commonmark.js: text <
 * paragraph < document), as it does after `<script>\n</style>`; a call inside the block (before
 * that line) stays documentation.
 * Fixed: a never-closed `<pre>` is read again (costume-hold.ts unclosedRereadAt) when the first
 * line holding any type-1 closer (`</script>`, `</pre>`, `</style>`, `</textarea>`, any case; the
 * opener's own line too) ends before the call and the text from that line's end to the call is
 * prose (costume-prose.ts); the documentation context then ends the HTML block there, as it does
 * for the other type-1 openers. A call inside the block, or on the closer's own line, stays text.
 */
import { describe, expect, test } from "bun:test";
import { outcome } from "../support/outcome.ts";
import { verdict } from "./review-47-docs-grammar.ts";
import { CALLS, casesThatHold, casesThatRun, type Cases } from "./html-block-oracle.ts";

/** `<pre>` blocks ended by a foreign type-1 closer; commonmark.js shows X as a top-level paragraph. */
const MISSED: Cases = [
  ["`</script>` at the end of a code line", "<pre>\na</script>\nX\n"],
  ["`</script>` on its own line", "<pre>\na\n</script>\nX\n"],
  ["`</textarea>` right after the opener line", "<pre>\n</textarea>\nX\n"],
  ["`</style>`, then a blank line", "<pre>\n</style>\n\nX\n"],
  ["`</STYLE>` in upper case on the opener's line", "<pre>x</STYLE>\nX\n"],
  ["with an attribute, then a paragraph", '<pre class="a">\nb</script>\n\nPara.\n\nX\n'],
];

casesThatRun("review 56 finding: a <pre> block ended by </script>, </style> or </textarea> hides later calls (missed call)", MISSED);

/** The same shapes with another type-1 opener, or `<pre>` closed by its own closer: the call runs today. */
const RUNS: Cases = [
  ["`<script>` ended by `</style>`", "<script>\n</style>\nX\n"],
  ["`<textarea>` ended by `</pre>`", "<textarea>\n</pre>\nX\n"],
  ["`<style>` ended by `</script>`", "<style>\n</script>\nX\n"],
  ["`<script>` ended by `</pre>`", "<script>\na\n</pre>\nX\n"],
  ["`<pre>` ended by its own `</pre>`", "<pre>\n</pre>\nX\n"],
];
/** Inside the block (before the closing line), or after a closer CommonMark does not take: documentation. */
const HOLDS: Cases = [
  ["inside the `<pre>` before the foreign closer", "<pre>\nX\n</script>\n"],
  ["`</pre >` with a space is no closer", "<pre>\na\n</pre >\nX\n"],
  ["`</ style>` is no closer", "<style>\na\n</ style>\nX\n"],
  ["`</pre x>` is no closer", "<pre>\na\n</pre x>\nX\n"],
  ["`</script>` split over lines is no closer", "<script>\na\n</script\n>\nX\n"],
];

casesThatRun("review 56 hard negatives: type-1 HTML blocks and their closers", RUNS, "runs: ");
casesThatHold("review 56 hard negatives: type-1 HTML blocks and their closers", HOLDS);

/**
 * Fix 56 hard negatives: the re-read after a foreign closer only recovers a missed call. A call on
 * the closer's own line is the block's HTML; a closer CommonMark does not take (`</scripts>`, a
 * space inside) ends nothing; and code between the block's end and the call (a quote, `=`, `;`)
 * may be a costume's code still open there: refused as before (review 54's prose rule), never run.
 */
const STILL_HELD: [string, string, boolean][] = [
  ["the call on the foreign closer's own line", "<pre>\na</script>X\n", true],
  ["`</scripts>` is no type-1 closer", "<pre>\na</scripts>\n\nX\n", true],
  ["`</ script>` is no type-1 closer", "<pre>\na</ script>\n\nX\n", true],
  ["code after the foreign closer's line", '<pre>\na</script>\nx = "1";\nX\n', false],
  ["a backtick after the foreign closer's line", "<pre>\n</style>\n`a\n\nX\n", false],
];

describe("fix 56 hard negatives: a <pre> whose foreign closer does not free the call", () => {
  for (const [dialect, call] of Object.entries(CALLS)) {
    for (const [name, template, inHtml] of STILL_HELD) {
      const doc = template.replace("X", () => call);
      test(`never runs: ${name} (${dialect})`, () => {
        if (inHtml) expect(verdict(doc).where).toBe("html");
        const o = outcome(doc);
        expect(o.calls).toEqual([]);
        expect(o.text).toBe(doc);
      });
    }
  }
});
