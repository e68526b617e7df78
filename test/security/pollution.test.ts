/**
 * Threat 4, prototype pollution through parsed arguments: `__proto__`, `constructor` and
 * `prototype` keys in every dialect's arguments (DSML parameter names and string="false" JSON
 * values, raw JSON bodies, Hermes, Qwen3-Coder, GLM arg keys, Kimi, MiniMax, Mistral, Claude XML,
 * LFM2 pythonic dicts, legacy DeepSeek, the XML execute costume), at every depth, never reach a
 * prototype and no global prototype changes.
 *
 * Review 47: they were dropped and the rest of the call ran, so a call ran without what the model
 * wrote (an argument additionalProperties false forbids, or the value of a declared `prototype`
 * parameter). Rule now: a call whose markup names such a key anywhere is refused (broken-markup,
 * no call, text kept), as the element forms (I11, `<bash><constructor>`) already were; the same
 * markup with ordinary keys in their place runs (the control below).
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
/** The same tool, its schema admitting undeclared keys (the controls' ordinary keys `pp`, `cc`, `qq` stand where the polluting ones did). */
const OPEN_TOOLS: ToolSpec[] = TOOLS.map((t) => ({ ...t, parameters: { ...t.parameters, additionalProperties: true } }));
/** A JSON object value carrying every polluting key, plus one ordinary key that must survive. */
const P = '{"__proto__":{"polluted":1},"constructor":{"prototype":{"polluted":1}},"prototype":{"polluted":1},"ok":1}';
const legacy = (words: string) => `<${BAR}${words.split(" ").join(SP)}${BAR}>`;

const CASES: [string, string][] = [
  [
    "DSML parameters named __proto__ and constructor",
    live(`<{D}tool_calls>\n<{D}invoke name="bash">\n<{D}parameter name="command" string="true">ls</{D}parameter>\n<{D}parameter name="__proto__" string="false">{"polluted":1}</{D}parameter>\n<{D}parameter name="constructor" string="false">{"prototype":{"polluted":1}}</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`)
  ],
  ["DSML string=false JSON value", live(`<{D}tool_calls>\n<{D}invoke name="bash">\n<{D}parameter name="command" string="true">ls</{D}parameter>\n<{D}parameter name="env" string="false">${P}</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`)],
  ["DSML arguments wrapper", live(`<{D}tool_calls>\n<{D}invoke name="bash">\n<{D}parameter name="arguments" string="false">{"command":"ls","__proto__":{"polluted":1},"env":${P}}</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`)],
  ["raw JSON invoke body", live(`<{D}tool_calls>\n<{D}invoke name="bash">\n{"command":"ls","__proto__":{"polluted":1},"env":${P}}\n</{D}invoke>\n</{D}tool_calls>`)],
  ["Hermes arguments object", `<tool_call>\n{"name": "bash", "arguments": {"command": "ls", "__proto__": {"polluted": 1}, "env": ${P}}}\n</tool_call>`],
  ["Hermes arguments string", `<tool_call>\n{"name": "bash", "arguments": ${JSON.stringify(`{"command":"ls","__proto__":{"polluted":1},"env":${P}}`)}}\n</tool_call>`],
  ["Qwen3-Coder parameters", `<tool_call>\n<function=bash>\n<parameter=command>\nls\n</parameter>\n<parameter=__proto__>\n{"polluted":1}\n</parameter>\n<parameter=env>\n${P}\n</parameter>\n</function>\n</tool_call>`],
  [
    "GLM arg keys",
    `<tool_call>bash\n<arg_key>command</arg_key>\n<arg_value>ls</arg_value>\n<arg_key>__proto__</arg_key>\n<arg_value>{"polluted":1}</arg_value>\n<arg_key>constructor</arg_key>\n<arg_value>{"prototype":{"polluted":1}}</arg_value>\n<arg_key>env</arg_key>\n<arg_value>${P}</arg_value>\n</tool_call>`
  ],
  ["Kimi K2 arguments", `<|tool_calls_section_begin|><|tool_call_begin|>functions.bash:0<|tool_call_argument_begin|>{"command":"ls","__proto__":{"polluted":1},"env":${P}}<|tool_call_end|><|tool_calls_section_end|>`],
  ["MiniMax parameters", `<minimax:tool_call>\n<invoke name="bash">\n<parameter name="command">ls</parameter>\n<parameter name="__proto__">{"polluted":1}</parameter>\n<parameter name="env">${P}</parameter>\n</invoke>\n</minimax:tool_call>`],
  ["Mistral arguments", `[TOOL_CALLS]bash[ARGS]{"command":"ls","__proto__":{"polluted":1},"env":${P}}`],
  ["Claude XML parameters", `<function_calls>\n<invoke name="bash">\n<parameter name="command">ls</parameter>\n<parameter name="__proto__">{"polluted":1}</parameter>\n<parameter name="env">${P}</parameter>\n</invoke>\n</function_calls>`],
  [
    "LFM2 pythonic keyword and dict keys",
    `<|tool_call_start|>[bash(command='ls', __proto__={'polluted': 1}, env={'__proto__': {'polluted': 1}, 'constructor': {'prototype': {'polluted': 1}}, 'prototype': 1, 'ok': 1})]<|tool_call_end|>`
  ],
  ["legacy DeepSeek JSON", `${legacy("tool calls begin")}${legacy("tool call begin")}function${legacy("tool sep")}bash\n\`\`\`json\n{"command":"ls","__proto__":{"polluted":1},"env":${P}}\n\`\`\`${legacy("tool call end")}${legacy("tool calls end")}`],
  [
    "XML execute costume with __proto__ and constructor elements",
    "<tool_call><tool_name>execute</tool_name><tool_args><language>sh</language><code>ls</code><__proto__><polluted>1</polluted></__proto__><constructor><prototype><polluted>1</polluted></prototype></constructor></tool_args></tool_call>"
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

/** The same markup with ordinary keys where the polluting ones stood (the XML costume reads no other element: those go). */
function control(name: string, markup: string): string {
  if (name.startsWith("XML execute costume")) return markup.replace(/<__proto__>.*<\/constructor>/, "");
  return markup.replaceAll("__proto__", "pp").replaceAll("constructor", "cc").replaceAll("prototype", "qq");
}

describe("prototype-polluting keys in parsed arguments", () => {
  for (const [name, markup] of CASES) {
    test(`${name}: refused by parse() and the engine (broken-markup), never run without them`, () => {
      const parsed = parse(markup, TOOLS);
      expect(parsed.calls).toEqual([]);
      expect(parsed.broken.map((b) => b.reason)).toEqual(["broken-markup"]);
      expect(parsed.text).toBe(markup);

      const engine = createRepairEngine({ tools: TOOLS });
      const events = [...engine.feed(markup), ...engine.flush()];
      expect(events.filter((e) => e.type === "call")).toEqual([]);
      expect(events.flatMap((e) => (e.type === "text" ? [e.text] : [])).join("")).toBe(markup);
    });

    test(`${name}: control, the same markup with ordinary keys runs`, () => {
      // Review 50: keys a schema does not declare refuse the call unless it admits them, so the control's tool does.
      const parsed = parse(control(name, markup), OPEN_TOOLS);
      expect(parsed.calls).toHaveLength(1);
      expect(pollution(parsed.calls[0]!.input)).toEqual([]);
    });
  }

  test("through the fetch adapter no call reaches the client, and the text stays", async () => {
    for (const [name, markup] of CASES) {
      const { out } = await throughFetch({ messages: [{ role: "user", content: "go" }], tools: openAiTools(TOOLS) }, { json: completion(markup) });
      expect({ name, calls: out.calls.length }).toEqual({ name, calls: 0 });
    }
  });

  test("a string argument whose text holds such a key is text, and runs", () => {
    const write: ToolSpec = { name: "write", parameters: { type: "object", properties: { content: { type: "string" } }, required: ["content"] } };
    const text = '{"__proto__": {"x": 1}, "constructor": 1}';
    for (const markup of [
      `<tool_call>\n{"name": "write", "arguments": {"content": ${JSON.stringify(text)}}}\n</tool_call>`,
      live(`<{D}tool_calls>\n<{D}invoke name="write">\n<{D}parameter name="content" string="false">${text}</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`),
      `<tool_call>write\n<arg_key>content</arg_key>\n<arg_value>${text}</arg_value>\n</tool_call>`,
    ]) {
      expect(parse(markup, [write]).calls.map((c) => c.input)).toEqual([{ content: text }]);
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
