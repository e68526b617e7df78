/**
 * Review 42, area 3: the schema gate (src/parse/schema-gate.ts). A recovered call's arguments must
 * fit the tool's declared JSON Schema, or the call does not run.
 */
import { describe, expect, test } from "bun:test";
import { createRepairEngine } from "../../src/engine/engine.ts";
import type { JsonSchema, ToolSpec } from "../../src/parse/types.ts";
import { live } from "../golden/notation.ts";
import { completion, openAiTools, throughFetch } from "../security/support.ts";

/** A DSML block with one invoke; params as [name, raw value, string attribute]. */
const invoke = (tool: string, params: [string, string, "true" | "false"][]) =>
  live(`<{D}tool_calls>\n<{D}invoke name="${tool}">\n${params.map(([k, v, s]) => `<{D}parameter name="${k}" string="${s}">${v}</{D}parameter>`).join("\n")}\n</{D}invoke>\n</{D}tool_calls>`);

function run(reply: string, tools: ToolSpec[]) {
  const engine = createRepairEngine({ tools, idPrefix: "c_" });
  const events = [...engine.feed(reply), ...engine.flush()];
  return { calls: events.flatMap((e) => (e.type === "call" ? [e.call.input] : [])), broken: engine.summary().broken.map((b) => b.reason) };
}

/** The schema zod 4's toJSONSchema writes (OpenCode's tool definitions are zod): draft 2020-12. */
const DRAFT_2020 = "https://json-schema.org/draft/2020-12/schema";
const tool = (name: string, parameters: JsonSchema): ToolSpec => ({ name, parameters: { $schema: DRAFT_2020, ...parameters } });

describe("draft 2020-12 keywords are checked", () => {
  // Severity: wrong execution (medium: the call runs with arguments its schema rejects; the tool
  // may or may not validate again). Suspected: src/parse/schema-gate.ts compile(): it deletes
  // `$schema` and compiles every schema with ajv's default (draft-07) class under strict:false, so
  // the 2020-12 / 2019-09 keywords zod 4 emits are unknown and silently ignored: `prefixItems`
  // (z.tuple), `unevaluatedProperties`, `dependentRequired`, `dependentSchemas`, `minContains`.
  // Expected: each call below is broken (invalid-arguments) and does not run; the control with
  // arguments that fit runs.
  const pair = tool("move", { type: "object", properties: { to: { type: "array", prefixItems: [{ type: "string" }, { type: "integer" }] } }, required: ["to"] });

  test("control (passes today): a tuple that fits runs", () => {
    expect(run(invoke("move", [["to", '["x", 3]', "false"]]), [pair]).calls).toEqual([{ to: ["x", 3] }]);
  });

  test("prefixItems (z.tuple): a tuple of the wrong types does not run", () => {
    const out = run(invoke("move", [["to", '["x", "rm -rf ~"]', "false"]]), [pair]);
    expect(out.calls).toEqual([]);
    expect(out.broken).toEqual(["invalid-arguments"]);
  });

  test("unevaluatedProperties false: an extra parameter does not run", () => {
    const strict = tool("deploy", { type: "object", properties: { env: { type: "string" } }, required: ["env"], unevaluatedProperties: false });
    expect(run(invoke("deploy", [["env", "staging", "true"]]), [strict]).calls).toHaveLength(1); // control
    const out = run(invoke("deploy", [["env", "staging", "true"], ["force", "true", "true"]]), [strict]);
    expect(out.calls).toEqual([]);
  });

  test("dependentRequired: force without confirm does not run", () => {
    const guarded = tool("wipe", { type: "object", properties: { force: { type: "boolean" }, confirm: { type: "string" } }, dependentRequired: { force: ["confirm"] } });
    expect(run(invoke("wipe", [["force", "true", "false"], ["confirm", "yes", "true"]]), [guarded]).calls).toHaveLength(1); // control
    expect(run(invoke("wipe", [["force", "true", "false"]]), [guarded]).calls).toEqual([]);
  });

  test("dependentSchemas: the same rule written as a dependent schema", () => {
    const guarded = tool("wipe", { type: "object", properties: { force: { type: "boolean" }, confirm: { type: "string" } }, dependentSchemas: { force: { required: ["confirm"] } } });
    expect(run(invoke("wipe", [["force", "true", "false"]]), [guarded]).calls).toEqual([]);
  });

  test("the same through the fetch adapter: a chat tool declared with a 2020-12 tuple", async () => {
    const reply = `Moving:\n${invoke("move", [["to", '["x", "rm -rf ~"]', "false"]])}`;
    const { out } = await throughFetch({ messages: [{ role: "user", content: "go" }], tools: openAiTools([pair]) }, { json: completion(reply) });
    expect(out.calls).toEqual([]);
  });
});

describe("numbers keep the digits the model wrote", () => {
  // Severity: invented argument (low: a JavaScript host parses the same rounded double from the
  // model's own digits; a client behind `dsml-fix proxy` in Python, Go or Rust reads integers
  // exactly, so it gets a different id than the model wrote). Suspected: src/parse/values.ts
  // coerceValue() (Number(trimmed) for an integer parameter) and parseJson() (JSON.parse of a
  // JSON body): an integer past 2^53 is rounded, and the call goes on with digits the model never
  // wrote (coerceDeep already refuses exactly this for string parameters). Expected: the call is
  // refused like `1e999` is, or its arguments carry the written digits.
  const getter: ToolSpec = { name: "get_message", parameters: { type: "object", properties: { id: { type: "integer" } }, required: ["id"] } };
  const ID = "1234567890123456789";

  for (const [name, reply] of [
    ["a DSML parameter", invoke("get_message", [["id", ID, "false"]])],
    ["a Hermes JSON body", `<tool_call>\n{"name": "get_message", "arguments": {"id": ${ID}}}\n</tool_call>`],
  ] as const) {
    test(`${name}: an id past 2^53 is not sent rounded`, async () => {
      const { out } = await throughFetch({ messages: [{ role: "user", content: "go" }], tools: openAiTools([getter]) }, { json: completion(`Fetching:\n${reply}`) });
      for (const call of out.calls) expect(call.arguments).toContain(ID);
    });
  }

  test("hard negative (passes today): a safe integer goes through as written", async () => {
    const { out } = await throughFetch({ messages: [{ role: "user", content: "go" }], tools: openAiTools([getter]) }, { json: completion(`x\n${invoke("get_message", [["id", "9007199254740991", "false"]])}`) });
    expect(out.calls.map((c) => c.arguments)).toEqual(['{"id":9007199254740991}']);
  });
});

describe("hard negatives (pass today)", () => {
  const obj = (properties: Record<string, JsonSchema>, extra: JsonSchema = {}): ToolSpec => ({ name: "t", parameters: { type: "object", properties, ...extra } });

  test("a key that differs only by case is an extra key under additionalProperties false", () => {
    const out = run(invoke("t", [["command", "ls", "true"], ["Command", "rm -rf ~", "true"]]), [obj({ command: { type: "string" } }, { required: ["command"], additionalProperties: false })]);
    expect(out.calls).toEqual([]);
  });

  test("a nested object naming a key twice (JSON or Python spelling) does not run", () => {
    const schema = obj({ o: { type: "object" } }, { required: ["o"] });
    expect(run(invoke("t", [["o", '{"a": "ls", "a": "rm -rf ~"}', "false"]]), [schema]).calls).toEqual([]);
    expect(run(invoke("t", [["o", "{'a': 'ls', 'a': 'rm -rf ~'}", "false"]]), [schema]).calls).toEqual([]);
  });

  test("$ref to $defs is followed by the validator: a string for a number does not run", () => {
    const out = run(invoke("t", [["n", "many", "true"]]), [{ name: "t", parameters: { type: "object", properties: { n: { $ref: "#/$defs/N" } }, $defs: { N: { type: "number" } }, required: ["n"] } }]);
    expect(out.calls).toEqual([]);
  });

  test("NaN, Infinity, +5 and 0x10 are no numbers", () => {
    const schema = obj({ n: { type: "number" } }, { required: ["n"] });
    for (const raw of ["NaN", "Infinity", "+5", "0x10", "1e999"]) expect(run(invoke("t", [["n", raw, "false"]]), [schema]).calls).toEqual([]);
  });

  test("a __proto__ parameter never reaches the prototype of the recovered input", () => {
    const out = run(invoke("t", [["command", "ls", "true"], ["__proto__", '{"polluted": "yes"}', "false"]]), [obj({ command: { type: "string" } }, { required: ["command"] })]);
    for (const input of out.calls) expect(Object.getPrototypeOf(input)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
