/**
 * Issue 29 items 5 and 6: tool-named elements (the Cline/Roo convention, with or without the DSML
 * sentinel) and another agent's tool names for the declared tools. Each recovered shape has hard
 * negatives beside it: the same markup in a fence, inline code, a blockquote, an indented code
 * block and prose; HTML with undeclared element names; an alias whose parameters do not map.
 * Written in escaped notation; build-fixtures.ts turns them live.
 */
import type { Fixture, FixtureCall } from "./build-fixtures.ts";
import { live } from "./notation.ts";
import { ok, bad, none } from "./fixture-kit.ts";

const fence = "```";

/** Item 5: `<{D}tool>` with `<{D}param>` (or plain) children, and the plain `<tool><param>` form. */
export function toolNamedElements(): Fixture[] {
  const dsmlBash = `<{D}bash>\n<{D}command>ls 2&gt;/dev/null</{D}parameter>\n<timeout>600</timeout>\n</{D}invoke>`;
  const plainRead = "<read>\n<filePath>src/a.ts</filePath>\n<limit>20</limit>\n</read>";
  const readCall: FixtureCall = { tool: "read", input: { filePath: "src/a.ts", limit: 20 }, shape: "O09" };
  return [
    ok("E29.1", "dsml-tool-named-closed-by-invoke", `Running it.\n${dsmlBash}`, [{ tool: "bash", input: { command: "ls 2>/dev/null", timeout: 600 }, shape: "I11" }], "Running it.\n"),
    ok("E29.2", "dsml-tool-named-own-closer-in-block", "<{D}tool_calls>\n<{D}edit>\n<{D}filePath>src/a.ts</{D}filePath>\n<{D}oldString>a</{D}oldString>\n<{D}newString>b &amp;&amp; c</{D}newString>\n</{D}edit>\n</{D}tool_calls>", [
      { tool: "edit", input: { filePath: "src/a.ts", oldString: "a", newString: "b && c" }, shape: "I11" },
    ]),
    ok("E29.3", "dsml-tool-named-two-in-block", "<{D}tool_calls>\n<{D}bash>\n<{D}command>ls</{D}parameter>\n</{D}invoke>\n<{D}read>\n<{D}filePath>/a</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>", [
      { tool: "bash", input: { command: "ls" }, shape: "I11" }, { tool: "read", input: { filePath: "/a" }, shape: "I11" },
    ]),
    bad("E29.4", "dsml-tool-named-child-not-a-parameter", "<{D}read>\n<{D}path>src/a.ts</{D}parameter>\n</{D}invoke>", "broken-markup", ["I11"]),
    bad("E29.5", "dsml-tool-named-text-between-children", "<{D}read>\n<{D}filePath>src/a.ts</{D}parameter>\nand then the limit\n</{D}invoke>", "broken-markup", ["I11"]),
    ok("E29.6", "plain-tool-named-after-prose-line", `Reading it.\n${plainRead}`, [readCall], "Reading it.\n"),
    ok("E29.7", "plain-bash-costume-with-children", "<bash>\n<command>ls 2&gt;/dev/null</command>\n<timeout>600</timeout>\n</bash>", [
      { tool: "bash", input: { command: "ls 2>/dev/null", timeout: 600 }, shape: "O09" },
    ]),
    ok("E29.8", "plain-tool-named-html-in-value", "<write>\n<filePath>a.html</filePath>\n<content><p>hi</p></content>\n</write>", [
      { tool: "write", input: { filePath: "a.html", content: "<p>hi</p>" }, shape: "O09" },
    ]),
    bad("E29.9", "plain-tool-named-child-not-a-parameter", "<read>\n<filePath>src/a.ts</filePath>\n<path>b</path>\n</read>", "broken-markup", ["O09"]),
    bad("E29.10", "plain-bash-costume-with-unknown-children", "<bash>\n<cmd>ls</cmd>\n</bash>", "broken-markup", ["O09"]),
    bad("E29.11", "dsml-tool-named-child-value-in-attribute", '<{D}bash>\n<{D}command>ls</{D}command>\n<{D}timeout value="5"/>\n</{D}bash>', "broken-markup", ["I11"]),
    ok("E29.12", "dsml-tool-named-child-type-hint", '<{D}read>\n<{D}filePath string="true">/a</{D}filePath>\n<{D}limit string="false">5</{D}limit>\n</{D}read>', [
      { tool: "read", input: { filePath: "/a", limit: 5 }, shape: "I11" },
    ]),
    // hard negatives: documentation, prose, HTML, unfinished or foreign bodies
    none("E29.n1", "plain-in-fence", `${fence}xml\n${plainRead}\n${fence}`),
    none("E29.n2", "plain-in-inline-code", "Write `<read><filePath>a</filePath></read>` to read a file."),
    none("E29.n3", "plain-in-blockquote", "> <read>\n> <filePath>a</filePath>\n> </read>"),
    none("E29.n4", "plain-in-indented-code", `Example:\n\n    ${plainRead.split("\n").join("\n    ")}\n`),
    none("E29.n5", "plain-mid-line-in-prose", "The model wrote <read><filePath>a</filePath></read> instead of calling the tool."),
    none("E29.n6", "html-undeclared-elements", "<table>\n<tr><td>1</td></tr>\n</table>"),
    none("E29.n7", "declared-name-holding-html", "<read>\n<div>a</div>\n</read>"),
    none("E29.n8", "declared-name-holding-prose", "<read>the whole file</read>"),
    none("E29.n9", "plain-never-closed", "<read>\n<filePath>a</filePath>\n"),
    none("E29.n10", "plain-with-attribute", '<read mode="x">\n<filePath>a</filePath>\n</read>'),
    none("E29.n11", "dsml-tool-named-in-fence", `${fence}\n${dsmlBash}\n${fence}`),
    none("E29.n12", "dsml-tool-named-in-inline-code", "Models sometimes write `<{D}bash><{D}command>ls</{D}parameter></{D}invoke>` by mistake."),
    none("E29.n13", "plain-element-without-children", "<read></read>"),
    bad("E29.n15", "dsml-tool-named-opener-with-attribute-is-no-element", '<{D}bash timeout="5">\n<{D}command>ls</{D}command>\n</{D}bash>', "broken-markup", ["D08", "D08", "D08", "D08"]),
    none("E29.n14", "plain-followed-by-prose-on-its-line", "<read><filePath>a</filePath></read> is how Cline reads a file."),
  ];
}

/** Item 6: execute_command, read_file, write_to_file... mapped onto the declared tool, or a nudge. */
export function toolAliases(): Fixture[] {
  const invoke = (tool: string, params: [string, string][]) =>
    `<{D}tool_calls>\n<{D}invoke name="${tool}">\n${params.map(([k, v]) => `<{D}parameter name="${k}" string="true">${v}</{D}parameter>`).join("\n")}\n</{D}invoke>\n</{D}tool_calls>`;
  const executeCommand = "<execute_command>\n<command>npm test</command>\n</execute_command>";
  return [
    ok("A29.1", "dsml-invoke-execute-command", invoke("execute_command", [["command", "npm test"]]), [{ tool: "bash", input: { command: "npm test" }, shape: "A01" }]),
    // Review 42: the same call when the request declared an execute_command that policy took out: that tool or nothing.
    { ...bad("A42.1", "alias-name-declared-but-denied-no-call", invoke("execute_command", [["command", "npm test"]]), "undeclared-tool", ["B06"]), reservedNames: ["execute_command"] },
    ok("A29.2", "hermes-read-file", '<tool_call>\n{"name": "read_file", "arguments": {"path": "src/a.ts"}}\n</tool_call>', [{ tool: "read", input: { filePath: "src/a.ts" }, shape: "A01" }]),
    ok("A29.3", "plain-write-to-file", "<write_to_file>\n<path>a.txt</path>\n<content>x &lt; y</content>\n</write_to_file>", [{ tool: "write", input: { filePath: "a.txt", content: "x < y" }, shape: "A01" }]),
    ok("A29.4", "plain-execute-command", executeCommand, [{ tool: "bash", input: { command: "npm test" }, shape: "A01" }]),
    ok("A29.5", "dsml-tool-named-read-file", "<{D}read_file>\n<{D}path>src/a.ts</{D}path>\n</{D}read_file>", [{ tool: "read", input: { filePath: "src/a.ts" }, shape: "A01" }]),
    ok("A29.6", "claude-code-bash-with-timeout", invoke("Bash", [["command", "ls"], ["timeout", "600"]]), [{ tool: "bash", input: { command: "ls", timeout: 600 }, shape: "A01" }]),
    bad("A29.7", "execute-command-requires-approval-does-not-map", "<execute_command>\n<command>npm test</command>\n<requires_approval>false</requires_approval>\n</execute_command>", "undeclared-tool", ["A01"]),
    bad("A29.8", "replace-in-file-diff-does-not-map", "<{D}replace_in_file>\n<{D}path>src/a.ts</{D}parameter>\n<{D}diff>------- SEARCH\na\n=======\nb\n+++++++ REPLACE</{D}diff>\n<timeout>600</timeout>\n</{D}replace_in_file>", "undeclared-tool", ["A01"]),
    bad("A29.9", "list-files-has-no-pattern", invoke("list_files", [["path", "src"]]), "undeclared-tool", ["A01"]),
    bad("A29.10", "alias-value-does-not-fit", invoke("Bash", [["command", "ls"], ["timeout", "soon"]]), "invalid-arguments", ["A01"]),
    bad("A29.11", "alias-unknown-parameter", invoke("read_file", [["path", "a"], ["encoding", "utf8"]]), "undeclared-tool", ["A01"]),
    { ...bad("A29.12", "alias-target-not-declared", invoke("execute_command", [["command", "ls"]]), "undeclared-tool", ["B06"]), tools: ["read"] },
    none("A29.n1", "alias-in-fence", `${fence}xml\n${executeCommand}\n${fence}`),
    none("A29.n2", "alias-in-prose", "Cline would send <execute_command><command>npm test</command></execute_command> here."),
    none("A29.n3", "alias-in-blockquote", `> ${executeCommand.split("\n").join("\n> ")}`),
  ];
}
