/**
 * Review 43, dialect family 6: tool-named elements (O09, src/parse/tool-element.ts), the shell
 * costume they share a tag with (`<bash>`, src/parse/costume.ts), and the legacy token forms
 * (L01-L07, Kimi O04; src/parse/legacy.ts). Every case runs whole, char by char and at seeded
 * random splits.
 */
import { describe, expect, test } from "bun:test";
import { live } from "../golden/notation.ts";
import { outcome, sendsMarkup } from "../support/outcome.ts";

describe("a `<bash>` element whose children cannot be read runs the children's markup as shell code", () => {
  // Severity: wrong-execution (low: bash gets XML markup the model wrote as the Cline/Roo element
  // form, not as code; in bash such a line is usually a syntax error, so the cost is a wasted,
  // confusing tool run, but `<x>word</x>` lines are redirections to a shell). Suspected:
  // src/parse/costume.ts (parse of a code costume) with src/parse/tool-element.ts
  // costumeAsToolElement(): when readPlainChildren refuses the body (a child with an attribute, a
  // space before `>`, text between children) the costume falls back to reading the whole body as
  // shell code. The element form's own refusals (an attribute no parameter reads, R12.14 for the
  // outer tag) are thereby bypassed. Expected: a body that opens with an element named after one
  // of the tool's parameters is the element form; when it cannot be read the call is refused
  // (broken-markup), never run with `<command ...>` as the command.
  test("a child with an attribute: `<command timeout=\"5\">ls</command>` is not the command", () => {
    const o = outcome('<bash>\n<command timeout="5">ls</command>\n</bash>');
    expect(sendsMarkup(o)).toBe(false);
  });

  test("a child written `<command >`: not the command", () => {
    expect(sendsMarkup(outcome("<bash>\n<command >ls</command>\n</bash>"))).toBe(false);
  });

  test("text after the children: `<command>ls</command>` then a stray line is not the command", () => {
    expect(sendsMarkup(outcome("<bash>\n<command>ls</command>\nstray\n</bash>"))).toBe(false);
  });

  test("control (passes today): the clean element form runs, an attribute on the outer tag is refused", () => {
    expect(outcome("<bash>\n<command>ls</command>\n</bash>").calls).toEqual([{ tool: "bash", input: { command: "ls" } }]);
    expect(outcome('<bash timeout="5">\n<command>ls</command>\n</bash>').calls).toEqual([]);
    expect(outcome("<shell>\nls -la\n</shell>").calls).toEqual([{ tool: "bash", input: { command: "ls -la" } }]);
  });
});

describe("hard negatives (pass today)", () => {
  test("tool-named elements: a child named twice, or no parameter of the tool, refuses the call", () => {
    expect(outcome("<bash>\n<command>ls</command>\n<command>rm -rf ~</command>\n</bash>").calls).toEqual([]);
    expect(outcome("<bash>\n<cmd>ls</cmd>\n</bash>").calls).toEqual([]);
    expect(outcome("<write>\n<filePath>a.md</filePath>\n<content>x</content>\n<mode>append</mode>\n</write>").calls).toEqual([]);
  });

  test("tool-named elements keep a lone trailing or leading newline (P09b, P09c)", () => {
    expect(outcome("<write>\n<filePath>a.md</filePath>\n<content>x\n</content>\n</write>").calls).toEqual([{ tool: "write", input: { filePath: "a.md", content: "x\n" } }]);
    expect(outcome("<write>\n<filePath>a.md</filePath>\n<content>\nx</content>\n</write>").calls).toEqual([{ tool: "write", input: { filePath: "a.md", content: "\nx" } }]);
  });

  test("legacy V3: text after the closing fence, a second separator, or a name with a word after it refuses the call", () => {
    const call = (inner: string) => live(`<{BAR}tool{SP}calls{SP}begin{BAR}><{BAR}tool{SP}call{SP}begin{BAR}>${inner}<{BAR}tool{SP}call{SP}end{BAR}><{BAR}tool{SP}calls{SP}end{BAR}>`);
    const sep = live("<{BAR}tool{SP}sep{BAR}>");
    expect(outcome(call(`function${sep}bash\n\`\`\`json\n{"command":"ls"}\n\`\`\`\nrm -rf build`)).calls).toEqual([]);
    expect(outcome(call(`bash${sep}{"command":"ls"}${sep}{"command":"rm"}`)).calls).toEqual([]);
    expect(outcome(call(`function${sep}bash extra\n{"command":"ls"}`)).calls).toEqual([]);
    expect(outcome(call(`read${sep}{"filePath":"/a","limit":"0x10"}`)).calls).toEqual([]);
  });

  test("Kimi: text after the arguments, or a second argument token, refuses the call", () => {
    const kimi = (inner: string) => `<|tool_calls_section_begin|><|tool_call_begin|>functions.bash:0<|tool_call_argument_begin|>${inner}<|tool_call_end|><|tool_calls_section_end|>`;
    expect(outcome(kimi('{"command":"ls"} rm')).calls).toEqual([]);
    expect(outcome(kimi('{"command":"ls"}<|tool_call_argument_begin|>{"command":"rm"}')).calls).toEqual([]);
  });
});
