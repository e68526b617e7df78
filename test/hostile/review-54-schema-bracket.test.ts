/**
 * Review 54 (hostile, tests only): the same schema rules across every dialect reader. This file
 * holds the findings, in MiniMax's bracket form (O05, src/parse/dialects/minimax-bracket.ts), whose
 * `{ --key VALUE }` pairs are handed to the raw-text reader of the TAG dialects
 * (src/parse/call.ts textArgsOutcome, written for GLM and Qwen3-Coder) although their values are
 * JSON strings, single-quoted strings "taken literally" and JSON arrays or objects: values that
 * carry their own type and escaping. Failing tests are findings; every other test is a hard
 * negative that passes on main. Streams are checked whole, char by char and at seeded random
 * splits (test/support/outcome.ts).
 */
import { describe, expect, test } from "bun:test";
import type { ToolSpec } from "../../src/parse/types.ts";
import { live } from "../golden/notation.ts";
import { minimaxBracket, outcome, qwenCall } from "../support/outcome.ts";

const S = { type: "string" };
const bash: ToolSpec = { name: "bash", parameters: { type: "object", properties: { command: S, workdir: S }, required: ["command"] } };
const chmod: ToolSpec = {
  name: "chmod",
  parameters: { type: "object", properties: { path: S, mode: S, tags: { type: "array", items: S } }, required: ["path"] },
};
const TOOLS = [bash, chmod];

/** Counting double-escaped ampersands in a page: the `&amp;` is the text grep must look for. */
const WRITTEN = "grep -c '&amp;' index.html";
const DECODED = "grep -c '&' index.html";

const commandsRun = (reply: string) => outcome(`Counting them.\n${reply}`, TOOLS).calls.map((c) => c.input.command);

describe("MiniMax bracket: an HTML entity inside a quoted value is decoded (P08 applied to a JSON string)", () => {
  // Severity: wrong execution. The bracket form's `--command "..."` value is a JSON string, and
  // `--command '...'` a single-quoted string that docs/PATTERNS.md ("MiniMax's bracket form") says
  // is "taken literally". Both reach textArgsOutcome (src/parse/call.ts), which applies P08's
  // entity rule of the tag dialects (decodeEntitiesIfEscaped: a value escaped throughout is
  // decoded). So `grep -c '&amp;' index.html` runs as `grep -c '&' index.html`: another command
  // than the one written, counting every ampersand instead of the double-escaped ones. The same
  // JSON string is kept as written by every other JSON-valued reader (Hermes, Mistral, Kimi, the
  // pythonic reader) and by the bracket form's own `args => {json}` and JSON bodies, so one
  // dialect reads one string two ways depending on how its pairs were spelled.
  // Minimal input: [TOOL_CALL] {tool => "bash", args => { --command "grep -c '&amp;' index.html" }} [/TOOL_CALL]
  //   -> bash {command: "grep -c '&' index.html"}.
  // Suspected: src/parse/dialects/minimax-bracket.ts (pairs -> textArgsOutcome) and
  // src/parse/call.ts textArgsOutcome (decodeEntitiesIfEscaped for every caller).
  // Expected: a quoted bracket value is its string, as in the JSON readers: the call runs with
  // `grep -c '&amp;' index.html` (or, at the least, never with the decoded command).
  // Fixed: the bracket pairs are read by bracketPairsOutcome
  // (src/parse/dialects/minimax-bracket-values.ts), never textArgsOutcome: no value of this form is
  // entity-decoded, quoted or bare (P08 is the tag dialects' rule for raw text between tags; this
  // form is no XML); textArgsOutcome keeps P08 for GLM, Qwen3-Coder and the tag readers.
  test("a JSON-quoted value: the command runs as written, never decoded (split parity)", () => {
    const reply = minimaxBracket("bash", `--command ${JSON.stringify(WRITTEN)}`);
    expect(commandsRun(reply)).not.toContain(DECODED);
    expect(commandsRun(reply)).toEqual([WRITTEN]);
  });

  test("a single-quoted value (\"taken literally\"): the same", () => {
    const reply = minimaxBracket("bash", `--command '${WRITTEN.replace(/'/g, '"')}'`);
    expect(commandsRun(reply)).toEqual([WRITTEN.replace(/'/g, '"')]);
  });

  test("`--key=VALUE` and `--key: VALUE` spellings: the same", () => {
    expect(commandsRun(minimaxBracket("bash", `--command=${JSON.stringify(WRITTEN)}`))).toEqual([WRITTEN]);
    expect(commandsRun(minimaxBracket("bash", `--command: ${JSON.stringify(WRITTEN)}`))).toEqual([WRITTEN]);
  });

  test("hard negative (passes today): the bracket's own `args => {json}` and JSON body keep the entity", () => {
    expect(commandsRun(`[TOOL_CALL] {tool => "bash", args => {"command": ${JSON.stringify(WRITTEN)}}} [/TOOL_CALL]`)).toEqual([WRITTEN]);
    expect(commandsRun(`[TOOL_CALL] {"tool": "bash", "args": {"command": ${JSON.stringify(WRITTEN)}}} [/TOOL_CALL]`)).toEqual([WRITTEN]);
  });

  test("hard negative (passes today): every other JSON-valued reader keeps the entity", () => {
    const json = JSON.stringify({ command: WRITTEN });
    for (const reply of [
      `<tool_call>\n{"name": "bash", "arguments": ${json}}\n</tool_call>`,
      `[TOOL_CALLS]bash[ARGS]${json}`,
      `[TOOL_CALLS][{"name": "bash", "arguments": ${json}}]`,
      `<|tool_calls_section_begin|><|tool_call_begin|>functions.bash:0<|tool_call_argument_begin|>${json}<|tool_call_end|><|tool_calls_section_end|>`,
      `<|tool_call_start|>[bash(command=${JSON.stringify(WRITTEN)})]<|tool_call_end|>`,
    ]) expect(commandsRun(reply)).toEqual([WRITTEN]);
  });

  test("hard negative (passes today): the tag dialects decode a value escaped throughout (P08, documented)", () => {
    for (const reply of [
      live(`<{D}tool_calls>\n<{D}invoke name="bash">\n<{D}parameter name="command" string="true">${WRITTEN}</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`),
      `<function_calls>\n<invoke name="bash">\n<parameter name="command">${WRITTEN}</parameter>\n</invoke>\n</function_calls>`,
      `<minimax:tool_call>\n<invoke name="bash">\n<parameter name="command">${WRITTEN}</parameter>\n</invoke>\n</minimax:tool_call>`,
      qwenCall("bash", `<parameter=command>\n${WRITTEN}\n</parameter>`),
      `<tool_call>bash\n<arg_key>command</arg_key>\n<arg_value>${WRITTEN}</arg_value>\n</tool_call>`,
      `<bash>\n<command>${WRITTEN}</command>\n</bash>`,
    ]) expect(commandsRun(reply)).toEqual([DECODED]);
  });

  test("hard negative (passes today): a bracket value that is plain (no entity) runs as written", () => {
    expect(commandsRun(minimaxBracket("bash", `--command "grep -c '&' index.html && echo ok"`))).toEqual(["grep -c '&' index.html && echo ok"]);
  });
});

describe("MiniMax bracket: a JSON array or object written for a string parameter runs as its text", () => {
  // Severity: an argument changed in meaning (wrong execution, low impact). `--mode ["7","5"]` is
  // a JSON array by the bracket syntax (docs/PATTERNS.md lists "a JSON object or array" as a value
  // kind apart from strings), and chmod's `mode` is a string. textArgsOutcome gets the array's
  // source text and the string place keeps it, so the tool runs with mode `["7","5"]`. Every
  // JSON-valued reader refuses the same array for a string (Hermes, Mistral, Kimi, pythonic, the
  // bracket's own `args => {json}`): "a mismatch left after coercion is invalid-arguments"; only
  // a boolean or safe integer becomes its own text. (The tag dialects keep a string place's raw
  // text by design: there the text is all that was written.)
  // Minimal input: [TOOL_CALL] {tool => "chmod", args => { --path "/srv" --mode ["7","5"] }} [/TOOL_CALL]
  //   -> chmod {path: "/srv", mode: "[\"7\",\"5\"]"}.
  // Suspected: src/parse/dialects/minimax-bracket.ts dashPairs (an array/object value handed on as
  // raw text) feeding src/parse/call.ts textArgsOutcome.
  // Expected: no call (invalid-arguments naming `mode`), text kept, as `args => {json}` gives.
  // Fixed: a bracketed value is the JSON (or Python literal) it spells, and the schema gate
  // refuses it for a string parameter (invalid-arguments), as for `args => {json}`; bracketed text
  // that is neither (`{ ls; }`) stays text; JSON refused by parseJson (a key twice) is broken-markup.
  const modes = (reply: string) => outcome(`Setting it.\n${reply}`, TOOLS);

  test("an array for a string parameter: no call (split parity)", () => {
    const o = modes(minimaxBracket("chmod", `--path "/srv" --mode ["7","5"]`));
    expect(o.calls).toEqual([]);
    expect(o.broken).toEqual(["invalid-arguments"]);
  });

  test("an object for a string parameter: no call", () => {
    expect(modes(minimaxBracket("chmod", `--path "/srv" --mode {"user": "rwx"}`)).calls).toEqual([]);
  });

  test("hard negative (passes today): `args => {json}` with the same array is refused", () => {
    const o = modes(`[TOOL_CALL] {tool => "chmod", args => {"path": "/srv", "mode": ["7","5"]}} [/TOOL_CALL]`);
    expect(o.calls).toEqual([]);
    expect(o.broken).toEqual(["invalid-arguments"]);
  });

  test("hard negative (passes today): an array for an array parameter, and a quoted string, run", () => {
    expect(modes(minimaxBracket("chmod", `--path "/srv" --tags ["a","b"]`)).calls).toEqual([{ tool: "chmod", input: { path: "/srv", tags: ["a", "b"] } }]);
    expect(modes(minimaxBracket("chmod", `--path "/srv" --mode "0755"`)).calls).toEqual([{ tool: "chmod", input: { path: "/srv", mode: "0755" } }]);
    expect(modes(minimaxBracket("chmod", `--path "/srv" --mode 0755`)).calls).toEqual([{ tool: "chmod", input: { path: "/srv", mode: "0755" } }]);
  });
});

describe("fx54-bracket: the edges of the bracket value rule (hard negatives)", () => {
  const run = (args: string) => outcome(`Setting it.\n${minimaxBracket("chmod", args)}`, TOOLS);
  const bashRun = (args: string) => outcome(`Running it.\n${minimaxBracket("bash", args)}`, TOOLS);

  test("an unquoted value is not decoded either (the form is no XML): `--path a&amp;b` is that path", () => {
    expect(run(`--path a&amp;b --mode 0755`).calls).toEqual([{ tool: "chmod", input: { path: "a&amp;b", mode: "0755" } }]);
  });

  test("the tag dialects' raw text still decodes (Qwen3-Coder, GLM): textArgsOutcome keeps P08", () => {
    expect(commandsRun(qwenCall("bash", `<parameter=command>\n${WRITTEN}\n</parameter>`))).toEqual([DECODED]);
  });

  test("bracketed text that is neither JSON nor a Python literal stays a string parameter's text", () => {
    expect(bashRun(`--command { ls; }`).calls).toEqual([{ tool: "bash", input: { command: "{ ls; }" } }]);
  });

  test("a Python list for a string parameter is refused too; for an array parameter it runs", () => {
    expect(run(`--path "/srv" --mode ['7','5']`).calls).toEqual([]);
    expect(run(`--path "/srv" --tags ['a','b']`).calls).toEqual([{ tool: "chmod", input: { path: "/srv", tags: ["a", "b"] } }]);
  });

  test("a JSON object naming a key twice is refused whole (broken-markup), never kept as text", () => {
    const o = bashRun(`--command {"a": 1, "a": 2}`);
    expect(o.calls).toEqual([]);
    expect(o.broken).toEqual(["broken-markup"]);
  });

  test("an array of numbers for an array of strings is typed as `args => {json}` types it", () => {
    const viaPairs = run(`--path "/srv" --tags [1, 2]`).calls;
    const viaJson = outcome(`Setting it.\n[TOOL_CALL] {tool => "chmod", args => {"path": "/srv", "tags": [1, 2]}} [/TOOL_CALL]`, TOOLS).calls;
    expect(viaPairs).toEqual(viaJson);
    expect(viaPairs).toEqual([{ tool: "chmod", input: { path: "/srv", tags: ["1", "2"] } }]);
  });

  test("a quoted number or boolean is still typed by the schema (`--limit \"5\"` is 5)", () => {
    const read: ToolSpec = { name: "read", parameters: { type: "object", properties: { filePath: S, limit: { type: "integer" } }, required: ["filePath"] } };
    expect(outcome(minimaxBracket("read", `--filePath "/a" --limit "5"`), [read]).calls).toEqual([{ tool: "read", input: { filePath: "/a", limit: 5 } }]);
  });
});
