/**
 * Documentation context (src/engine/doc-context.ts, doc-inline.ts), case by case: issue 27 item
 * 2's hard negatives, the places a quoted example lives beyond code and quotes, and the controls
 * that show the same calls outside them still run. Every case runs whole, char by char and at
 * seeded random splits through the engine. The generated counterpart is
 * test/property/commonmark-oracle.test.ts.
 */
import { describe, expect, test } from "bun:test";
import { fixtureTools } from "../golden/tools.ts";
import { D, escaped } from "../golden/notation.ts";
import { everyChar, randomCuts, runEngine } from "../support/run-engine.ts";

const DSML = [`<${D}tool_calls>`, `<${D}invoke name="bash">`, `<${D}parameter name="command" string="true">ls -la</${D}parameter>`, `</${D}invoke>`, `</${D}tool_calls>`];
/** The DSML block with every line after the first behind `prefix` (and `eol` between lines). */
const dsml = (prefix = "", eol = "\n") => DSML.join(eol + prefix);
const oneLine = DSML.join("");
const hermes = '<tool_call>\n{"name": "bash", "arguments": {"command": "ls -la"}}\n</tool_call>';

/** Calls emitted whole, char by char and at random splits; the runs must agree. */
function callsIn(input: string): number {
  const whole = runEngine(input, [], fixtureTools);
  for (const cuts of [everyChar(input.length), randomCuts(input.length, 27), randomCuts(input.length, 2702, 5)]) {
    const split = runEngine(input, cuts, fixtureTools);
    expect(escaped(split.text)).toBe(escaped(whole.text));
    expect(split.calls.length).toBe(whole.calls.length);
  }
  if (whole.calls.length === 0) expect(escaped(whole.text)).toBe(escaped(input));
  return whole.calls.length;
}

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
