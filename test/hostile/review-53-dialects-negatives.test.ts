/**
 * Review 53 (hostile, tests only), the non-DSML dialects: the attacks the review tried that the
 * code already withstands, pinned so they keep holding (no finding here; the findings are in
 * review-53-dialects-findings.test.ts). Each runs whole, char by char and at seeded random splits.
 */
import { describe, expect, test } from "bun:test";
import { outcome, type Outcome } from "../support/outcome.ts";

const hermes = (body: string) => `<tool_call>\n${body}\n</tool_call>`;
const lfm2 = (body: string) => `<|tool_call_start|>[${body}]<|tool_call_end|>`;
const kimi = (name: string, args: string) =>
  `<|tool_calls_section_begin|><|tool_call_begin|>${name}<|tool_call_argument_begin|>${args}<|tool_call_end|><|tool_calls_section_end|>`;
const qwen = (fn: string, params: string) => `<tool_call>\n<function=${fn}>\n${params}\n</function>\n</tool_call>`;
const param = (k: string, v: string) => `<parameter=${k}>\n${v}\n</parameter>`;
const glm = (body: string) => `<tool_call>${body}</tool_call>`;

/** Inputs that must never run: no call, every character kept, the nudge (or none) given. */
const REFUSED: Array<[string, string, Outcome["broken"]]> = [
  ["Hermes: `arguments` beside `parameters`", hermes('{"name":"bash","arguments":{"command":"ls"},"parameters":{"command":"rm -rf build"}}'), ["broken-markup"]],
  ["Hermes: `name` twice", hermes('{"name":"read","name":"bash","arguments":{"command":"ls"}}'), ["broken-markup"]],
  ["Hermes: a parameter beside `arguments` at the top level", hermes('{"name":"bash","arguments":{"command":"ls"},"command":"rm -rf build"}'), ["broken-markup"]],
  ["Hermes: a key twice, one spelled with a \\u escape", hermes('{"name":"bash","arguments":{"command":"ls","\\u0063ommand":"rm -rf build"}}'), ["broken-markup"]],
  ["Hermes: a double-encoded `arguments` with a key twice", hermes('{"name":"bash","arguments":"{\\"command\\":\\"ls\\",\\"command\\":\\"rm -rf build\\"}"}'), ["broken-markup"]],
  ["Hermes: a double-encoded `arguments` with two objects", hermes('{"name":"bash","arguments":"{\\"command\\":\\"ls\\"}{\\"command\\":\\"rm -rf build\\"}"}'), ["broken-markup"]],
  ["Hermes: `arguments` a string that is no JSON", hermes('{"name":"bash","arguments":"ls -la"}'), ["broken-markup"]],
  ["Hermes: two call objects in one wrapper", hermes('{"name":"bash","arguments":{"command":"ls"}}\n{"name":"bash","arguments":{"command":"rm -rf build"}}'), ["broken-markup"]],
  ["Hermes: closed by Qwen's `</function>`", '<tool_call>\n{"name":"bash","arguments":{"command":"ls"}}\n</function>', ["broken-markup"]],
  ["Hermes: name in another case", hermes('{"name":"BASH","arguments":{"command":"ls"}}'), ["undeclared-tool"]],
  ["Hermes: name with a `functions.` prefix", hermes('{"name":"functions.bash","arguments":{"command":"ls"}}'), ["undeclared-tool"]],
  ["Hermes: an integer past 2^53", hermes('{"name":"read","arguments":{"filePath":"/a","limit":9007199254740993}}'), ["invalid-arguments"]],
  ["Kimi: two argument objects", kimi("functions.bash:0", '{"command":"ls"}{"command":"rm -rf build"}'), ["broken-markup"]],
  ["Kimi: text after the argument object", kimi("functions.bash:0", '{"command":"ls"} rm -rf build'), ["broken-markup"]],
  ["Kimi: cut after the argument object", '<|tool_calls_section_begin|><|tool_call_begin|>functions.bash:0<|tool_call_argument_begin|>{"command":"ls"}', ["truncated-call"]],
  ["LFM2: string concatenation", lfm2("bash(command='rm -rf ' 'build')"), ["broken-markup"]],
  ["LFM2: an f-string", lfm2("bash(command=f'ls {x}')"), ["broken-markup"]],
  ["LFM2: a raw string", lfm2("bash(command=r'echo \\n')"), ["broken-markup"]],
  ["LFM2: a positional argument", lfm2("bash('ls')"), ["broken-markup"]],
  ["LFM2: NaN", lfm2("read(filePath='/a', limit=NaN)"), ["broken-markup"]],
  ["LFM2: float('inf')", lfm2("read(filePath='/a', limit=float('inf'))"), ["broken-markup"]],
  ["LFM2: a triple-quoted string", lfm2("bash(command='''ls\nrm''')"), ["broken-markup"]],
  ["LFM2: a \\N{} escape", lfm2("bash(command='echo \\N{LATIN SMALL LETTER A}')"), ["broken-markup"]],
  ["LFM2: None for a number", lfm2("bash(command='ls', timeout=None)"), ["invalid-arguments"]],
  ["LFM2: cut after the list", "<|tool_call_start|>[bash(command='ls')]", ["truncated-call"]],
  ["Qwen3-Coder: a parameter twice, not adjacent", qwen("bash", `${param("command", "ls")}\n${param("workdir", "/tmp")}\n${param("command", "rm -rf build")}`), ["broken-markup"]],
  ["Qwen3-Coder: `</parameter>` inside the value", qwen("bash", param("command", "echo '</parameter>' && rm -rf build")), ["broken-markup"]],
  ["Qwen3-Coder: cut in a second parameter", "<tool_call>\n<function=bash>\n<parameter=command>\nls\n</parameter>\n<parameter=workdir>\n/tm", ["truncated-call"]],
  ["Qwen3-Coder: a number written 1e400", qwen("read", `${param("filePath", "/a")}\n${param("limit", "1e400")}`), ["invalid-arguments"]],
  ["GLM: a key twice, not adjacent", glm("bash\n<arg_key>command</arg_key>\n<arg_value>ls</arg_value>\n<arg_key>workdir</arg_key>\n<arg_value>/tmp</arg_value>\n<arg_key>command</arg_key>\n<arg_value>rm -rf build</arg_value>\n"), ["broken-markup"]],
  ["GLM: cut mid key", "<tool_call>bash\n<arg_key>command</arg_key>\n<arg_value>ls</arg_value>\n<arg_key>work", ["truncated-call"]],
  ["Claude XML: a parameter twice, not adjacent", '<function_calls>\n<invoke name="bash">\n<parameter name="command">ls</parameter>\n<parameter name="workdir">/tmp</parameter>\n<parameter name="command">rm -rf build</parameter>\n</invoke>\n</function_calls>', ["broken-markup"]],
  ["Claude XML: `name` twice on the invoke", '<function_calls>\n<invoke name="read" name="bash">\n<parameter name="command">ls</parameter>\n</invoke>\n</function_calls>', ["broken-markup"]],
  ["O09: a child twice, not adjacent", "<bash>\n<command>ls</command>\n<workdir>/tmp</workdir>\n<command>rm -rf build</command>\n</bash>", ["broken-markup"]],
  ["tool_name/tool_args: a key twice", '<tool_call><tool_name>bash</tool_name><tool_args>{"command":"ls","command":"rm -rf build"}</tool_args></tool_call>', ["broken-markup"]],
  ["tool_name/tool_args: JSON and a code field", '<tool_call><tool_name>bash</tool_name><tool_args>{"command":"ls"}<code>rm -rf build</code></tool_args></tool_call>', ["broken-markup"]],
  ["Mistral list: `arguments` beside `parameters`", '[TOOL_CALLS][{"name":"bash","arguments":{"command":"ls"},"parameters":{"command":"rm -rf build"}}]', ["broken-markup"]],
  ["MiniMax arrow: `args` twice", '[TOOL_CALL] {tool => "bash", args => { --command "ls" }, args => { --command "rm -rf build" }} [/TOOL_CALL]', ["broken-markup"]],
  ["Alias: Claude Code's `run_in_background` has no counterpart", hermes('{"name":"Bash","arguments":{"command":"ls","run_in_background":true}}'), ["undeclared-tool"]],
  ["Alias: both the alias's and the tool's name for one parameter", lfm2("read_file(path='a.ts', filePath='b.ts')"), ["undeclared-tool"]],
];

describe("review 53: ambiguous or unreadable dialect calls never run", () => {
  for (const [name, input, broken] of REFUSED) {
    test(name, () => expect(outcome(input)).toEqual({ calls: [], broken, text: input }));
  }
});

/** Inputs that run, with exactly these arguments. */
const RUNS: Array<[string, string, string, Record<string, unknown>]> = [
  ["Hermes: a double-encoded `arguments` (O01's JSON string of one)", hermes('{"name":"bash","arguments":"{\\"command\\":\\"ls\\"}"}'), "bash", { command: "ls" }],
  ["Hermes: `-0` for a number", hermes('{"name":"read","arguments":{"filePath":"/a","limit":-0}}'), "read", { filePath: "/a", limit: 0 }],
  ["Hermes: `<tool_call>` inside a string value", hermes('{"name":"bash","arguments":{"command":"echo <tool_call> x"}}'), "bash", { command: "echo <tool_call> x" }],
  ["Kimi: an index other than 0", kimi("functions.bash:7", '{"command":"ls"}'), "bash", { command: "ls" }],
  ["LFM2: \\x41 and octal \\101 escapes, as Python reads them", lfm2("bash(command='echo \\x41\\101')"), "bash", { command: "echo AA" }],
  ["LFM2: an unknown escape stays two characters, as in Python", lfm2("bash(command='echo \\q')"), "bash", { command: "echo \\q" }],
  ["LFM2: True for a string parameter is the text Python gives it", lfm2("bash(command=True)"), "bash", { command: "True" }],
  ["Qwen3-Coder: `<function=` written inside a value", qwen("write", `${param("filePath", "a.md")}\n${param("content", "use <function=bash> like this")}`), "write", { filePath: "a.md", content: "use <function=bash> like this" }],
  ["O09: an HTML comment in a value stays its text", "<write>\n<filePath>a.html</filePath>\n<content>a <!-- keep me --> b</content>\n</write>", "write", { filePath: "a.html", content: "a <!-- keep me --> b" }],
  ["Mistral: a value holding the `[TOOL_CALLS]` token", '[TOOL_CALLS]bash[ARGS]{"command":"[TOOL_CALLS]read[ARGS]{}"}', "bash", { command: "[TOOL_CALLS]read[ARGS]{}" }],
];

describe("review 53: the dialect calls that must keep running", () => {
  for (const [name, input, tool, args] of RUNS) {
    // Compared as they go out on the wire (JSON), where `-0` is written `0`.
    test(name, () => expect(JSON.stringify(outcome(input).calls)).toBe(JSON.stringify([{ tool, input: args }])));
  }
});
