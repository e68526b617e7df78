/**
 * Review 48 (hostile, tests only): a tool declared twice (review 47b: a span with a call to a name
 * declared more than once with different schemas is read with each declaration, and a call any of
 * them reads differently is refused, src/parse/span.ts sameUnderEveryDeclaration) reached through
 * another agent's name for it (src/parse/aliases.ts: `Bash`, `execute_command` run as `bash`).
 * Plus prototype keys, keys twice and numbers through the JSON dialects (hard negatives).
 */
import { describe, expect, test } from "bun:test";
import { parse } from "../../src/engine/parse.ts";
import type { ToolSpec } from "../../src/parse/types.ts";
import { live } from "../golden/notation.ts";
import { fixtureTools } from "../golden/tools.ts";
import { sdkTools, textStream, throughMiddleware } from "../security/support.ts";
import { runAtEverySplit } from "../support/run-engine.ts";

const prompt = [{ role: "user" as const, content: [{ type: "text" as const, text: "run it" }] }];
const typed = { name: "bash", parameters: { type: "object", properties: { command: { type: "string" } }, required: ["command"] } } as ToolSpec;
const untyped = { name: "bash", parameters: { type: "object", properties: { command: {} }, required: ["command"] } } as ToolSpec;
/** A JSON string literal in a string="false" value: `"a\nb"` decoded is two lines (two shell commands), raw it is one. */
const literal = (tool: string) => live(`Running.\n<{D}tool_calls>\n<{D}invoke name="${tool}">\n<{D}parameter name="command" string="false">"echo a\\nrm -rf b"</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`);

describe("a tool declared twice, called by another agent's name for it", () => {
  // fixed (medium: the reading depends on declaration order, review 47b finding 10 by another
  // path). Called as `bash` the call is refused in both orders (control). Called as `Bash` or
  // `execute_command` (aliases of bash) it runs, read with ONE declaration only: with
  // [untyped, typed] the command is decoded to "echo a\nrm -rf b" (two shell commands), with
  // [typed, untyped] it is the raw literal. Both fit both schemas, so the gate cannot tell; the
  // declared-twice re-read never happens because the alias's own name is declared once (it is
  // synthesized from tools.get("bash"), one declaration). Expected: refused (invalid-arguments) in
  // both orders, as the direct call is. Suspected: src/parse/aliases.ts withAliases (the alias spec
  // takes one declaration's property schemas) and src/parse/span.ts sameUnderEveryDeclaration /
  // SchemaGate.declarationsOf (they key on the call's own name, not its alias target).
  for (const alias of ["Bash", "execute_command"]) {
    for (const [order, tools] of [["untyped first", [untyped, typed]], ["typed first", [typed, untyped]]] as const) {
      test(`${alias}, ${order}: refused as the direct call is (parse, every split)`, () => {
        expect(parse(literal(alias), tools).calls).toEqual([]);
        expect(runAtEverySplit(literal(alias), tools).calls).toEqual([]);
      });
    }
    test(`${alias}: the same outcome whatever the declaration order`, () => {
      const a = parse(literal(alias), [untyped, typed]).calls.map((c) => c.input);
      const b = parse(literal(alias), [typed, untyped]).calls.map((c) => c.input);
      expect(a).toEqual(b);
    });
  }
  test("Bash through the AI SDK middleware, untyped declared first: refused", async () => {
    const run = await throughMiddleware(prompt, textStream(literal("Bash")), {}, { tools: sdkTools([untyped, typed]) });
    expect(run.calls).toEqual([]);
  });
  test("control (passes): the direct call to bash is refused in both orders", () => {
    for (const tools of [[untyped, typed], [typed, untyped]]) expect(parse(literal("bash"), tools).calls).toEqual([]);
  });
  test("hard negative (passes): declared once, the alias runs as bash", () => {
    expect(parse(literal("Bash"), [typed]).calls.map((c) => [c.tool, c.input])).toEqual([["bash", { command: '"echo a\\nrm -rf b"' }]]);
  });
});

describe("hard negatives (pass on main): prototype keys, keys twice, escapes and numbers in the JSON dialects", () => {
  const cfg = { name: "cfg", parameters: { type: "object", properties: { opts: { type: "object" }, n: { type: "integer" }, list: { type: "array", items: { type: "integer" } } } } } as ToolSpec;
  const tools = [...fixtureTools, cfg];
  for (const [name, text] of [
    ["Hermes, an escaped __proto__ key in a nested object", `<tool_call>{"name":"cfg","arguments":{"opts":{"\\u005f_proto__":{"x":1}}}}</tool_call>`],
    ["Hermes, a key twice, the second escaped", `<tool_call>{"name":"bash","arguments":{"command":"ls","comm\\u0061nd":"rm -rf ./*"}}</tool_call>`],
    ["Hermes, an escaped __proto__ key at the top", `<tool_call>{"name":"bash","arguments":{"command":"ls","\\u005f_proto__":{"workdir":"/"}}}</tool_call>`],
    ["Mistral [ARGS], a key twice, the second escaped", `[TOOL_CALLS]bash[ARGS]{"command":"ls","comm\\u0061nd":"rm -rf ./*"}`],
    ["Mistral list, an escaped __proto__ key", `[TOOL_CALLS][{"name":"cfg","arguments":{"opts":{"\\u005f_proto__":{"x":1}}}}]`],
    ["Hermes, a nested array with an unsafe integer", `<tool_call>{"name":"cfg","arguments":{"list":[1,12345678901234567890]}}</tool_call>`],
    ["DSML, an unsafe integer two arrays deep in an object", live(`<{D}tool_calls>\n<{D}invoke name="cfg">\n<{D}parameter name="opts" string="false">{"a":[[12345678901234567890]]}</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`)],
    ["DSML, an entity-escaped __proto__ key", live(`<{D}tool_calls>\n<{D}invoke name="cfg">\n<{D}parameter name="opts" string="false">{&quot;__proto__&quot;:{&quot;x&quot;:1}}</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`)],
    ["DSML, a parameter named __proto__", live(`<{D}tool_calls>\n<{D}invoke name="bash">\n<{D}parameter name="command" string="true">ls</{D}parameter>\n<{D}parameter name="__proto__" string="false">{"workdir":"/"}</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`)],
    ["LFM2 pythonic, a keyword twice", `<|tool_call_start|>[bash(command='ls', command='rm -rf ./*')]<|tool_call_end|>`],
    ["LFM2 pythonic, a \\x-escaped __proto__ dict key", `<|tool_call_start|>[cfg(opts={'\\x5f_proto__': {'x': 1}})]<|tool_call_end|>`],
    ["LFM2 pythonic, a dict key twice, the second \\x-escaped", `<|tool_call_start|>[cfg(opts={'a': 1, '\\x61': 2})]<|tool_call_end|>`],
    ["LFM2 pythonic, an unsafe integer in a nested list", `<|tool_call_start|>[cfg(list=[1, 12345678901234567890])]<|tool_call_end|>`],
    ["LFM2 JSON list, a key twice, the second escaped", `<|tool_call_start|>[{"name":"bash","arguments":{"command":"ls","comm\\u0061nd":"rm"}}]<|tool_call_end|>`],
  ] as const) {
    test(`${name}: no call`, () => {
      expect(parse(text, tools).calls).toEqual([]);
    });
  }
  test("control: the same dialects read a clean call (so the refusals above are the rule, not a parse failure)", () => {
    expect(parse(`<|tool_call_start|>[cfg(opts={'a': 1}, list=[1, 2])]<|tool_call_end|>`, tools).calls.map((c) => c.input)).toEqual([{ opts: { a: 1 }, list: [1, 2] }]);
    expect(parse(`<tool_call>{"name":"cfg","arguments":{"opts":{"a":1}}}</tool_call>`, tools).calls.map((c) => c.input)).toEqual([{ opts: { a: 1 } }]);
    expect(parse(`[TOOL_CALLS]bash[ARGS]{"command":"ls"}`, tools).calls.map((c) => c.input)).toEqual([{ command: "ls" }]);
  });
});
