/**
 * Review 50, diff review (hostile, tests only): the round's source diff (b2e22c3..int50) read for
 * what its new code paths got wrong. Each finding is a `test.failing` with its comment block; the
 * hard negatives beside it pass and must keep passing.
 */
import { describe, expect, test } from "bun:test";
import { parse } from "../../src/engine/parse.ts";
import { objectKeys } from "../../src/parse/schema-walk.ts";
import type { JsonSchema, ToolSpec } from "../../src/parse/types.ts";
import { live } from "../golden/notation.ts";
import { outcome } from "../support/outcome.ts";

const S = { type: "string" } as const;
/** A DSML bash call with string parameters, as [name, value]. */
const dsmlBash = (params: [string, string][]) =>
  live(`Cleaning up.\n<{D}tool_calls>\n<{D}invoke name="bash">\n${params.map(([k, v]) => `<{D}parameter name="${k}" string="true">${v}</{D}parameter>`).join("\n")}\n</{D}invoke>\n</{D}tool_calls>`);
/** `workdir` misspelled in case: a host whose schema strips unknown keys runs the command in its default directory. */
const MISSPELLED = dsmlBash([["command", "rm -rf build"], ["Workdir", "/tmp/sandbox"]]);
const bash = (parameters: JsonSchema): ToolSpec[] => [{ name: "bash", parameters }];
const inputs = (reply: string, tools: ToolSpec[]) => parse(reply, tools).calls.map((c) => c.input);

describe("undeclared keys (src/parse/schema-gate.ts holdsUndeclaredKey) under an object declared through its applicators", () => {
  // Finding (severity: WRONG EXECUTION). What is wrong: the new rule refuses a call whose arguments
  // hold a key the tool does not declare (a misspelled `Workdir`, which zod/OpenCode strip, so the
  // command runs in the default directory), but undeclaredKeyIn returns false whenever the schema's
  // TOP-LEVEL `properties` are absent or empty. A schema that declares its properties only through
  // a root `allOf` (zod's `a.and(b)`, which the rule's own comment and schema-walk.ts name), a root
  // `$ref` to `$defs`, or root `anyOf` branches is never checked: the misspelled key goes through and
  // the call runs. The same schema written with top-level `properties` is refused (pinned below).
  // Minimal input: bash {type: object, allOf: [{properties: {command}, required: [command]},
  //   {properties: {workdir}}]}; `<{D}parameter name="command">rm -rf build</…>
  //   <{D}parameter name="Workdir">/tmp/sandbox</…>`.
  // Today: bash {command: "rm -rf build", Workdir: "/tmp/sandbox"} runs (the host drops Workdir).
  // Expected: refused (broken-markup, "an argument is not a parameter of this tool"), as with
  // top-level properties. Suspected: src/parse/schema-gate.ts undeclaredKeyIn (its first line bails
  // out on no top-level properties before the COMPOSING / declaredNames branch is reached).
  // Fixed: the names the object itself declares are read in every schema that applies to it (its
  // own properties, allOf/anyOf/oneOf branches, if/then/else, dependentSchemas, a local $ref;
  // objectKeys in src/parse/schema-walk.ts, bounded, cycles end, past the bound a key not seen is
  // undeclared); extra keys are admitted only where one of them admits them.
  test("a misspelled key is refused when the properties are declared in a root allOf (zod a.and(b))", () => {
    const tools = bash({ type: "object", allOf: [{ type: "object", properties: { command: S }, required: ["command"] }, { type: "object", properties: { workdir: S } }] });
    expect(inputs(MISSPELLED, tools)).toEqual([]);
  });

  test("a misspelled key is refused when the object is a root $ref to $defs", () => {
    const tools = bash({ $ref: "#/$defs/Args", $defs: { Args: { type: "object", properties: { command: S, workdir: S }, required: ["command"] } } } as JsonSchema);
    expect(inputs(MISSPELLED, tools)).toEqual([]);
  });

  test("a misspelled key is refused when every branch of a root anyOf declares the properties", () => {
    const tools = bash({ type: "object", anyOf: [{ properties: { command: S, workdir: S }, required: ["command"] }, { properties: { command: S, cwd: S }, required: ["command", "cwd"] }] });
    expect(inputs(MISSPELLED, tools)).toEqual([]);
  });

  // Same rule, second hole: once any composing keyword stands at the root, declaredNames(schema)
  // collects every name declared ANYWHERE in the schema, nested objects included, so a top-level key
  // named like a nested object's property counts as declared. Minimal input: bash {properties:
  // {command, workdir, env: {type: object, properties: {Workdir}}}, allOf: [{required: [command]}]}
  // with `Workdir` at the top level. Today it runs; expected: refused (Workdir is no parameter of
  // bash itself). Suspected: undeclaredKeyIn's use of declaredNames (it should read only schemas
  // that apply to the object itself: allOf/anyOf/oneOf/then/else/$ref, not `properties` below them).
  // Fixed: a nested property's schema is never read for the object's own names (objectKeys walks
  // only the schemas that apply to the object itself).
  test("a key declared only by a nested object's properties is no parameter of the tool", () => {
    const tools = bash({ type: "object", properties: { command: S, workdir: S, env: { type: "object", properties: { Workdir: S } } }, required: ["command"], allOf: [{ required: ["command"] }] });
    expect(inputs(MISSPELLED, tools)).toEqual([]);
  });

  // Hard negatives.
  test("top-level properties: the misspelled key is refused", () => {
    const tools = bash({ type: "object", properties: { command: S, workdir: S }, required: ["command"] });
    expect(inputs(MISSPELLED, tools)).toEqual([]);
  });
  test("root allOf: the keys as declared run", () => {
    const tools = bash({ type: "object", allOf: [{ type: "object", properties: { command: S }, required: ["command"] }, { type: "object", properties: { workdir: S } }] });
    expect(inputs(dsmlBash([["command", "ls"], ["workdir", "/tmp/sandbox"]]), tools)).toEqual([{ command: "ls", workdir: "/tmp/sandbox" }]);
  });
  test("root $ref: the keys as declared run", () => {
    const tools = bash({ $ref: "#/$defs/Args", $defs: { Args: { type: "object", properties: { command: S, workdir: S }, required: ["command"] } } } as JsonSchema);
    expect(inputs(dsmlBash([["command", "ls"], ["workdir", "/tmp/sandbox"]]), tools)).toEqual([{ command: "ls", workdir: "/tmp/sandbox" }]);
  });
  test("additionalProperties: true admits any key", () => {
    const tools = bash({ type: "object", properties: { command: S }, required: ["command"], additionalProperties: true });
    expect(inputs(MISSPELLED, tools)).toEqual([{ command: "rm -rf build", Workdir: "/tmp/sandbox" }]);
  });
  test("root anyOf: the keys one branch declares run", () => {
    const tools = bash({ type: "object", anyOf: [{ properties: { command: S, workdir: S }, required: ["command"] }, { properties: { command: S, cwd: S }, required: ["command", "cwd"] }] });
    expect(inputs(dsmlBash([["command", "ls"], ["workdir", "/tmp/sandbox"]]), tools)).toEqual([{ command: "ls", workdir: "/tmp/sandbox" }]);
  });
  test("a branch that admits extra keys (additionalProperties: true, patternProperties) admits the key", () => {
    const open = bash({ type: "object", allOf: [{ properties: { command: S }, required: ["command"] }, { additionalProperties: true }] });
    expect(inputs(MISSPELLED, open)).toEqual([{ command: "rm -rf build", Workdir: "/tmp/sandbox" }]);
    const patterned = bash({ type: "object", allOf: [{ properties: { command: S }, required: ["command"] }, { patternProperties: { "^W": S } }] });
    expect(inputs(MISSPELLED, patterned)).toEqual([{ command: "rm -rf build", Workdir: "/tmp/sandbox" }]);
  });
  test("a recursive schema (a property that is the object again): the keys as declared run, the misspelled one is refused", () => {
    const tools = bash({ type: "object", properties: { command: S, workdir: S, next: { $ref: "#" } }, required: ["command"], allOf: [{ required: ["command"] }] } as JsonSchema);
    expect(inputs(dsmlBash([["command", "ls"], ["workdir", "/tmp/sandbox"]]), tools)).toEqual([{ command: "ls", workdir: "/tmp/sandbox" }]);
    expect(inputs(MISSPELLED, tools)).toEqual([]);
  });
  test("objectKeys: a $ref cycle ends, and every name on it is read", () => {
    const schema = { $ref: "#/$defs/A", $defs: { A: { properties: { command: S }, allOf: [{ $ref: "#/$defs/B" }] }, B: { properties: { workdir: S }, anyOf: [{ $ref: "#/$defs/A" }] } } } as JsonSchema;
    const keys = objectKeys(schema);
    expect([...keys.names].sort()).toEqual(["command", "workdir"]);
    expect(keys).toMatchObject({ declares: true, admitsExtra: false, complete: true });
  });
  test("objectKeys: past the depth bound, or at a $ref it cannot follow, the walk says incomplete", () => {
    let deep: JsonSchema = { properties: { Workdir: S } } as JsonSchema;
    for (let i = 0; i < 40; i++) deep = { allOf: [deep] } as JsonSchema;
    expect(objectKeys({ properties: { command: S }, allOf: [deep] } as JsonSchema).complete).toBe(false);
    expect(objectKeys({ properties: { command: S }, $ref: "https://example.com/args.json" } as JsonSchema).complete).toBe(false);
    expect(objectKeys({ properties: { command: S }, $ref: "#/$defs/Missing" } as JsonSchema).complete).toBe(false);
  });
  test("past the walk's depth bound a key it did not see is refused (fail closed)", () => {
    let deep: JsonSchema = { properties: { command: S, Workdir: S } } as JsonSchema;
    for (let i = 0; i < 40; i++) deep = { allOf: [deep] } as JsonSchema;
    const tools = bash({ type: "object", properties: { command: S }, required: ["command"], allOf: [deep] } as JsonSchema);
    expect(inputs(MISSPELLED, tools)).toEqual([]);
  });
  test("a schema that declares no properties says nothing of its keys: no refusal", () => {
    const tools = bash({ type: "object", required: ["command"], allOf: [{ required: ["command"] }] });
    expect(inputs(MISSPELLED, tools)).toEqual([{ command: "rm -rf build", Workdir: "/tmp/sandbox" }]);
  });
});

/** The example a quoted page shows: a Hermes bash call. */
const EXAMPLE = `<tool_call>\n{"name": "bash", "arguments": {"command": "rm -rf build"}}\n</tool_call>`;
/** A GLM write (O03) quoted in a fence, its content a page whose own fence ends the outer one as CommonMark reads it (N45.1's shape). */
const fencedGlm = (key: (name: string) => string) =>
  `Page:\n\`\`\`\n<tool_call>write\n${key("filePath")}\n<arg_value>docs/calls.md</arg_value>\n${key("content")}\n<arg_value># Calls\n\`\`\`\n${EXAMPLE}\n\`\`\`</arg_value>\n</tool_call>\n\`\`\`\nDone.`;
const oneLineKey = (name: string) => `<arg_key>${name}</arg_key>`;
const keyOnLines = (name: string) => `<arg_key>\n${name}\n</arg_key>`;

describe("a GLM call quoted in documentation (src/engine/quoted-dialects.ts glmKeyAt)", () => {
  // Finding (severity: WRONG EXECUTION). What is wrong: the new quote reader opens a GLM quote only
  // at `<arg_key>KEY</arg_key>` written on one line (glmKeyAt: "on one line (spaces may pad the
  // key)"), but the live GLM reader takes the key on lines of its own (`<arg_key>⏎content⏎</arg_key>`,
  // pinned below: it runs write). Quoted in a fence with that layout, no quote opens, the page's own
  // fence line inside the quoted content ends the documentation block, and the example in the page
  // runs: `rm -rf build` from a write the model was only showing.
  // Minimal input: Page:⏎```⏎<tool_call>write⏎<arg_key>⏎filePath⏎</arg_key>⏎<arg_value>docs/calls.md
  //   </arg_value>⏎<arg_key>⏎content⏎</arg_key>⏎<arg_value># Calls⏎```⏎<tool_call>⏎{"name": "bash",
  //   "arguments": {"command": "rm -rf build"}}⏎</tool_call>⏎```</arg_value>⏎</tool_call>⏎```⏎Done.
  // Today: bash {command: "rm -rf build"} runs (whole, char by char and at random splits alike), and
  // the text after it is gone from the visible reply. Expected: no call, the text unchanged, as with
  // the one-line key (pinned below). Suspected: src/engine/quoted-dialects.ts glmKeyAt (its `skip`
  // reads spaces and tabs only); the key should be read with the layout the live reader allows.
  // Fixed: glmKeyAt skips spaces, tabs and line breaks around the key as the live reader trims
  // them, each padding and the name bounded by NAME_LIMIT, so the quote opens at such a key.
  test("a GLM write quoted in a fence, its keys on lines of their own: the page's example never runs", () => {
    const input = fencedGlm(keyOnLines);
    const o = outcome(input);
    expect(o.calls).toEqual([]);
    expect(o.text).toBe(input);
  });

  // Hard negatives.
  test("the same quote with one-line keys stays documentation", () => {
    const input = fencedGlm(oneLineKey);
    expect(outcome(input)).toEqual({ calls: [], broken: [], text: input });
  });
  test("the same quote with upper-case tags stays documentation", () => {
    const input = fencedGlm((name) => `<ARG_KEY>${name}</ARG_KEY>`).replaceAll("arg_value>", "ARG_VALUE>");
    expect(outcome(input).calls).toEqual([]);
  });
  test("live, the keys on lines of their own are read (so the quote must read them too)", () => {
    const o = outcome(`<tool_call>write\n${keyOnLines("filePath")}\n<arg_value>a.md</arg_value>\n${keyOnLines("content")}\n<arg_value>hi</arg_value>\n</tool_call>`);
    expect(o.calls).toEqual([{ tool: "write", input: { filePath: "a.md", content: "hi" } }]);
  });
  test("the same quote with CRLF around its keys stays documentation", () => {
    const input = fencedGlm((name) => `<arg_key>\r\n${name}\r\n</arg_key>`);
    const o = outcome(input);
    expect(o.calls).toEqual([]);
    expect(o.text).toBe(input);
  });
  test("in a fence, an <arg_key> over prose (no key) is shown as it came", () => {
    const input = "Example:\n```\n<arg_key>\nthe name of the parameter\n</arg_key>\n```\nDone.";
    expect(outcome(input)).toEqual({ calls: [], broken: [], text: input });
  });
  test("live, one-line keys run", () => {
    const o = outcome(`<tool_call>write\n${oneLineKey("filePath")}\n<arg_value>a.md</arg_value>\n${oneLineKey("content")}\n<arg_value>hi</arg_value>\n</tool_call>`);
    expect(o.calls).toEqual([{ tool: "write", input: { filePath: "a.md", content: "hi" } }]);
  });
});
