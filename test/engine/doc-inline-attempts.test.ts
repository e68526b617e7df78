/**
 * The inline tag and autolink attempts of the documentation context (src/engine/doc-tags.ts,
 * read beside the inline state of doc-inline.ts), case by case beside review 43's tests
 * (test/hostile/review-43-docs-inline.test.ts): each case first asks commonmark.js where the
 * call's argument renders, then runs the engine whole, char by char and at seeded random splits.
 * - documentation: attempts opened inside each other, a completed tag dropping what opened in it;
 * - hard negatives (the call is text for commonmark.js and must run): an autolink is no
 *   documentation and opaque (a `[` or backtick inside it opens nothing), an unfinished autolink
 *   is no documentation either, an e-mail autolink beats the comment its `<!--` would open, and a
 *   completed tag's value opens nothing after it.
 */
import { describe, expect, test } from "bun:test";
import { CALLS, callCounter, rendersAs, show } from "../support/commonmark-verdict.ts";

const callsIn = callCounter([43, 4302]);

/** [name, template (X: the call), where commonmark.js renders it, dialects]. */
type Case = [string, string, string, string[]];

function run(cases: Case[], calls: number): void {
  for (const [name, template, where, dialects] of cases) {
    for (const dialect of dialects) {
      const doc = template.replace("X", () => CALLS[dialect]!);
      test(`${name} (${dialect})`, () => {
        expect(`${rendersAs(doc)}: ${show(doc)}`).toBe(`${where}: ${show(doc)}`);
        expect(`${callsIn(doc)} calls: ${show(doc)}`).toBe(`${calls} calls: ${show(doc)}`);
      });
    }
  }
}

const ALL = Object.keys(CALLS);

describe("attempts inside each other: what commonmark.js shows as code, raw HTML or a title never runs", () => {
  run(
    [
      // `<a x="` fails at the `'` after its value; `<b t='` inside it at the `]`; the `[` in both opens link text with a title.
      ["a failed tag inside a failed tag's value, link text inside both", "See <a x=\"<b t='[c\" '](/u 'X') here.\n", "title", ALL],
      // The outer tag fails at `]`; the comment its value opened holds the call.
      ["a comment opened inside a failed tag's value, a tag inside the comment", 'See <a t="<!--" ] <b c="X"> -->\n', "html_inline", ALL],
      // The backtick in the failed tag's value opens a code span that holds the call.
      ["a code span opened inside a failed tag's value", 'See <a x="`" ] X ` here.\n', "code", ALL],
      // A completed tag's value holds a `](`: no link, and the link text after the tag has the title.
      ["a completed tag whose value holds a link, then a link", "See <a t=\"[x](/y)\"> and [z](/u 'X') here.\n", "title", ALL],
    ],
    0,
  );
});

describe("autolinks and completed tags open nothing: what commonmark.js shows as text runs", () => {
  run(
    [
      ["a `[` inside a URL autolink opens no link text", "See <http://x.y/[a> X\n", "text", ALL],
      ["a backtick inside an e-mail autolink opens no code span", "Mail <a`b@c.d> X\n", "text", ALL],
      // An autolink is no documentation: one that never ends (no `>`) leaves the call after it text.
      ["an unfinished URL autolink", "See <http://x.y/X\n", "text", ["mistral"]],
      ["an unfinished e-mail autolink", "See <ab|X\n", "text", ["mistral"]],
      // commonmark.js tries autolinks first: `<!--a@b.c>` is one, no comment left open.
      ["an e-mail autolink beats the comment its `<!--` would open", "See <!--a@b.c> X\n", "text", ALL],
      ["an e-mail autolink beats a processing instruction", "See <?a@b.c> X\n", "text", ALL],
      // A completed tag puts back the state before it: the `[` and backtick in its values open nothing.
      ["a completed tag holding a `[` and a backtick in its values", "See <span title=\"[docs\" data-x='`'> X\n", "text", ALL],
      ["a failed tag, then a completed one", "See <a x=y ! <b>y</b> X\n", "text", ALL],
    ],
    1,
  );
});

// commonmark.js matches white space in tags and HTML block starts with JavaScript's `\s`, which
// holds U+00A0 and the other Unicode spaces; the engine follows it (the safe side, doc-tag-reader.ts).
describe("a no-break space where a tag or an HTML block start takes white space: raw HTML, never run", () => {
  run(
    [
      ["an HTML block of type 6 whose tag name ends at a no-break space", '<div\u00A0class="x">\nX\n', "html_block", ["dsml", "hermes"]],
      ["an HTML block of type 1", "<script\u00A0x>\nX\n", "html_block", ["dsml", "hermes"]],
      ["an HTML block of type 7 with a no-break space after its tag", "<a b>\u00A0\nX\n", "html_block", ["dsml", "hermes"]],
      // The no-break space is the unquoted value's own character (`c\u00A0/d`), or white space before `/d`: a tag either way.
      ["a no-break space inside an unquoted value", "See <a b=c\u00A0/d title='X'> here.\n", "html_inline", ALL],
      ["an em space before an attribute", "See <a\u2003title='X'> here.\n", "html_inline", ALL],
    ],
    0,
  );
});
