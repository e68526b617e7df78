/**
 * Review 43: where commonmark.js (the reference implementation the oracle test trusts) and the
 * CommonMark 0.31 spec text disagree, and the engine follows the spec text so that a call
 * commonmark.js renders as raw HTML runs.
 *
 * commonmark.js builds its raw HTML patterns with JavaScript's `\s` (lib/common.js: ATTRIBUTE =
 * "(?:\\s+" + ATTRIBUTENAME + …), which also matches U+00A0 NO-BREAK SPACE (and the other Unicode
 * spaces). The spec's open tag allows only spaces, tabs and up to one line ending between a tag's
 * name and its attributes. So for commonmark.js `<a\u00A0title='…'>` is one inline tag (and a line
 * holding only `<a\u00A0b>` an HTML block of type 7), for the engine (src/engine/doc-inline.ts
 * tagNext: `ws` is SP, TAB, LF only) it is text, and a call in the attribute or on the next line
 * runs.
 *
 * Severity: wrong execution against commonmark.js, low (a no-break space inside a tag is rare,
 * and a renderer that follows the spec shows the call as text; debatable which renderer wins).
 * Trust first says the reading under which more text is documentation should be taken: the fix
 * would be to accept U+00A0 (and JavaScript's other `\s` characters) where commonmark.js does.
 */
import { describe, expect, test } from "bun:test";
import { callCounter, oneLineCalls, rendersAs as rendersIn, show } from "../support/commonmark-verdict.ts";

const { dsml, hermes } = oneLineCalls();
const CALLS = { dsml, hermes };
const NBSP = "\u00A0";

/** Where commonmark.js renders the call's argument (literals only: code, html_inline, html_block, text, …). */
const rendersAs = (doc: string) => rendersIn(doc, { links: false });
const callsIn = callCounter([43, 4301], { keepsText: false });

const cases: [string, string, string][] = [
  ["an inline tag with a no-break space before its attribute holds the call", `See <a${NBSP}title='X'> here.\n`, "html_inline"],
  ["a line holding one tag with a no-break space is an HTML block of type 7", `<a${NBSP}b>\nX\n`, "html_block"],
];

describe("a no-break space inside a tag: raw HTML for commonmark.js, text for the engine (wrong execution against commonmark.js)", () => {
  for (const [name, template, where] of cases) {
    for (const [dialect, call] of Object.entries(CALLS)) {
      test(`${name} (${dialect})`, () => {
        const doc = template.replace("X", () => call);
        // Control: with a plain space both agree it is raw HTML and nothing runs.
        const spaced = doc.replace(NBSP, " ");
        expect(`${rendersAs(spaced)}: ${show(spaced)}`).toBe(`${where}: ${show(spaced)}`);
        expect(callsIn(spaced)).toBe(0);
        expect(`${rendersAs(doc)}: ${show(doc)}`).toBe(`${where}: ${show(doc)}`);
        expect(`${callsIn(doc)} calls: ${show(doc)}`).toBe(`0 calls: ${show(doc)}`);
      });
    }
  }
});
