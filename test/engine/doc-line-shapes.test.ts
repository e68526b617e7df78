/**
 * Line shapes decided at a line's end (src/engine/doc-line-shapes.ts), around the two review 43
 * findings (test/hostile/review-43-docs-blocks.test.ts): where a blockquote line is or is not an
 * HTML block of type 7, and where an underline under reference definitions is or is not a setext
 * heading. Each case is checked against commonmark.js first (where the call renders), then run
 * through the engine whole, char by char and at random splits: a call inside the blockquote never
 * runs, a call CommonMark shows as text outside it runs.
 */
import { describe, expect, test } from "bun:test";
import { blockCalls, callCounter, holder as holding, show } from "../support/commonmark-verdict.ts";

const TOKEN = "QZX43";
const { dsml, hermes } = blockCalls(TOKEN);
const CALLS = { dsml, hermes };

/** The commonmark.js node holding the call's argument (null: unseen). */
const holder = (doc: string) => holding(doc, { token: TOKEN, links: false })?.node ?? null;
/** Whether commonmark.js renders the call's argument inside a blockquote, or "unseen". */
function quoted(doc: string): boolean | "unseen" {
  const n = holder(doc);
  if (!n) return "unseen";
  for (let p = n.parent; p; p = p.parent) if (p.type === "block_quote") return true;
  return false;
}

const callsIn = callCounter([4343, 434301]);

/** [name, template (X: the call), whether commonmark.js keeps the call inside the blockquote]. */
const typeSeven: [string, string, boolean][] = [
  // The first tag fails on a `<` that opens one of its own: paragraph text, continued lazily.
  ["`<a <b>`: a `<` after an attribute gap", "> <a <b>\nX\n", true],
  ["`</a <b>`: a closing tag failing on a `<`", "> </a <b>\nX\n", true],
  ["`<a b=<c>`: an unquoted value cannot start with `<`", "> <a b=<c>\nX\n", true],
  ["`<a><b>`: two complete tags", "> <a><b>\nX\n", true],
  // A `<` inside a quoted attribute value opens no tag: one complete tag, an HTML block of type 7.
  ['`<a title="<b>">`: a `<` inside a double-quoted value', '> <a title="<b>">\nX\n', false],
  ["`<a title='<b>'>` with trailing spaces", "> <a title='<b>'>  \nX\n", false],
];

const definitions: [string, string, boolean][] = [
  // Nothing is left of the paragraph once its definitions are removed: the underline is text.
  ["two definitions, then `===`", "> [a]: /x\n> [b]: /y\n> ===\nX\n", true],
  ["a definition whose destination is on its second line, then `==`", "> [a]:\n> /x\n> ==\nX\n", true],
  ["a definition whose title is on its second line, then `=`", "> [a]: /x\n> 'title'\n> =\nX\n", true],
  // Text is left: a setext heading, which no lazy line continues.
  ["a title that never closes: no definition, a heading", "> [a]: /x 'multi\n> ===\nX\n", false],
  ["text after a title on the next line: that line is text, a heading", '> [a]: /x\n> "t" z\n> ===\nX\n', false],
  ["a definition then text, then `---`", "> [a]: /x\n> text\n> ---\nX\n", false],
  // `---` is a thematic break even under definitions only.
  ["`---` under a definition is a thematic break", "> [a]: /x\n> ---\nX\n", false],
];

for (const [title, cases] of [
  ["HTML block of type 7 in a blockquote: the call after it", typeSeven],
  ["a setext underline under reference definitions in a blockquote: the call after it", definitions],
] as const) {
  describe(title, () => {
    for (const [name, template, inQuote] of cases) {
      for (const [dialect, call] of Object.entries(CALLS)) {
        test(`${name} (${dialect})`, () => {
          const doc = template.replace("X", () => call);
          expect(`${quoted(doc)}: ${show(doc)}`).toBe(`${inQuote}: ${show(doc)}`);
          expect(`${callsIn(doc)} calls: ${show(doc)}`).toBe(`${inQuote ? 0 : 1} calls: ${show(doc)}`);
        });
      }
    }
  });
}

describe("an underline under reference definitions at the top level continues the paragraph", () => {
  // The indented line after it is a paragraph continuation, not indented code: the call runs.
  test("`[a]: /x`, a title line, `===`, then an indented Hermes call", () => {
    const doc = `[a]: /x\n'title'\n===\n    ${CALLS.hermes!.split("\n").join("\n    ")}\n`;
    expect(holder(doc)?.type).toBe("text");
    expect(callsIn(doc)).toBe(1);
  });
  // Control: under a paragraph with text it is a heading, and the indented call after it is code.
  test("control: `[a]: /x`, text, `===`, then an indented Hermes call is code", () => {
    const doc = `[a]: /x\ntext\n===\n    ${CALLS.hermes!.split("\n").join("\n    ")}\n`;
    expect(holder(doc)?.type).toBe("code_block");
    expect(callsIn(doc)).toBe(0);
  });
});
