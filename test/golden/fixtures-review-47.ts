/**
 * Review 47: Markdown documents nesting their containers oddly around a call (checked against
 * commonmark.js at every split), and a broken call whose invoke the grammar cannot read, replaced
 * whole in history. Spread into build-fixtures.ts's list.
 */
import type { Fixture } from "./build-fixtures.ts";
import { bad, none } from "./fixture-kit.ts";
import { block } from "./notation.ts";

export function review47(): Fixture[] {
  return [...documentsAroundACall(), ...valuesOutsideAReadableInvoke()];
}

const LS = block("tool_calls", [["bash", [["command", "ls -la"]]]]);
const HERMES = '<tool_call>{"name": "bash", "arguments": {"command": "ls -la"}}</tool_call>';

/** Where commonmark.js shows the call as code or raw HTML, it never runs (review 47's grammar found none that did; these pin the odd ones). */
function documentsAroundACall(): Fixture[] {
  return [
    none("N47.1", "fence-opened-by-a-list-marker-that-cannot-interrupt-a-paragraph", `para\n2. \`\`\`\n\`\`\`\n${LS}\n`),
    none("N47.2", "list-item-fence-then-an-unindented-fence-holding-the-call", `- \`\`\`\n  a\n\`\`\`\n${LS}\n`),
    none("N47.3", "code-span-over-lines-whose-backticks-an-indent-keeps-in-the-paragraph", `para\n    \`\`\`\n${HERMES}\n    \`\`\`\n`),
    none("N47.4", "style-block-whose-tag-name-ends-its-line", `<style\n${LS}\n</style>\n`),
    none("N47.5", "markup-name-line-inside-an-open-html-block", `<div>\n</invoke>\n${HERMES}\n`),
  ];
}

/** A Claude-style call with an NBSP in its invoke: its loose parameters are reported as one span, so history replaces the whole call. */
function valuesOutsideAReadableInvoke(): Fixture[] {
  return [
    bad("S46.4", "claude-write-with-an-nbsp-in-its-invoke-between-prose", "I'll write the page now.\n\n<function_calls>\n<invoke\u00A0name=\"write\">\n<parameter name=\"filePath\">calls.md</parameter>\n<parameter name=\"content\"># Calls</parameter>\n</invoke>\n</function_calls>\n\nDone.\n", "broken-markup", ["D08"]),
    none("S46.n1", "parameter-opener-and-closer-mentioned-mid-sentence", 'The tag <parameter name="content"> opens a value, and </parameter> closes it.\n'),
    none("S46.n2", "parameter-opener-in-inline-code", 'Pass the body with `<parameter name="content">` and close it with `</parameter>`.\n'),
  ];
}
