/**
 * Review 54 (hostile, tests only): "only declared tools, with arguments that were read and fit the
 * tool's schema", checked ACROSS the dialect readers. Every test here is a hard negative that
 * passes on main (the findings are in review-54-schema-bracket.test.ts): each pins one rule in
 * every reader at once, so a reader that drifts from the others fails it. Streams are checked
 * whole, char by char and at seeded random splits (test/support/outcome.ts), except the one-call
 * matrix, which drives the engine with maxCalls itself (whole and char by char).
 */
import { describe, expect, test } from "bun:test";
import { createRepairEngine } from "../../src/engine/engine.ts";
import type { ToolSpec } from "../../src/parse/types.ts";
import { live } from "../golden/notation.ts";
import { everyChar } from "../support/run-engine.ts";
import { minimaxBracket, outcome, qwenCall } from "../support/outcome.ts";

const S = { type: "string" };
const bash: ToolSpec = { name: "bash", parameters: { type: "object", properties: { command: S, timeout: { type: "integer" }, workdir: S }, required: ["command"] } };
const chmod: ToolSpec = { name: "chmod", parameters: { type: "object", properties: { path: S, mode: S }, required: ["path"], additionalProperties: false } };
const TOOLS = [bash, chmod];

type Pairs = [string, string][];
/** One call of TOOL with raw parameter texts, in each reader that reads raw text typed by the schema. */
const TEXT_READERS: Record<string, (tool: string, ps: Pairs) => string> = {
  dsml: (t, ps) => live(`<{D}tool_calls>\n<{D}invoke name="${t}">\n${ps.map(([k, v]) => `<{D}parameter name="${k}">${v}</{D}parameter>`).join("\n")}\n</{D}invoke>\n</{D}tool_calls>`),
  "dsml string=false": (t, ps) => live(`<{D}tool_calls>\n<{D}invoke name="${t}">\n${ps.map(([k, v]) => `<{D}parameter name="${k}" string="false">${v}</{D}parameter>`).join("\n")}\n</{D}invoke>\n</{D}tool_calls>`),
  "dsml element (I11)": (t, ps) => live(`<{D}${t}>\n${ps.map(([k, v]) => `<{D}${k}>${v}</{D}${k}>`).join("\n")}\n</{D}${t}>`),
  claude: (t, ps) => `<function_calls>\n<invoke name="${t}">\n${ps.map(([k, v]) => `<parameter name="${k}">${v}</parameter>`).join("\n")}\n</invoke>\n</function_calls>`,
  "minimax xml": (t, ps) => `<minimax:tool_call>\n<invoke name="${t}">\n${ps.map(([k, v]) => `<parameter name="${k}">${v}</parameter>`).join("\n")}\n</invoke>\n</minimax:tool_call>`,
  "qwen3-coder": (t, ps) => qwenCall(t, ps.map(([k, v]) => `<parameter=${k}>\n${v}\n</parameter>`).join("\n")),
  glm: (t, ps) => `<tool_call>${t}\n${ps.map(([k, v]) => `<arg_key>${k}</arg_key>\n<arg_value>${v}</arg_value>`).join("\n")}\n</tool_call>`,
  "element form (O09)": (t, ps) => `<${t}>\n${ps.map(([k, v]) => `<${k}>${v}</${k}>`).join("\n")}\n</${t}>`,
  "minimax bracket (bare)": (t, ps) => minimaxBracket(t, ps.map(([k, v]) => `--${k} ${/^[\w./+-]+$/.test(v) ? v : JSON.stringify(v)}`).join(" ")),
};
/** The same call with a JSON arguments object, in each reader whose arguments are JSON. */
const JSON_READERS: Record<string, (tool: string, args: string) => string> = {
  hermes: (t, a) => `<tool_call>\n{"name": "${t}", "arguments": ${a}}\n</tool_call>`,
  kimi: (t, a) => `<|tool_calls_section_begin|><|tool_call_begin|>functions.${t}:0<|tool_call_argument_begin|>${a}<|tool_call_end|><|tool_calls_section_end|>`,
  "mistral [ARGS]": (t, a) => `[TOOL_CALLS]${t}[ARGS]${a}`,
  "mistral list": (t, a) => `[TOOL_CALLS][{"name": "${t}", "arguments": ${a}}]`,
  "minimax bracket json": (t, a) => `[TOOL_CALL] {tool => "${t}", args => ${a}} [/TOOL_CALL]`,
  "legacy deepseek": (t, a) => live(`<{BAR}tool{SP}calls{SP}begin{BAR}><{BAR}tool{SP}call{SP}begin{BAR}>${t}<{BAR}tool{SP}sep{BAR}>${a}<{BAR}tool{SP}call{SP}end{BAR}><{BAR}tool{SP}calls{SP}end{BAR}>`),
};
const run = (reply: string, tools: readonly ToolSpec[] = TOOLS) => outcome(`Doing it.\n${reply}`, tools);

describe("a tool name matches only as declared, in every reader", () => {
  // Case, `-` for `_`, a namespace prefix (`functions.`, `default_api.`), a suffix (`_tool`) and
  // white space inside a quoted name never reach a declared tool; only the alias table maps a name
  // (`Bash`, policy A01), and only onto a declared target.
  const NEAR = ["BASH", "functions.bash", "default_api.bash", "bash_tool", "bash-tool", "mcp__bash", "Chmod", "ch_mod"];
  for (const [name, write] of Object.entries(TEXT_READERS)) {
    test(`${name}: near-miss names run nothing`, () => {
      for (const near of NEAR) {
        const args: Pairs = near.toLowerCase().includes("ch") ? [["path", "/srv"]] : [["command", "ls"]];
        expect(run(write(near, args)).calls).toEqual([]);
      }
    });
  }
  for (const [name, write] of Object.entries(JSON_READERS)) {
    test(`${name}: near-miss names run nothing`, () => {
      for (const near of NEAR) expect(run(write(near, near.toLowerCase().includes("ch") ? `{"path": "/srv"}` : `{"command": "ls"}`)).calls).toEqual([]);
    });
  }
  test("pythonic: near-miss names run nothing (dotted names too)", () => {
    for (const near of ["BASH", "functions.bash", "bash.call", "bash_tool", "Chmod"]) {
      expect(run(`<|tool_call_start|>[${near}(command="ls")]<|tool_call_end|>`).calls).toEqual([]);
    }
  });
  test("a name spelled with a character reference, an invisible or a fullwidth character is no declared name", () => {
    for (const near of ["b&#97;sh", "bash&#x200B;", "bash\u200b", "ba\u00adsh", "\uff42ash"]) {
      for (const name of ["dsml", "claude", "qwen3-coder", "glm", "minimax xml"]) expect(run(TEXT_READERS[name]!(near, [["command", "ls"]])).calls).toEqual([]);
    }
    for (const name of ["claude", "qwen3-coder", "glm"]) expect(run(TEXT_READERS[name]!("bash", [["comm&#97;nd", "ls"]])).calls).toEqual([]);
  });
  test("the alias `Bash` maps onto bash only where bash is declared; undeclared otherwise", () => {
    const reply = JSON_READERS.hermes!("Bash", `{"command": "ls"}`);
    expect(run(reply).calls).toEqual([{ tool: "bash", input: { command: "ls" } }]);
    expect(run(reply, [chmod]).calls).toEqual([]);
    expect(run(reply, [chmod]).broken).toEqual(["undeclared-tool"]);
  });
});

describe("a string parameter keeps the text written, in every raw-text reader", () => {
  // `0755` is no octal number, `+1` and `1e3` no numbers, `true`/`null` no literals, a JSON text no
  // object: the string place keeps each as written (docs/PATTERNS.md "Values").
  const TEXTS = ["0755", "+1", "1e3", "true", "null", '["a"]', '{"a": 1}', "-0"];
  for (const [name, write] of Object.entries(TEXT_READERS)) {
    test(name, () => {
      for (const mode of TEXTS) expect(run(write("chmod", [["path", "/srv"], ["mode", mode]])).calls).toEqual([{ tool: "chmod", input: { path: "/srv", mode } }]);
    });
  }
});

describe("an integer parameter takes a number only as JSON spells it, in every reader", () => {
  // `0755`, `+1`, `0x10`, `10.` and `.5` are refused; `1e3` is JSON's 1000 and `1.0` JSON's 1
  // (documented: a number as JSON spells it, V44); never a number the text does not denote.
  for (const [name, write] of Object.entries(TEXT_READERS)) {
    test(name, () => {
      for (const refused of ["0755", "+1", "0x10", "10.", ".5", "5 apples"]) expect(run(write("bash", [["command", "ls"], ["timeout", refused]])).calls).toEqual([]);
      expect(run(write("bash", [["command", "ls"], ["timeout", "1e3"]])).calls).toEqual([{ tool: "bash", input: { command: "ls", timeout: 1000 } }]);
    });
  }
  test("JSON readers: an octal-looking or signed literal is no JSON at all; 1e3 is 1000", () => {
    for (const write of Object.values(JSON_READERS)) {
      for (const refused of ["0755", "+1", "0x10"]) expect(run(write("bash", `{"command": "ls", "timeout": ${refused}}`)).calls).toEqual([]);
      expect(run(write("bash", `{"command": "ls", "timeout": 1e3}`)).calls).toEqual([{ tool: "bash", input: { command: "ls", timeout: 1000 } }]);
    }
  });
});

describe("additionalProperties false: a key the tool does not declare refuses the call, in every reader", () => {
  for (const [name, write] of Object.entries(TEXT_READERS)) {
    test(name, () => {
      const o = run(write("chmod", [["path", "/srv"], ["recursive", "yes"]]));
      expect(o.calls).toEqual([]);
      expect(o.broken).toHaveLength(1);
    });
  }
  test("JSON readers and pythonic", () => {
    for (const write of Object.values(JSON_READERS)) expect(run(write("chmod", `{"path": "/srv", "recursive": true}`)).calls).toEqual([]);
    expect(run(`<|tool_call_start|>[chmod(path="/srv", recursive=True)]<|tool_call_end|>`).calls).toEqual([]);
  });
});

describe("no reader invents an argument: positional arguments, unpacking and defaults", () => {
  test("pythonic: a positional argument is never mapped to a parameter name", () => {
    for (const call of [`bash("ls")`, `chmod("/srv", "0755")`, `bash(*["ls"])`, `bash(**{"command": "ls"})`, `bash(command="ls", **{"workdir": "/"})`]) {
      const o = run(`<|tool_call_start|>[${call}]<|tool_call_end|>`);
      expect(o.calls).toEqual([]);
      expect(o.broken).toEqual(["broken-markup"]);
    }
  });
  test("a schema `default` is never filled in by a reader", () => {
    const withDefault: ToolSpec = { name: "bash", parameters: { type: "object", properties: { command: S, workdir: { type: "string", default: "/" } }, required: ["command"] } };
    for (const write of Object.values(TEXT_READERS)) expect(run(write("bash", [["command", "ls"]]), [withDefault]).calls).toEqual([{ tool: "bash", input: { command: "ls" } }]);
    for (const write of Object.values(JSON_READERS)) expect(run(write("bash", `{"command": "ls"}`), [withDefault]).calls).toEqual([{ tool: "bash", input: { command: "ls" } }]);
  });
});

describe("the arguments wrapper (I03) never unwraps a parameter the tool declares, wherever it declares it", () => {
  // A tool with its own `input` (a stdin text): `input` holding a JSON object is that text, never
  // the call's arguments, whether `input` is declared in properties, an allOf branch, a $ref or
  // patternProperties.
  const base = { command: S };
  const DECLARING: Record<string, unknown> = {
    properties: { type: "object", properties: { ...base, input: S } },
    allOf: { type: "object", allOf: [{ properties: base }, { properties: { input: S } }] },
    $ref: { type: "object", properties: { ...base, input: { $ref: "#/$defs/text" } }, $defs: { text: S } },
    patternProperties: { type: "object", properties: base, patternProperties: { "^inp": S } },
    "if/then": { type: "object", properties: base, if: { required: ["command"] }, then: { properties: { input: S } } },
  };
  const STDIN = '{"command": "rm -rf ~"}';
  for (const [where, schema] of Object.entries(DECLARING)) {
    test(`declared through ${where}`, () => {
      const tools: ToolSpec[] = [{ name: "exec", parameters: schema as ToolSpec["parameters"] }];
      for (const write of Object.values(TEXT_READERS)) expect(run(write("exec", [["input", STDIN]]), tools).calls).toEqual([{ tool: "exec", input: { input: STDIN } }]);
    });
  }
});

describe("a code costume for a bash whose schema it cannot fill runs nothing", () => {
  // Every costume: bash requiring another parameter, naming its command otherwise, typing it as an
  // array, or holding a pattern the code misses. Only `description` is ever written for the model
  // (A40, documented), and only when bash requires exactly that.
  const COSTUMES = [
    "<shell>\nls -la\n</shell>",
    "<bash>\nls -la\n</bash>",
    "<python>\nprint(1)\n</python>",
    "<execute_bash>\nls -la\n</execute_bash>",
    '<code_interpreter type="code" lang="python">\nprint(2)\n</code_interpreter>',
    '<pre><code class="language-bash">ls -la</code></pre>',
    "<tool_call><tool_name>execute</tool_name><tool_args><language>sh</language><code>ls -la</code></tool_args></tool_call>",
  ];
  const SCHEMAS: Record<string, unknown> = {
    "workdir required too": { type: "object", properties: { command: S, workdir: S }, required: ["command", "workdir"] },
    "its parameter is cmd": { type: "object", properties: { cmd: S }, required: ["cmd"] },
    "cmd, additionalProperties false": { type: "object", properties: { cmd: S }, additionalProperties: false },
    "command is an array": { type: "object", properties: { command: { type: "array", items: S } }, required: ["command"] },
    "command has a pattern": { type: "object", properties: { command: { type: "string", pattern: "^git " } }, required: ["command"] },
    "description must be one enum value": { type: "object", properties: { command: S, description: { type: "string", enum: ["x"] } }, required: ["command", "description"] },
    "description required in an allOf branch": { type: "object", properties: { command: S, description: S }, required: ["command"], allOf: [{ required: ["description"] }] },
    "no parameters at all (properties {})": { type: "object", properties: {} },
  };
  for (const [name, schema] of Object.entries(SCHEMAS)) {
    test(name, () => {
      for (const costume of COSTUMES) {
        const o = run(costume, [{ name: "bash", parameters: schema as ToolSpec["parameters"] }]);
        expect(o.calls).toEqual([]);
        expect(o.text).toContain(costume.split("\n")[0]!);
      }
    });
  }
  test("control: with no schema at all every costume runs as bash {command}", () => {
    for (const costume of COSTUMES) expect(run(costume, [{ name: "bash" }]).calls.map((c) => Object.keys(c.input))).toEqual([["command"]]);
  });
});

describe("parallel tool calls off (maxCalls 1): the first call runs, the rest are extra-call text, in every reader", () => {
  // The policy (src/engine/output.ts, test/adapters/one-call.test.ts): a call after the reply's one
  // call is handled as a call to a tool the request does not offer: its markup stays text, an
  // `extra-call` nudge. Checked here for every reader, and for a list that holds two calls in one
  // span (Mistral, Kimi, pythonic, DSML), whole and char by char.
  const two = (a: string, b: string) => `${a}\n${b}`;
  const TWO: Record<string, string> = {
    "mistral list": `[TOOL_CALLS][{"name": "bash", "arguments": {"command": "ls"}}, {"name": "bash", "arguments": {"command": "pwd"}}]`,
    kimi: `<|tool_calls_section_begin|><|tool_call_begin|>functions.bash:0<|tool_call_argument_begin|>{"command": "ls"}<|tool_call_end|><|tool_call_begin|>functions.bash:1<|tool_call_argument_begin|>{"command": "pwd"}<|tool_call_end|><|tool_calls_section_end|>`,
    pythonic: `<|tool_call_start|>[bash(command="ls"), bash(command="pwd")]<|tool_call_end|>`,
    dsml: live(`<{D}tool_calls>\n<{D}invoke name="bash">\n<{D}parameter name="command" string="true">ls</{D}parameter>\n</{D}invoke>\n<{D}invoke name="bash">\n<{D}parameter name="command" string="true">pwd</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`),
    hermes: two(JSON_READERS.hermes!("bash", `{"command": "ls"}`), JSON_READERS.hermes!("bash", `{"command": "pwd"}`)),
    "qwen3-coder": two(TEXT_READERS["qwen3-coder"]!("bash", [["command", "ls"]]), TEXT_READERS["qwen3-coder"]!("bash", [["command", "pwd"]])),
    glm: two(TEXT_READERS.glm!("bash", [["command", "ls"]]), TEXT_READERS.glm!("bash", [["command", "pwd"]])),
    "minimax bracket": two(minimaxBracket("bash", `--command "ls"`), minimaxBracket("bash", `--command "pwd"`)),
    costumes: "<shell>\nls\n</shell>\n<shell>\npwd\n</shell>",
    "two dialects": two(JSON_READERS.hermes!("bash", `{"command": "ls"}`), "<shell>\npwd\n</shell>"),
  };
  function oneCall(input: string, cuts: readonly number[]) {
    const engine = createRepairEngine({ tools: TOOLS, maxCalls: 1, bufferLimit: Number.MAX_SAFE_INTEGER, idPrefix: "call_" });
    const events = [];
    let prev = 0;
    for (const cut of [...cuts, input.length]) {
      events.push(...engine.feed(input.slice(prev, cut)));
      prev = cut;
    }
    events.push(...engine.flush());
    const calls = events.flatMap((e) => (e.type === "call" ? [{ tool: e.call.tool, input: e.call.input }] : []));
    return { calls, broken: engine.summary().broken.map((b) => b.reason), nudge: engine.summary().nudge };
  }
  for (const [name, reply] of Object.entries(TWO)) {
    test(name, () => {
      const input = `Doing it.\n${reply}`;
      const whole = oneCall(input, []);
      expect(whole).toEqual({ calls: [{ tool: "bash", input: { command: "ls" } }], broken: ["extra-call"], nudge: "extra-call" });
      expect(oneCall(input, everyChar(input.length))).toEqual(whole);
    });
  }
});
