/**
 * Documentation context (src/engine/doc-context.ts, doc-inline.ts), case by case: issue 27 item
 * 2's hard negatives, the places a quoted example lives beyond code and quotes, and the controls
 * that show the same calls outside them still run. Every case runs whole, char by char and at
 * seeded random splits through the engine. The generated counterpart is
 * test/property/commonmark-oracle.test.ts.
 */
import { describe, expect, test } from "bun:test";
import { D } from "../golden/notation.ts";
import { BLOCK_CALLS, CALLS, COMMAND, callCounter, rendersAs, show } from "../support/commonmark-verdict.ts";

const DSML = [`<${D}tool_calls>`, `<${D}invoke name="bash">`, `<${D}parameter name="command" string="true">ls -la</${D}parameter>`, `</${D}invoke>`, `</${D}tool_calls>`];
/** The DSML block with every line after the first behind `prefix` (and `eol` between lines). */
const dsml = (prefix = "", eol = "\n") => DSML.join(eol + prefix);
const oneLine = DSML.join("");
const hermes = '<tool_call>\n{"name": "bash", "arguments": {"command": "ls -la"}}\n</tool_call>';

/** Calls emitted whole, char by char and at random splits; the runs must agree. */
const callsIn = callCounter([27, 2702]);

const negatives: [string, string][] = [
  // Indented code wherever a paragraph cannot continue, not only after a blank line.
  ["indented code after an ATX heading", `# Example\n    ${dsml("    ")}\n`],
  ["indented code after a setext heading", `Example\n=======\n    ${dsml("    ")}\n`],
  ["indented code after a thematic break", `***\n    ${dsml("    ")}\n`],
  ["indented code after a closed fence", "```\nnpm test\n```\n    " + dsml("    ") + "\n"],
  ["indented code after a closed tilde fence in a list item", "- step\n  ~~~\n  x\n  ~~~\n      " + dsml("      ") + "\n"],
  ["indented code after an HTML comment block", `<!-- example -->\n    ${dsml("    ")}\n`],
  // List items that open with code: five or more columns after the marker.
  ["`-     X`: a list item opening with indented code", `-     ${dsml("      ")}\n`],
  ["`1.     X`: an ordered item opening with indented code", `1.     ${dsml("       ")}\n`],
  ["`-\\t\\tX`: tabs after the marker open indented code", `-\t\t${dsml("\t\t")}\n`],
  ["`>     X`: a blockquote opening with indented code", `>     ${dsml(">     ")}\n`],
  // A blockquote's lazy continuation lines are inside the blockquote.
  ["lazy continuation of a blockquote paragraph", `> The page says:\n${dsml()}\n`],
  ["lazy continuation of a nested blockquote in a list item", `- > > The page says:\n${dsml()}\n`],
  ["lazy continuation, one-line block", `> The page says:\n${oneLine}\n`],
  ["lazy continuation, Hermes", `> The page says:\n${hermes}\n`],
  ["lazy continuation after an indented line", `> The page says:\n    more of it\n${dsml()}\n`],
  // Lone CR line ends.
  ["lone CR: fenced", "```\r" + dsml("", "\r") + "\r```\r"],
  ["lone CR: indented code after a blank line", "Example:\r\r    " + dsml("    ", "\r") + "\r"],
  ["lone CR: indented code after a heading", "# Example\r    " + dsml("    ", "\r") + "\r"],
  ["lone CR: blockquote", "> " + dsml("> ", "\r") + "\r"],
  ["CRLF: indented code after a fence", "```\r\nx\r\n```\r\n    " + dsml("    ", "\r\n") + "\r\n"],
  // Raw HTML.
  ["an HTML block (type 6)", `<div>\n${dsml()}\n</div>\n`],
  ["an HTML block opened on the call's line", `<details><summary>Example</summary>${dsml()}\n</details>\n`],
  ["an HTML comment block", `<!--\n${dsml()}\n-->\n`],
  ["an HTML block of type 7", `<span class="example">\n${dsml()}\n`],
  ["a <pre> block", `<pre>\n${hermes}\n</pre>\n`],
  ["an inline HTML comment", `See <!-- ${oneLine} --> here.`],
  ["an attribute value", `<a title="${oneLine}">x</a>`],
  // The places a quoted example lives beyond code and quotes.
  ["inline <code>", `Write <code>${oneLine}</code> to call bash.`],
  ["inline <kbd>", `Type <kbd>${hermes}</kbd> and press enter.`],
  ["inline <pre>", `It looks like <pre>${dsml()}</pre> in the logs.`],
  ["inline <samp>", `The model printed <samp>${oneLine}</samp>.`],
  ["a table cell", `| format | example |\n| --- | --- |\n| DSML | ${oneLine} |\n`],
  ["a table row without pipes at its ends", `format | example\n--- | ---\nDSML | ${oneLine}\n`],
  ["link text", `See [${oneLine}](https://example.com) for details.`],
  ["image text", `![${oneLine}](shot.png)`],
  ["display math", `$$ ${oneLine} $$`],
  ["display math across lines", `$$\n${dsml()}\n$$\n`],
  // Escapes: an escaped backtick never pairs with a real one.
  ["a code span after an escaped backtick", "2) \\`\n`" + dsml() + "code` x\n"],
  // A backslash before the opener's `<` or `[`: the writer is showing the character, not writing markup.
  ["an escaped DSML opener", `The leak looked like \\${dsml()}\n`],
  ["an escaped DSML opener at a paragraph start", `\\${dsml()}\n`],
  ["an escaped Hermes opener", `Quoted: \\${hermes}`],
  ["an escaped Mistral opener", 'Quoted: \\[TOOL_CALLS]bash[ARGS]{"command": "ls -la"}'],
];

const positives: [string, string][] = [
  ["after a heading and a blank line", `# Example\n\n${dsml()}`],
  ["an unindented line after a heading", `# Example\n${dsml()}`],
  ["after a list closed by a blank line", `- one\n- two\n\n${dsml()}`],
  ["after a list item opening with code", `-     npm test\n\n${dsml()}`],
  ["after a blockquote closed by a blank line", `> quoted\n\n${dsml()}`],
  ["after an empty blockquote line", `>\n${dsml()}`],
  ["after a thematic break inside a blockquote", `> ***\n${dsml()}`],
  ["after an HTML block closed by a blank line", `<div>\nx\n</div>\n\n${dsml()}`],
  ["after an HTML comment closed on its line", `<!-- note -->\n${dsml()}`],
  ["after a table", `| a | b |\n| - | - |\n| 1 | 2 |\n\n${dsml()}`],
  ["after closed link text, math and inline code", `See [docs](https://x.y), $$x$$ and \`code\`: ${hermes}`],
  ["after a closed inline <code> element", `Run <code>ls</code> now:\n${dsml()}`],
  ["lone CR line ends", `Let me look.\r\r${dsml("", "\r")}`],
  ["in a list item's paragraph", `- first:\n  ${dsml("  ")}`],
  ["an escaped bracket does not open link text", `Note \\[1:\n${dsml()}`],
  ["an escaped backslash leaves the opener live", `Path C:\\\\${hermes}`],
  ["a backslash before a letter escapes nothing", `Ends in \\n\n${dsml()}`],
];

describe("documentation context: a quoted call never runs", () => {
  for (const [name, input] of negatives) test(name, () => expect(callsIn(input)).toBe(0));
});

describe("documentation context: the same calls outside documentation run", () => {
  for (const [name, input] of positives) test(name, () => expect(callsIn(input)).toBe(1));
});

// ------------------------------------------------------------------ link titles and reference definitions

/**
 * Review 4: a call inside a link's title (`[docs](/u 'TITLE')`, `[fmt]: /u 'TITLE'`) is the
 * link's title attribute for CommonMark, never visible text, so it never runs, in any dialect
 * and with any title delimiter the call does not itself hold. Each case first asks commonmark.js
 * where the call's argument renders, so the expectation is the reference parser's.
 */
const DIALECTS: Record<string, string> = {
  dsml: BLOCK_CALLS.dsml!,
  dsmlOneLine: CALLS.dsml!,
  hermes: BLOCK_CALLS.hermes!,
  hermesOneLine: CALLS.hermes!,
  costume: `<shell>${COMMAND}</shell>`,
  qwen: `<tool_call>\n<function=bash>\n<parameter=command>\n${COMMAND}\n</parameter>\n</function>\n</tool_call>`,
  glm: `<tool_call>bash\n<arg_key>command</arg_key>\n<arg_value>${COMMAND}</arg_value>\n</tool_call>`,
  kimi: `<|tool_calls_section_begin|><|tool_call_begin|>functions.bash:0<|tool_call_argument_begin|>{"command":"${COMMAND}"}<|tool_call_end|><|tool_calls_section_end|>`,
  mistral: CALLS.mistral!,
  lfm: `<|tool_call_start|>[bash(command="${COMMAND}")]<|tool_call_end|>`,
  claude: `<function_calls>\n<invoke name="bash">\n<parameter name="command">${COMMAND}</parameter>\n</invoke>\n</function_calls>`,
  minimax: `[TOOL_CALL]\n{tool => "bash", args => {\n  --command "${COMMAND}"\n}}\n[/TOOL_CALL]`,
};
/** Title delimiters, opener and closer. */
const TITLES: [string, string][] = [
  ["'", "'"],
  ['"', '"'],
  ["(", ")"],
];

/** `template` with X the call (its later lines behind `prefix`), Q and E the title's delimiters, and `eol` for every line end. */
function fill(template: string, call: string, [open, close]: [string, string], prefix = "", eol = "\n"): string {
  return template
    .replace("Q", open)
    .replace("E", close)
    .replace("X", () => call.split("\n").join(`\n${prefix}`))
    .replace(/\n/g, eol);
}

/**
 * [name, template, where commonmark.js renders the call, prefix of the call's later lines, line
 * end]. A costume (`<shell>`) is only a call at a line start, so cases with the call mid-line
 * leave it out.
 */
const inTitles: [string, string, string, string?, string?][] = [
  ["inline link, title over lines", "See [the docs](/u Q\nX\nE) for the format.\n", "title"],
  ["inline link, title opening on the call's line", "See [the docs](/u QX\nE) for the format.\n", "title"],
  ["inline link, title on the line after the destination", "See [the docs](/u\nQ\nX\nE) for the format.\n", "title"],
  ["inline link, destination on the line after the `(`", "See [the docs](\n/u Q\nX\nE\n) for the format.\n", "title"],
  ["inline link, destination with balanced parentheses", "See [the docs](/u(v)w Q\nX\nE) for the format.\n", "title"],
  ["image, title after a <…> destination", "![shot](<a b.png> Q\nX\nE)\n", "title"],
  ["inline link inside a list item", "- See [the docs](/u Q\n  X\n  E).\n", "title", "  "],
  ["inline link, CRLF line ends", "See [the docs](/u Q\nX\nE) for the format.\n", "title", "", "\r\n"],
  ["reference definition, title over lines", "[fmt]: /u Q\nX\nE\n\nSee [fmt].\n", "title"],
  ["reference definition, title on the next line", "[fmt]: /u\nQ\nX\nE\n\nSee [fmt].\n", "title"],
  ["reference definition, destination and title on later lines", "[fmt]:\n<a b>\nQ\nX\nE\n\nSee [fmt].\n", "title"],
  ["the second reference definition of a paragraph", "[a]: /x 'A'\n[fmt]: /u Q\nX\nE\n\nSee [a], [fmt].\n", "title"],
  ["reference definition in a list item", "- [fmt]: /u\n  Q\n  X\n  E\n\n[fmt]\n", "title", "  "],
  ["reference definition, lone CR line ends", "[fmt]: /u Q\nX\nE\n\nSee [fmt].\n", "title", "", "\r"],
  ["reference definition never used (shown nowhere)", "[fmt]: /u Q\nX\nE\n", "unseen"],
];

/** Hard negatives: look like a link's title or a definition, but CommonMark shows the call as text. */
const asText: [string, string][] = [
  ["a call on the line after a closed link", "See [the docs](/u 'the title') for the format.\nX\n"],
  ["a call on the line after a closed link with a parenthesised title", "See [the docs](/u (the title)).\nX\n"],
  ["`[text] (…)`: a space after the link text, no link", "See [the docs] (/u '\nX\n') for the format.\n"],
  ["a bare `(…)` after no link text", "See the docs (/u '\nX\n') for the format.\n"],
  ["escaped brackets are no link text", "See \\[the docs\\](/u '\nX\n') for the format.\n"],
  ["a tab before the title: no link for commonmark.js", "See [the docs](/u\t'\nX\n') for the format.\n"],
  ["`[label]:` in a paragraph's second line is no reference definition", "Intro:\n[fmt]: /u '\nX\n'\n"],
  ["text after a definition's destination: no definition", "[fmt]: /u x '\nX\n'\n"],
  ["the line after a complete reference definition", "[fmt]: /u 'the title'\nX\n"],
  ["the line after a reference definition without a title", "[fmt]: /u\nX\n"],
];

describe("documentation context: a call inside a link's title never runs (review 4)", () => {
  for (const [name, template, where, prefix = "", eol = "\n"] of inTitles) {
    for (const [dialect, call] of Object.entries(DIALECTS)) {
      if (dialect === "costume" && /[^\n]X/.test(template)) continue;
      test(`${name} (${dialect})`, () => {
        let cases = 0;
        for (const title of TITLES) {
          if (call.includes(title[0]) || call.includes(title[1])) continue;
          const doc = fill(template, call, title, prefix, eol);
          expect(`${rendersAs(doc)}: ${show(doc)}`).toBe(`${where}: ${show(doc)}`);
          expect(`${callsIn(doc)} calls: ${show(doc)}`).toBe(`0 calls: ${show(doc)}`);
          cases++;
        }
        expect(cases).toBeGreaterThan(0);
      });
    }
  }
});

describe("documentation context: calls CommonMark shows as text around links still run", () => {
  for (const [name, template] of asText) {
    for (const dialect of ["dsml", "hermes", "qwen", "claude"]) {
      test(`${name} (${dialect})`, () => {
        const doc = fill(template, DIALECTS[dialect]!, ["'", "'"]);
        expect(`${rendersAs(doc)}: ${show(doc)}`).toBe(`text: ${show(doc)}`);
        expect(`${callsIn(doc)} calls: ${show(doc)}`).toBe(`1 calls: ${show(doc)}`);
      });
    }
  }
});
