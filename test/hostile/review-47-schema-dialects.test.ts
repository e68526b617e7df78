/**
 * Review 47: argument reading across every dialect, as hard negatives (all pass today). Each test
 * pins a way a call could run with arguments that were never written, were changed on the way,
 * or belong to a tool that was not declared; a regression in any reader fails it.
 */
import { describe, expect, test } from "bun:test";
import { parse } from "../../src/engine/parse.ts";
import type { ToolSpec } from "../../src/parse/types.ts";
import { live } from "../golden/notation.ts";
import { everyChar, observable, randomCuts, runEngine } from "../support/run-engine.ts";

const bash: ToolSpec = { name: "bash", parameters: { type: "object", properties: { command: { type: "string" }, timeout: { type: "number" } }, required: ["command"] } };

type Params = [string, string][];
/** One call to bash with the given raw parameter texts, written in each tag or text dialect. */
const DIALECTS: Record<string, (ps: Params) => string> = {
  dsml: (ps) => live(`<{D}tool_calls>\n<{D}invoke name="bash">\n${ps.map(([k, v]) => `<{D}parameter name="${k}" string="true">${v}</{D}parameter>`).join("\n")}\n</{D}invoke>\n</{D}tool_calls>`),
  "dsml element (I11)": (ps) => live(`<{D}bash>\n${ps.map(([k, v]) => `<{D}${k}>${v}</{D}${k}>`).join("\n")}\n</{D}bash>`),
  "claude xml": (ps) => `<function_calls>\n<invoke name="bash">\n${ps.map(([k, v]) => `<parameter name="${k}">${v}</parameter>`).join("\n")}\n</invoke>\n</function_calls>`,
  glm: (ps) => `<tool_call>bash\n${ps.map(([k, v]) => `<arg_key>${k}</arg_key>\n<arg_value>${v}</arg_value>`).join("\n")}\n</tool_call>`,
  "qwen3-coder": (ps) => `<tool_call>\n<function=bash>\n${ps.map(([k, v]) => `<parameter=${k}>\n${v}\n</parameter>`).join("\n")}\n</function>\n</tool_call>`,
  minimax: (ps) => `[TOOL_CALL] {tool => "bash", args => { ${ps.map(([k, v]) => `--${k} ${JSON.stringify(v)}`).join(" ")} }} [/TOOL_CALL]`,
  "pythonic (strings)": (ps) => `<|tool_call_start|>[bash(${ps.map(([k, v]) => `${k}=${JSON.stringify(v)}`).join(", ")})]<|tool_call_end|>`,
  "element form": (ps) => `<bash>\n${ps.map(([k, v]) => `<${k}>${v}</${k}>`).join("\n")}\n</bash>`,
};

function run(reply: string, tools: ToolSpec[] = [bash]) {
  const out = parse(`Doing it.\n${reply}`, tools);
  return { calls: out.calls.map((c) => ({ tool: c.tool, input: c.input })), broken: out.broken.map((b) => b.reason) };
}

describe("every dialect: a parameter written twice refuses the call (never first or last wins)", () => {
  for (const [name, write] of Object.entries(DIALECTS)) {
    test(name, () => {
      const out = run(write([["command", "ls"], ["command", "rm -rf ~"]]));
      expect(out.calls).toEqual([]);
      expect(out.broken).toHaveLength(1);
    });
  }

  test("JSON bodies: a key written twice, also when one spelling is escaped (Hermes, Mistral, legacy DeepSeek)", () => {
    const legacy = live('<{BAR}tool{SP}calls{SP}begin{BAR}><{BAR}tool{SP}call{SP}begin{BAR}>function<{BAR}tool{SP}sep{BAR}>bash\n```json\n{"command":"ls","comm\\u0061nd":"rm -rf ~"}\n```<{BAR}tool{SP}call{SP}end{BAR}><{BAR}tool{SP}calls{SP}end{BAR}>');
    for (const reply of [
      '<tool_call>\n{"name": "bash", "arguments": {"command": "ls", "comm\\u0061nd": "rm -rf ~"}}\n</tool_call>',
      '[TOOL_CALLS]bash[ARGS]{"command": "ls", "command": "rm -rf ~"}',
      '[TOOL_CALLS][{"name": "bash", "arguments": {"command": "ls", "command": "rm -rf ~"}}]',
      '<tool_call>\n{"name": "bash", "arguments": "{\\"command\\": \\"ls\\", \\"command\\": \\"rm -rf ~\\"}"}\n</tool_call>',
      legacy,
    ]) expect(run(reply).calls).toEqual([]);
  });

  test("JSON bodies: the call object naming `name` twice, or two argument keys, does not run", () => {
    expect(run('<tool_call>\n{"name": "read", "name": "bash", "arguments": {"command": "ls"}}\n</tool_call>').calls).toEqual([]);
    expect(run('<tool_call>\n{"name": "bash", "arguments": {"command": "ls"}, "input": {"command": "rm -rf ~"}}\n</tool_call>').calls).toEqual([]);
  });
});

describe("every dialect: a number JSON does not spell is no number, and a too-large one is no number", () => {
  // The value stays text, and a number parameter refuses it (never 16 for 0x10, 1000 for 1_000).
  for (const [name, write] of Object.entries(DIALECTS)) {
    test(name, () => {
      for (const raw of ["0x10", "1_000", "5.", ".5", "+5", "1e400", "12345678901234567890", "Infinity", "0755", "five"]) {
        const out = run(write([["command", "ls"], ["timeout", raw]]));
        expect({ raw, calls: out.calls }).toEqual({ raw, calls: [] });
      }
    });
  }

  test("pythonic literals: 0x10, 0o10, 1_000, True for a number, float('inf') do not run", () => {
    for (const arg of ["0x10", "0o10", "1_000", "True", "float('inf')", "1.", ".5", "+5"]) {
      expect(run(`<|tool_call_start|>[bash(command='ls', timeout=${arg})]<|tool_call_end|>`).calls).toEqual([]);
    }
  });

  test("a number where only a string fits goes out as its own text only when that is the text written", () => {
    const hermes = (v: string) => `<tool_call>\n{"name": "bash", "arguments": {"command": ${v}}}\n</tool_call>`;
    expect(run(hermes("600")).calls).toEqual([{ tool: "bash", input: { command: "600" } }]);
    for (const v of ["6e2", "600.0", "-0", "12345678901234567890", "1.10"]) expect(run(hermes(v)).calls).toEqual([]);
    expect(run("<|tool_call_start|>[bash(command=6e2)]<|tool_call_end|>").calls).toEqual([]);
  });
});

describe("tool and parameter names are matched exactly", () => {
  const near = ["BASH", " bash", "bash ", "ba\u200bsh", "functions.bash", "default_api.bash", "mcp__shell__bash", "\uff42\uff41\uff53\uff48", "bash()"];

  test("a near-miss tool name is an undeclared tool in DSML and Hermes", () => {
    for (const name of near) {
      const dsml = live(`<{D}tool_calls>\n<{D}invoke name="${name}">\n<{D}parameter name="command" string="true">ls</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`);
      const hermes = `<tool_call>\n{"name": ${JSON.stringify(name)}, "arguments": {"command": "ls"}}\n</tool_call>`;
      expect({ name, dsml: run(dsml).calls, hermes: run(hermes).calls }).toEqual({ name, dsml: [], hermes: [] });
    }
  });

  test("a near-miss parameter name never fills the declared one", () => {
    for (const param of ["Command", " command", "command ", "com\u200bmand", "comm&#97;nd", "command\u0000"]) {
      const out = run(DIALECTS.dsml!([[param, "rm -rf ~"]]));
      expect({ param, calls: out.calls }).toEqual({ param, calls: [] });
    }
  });

  test("Object.prototype names as tool names: undeclared ones are undeclared, declared ones are themselves", () => {
    for (const name of ["__proto__", "constructor", "toString", "hasOwnProperty"]) {
      const reply = `<tool_call>\n{"name": "${name}", "arguments": {"command": "ls"}}\n</tool_call>`;
      expect(run(reply).calls).toEqual([]);
      expect(run(reply, [{ name, parameters: bash.parameters }]).calls).toEqual([{ tool: name, input: { command: "ls" } }]);
    }
  });
});

describe("values keep what was written", () => {
  test("string parameters keep the text: no JSON reading, no trimming of content, no word typing", () => {
    for (const v of ['"quoted"', "true", "null", "600", '{"a": 1}', " ls ", "ls\n", "a\u0000b"]) {
      const out = run(live(`<{D}tool_calls>\n<{D}invoke name="bash">\n<{D}parameter name="command" string="false">${v}</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`));
      expect(out.calls).toEqual([{ tool: "bash", input: { command: v } }]);
    }
  });

  test("booleans: only JSON and Python spellings, never yes/on/1/tRue", () => {
    const t: ToolSpec = { name: "t", parameters: { type: "object", properties: { b: { type: "boolean" } }, required: ["b"] } };
    const call = (v: string) => live(`<{D}tool_calls>\n<{D}invoke name="t">\n<{D}parameter name="b" string="false">${v}</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`);
    for (const v of ["yes", "on", "1", "tRue", '"true"', "Yes"]) expect(run(call(v), [t]).calls).toEqual([]);
    expect(run(call("True"), [t]).calls).toEqual([{ tool: "t", input: { b: true } }]);
  });

  test("pythonic: implicit concatenation, r/b/f prefixes, non-string dict keys and sets are not read", () => {
    const t: ToolSpec = { name: "t", parameters: { type: "object", properties: { s: { type: "string" }, o: { type: "object" }, a: { type: "array" } } } };
    for (const arg of ["s='a' 'b'", "s=r'\\d'", "s=b'x'", "s=f'{x}'", "o={1: 'a'}", "o={True: 'a'}", "a={1, 2}", "s='a'+'b'", "s=x"]) {
      expect({ arg, calls: run(`<|tool_call_start|>[t(${arg})]<|tool_call_end|>`, [t]).calls }).toEqual({ arg, calls: [] });
    }
  });

  test("MiniMax: a bare (unquoted) value or an unknown escape is not read", () => {
    expect(run('[TOOL_CALL] {tool => "bash", args => { --command ls -la }} [/TOOL_CALL]').calls).toEqual([]);
    expect(run('[TOOL_CALL] {tool => "bash", args => { --command "a\\x41" }} [/TOOL_CALL]').calls).toEqual([]);
  });

  test("a legacy DeepSeek fence with two objects or trailing text does not run either object", () => {
    const legacy = (body: string) => live(`<{BAR}tool{SP}calls{SP}begin{BAR}><{BAR}tool{SP}call{SP}begin{BAR}>function<{BAR}tool{SP}sep{BAR}>bash\n${body}<{BAR}tool{SP}call{SP}end{BAR}><{BAR}tool{SP}calls{SP}end{BAR}>`);
    expect(run(legacy('```json\n{"command":"ls"}\n```')).calls).toHaveLength(1); // control
    for (const body of ['```json\n{"command":"ls"}\n{"command":"rm -rf ~"}\n```', '```json\n{"command":"ls"} rm -rf ~\n```', '{"command":"ls"} rm -rf ~']) {
      expect(run(legacy(body)).calls).toEqual([]);
    }
  });
});

describe("typed values are the same whole, char by char and at random splits", () => {
  const todo: ToolSpec = { name: "todowrite", parameters: { type: "object", properties: { todos: { type: "array", items: { type: "object", properties: { content: { type: "string" }, n: { type: "integer" } } } } }, required: ["todos"] } };
  const tools = [bash, todo];
  const dsml = (tool: string, ps: [string, string, string?][]) =>
    live(`<{D}tool_calls>\n<{D}invoke name="${tool}">\n${ps.map(([k, v, s]) => `<{D}parameter name="${k}"${s ? ` string="${s}"` : ""}>${v}</{D}parameter>`).join("\n")}\n</{D}invoke>\n</{D}tool_calls>`);
  const inputs = [
    dsml("bash", [["command", "a &amp;&amp; b", "true"], ["timeout", " 5 ", "false"]]),
    dsml("bash", [["command", "\r\nls\r\n"], ["timeout", "1e3"]]),
    dsml("bash", [["command", "ls"], ["timeout", "0755"]]),
    dsml("todowrite", [["todos", "[{'content': 'a', 'n': 5}]", "false"]]),
    dsml("todowrite", [["todos", '[{"content": 6e2}]', "false"]]),
    dsml("todowrite", [["todos", '[{"content": "x", "n": "5"}]']]),
    live(`<{D}bash>\n<{D}command>ls 2&gt;/dev/null</{D}command>\n<{D}timeout>600</{D}timeout>\n</{D}bash>`),
    "<tool_call>bash\n<arg_key>command</arg_key>\n<arg_value>a &amp;&amp; b</arg_value>\n<arg_key>timeout</arg_key>\n<arg_value>1e3</arg_value>\n</tool_call>",
    "<tool_call>\n<function=bash>\n<parameter=command>\nls\n</parameter>\n<parameter=timeout>\n 5 \n</parameter>\n</function>\n</tool_call>",
    '[TOOL_CALL] {tool => "bash", args => { --command "ls" --timeout 5 }} [/TOOL_CALL]',
    "<|tool_call_start|>[bash(command='ls', timeout=5)]<|tool_call_end|>",
    '<tool_call>\n{"name": "bash", "arguments": "{\\"command\\": \\"ls\\", \\"timeout\\": \\"5\\"}"}\n</tool_call>',
  ];
  for (const [i, raw] of inputs.entries()) {
    test(`input ${i + 1}`, () => {
      const input = `Doing it.\n${raw}`;
      const whole = parse(input, tools);
      const expected = { text: whole.text, calls: whole.calls.map((c) => c.input), broken: whole.broken.map((b) => b.reason) };
      for (const cuts of [everyChar(input.length), ...[1, 2, 3, 4, 5].map((seed) => randomCuts(input.length, seed))]) {
        const r = observable(runEngine(input, cuts, tools));
        expect({ text: r.text, calls: r.calls.map((c) => c.input), broken: r.broken.map((b) => b.reason) }).toEqual(expected);
      }
    });
  }
});
