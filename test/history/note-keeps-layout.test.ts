/**
 * A note replaces only the markup (review 44, finding 1). An unclosed call the stream ended at the
 * next non-blank line reports a broken span that runs over the line break, blank lines and
 * indentation after the markup; history replaced all of it, so the line after the note was glued
 * to it: a fence line stopped being a fence line, an indented code block stopped being one, and
 * the characters between were lost. The white space after the markup now stays, exactly.
 */
import { describe, expect, test } from "bun:test";
import { parse } from "../../src/engine/parse.ts";
import { REMOVED_NOTE, redactLeaks, redactReply } from "../../src/history/sanitize.ts";
import { live } from "../golden/notation.ts";
import { fixtureTools } from "../golden/tools.ts";

const BROKEN = '<tool_call>{"name":"read","arguments":{"filePath":"/a"}';
const CALL = '<tool_call>{"name":"bash","arguments":{"command":"rm -rf x"}}</tool_call>';
/** An unclosed Mistral-style call (golden T29.10's shape). */
const BRACKET = '[TOOL_CALL]\n{tool => "bash", args => {\n  --command "ls -la"';

describe("the white space after a removed call stays as written", () => {
  const after: [string, string][] = [
    ["a fence", "\n```\nx\n```\n"],
    ["a blank line and an indented code block", "\n\n    code\n"],
    ["a CRLF line and a tilde fence", "\r\n~~~\nx\n~~~\r\n"],
    ["trailing blanks and a tab-indented line", "   \n\n\tcode\n"],
    ["a line of prose", "\nI will wait.\n"],
    ["a blank line and a list item", "\n\n- next\n"],
  ];
  for (const [name, rest] of after) {
    // The bracket's argument list may run on over the next line: only a blank line ends it.
    const shapes = /^[ \t]*\n[ \t]*\n/.test(rest) ? [["Hermes", BROKEN], ["bracket", BRACKET]] : [["Hermes", BROKEN]];
    for (const [shape, markup] of shapes) {
      test(`${shape}, then ${name}`, () => {
        const input = `Calling:\n${markup}${rest}`;
        const out = redactLeaks(input, {}, fixtureTools);
        expect(out.removed).toBe(1);
        expect(out.text).toBe(`Calling:\n${REMOVED_NOTE}${rest}`);
      });
    }
  }

  test("the fenced example after the note is still documentation: it stays, and never reads as a call", () => {
    const rest = `\n\`\`\`\n${CALL}\n\`\`\`\n`;
    const out = redactLeaks(`Calling:\n${BROKEN}${rest}`, {}, fixtureTools);
    expect(out.text).toBe(`Calling:\n${REMOVED_NOTE}${rest}`);
    expect(parse(out.text, fixtureTools).calls).toEqual([]);
  });

  test("the white space in the next text part stays in that part", () => {
    const out = redactReply([{ text: `Calling:\n${BROKEN}` }, { text: "\n\n    code\n" }], {}, fixtureTools);
    expect(out.texts).toEqual([`Calling:\n${REMOVED_NOTE}`, "\n\n    code\n"]);
  });

  test("two calls of one block stay two notes, the line between them kept", () => {
    const input = live(`<{D}tool_calls>\n<{D}invoke name="bash">\n<{D}parameter name="command" string="true">ls</{D}parameter>\n</{D}invoke>\n<{D}invoke name="read">\n<{D}parameter name="filePath" string="true">/a</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>\nDone.`);
    const out = redactLeaks(input, {}, fixtureTools);
    expect(out.text).toBe(`${REMOVED_NOTE}\n${REMOVED_NOTE}\nDone.`);
  });
});
