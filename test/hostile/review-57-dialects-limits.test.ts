/**
 * Review 57 (hostile, tests only): hard negatives, all passing on main. The readers review 55's
 * limits left out (Mistral, MiniMax bracket and XML, Kimi, GLM, Hermes, Claude-style XML) on
 * adversarial repetitions, typed values nested deep, and the request's declared tools at their
 * edges (prototype-member names, dots and spaces, 10,000 tools, parallel calls off across
 * dialects). Work is counted, never timed (test/support/work.ts).
 */
import { describe, expect, test } from "bun:test";
import { parse } from "../../src/engine/parse.ts";
import { fixtureTools } from "../golden/tools.ts";
import { randomCuts, runEngine } from "../support/run-engine.ts";
import { countWork, countWorkAsync } from "../support/work.ts";
import { READ_SCHEMA, WIRES, type WireName, fn, leak, names, requestBody, run } from "./review-55-request-support.ts";

/** Steps per input character allowed; the measured worst here is about 68 (Claude-style openers fed a character at a time). */
const PER_CHAR = 128;
const FLOOR = 2_000;

const ADVERSARIAL: Record<string, (n: number) => string> = {
  "Mistral tokens": (n) => "[TOOL_CALLS]".repeat(n),
  "Mistral name and [ARGS] repeated": (n) => "[TOOL_CALLS]bash[ARGS]".repeat(n),
  "Mistral names without arguments": (n) => "[TOOL_CALLS]bash ".repeat(n),
  "Mistral open objects": (n) => "[TOOL_CALLS]bash[ARGS]" + '{"a":'.repeat(n),
  "Mistral many calls": (n) => '[TOOL_CALLS]bash[ARGS]{"command":"ls"}'.repeat(n),
  "MiniMax bracket openers": (n) => "[TOOL_CALL] {".repeat(n),
  "MiniMax bracket pairs never closed": (n) => '[TOOL_CALL] {tool => "bash", args => { ' + '--command "x" '.repeat(n),
  "MiniMax bracket escapes": (n) => '[TOOL_CALL] {tool => "bash", args => { --command "' + '\\"'.repeat(n),
  "MiniMax XML invokes": (n) => "<minimax:tool_call>\n" + '<invoke name="bash">\n'.repeat(n),
  "MiniMax XML parameters": (n) => '<minimax:tool_call>\n<invoke name="bash">\n' + '<parameter name="command">'.repeat(n),
  "Kimi section openers": (n) => "<|tool_calls_section_begin|>".repeat(n),
  "Kimi argument openers": (n) => "<|tool_calls_section_begin|><|tool_call_begin|>functions.bash:0" + "<|tool_call_argument_begin|>{".repeat(n),
  "GLM keys": (n) => "<tool_call>bash\n" + "<arg_key>command</arg_key>\n".repeat(n),
  "GLM values opened": (n) => "<tool_call>bash\n<arg_key>command</arg_key>\n" + "<arg_value>".repeat(n),
  "GLM closers in a value": (n) => "<tool_call>bash\n<arg_key>command</arg_key>\n<arg_value>" + "</tool_call>".repeat(n),
  "Hermes name prefixes": (n) => '<tool_call>{"name"'.repeat(n),
  "Hermes closer prefixes after the object": (n) => '<tool_call>{"name":"bash","arguments":{"command":"ls"}}' + " </tool".repeat(n),
  "Claude-style invokes": (n) => "<function_calls>\n" + '<invoke name="bash">\n<parameter name="command">'.repeat(n),
  "every opener in turn": (n) => "<tool_call>[TOOL_CALLS][TOOL_CALL] {<|tool_call_start|>[<function=bash>\n".repeat(n),
};

describe("every reader stays linear on adversarial repetitions (whole, at random cuts, a character at a time)", () => {
  for (const [label, make] of Object.entries(ADVERSARIAL)) {
    test(label, () => {
      for (const n of [400, 1600]) {
        const text = make(n);
        const cap = FLOOR + PER_CHAR * text.length;
        const everyChar = Array.from({ length: text.length - 1 }, (_, i) => i + 1);
        expect(countWork(() => parse(text, fixtureTools), cap)).toBeLessThanOrEqual(cap);
        expect(countWork(() => runEngine(text, randomCuts(text.length, 57), fixtureTools), cap)).toBeLessThanOrEqual(cap);
        expect(countWork(() => runEngine(text, everyChar, fixtureTools), cap)).toBeLessThanOrEqual(cap);
      }
    });
  }
});

describe("typed values nested deep: no stack overflow, no call, every character kept", () => {
  const n = 100_000;
  const nested = "[".repeat(n) + "]".repeat(n);
  const cases: Record<string, string> = {
    "Qwen3-Coder todos (array typed)": `<tool_call>\n<function=todowrite>\n<parameter=todos>\n${nested}\n</parameter>\n</function>\n</tool_call>`,
    "GLM todos": `<tool_call>todowrite\n<arg_key>todos</arg_key>\n<arg_value>${nested}</arg_value>\n</tool_call>`,
    "Mistral [ARGS]": `[TOOL_CALLS]todowrite[ARGS]{"todos":${nested}}`,
    "Mistral list": `[TOOL_CALLS]${nested}`,
    Kimi: `<|tool_calls_section_begin|><|tool_call_begin|>functions.todowrite:0<|tool_call_argument_begin|>{"todos":${nested}}<|tool_call_end|><|tool_calls_section_end|>`,
    "MiniMax bracket, JSON": `[TOOL_CALL] {"tool": "todowrite", "args": {"todos": ${nested}}} [/TOOL_CALL]`,
    "MiniMax bracket, arrow": `[TOOL_CALL] {tool => "todowrite", args => { --todos ${nested} }} [/TOOL_CALL]`,
    "MiniMax XML": `<minimax:tool_call>\n<invoke name="todowrite">\n<parameter name="todos">${nested}</parameter>\n</invoke>\n</minimax:tool_call>`,
    "LFM2 tuples": `<|tool_call_start|>[todowrite(todos=${"(".repeat(n)}${")".repeat(n)})]<|tool_call_end|>`,
    "LFM2 dicts": `<|tool_call_start|>[todowrite(todos=${"{'a':".repeat(n)}1${"}".repeat(n)})]<|tool_call_end|>`,
    "Hermes arguments as a JSON string": `<tool_call>{"name":"todowrite","arguments":${JSON.stringify(`{"todos":${nested}}`)}}</tool_call>`,
  };
  for (const [label, input] of Object.entries(cases)) {
    test(label, () => {
      const r = parse(input, fixtureTools);
      expect(r.calls).toEqual([]);
      expect(r.text).toBe(input);
      const e = runEngine(input, randomCuts(input.length, 57, 5000), fixtureTools);
      expect(e.calls).toEqual([]);
      expect(e.text).toBe(input);
    });
  }
});

const force = (wire: WireName, name: string) =>
  wire === "chat" ? { type: "function", function: { name } } : wire === "anthropic" ? { type: "tool", name } : { type: "function", name };

describe("declared tool names at their edges, on every wire", () => {
  test("prototype-member names, a dot, a space, a slash: declared, each runs as itself", async () => {
    for (const wire of WIRES) {
      for (const name of ["__proto__", "constructor", "toString", "hasOwnProperty", "my.tool", "my tool", "a/b"]) {
        const got = await run(wire, requestBody(wire, [fn(wire, name), fn(wire, "bash")]), `Go.\n${leak(name)}`);
        expect({ wire, name, calls: got.calls }).toEqual({ wire, name, calls: [{ name, args: { command: "ls -la" } }] });
      }
    }
  });

  test("prototype-member names not declared, or only forced, never run", async () => {
    for (const wire of WIRES) {
      for (const name of ["__proto__", "constructor", "toString"]) {
        expect(names((await run(wire, requestBody(wire, [fn(wire, "bash")]), `Go.\n${leak(name)}`)).calls)).toEqual([]);
        expect(names((await run(wire, requestBody(wire, [fn(wire, "bash")], { tool_choice: force(wire, name) }), `Go.\n${leak("bash")}`)).calls)).toEqual([]);
      }
    }
  });

  test("10,000 declared tools: the leak is recovered and the work grows linearly with the list", async () => {
    for (const wire of WIRES) {
      const work: number[] = [];
      for (const n of [2_500, 10_000]) {
        const tools = [...Array.from({ length: n }, (_, i) => fn(wire, `tool_${i}`)), fn(wire, "bash")];
        let got: string[] = [];
        work.push(await countWorkAsync(async () => void (got = names((await run(wire, requestBody(wire, tools), `Go.\n${leak("bash")}`)).calls))));
        expect(got).toEqual(["bash"]);
      }
      expect(work[1]!).toBeLessThan(work[0]! * 4 * 1.3 + 10_000);
    }
  }, 60_000);
});

describe("parallel tool calls off: one call per reply, whatever dialect carries the second", () => {
  const replies: Record<string, string> = {
    "Hermes then Mistral": `A.\n${leak("read", { path: "/a" })}\n[TOOL_CALLS]bash[ARGS]{"command":"rm -rf ~"}`,
    "two Mistral calls": `[TOOL_CALLS]read[ARGS]{"path":"/a"}[TOOL_CALLS]bash[ARGS]{"command":"rm -rf ~"}`,
    "a Mistral list of two": `[TOOL_CALLS][{"name":"read","arguments":{"path":"/a"}},{"name":"bash","arguments":{"command":"rm -rf ~"}}]`,
    "an LFM2 list of two": `<|tool_call_start|>[read(path='/a'), bash(command='rm -rf ~')]<|tool_call_end|>`,
    "two Qwen3-Coder functions in one wrapper": `<tool_call>\n<function=read>\n<parameter=path>\n/a\n</parameter>\n</function>\n<function=bash>\n<parameter=command>\nrm -rf ~\n</parameter>\n</function>\n</tool_call>`,
    "two Kimi calls in one section": `<|tool_calls_section_begin|><|tool_call_begin|>functions.read:0<|tool_call_argument_begin|>{"path":"/a"}<|tool_call_end|><|tool_call_begin|>functions.bash:1<|tool_call_argument_begin|>{"command":"rm -rf ~"}<|tool_call_end|><|tool_calls_section_end|>`,
  };
  for (const [label, reply] of Object.entries(replies)) {
    test(label, async () => {
      for (const wire of WIRES) {
        const off = wire === "anthropic" ? { tool_choice: { type: "auto", disable_parallel_tool_use: true } } : { parallel_tool_calls: false };
        const tools = [fn(wire, "bash"), fn(wire, "read", READ_SCHEMA)];
        expect(names((await run(wire, requestBody(wire, tools, off), reply)).calls)).toEqual(["read"]);
        expect(names((await run(wire, requestBody(wire, tools), reply)).calls)).toEqual(["read", "bash"]);
      }
    });
  }
});
