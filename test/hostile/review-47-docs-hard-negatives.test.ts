/**
 * Review 47: hand-made hard negatives for the documentation context, each checked against
 * commonmark.js first. Shapes a renderer decides by rules easy to get wrong, none of which the
 * engine gets wrong today (no finding; kept because each fails if a call ever runs there):
 * - fences and code spans decided by paragraph continuation: an ordered list not starting at 1
 *   cannot interrupt a paragraph, so `2. ```` is text and the next "```" opens a fence; an
 *   indented "    ```" after a paragraph continues it (a code span over lines, not indented
 *   code); a fence in a list item whose next line is not indented ends the item, and an
 *   unindented "```" there opens a new fence at the top level; a tilde fence whose info string
 *   holds a backtick; an escaped backslash before a backtick; an entity is no backtick;
 * - HTML blocks: type 1 start and end tags in any case, a tag name at the line's end (`<style`,
 *   `<div`, `</div`), types 1, 2 and 5 through blank lines, inline raw HTML over lines;
 * - type 7 lines that are one complete tag (odd attribute names, unquoted values, white space,
 *   `>` inside quoted values, up to 3 spaces of indentation): an HTML block, the call after it is
 *   HTML; and lines that are NOT one complete tag (`<a_b>`, `<1a>`, `<a b=c=d>`, `<a b='c'd='e'>`,
 *   a vertical tab, a form feed, an ideographic space ...): under a quote the next line is its
 *   lazy continuation, the call is quoted;
 * - a tool-call markup name alone on a line (`<invoke>`, `</shell>`, `<function>`, ...) inside an
 *   HTML block that is already open (types 1-7) ends nothing: the call after it is HTML;
 * - link reference definitions whose label, destination or title spans lines, under a quote or
 *   a list item with a lazy title line, and lone CR line ends;
 * - the call itself as a definition's label (`[X]: /u`, over lines, after another definition,
 *   followed by an underline) or as link text.
 * Every template runs with six calls of review-47-docs-grammar.ts (X), its `\n` written as
 * LF, CRLF and lone CR, whole, char by char and at two seeded random splits: no call, text
 * unchanged.
 */
import { describe, expect, test } from "bun:test";
import { escaped } from "../golden/notation.ts";
import { callCounter } from "../support/commonmark-verdict.ts";
import { CALL_LINES, DOCUMENTATION, verdict } from "./review-47-docs-grammar.ts";

const callsIn = callCounter([47, 4701]);
/** The calls the templates were chosen with (a bare `<invoke>` line opens its own HTML block: another verdict). */
const KINDS = ["dsml", "dsmlOneLine", "hermes", "hermesOneLine", "costume", "claude"];

/** [template (X: the call), where commonmark.js renders the call's argument]. */
const cases: [string, string][] = [
  ["para\n2. ```\n```\nX\n", "code"],
  ["para\n10) ```\n```\nX\n", "code"],
  ["para\n2. ~~~\n~~~\nX\n", "code"],
  ["para\n    ```\nX\n    ```\n", "code"],
  ["para\n\t`\nX\n\t`\n", "code"],
  ["- >\t  X\n", "quote"],
  ["~~~ a`b\nX\n~~~\n", "code"],
  ["<style\nX\n</style>\n", "html"],
  ["<script\ttype=x>\nX\n</script>\n", "html"],
  ["<SCRIPT>\nX\n</SCRIPT>\n", "html"],
  ["<div\nX\n", "html"],
  ["</div\nX\n", "html"],
  ["<details\nX\n", "html"],
  ["<!--\n\nX\n-->\n", "html"],
  ["<![CDATA[\n\nX\n]]>\n", "html"],
  ["<pre>\n\nX\n</pre>\n", "html"],
  ["<textarea>\n\nX\n</textarea>\n", "html"],
  ["[a]:\n/u\n'X'\n", "unseen"],
  ["[a\nb]: /u 'X'\n", "unseen"],
  ["> [a]: /u\n'X'\n", "unseen"],
  ["- [a]: /u\n'X'\n", "unseen"],
  ["\\\\`X`\n", "code"],
  ["`a&#96;X`\n", "code"],
  ["> - > ```\n> X\n", "quote"],
  ["- ```\n  a\n```\nX\n", "code"],
  ["> ```\n> a\n```\nX\n", "code"],
  ["1. ~~~\n   a\n ~~~\nX\n", "code"],
  ["- ```\n```\nX\n", "code"],
  ["<a title='\nX\n'>\n", "html"],
  ["> <a title='\n> X\n> '>\n", "html"],
  ["a <!--\nX\n-->\n", "html"],
  ["a <?\nX\n?>\n", "html"],
  ["a <![CDATA[\nX\n]]>\n", "html"],
  ["[\nX\n](/u)\n", "link"],
  ["![\nX\n](/u)\n", "link"],
  ["`\nX\n`\n", "code"],
  ["- `\n  X\n  `\n", "code"],
  ["- `a\nX\n`\n", "code"],
  ["> `a\nX\n`\n", "code"],
  ["- a\n\n  `b\n  X\n  `\n", "code"],
  ["a\\\n`\nX\n`\n", "code"],
  ["  - ```\n    a\n  ```\n  X\n", "code"],
  ["<a-b>\nX\n", "html"],
  ["<a b:c=d>\nX\n", "html"],
  ["<a _b>\nX\n", "html"],
  ["<A B=C>\nX\n", "html"],
  ["<a b = 'c' >\nX\n", "html"],
  ["<a b=c/>\nX\n", "html"],
  ["<a\tb\t=\tc>\nX\n", "html"],
  ["<a b='>'>\nX\n", "html"],
  ["<a b=\">\">\nX\n", "html"],
  ["<a b='c' >  \nX\n", "html"],
  ["</a >\nX\n", "html"],
  ["</a\t>\nX\n", "html"],
  ["<a b=c d e f>\nX\n", "html"],
  ["<a b='\"'>\nX\n", "html"],
  ["<a b=&amp;>\nX\n", "html"],
  ["<a b=\\>\nX\n", "html"],
  ["<a b='`'>\nX\n", "html"],
  ["<a b=\"`x`\">\nX\n", "html"],
  ["<a b='<!--'>\nX\n", "html"],
  ["<a b='-->'>\nX\n", "html"],
  ["<a b=.>\nX\n", "html"],
  ["<x1-2>\nX\n", "html"],
  ["<a :b>\nX\n", "html"],
  ["<a b.c>\nX\n", "html"],
  ["<a b-c=1>\nX\n", "html"],
  ["<a\tb/>\nX\n", "html"],
  ["<a b=\"\"/>\nX\n", "html"],
  ["<a b=''>\nX\n", "html"],
  [" <a>\nX\n", "html"],
  ["para\n\n <a>\nX\n", "html"],
  ["   <a>\nX\n", "html"],
  ["para\n\n   <a>\nX\n", "html"],
  ["> <a_b>\nX\n", "quote"],
  ["> para\n<a_b>\nX\n", "quote"],
  ["- > <a_b>\nX\n", "quote"],
  ["> <1a>\nX\n", "quote"],
  ["> para\n<1a>\nX\n", "quote"],
  ["> para\n<a -b>\nX\n", "quote"],
  ["> para\n<a b=`c`>\nX\n", "quote"],
  ["- > <a b=`c`>\nX\n", "quote"],
  ["> <a b=c=d>\nX\n", "quote"],
  ["> para\n<a b=c=d>\nX\n", "quote"],
  ["> para\n<a b=c<d>\nX\n", "quote"],
  ["> para\n<a b='c'd='e'>\nX\n", "quote"],
  ["- > <a b='c'd='e'>\nX\n", "quote"],
  ["> para\n<a b=c'd>\nX\n", "quote"],
  ["> para\n<a b='c'/ >\nX\n", "quote"],
  ["> para\n<a .b>\nX\n", "quote"],
  ["> para\n<a b='c>\nX\n", "quote"],
  ["> para\n<a b=\">\nX\n", "quote"],
  ["> para\n<a b=>\nX\n", "quote"],
  ["> <a/ >\nX\n", "quote"],
  ["> para\n<a/ >\nX\n", "quote"],
  ["> para\n</a b>\nX\n", "quote"],
  ["- > </a b>\nX\n", "quote"],
  ["> para\n</a/>\nX\n", "quote"],
  ["> para\n<a b=c\"d>\nX\n", "quote"],
  ["> para\n<a b c=>\nX\n", "quote"],
  ["> para\n<a\u00a0b>\nX\n", "quote"],
  ["> para\n<a b='x'\u00a0>\nX\n", "quote"],
  ["> para\n<a\u000bb>\nX\n", "quote"],
  ["> para\n<a\fb>\nX\n", "quote"],
  ["> para\n<a b=\u00a0c>\nX\n", "quote"],
  ["> para\n<a b=\u3000c>\nX\n", "quote"],
  [">\t- a\n>\n>\t    X\n", "quote"],
  ["-\n\n  ```\n  X\n", "code"],
  ["``` &#96;\nX\n```\n", "code"],
  ["> a\n===\nX\n", "quote"],
  ["> >\tX\n", "quote"],
  ["<script>\rX\r", "html"],
  ["a\r    ```\rX\r    ```\r", "code"],
  ["[a]: /u\r'X'\r", "unseen"],
  ["> [a]:\r/u\r'X'\r", "unseen"],
  ["<div>\n<invoke>\nX\n", "html"],
  ["<div>\n</invoke>\nX\n", "html"],
  ["<div>\n<function>\nX\n", "html"],
  ["<div>\n<shell>\nX\n", "html"],
  ["<div>\n</shell>\nX\n", "html"],
  ["<div>\n<parameter>\nX\n", "html"],
  ["<script>\n</invoke>\nX\n</script>\n", "html"],
  ["<!--\n<function>\nX\n-->\n", "html"],
  ["<?\n<function>\nX\n?>\n", "html"],
  ["<![CDATA[\n<name>\nX\n]]>\n", "html"],
  ["<pre>\n<invoke>\nX\n</pre>\n", "html"],
  ["<b>\n<invoke>\nX\n", "html"],
  ["<b>\n</name>\nX\n", "html"],
  ["<span>\n<language>\nX\n", "html"],
  ["<div>\n<invoke/>\nX\n", "html"],
  ["<div>\n<INVOKE>\nX\n", "html"],
  ["<custom-el>\n<invoke>\nX\n", "html"],
  ["<details>\n<shell>\nX\n", "html"],
  ["<details>\n<bash>\nX\n", "html"],
  ["<style>\n<sh>\nX\n</style>\n", "html"],
  ["<textarea>\n<python>\nX\n</textarea>\n", "html"],
  // The call as a link label: a definition nothing uses (shown nowhere), over lines too, and as link text.
  ["[X]: /u\n", "unseen"],
  ["[X]: /u 't'\n", "unseen"],
  ["[X]:\n/u\n", "unseen"],
  ["text\n\n[X]: /u\n", "unseen"],
  ["- [X]: /u\n", "unseen"],
  ["> [X]: /u\n", "unseen"],
  ["[X](/u)\n", "link"],
  ["![X](/u)\n", "link"],
  ["[a\nX]: /u\n", "unseen"],
  ["[X\nb]: /u\n", "unseen"],
  ["[X]: <>\n", "unseen"],
  ["[X]: /u\nmore\n", "unseen"],
  [" [X]: /u\n", "unseen"],
  ["[\\]X]: /u\n", "unseen"],
  ["[X]: /u\n[a]: /v\n", "unseen"],
  ["[a]: /v\n[X]: /u\n", "unseen"],
  ["[X]:/u\n", "unseen"],
  ["[X]: /u\n===\n", "unseen"],
];

describe("review 47 hard negatives: the call stays documentation where commonmark.js says so", () => {
  for (const [template, where] of cases) {
    test(`${JSON.stringify(escaped(template))} (${where})`, () => {
      for (const kind of KINDS) {
        const lines = CALL_LINES[kind]!;
        for (const eol of ["\n", "\r\n", "\r"]) {
          const doc = template.replace(/\n/g, eol).replace("X", () => lines.join(eol));
          const v = verdict(doc, kind);
          const context = `${kind}: ${JSON.stringify(escaped(doc))}`;
          expect(`${context} renders as ${DOCUMENTATION.has(v.where) ? "documentation" : v.where}`).toBe(`${context} renders as documentation`);
          expect(`${context} -> ${callsIn(doc)} calls`).toBe(`${context} -> 0 calls`);
        }
      }
    });
  }
});

/**
 * HTML blocks of type 6 interrupt a paragraph (type 7 cannot), with or without a complete tag,
 * in any case: every name commonmark.js knows (`search` included; `meta` and `source` are not
 * among them). A name missing from the engine's list would let the call after it continue the
 * paragraph and run.
 */
const BLOCK_NAMES = "address article aside base basefont blockquote body caption center col colgroup dd details dialog dir div dl dt fieldset figcaption figure footer form frame frameset h1 h2 h3 h4 h5 h6 head header hr html iframe legend li link main menu menuitem nav noframes ol optgroup option p param search section summary table tbody td tfoot th thead title tr track ul".split(" ");

describe("review 47 hard negatives: type 6 names interrupt a paragraph, the call after them is HTML", () => {
  for (const name of BLOCK_NAMES) {
    test(name, () => {
      for (const template of [`para\n<${name}\nX\n`, `para\n</${name.toUpperCase()}>\nX\n`, `> para\n> <${name}\tx\n> X\n`]) {
        for (const kind of ["dsmlOneLine", "hermesOneLine", "costume"]) {
          for (const eol of ["\n", "\r"]) {
            const doc = template.replace(/\n/g, eol).replace("X", () => CALL_LINES[kind]!.join(eol));
            const context = `${kind}: ${JSON.stringify(escaped(doc))}`;
            expect(`${context} renders as ${verdict(doc, kind).where}`).toBe(`${context} renders as html`);
            expect(`${context} -> ${callsIn(doc)} calls`).toBe(`${context} -> 0 calls`);
          }
        }
      }
    });
  }
});
