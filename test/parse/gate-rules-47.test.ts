/**
 * Review 47's schema-gate rules (fx-47-gate), beyond the reviewer's own tests
 * (test/hostile/review-47-schema-gate.test.ts): each rule through parse(), the engine at every
 * split, the middleware and the fetch wires, with controls that run.
 *  - own properties only (ajv ownProperties);
 *  - a name declared twice: the call must fit every declaration, an exact duplicate changes nothing;
 *  - a schema that is not an object fails closed on every wire;
 *  - a place whose schema admits a string keeps the raw text (type arrays, anyOf, allOf, $ref);
 *  - a number literal that reads as another integer is refused;
 *  - a key that names a prototype member refuses the call (broken-markup).
 */
import { describe, expect, test } from "bun:test";
import { parse } from "../../src/engine/parse.ts";
import { repairFetch } from "../../src/adapters/fetch.ts";
import { SchemaGate } from "../../src/parse/schema-gate.ts";
import { itemSchema, propertySchema, schemaTypes } from "../../src/parse/schema-walk.ts";
import type { JsonSchema, ToolSpec } from "../../src/parse/types.ts";
import { live } from "../golden/notation.ts";
import { completion, sdkTools, textStream, throughFetch, throughMiddleware } from "../security/support.ts";
import { runAtEverySplit } from "../support/run-engine.ts";

const hermes = (tool: string, args: string) => `<tool_call>\n{"name": "${tool}", "arguments": ${args}}\n</tool_call>`;
const dsml = (tool: string, params: [string, string, ("true" | "false")?][]) =>
  live(`<{D}tool_calls>\n<{D}invoke name="${tool}">\n${params.map(([k, v, s = "true"]) => `<{D}parameter name="${k}" string="${s}">${v}</{D}parameter>`).join("\n")}\n</{D}invoke>\n</{D}tool_calls>`);
const inputs = (reply: string, tools: ToolSpec[]) => parse(`Doing it.\n${reply}`, tools).calls.map((c) => c.input);
const prompt = [{ role: "user" as const, content: [{ type: "text" as const, text: "go" }] }];

async function postJson(path: string, request: object, answer: object): Promise<Record<string, unknown>> {
  const upstream = (async () => new Response(JSON.stringify(answer), { headers: { "content-type": "application/json" } })) as unknown as typeof fetch;
  const res = await repairFetch({}, upstream)(`http://127.0.0.1:1${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(request) });
  return (await res.json()) as Record<string, unknown>;
}
const anthropicAnswer = (text: string) => ({ id: "msg_47", type: "message", role: "assistant", model: "m", content: [{ type: "text", text }], stop_reason: "end_turn", usage: { input_tokens: 1, output_tokens: 1 } });
const responsesAnswer = (text: string) => ({ id: "resp_47", object: "response", created_at: 1, status: "completed", model: "m", output: [{ id: "msg_47", type: "message", status: "completed", role: "assistant", content: [{ type: "output_text", text, annotations: [] }] }] });
const toolUses = (out: Record<string, unknown>) => (out.content as { type: string }[]).filter((b) => b.type === "tool_use");
const functionCalls = (out: Record<string, unknown>) => (out.output as { type: string }[]).filter((i) => i.type === "function_call");

describe("a name declared twice: the call must fit every declaration", () => {
  const strict: ToolSpec = { name: "bash", parameters: { type: "object", properties: { command: { type: "string", enum: ["ls", "pwd"] } }, required: ["command"], additionalProperties: false } };
  const loose: ToolSpec = { name: "bash", parameters: { type: "object" } };
  const bad = hermes("bash", '{"command": "rm -rf ~"}');
  const good = hermes("bash", '{"command": "ls"}');

  test("either order refuses what one declaration forbids, and runs what both allow", () => {
    for (const tools of [[strict, loose], [loose, strict], [strict, loose, strict]]) {
      expect(inputs(bad, tools)).toEqual([]);
      expect(inputs(good, tools)).toEqual([{ command: "ls" }]);
    }
  });

  test("an exact duplicate changes nothing (the same object, or an equal copy)", () => {
    const copy: ToolSpec = JSON.parse(JSON.stringify(strict)) as ToolSpec;
    for (const tools of [[strict, strict], [strict, copy], [loose, { ...loose }]]) {
      expect(inputs(good, tools)).toEqual([{ command: "ls" }]);
    }
    expect(inputs(bad, [loose, { ...loose }])).toEqual([{ command: "rm -rf ~" }]);
    expect(inputs(bad, [strict, copy])).toEqual([]);
  });

  test("two schema-less declarations are one; a schema-less one beside a strict one is gated by the strict one", () => {
    expect(inputs(bad, [{ name: "bash" }, { name: "bash" }])).toEqual([{ command: "rm -rf ~" }]);
    expect(inputs(bad, [{ name: "bash" }, strict])).toEqual([]);
    expect(inputs(bad, [strict, { name: "bash" }])).toEqual([]);
  });

  test("read with every declaration; one that reads the markup, or coerces what was read, into other values refuses the call", () => {
    const asNumber: ToolSpec = { name: "sleep", parameters: { type: "object", properties: { n: { type: "number" } } } };
    const asAny: ToolSpec = { name: "sleep", parameters: { type: "object", properties: { n: {} } } };
    // Read as the untyped first declaration reads it, "5" stays "5"; the number declaration would send 5.
    expect(inputs(hermes("sleep", '{"n": "5"}'), [asAny, asNumber])).toEqual([]);
    // The other order too (review 47b): the number declaration reads 5, the untyped one "5"; it ran
    // with 5 when only the first declaration read the markup (src/parse/span.ts sameUnderEveryDeclaration).
    expect(inputs(hermes("sleep", '{"n": "5"}'), [asNumber, asAny])).toEqual([]);
    expect(inputs(hermes("sleep", '{"n": 5}'), [asAny, asNumber])).toEqual([{ n: 5 }]);
    expect(inputs(hermes("sleep", '{"n": 5}'), [asNumber, asAny])).toEqual([{ n: 5 }]);
  });

  test("the gate alone: every declaration is checked, the detail names the one that refused", () => {
    const gate = new SchemaGate([strict, loose]);
    expect(gate.check(loose, { command: "rm -rf ~" })).toMatchObject({ ok: false, parameter: "command" });
    expect(gate.check(strict, { command: "pwd" })).toEqual({ ok: true, input: { command: "pwd" } });
    // Without the list (one declaration known), the loose one alone decides, as before.
    expect(new SchemaGate().check(loose, { command: "rm -rf ~" }).ok).toBe(true);
  });

  test("at every split", () => {
    expect(runAtEverySplit(`Doing it.\n${bad}`, [strict, loose]).calls).toEqual([]);
    expect(runAtEverySplit(`Doing it.\n${dsml("bash", [["command", "rm -rf ~"]])}`, [strict, loose]).calls).toEqual([]);
  });

  test("the middleware, Anthropic and Responses: the same", async () => {
    const out = await throughMiddleware(prompt, textStream(`Running:\n${bad}`), {}, { tools: sdkTools([strict, loose]) });
    expect(out.calls).toEqual([]);
    const control = await throughMiddleware(prompt, textStream(`Running:\n${good}`), {}, { tools: sdkTools([strict, loose]) });
    expect(control.calls).toHaveLength(1);
    const anthropicTools = [strict, loose].map((t) => ({ name: t.name, input_schema: t.parameters }));
    expect(toolUses(await postJson("/v1/messages", { model: "m", max_tokens: 64, tools: anthropicTools, messages: [{ role: "user", content: "go" }] }, anthropicAnswer(`Running:\n${bad}`)))).toEqual([]);
    expect(toolUses(await postJson("/v1/messages", { model: "m", max_tokens: 64, tools: anthropicTools, messages: [{ role: "user", content: "go" }] }, anthropicAnswer(`Running:\n${good}`)))).toHaveLength(1);
    const responsesTools = [strict, loose].map((t) => ({ type: "function", name: t.name, parameters: t.parameters }));
    expect(functionCalls(await postJson("/v1/responses", { model: "m", input: "go", tools: responsesTools }, responsesAnswer(`Running:\n${bad}`)))).toEqual([]);
    expect(functionCalls(await postJson("/v1/responses", { model: "m", input: "go", tools: responsesTools }, responsesAnswer(`Running:\n${good}`)))).toHaveLength(1);
  });
});

describe("a schema that is not an object fails closed on every wire; an absent one means none where no schema is given", () => {
  const reply = `Running:\n${hermes("bash", '{"command": "ls"}')}`;

  // Review 55: an absent `parameters` on chat (and Responses) is OpenAI's empty parameter list, no
  // longer "none": the call with a key is refused, the call with none runs.
  test("chat: null fails closed, an absent schema is an empty parameter list", async () => {
    const run = async (fn: Record<string, unknown>, said = reply) => (await throughFetch({ messages: [{ role: "user", content: "go" }], tools: [{ type: "function", function: fn }] }, { json: completion(said) })).out.calls;
    expect(await run({ name: "bash", parameters: null })).toEqual([]);
    expect(await run({ name: "bash", parameters: [] })).toEqual([]);
    expect(await run({ name: "bash" })).toEqual([]);
    expect(await run({ name: "bash" }, `Running:\n${hermes("bash", "{}")}`)).toHaveLength(1);
  });

  test("Anthropic and Responses: a string schema fails closed, an object one runs", async () => {
    const messages = (input_schema: unknown) => ({ model: "m", max_tokens: 64, tools: [{ name: "bash", input_schema }], messages: [{ role: "user", content: "go" }] });
    expect(toolUses(await postJson("/v1/messages", messages("object"), anthropicAnswer(reply)))).toEqual([]);
    expect(toolUses(await postJson("/v1/messages", messages({ type: "object" }), anthropicAnswer(reply)))).toHaveLength(1);
    const responses = (parameters: unknown) => ({ model: "m", input: "go", tools: [{ type: "function", name: "bash", parameters }] });
    expect(functionCalls(await postJson("/v1/responses", responses("object"), responsesAnswer(reply)))).toEqual([]);
    expect(functionCalls(await postJson("/v1/responses", responses({ type: "object" }), responsesAnswer(reply)))).toHaveLength(1);
  });

  test("streamed chat: the same", async () => {
    const { sseText, deltas } = await import("../security/support.ts");
    const body = (parameters: unknown) => ({ messages: [{ role: "user", content: "go" }], tools: [{ type: "function", function: { name: "bash", parameters } }] });
    expect((await throughFetch(body(false), { sse: sseText(deltas(reply, 5)) })).out.calls).toEqual([]);
    expect((await throughFetch(body({ type: "object" }), { sse: sseText(deltas(reply, 5)) })).out.calls).toHaveLength(1);
  });
});

describe("ajv counts own properties only", () => {
  test("required in a oneOf branch and in nested objects; dependentRequired through the wire", async () => {
    const t: ToolSpec = { name: "t", parameters: { type: "object", properties: { a: { type: "string" } }, oneOf: [{ required: ["constructor"] }, { required: ["a"] }] } };
    expect(inputs(hermes("t", "{}"), [t])).toEqual([]);
    expect(inputs(hermes("t", '{"a": "x"}'), [t])).toEqual([{ a: "x" }]);
    const wipe: ToolSpec = { name: "wipe", parameters: { type: "object", properties: { force: { type: "boolean" }, hasOwnProperty: {} }, dependentRequired: { force: ["hasOwnProperty"] } } };
    const { out } = await throughFetch({ messages: [{ role: "user", content: "go" }], tools: [{ type: "function", function: { name: "wipe", parameters: wipe.parameters } }] }, { json: completion(hermes("wipe", '{"force": true}')) });
    expect(out.calls).toEqual([]);
  });

  test("an optional typed toString the model omitted, and one it wrote (a string) both run", () => {
    const t: ToolSpec = { name: "t", parameters: { type: "object", properties: { toString: { type: "string" }, valueOf: { type: "number" } }, additionalProperties: false } };
    expect(inputs(hermes("t", "{}"), [t])).toEqual([{}]);
    expect(inputs(hermes("t", '{"toString": "x", "valueOf": 2}'), [t])).toEqual([{ toString: "x", valueOf: 2 }]);
    expect(inputs(hermes("t", '{"toString": 5}'), [t])).toEqual([{ toString: "5" }]);
    expect(inputs(hermes("t", '{"valueOf": "x"}'), [t])).toEqual([]);
  });
});

describe("a place whose schema admits a string keeps the raw text, whatever string= says", () => {
  const value = '"echo a\\nrm -rf ~"';
  const schemas: [string, JsonSchema][] = [
    ["type string", { type: "object", properties: { command: { type: "string" } } }],
    ["oneOf string | array", { type: "object", properties: { command: { oneOf: [{ type: "string" }, { type: "array" }] } } }],
    ["$ref to a $ref to a string", { type: "object", $defs: { S: { $ref: "#/$defs/T" }, T: { type: "string" } }, properties: { command: { $ref: "#/$defs/S" } } }],
    ["draft-07 definitions", { type: "object", definitions: { S: { type: ["null", "string"] } }, properties: { command: { $ref: "#/definitions/S" } } }],
    ["allOf [anyOf [string, null]]", { type: "object", properties: { command: { allOf: [{ anyOf: [{ type: "string" }, { type: "null" }] }] } } }],
    ["an object reached through $ref", { type: "object", $defs: { Args: { type: "object", properties: { command: { type: ["string", "null"] } } } }, properties: { args: { $ref: "#/$defs/Args" } } }],
  ];

  for (const [name, parameters] of schemas) {
    test(`${name}: the raw text, at every split`, () => {
      const tool: ToolSpec = { name: "bash", parameters };
      if (name.startsWith("an object")) {
        // A Hermes string inside an object reached through $ref: its place admits a string, so the text stays.
        const reply = `Doing it.\n${hermes("bash", `{"args": {"command": ${JSON.stringify(value)}}}`)}`;
        expect(runAtEverySplit(reply, [tool]).calls.map((c) => c.input)).toEqual([{ args: { command: value } }]);
        return;
      }
      const reply = `Doing it.\n${dsml("bash", [["command", value, "false"]])}`;
      expect(runAtEverySplit(reply, [tool]).calls.map((c) => c.input)).toEqual([{ command: value }]);
    });
  }

  test("without a string, string=\"false\" still reads JSON (an integer through $ref, null through anyOf)", () => {
    const tool: ToolSpec = { name: "t", parameters: { type: "object", $defs: { I: { type: "integer" } }, properties: { n: { $ref: "#/$defs/I" }, m: { anyOf: [{ type: "integer" }, { type: "null" }] } } } };
    expect(inputs(dsml("t", [["n", "42", "false"], ["m", "null", "false"]]), [tool])).toEqual([{ n: 42, m: null }]);
    // A Hermes string for an integer reached through $ref is typed as for type integer.
    expect(inputs(hermes("t", '{"n": "42"}'), [tool])).toEqual([{ n: 42 }]);
  });

  test("the walk: $ref chains, a cycle, a pointer with escapes, a ref that leaves the document", () => {
    const root: JsonSchema = { type: "object", $defs: { "a/b": { type: "string" }, "c~d": { $ref: "#/$defs/a~1b" }, loop: { $ref: "#/$defs/loop" }, far: { $ref: "http://x.test/s.json" } }, properties: { p: { $ref: "#/$defs/c~0d" }, q: { $ref: "#/$defs/loop" }, r: { $ref: "#/$defs/far" }, items: { type: "array", items: { $ref: "#/$defs/a~1b" } } } };
    expect([...schemaTypes(propertySchema(root, "p"))]).toEqual(["string"]);
    expect([...schemaTypes(propertySchema(root, "q"))]).toEqual([]);
    expect([...schemaTypes(propertySchema(root, "r"))]).toEqual([]);
    expect([...schemaTypes(itemSchema(propertySchema(root, "items")!, 3))]).toEqual(["string"]);
    expect(propertySchema(root, "constructor")).toBeUndefined();
  });
});

describe("number literals that read as another integer", () => {
  const getter: ToolSpec = { name: "get", parameters: { type: "object", properties: { id: { type: "integer" }, x: { type: "number" } } } };

  test("refused at every split and through the middleware; their exact spellings run", async () => {
    for (const spelling of ["1234567890123456789.0", "9007199254740993e0", "1.0000000000000001"]) {
      expect(runAtEverySplit(`Doing it.\n${hermes("get", `{"id": ${spelling}}`)}`, [getter]).calls).toEqual([]);
      const out = await throughMiddleware(prompt, textStream(`Doing it.\n${hermes("get", `{"id": ${spelling}}`)}`), {}, { tools: sdkTools([getter]) });
      expect(out.calls).toEqual([]);
    }
    expect(inputs(hermes("get", '{"id": 9007199254740992.0, "x": 1.5e300}'), [getter])).toEqual([{ id: 9007199254740992, x: 1.5e300 }]);
    expect(inputs(hermes("get", '{"x": 0.1}'), [getter])).toEqual([{ x: 0.1 }]);
  });

  test("whatever the schema (a number parameter too), as the plain spelling", () => {
    expect(inputs(hermes("get", '{"x": 1234567890123456789.0}'), [getter])).toEqual([]);
    expect(inputs(hermes("get", '{"x": 1234567890123456789}'), [getter])).toEqual([]);
    expect(inputs(hermes("get", '{"x": 1e-400}'), [getter])).toEqual([]);
  });
});

describe("a key that names a prototype member refuses the call", () => {
  const bash: ToolSpec = { name: "bash", parameters: { type: "object", properties: { command: { type: "string" }, env: {} }, required: ["command"] } };

  test("at any depth, in a DSML string=\"false\" value for an untyped or object place, at every split", () => {
    for (const env of ['{"a": {"b": [{"constructor": 1}]}}', '{"prototype": 1}']) {
      const run = runAtEverySplit(`Doing it.\n${dsml("bash", [["command", "ls"], ["env", env, "false"]])}`, [bash]);
      expect(run.calls).toEqual([]);
      expect(run.summary.broken.map((b) => b.reason)).toEqual(["broken-markup"]);
    }
    const objectEnv: ToolSpec = { name: "bash", parameters: { type: "object", properties: { command: { type: "string" }, env: { type: "object" } } } };
    expect(inputs(dsml("bash", [["command", "ls"], ["env", "{'__proto__': 1}", "false"]]), [objectEnv])).toEqual([]);
    // Control: ordinary keys run.
    expect(inputs(dsml("bash", [["command", "ls"], ["env", '{"a": {"b": [{"c": 1}]}}', "false"]]), [bash])).toEqual([{ command: "ls", env: { a: { b: [{ c: 1 }] } } }]);
  });

  test("a Hermes string for an object place that names one: refused, not run as text", () => {
    const objectEnv: ToolSpec = { name: "bash", parameters: { type: "object", properties: { command: { type: "string" }, env: { type: "object" } } } };
    const out = parse(hermes("bash", `{"command": "ls", "env": ${JSON.stringify('{"constructor": 1}')}}`), [objectEnv]);
    expect(out.calls).toEqual([]);
    expect(out.broken.map((b) => b.reason)).toEqual(["broken-markup"]);
  });

  test("the correction says why, naming none of the model's other text", () => {
    const out = parse(hermes("bash", '{"command": "ls", "constructor": "rm -rf ~"}'), [bash]);
    expect(out.broken.map((b) => b.detail)).toEqual(["an argument is named __proto__, constructor or prototype, which no call may carry"]);
  });

  test("Anthropic and Responses refuse it too", async () => {
    const reply = `Running:\n${hermes("bash", '{"command": "ls", "__proto__": {"x": 1}}')}`;
    expect(toolUses(await postJson("/v1/messages", { model: "m", max_tokens: 64, tools: [{ name: "bash", input_schema: bash.parameters }], messages: [{ role: "user", content: "go" }] }, anthropicAnswer(reply)))).toEqual([]);
    expect(functionCalls(await postJson("/v1/responses", { model: "m", input: "go", tools: [{ type: "function", name: "bash", parameters: bash.parameters }] }, responsesAnswer(reply)))).toEqual([]);
    expect(({} as Record<string, unknown>).x).toBeUndefined();
  });
});
