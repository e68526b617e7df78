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
 * Fixed: src/parse/costume-hold.ts unclosedRereadAt: a further `<pre>` on or before the line
 * holding the type-1 closer that ends the first `<pre>`'s block is that block's raw HTML (it
 * starts no block and holds no code), so it is not the call markup the re-read rule asks about;
 * the first other call markup is, and past the block's last line the prose rule applies as before.
 * The documentation context already read the block's end as CommonMark does.
 * Also seen, not pinned (the safe direction): "<pre>\n<code>\na</script>\nX\n</code></pre>", where
 * commonmark.js ends the block at `</script>` but a browser still shows X inside the `<pre>`: the
 * engine keeps X as documentation.
 */
import { CALLS, RAN, casesThatHold, casesThatRun, type Cases } from "./html-block-oracle.ts";
import { describe, expect, test } from "bun:test";
import { Parser } from "commonmark";
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
      test(`${name} (${dialect}): the call runs`, () => {
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
  // `</Textarea>`, not `</TEXTAREA>`: the template's first X is the call's place.
  ["upper case `<PRE>` ended by `</Textarea>`: the call on the closer's line", "<PRE>\na</Textarea>X\n"],
]);

casesThatRun("review 57, added with the fix (further shapes of the finding, and neighbours that ran before): a `<pre>` inside the ended block's lines opens nothing", [
  ["a `<pre>` before the closer on the same line", "<pre>\nb<pre>a</script>\nX\n"],
  ["a `<pre>` on a line of its own inside the block, after code", "<pre>\nfoo(x)\n<pre>\n</script>\nX\n"],
  ["`<PRE>` ended by `</Textarea>`, then `<Pre>`", "<PRE>\na</Textarea>b<Pre>\nX\n"],
  ["in a list item", "- <pre>\n  a</script>b<pre>\nX\n"],
  ["in a blockquote", "> <pre>\n> a</script>b<pre>\nX\n"],
  ["CRLF lines", "<pre>\r\na</script>b<pre>\r\nX\r\n"],
  ["a blank line before the call", "<pre>\na</script>b<pre>\n\nX\n"],
]);
casesThatHold("review 57 hard negatives (added with the fix): what CommonMark holds stays documentation", [
  ["a `<code>` line after the trailing `<pre>` opens a type-7 block", "<pre>\na</script>b<pre>\n<code>\nX\n"],
  ["a second `<pre>` opening a line after the block opens a new one", "<pre>\nx</style>\n<pre>\nX\n"],
]);

describe("review 57 hard negatives (added with the fix): call markup other than `<pre>` inside the block keeps the prose rule", () => {
  // CommonMark shows X as a paragraph in each, but a costume's code (or a call the model quoted
  // after code) may still be open there: the re-read reads no code, so nothing runs (a missed
  // call at worst), as before the fix.
  for (const [name, template] of [
    ["a `<python>` after the closer on its line, code lines after it", "<pre>\na</script> <python>\nimport os\nX\n"],
    ["a `<python>` costume inside the block after code, its code crossing the closer", "<pre>\nfoo(x)\n<python>\nprint('</script>')\nX\n"],
    ["code after the trailing `<pre>`", "<pre>\na</script>b<pre>\nfoo(x)\nX\n"],
  ] as const) {
    for (const [dialect, call] of Object.entries(CALLS)) {
      test(`${name} (${dialect}): no call, text unchanged`, () => {
        const doc = template.replace("X", () => call);
        expect(verdict(doc).path).toBe("text < paragraph < document");
        const o = outcome(doc);
        expect(o.calls).toEqual([]);
        expect(o.text).toBe(doc);
      });
    }
  }
});

/**
 * Added with the fix: commonmark.js as the oracle over a grid of `<pre>` blocks ended by a type-1
 * closer on the opener's line or a later one, with further `<pre>` tags before, after and between
 * closers, then a call on its own line. Where commonmark.js reads the call's line as an HTML
 * block (documentation) it never runs and the text is
 * unchanged; where the call's line right after the HTML block's last line starts a paragraph, it
 * runs. (A call after more lines between, which must read as prose: review 54's rule, not pinned;
 * nor a paragraph's continuation line.)
 */
describe("review 57, added with the fix: a `<pre>` block and the call after it, against commonmark.js", () => {
  const parser = new Parser();
  /** The top-level block holding `line` (1-based): its type, its first line, and the previous block's last line. */
  const blockAt = (doc: string, line: number) => {
    let previousEnd = 0;
    let previousType = "";
    for (let node = parser.parse(doc).firstChild; node; node = node.next) {
      const [[start], [end]] = node.sourcepos;
      if (start <= line && line <= end) return { type: node.type, start, previousEnd, previousType };
      previousEnd = end;
      previousType = node.type;
    }
    return { type: "none", start: -1, previousEnd, previousType };
  };
  const FIRST = ["<pre>", "<PRE>", "<pre>x</style>", "<pre>x</style><pre>", "<pre>x</pre><pre>"];
  const SECOND = ["a</script>b<pre>", "b<pre>a</script>", "a</textarea><pre>", "a</script>", "<pre>", "a", "a</script><pre><pre>", "a</script>b<pre> c", "a <pre></script><pre>"];
  const THIRD = [null, "<pre>", "c</pre>", "c</style>", "d<pre>"];
  for (const first of FIRST) {
    for (const second of SECOND) {
      for (const third of THIRD) {
        const lines = third === null ? [first, second] : [first, second, third];
        const template = [...lines, "X", ""].join("\n");
        test(JSON.stringify(template), () => {
          for (const call of Object.values(CALLS)) {
            const doc = template.replace("X", () => call);
            const at = blockAt(doc, lines.length + 1);
            const o = outcome(doc);
            // A paragraph's continuation line is the engine's to judge (a call after a prose line runs, after an inline `<pre>` it is documentation).
            if (at.type !== "paragraph") {
              expect(o.calls).toEqual([]);
              expect(o.text).toBe(doc);
            } else if (at.previousType === "html_block" && at.previousEnd === lines.length) {
              expect(o.calls).toEqual(RAN);
            }
          }
        });
      }
    }
  }
});
