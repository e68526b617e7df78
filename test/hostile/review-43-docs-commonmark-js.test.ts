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
import { Parser } from "commonmark";
import { fixtureTools } from "../golden/tools.ts";
import { D, escaped } from "../golden/notation.ts";
import { everyChar, randomCuts, runEngine } from "../support/run-engine.ts";

const TOKEN = "ZQXJ7";
const COMMAND = `echo ${TOKEN}`;
const CALLS: Record<string, string> = {
  dsml: `<${D}tool_calls><${D}invoke name="bash"><${D}parameter name="command" string="true">${COMMAND}</${D}parameter></${D}invoke></${D}tool_calls>`,
  hermes: `<tool_call>${JSON.stringify({ name: "bash", arguments: { command: COMMAND } })}</tool_call>`,
};
const NBSP = "\u00A0";

const markdown = new Parser();
function rendersAs(doc: string): string {
  const w = markdown.parse(doc).walker();
  for (let ev = w.next(); ev; ev = w.next()) {
    const n = ev.node;
    if (!ev.entering && n.isContainer) continue;
    if (n.literal?.includes(TOKEN)) return n.type;
  }
  return "unseen";
}
const show = (s: string) => JSON.stringify(escaped(s));

function callsIn(input: string): number {
  const whole = runEngine(input, [], fixtureTools);
  for (const cuts of [everyChar(input.length), randomCuts(input.length, 43), randomCuts(input.length, 4301, 5)]) {
    const split = runEngine(input, cuts, fixtureTools);
    expect(escaped(split.text)).toBe(escaped(whole.text));
    expect(split.calls.length).toBe(whole.calls.length);
  }
  return whole.calls.length;
}

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
