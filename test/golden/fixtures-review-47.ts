/**
 * Review 47: Markdown documents nesting their containers oddly around a call (checked against
 * commonmark.js at every split), and a broken call whose invoke the grammar cannot read, replaced
 * whole in history; runaway values refused (review 47b: kept nowhere), a
 * parameter outside every invoke, and arguments the schema gate refuses. Spread into build-fixtures.ts's list.
 */
import type { Fixture } from "./build-fixtures.ts";
import { bad, none, ok } from "./fixture-kit.ts";
import { block } from "./notation.ts";

export function review47(): Fixture[] {
  return [...documentsAroundACall(), ...valuesOutsideAReadableInvoke(), ...runawayAndStrayParameters(), ...strayParametersInAnOpenBlock(), ...argumentsTheGateRefuses()];
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

const P = (name: string, value: string) => `<{D}parameter name="${name}" string="true">${value}</{D}parameter>`;
const inBlock = (tool: string, body: string) => `<{D}tool_calls>\n<{D}invoke name="${tool}">\n${body}\n</{D}invoke>\n</{D}tool_calls>`;

/** A value whose closer was lost (the next parameter's opener came first) refuses the call wherever that opener stands (review 47b); a parameter outside every invoke refuses its block. */
function runawayAndStrayParameters(): Fixture[] {
  const scratch = `<{D}parameter name="workdir" string="true">/tmp/scratch`;
  const rest = `${P("command", "rm -rf ./*")}\n${P("description", "Clean")}`;
  return [
    bad("P47.1", "dsml-runaway-optional-refused-at-line-start", inBlock("bash", `${scratch}\n${rest}`), "broken-markup", ["P03"]),
    bad("P47.2", "dsml-runaway-opener-mid-line", inBlock("bash", `${scratch} ${rest}`), "broken-markup", ["P03"]),
    bad("P47.3", "claude-runaway-refused-at-line-start", '<function_calls>\n<invoke name="bash">\n<parameter name="workdir">/tmp/scratch\n<parameter name="command">rm -rf ./*</parameter>\n<parameter name="description">Clean</parameter>\n</invoke>\n</function_calls>', "broken-markup", ["P03"]),
    bad("P47.4", "dsml-stray-parameter-after-the-invoke-in-its-block", `<{D}tool_calls>\n<{D}invoke name="bash">\n${P("command", "rm -rf ./*")}\n</{D}invoke>\n${P("workdir", "/tmp/scratch")}\n</{D}tool_calls>`, "broken-markup", ["I02"]),
    bad("P47.5", "dsml-stray-parameter-before-the-invoke-in-its-block", `<{D}tool_calls>\n${P("workdir", "/tmp/scratch")}\n<{D}invoke name="bash">\n${P("command", "rm -rf ./*")}\n</{D}invoke>\n</{D}tool_calls>`, "broken-markup", ["I02"]),
    bad("P47.7", "stray-closer-after-a-runaway", inBlock("write", `<{D}parameter name="content" string="true">doc:\n<{D}parameter name="filePath" string="true">/etc/passwd</{D}parameter>\n</{D}parameter>`), "broken-markup", ["P03"]),
    bad("P47.8", "dsml-value-documents-an-unclosed-opener", inBlock("bash", `<{D}parameter name="command" string="true">cat > notes.md <<'EOF'\n<{D}parameter name="workdir" string="true">/\nEOF</{D}parameter>\n${P("description", "notes")}`), "broken-markup", ["P03"]),
    bad("P47.9", "claude-value-documents-an-unclosed-opener", '<function_calls>\n<invoke name="bash">\n<parameter name="command">cat > notes.md <<\'EOF\'\n<parameter name="workdir">/\nEOF</parameter>\n<parameter name="description">notes</parameter>\n</invoke>\n</function_calls>', "broken-markup", ["P03"]),
    bad("P47.10", "qwen3-coder-value-documents-an-unclosed-opener", "<tool_call>\n<function=bash>\n<parameter=command>\ncat > notes.md <<'EOF'\n<parameter=workdir>\n/\nEOF\n</parameter>\n<parameter=description>\nnotes\n</parameter>\n</function>\n</tool_call>", "broken-markup", ["O02"]),
    ok("P47.6", "garbled-closer-ends-the-last-value", inBlock("edit", `${P("filePath", "a.txt")}\n${P("oldString", "alpha")}\n<{D}parameter name="newString" string="true">beta{BAR}>{BAR}parameter>`), [
      { tool: "edit", input: { filePath: "a.txt", oldString: "alpha", newString: "beta" }, shape: "P02" },
    ]),
  ];
}

/** Keys no call may carry, and numbers that would reach the tool as another integer. */
function argumentsTheGateRefuses(): Fixture[] {
  return [
    bad("V47.1", "hermes-argument-named-constructor", '<tool_call>\n{"name": "bash", "arguments": {"command": "ls", "constructor": "rm -rf ~"}}\n</tool_call>', "broken-markup", ["O01"]),
    bad("V47.2", "dsml-parameter-named-prototype", inBlock("bash", `${P("command", "ls")}\n${P("prototype", "rm -rf ~")}`), "broken-markup", ["P04"]),
    bad("O47.1", "mistral-list-with-a-constructor-key", '[TOOL_CALLS][{"name":"list_sessions","arguments":{"constructor":{"verbose":true}}}]', "broken-markup", ["O06"]),
    bad("O47.2", "mistral-list-with-a-key-twice", '[TOOL_CALLS][{"name":"bash","arguments":{"command":"ls","command":"rm -rf ~"}}]', "broken-markup", ["O06"]),
    bad("V47.3", "hermes-integer-past-2-53-spelled-with-a-fraction", '<tool_call>\n{"name": "read", "arguments": {"filePath": "a.ts", "limit": 1234567890123456789.0}}\n</tool_call>', "invalid-arguments", ["O01"]),
    bad("V47.4", "hermes-number-whose-digits-round-to-another-integer", '<tool_call>\n{"name": "read", "arguments": {"filePath": "a.ts", "limit": 1.0000000000000001}}\n</tool_call>', "invalid-arguments", ["O01"]),
  ];
}

/** A block's calls wait for its closer: a parameter outside every invoke anywhere before it (after prose too) refuses them all. */
function strayParametersInAnOpenBlock(): Fixture[] {
  const invoke = (command: string) => `<{D}invoke name="bash">\n${P("command", command)}\n</{D}invoke>`;
  const stray = P("workdir", "/tmp/scratch");
  const open = (body: string) => `Cleaning.\n<{D}tool_calls>\n${body}\n</{D}tool_calls>`;
  return [
    bad("P47.11", "stray-parameter-after-prose-in-the-open-block", open(`${invoke("rm -rf ./*")}\nNote:\n${stray}`), "broken-markup", ["I02", "D08", "D08"]),
    bad("P47.12", "stray-parameter-after-an-nbsp-line-in-the-open-block", open(`${invoke("rm -rf ./*")}\n\u00A0\n${stray}`), "broken-markup", ["I02", "D08", "D08"]),
    bad("P47.13", "stray-parameter-then-prose-then-a-later-call", open(`${invoke("ls")}\n${stray}\nThen:\n${invoke("rm -rf ./*")}`), "broken-markup", ["I02", "I02"]),
    bad("P47.14", "two-calls-then-a-stray-parameter", open(`${invoke("ls")}\n${invoke("rm -rf ./*")}\n${stray}`), "broken-markup", ["I02", "I02"]),
    bad("P47.15", "qwen3-coder-stray-parameter-after-its-function", "<tool_call>\n<function=bash>\n<parameter=command>\nrm -rf ./*\n</parameter>\n</function>\n<parameter=workdir>\n/tmp/scratch\n</parameter>\n</tool_call>", "broken-markup", ["I02", "D08"]),
    bad("P47.16", "one-bar-stray-parameter-in-the-open-block", open(`${invoke("rm -rf ./*")}\n<{BAR}parameter name="workdir" string="true">/tmp/scratch</{BAR}parameter>`), "broken-markup", ["I02", "D08"]),
    bad("P47.n1", "parameter-after-the-block-closed-and-prose-leaves-the-call", `Cleaning.\n<{D}tool_calls>\n${invoke("rm -rf ./*")}\n</{D}tool_calls>\nNote:\n${stray}`, "broken-markup", ["D08"], "Cleaning.\n", [{ tool: "bash", input: { command: "rm -rf ./*" }, shape: "D02" }]),
    ok("P47.n2", "prose-between-two-calls-of-one-block", open(`${invoke("ls")}\nThen:\n${invoke("rm -rf ./*")}`), [
      { tool: "bash", input: { command: "ls" }, shape: "D02" },
      { tool: "bash", input: { command: "rm -rf ./*" }, shape: "B05" },
    ], "Cleaning.\nThen:\n"),
  ];
}
