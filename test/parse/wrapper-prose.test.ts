/**
 * Prose inside a MiniMax (O05) or Claude-style (O07) wrapper, beside its invokes (review args,
 * finding 11): only whitespace and wrapper tags join a call's span (layUnits, src/parse/segments.ts);
 * a line of prose is shown between two calls, or stripped and reported after the last (S03), never
 * swallowed unseen. Every case runs whole, char by char and at seeded splits.
 */
import { describe, expect, test } from "bun:test";
import { live } from "../golden/notation.ts";
import { fixtureTools } from "../golden/tools.ts";
import { runAtEverySplit } from "../support/run-engine.ts";

function outcome(notation: string) {
  const input = live(notation);
  const r = runAtEverySplit(input, fixtureTools);
  return { calls: r.calls.map((c) => ({ tool: c.tool, input: c.input })), text: r.text, stripped: r.summary.stripped.map((s) => input.slice(s.span[0], s.span[1])) };
}

describe("unprefixed wrappers (O05, O07): text inside the wrapper beside the invokes", () => {
  test("Claude-style (O07): a line between two invokes is shown while both calls run", () => {
    const o = outcome(`<function_calls>\n<invoke name="bash">\n<parameter name="command">ls</parameter>\n</invoke>\nrm -rf build\n<invoke name="read">\n<parameter name="filePath">/x</parameter>\n</invoke>\n</function_calls>`);
    expect(o.calls).toEqual([{ tool: "bash", input: { command: "ls" } }, { tool: "read", input: { filePath: "/x" } }]);
    expect(o.text).toBe("rm -rf build\n");
  });

  test("MiniMax (O05): a line after the last invoke is stripped and reported, not swallowed", () => {
    const o = outcome(`<minimax:tool_call>\n<invoke name="bash">\n<parameter name="command">ls</parameter>\n</invoke>\nrm -rf build\n</minimax:tool_call>`);
    expect(o.calls).toEqual([{ tool: "bash", input: { command: "ls" } }]);
    expect(o.stripped).toEqual(["rm -rf build\n</minimax:tool_call>"]);
  });

  test("control: Claude-style (O07) with a line before the first invoke shows it (the stream releases the wrapper at the prose)", () => {
    const o = outcome(`<function_calls>\nrm -rf build\n<invoke name="bash">\n<parameter name="command">ls</parameter>\n</invoke>\n</function_calls>`);
    expect(o.text).toContain("rm -rf build");
  });

  test("control: whitespace and the wrapper's tags stay with the calls", () => {
    const o = outcome(`<minimax:tool_call>\n<invoke name="bash">\n<parameter name="command">ls</parameter>\n</invoke>\n\n<invoke name="read">\n<parameter name="filePath">/x</parameter>\n</invoke>\n</minimax:tool_call>`);
    expect(o.calls).toHaveLength(2);
    expect(o.text).toBe("");
    expect(o.stripped).toEqual([]);
  });

  test("control: DSML shows the same line", () => {
    const o = outcome(`<{D}tool_calls>\n<{D}invoke name="bash">\n<{D}parameter name="command" string="true">ls</{D}parameter>\n</{D}invoke>\nrm -rf build\n<{D}invoke name="read">\n<{D}parameter name="filePath" string="true">/x</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`);
    expect(o.text).toContain("rm -rf build");
  });
});
