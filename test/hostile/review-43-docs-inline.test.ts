/**
 * Review 43 (hostile review of the documentation context): inline constructs commonmark.js reads
 * that the engine's inline reader (src/engine/doc-inline.ts) reads differently, so that a call
 * CommonMark shows as code, raw HTML or a link's title is read as prose and RUNS.
 *
 * Two roots, both in doc-inline.ts:
 * 1. An inline tag attempt that fails (`<a x=[…` that never reaches its `>`) has consumed the
 *    characters it read while it lasted; on the failing character the reader goes back to prose
 *    from there, never re-reading what the attempt swallowed. commonmark.js re-reads them: the
 *    `<` alone is literal, so a `[` (link text), `<!--` (comment), `<?` (processing instruction)
 *    or a nested tag inside the failed attempt's quoted or unquoted "value" is live markup.
 * 2. Autolinks (`<http://…>`, `<a@b.c>`) are not read at all ("Not covered" in PATTERNS.md says
 *    they are not documentation, which is fine), but their characters are then read as prose: a
 *    backtick or `]` inside an autolink shifts the code-span pairing or closes link text, so a
 *    later real code span or link title is read as prose.
 *
 * Every case first asks commonmark.js where the call's argument renders (the expectation is the
 * reference parser's), then runs the engine whole, char by char and at seeded random splits.
 * A control shows the same call outside the trap runs, so the tests can fail both ways.
 */
import { describe, expect, test } from "bun:test";
import { CALLS, callCounter, rendersAs, show } from "../support/commonmark-verdict.ts";

const callsIn = callCounter([43, 4301]);

/** [name, template (X: the call), where commonmark.js renders the call, a control template where it is text]. */
type Case = [string, string, string, string];

function run(cases: Case[]): void {
  for (const [name, template, where, control] of cases) {
    for (const [dialect, call] of Object.entries(CALLS)) {
      const doc = template.replace("X", () => call);
      const plain = control.replace("X", () => call);
      test(`${name} (${dialect})`, () => {
        expect(`${rendersAs(doc)}: ${show(doc)}`).toBe(`${where}: ${show(doc)}`);
        expect(`${rendersAs(plain)}: ${show(plain)}`).toBe(`text: ${show(plain)}`);
        expect(`${callsIn(plain)} calls: ${show(plain)}`).toBe(`1 calls: ${show(plain)}`); // control
        expect(`${callsIn(doc)} calls: ${show(doc)}`).toBe(`0 calls: ${show(doc)}`);
      });
    }
  }
}

// Severity: wrong execution (high in principle; the input shapes are unusual). CommonMark: the
// failed tag's `<` is literal text and everything after it is read again, so the `[`, `<!--`,
// `<?` or nested tag written inside the failed "attribute value" is live. Suspected:
// src/engine/doc-inline.ts step(): on FAIL (`this.tag !== Tag.None && this.tagNext(c) === FAIL`)
// only `c` itself is re-read; the characters the attempt consumed (tagStep) are never re-read
// as prose, and the only thing carried over is tagTick (a backtick -> span -1).
describe("a failed inline tag attempt hides markup commonmark.js reads again (wrong execution)", () => {
  run([
    // `<a x=[foo bar](/u 'X')`: the tag fails at `]`; commonmark.js: `[foo bar](/u 'X')` is a link whose title is X.
    ["link text opened inside a failed tag's unquoted value", "See <a x=[foo bar](/u 'X') here.\n", "title", "See <a x=foo bar>(/u 'b') X here.\n"],
    // `<a title="[foo" bar](…)`: the tag fails at `]` after a quoted value holding the `[`.
    ["link text opened inside a failed tag's double-quoted value", 'See <a title="[foo" bar](/u \'X\') here.\n', "title", "See <a title=\"foo\" bar>(/u 'b') X here.\n"],
    ["link text opened inside a failed tag's single-quoted value, parenthesised title", "See <a title='[foo' bar](/u (X)) here.\n", "title", "See <a title='foo' bar>(/u (b)) X here.\n"],
    // `<a t="<!--" ]`: the tag fails at `]`; commonmark.js: `<!--" ]⏎X⏎-->` is an inline HTML comment.
    ["an HTML comment opened inside a failed tag's value", 'See <a t="<!--" ]\nX\n-->\n', "html_inline", 'See <a t="--" ]\nX\n-->\n'],
    ["a processing instruction opened inside a failed tag's value", "See <a t='<?' ]\nX\n?>\n", "html_inline", "See <a t='?' ]\nX\n?>\n"],
    // `<a t="<b title='" ] X'>`: the outer tag fails at `]`; `<b title='" ] X'>` is a complete tag holding X in its attribute.
    ["a tag opened inside a failed tag's value", "See <a t=\"<b title='\" ] X'> here\n", "html_inline", "See <a t=\"b title='\" ] X'> here\n"],
  ]);
});

// Severity: wrong execution (medium: a URL or address holding a backtick or `]` is rare, but a
// code span or link after it in the same paragraph is an ordinary way to quote a call).
// CommonMark: an autolink (`<scheme:…>`, `<local@domain>`) binds tighter than code spans and link
// brackets; backticks and `]` inside it are the link's characters. Suspected:
// src/engine/doc-inline.ts: the tag reader fails at the scheme's `:` (or the `@`) and the rest of
// the autolink is read as prose, so its backtick opens (or closes) a code span and its `]` closes
// link text. Not the documented "autolinks are not covered" (that is about a call INSIDE an
// autolink, which cannot hold one); here the call is in a real code span or link title after it.
describe("an autolink's backtick or bracket shifts the code spans and links after it (wrong execution)", () => {
  run([
    ["a backtick in a URL autolink, then a code span", "See <http://x.y/a`b> and `X` here.\n", "code", "See <http://x.y/ab> and X here.\n"],
    ["a URL autolink ending in a backtick, then a code span", "See <http://x/`> `X` here.\n", "code", "See <http://x/> X here.\n"],
    ["an upper-case scheme", "See <HTTPS://x/`> `X` here.\n", "code", "See <HTTPS://x/> X here.\n"],
    ["a mailto autolink", "Use <mailto:`> then `X` here.\n", "code", "Use <mailto:> then X here.\n"],
    ["a backtick in an e-mail autolink", "Mail <a`b@c.d> `X`\n", "code", "Mail <ab@c.d> X\n"],
    // `[a <http://x/]>](/u 'X')`: link text `a <http://x/]>`, its title X.
    ["a `]` in an autolink inside link text", "[a <http://x/]>](/u 'X')\n", "title", "[a <http://x/>](/u 'b') X\n"],
    ["a `]` in an autolink inside link text, mid-sentence", "See [the docs <http://x.y/a]b>](/u 'X') here.\n", "title", "See [the docs <http://x.y/ab>](/u 'b') X here.\n"],
  ]);
});
