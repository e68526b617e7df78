/**
 * Review 52 (hostile, tests only): how a raw parameter text is read at a place whose schema the
 * reader (src/parse/schema-walk.ts placeTypes) cannot see all of, while the gate's ajv can. Review
 * 47 and 50 settled "one markup gives one argument": a place that admits a string keeps the raw
 * text however the schema spells it, and a place the walk cannot follow (too deep, a cycle) is
 * refused, never read one way rather than another (docs/SECURITY.md: "a place the reader cannot
 * type, so the call is refused, never read the other way"). Failing tests are findings; every
 * other test is a hard negative that passes on main.
 */
import { describe, expect, test } from "bun:test";
import type { LanguageModelV3Prompt } from "@ai-sdk/provider";
import { parse } from "../../src/engine/parse.ts";
import { markFraction } from "../../src/grammar/number-spelling.ts";
import { SchemaGate } from "../../src/parse/schema-gate.ts";
import { NOT_AN_INTEGER_DETAIL } from "../../src/parse/values.ts";
import type { JsonSchema, ToolSpec } from "../../src/parse/types.ts";
import { live } from "../golden/notation.ts";
import { completion, openAiTools, sdkTools, textStream, throughFetch, throughMiddleware } from "../security/support.ts";
import { outcome } from "../support/outcome.ts";

/** A DSML call to bash; params as [name, raw value, string attribute]. */
const dsml = (params: [string, string, "true" | "false"][]) =>
  live(`Cleaning up.\n<{D}tool_calls>\n<{D}invoke name="bash">\n${params.map(([k, v, s]) => `<{D}parameter name="${k}" string="${s}">${v}</{D}parameter>`).join("\n")}\n</{D}invoke>\n</{D}tool_calls>`);
/** `string="false"` holding a JSON string literal: decoded it is two shell commands, raw it is one quoted word. */
const LITERAL = '"echo a\\nrm -rf ~"';
const DECODED = "echo a\nrm -rf ~";
const REPLY = dsml([["command", LITERAL, "false"]]);
const bash = (command: JsonSchema, extra: Record<string, unknown> = {}): ToolSpec => ({
  name: "bash",
  parameters: { type: "object", properties: { command }, required: ["command"], ...extra } as JsonSchema,
});
const inputs = (reply: string, tools: ToolSpec[]) => parse(reply, tools).calls.map((c) => c.input);

describe("finding: a place typed through a $ref the reader cannot resolve, or through the place's own if/then/else, is JSON-decoded", () => {
  // Severity: wrong execution (medium; same class as review 47's nullable string and review 50's
  // branch places: the same markup runs a second shell command under one spelling of "a string"
  // and one quoted word under another).
  // What is wrong: placeTypes (src/parse/schema-walk.ts) follows `type`, anyOf/oneOf/allOf and a
  // `$ref` that is a local JSON pointer (`#/...`, `#`). A `$ref` it cannot resolve (an `$anchor`
  // `#cmd`, a reference relative to an `$id` such as TypeBox writes, `"Cmd"`, or an absolute URI
  // naming the schema's own `$id`) is skipped in silence, and so is the place's own
  // `if`/`then`/`else`; the walk then returns an empty, *complete* set of types. coerceValue
  // (src/parse/values.ts) reads an untyped place under `string="false"` as JSON, so the literal is
  // decoded; the gate's ajv resolves the reference, finds `type: "string"` and accepts the
  // decoded text. objectKeys in the same file already treats an unresolvable `$ref` as incomplete
  // (fail closed); placeTypes does not.
  // Minimal input: bash {properties: {command: {$ref: "#cmd"}}, $defs: {c: {$anchor: "cmd", type: "string"}}};
  // `<parameter name="command" string="false">"echo a\nrm -rf ~"</parameter>` runs
  // {command: "echo a<LF>rm -rf ~"}; with `command: {type: "string"}` it runs the raw text.
  // Suspected: src/parse/schema-walk.ts placeTypes() (refTarget undefined and if/then/else not
  // followed, yet `complete` stays true). Expected: the raw text (as for `type: "string"`), or the
  // call refused as a place the reader cannot type (UNFOLLOWED_PLACE); never the decoded text.
  // Fixed: src/parse/schema-refs.ts resolves a `$ref` as the gate's ajv does (a JSON pointer, an
  // `$anchor`, a reference relative to an `$id`, an absolute URI naming an `$id`), so those three
  // places read as `type: "string"` (the raw text); a reference it still cannot resolve, a
  // `$dynamicRef`, or the place's own `if`/`then`/`else` makes placeTypes give up (null: the call
  // is refused as UNFOLLOWED_PLACE), unless a `type` on the way there bounds what it may admit.
  const STRING = { type: "string" } as const;

  test("hard negative (passes today): `type: string` keeps the raw text", () => {
    expect(inputs(REPLY, [bash(STRING)])).toEqual([{ command: LITERAL }]);
  });

  test("hard negative (passes today): a local `$ref` to `$defs` keeps the raw text", () => {
    expect(inputs(REPLY, [bash({ $ref: "#/$defs/c" } as JsonSchema, { $defs: { c: STRING } })])).toEqual([{ command: LITERAL }]);
  });

  test("hard negative (passes today): string=\"true\" keeps the raw text under an `$anchor` reference", () => {
    expect(inputs(dsml([["command", LITERAL, "true"]]), [bash({ $ref: "#cmd" } as JsonSchema, { $defs: { c: { $anchor: "cmd", type: "string" } } })])).toEqual([{ command: LITERAL }]);
  });

  test("hard negative (passes today): an unresolvable `$ref` to nothing at all fails closed (ajv cannot compile)", () => {
    expect(inputs(REPLY, [bash({ $ref: "#nowhere" } as JsonSchema)])).toEqual([]);
  });

  test("hard negative (passes today): plain text under string=\"false\" at an `$anchor` place stays as written", () => {
    expect(inputs(dsml([["command", "ls -la", "false"]]), [bash({ $ref: "#cmd" } as JsonSchema, { $defs: { c: { $anchor: "cmd", type: "string" } } })])).toEqual([{ command: "ls -la" }]);
  });

  const ABSOLUTE: ToolSpec = {
    name: "bash",
    parameters: { $id: "https://tools.example/bash", type: "object", properties: { command: { $ref: "https://tools.example/bash#/$defs/c" } }, required: ["command"], $defs: { c: STRING } } as JsonSchema,
  };
  const shapes: [string, ToolSpec][] = [
    ["$anchor reference (#cmd)", bash({ $ref: "#cmd" } as JsonSchema, { $defs: { c: { $anchor: "cmd", type: "string" } } })],
    ["reference relative to an $id (TypeBox's Type.Ref)", bash({ $ref: "Cmd" } as JsonSchema, { $defs: { c: { $id: "Cmd", type: "string" } } })],
    ["absolute URI naming the schema's own $id", ABSOLUTE],
    ["the place's own if/then/else", bash({ if: { minLength: 1 }, then: STRING, else: STRING } as JsonSchema)],
  ];
  for (const [name, tool] of shapes) {
    test(`${name}: the literal is not decoded into two commands`, () => {
      const calls = inputs(REPLY, [tool]);
      for (const input of calls) expect(input.command).not.toBe(DECODED);
      // The call runs with what `type: string` gives, or not at all.
      for (const input of calls) expect(input.command).toBe(LITERAL);
    });
  }

  // The fix's own terms: each resolved reference runs the call with the raw text, as `type: string`
  // does; the conditional the reader does not follow refuses it.
  for (const [name, tool] of shapes.slice(0, 3)) {
    test(`${name}: resolved as ajv resolves it, the call runs with the raw text`, () => {
      expect(inputs(REPLY, [tool])).toEqual([{ command: LITERAL }]);
    });
  }

  test("the place's own if/then/else, with no type stated around it: refused", () => {
    const out = parse(REPLY, [shapes[3]![1]]);
    expect(out.calls).toEqual([]);
    expect(out.broken.length).toBe(1);
  });

  test("streaming, whole, char by char and at random splits: the same ($anchor)", () => {
    const o = outcome(REPLY, [shapes[0]![1]]);
    expect(o.calls.length).toBe(1);
    for (const call of o.calls) expect(call.input.command).toBe(LITERAL);
  });

  test("chat completions through the fetch adapter (absolute URI)", async () => {
    const { out } = await throughFetch({ messages: [{ role: "user", content: "go" }], tools: openAiTools([ABSOLUTE]) }, { json: completion(REPLY) });
    expect(out.calls.length).toBe(1);
    for (const call of out.calls) expect(JSON.parse(call.arguments).command).toBe(LITERAL);
  });

  test("AI SDK middleware ($anchor)", async () => {
    const prompt: LanguageModelV3Prompt = [{ role: "user", content: [{ type: "text", text: "go" }] }];
    const run = await throughMiddleware(prompt, textStream(REPLY), {}, { tools: sdkTools([shapes[0]![1]]) });
    expect(run.calls.length).toBe(1);
    for (const call of run.calls) expect(JSON.parse(call.input).command).toBe(LITERAL);
  });

  // Hard negatives for the fix (where it could over-refuse or read a place the wrong way).
  const COUNT = (count: JsonSchema, extra: Record<string, unknown> = {}): ToolSpec => ({
    name: "bash",
    parameters: { type: "object", properties: { command: STRING, count }, required: ["command"], ...extra } as JsonSchema,
  });
  // No `string=` on count: the schema alone decides (untyped, "5" would stay text and ajv refuse it).
  const WITH_COUNT = live(`<{D}tool_calls>\n<{D}invoke name="bash">\n<{D}parameter name="command" string="true">ls</{D}parameter>\n<{D}parameter name="count">5</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`);

  test("fix: an `$anchor` to an integer reads 5 as a number, as ajv types the place", () => {
    expect(inputs(WITH_COUNT, [COUNT({ $ref: "#n" } as JsonSchema, { $defs: { n: { $anchor: "n", type: "integer" } } })])).toEqual([{ command: "ls", count: 5 }]);
  });

  test("fix: an `$id`-relative reference to an integer reads 5 as a number", () => {
    expect(inputs(WITH_COUNT, [COUNT({ $ref: "N" } as JsonSchema, { $defs: { n: { $id: "N", type: "integer" } } })])).toEqual([{ command: "ls", count: 5 }]);
  });

  test("fix: `#/...` inside a nested `$id` resource points into that resource, not the root", () => {
    // ajv reads `#/$defs/c` against the nearest `$id`: the nested resource's integer, not the root's string.
    const tool = COUNT({ $ref: "Inner" } as JsonSchema, {
      $defs: { c: STRING, inner: { $id: "Inner", allOf: [{ $ref: "#/$defs/c" }], $defs: { c: { type: "integer" } } } },
    });
    expect(inputs(WITH_COUNT, [tool])).toEqual([{ command: "ls", count: 5 }]);
  });

  test("hard negative: `type: string` beside the place's own if/then/else keeps the raw text", () => {
    const tool = bash({ type: "string", if: { minLength: 1 }, then: { maxLength: 100 } } as JsonSchema);
    expect(inputs(REPLY, [tool])).toEqual([{ command: LITERAL }]);
  });

  test("hard negative: a conditional on the root object (allOf if/then required) still runs the call", () => {
    const tool = bash(STRING, { allOf: [{ if: { required: ["command"] }, then: { required: ["command"] } }] });
    expect(inputs(REPLY, [tool])).toEqual([{ command: LITERAL }]);
  });

  test("hard negative: a remote reference ajv cannot load refuses the call", () => {
    expect(inputs(REPLY, [bash({ $ref: "https://elsewhere.example/cmd.json" } as JsonSchema)])).toEqual([]);
  });
});

describe("finding: past 32 levels of nesting a fraction written for an integer place goes out as a whole number", () => {
  // Severity: wrong execution (low: needs arguments nested more than 32 deep, e.g. a recursive tree
  // schema, `$defs.node.properties.child: {$ref: "#/$defs/node"}`).
  // What is wrong: docs/SECURITY.md: "a literal with a fraction past 1e21,
  // `1000000000000000000000.5`, reads as a whole double but is no integer: refused where only an
  // integer fits". coerceDeep (src/parse/values.ts) checks that mark (fractionAtInteger ->
  // NOT_AN_INTEGER) only while `depth <= 32`; deeper it returns the value untouched, the mark is
  // never read, and ajv sees the double 1e21, an integer: the call runs with `1e+21`, the `.5` the
  // model wrote gone. Every other fail-closed check in the gate (bigint, prototype keys, unfollowed
  // places) walks the whole value (`holds`); this one stops at the bound and fails open.
  // Minimal input: Hermes {"root": {"n":1,"child": ... 33 levels ... {"n": 1000000000000000000000.5}}}
  // against the tree schema below. Suspected: src/parse/values.ts coerceDeep() `depth > 32`
  // early return. Expected: refused (invalid-arguments) at any depth, as at depth 2.
  // Fixed: past its 32 levels coerceDeep reads the rest of the value in a loop (values.ts
  // pastDepth): a number marked as written with a fraction anywhere below is refused
  // (NOT_AN_INTEGER, fail closed) whatever its place; anything else is left as written, for ajv.
  const TREE: ToolSpec = {
    name: "tree",
    parameters: {
      type: "object",
      properties: { root: { $ref: "#/$defs/node" } },
      required: ["root"],
      $defs: { node: { type: "object", properties: { n: { type: "integer" }, child: { $ref: "#/$defs/node" } } } },
    } as JsonSchema,
  };
  const nested = (depth: number, leaf: string) => {
    let node = `{"n": ${leaf}}`;
    for (let i = 0; i < depth; i++) node = `{"n": 1, "child": ${node}}`;
    return `Saving.\n<tool_call>\n{"name": "tree", "arguments": {"root": ${node}}}\n</tool_call>`;
  };
  const FRACTION = "1000000000000000000000.5";

  test("hard negative (passes today): two levels deep the fraction is refused", () => {
    const out = parse(nested(2, FRACTION), [TREE]);
    expect(out.calls).toEqual([]);
    expect(out.broken.map((b) => b.reason)).toEqual(["invalid-arguments"]);
  });

  test("hard negative (passes today): 40 levels deep a plain integer runs as written", () => {
    const out = parse(nested(40, "7"), [TREE]);
    expect(out.calls.length).toBe(1);
    expect(JSON.stringify(out.calls[0]!.input)).toContain('{"n":7}');
  });

  test("40 levels deep the fraction is refused too", () => {
    const out = parse(nested(40, FRACTION), [TREE]);
    expect(out.calls).toEqual([]);
    expect(out.broken.map((b) => b.reason)).toEqual(["invalid-arguments"]);
  });

  test("streaming, char by char and at random splits: the same", () => {
    const o = outcome(nested(40, FRACTION), [TREE]);
    expect(o.calls).toEqual([]);
  });

  test("hard negative: 40 levels deep a fraction that is no whole double (1.5) reaches ajv, which refuses it for the integer", () => {
    const out = parse(nested(40, "1.5"), [TREE]);
    expect(out.calls).toEqual([]);
    expect(out.broken.map((b) => b.reason)).toEqual(["invalid-arguments"]);
  });

  test("2,000 levels deep (about as deep as the JSON readers go) the fraction is refused", () => {
    const out = parse(nested(2_000, FRACTION), [TREE]);
    expect(out.calls).toEqual([]);
    expect(out.broken.map((b) => b.reason)).toEqual(["invalid-arguments"]);
  });

  test("the gate on arguments 100,000 levels deep: no stack overflow, the marked fraction refused", () => {
    // Built in code (the readers stop well before this depth), marked as parseJson marks such a literal.
    const leaf: Record<string, unknown> = { n: 1e21 };
    markFraction(leaf, "n");
    let node: Record<string, unknown> = leaf;
    for (let i = 0; i < 100_000; i++) node = { n: 1, child: node };
    const verdict = new SchemaGate([TREE]).check(TREE, { root: node });
    expect(verdict).toEqual({ ok: false, detail: NOT_AN_INTEGER_DETAIL });
  });
});
