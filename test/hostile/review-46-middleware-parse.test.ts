// Review 46 (hostile, tests only): the public parse() entry (src/engine/parse.ts, package export
// "./parse") given what a JavaScript caller may pass. "Never break the host": odd input gives
// passthrough, never a throw. Each failing test says what is wrong, its severity and the suspected
// source file. Markup is Hermes `<tool_call>` JSON: no DSML marker bytes needed.
import { describe, expect, test } from "bun:test";
import { parse, type ToolSpec } from "../../src/engine/parse.ts";

const call = (name: string, args: unknown) => `<tool_call>{"name":${JSON.stringify(name)},"arguments":${JSON.stringify(args)}}</tool_call>`;
const READ: ToolSpec = { name: "read", parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] } };
const TEXT = `Reading it.\n${call("read", { path: "a.md" })}`;

describe("arguments a JavaScript caller may get wrong", () => {
  // FINDING (throws, low). parse() is a package export used from plain JavaScript too; a tools list
  // left out, a list holding a null (a filtered map), or options given as null throw a TypeError
  // from inside the engine ("undefined is not an object (evaluating 'tool of options.tools')",
  // "null is not an object (evaluating 'tool.name')", "Cannot destructure property 'bufferLimit'").
  // Expected: no throw; no call is recovered without a usable tool list (the text comes back whole),
  // and null options read as no options.
  // Suspected: src/engine/parse.ts (parse: no guard before createRepairEngine), src/engine/text-mode.ts.
  test("tools undefined: no throw, no call, the text whole", () => {
    const result = parse(TEXT, undefined as unknown as ToolSpec[]);
    expect(result.calls).toEqual([]);
    expect(result.text).toBe(TEXT);
  });

  test("a null entry among the tools: no throw, and it is no tool", () => {
    expect(() => parse(TEXT, [null as unknown as ToolSpec, READ])).not.toThrow();
  });

  test("options null: read as no options", () => {
    expect(parse(TEXT, [READ], null as unknown as undefined).calls.map((c) => c.tool)).toEqual(["read"]);
  });

  // FINDING (wrong execution from a bad option, medium; same root as review-46-middleware-options).
  // parse({ standaloneJson: "false" }) from JavaScript (a value read from a config file as text)
  // turns the off-by-default J01 shape on: resolveParseOptions spreads the string over the default
  // and the engine tests it for truthiness, so a JSON example the user asked for becomes a call.
  // Expected: a flag that is no boolean keeps its default (off): no call.
  // Suspected: src/parse/types.ts (resolveParseOptions), src/engine/text-mode.ts.
  test('standaloneJson: "false" keeps J01 off', () => {
    const json = 'The body:\n\n{"name":"read","arguments":{"path":"a.md"}}\n\nSend it.';
    expect(parse(json, [READ]).calls).toEqual([]);
    expect(parse(json, [READ], { standaloneJson: "false" as unknown as boolean }).calls).toEqual([]);
  });

  // Hard negatives (pass today): the odd inputs the brief names never throw and keep every character.
  test("control: empty tools, no parameters, non-object and unreadable schemas, odd names, lone surrogates", () => {
    expect(parse(TEXT, []).calls).toEqual([]);
    expect(parse(TEXT, []).text).toBe(TEXT);
    expect(parse(call("ls", {}), [{ name: "ls" }]).calls.map((c) => c.tool)).toEqual(["ls"]);
    // A schema that is no object schema fails closed: no call, the markup stays visible.
    for (const parameters of [{ type: "string" }, "object", [], null] as unknown[]) {
      const result = parse(call("ls", { a: 1 }), [{ name: "ls", parameters } as ToolSpec]);
      expect(result.calls).toEqual([]);
      expect(result.text).toBe(call("ls", { a: 1 }));
    }
    const unreadable = { name: "ls", get parameters(): never { throw new Error("boom"); } } as unknown as ToolSpec;
    expect(parse(call("ls", {}), [unreadable]).calls).toEqual([]);
    for (const name of ["fs.read", "fs-read", "lire_\u00e9", "\u8bfb\u53d6", "l\uD800"]) expect(parse(call(name, {}), [{ name }]).calls.map((c) => c.tool)).toEqual([name]);
    // Names that are Object.prototype keys are no tools unless declared.
    for (const name of ["toString", "constructor", "__proto__", "hasOwnProperty"]) expect(parse(call(name, {}), [READ]).calls).toEqual([]);
    const lone = `x\uD800y ${call("read", { path: "\uDC00" })}`;
    const result = parse(lone, [READ]);
    expect(result.calls.map((c) => c.input)).toEqual([{ path: "\uDC00" }]);
    expect(result.text).toBe("x\uD800y ");
  });

  test("control: 1 MB of prose before a call", () => {
    const prose = "word ".repeat(200_000);
    const result = parse(prose + call("read", { path: "a" }), [READ]);
    expect(result.text).toBe(prose);
    expect(result.calls.map((c) => c.input)).toEqual([{ path: "a" }]);
  });
});
