/**
 * Review 43: the non-DSML dialect readers. Each fixture is a call that ran with a value the model
 * never wrote (or a spelling a dialect's own reader reads otherwise), beside the form that runs.
 * Spread into build-fixtures.ts's list.
 */
import type { Fixture } from "./build-fixtures.ts";
import { ok, bad, none, ls } from "./fixture-kit.ts";
import { block } from "./notation.ts";

const lfm2 = (body: string) => `<|tool_call_start|>${body}<|tool_call_end|>`;
const arrow = (tool: string, pairs: string) => `[TOOL_CALL] {tool => "${tool}", args => { ${pairs} }} [/TOOL_CALL]`;
const todoA = "{'content': 'a', 'status': 'pending'}";

export function review43(): Fixture[] {
  return [...pythonLiterals(), ...minimaxKeys(), ...namedWrappers(), ...dsmlWalk(), ...documentationBlocks(), ...qwenValues(), ...inlineAttempts(), ...elementLines(), ...review44Dialects(), ...overflow()];
}

/** Python reads `(x)` as x: only a comma makes a tuple. `True` keeps its spelling where only a string fits. */
function pythonLiterals(): Fixture[] {
  return [
    bad("V43.1", "lfm2-parenthesised-dict-is-no-list", lfm2(`[todowrite(todos=(${todoA}))]`), "invalid-arguments", ["O08"]),
    ok("V43.2", "lfm2-one-item-tuple-is-a-list", lfm2(`[todowrite(todos=(${todoA},))]`), [{ tool: "todowrite", input: { todos: [{ content: "a", status: "pending" }] }, shape: "O08" }]),
    bad("V43.3", "qwen3-coder-parenthesised-value-for-a-list", `<tool_call>\n<function=todowrite>\n<parameter=todos>\n(${todoA})\n</parameter>\n</function>\n</tool_call>`, "invalid-arguments", ["O02"]),
    ok("V43.4", "lfm2-python-true-for-a-string", lfm2("[edit(filePath='flags.py', oldString=True, newString=False)]"), [
      { tool: "edit", input: { filePath: "flags.py", oldString: "True", newString: "False" }, shape: "O08" },
    ]),
    ok("V43.5", "lfm2-trailing-commas-and-u-prefix", lfm2("[bash(command=u'ls -la',),]"), [ls("O08")]),
  ];
}

/** MiniMax's bracket pairs: a key with no value never takes the next key; `=` right after a key separates. */
function minimaxKeys(): Fixture[] {
  return [
    bad("A43.1", "minimax-bracket-key-without-a-value", arrow("edit", '--filePath "a.ts" --oldString "foo" --newString --replaceAll'), "broken-markup", ["O05"]),
    bad("A43.2", "minimax-bracket-command-without-a-value", arrow("bash", "--command --timeout"), "broken-markup", ["O05"]),
    ok("A43.3", "minimax-bracket-equals-after-the-key", arrow("write", '--filePath="a.ts" --content="line\\n"'), [{ tool: "write", input: { filePath: "a.ts", content: "line\n" }, shape: "O05" }]),
    ok("A43.4", "minimax-bracket-equals-then-a-bare-word", arrow("bash", "--command=ls"), [ls("O05", "ls")]),
    bad("A43.5", "minimax-bracket-perl-arrow-after-a-key", arrow("bash", '--command => "ls"'), "broken-markup", ["O05"]),
    ok("A43.6", "minimax-bracket-single-quoted-values", arrow("write", "--filePath 'a.ts' --content 'x'"), [{ tool: "write", input: { filePath: "a.ts", content: "x" }, shape: "O05" }]),
    bad("A43.7", "minimax-bracket-single-quoted-backslash", arrow("write", "--filePath 'a.ts' --content 'line\\n'"), "broken-markup", ["O05"]),
    bad("A43.8", "minimax-bracket-backtick-value", arrow("bash", "--command `ls`"), "broken-markup", ["O05"]),
  ];
}

/** A named opener wrapping another tool's call, and tool-named elements whose parameter children cannot be read. */
function namedWrappers(): Fixture[] {
  return [
    bad("R43.1", "tool-call-name-attribute-wrapping-another-tools-call", `<tool_call name="list_sessions">{"name": "bash", "arguments": {"command": "rm -rf ~"}}</tool_call>`, "broken-markup", ["T01"]),
    bad("R43.2", "bash-element-child-with-an-attribute", "<bash>\n<command timeout=\"5\">ls</command>\n</bash>", "broken-markup", ["O09"]),
    bad("R43.3", "bash-element-text-after-its-children", "<bash>\n<command>ls</command>\nstray\n</bash>", "broken-markup", ["O09"]),
    bad("R43.4", "shell-costume-holding-an-unreadable-parameter-element", "<shell>\n<command timeout=\"5\">ls</command>\n</shell>", "broken-markup", ["C04"]),
    ok("R43.n1", "bash-element-with-an-id-label", "<bash id=\"1\">\n<command>ls -la</command>\n</bash>", [ls("O09")]),
    ok("R43.n2", "bash-heredoc-writing-parameter-xml", "<bash>\ncat > x.xml <<'EOF'\n<command>ls</command>\nEOF\n</bash>", [ls("C04", "cat > x.xml <<'EOF'\n<command>ls</command>\nEOF")]),
  ];
}

/** Found while splitting the DSML walk: a self-closing parameter opens no value; a parameterless bare invoke needs its wrapper. */
function dsmlWalk(): Fixture[] {
  return [
    ok("P43.1", "self-closing-parameter-then-a-plain-one", `<{D}tool_calls>\n<{D}invoke name="bash">\n<{D}parameter name="command" value="ls -la"/>\n<parameter name="timeout" value="600"/>\n</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`, [
      { tool: "bash", input: { command: "ls -la", timeout: 600 }, shape: "P12" },
    ]),
    none("N43.1", "bare-invoke-with-a-json-body-in-prose", 'Example: <invoke name="bash">{"command": "rm -rf build"}</invoke> and so on.'),
    none("N43.2", "bare-empty-invoke", '<invoke name="list_sessions">\n</invoke>'),
    ok("O43.1", "claude-xml-invoke-with-a-json-body", '<function_calls>\n<invoke name="bash">{"command": "ls -la"}</invoke>\n</function_calls>', [ls("O07")]),
  ];
}

/** Block structure as CommonMark reads it: a failed first tag is no HTML line; definitions alone take no underline. */
function documentationBlocks(): Fixture[] {
  const dsml = block("tool_calls", [["bash", [["command", "ls -la"]]]]);
  const hermesIndented = '    <tool_call>\n    {"name": "bash", "arguments": {"command": "ls -la"}}\n    </tool_call>\n';
  return [
    none("N43.3", "quoted-generic-then-a-lazy-call", `> <Vec<u8>\n${dsml}`),
    none("N43.4", "quoted-definition-underline-then-a-lazy-call", `> [a]: /x\n> ===\n${dsml}`),
    ok("N43.n1", "quoted-html-line-then-a-call", `> <b>\n${dsml}`, [ls("D02")], "> <b>\n"),
    ok("N43.n2", "definition-underline-then-an-indented-call", `[a]: /x\n===\n${hermesIndented}`, [ls("O01")], "[a]: /x\n===\n    "),
  ];
}

/** Qwen3-Coder and GLM values: a parameter opener inside a value is its text; P09's newline rule. */
function qwenValues(): Fixture[] {
  const qwen = (fn: string, params: string) => `<tool_call>\n<function=${fn}>\n${params}\n</function>\n</tool_call>`;
  const write = (filePath: string, content: string) => ({ tool: "write", input: { filePath, content }, shape: "O02" as const });
  return [
    bad("G43.1", "qwen3-coder-parameter-opener-mid-value-never-closed", qwen("write", "<parameter=filePath>notes.md</parameter>\n<parameter=content>Use <parameter=x>b to set it.\n</parameter>"), "broken-markup", ["O02"]),
    ok("G43.2", "qwen3-coder-parameter-pair-inside-a-value", qwen("write", "<parameter=filePath>notes.md</parameter>\n<parameter=content>Set it with <parameter=x>b</parameter> in the call.\n</parameter>"), [
      write("notes.md", "Set it with <parameter=x>b</parameter> in the call.\n"),
    ]),
    bad("G43.3", "qwen3-coder-command-cut-by-a-parameter-opener", qwen("bash", "<parameter=command>echo <parameter=description>x\n</parameter>"), "broken-markup", ["O02"]),
    ok("G43.4", "qwen3-coder-trailing-newline-is-content", qwen("write", "<parameter=filePath>a.txt</parameter>\n<parameter=content>x\n</parameter>"), [write("a.txt", "x\n")]),
    ok("G43.5", "qwen3-coder-leading-newline-is-content", qwen("write", "<parameter=filePath>a.md</parameter>\n<parameter=content>\nx</parameter>"), [write("a.md", "\nx")]),
    ok("G43.6", "glm-trailing-newline-is-content", "<tool_call>write\n<arg_key>filePath</arg_key>\n<arg_value>a.txt</arg_value>\n<arg_key>content</arg_key>\n<arg_value>x\n</arg_value>\n</tool_call>", [
      { tool: "write", input: { filePath: "a.txt", content: "x\n" }, shape: "O03" },
    ]),
  ];
}

/** Inline markup as CommonMark reads it: a failed tag is read again after its `<`; an autolink is opaque. */
function inlineAttempts(): Fixture[] {
  const call = '<tool_call>{"name": "bash", "arguments": {"command": "ls -la"}}</tool_call>';
  return [
    none("N43.5", "failed-tag-then-a-link-title", `See <a x=[foo bar](/u '${call}') here.\n`),
    none("N43.6", "failed-tag-then-a-comment", `See <a t="<!--" ]\n${call}\n-->\n`),
    none("N43.7", "autolink-backtick-then-inline-code", `See <http://x.y/a\`b> and \`${call}\` here.\n`),
    none("N43.8", "autolink-bracket-inside-link-text", `[a <http://x/]>](/u '${call}')\n`),
    none("N43.9", "no-break-space-inside-a-tag", `See <a\u00A0title='${call}'> here.\n`),
    ok("N43.n3", "email-autolink-with-a-backtick-then-a-call", `Mail <a\`b@c.d> ${call}\n`, [ls("O01")], "Mail <a`b@c.d> "),
    ok("N43.n4", "email-autolink-over-a-comment-then-a-call", `See <!--a@b.c> ${call}\n`, [ls("O01")], "See <!--a@b.c> "),
  ];
}

/** Review 44: a line of a costume's code that starts with a parameter element of its tool refuses it, outside heredocs and strings. */
function elementLines(): Fixture[] {
  return [
    bad("R44.1", "bash-element-after-a-comment-line", "<bash>\n# list\n<command>ls</command>\n</bash>", "broken-markup", ["O09"]),
    bad("R44.2", "bash-element-after-an-xml-declaration", '<bash>\n<?xml version="1.0"?>\n<command>ls</command>\n</bash>', "broken-markup", ["O09"]),
    bad("R44.3", "shell-costume-comment-then-an-unreadable-element", '<shell>\n# c\n<command timeout="5">ls</command>\n</shell>', "broken-markup", ["C04"]),
    bad("R44.4", "pre-code-costume-holding-a-parameter-element", '<pre><code class="language-bash">\n<command timeout="5">ls</command>\n</code></pre>', "broken-markup", ["C03"]),
    bad("R44.5", "shell-costume-code-then-a-parameter-element", "<shell>\necho hi\n<command>ls</command>\n</shell>", "broken-markup", ["C04"]),
    ok("R44.n1", "bash-element-line-inside-a-string", "<bash>\necho '\n<command>ls</command>\n'\n</bash>", [ls("C04", "echo '\n<command>ls</command>\n'")]),
    ok("R44.n2", "pre-code-heredoc-writing-a-parameter-element", '<pre><code class="language-bash">\ncat &lt;&lt;\'EOF\'\n&lt;command&gt;ls&lt;/command&gt;\nEOF\n</code></pre>', [ls("C03", "cat <<'EOF'\n<command>ls</command>\nEOF")]),
  ];
}

/** Review 44: a stray Qwen3-Coder closer, named <tool_call> bodies in every call spelling, MiniMax single quotes, number spellings. */
function review44Dialects(): Fixture[] {
  const qwen = (fn: string, params: string) => `<tool_call>\n<function=${fn}>\n${params}\n</function>\n</tool_call>`;
  const named = (body: string) => `<tool_call name="list_sessions">${body}</tool_call>`;
  return [
    bad("G44.1", "qwen3-coder-value-documents-an-opener-then-two-closers", qwen("write", "<parameter=content>\n# Format\n<parameter=filePath>\nnotes/a.md\n</parameter>\n</parameter>"), "broken-markup", ["O02"]),
    bad("G44.2", "qwen3-coder-doubled-parameter-closer", qwen("bash", "<parameter=command>\nls -la\n</parameter>\n</parameter>"), "broken-markup", ["O02"]),
    bad("R44.6", "tool-call-named-over-a-tool-spelled-call-object", named('{"tool": "bash", "arguments": {"command": "rm -rf ~"}}'), "broken-markup", ["T01"]),
    bad("R44.7", "tool-call-named-over-an-openai-entry", named('{"type": "function", "function": {"name": "bash", "arguments": "{}"}}'), "broken-markup", ["T01"]),
    bad("R44.8", "tool-call-named-flattened-with-its-own-name", named('{"name": "list_sessions", "verbose": true}'), "broken-markup", ["T01"]),
    ok("A44.1", "minimax-bracket-single-quoted-brace", arrow("bash", "--command 'echo }'"), [ls("O05", "echo }")]),
    ok("A44.2", "minimax-bracket-single-quoted-lone-double-quote", arrow("bash", `--command 'echo 5" wide'`), [ls("O05", 'echo 5" wide')]),
    bad("V44.1", "hermes-exponent-integer-for-a-string", '<tool_call>\n{"name": "web_search", "arguments": {"query": 6e2}}\n</tool_call>', "invalid-arguments", ["O01"]),
    bad("V44.2", "lfm2-exponent-for-a-string", lfm2("[web_search(query=1e3)]"), "invalid-arguments", ["O08"]),
  ];
}

/** A candidate longer than bufferLimit is released verbatim; no call later in the reply runs (its end is unknown). */
function overflow(): Fixture[] {
  const example = '<tool_call>\n{"name": "bash", "arguments": {"command": "rm -rf build"}}\n</tool_call>';
  const content = `# Tool calls\n\n${"x".repeat(350)}\n\nWrite it as:\n\n${example}\n\nmore\n`;
  const writeBlock = block("tool_calls", [["write", [["filePath", "doc.md"], ["content", content]]]]);
  const bigWrite = block("tool_calls", [["write", [["filePath", "doc.md"], ["content", "x".repeat(350)]]]]);
  const realCall = '\n\nNow the tests:\n\n<tool_call>\n{"name": "bash", "arguments": {"command": "ls -la"}}\n</tool_call>';
  const limited = (f: Fixture): Fixture => ({ ...f, bufferLimit: 300 });
  return [
    limited(bad("O44.1", "overflowed-write-holding-an-example", writeBlock, "overflowed-markup", ["O01", "D08", "D08", "D08"])),
    limited(bad("O44.2", "overflowed-write-then-a-real-call", bigWrite + realCall, "broken-markup", ["D08", "D08", "D08", "O01"])),
    ok("O44.n1", "the-same-write-and-call-under-no-limit", bigWrite + realCall, [
      { tool: "write", input: { filePath: "doc.md", content: "x".repeat(350) }, shape: "D02" },
      ls("O01"),
    ], "\n\nNow the tests:\n\n"),
    // A costume refused at its own closer after one was read as code: where its code ends is unknown too.
    bad("A44.3", "costume-refused-then-a-call-example-in-its-heredoc", "<shell>cat > doc.md <<'EOF'\nEnd the block with </shell> on its own line, like:\n<bash>ls</bash>\n</shell>\nThen call:\n<tool_call>\n{\"name\": \"bash\", \"arguments\": {\"command\": \"rm -rf build\"}}\n</tool_call>\nEOF\n</shell>\n", "broken-markup", ["C04", "O01"]),
    bad("A44.4", "costume-refused-then-a-second-costume", "<shell>cat > doc.md <<'EOF'\nEnd with </shell> here.\n<bash>rm -rf build</bash>\nEOF\n</shell>\n\n<shell>\npwd\n</shell>\n", "broken-markup", ["C04", "C04"]),
  ];
}
