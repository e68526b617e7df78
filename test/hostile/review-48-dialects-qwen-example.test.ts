/**
 * Review 48: a Qwen3-Coder write whose content holds a complete `<tool_call>` example of another
 * dialect (Hermes JSON, GLM, a name-only call) and whose own `</parameter>` is lost. The example's
 * `</tool_call>` (which balances the example's own opener) is taken as the wrapper's closer, and
 * the write runs with its content cut inside the example: the opener kept, its closer dropped.
 * Every case runs whole, char by char and at seeded random splits.
 */
import { describe, expect, test } from "bun:test";
import { outcome } from "../support/outcome.ts";

const qwenWrite = (rest: string) => `<tool_call>\n<function=write>\n<parameter=filePath>\na.md\n</parameter>\n<parameter=content>\n${rest}`;
const hermesExample = '<tool_call>\n{"name":"bash","arguments":{"command":"rm -rf build"}}\n</tool_call>';
/** Whether a write ran whose content holds a `<tool_call>` opener but no closer for it. */
const cutInsideExample = (input: string) =>
  outcome(input).calls.some((c) => c.tool === "write" && typeof c.input.content === "string" && c.input.content.includes("<tool_call>") && !c.input.content.includes("</tool_call>"));

describe("fixed: the example's closer ends the write's content", () => {
  // Severity: wrong execution (a file written with content the markup never delimited: cut at a
  // closer that belonged to the example inside it; prose after it is then stripped as a
  // fabricated result). Suspected: src/parse/dialects/qwen.ts / src/parse/dialects/tool-call.ts
  // (wrapperCloser: a `</tool_call>` ending its line ends an open value, O02/A40) without
  // counting the `<tool_call>` opener the value itself holds; src/parse/example-in-value.ts
  // knows complete examples only when the value reaches its own closer. Expected: refused
  // (broken-markup or truncated-call, text kept), as for a Qwen3-Coder example in the same place
  // (control below) and for the same Hermes example in an unclosed GLM value; or, where the
  // write's `</function>` follows the example, refused as A41.1 refuses an invoke closer right
  // after an example.
  test("the reply ends after the example (</parameter>, </function> and the wrapper's closer lost)", () => {
    expect(cutInsideExample(qwenWrite(`Run:\n${hermesExample}\n`))).toBe(false);
  });

  test("prose after the example is not stripped behind a cut write", () => {
    const input = qwenWrite(`Run:\n${hermesExample}\nThat is the format.\n`);
    expect(cutInsideExample(input)).toBe(false);
  });

  test("the write's </function> and wrapper closer follow the example (only </parameter> lost)", () => {
    expect(cutInsideExample(qwenWrite(`Run:\n${hermesExample}\n</function>\n</tool_call>`))).toBe(false);
  });

  test("only the wrapper's closer follows the example", () => {
    expect(cutInsideExample(qwenWrite(`Run:\n${hermesExample}\n</tool_call>`))).toBe(false);
  });

  test("a GLM example", () => {
    expect(cutInsideExample(qwenWrite("Run:\n<tool_call>bash\n<arg_key>command</arg_key>\n<arg_value>rm -rf build</arg_value>\n</tool_call>\n"))).toBe(false);
  });

  test("a name-only example (`<tool_call>list_sessions</tool_call>` on one line)", () => {
    expect(cutInsideExample(qwenWrite("Run:\n<tool_call>list_sessions</tool_call>\n"))).toBe(false);
  });
});

describe("hard negatives (pass today)", () => {
  test("a Qwen3-Coder example in the same unclosed value is refused", () => {
    const o = outcome(qwenWrite("Run:\n<tool_call>\n<function=bash>\n<parameter=command>\nrm -rf build\n</parameter>\n</function>\n</tool_call>\n"));
    expect(o.calls).toEqual([]);
    expect(o.broken).toEqual(["broken-markup"]);
  });

  test("the Hermes example in an unclosed GLM value is refused", () => {
    const input = `<tool_call>write\n<arg_key>filePath</arg_key>\n<arg_value>a.md</arg_value>\n<arg_key>content</arg_key>\n<arg_value>Run:\n${hermesExample}\n`;
    expect(outcome(input).calls).toEqual([]);
  });

  test("the Hermes example with every closer of the write present is the write's text", () => {
    const input = qwenWrite(`Run:\n${hermesExample}\n</parameter>\n</function>\n</tool_call>`);
    expect(outcome(input).calls).toEqual([{ tool: "write", input: { filePath: "a.md", content: `Run:\n${hermesExample}` } }]);
  });
});
