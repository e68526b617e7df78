/**
 * Review 57, rules (hostile, tests only): round 56's `<pre>` block ended by a foreign type-1 closer
 * (src/parse/costume-hold.ts typeOneCloserLineEnd, src/grammar/tags.ts HTML_TYPE1_NAMES). Hunted
 * for a call that runs while still inside documentation; none found: `<pre title="</script>">` (the
 * opener's line ends the block, commonmark.js agrees), the closer in a code span or an HTML comment
 * on a code line, CRLF and lone CR, in a blockquote (held) and a list item (a list item's paragraph
 * runs, as without `<pre>`), `</script >`, `</script\n>`, text glued after the closer, `<PRE>` ended
 * by `</TEXTAREA>` are all read as commonmark.js reads them (checked against it below).
 *
 * FINDING (missed call, the lowest severity; silent). What is wrong: a line that holds a type-1
 * closer and then another `<pre>` (`a</script>b<pre>`) ends the first block (commonmark.js: the
 * line holding the closer is the block's last; the `<pre>` on it is raw HTML inside it, opening
 * nothing), so a call on a later line is a top-level paragraph; the engine reads the second
 * `<pre>` as a line-ending costume opener that never closes and shows the call as text.
 * Minimal input: "<pre>\na</script>b<pre>\n" then a one-line Hermes call on its own line.
 * Suspected: src/parse/costume-hold.ts (the `<pre>` that ends a line inside an HTML block is taken
 * as a new block's opener; the documentation context never opened one there).
 * Expected: the call runs, as it does after "<pre>\na</script>\n".
 * Also seen, not pinned (the safe direction): "<pre>\n<code>\na</script>\nX\n</code></pre>", where
 * commonmark.js ends the block at `</script>` but a browser still shows X inside the `<pre>`: the
 * engine keeps X as documentation.
 */
import { CALLS, casesThatHold, casesThatRun, type Cases } from "./html-block-oracle.ts";
import { describe, expect, test } from "bun:test";
import { outcome } from "../support/outcome.ts";
import { verdict } from "./review-47-docs-grammar.ts";

const MISSED: Cases = [
  ["a foreign closer, then a `<pre>` ending the same line", "<pre>\na</script>b<pre>\nX\n"],
  ["`</style>` then `<pre>` on the opener's own line", "<pre>x</style><pre>\nX\n"],
];

describe("finding: a `<pre>` after the closer on the block's last line hides later calls (missed call)", () => {
  for (const [name, template] of MISSED) {
    for (const [dialect, call] of Object.entries(CALLS)) {
      const doc = template.replace("X", () => call);
      test.failing(`${name} (${dialect}): the call runs`, () => {
        expect(verdict(doc).path).toBe("text < paragraph < document");
        expect(outcome(doc).calls).toHaveLength(1);
      });
    }
  }
});

/** Hard negatives (pass on main): the shapes round 56 reads, checked against commonmark.js. */
casesThatRun("review 57 hard negatives: a <pre> block ended by a foreign closer lets a later call run", [
  ["the closer inside a code span", "<pre>\na `</script>`\nX\n"],
  ["the closer inside an HTML comment", "<pre>\na <!-- </style> -->\nX\n"],
  ["the closer in the opener's attribute", '<pre title="</script>">\na\nX\n'],
  ["CRLF lines", "<pre>\r\na</script>\r\nX\r\n"],
  ["a `<pre>` after a paragraph line", "para\n<pre>\na</script>\nX\n"],
]);
casesThatHold("review 57 hard negatives: inside the block, or no closer, the call stays documentation", [
  ["text glued after the closer is still the block's line", "<pre>\na</script>X\n"],
  ["`</script >` is no closer", "<pre>\na</script >\nX\n"],
  ["a second `<pre>` on a line of its own opens a new block", "<pre>\na\n</script>\n<pre>\nX\n"],
  ["upper case `<PRE>` ended by `</TEXTAREA>`: the call on the closer's line", "<PRE>\na</TEXTAREA>X\n"],
]);
