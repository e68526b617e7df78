/**
 * Review (over-reach of the fixes merged since e1985a9): leaks e1985a9 repaired correctly that
 * main now runs with other arguments, loses, or swallows. Each test fails on main and passed on
 * e1985a9 (found by test/review/differential.ts, old against current). Every case is also checked
 * whole, char by char and at seeded splits, so a fix cannot pass on one path only.
 */
import { describe, expect, test } from "bun:test";
import { live } from "../golden/notation.ts";
import { fixtureTools } from "../golden/tools.ts";
import { everyChar, observable, randomCuts, runEngine } from "../support/run-engine.ts";

function outcome(notation: string) {
  const input = live(notation);
  const run = (cuts: number[]) => observable(runEngine(input, cuts, fixtureTools));
  const whole = run([]);
  expect(run(everyChar(input.length))).toEqual(whole);
  for (let seed = 1; seed <= 5; seed++) expect(run(randomCuts(input.length, seed))).toEqual(whole);
  return { calls: whole.calls.map((c) => ({ tool: c.tool, input: c.input as Record<string, unknown> })), text: whole.text, nudge: whole.nudge };
}

const carries = (calls: { input: Record<string, unknown> }[], needle: string) => calls.some((c) => JSON.stringify(c.input).includes(needle));

const BLOCK_READ = `<{D}tool_calls>\n<{D}invoke name="read">\n<{D}parameter name="filePath" string="true">/a</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`;

describe("a closer with text after it on its line, the value then ended by the block closer (closer-in-value.ts)", () => {
  // The closer is read as the value's text, but the value never reaches its own parameter closer:
  // the block closer ends it, and the call runs with the closer and the prose after it as its argument.
  test("DSML (P01): the command never holds the invoke closer and the prose after it", () => {
    const o = outcome(`<{D}tool_calls>\n<{D}invoke name="bash">\n<{D}parameter name="command" string="true">ls -la</{D}invoke> Now reading.\n</{D}tool_calls>`);
    expect(carries(o.calls, "invoke>")).toBe(false);
    expect(carries(o.calls, "Now reading")).toBe(false);
  });

  test("DSML (P01), second invoke of a block: the path never holds the closer", () => {
    const o = outcome(
      `<{D}tool_calls>\n<{D}invoke name="bash">\n<{D}parameter name="command" string="true">ls</{D}invoke>\n<{D}invoke name="read">\n<{D}parameter name="filePath" string="true">/a</{D}invoke> ok\n</{D}tool_calls>`,
    );
    expect(carries(o.calls, "invoke>")).toBe(false);
  });

  test("Qwen3-Coder (O02.5): the command never holds </function> and the prose after it", () => {
    const o = outcome("<tool_call>\n<function=bash>\n<parameter=command>\nls\n</function> ok\n</tool_call>");
    expect(carries(o.calls, "</function>")).toBe(false);
  });

  test("Claude-style (O07): the command never holds </invoke> and the prose after it", () => {
    const o = outcome(`<function_calls>\n<invoke name="bash">\n<parameter name="command">ls</invoke> ok\n</function_calls>`);
    expect(carries(o.calls, "</invoke>")).toBe(false);
  });
});

describe("P01 closed by the invoke closer with the end-of-sentence token right after it (D07)", () => {
  test("the call runs, as it did, and the token is noise", () => {
    const o = outcome(`<{D}tool_calls>\n<{D}invoke name="bash">\n<{D}parameter name="command" string="true">ls</{D}invoke><{BAR}end{SP}of{SP}sentence{BAR}>`);
    expect(o.calls).toEqual([{ tool: "bash", input: { command: "ls" } }]);
    expect(o.nudge).toBeNull();
  });
});

describe("a costume closer followed by text on its line (costume.ts COSTUME.tag)", () => {
  // The first costume is refused on purpose (its closer may be the code's text); what it must not
  // do is stay open over the rest of the reply.
  test("a second costume later in the reply is never merged into one command with the prose between", () => {
    const o = outcome("<shell>\nls\n</shell>ok\n<shell>\npwd\n</shell>");
    expect(carries(o.calls, "shell>")).toBe(false);
    expect(carries(o.calls, "ok")).toBe(false);
  });

  test("a well-formed DSML block on a later line still runs", () => {
    const o = outcome(`<shell>\nls -la\n</shell> to list files.\n\nThen:\n\n${BLOCK_READ}`);
    expect(o.calls).toContainEqual({ tool: "read", input: { filePath: "/a" } });
  });

  test("a well-formed DSML block right after the closer still runs", () => {
    const o = outcome(`<shell>\nls\n</shell>${BLOCK_READ}`);
    expect(o.calls).toContainEqual({ tool: "read", input: { filePath: "/a" } });
  });

  test("a Hermes call after a <pre> costume with text after it still runs", () => {
    const o = outcome(`<pre><code>shell\nls\n</code></pre> to list.\n\n<tool_call>\n{"name": "read", "arguments": {"filePath": "/a"}}\n</tool_call>`);
    expect(o.calls).toContainEqual({ tool: "read", input: { filePath: "/a" } });
  });
});

describe("C01 execute costume naming the declared shell tool", () => {
  test("<tool_name>bash</tool_name> with <language>sh</language> runs its code in bash", () => {
    const o = outcome("<tool_call><tool_name>bash</tool_name><tool_args><language>sh</language><code>ls -la</code></tool_args></tool_call>");
    expect(o.calls).toEqual([{ tool: "bash", input: { command: "ls -la" } }]);
  });
});
