/**
 * Review 43 (hostile review of the documentation context): a line that only LOOKS like an HTML
 * block of type 7 ends a blockquote's lazy continuation, so a call CommonMark shows inside the
 * blockquote runs.
 *
 * CommonMark 0.31, HTML block type 7: the line (past its containers) is ONE complete open or
 * closing tag followed only by whitespace. `<Vec<u8>` is not: `<Vec` fails at the second `<`, and
 * only `<u8>` is a tag (inline raw HTML inside a paragraph). commonmark.js: `> <Vec<u8>` is a
 * blockquote paragraph, and the next unprefixed line is its lazy continuation, so a call written
 * there renders inside the blockquote (documentation; never runs).
 *
 * The engine reads `<Vec<u8>` as a type 7 line: src/engine/doc-line-shapes.ts noteTag() keeps
 * `Tag.Open` while `inline.inTag` stays true, and the failing `<` of the first attempt starts a
 * new tag at once (doc-inline.ts step() re-reads the failing `<`), so the first tag's failure is
 * never seen; when `<u8>` completes the line counts as one complete tag. An HTML block cannot be
 * continued lazily, so the blockquote closes before the next line and the call there runs.
 *
 * Severity: wrong execution (medium-high: generics such as `<Vec<u8>`, `<List<string>` or
 * `<T<U>` opening a quoted line are ordinary in quoted Rust, Java, C# or TypeScript docs, and a
 * model that quotes a page and then writes the quoted call on the next line without `>` is the
 * lazy-continuation case PATTERNS.md lists as documentation).
 * Expected: no call, text unchanged, whole, char by char and at random splits.
 */
import { describe, expect, test } from "bun:test";
import { BLOCK_CALLS as CALLS, callCounter, holder, show } from "../support/commonmark-verdict.ts";

/** Where commonmark.js renders the call's argument, with the blockquotes around it. */
function rendersAs(doc: string): string {
  const n = holder(doc, { links: false })?.node;
  if (!n) return "unseen";
  let where: string = n.type;
  for (let p = n.parent; p; p = p.parent) if (p.type === "block_quote") where += " in block_quote";
  return where;
}

const callsIn = callCounter([43, 4301]);

/** [name, template (X: the call), where commonmark.js renders it]. */
const cases: [string, string, string][] = [
  ["a quoted Rust generic `<Vec<u8>`", "> <Vec<u8>\nX\n", "text in block_quote"],
  ["a quoted C# `<List<string>` after other quoted lines", "> The signature:\n>\n> <List<string>\nX\n", "text in block_quote"],
  ["a failed tag then a complete tag (`<a x=[ <span>`)", "> <a x=[ <span>\nX\n", "text in block_quote"],
  ["a nested blockquote", "> > <T<U>\nX\n", "text in block_quote in block_quote"],
  ["a blockquote in a list item", "- > <T<U>\nX\n", "text in block_quote"],
];

describe("a line that is not one complete tag is no HTML block of type 7: the blockquote continues lazily (wrong execution)", () => {
  for (const [name, template, where] of cases) {
    for (const [dialect, call] of Object.entries(CALLS)) {
      test(`${name} (${dialect})`, () => {
        const doc = template.replace("X", () => call);
        expect(`${rendersAs(doc)}: ${show(doc)}`).toBe(`${where}: ${show(doc)}`);
        expect(`${callsIn(doc)} calls: ${show(doc)}`).toBe(`0 calls: ${show(doc)}`);
      });
    }
  }

  // Controls: a real type 7 line (`> <b>`) ends the blockquote for commonmark.js too, so the call
  // after it is text and runs; and with the `>` on the call's lines it stays quoted.
  for (const [dialect, call] of Object.entries(CALLS)) {
    test(`control: after a real type 7 line the call is text and runs (${dialect})`, () => {
      const doc = `> <b>\n${call}\n`;
      expect(`${rendersAs(doc)}: ${show(doc)}`).toBe(`text: ${show(doc)}`);
      expect(callsIn(doc)).toBe(1);
    });
  }
});

/**
 * A paragraph made only of link reference definitions is no paragraph a setext underline can
 * turn into a heading. commonmark.js (blocks.js, the setext branch: after removing the
 * definitions nothing is left, so no heading) keeps the underline (`=`, `===`, `-`, `--`) as the
 * text of a new paragraph, and the next line continues that paragraph: lazily, inside a
 * blockquote. The engine takes the underline as a setext heading (src/engine/doc-line-shapes.ts
 * `underline` / doc-blocks.ts), a heading cannot be continued lazily, the blockquote closes, and
 * the call on the next line runs.
 *
 * Severity: wrong execution (low-medium: a quoted definition list followed by an underline-like
 * line is unusual). Expected: no call, text unchanged.
 */
describe("an underline under a paragraph of reference definitions is text, not a setext heading (wrong execution)", () => {
  const underlines: [string, string][] = [
    ["`===`", "> [a]: /x\n> ===\nX\n"],
    ["`-`", "> [a]: /x\n> -\nX\n"],
    ["`--`", "> [a]: /x\n> --\nX\n"],
    ["`=` under a definition with a title", "> [fmt]: https://example.com 'The format'\n> =\nX\n"],
  ];
  for (const [name, template] of underlines) {
    for (const [dialect, call] of Object.entries(CALLS)) {
      test(`${name} (${dialect})`, () => {
        const doc = template.replace("X", () => call);
        expect(`${rendersAs(doc)}: ${show(doc)}`).toBe(`text in block_quote: ${show(doc)}`);
        expect(`${callsIn(doc)} calls: ${show(doc)}`).toBe(`0 calls: ${show(doc)}`);
      });
    }
  }

  // Control: under an ordinary quoted paragraph `===` is a setext heading for commonmark.js too,
  // the blockquote closes, and the call after it is text and runs.
  for (const [dialect, call] of Object.entries(CALLS)) {
    test(`control: under a quoted paragraph the underline is a heading and the call after it runs (${dialect})`, () => {
      const doc = `> a\n> ===\n${call}\n`;
      expect(`${rendersAs(doc)}: ${show(doc)}`).toBe(`text: ${show(doc)}`);
      expect(callsIn(doc)).toBe(1);
    });
  }

  // Severity: missed repair (low), the same misreading the other way: at the top level the
  // underline and the indented line after it are one paragraph for commonmark.js (the indented
  // line is a paragraph continuation, not indented code), so the call there is text and should
  // run; the engine takes a heading, then indented code, and leaves it as text.
  for (const dialect of ["hermes", "mistral"]) {
    test(`missed repair: an indented call after \`[a]: /x\` and \`===\` continues the paragraph (${dialect})`, () => {
      const doc = `[a]: /x\n===\n    ${CALLS[dialect]!.split("\n").join("\n    ")}\n`;
      expect(`${rendersAs(doc)}: ${show(doc)}`).toBe(`text: ${show(doc)}`);
      expect(`${callsIn(doc)} calls: ${show(doc)}`).toBe(`1 calls: ${show(doc)}`);
    });
  }
});
