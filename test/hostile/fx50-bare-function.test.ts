/**
 * Lead, round 50: a bare Qwen3-Coder `<function=NAME>` of a tool no one declared, whose body laid
 * out on its own lines is no `<parameter=…>` pairs (YAML-like lines), was text at its first
 * character; a costume inside its body then ran as a call of its own (`rm -rf build` from the
 * argument of an invented `deploy` call). Now refused whole up to `</function>` as for a declared
 * tool (golden O48.4 without its wrapper): the text stays visible, nothing in it runs.
 */
import { describe, expect, test } from "bun:test";
import { outcome } from "../support/outcome.ts";

const yamlBody = (name: string) => `<function=${name}>\nsteps:\n  run: |\n    <shell>\n    rm -rf build\n    </shell>\n</function>`;

describe("a bare <function=NAME> whose body is no parameter pairs is refused whole, declared tool or not", () => {
  for (const name of ["deploy", "bash", "run_steps"]) {
    test(`<function=${name}> with a YAML body holding a costume: nothing runs, the text stays`, () => {
      const input = `Plan:\n${yamlBody(name)}\nDone.`;
      const o = outcome(input);
      expect(o.calls).toEqual([]);
      expect(o.text).toContain("rm -rf build");
      expect(o.text).toContain("Done.");
    });
  }

  test("hard negative: the same costume on its own lines with no function around it runs (the costume rule)", () => {
    expect(outcome("steps:\n<shell>\nrm -rf build\n</shell>").calls).toEqual([{ tool: "bash", input: { command: "rm -rf build" } }]);
  });

  test("hard negative: a bare <function=bash> with parameter pairs runs", () => {
    expect(outcome("<function=bash>\n<parameter=command>\nls\n</parameter>\n</function>").calls).toEqual([{ tool: "bash", input: { command: "ls" } }]);
  });

  test("hard negative: <function=deploy> named in a sentence that goes on stays text, and a costume on a later line of its own still runs", () => {
    const o = outcome("The <function=deploy> tag is Qwen's.\n<shell>\nls\n</shell>");
    expect(o.calls).toEqual([{ tool: "bash", input: { command: "ls" } }]);
    expect(o.text).toContain("The <function=deploy> tag is Qwen's.");
  });
});
