/**
 * Threat 4, prototype pollution through parsed arguments: `__proto__`, `constructor` and
 * `prototype` keys in every dialect's arguments (DSML parameter names and string="false" JSON
 * values, raw JSON bodies, Hermes, Qwen3-Coder, GLM arg keys, Kimi, MiniMax, Mistral, Claude XML,
 * LFM2 pythonic dicts, legacy DeepSeek, the XML execute costume) are dropped at every depth; the
 * rest of the call survives; no global prototype changes; the client-facing JSON carries none.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { parse } from "../../src/engine/parse.ts";
import type { ToolSpec } from "../../src/parse/types.ts";
import { createRepairEngine } from "../../src/engine/engine.ts";
import { BAR, SP, live } from "../golden/notation.ts";
import { completion, openAiTools, throughFetch } from "./support.ts";

const TOOLS: ToolSpec[] = [
  { name: "bash", parameters: { type: "object", properties: { command: { type: "string" }, env: { type: "object" } }, required: ["command"] } },
];
/** A JSON object value carrying every polluting key, plus one ordinary key that must survive. */
const P = '{"__proto__":{"polluted":1},"constructor":{"prototype":{"polluted":1}},"prototype":{"polluted":1},"ok":1}';
const legacy = (words: string) => `<${BAR}${words.split(" ").join(SP)}${BAR}>`;

const CASES: [string, string, Record<string, unknown>][] = [
  [
    "DSML parameters named __proto__ and constructor",
    live(`<{D}tool_calls>\n<{D}invoke name="bash">\n<{D}parameter name="command" string="true">ls</{D}parameter>\n<{D}parameter name="__proto__" string="false">{"polluted":1}</{D}parameter>\n<{D}parameter name="constructor" string="false">{"prototype":{"polluted":1}}</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`),
    { command: "ls" },
  ],
  ["DSML string=false JSON value", live(`<{D}tool_calls>\n<{D}invoke name="bash">\n<{D}parameter name="command" string="true">ls</{D}parameter>\n<{D}parameter name="env" string="false">${P}</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`), { command: "ls", env: { ok: 1 } }],
  ["DSML arguments wrapper", live(`<{D}tool_calls>\n<{D}invoke name="bash">\n<{D}parameter name="arguments" string="false">{"command":"ls","__proto__":{"polluted":1},"env":${P}}</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`), { command: "ls", env: { ok: 1 } }],
  ["raw JSON invoke body", live(`<{D}tool_calls>\n<{D}invoke name="bash">\n{"command":"ls","__proto__":{"polluted":1},"env":${P}}\n</{D}invoke>\n</{D}tool_calls>`), { command: "ls", env: { ok: 1 } }],
  ["Hermes arguments object", `<tool_call>\n{"name": "bash", "arguments": {"command": "ls", "__proto__": {"polluted": 1}, "env": ${P}}}\n</tool_call>`, { command: "ls", env: { ok: 1 } }],
  ["Hermes arguments string", `<tool_call>\n{"name": "bash", "arguments": ${JSON.stringify(`{"command":"ls","__proto__":{"polluted":1},"env":${P}}`)}}\n</tool_call>`, { command: "ls", env: { ok: 1 } }],
  ["Qwen3-Coder parameters", `<tool_call>\n<function=bash>\n<parameter=command>\nls\n</parameter>\n<parameter=__proto__>\n{"polluted":1}\n</parameter>\n<parameter=env>\n${P}\n</parameter>\n</function>\n</tool_call>`, { command: "ls", env: { ok: 1 } }],
  [
    "GLM arg keys",
    `<tool_call>bash\n<arg_key>command</arg_key>\n<arg_value>ls</arg_value>\n<arg_key>__proto__</arg_key>\n<arg_value>{"polluted":1}</arg_value>\n<arg_key>constructor</arg_key>\n<arg_value>{"prototype":{"polluted":1}}</arg_value>\n<arg_key>env</arg_key>\n<arg_value>${P}</arg_value>\n</tool_call>`,
    { command: "ls", env: { ok: 1 } },
  ],
  ["Kimi K2 arguments", `<|tool_calls_section_begin|><|tool_call_begin|>functions.bash:0<|tool_call_argument_begin|>{"command":"ls","__proto__":{"polluted":1},"env":${P}}<|tool_call_end|><|tool_calls_section_end|>`, { command: "ls", env: { ok: 1 } }],
  ["MiniMax parameters", `<minimax:tool_call>\n<invoke name="bash">\n<parameter name="command">ls</parameter>\n<parameter name="__proto__">{"polluted":1}</parameter>\n<parameter name="env">${P}</parameter>\n</invoke>\n</minimax:tool_call>`, { command: "ls", env: { ok: 1 } }],
  ["Mistral arguments", `[TOOL_CALLS]bash[ARGS]{"command":"ls","__proto__":{"polluted":1},"env":${P}}`, { command: "ls", env: { ok: 1 } }],
  ["Claude XML parameters", `<function_calls>\n<invoke name="bash">\n<parameter name="command">ls</parameter>\n<parameter name="__proto__">{"polluted":1}</parameter>\n<parameter name="env">${P}</parameter>\n</invoke>\n</function_calls>`, { command: "ls", env: { ok: 1 } }],
  [
    "LFM2 pythonic keyword and dict keys",
    `<|tool_call_start|>[bash(command='ls', __proto__={'polluted': 1}, env={'__proto__': {'polluted': 1}, 'constructor': {'prototype': {'polluted': 1}}, 'prototype': 1, 'ok': 1})]<|tool_call_end|>`,
    { command: "ls", env: { ok: 1 } },
  ],
  ["legacy DeepSeek JSON", `${legacy("tool calls begin")}${legacy("tool call begin")}function${legacy("tool sep")}bash\n\`\`\`json\n{"command":"ls","__proto__":{"polluted":1},"env":${P}}\n\`\`\`${legacy("tool call end")}${legacy("tool calls end")}`, { command: "ls", env: { ok: 1 } }],
  [
    "XML execute costume with __proto__ and constructor elements",
    "<tool_call><tool_name>execute</tool_name><tool_args><language>sh</language><code>ls</code><__proto__><polluted>1</polluted></__proto__><constructor><prototype><polluted>1</polluted></prototype></constructor></tool_args></tool_call>",
    { command: "ls" },
  ],
];

const POLLUTING = ["__proto__", "constructor", "prototype"];

/** Own polluting keys and foreign prototypes anywhere in `value`, as paths. */
function pollution(value: unknown, at = "input"): string[] {
  if (typeof value !== "object" || value === null) return [];
  const proto = Object.getPrototypeOf(value);
  const out = proto === Object.prototype || proto === Array.prototype ? [] : [`${at}: foreign prototype`];
  for (const key of Object.getOwnPropertyNames(value)) {
    if (POLLUTING.includes(key)) out.push(`${at}.${key}`);
    out.push(...pollution((value as Record<string, unknown>)[key], `${at}.${key}`));
  }
  return out;
}

function expectCleanGlobals(): void {
  for (const proto of [Object.prototype, Array.prototype, Function.prototype]) expect(Object.getOwnPropertyNames(proto)).not.toContain("polluted");
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
}

afterEach(expectCleanGlobals);

describe("prototype-polluting keys in parsed arguments", () => {
  for (const [name, markup, expected] of CASES) {
    test(`${name}: dropped by parse() and the engine, the call kept`, () => {
      const parsed = parse(markup, TOOLS);
      expect(parsed.calls.map((c) => c.input)).toEqual([expected]);
      expect(pollution(parsed.calls[0]!.input)).toEqual([]);

      const engine = createRepairEngine({ tools: TOOLS });
      const events = [...engine.feed(markup), ...engine.flush()];
      const calls = events.flatMap((e) => (e.type === "call" ? [e.call] : []));
      expect(calls.map((c) => c.input)).toEqual([expected]);
      expect(pollution(calls[0]!.input)).toEqual([]);
    });
  }

  test("through the fetch adapter the client parses arguments that carry no polluting key", async () => {
    for (const [name, markup, expected] of CASES) {
      const { out } = await throughFetch({ messages: [{ role: "user", content: "go" }], tools: openAiTools(TOOLS) }, { json: completion(markup) });
      expect({ name, calls: out.calls.length }).toEqual({ name, calls: 1 });
      const args = JSON.parse(out.calls[0]!.arguments) as unknown;
      expect({ name, pollution: pollution(args) }).toEqual({ name, pollution: [] });
      expect(args).toEqual(expected);
    }
  });

  test("the check can fail: JSON.parse itself keeps an own __proto__ key", () => {
    expect(pollution(JSON.parse(P))).toContain("input.__proto__");
  });
});

describe("prototype-polluting tool names", () => {
  test("a request declaring tools named __proto__ or constructor cannot reach Object.prototype", async () => {
    const tools: ToolSpec[] = [{ name: "__proto__" }, { name: "constructor" }, { name: "hasOwnProperty" }];
    const markup = live(`<{D}tool_calls>\n<{D}invoke name="__proto__">\n<{D}parameter name="polluted" string="false">1</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`);
    const { out } = await throughFetch({ messages: [{ role: "user", content: "go" }], tools: openAiTools(tools) }, { json: completion(markup) });
    for (const call of out.calls) expect(pollution(JSON.parse(call.arguments))).toEqual([]);
    const undeclared = parse(live(`<{D}invoke name="toString">\n<{D}parameter name="x" string="true">1</{D}parameter>\n</{D}invoke>`), tools);
    expect(undeclared.calls).toEqual([]);
    expect(undeclared.nudge).toBe("undeclared-tool");
  });
});
