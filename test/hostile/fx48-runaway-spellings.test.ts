/**
 * Fix for review 48 (runaway by spelling, src/parse/unread-opener.ts): a parameter opener the tag
 * grammar reads as no tag, standing inside a value, refuses the call as a runaway (P03; O02 in
 * Qwen3-Coder), whatever ended the value: a garbled closer at its end (P02), the invoke's or
 * block's closer (P01) or the value's own closer. Every spelling whose closer the garbled-closer
 * rule accepts counts, so the two rules agree on the same tag. Whole, char by char and seeded
 * splits agree. Hard negatives: code and prose that only look alike still run.
 */
import { describe, expect, test } from "bun:test";
import { parse } from "../../src/engine/parse.ts";
import type { ToolSpec } from "../../src/parse/types.ts";
import { live } from "../golden/notation.ts";
import { fixtureTools } from "../golden/tools.ts";
import { accountsForEveryCharacter, runAtEverySplit } from "../support/run-engine.ts";

function calls(notation: string, tools: readonly ToolSpec[] = fixtureTools) {
  const input = live(notation);
  const r = runAtEverySplit(input, tools);
  expect(accountsForEveryCharacter(input, r)).toBe(true);
  const parsed = parse(input, tools);
  expect(parsed.calls.map((c) => c.input)).toEqual(r.calls.map((c) => c.input));
  return parsed;
}

const dsml = (body: string) => `Cleaning.\n<{D}tool_calls>\n<{D}invoke name="bash">\n${body}\n</{D}invoke>\n</{D}tool_calls>`;
const command = (value: string) => dsml(`<{D}parameter name="command" string="true">${value}</{D}parameter>`);
const write = (content: string) => `Writing.\n<{D}tool_calls>\n<{D}invoke name="write">\n<{D}parameter name="filePath" string="true">a.txt</{D}parameter>\n<{D}parameter name="content" string="true">${content}</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`;
const qwen = (value: string) => `<tool_call>\n<function=bash>\n<parameter=command>\n${value}\n</parameter>\n</function>\n</tool_call>`;

describe("a degraded parameter opener inside a DSML value refuses the call (P03)", () => {
  for (const [name, value] of [
    ["one bar, then the value's own canonical closer", `rm -rf ./*\n<{BAR}parameter name="workdir" string="true">/tmp/scratch`],
    ["one bar mid-line", `rm -rf ./* <{BAR}parameter name="workdir" string="true">/tmp/scratch`],
    ["two bars, no DSML word", `rm -rf ./*\n<{BAR}{BAR}parameter name="workdir" string="true">/tmp/scratch`],
    ["a one-bar Qwen-style opener", `rm -rf ./*\n<{BAR}parameter=workdir>/tmp/scratch`],
    ["its `<` lost: a bar then an attribute", `rm -rf ./*\n{BAR}parameter name="workdir">/tmp/scratch`],
    ["the DVL, its `<` lost", `rm -rf ./*\n{DVL}parameter name="workdir">/tmp/scratch`],
    ["a canonical opener that lost its `>`, mid-line", `rm -rf ./* <{D}parameter name="workdir"/tmp/scratch`],
  ] as const) {
    test(`${name}: refused, reported P03`, () => {
      const r = calls(command(value));
      expect(r.calls).toEqual([]);
      expect(r.broken.map((b) => [b.shape, b.reason])).toContainEqual(["P03", "broken-markup"]);
    });
  }
  test("the same closed by the one-bar closer before the next canonical parameter: refused", () => {
    expect(calls(dsml(`<{D}parameter name="command" string="true">rm -rf ./*\n<{BAR}parameter name="workdir" string="true">/tmp/scratch</{BAR}parameter>\n<{D}parameter name="description" string="true">clean</{D}parameter>`)).calls).toEqual([]);
  });
});

describe("Qwen3-Coder: an opener with spaces before its `=` counts at a line start", () => {
  test("`<parameter =workdir>` on its own line: refused", () => {
    expect(calls(qwen("rm -rf ./*\n<parameter =workdir>\n/tmp/scratch")).calls).toEqual([]);
  });
  test("hard negative: mid-line `<parameter = description>` is the value's text (review 44)", () => {
    expect(calls(qwen("echo <parameter = description>x")).calls.map((c) => c.input)).toEqual([{ command: "echo <parameter = description>x" }]);
  });
});

describe("hard negatives: text that only looks like a degraded opener still runs", () => {
  for (const [name, content] of [
    ["F# / Elm backward pipes", "let total = sum <| params\nview model = div [] <| param model"],
    ["a shell pipe into a `param` word", "make | paramfix\necho a|param"],
    ["a table cell with a spaced bar", "| name {BAR} parameters |"],
    ["a bar glued after a word", "value{BAR}parameter"],
    ["`<|` before a non-param word", "a <|> b <|parameterless-ish"],
  ] as const) {
    test(`${name}: the write runs with the text whole`, () => {
      const r = calls(write(content));
      expect(r.calls.map((c) => c.input)).toEqual([{ filePath: "a.txt", content: live(content) }]);
    });
  }
  test("a complete canonical call example inside a value is still its text (its tags are read, so no runaway)", () => {
    const example = `# Doc\n<{D}tool_calls>\n<{D}invoke name="bash">\n<{D}parameter name="command" string="true">ls</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>\n`;
    expect(calls(write(example)).calls.map((c) => c.tool)).toEqual(["write"]);
  });
});

describe("an alias of a tool declared twice with the same schema still runs", () => {
  const typed = { name: "bash", parameters: { type: "object", properties: { command: { type: "string" } }, required: ["command"] } } as ToolSpec;
  const copy = { name: "bash", parameters: { type: "object", properties: { command: { type: "string" } }, required: ["command"] } } as ToolSpec;
  const call = `<{D}tool_calls>\n<{D}invoke name="Bash">\n<{D}parameter name="command" string="true">ls</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`;
  test("Bash, two identical declarations: runs as bash", () => {
    expect(calls(call, [typed, copy]).calls.map((c) => [c.tool, c.input])).toEqual([["bash", { command: "ls" }]]);
  });
});
