/**
 * Differential test of what the documentation context reads after a `<` in paragraph text
 * (src/engine/doc-tag-attempt.ts) against the patterns commonmark.js 0.31.2 matches there, tried in its
 * order (inlines.js parseAutolink: reEmailAutolink, then reAutolink; then parseHtmlTag:
 * common.js reHtmlTag). The patterns are copied verbatim (the package exports none of them).
 * Generated strings after a `<` mix the characters that decide a tag, a comment, a processing
 * instruction, a declaration, CDATA or an autolink; the reader must end exactly where the
 * reference parser's match ends (a comment's or other body's end found by its end search), and
 * fail or stay undecided where there is none.
 */
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { Outcome, matchStep } from "../../src/engine/doc-tag-attempt.ts";
import { InlineTags } from "../../src/engine/doc-tags.ts";

const SEED = Number(process.env.TAGS_ORACLE_SEED ?? 43_0001);
const RUNS = Number(process.env.TAGS_ORACLE_RUNS ?? 20_000);

// commonmark.js 0.31.2, lib/common.js and lib/inlines.js.
const TAGNAME = "[A-Za-z][A-Za-z0-9-]*";
const ATTRIBUTENAME = "[a-zA-Z_:][a-zA-Z0-9:._-]*";
const UNQUOTEDVALUE = "[^\"'=<>`\\x00-\\x20]+";
const ATTRIBUTEVALUE = `(?:${UNQUOTEDVALUE}|'[^']*'|"[^"]*")`;
const ATTRIBUTEVALUESPEC = `(?:\\s*=\\s*${ATTRIBUTEVALUE})`;
const ATTRIBUTE = `(?:\\s+${ATTRIBUTENAME}${ATTRIBUTEVALUESPEC}?)`;
const OPENTAG = `<${TAGNAME}${ATTRIBUTE}*\\s*/?>`;
const CLOSETAG = `</${TAGNAME}\\s*[>]`;
const HTMLCOMMENT = "<!-->|<!--->|<!--[\\s\\S]*?-->";
const PROCESSINGINSTRUCTION = "[<][?][\\s\\S]*?[?][>]";
const DECLARATION = "<![A-Za-z]+[^>]*>";
const CDATA = "<!\\[CDATA\\[[\\s\\S]*?\\]\\]>";
const reHtmlTag = new RegExp(`^(?:${OPENTAG}|${CLOSETAG}|${HTMLCOMMENT}|${PROCESSINGINSTRUCTION}|${DECLARATION}|${CDATA})`);
const reEmailAutolink = /^<([a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*)>/;
const reAutolink = /^<[A-Za-z][A-Za-z0-9.+-]{1,31}:[^<>\x00-\x20]*>/i;

/** The reference parser's reading of `s` (which starts with `<`): what it matches and how long it is. */
function reference(s: string): string {
  const auto = reEmailAutolink.exec(s) ?? reAutolink.exec(s);
  if (auto) return `autolink ${auto[0].length}`;
  const html = reHtmlTag.exec(s);
  return html ? `html ${html[0].length}` : "none";
}

/** The engine's reading of `s`: one attempt opened at its `<`, fed the rest a character at a time. */
function engine(s: string): string {
  const tags = new InlineTags();
  tags.open(1, 0, "", false, false);
  for (let i = 1; i < s.length; i++) {
    const c = s.charCodeAt(i);
    tags.dropFailed(c);
    if (!tags.pending) return "none";
    const attempt = tags.step(c);
    if (!attempt) continue;
    if (tags.outcome === Outcome.Autolink) return `autolink ${i + 1}`;
    if (tags.outcome === Outcome.Tag) return `html ${i + 1}`;
    // A comment, processing instruction, declaration or CDATA: its end, as the inline context looks for it.
    let pos = attempt.bodyPos;
    for (let j = i + 1; pos < attempt.body.length; j++) {
      if (j >= s.length) return "none";
      pos = matchStep(attempt.body, pos, s.charCodeAt(j));
      if (pos === attempt.body.length) return `html ${j + 1}`;
    }
    return `html ${i + 1}`;
  }
  return "none";
}

/**
 * JavaScript's `\s` past space, tab and line feed, which commonmark.js's patterns match as white
 * space and the engine follows (doc-tag-reader.ts; CR never reaches it: it is a line end).
 */
const UNICODE_SPACES = ["\u00A0", "\u2003", "\u3000", "\uFEFF", "\u2028", "\v", "\f"];

/** How the text after the `<` starts, its pieces and how it ends: each reading, and the characters that end or break it. */
const STARTS = ["", "a", "A-1", "/a", "/b ", "!--", "!-", "?", "!D", "![CDATA[", "http:", "HTTPS:", "mailto:", "a+b.c:", "a@b", "a`b@c.d", "x.y@z-1", "!x@", "?x@y"];
const PIECES = ["a", "B", "z9", "-", "_", ":", ".", "+", "@", "!", "?", "/", "=", '"', "'", "`", "<", ">", " ", "\t", "\n", "[", "]", "--", "]]", "x=", " x=", ' x="y"', " x='<'", " x=y", "x.y", "#", "%"];
const ENDS = ["", ">", "/>", "-->", "?>", "]]>", " >"];

const after = (pieces: string[]) =>
  fc
    .tuple(fc.constantFrom(...STARTS), fc.array(fc.constantFrom(...pieces), { maxLength: 8 }), fc.constantFrom(...ENDS))
    .map(([start, ps, end]) => `<${start}${ps.join("")}${end}`);

describe("what follows a `<` agrees with commonmark.js", () => {
  test(`tags, comments, processing instructions, declarations, CDATA and autolinks end where the reference parser's match ends (${RUNS} strings)`, () => {
    const seen: Record<string, number> = {};
    fc.assert(
      fc.property(after(PIECES), (s) => {
        const want = reference(s);
        const kind = want.split(" ")[0]!;
        seen[kind] = (seen[kind] ?? 0) + 1;
        expect(`${JSON.stringify(s)} -> ${engine(s)}`).toBe(`${JSON.stringify(s)} -> ${want}`);
      }),
      { seed: SEED, numRuns: RUNS },
    );
    // Every reading was drawn often enough to mean something.
    console.log(`inline tags oracle: ${JSON.stringify(seen)}`);
    expect(seen.autolink ?? 0).toBeGreaterThan(RUNS / 50);
    expect(seen.html ?? 0).toBeGreaterThan(RUNS / 10);
  });

  test(`with a no-break space and JavaScript's other white space (${RUNS / 4} strings)`, () => {
    const seen: Record<string, number> = {};
    fc.assert(
      fc.property(after([...PIECES, ...UNICODE_SPACES, ...UNICODE_SPACES.map((u) => ` x=y${u}`), ...UNICODE_SPACES.map((u) => `=${u}`)]), (s) => {
        const want = reference(s);
        const kind = want.split(" ")[0]!;
        seen[kind] = (seen[kind] ?? 0) + 1;
        expect(`${JSON.stringify(s)} -> ${engine(s)}`).toBe(`${JSON.stringify(s)} -> ${want}`);
      }),
      { seed: SEED + 1, numRuns: RUNS / 4 },
    );
    expect(seen.html ?? 0).toBeGreaterThan(RUNS / 40);
  });

  test("hand-picked edges", () => {
    for (const s of [
      "<a>",
      "<a/>",
      "<a b='c' d=\"e\" f=g h>",
      "<a b=>",
      "<!---->",
      "<!-->",
      "<!--->",
      "<?>",
      "<??>",
      "<!DOCTYPE html>",
      "<![CDATA[x]]>",
      "<http://a.b/`c>",
      "<HTTPS://x/`>",
      "<mailto:`>",
      "<a`b@c.d>",
      "<!--a@b.c>",
      "<?x@y.z>",
      "<!x@y.z>",
      "<!x@y.z<b>",
      `<a@${"b".repeat(63)}>`,
      `<a@${"b".repeat(64)}>`,
      "<a@b->",
      "<a@b-c.d>",
      `<${"a".repeat(32)}:x>`,
      `<${"a".repeat(33)}:x>`,
      "<a:x>",
      "</a >",
      "</a\n>",
      "<a\u00A0title='x'>",
      "<a b=\u00A0>",
      "<a b=c\u00A0/d>",
      "<a b=c\u00A0d=e>",
      "<a b=c\u00A0=e>",
      "</a\u00A0>",
      "<a\u00A0>",
      "<\u00A0a>",
    ]) {
      expect(`${JSON.stringify(s)} -> ${engine(s)}`).toBe(`${JSON.stringify(s)} -> ${reference(s)}`);
    }
  });
});
