/**
 * Review 47: hostile review of the schema gate (src/parse/schema-gate.ts) and of what reaches it.
 * Trust rule: a recovered call runs only with arguments read from the markup that fit the tool's
 * declared JSON Schema. Failing tests are findings; tests marked "hard negative" pass today.
 */
import { describe, expect, test } from "bun:test";
import { parse } from "../../src/engine/parse.ts";
import { repairFetch } from "../../src/adapters/fetch.ts";
import type { JsonSchema, ToolSpec } from "../../src/parse/types.ts";
import { live } from "../golden/notation.ts";
import { completion, sdkTools, textStream, throughFetch, throughMiddleware } from "../security/support.ts";

/** A DSML block with one invoke; params as [name, raw value, string attribute]. */
const dsml = (tool: string, params: [string, string, ("true" | "false")?][]) =>
  live(`<{D}tool_calls>\n<{D}invoke name="${tool}">\n${params.map(([k, v, s = "true"]) => `<{D}parameter name="${k}" string="${s}">${v}</{D}parameter>`).join("\n")}\n</{D}invoke>\n</{D}tool_calls>`);
const hermes = (tool: string, args: string) => `<tool_call>\n{"name": "${tool}", "arguments": ${args}}\n</tool_call>`;

function run(reply: string, tools: ToolSpec[]) {
  const out = parse(`Doing it.\n${reply}`, tools);
  return { calls: out.calls.map((c) => c.input), broken: out.broken.map((b) => b.reason) };
}

describe("fixed: ajv reads Object.prototype members as arguments the model wrote", () => {
  // Fixed (fx-47-gate): ajv ran without `ownProperties`, so an inherited Object.prototype member
  // counted as a written argument. Rule now: only own properties are present (schema-gate.ts ajv()
  // sets ownProperties: true), for required, properties, dependentRequired and in every branch.
  // Severity: wrong execution (low: needs a schema that requires a property named after an
  // Object.prototype member and leaves its type open, e.g. zod's `z.unknown()` / `z.any()`, which
  // render as `{}`). ajv's generated code tests a required property as `data.valueOf !== undefined`
  // (its `ownProperties` option is off), so on a plain object every Object.prototype member
  // (constructor, toString, valueOf, hasOwnProperty, isPrototypeOf, __defineGetter__...) counts as
  // present, and an untyped schema accepts the inherited function. src/parse/call.ts
  // missingRequired() checks own keys, but only for the top-level `required`; a `required` inside
  // array items, a nested object, an anyOf/oneOf/allOf branch or a dependentRequired list reaches
  // ajv alone, and the call runs without the property its schema requires.
  // Expected: each call below is refused (invalid-arguments).
  // Suspected: src/parse/schema-gate.ts ajv() (no `ownProperties: true`).
  const patch: ToolSpec = {
    name: "patch_config",
    parameters: {
      type: "object",
      properties: { entries: { type: "array", items: { type: "object", properties: { key: { type: "string" }, valueOf: {} }, required: ["key", "valueOf"] } } },
      required: ["entries"],
    },
  };

  test("hard negative (passes today): an item with both required properties runs", () => {
    expect(run(hermes("patch_config", '{"entries": [{"key": "a", "valueOf": 1}]}'), [patch]).calls).toEqual([{ entries: [{ key: "a", valueOf: 1 }] }]);
  });

  test("hard negative (passes today): an item that lacks `key` is refused", () => {
    expect(run(hermes("patch_config", '{"entries": [{"valueOf": 1}]}'), [patch]).calls).toEqual([]);
  });

  test("array items: an item lacking its required `valueOf` does not run (Hermes)", () => {
    const out = run(hermes("patch_config", '{"entries": [{"key": "a"}]}'), [patch]);
    expect(out.calls).toEqual([]);
    expect(out.broken).toEqual(["invalid-arguments"]);
  });

  test("array items: the same through DSML string=\"false\"", () => {
    expect(run(dsml("patch_config", [["entries", '[{"key": "a"}]', "false"]]), [patch]).calls).toEqual([]);
  });

  test("anyOf branches at the top level: `required: [toString]` is satisfied by nothing the model wrote", () => {
    const fmt: ToolSpec = { name: "fmt", parameters: { type: "object", properties: { path: { type: "string" }, toString: {} }, required: ["path"], anyOf: [{ required: ["toString"] }] } };
    expect(run(hermes("fmt", '{"path": "a.ts", "toString": "x"}'), [fmt]).calls).toHaveLength(1); // control
    expect(run(hermes("fmt", '{"path": "a.ts"}'), [fmt]).calls).toEqual([]);
  });

  test("dependentRequired: force needs hasOwnProperty, which the model never wrote", () => {
    const wipe: ToolSpec = { name: "wipe", parameters: { type: "object", properties: { force: { type: "boolean" }, hasOwnProperty: {} }, dependentRequired: { force: ["hasOwnProperty"] } } };
    expect(run(hermes("wipe", '{"force": true}'), [wipe]).calls).toEqual([]);
  });

  // The same root cause the other way round (severity: availability, low): an OPTIONAL typed
  // parameter named after an Object.prototype member is read from the prototype when the model
  // omits it; ajv sees a function where the schema wants a string, and every such call is refused
  // with "parameter toString must be string", a correction naming a parameter the model never wrote.
  test("an optional `toString` parameter the model omitted does not refuse the call", () => {
    const klass: ToolSpec = { name: "new_class", parameters: { type: "object", properties: { name: { type: "string" }, toString: { type: "string" } }, required: ["name"] } };
    expect(run(hermes("new_class", '{"name": "A"}'), [klass]).calls).toEqual([{ name: "A" }]);
  });
});

describe("fixed: a prototype-named argument is dropped before the gate, so the call runs without it", () => {
  // Fixed (fx-47-gate): every reader dropped `__proto__`, `constructor` and `prototype` keys and
  // the call ran with the rest. Rule now: such a key is still never set on an object, but a call
  // whose markup names one at any depth is refused (broken-markup), as I11 and the element form
  // were: parseJson and the Python readers refuse the text (prototypeKey), the parameter readers
  // refuse the call, and a value read where it stood is a token the gate refuses.
  // Severity: wrong execution + lost text (medium-low). Every dialect drops `__proto__`,
  // `constructor` and `prototype` keys from the parsed arguments (docs/SECURITY.md section 4
  // documents the drop as pollution defence), and the call then RUNS with the rest. The key's
  // value is lost (neither visible nor in a call), and the gate never sees it: a tool whose schema
  // says additionalProperties/unevaluatedProperties false runs with an argument it forbids
  // silently removed; a tool that declares `prototype` runs without the value the model wrote for
  // it. The element form (I11, `<bash><constructor>`) already refuses such a call ("an element
  // is not a parameter of bash"), so the dialects disagree. Expected: a call whose markup carried a
  // polluting key is refused (broken-markup or invalid-arguments), never run without it.
  // Suspected: src/parse/values.ts readValue()/readExactly() (JSON), src/parse/invoke-input.ts
  // buildAnyInput() (`if (isPollutingKey(v.name)) continue;`), src/parse/call.ts textArgsOutcome(),
  // src/parse/python-literal.ts.
  const strict: ToolSpec = { name: "bash", parameters: { type: "object", properties: { command: { type: "string" } }, required: ["command"], additionalProperties: false } };

  test("hard negative (passes today): an invented ordinary key is refused under additionalProperties false", () => {
    expect(run(hermes("bash", '{"command": "ls", "force": "x"}'), [strict]).calls).toEqual([]);
  });

  test("Hermes: {command, constructor} under additionalProperties false does not run as {command}", () => {
    expect(run(hermes("bash", '{"command": "ls", "constructor": "rm -rf ~"}'), [strict]).calls).toEqual([]);
  });

  test("Hermes: a nested __proto__ under a strict nested object does not vanish", () => {
    const tool: ToolSpec = { name: "cfg", parameters: { type: "object", properties: { o: { type: "object", properties: { a: { type: "string" } }, additionalProperties: false } }, required: ["o"] } };
    expect(run(hermes("cfg", '{"o": {"a": "x", "__proto__": {"admin": true}}}'), [tool]).calls).toEqual([]);
  });

  test("DSML: a `prototype` parameter under additionalProperties false does not run as {command}", () => {
    expect(run(dsml("bash", [["command", "ls"], ["prototype", "rm -rf ~"]]), [strict]).calls).toEqual([]);
  });

  test("GLM arg_key `constructor`: the same", () => {
    const reply = "<tool_call>bash\n<arg_key>command</arg_key>\n<arg_value>ls</arg_value>\n<arg_key>constructor</arg_key>\n<arg_value>x</arg_value>\n</tool_call>";
    expect(run(reply, [strict]).calls).toEqual([]);
  });

  test("a tool that declares `prototype`: the call does not run without the value the model wrote", () => {
    const tool: ToolSpec = { name: "make_object", parameters: { type: "object", properties: { name: { type: "string" }, prototype: { type: "string" } }, required: ["name"] } };
    const out = run(dsml("make_object", [["name", "Dog"], ["prototype", "Animal"]]), [tool]);
    // Today: [{ name: "Dog" }]: `Animal` is gone from the call and from the text.
    for (const input of out.calls) expect(input).toEqual({ name: "Dog", prototype: "Animal" });
    if (out.calls.length === 0) expect(out.broken).toHaveLength(1);
  });

  test("the same through the middleware", async () => {
    const reply = `Doing it.\n${hermes("bash", '{"command": "ls", "constructor": "rm -rf ~"}')}`;
    const out = await throughMiddleware([{ role: "user", content: [{ type: "text", text: "go" }] }], textStream(reply), {}, { tools: sdkTools([strict]) });
    expect(out.calls).toEqual([]);
  });
});

describe("fixed: the wires read a non-object tool schema as no schema (accept anything)", () => {
  // Fixed (fx-47-gate): the chat, Anthropic and Responses wires dropped a non-object schema and
  // declared the tool with none. Rule now (src/wires/declared-names.ts declaredTool(), shared by the
  // three wires): only an absent schema means none; any schema given is handed on as given, and one
  // that is not an object fails closed in the gate, as in parse() and the middleware.
  // Severity: wrong execution (low: a client or host bug, or a hostile tool list in front of a
  // provider that accepts it). The gate fails closed on a schema that is not an object
  // (test/parse/schema-gate.test.ts "a schema that is not an object (a host bug) fails closed"),
  // and parse() and the middleware (which hand the schema on as given) do. The chat, Anthropic and
  // Responses wires instead drop a non-object `parameters` / `input_schema` and declare the tool
  // with NO schema, which the gate accepts with any arguments. `false` is the JSON Schema that
  // accepts nothing. Expected: the tool is declared with the schema as given (the gate then fails
  // closed), so no call runs. Suspected: src/wires/chat/wire.ts, src/wires/anthropic/wire.ts,
  // src/wires/responses/wire.ts declaredTools() (`isObject(parameters) ? ... : { name }`).
  const reply = `Running:\n${hermes("bash", '{"command": "rm -rf ~"}')}`;

  test("hard negative (passes today): parse() with parameters false refuses the call", () => {
    expect(run(hermes("bash", '{"command": "rm -rf ~"}'), [{ name: "bash", parameters: false as unknown as JsonSchema }]).calls).toEqual([]);
  });

  test("hard negative (passes today): the middleware with inputSchema false refuses the call", async () => {
    const prompt = [{ role: "user" as const, content: [{ type: "text" as const, text: "go" }] }];
    const control = await throughMiddleware(prompt, textStream(reply), {}, { tools: [{ type: "function", name: "bash", inputSchema: { type: "object" } }] });
    expect(control.calls).toHaveLength(1);
    const out = await throughMiddleware(prompt, textStream(reply), {}, { tools: [{ type: "function", name: "bash", inputSchema: false as never }] });
    expect(out.calls).toEqual([]);
  });

  test("control (passes today): chat completions with an object schema runs the call", async () => {
    const { out } = await throughFetch({ messages: [{ role: "user", content: "go" }], tools: [{ type: "function", function: { name: "bash", parameters: { type: "object" } } }] }, { json: completion(reply) });
    expect(out.calls).toHaveLength(1);
  });

  for (const parameters of [false, "object"] as const) {
    test(`chat completions: function.parameters ${JSON.stringify(parameters)} runs no call`, async () => {
      const { out } = await throughFetch({ messages: [{ role: "user", content: "go" }], tools: [{ type: "function", function: { name: "bash", parameters } }] }, { json: completion(reply) });
      expect(out.calls).toEqual([]);
    });
  }

  async function postJson(path: string, request: object, answer: object): Promise<Record<string, unknown>> {
    const upstream = (async () => new Response(JSON.stringify(answer), { headers: { "content-type": "application/json" } })) as unknown as typeof fetch;
    const res = await repairFetch({}, upstream)(`http://127.0.0.1:1${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(request) });
    return (await res.json()) as Record<string, unknown>;
  }

  test("Anthropic messages: input_schema false runs no tool_use", async () => {
    const out = await postJson(
      "/v1/messages",
      { model: "m", max_tokens: 64, tools: [{ name: "bash", input_schema: false }], messages: [{ role: "user", content: "go" }] },
      { id: "msg_47", type: "message", role: "assistant", model: "m", content: [{ type: "text", text: reply }], stop_reason: "end_turn", usage: { input_tokens: 1, output_tokens: 1 } },
    );
    expect((out.content as { type: string }[]).filter((b) => b.type === "tool_use")).toEqual([]);
  });

  test("Responses: parameters false runs no function_call", async () => {
    const out = await postJson(
      "/v1/responses",
      { model: "m", input: "go", tools: [{ type: "function", name: "bash", parameters: false }] },
      { id: "resp_47", object: "response", created_at: 1, status: "completed", model: "m", output: [{ id: "msg_47", type: "message", status: "completed", role: "assistant", content: [{ type: "output_text", text: reply, annotations: [] }] }] },
    );
    expect((out.output as { type: string }[]).filter((i) => i.type === "function_call")).toEqual([]);
  });
});

describe("hard negatives (pass today): $id and $ref stay inside their own tool's schema", () => {
  // ajv keeps schemas by $id; the gate shares one ajv per draft across tools and requests. A $ref
  // to an id another tool's schema defined must not resolve to it (it fails closed), and two tools
  // that reuse one $id for different schemas are each checked against their own.
  test("a $ref to an $id only another tool defines fails closed", () => {
    const a: ToolSpec = { name: "a", parameters: { type: "object", $defs: { S: { $id: "http://x.test/s.json", type: "string" } }, properties: { n: { $ref: "http://x.test/s.json" } } } };
    const b: ToolSpec = { name: "b", parameters: { type: "object", properties: { n: { $ref: "http://x.test/s.json" } } } };
    expect(run(hermes("a", '{"n": "x"}'), [a, b]).calls).toEqual([{ n: "x" }]);
    expect(run(hermes("b", '{"n": "rm -rf ~"}'), [a, b]).calls).toEqual([]);
  });

  test("two tools with the same root $id and different types are each checked by their own", () => {
    const s: ToolSpec = { name: "s", parameters: { $id: "http://x.test/same.json", type: "object", properties: { n: { type: "string" } }, required: ["n"] } };
    const n: ToolSpec = { name: "n", parameters: { $id: "http://x.test/same.json", type: "object", properties: { n: { type: "number" } }, required: ["n"] } };
    expect(run(hermes("s", '{"n": "x"}'), [s, n]).calls).toEqual([{ n: "x" }]);
    expect(run(hermes("n", '{"n": "x"}'), [s, n]).calls).toEqual([]);
  });

  test("a recursive $ref (a tree) is checked at depth", () => {
    const tree: ToolSpec = {
      name: "tree",
      parameters: { type: "object", $defs: { node: { type: "object", properties: { name: { type: "string" }, children: { type: "array", items: { $ref: "#/$defs/node" } } }, required: ["name"], additionalProperties: false } }, properties: { root: { $ref: "#/$defs/node" } }, required: ["root"] },
    };
    expect(run(hermes("tree", '{"root": {"name": "a", "children": [{"name": "b"}]}}'), [tree]).calls).toHaveLength(1);
    expect(run(hermes("tree", '{"root": {"name": "a", "children": [{"name": "b", "children": [{"cmd": "x"}]}]}}'), [tree]).calls).toEqual([]);
  });

  test("a malformed schema (unknown type name, properties not an object) fails closed", () => {
    for (const parameters of [{ type: "object", properties: { n: { type: "numbr" } } }, { type: "object", properties: "n" }, { type: "object", required: "n" }] as unknown as JsonSchema[]) {
      expect(run(hermes("t", '{"n": 5}'), [{ name: "t", parameters }]).calls).toEqual([]);
    }
  });

  test("maxLength, pattern, maximum, multipleOf and const are checked", () => {
    const t: ToolSpec = { name: "t", parameters: { type: "object", properties: { s: { type: "string", maxLength: 3, pattern: "^[a-z]+$" }, n: { type: "integer", maximum: 10, multipleOf: 2 }, c: { const: "yes" } } } };
    expect(run(dsml("t", [["s", "abc"], ["n", "4", "false"], ["c", "yes"]]), [t]).calls).toHaveLength(1); // control
    for (const params of [[["s", "abcd"]], [["s", "AB"]], [["n", "12", "false"]], [["n", "3", "false"]], [["c", "no"]]] as [string, string, "false"?][][]) {
      expect(run(dsml("t", params), [t]).calls).toEqual([]);
    }
  });
});

describe("fixed: a tool name declared twice is gated by its last declaration only", () => {
  // Fixed (fx-47-gate): the engine kept the last declaration of a name and gated by it alone.
  // Rule now: a call must fit EVERY declaration of its name (SchemaGate is given the request's
  // tool list; fail closed), read with the first; an exact duplicate declaration changes nothing.
  // Severity: wrong execution (low-medium: a request whose tool list names one tool twice, e.g. a
  // host that appends an MCP or plugin tool under a built-in's name, or a client that merges two
  // lists). The engine keys tools by name (src/engine/text-mode.ts: `tools.set(tool.name, tool)`),
  // so the LAST declaration's schema is the one checked. A host that resolves the name to the
  // first declaration (Array.prototype.find) then runs a call whose arguments that declaration
  // forbids. The order decides: [strict, loose] runs the call, [loose, strict] does not.
  // Expected: a name declared twice with different schemas is ambiguous, and a call to it is
  // refused (or must fit every declaration); never gated by whichever came last.
  // Suspected: src/engine/text-mode.ts (constructor), src/wires/*/wire.ts declaredTools().
  const strict: ToolSpec = { name: "bash", parameters: { type: "object", properties: { command: { type: "string", enum: ["ls", "pwd"] } }, required: ["command"], additionalProperties: false } };
  const loose: ToolSpec = { name: "bash", parameters: { type: "object" } };
  const reply = hermes("bash", '{"command": "rm -rf ~"}');

  test("hard negative (passes today): [loose, strict] refuses the call", () => {
    expect(run(reply, [loose, strict]).calls).toEqual([]);
  });

  test("parse(): [strict, loose] does not run a call the first declaration forbids", () => {
    expect(run(reply, [strict, loose]).calls).toEqual([]);
  });

  test("chat completions: the same request through the fetch adapter", async () => {
    const tools = [strict, loose].map((t) => ({ type: "function", function: { name: t.name, parameters: t.parameters } }));
    const { out } = await throughFetch({ messages: [{ role: "user", content: "go" }], tools }, { json: completion(`Running:\n${reply}`) });
    expect(out.calls).toEqual([]);
  });
});

describe("fixed: string=\"false\" reads a JSON string literal two ways, by whether the string parameter is nullable", () => {
  // Fixed (fx-47-gate): coerceValue kept the raw text only for a string-only type, and
  // schemaTypes followed neither $ref nor allOf. Rule now: a place whose schema admits a string
  // (a type array, anyOf/oneOf, allOf, a local $ref) reads the value as type "string" does: the
  // raw text, whatever string= says.
  // Severity: changed arguments (low-medium). The same markup, `string="false"` holding the JSON
  // string literal "echo a\nrm -rf ~", goes out as its raw text (quotes and backslash kept:
  // one quoted word, which bash cannot run) when the parameter's type is "string", but JSON-decoded
  // (quotes gone, `\n` a real line break: two commands, the second `rm -rf ~`) when the type is
  // ["string","null"], ["string","integer"] or anyOf string|null (a nullable MCP or zod
  // `.nullable()` parameter). docs/PATTERNS.md says "string-typed parameters always keep the raw
  // text"; the nullable case does not. Whichever reading is chosen, one markup must give one
  // argument. Suspected: src/parse/values.ts coerceValue() (`types.has("string") && (typedHint !==
  // "false" || types.size === 1)` returns raw only for a string-only type; for a wider type the
  // JSON reading wins) and src/parse/schema-walk.ts schemaTypes() (no $ref, no allOf: a string
  // reached through them is read as untyped, so JSON-decoded too).
  const call = (value: string) => dsml("bash", [["command", value, "false"]]);
  const typed = (type: JsonSchema["type"] | undefined, extra: JsonSchema = {}): ToolSpec => ({ name: "bash", parameters: { type: "object", properties: { command: { ...(type ? { type } : {}), ...extra } }, required: ["command"] } });
  const value = '"echo a\\nrm -rf ~"';

  test("hard negative (passes today): a string-only parameter keeps the raw text", () => {
    expect(run(call(value), [typed("string")]).calls).toEqual([{ command: value }]);
  });

  for (const [name, tool] of [
    ['type ["string","null"]', typed(["string", "null"])],
    ['type ["string","integer"]', typed(["string", "integer"])],
    ["anyOf string | null", typed(undefined, { anyOf: [{ type: "string" }, { type: "null" }] })],
    // schemaTypes() follows neither $ref nor allOf, so a string reached through them reads as untyped.
    ["$ref to a string definition", { name: "bash", parameters: { type: "object", $defs: { S: { type: "string" } }, properties: { command: { $ref: "#/$defs/S" } }, required: ["command"] } }],
    ["allOf [string]", typed(undefined, { allOf: [{ type: "string" }] })],
  ] as [string, ToolSpec][]) {
    test(`${name}: the same markup gives the same argument as for type "string"`, () => {
      expect(run(call(value), [tool]).calls).toEqual(run(call(value), [typed("string")]).calls);
    });
  }
});

describe("fixed: `format` is never checked, and no document says so", () => {
  // Fixed by documenting (fx-47-gate): JSON Schema 2020-12 reads `format` as an annotation unless
  // a vocabulary asserts it, and checking formats means ajv-formats (a new runtime dependency and
  // its regular expressions in the audit) or hand-written checkers that could refuse valid calls.
  // Rule now, in docs/SECURITY.md section 2, docs/PATTERNS.md ("Schema gate") and docs/LIBRARY.md:
  // `format` is not checked; the tool (OpenCode's zod schemas do) checks its own formats. These
  // tests assert that documented behaviour: a value that is no URI, date-time or UUID still runs,
  // while every other keyword of the same place is checked.
  const fetcher: ToolSpec = { name: "webfetch", parameters: { type: "object", properties: { url: { type: "string", format: "uri" }, at: { type: "string", format: "date-time" }, id: { type: "string", format: "uuid" } }, required: ["url"] } };

  test("hard negative (passes today): values that fit every format run", () => {
    expect(run(hermes("webfetch", '{"url": "https://example.com/", "at": "2026-01-02T03:04:05Z", "id": "123e4567-e89b-12d3-a456-426614174000"}'), [fetcher]).calls).toHaveLength(1);
  });

  for (const [name, args] of [
    ["uri", '{"url": "rm -rf ~"}'],
    ["date-time", '{"url": "https://example.com/", "at": "yesterday; rm -rf ~"}'],
    ["uuid", '{"url": "https://example.com/", "id": "../../etc/passwd"}'],
  ] as const) {
    test(`format ${name}: documented as not checked, so a value that is not one runs as written`, () => {
      expect(run(hermes("webfetch", args), [fetcher]).calls).toEqual([JSON.parse(args) as Record<string, unknown>]);
    });
  }

  test("the keywords beside a format are checked: type, pattern and maxLength still refuse", () => {
    const tool: ToolSpec = { name: "webfetch", parameters: { type: "object", properties: { url: { type: "string", format: "uri", pattern: "^https://", maxLength: 30 } }, required: ["url"] } };
    expect(run(hermes("webfetch", '{"url": "https://example.com/"}'), [tool]).calls).toHaveLength(1); // control
    for (const url of ['"rm -rf ~"', '"https://example.com/a-path-longer-than-thirty"', "42"]) {
      expect(run(hermes("webfetch", `{"url": ${url}}`), [tool]).calls).toEqual([]);
    }
  });

  test("the documents say so", async () => {
    const security = await Bun.file(new URL("../../docs/SECURITY.md", import.meta.url)).text();
    const patterns = await Bun.file(new URL("../../docs/PATTERNS.md", import.meta.url)).text();
    expect(security).toContain("`format` is not checked");
    expect(patterns).toContain("`format` is not checked");
  });
});

describe("fixed: an integer past 2^53 spelled with `.0` or an exponent goes out as other digits", () => {
  // Fixed (fx-47-gate): readNumberLiteral let any literal with a fraction or an exponent read as a
  // float. Rule now: a literal that reads as an integer below 1e21 (which JSON.stringify sends as
  // integer digits) must denote exactly that integer, or it reads as a bigint and the gate refuses
  // it whatever the schema, as the plain spelling; a non-integer double or one of 1e21 and more
  // goes out as a float again and reads as before.
  // Severity: changed arguments (low, the class review 42 fixed for the plain spelling). The
  // plain `1234567890123456789` for an integer parameter is refused (readNumberLiteral reads it as
  // a bigint, and the gate refuses a bigint). The same id written `1234567890123456789.0` or
  // `1234567890123456789e0` (Python writers and models add `.0`) is read as a float, rounded to
  // 1234567890123456768, passes `type: "integer"` (Number.isInteger), and JSON.stringify sends
  // 1234567890123456800: a client that reads integers exactly (Python, Go, Rust behind `dsml-fix
  // proxy`) gets another id. Likewise `1.0000000000000001` (not an integer as written) reaches an
  // integer parameter as 1. Expected: refused as the plain spelling is (the written value is not a
  // double that an integer place can carry as written). Suspected: src/grammar/json-syntax.ts
  // readNumberLiteral() ("a fraction or an exponent is a float to every reader": true for the
  // reader, not for the integer the schema asks for), src/parse/values.ts coerceValue(),
  // src/parse/schema-gate.ts check().
  const getter: ToolSpec = { name: "get_message", parameters: { type: "object", properties: { id: { type: "integer" } }, required: ["id"] } };

  test("hard negative (passes today): the plain spelling is refused in Hermes and DSML", () => {
    expect(run(hermes("get_message", '{"id": 1234567890123456789}'), [getter]).calls).toEqual([]);
    expect(run(dsml("get_message", [["id", "1234567890123456789", "false"]]), [getter]).calls).toEqual([]);
  });

  test("hard negative (passes today): a safe integer written with .0 runs as that integer", () => {
    expect(run(hermes("get_message", '{"id": 42.0}'), [getter]).calls).toEqual([{ id: 42 }]);
  });

  for (const spelling of ["1234567890123456789.0", "1234567890123456789e0", "9007199254740993.0", "1.0000000000000001"]) {
    test(`Hermes: ${spelling} for an integer parameter does not run as other digits`, () => {
      expect(run(hermes("get_message", `{"id": ${spelling}}`), [getter]).calls).toEqual([]);
    });
  }

  test("DSML string=\"false\" and pythonic: the same", () => {
    expect(run(dsml("get_message", [["id", "1234567890123456789.0", "false"]]), [getter]).calls).toEqual([]);
    expect(run("<|tool_call_start|>[get_message(id=1234567890123456789.0)]<|tool_call_end|>", [getter]).calls).toEqual([]);
  });
});
