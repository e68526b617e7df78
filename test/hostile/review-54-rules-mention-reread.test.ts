/**
 * Review 54 (rules): the costume mention re-read (fix 53, src/parse/costume-hold.ts
 * unclosedRereadAt, src/parse/costume-quotes.ts; goldens N53.1, N53.2, N53.n1).
 *
 * FINDING 3 (wrong execution, medium). At the reply's end, a code costume opened inside a line and
 * never closed is taken for a mention, and a call standing past the first blank line after it runs,
 * unless a heredoc or a `'`/`"`/`'''`/`"""` string opened in the costume's code is still open there
 * (CostumeQuotes). That string reader misses the code's other multi-line constructs, and a call an
 * unclosed costume's code writes as data runs:
 * - a JavaScript template literal (a backtick string) over a blank line;
 * - shell command substitution, `$(` or a backtick, over a blank line;
 * - a Python `"""` docstring after an apostrophe in a comment (`# don't`): the apostrophe opens a
 *   `'` string for the reader, which then skips the `"""` and closes at the docstring's own
 *   apostrophe (`Here's`), so the reader is "closed" at the blank line and at the call while the
 *   docstring is open. costume-quotes.ts says it "errs toward refusing"; here it errs the other way;
 * - a shell `'C:\'` argument (no escape inside single quotes): the reader stays open past it, so
 *   the next `'`, which opens a multi-line `python -c '...'` argument, closes it instead;
 * - code written on the opener's own line (`Running it: <python>import os` then code lines): an
 *   opener that ends its line is a costume, never a mention (review 53a), but one followed by code
 *   on its line is read as a mention.
 * In each, the costume is never closed (a reply cut off mid-code, or a model that forgot the
 * closer). A regression of fix 53: at 740b2f3 all but the template literal were refused (the
 * whole rest held to the reply's end).
 * Minimal input: "Run it: <javascript>const s = `" LF "x" LF LF <Hermes call> LF "`;" LF.
 * Suspected source: src/parse/costume-quotes.ts (only `'` and `"` strings; no state for a comment)
 * and src/parse/costume-hold.ts unclosedRereadAt (the mention test: an opener inside a line, even
 * with code after it on that line).
 * Expected: a call inside an unclosed costume's open construct stays refused (broken-markup, text
 * kept), as before fix 53; an opener with code after it on its line is a costume, not a mention.
 * Fixed: the re-read reads no code (src/parse/costume-prose.ts, which replaces costume-quotes.ts;
 * costume-hold.ts unclosedRereadAt): a never-closed mid-line opener's rest is read again only when
 * the text from the opener to the first call's markup is prose (letters, digits, sentence
 * punctuation, costume tags, a heading's `#` run, closed backtick fences; no quote, apostrophe,
 * backtick, `$`, `#`, `//`, `/*`, bracket, `=`, `;`, `\`, `|`, `&`, `%`, `<` outside a costume
 * tag). Every costume case here holds one of those, so it is refused as before fix 53.
 * Known gap (not the re-read): `<javascript>` is no costume the package knows (COSTUME_OPENERS;
 * `<execute_javascript>` is), so "Run it: <javascript>const s = `..." is prose with a call standing
 * as its own paragraph, and that call ran before fix 53 too (the one case of six that did). Refusing
 * it would mean refusing every call after an unmatched backtick in prose; the same code in a real
 * costume is refused (the `<execute_javascript>` and `node -e` cases below).
 */
import { describe, expect, test } from "bun:test";
import { outcome } from "../support/outcome.ts";
import { parse } from "../../src/engine/parse.ts";
import { countWork } from "../support/work.ts";
import { fixtureTools } from "../golden/tools.ts";

const CALL = '<tool_call>{"name":"bash","arguments":{"command":"echo ZQ"}}</tool_call>';
const RAN = [{ tool: "bash", input: { command: "echo ZQ" } }];

/** Known gap (see above): no costume opens here, so the re-read is not what runs the call. */
const NOT_A_COSTUME = "Run it: <javascript>const s = `\nx\n\n" + CALL + "\n`;\n";

const INSIDE: [string, string][] = [
  ["a JavaScript template literal in <execute_javascript>", "Run it: <execute_javascript>const s = `\nx\n\n" + CALL + "\n`;\n"],
  ["a JavaScript template literal in a shell node -e argument", "Run it: <shell>node -e 'const s = `\nx\n\n" + CALL + "\n`'\n"],
  ["shell command substitution $( over a blank line", `Run: <shell>x=$(cat\n\n${CALL}\n)\n`],
  ["a shell backtick substitution over a blank line", "Run: <shell>x=`cat\n\n" + CALL + "\n`\n"],
  ["a Python docstring after an apostrophe in a comment", `Running it: <python>x = 1  # don't\ns = """\nHere's the example:\n\n${CALL}\n"""\n`],
  ["a shell multi-line single-quoted argument after 'C:\\'", `Run: <shell>echo 'C:\\'\npython -c '\nimport os\n\n${CALL}\n'\n`],
  ["code on the opener's own line, the call past a blank line in it", `Running it: <python>import os\nprint(1)\n\n${CALL}\n`],
];

describe("finding 3: the re-read runs a call an unclosed costume's code holds", () => {
  test.failing("a JavaScript template literal after <javascript> (no costume): the call does not run, the text stays", () => {
    const o = outcome(NOT_A_COSTUME);
    expect(o.calls).toEqual([]);
    expect(o.text).toBe(NOT_A_COSTUME);
  });
  for (const [name, input] of INSIDE) {
    test(`${name}: the call does not run, the text stays`, () => {
      const o = outcome(input);
      expect(o.calls).toEqual([]);
      expect(o.text).toBe(input);
    });
  }
});

describe("hard negatives: what the re-read must keep doing", () => {
  const RUNS: [string, string][] = [
    ["N53.1: a mention, a blank line, a call", `I will use the <python> tool.\n\n${CALL}\n`],
    ["a mention in a list item, the call in the item's next paragraph", `- I will use the <python> tool.\n\n  ${CALL}\n`],
    ["two mentions in one sentence", `Use <python> and <shell> here.\n\n${CALL}\n`],
    // An apostrophe after the opener counts as an open string (PATTERNS.md: refusing errs safe); before it, not.
    ["a mention with an apostrophe before the opener", `I'll use the <python> tool.\n\n${CALL}\n`],
    ["an inline <pre> at the end of its line, a blank line, a call", `Output: <pre>\n\n${CALL}\n`],
  ];
  for (const [name, input] of RUNS) {
    test(`runs: ${name}`, () => {
      expect(outcome(input).calls).toEqual(RAN);
    });
  }
  const HOLDS: [string, string][] = [
    ["a ''' string over the blank line", `Run it: <python>s = '''\nit's here\n\n${CALL}\n'''\n`],
    ['a """ docstring with no apostrophe before it', `Running it: <python>x = 1\ns = """\nThe example:\n\n${CALL}\n"""\n`],
    ["a <<-EOF heredoc", `Run: <shell>cat <<-EOF\n\techo\n\n${CALL}\n\tEOF\n`],
    ['a <<"EOF" heredoc', `Run: <shell>cat <<"EOF"\nx\n\n${CALL}\nEOF\n`],
    ["an opener ending its line (review 53a)", `Running it now: <python>\nimport os\n\n${CALL}\n`],
    ["N53.n1: the call on the mention's next line", `Use <shell> here.\n${CALL}\n`],
    ["a top-level <pre> never closed", `<pre>\nx\n\n${CALL}\n`],
  ];
  for (const [name, input] of HOLDS) {
    test(`holds: ${name}`, () => {
      const o = outcome(input);
      expect(o.calls).toEqual([]);
      expect(o.text).toBe(input);
    });
  }
});

/**
 * Fix 54: the prose rule (src/parse/costume-prose.ts). More multi-line constructs it refuses
 * without reading them, and the prose and Markdown structure it must keep running.
 */
describe("fix 54: the re-read runs only after prose", () => {
  const HELD: [string, string][] = [
    ["a JavaScript block comment", `Run it: <execute_javascript>x\n/*\n\n${CALL}\n*/\n`],
    ["a Ruby %q!...! string", `Run: <execute_ruby>puts %q!\n\n${CALL}\n!\n`],
    ["a Lua long bracket", `Run: <execute_lua>print [[\n\n${CALL}\n]]\n`],
    ["a Python call's parenthesis over the blank line", `Running it: <python>print(\n\n${CALL}\n)\n`],
    ["an HTML comment in prose", `Use <shell> here <!--\n\n${CALL}\n-->\n`],
    ["a heredoc opener <<EOF", `Run: <shell>cat <<EOF\n\n${CALL}\nEOF\n`],
    ["a quote in a later paragraph before the call", `Use <shell> here.\n\nprint("\n\n${CALL}\n")\n`],
    ["an apostrophe in a later paragraph before the call (as before: refusing errs safe)", `Use <shell> here.\n\nHere's the call:\n\n${CALL}\n`],
    ["an unclosed backtick fence before the call", `Use <shell> here.\n\n\`\`\`\n\n${CALL}\n`],
    ["a fence opened in the costume's code, its content code", `Use <shell> here.\n\n\`\`\`\nx = 1\n\`\`\`\n\n${CALL}\n`],
    // A word glued to the opener is code on its line, even when it reads as words.
    ["a word glued to the opener", `Running it: <python>import os\n\n${CALL}\n`],
    ["a word glued to a second opener", `Use <shell> and <python>import os\n\n${CALL}\n`],
  ];
  for (const [name, input] of HELD) {
    test(`holds: ${name}`, () => {
      const o = outcome(input);
      expect(o.calls).toEqual([]);
      expect(o.text).toBe(input);
    });
  }
  const RUNS: [string, string][] = [
    ["a mention, then prose paragraphs with sentence punctuation", `Use <shell> here, or not!\n\nFirst: this - and that/those, 3 of them?\n\n${CALL}\n`],
    ["a heading between the mention and the call", `Use <shell> here.\n\n## Next step\n\n${CALL}\n`],
    ["a closed fence of prose between", `Use <shell> here.\n\n\`\`\`text\nsome words\n\`\`\`\n\n${CALL}\n`],
    ["a list between", `Use <shell> here.\n\n- one\n- two\n\n${CALL}\n`],
    ["prose in another script and typographic quotes", `Use <shell> \u201Chere\u201D, bitte sch\u00F6n.\n\n${CALL}\n`],
    ["a mention with emphasis", `Use the *<shell>* tool, _carefully_.\n\n${CALL}\n`],
    ["a mention right before sentence punctuation", `Use <shell>, <python>: both.\n\n${CALL}\n`],
  ];
  for (const [name, input] of RUNS) {
    test(`runs: ${name}`, () => {
      expect(outcome(input).calls).toEqual(RAN);
    });
  }
  test("the later calls after the first are read again as any text: both run", () => {
    expect(outcome(`Use <shell> here.\n\n${CALL}\n\nThen again:\n\n${CALL}\n`).calls).toEqual([...RAN, ...RAN]);
  });
});

describe("fix 54: the prose check keeps the re-read linear", () => {
  const perChar = (text: string) => countWork(() => void parse(text, fixtureTools)) / text.length;
  for (const [name, unit] of [
    ["prose paragraphs before each call", `Use <shell> here.\n\n${"Some words, and more. ".repeat(20)}\n\n${CALL}\n\n`],
    ["code before each call (refused)", `Run: <shell>x=$(cat\n\n${"a b c ".repeat(20)}\n\n${CALL}\n)\n\n`],
  ] as const) {
    test(`${name}: work per character does not grow with their number`, () => {
      const small = perChar(unit.repeat(40));
      const large = perChar(unit.repeat(320));
      expect(large).toBeLessThan(small * 1.5 + 4);
    });
  }
});
