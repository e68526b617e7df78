/**
 * Review 48: calls written inside a list item (or on indented lines) keep the item's indentation
 * in their arguments. CommonMark strips a list item's content indentation (and a paragraph line's
 * leading spaces); the parser reads the values with it. Every case runs whole, char by char and at
 * seeded random splits.
 */
import { describe, expect, test } from "bun:test";
import { outcome } from "../support/outcome.ts";

const indentLines = (text: string, indent: string) => text.replace(/\n/g, `\n${indent}`);
const qwenRead = "<tool_call>\n<function=read>\n<parameter=filePath>\na.md\n</parameter>\n</function>\n</tool_call>";
const qwenWrite = "<tool_call>\n<function=write>\n<parameter=filePath>\na.md\n</parameter>\n<parameter=content>\nx\n</parameter>\n</function>\n</tool_call>";
/** Any argument that starts or ends with a line break followed or preceded by spaces. */
const paddedArgument = (o: ReturnType<typeof outcome>) => o.calls.some((c) => Object.values(c.input).some((v) => typeof v === "string" && (/^\n[ \t]+/.test(v) || /\n[ \t]+$/.test(v))));

describe("fixed: Qwen3-Coder in a list item: the closer line's indentation is the container's, removed from the value", () => {
  // Severity: wrong execution (read and write of a path the markup never named: "\n  a.md\n  ",
  // a file created under a name with line breaks and spaces; a command sent with them). Without
  // the indentation the same markup gives "a.md" (P09: a newline hugging both sides is layout).
  // Suspected: src/parse/dialects/qwen.ts (the hugging-newline trim, P09b/P09c, takes a lone "\n"
  // on each side only, so "\n" + the container's indentation is kept); the span is read with the
  // list item's indentation still in it (the engine tracks the item's content column for the
  // documentation context only). Expected: the values as at the
  // top level ("a.md", "x"), or the call refused; never a path holding line breaks.
  test("read in a bullet item's continuation lines", () => {
    const input = `- Read it:\n  ${indentLines(qwenRead, "  ")}`;
    expect(outcome(input).calls).toEqual([{ tool: "read", input: { filePath: "a.md" } }]);
  });

  test("read starting an ordered item", () => {
    const o = outcome(`1. ${indentLines(qwenRead, "   ")}`);
    expect(paddedArgument(o)).toBe(false);
  });

  test("write in a bullet item (path and content padded)", () => {
    const o = outcome(`- Save it:\n  ${indentLines(qwenWrite, "  ")}`);
    expect(paddedArgument(o)).toBe(false);
  });

  test("read in a nested list item", () => {
    const o = outcome(`- a\n  - b\n    ${indentLines(qwenRead, "    ")}`);
    expect(paddedArgument(o)).toBe(false);
  });

  test("bash in a bullet item: the command is sent with a line break and spaces around it", () => {
    const input = `- Clean:\n  ${indentLines("<tool_call>\n<function=bash>\n<parameter=command>\nrm -rf build\n</parameter>\n</function>\n</tool_call>", "  ")}`;
    expect(paddedArgument(outcome(input))).toBe(false);
  });

  test("a paragraph indented two spaces (no list)", () => {
    expect(paddedArgument(outcome(`  ${indentLines(qwenWrite, "  ")}`))).toBe(false);
  });
});

describe("fixed: a code costume on a list item's continuation lines: the closer line's indentation is removed from its code", () => {
  // Severity: wrong execution, medium (the heredoc's terminator is sent as "   EOF", so bash never
  // ends the heredoc: the file gets the terminator line and everything after it; python code sent
  // indented fails with IndentationError). Suspected: src/parse/costume.ts / src/parse/code-lines.ts
  // (the costume's code lines are not cut at the container's content column). Note the same
  // costume on the item's first line (`- <shell>`) is refused by the line-start gate, but on the
  // item's second line it runs. Expected: the code without the container's indentation (as
  // CommonMark would show it), or refused as on the first line.
  test("a heredoc in an ordered item: the terminator is not indented", () => {
    const input = "1. Create it:\n   <shell>\n   cat > a.py <<'EOF'\n   def f():\n       return 1\n   EOF\n   </shell>";
    const o = outcome(input);
    expect(o.calls.some((c) => typeof c.input.command === "string" && c.input.command.includes("\n   EOF"))).toBe(false);
  });

  test("python in a bullet item is not sent indented", () => {
    const o = outcome("- Run:\n  <python>\n  import os\n  print(1)\n  </python>");
    expect(o.calls.some((c) => typeof c.input.command === "string" && c.input.command.includes("\n  import os"))).toBe(false);
  });
});

describe("hard negatives (pass today)", () => {
  test("the same Qwen3-Coder read at the top level gives a.md", () => {
    expect(outcome(qwenRead).calls).toEqual([{ tool: "read", input: { filePath: "a.md" } }]);
  });
  test("a costume on a list item's first line or in a block quote does not run", () => {
    expect(outcome("- <shell>\n  ls\n  </shell>").calls).toEqual([]);
    expect(outcome("> <shell>\n> ls\n> </shell>").calls).toEqual([]);
  });
});
