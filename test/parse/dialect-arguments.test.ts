/**
 * Argument fidelity in the other models' dialects (review args): a recovered call's arguments are
 * exactly what the markup wrote, and a call whose markup was not wholly understood does not run
 * (broken markup, so a nudge). Each refusal is paired with the control that still runs, and every
 * case is run whole, char by char and at seeded random splits (the outcome must not depend on them).
 */
import { describe, expect, test } from "bun:test";
import { live } from "../golden/notation.ts";
import { fixtureTools } from "../golden/tools.ts";
import { runAtEverySplit } from "../support/run-engine.ts";

/** Calls, broken spans and visible text of a run, asserted the same at every split. */
function outcome(notation: string) {
  const input = live(notation);
  const r = runAtEverySplit(input, fixtureTools);
  return {
    calls: r.calls.map((c) => ({ tool: c.tool, input: c.input })),
    broken: r.summary.broken.map((b) => ({ shape: b.shape, reason: b.reason, tool: b.tool })),
    text: r.text,
  };
}

describe("Qwen3-Coder (O02): a second <function=…> before the first closed (finding 2)", () => {
  // The opener was read only while no name was: the second function's parameters ran on the first
  // call (bash {command, filePath}) and the read call was lost.
  const qwen = (body: string) => `<tool_call>\n<function=bash>\n<parameter=command>\nls\n${body}</function>\n</tool_call>`;

  test("after a closed parameter: refused, never one call with both functions' parameters", () => {
    const o = outcome(qwen("</parameter>\n<function=read>\n<parameter=filePath>\n/x\n</parameter>\n"));
    expect(o.calls).toEqual([]);
    expect(o.broken).toEqual([{ shape: "O02", reason: "broken-markup", tool: "bash" }]);
  });

  test("inside a parameter that the next parameter's opener ends (a runaway value): refused", () => {
    expect(outcome(qwen("<function=read>\n<parameter=filePath>\n/x\n</parameter>\n")).calls).toEqual([]);
  });

  test("control: inside a value its own </parameter> closes, a function opener is the value's text; two closed functions are two calls", () => {
    const content = "Qwen writes <function=bash> first.";
    expect(outcome(`<tool_call>\n<function=write>\n<parameter=filePath>\na.md\n</parameter>\n<parameter=content>\n${content}\n</parameter>\n</function>\n</tool_call>`).calls).toEqual([
      { tool: "write", input: { filePath: "a.md", content } },
    ]);
    expect(outcome(qwen("</parameter>\n</function>\n<function=read>\n<parameter=filePath>\n/x\n</parameter>\n")).calls).toEqual([
      { tool: "bash", input: { command: "ls" } },
      { tool: "read", input: { filePath: "/x" } },
    ]);
  });
});

describe("GLM (O03): only whitespace between the pairs", () => {
  // The pairs are read from the tags in order, as the stream reads them (finding 1).
  test("a tag or a key opener that breaks the key/value order refuses; the closed pairs run", () => {
    expect(outcome("<tool_call>bash\n<arg_key>command</arg_key>\n<arg_key>description</arg_key>\n<arg_value>ls</arg_value>\n</tool_call>").calls).toEqual([]);
    expect(outcome("<tool_call>bash\n<arg_key>command<arg_value>ls</arg_value>\n</tool_call>").calls).toEqual([]);
    // Hard negative: markup inside a value is the value's text; only its own closer ends it.
    const command = "echo '<arg_key>x</arg_key>' > a.txt";
    expect(outcome(`<tool_call>bash\n<arg_key>command</arg_key>\n<arg_value>${command}</arg_value>\n</tool_call>`).calls).toEqual([{ tool: "bash", input: { command } }]);
  });
});

describe("MiniMax bracket (O05) `args => {json}`: values as JSON read them (finding 7)", () => {
  // The values were turned back into text with JSON.stringify, then typed: a number for a string
  // parameter came out as other digits. They are now typed as the JSON body form types them.
  const arrow = (args: string) => `[TOOL_CALL]\n{tool => "bash", args => ${args}}\n[/TOOL_CALL]`;
  const json = (args: string) => `[TOOL_CALL]\n{"tool": "bash", "args": ${args}}\n[/TOOL_CALL]`;

  test("1.10 or a number past 2^53 for a string parameter is refused as in the JSON body form, never sent as \"1.1\" or rounded digits", () => {
    for (const value of ["1.10", "12345678901234567890"]) {
      const args = `{"command": "sleep 1", "description": ${value}}`;
      for (const form of [arrow(args), json(args)]) {
        const o = outcome(form);
        expect(o.calls).toEqual([]);
        expect(o.broken).toEqual([{ shape: "O05", reason: "invalid-arguments", tool: "bash" }]);
      }
    }
  });

  test("control: values that fit run in both forms, typed alike", () => {
    const args = '{"command": "sleep 1", "description": "wait", "timeout": 600}';
    for (const form of [arrow(args), json(args)]) expect(outcome(form).calls).toEqual([{ tool: "bash", input: { command: "sleep 1", description: "wait", timeout: 600 } }]);
    expect(outcome('[TOOL_CALL]{tool => "read", args => {"filePath": "/a", "limit": "5"}}[/TOOL_CALL]').calls).toEqual([{ tool: "read", input: { filePath: "/a", limit: 5 } }]);
  });
});

describe("legacy fenced arguments (L01, Kimi O04): text after the closing fence (finding 8)", () => {
  // Everything after the last fence was dropped while the call ran.
  const l01 = (args: string) => `<{BAR}tool{SP}calls{SP}begin{BAR}><{BAR}tool{SP}call{SP}begin{BAR}>function<{BAR}tool{SP}sep{BAR}>bash\n${args}<{BAR}tool{SP}call{SP}end{BAR}><{BAR}tool{SP}calls{SP}end{BAR}>`;
  const kimi = (args: string) => `<|tool_calls_section_begin|><|tool_call_begin|>functions.bash:0<|tool_call_argument_begin|>${args}<|tool_call_end|><|tool_calls_section_end|>`;
  const fenced = '```json\n{"command":"ls"}\n```';

  test("text after the fence refuses the call and stays visible", () => {
    for (const form of [l01, kimi]) {
      const o = outcome(form(`${fenced}\nrm -rf build`));
      expect(o.calls).toEqual([]);
      expect(o.broken.length).toBeGreaterThan(0);
      expect(o.text).toContain("rm -rf build");
    }
  });

  test("control: a fence followed only by whitespace, or never closed, runs", () => {
    for (const form of [l01, kimi]) {
      expect(outcome(form(`${fenced}\n  \n`)).calls).toEqual([{ tool: "bash", input: { command: "ls" } }]);
      expect(outcome(form('```json\n{"command":"ls"}\n')).calls).toEqual([{ tool: "bash", input: { command: "ls" } }]);
    }
  });
});
