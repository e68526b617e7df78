/**
 * Review 48b (parse): the new dedent rule (src/parse/values.ts dedentToCloserLine, trimHuggingNewlines;
 * src/parse/costume.ts codeCall) removes the closer line's indentation from every line of a value.
 * Its reason is a container (a list item's continuation lines, an indented paragraph), but the rule
 * never looks at where the call's own markup starts: with the opener at column 0 there is no
 * container, and the indentation is the file's own (YAML nesting, a Makefile recipe's tab). main
 * kept those values as written. Every case runs whole, char by char and at seeded random splits.
 */
import { describe, expect, test } from "bun:test";
import { outcome } from "../support/outcome.ts";
import { live } from "../golden/notation.ts";

const dsmlWrite = (path: string, content: string) =>
  live(`<{D}tool_calls>\n<{D}invoke name="write">\n<{D}parameter name="filePath" string="true">${path}</{D}parameter>\n<{D}parameter name="content" string="true">`) +
  content +
  live(`</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`);
const qwenWrite = (path: string, content: string) =>
  `<tool_call>\n<function=write>\n<parameter=filePath>\n${path}\n</parameter>\n<parameter=content>\n${content}</parameter>\n</function>\n</tool_call>`;
const contents = (o: ReturnType<typeof outcome>) => o.calls.map((c) => c.input.content);

describe("fixed: the value's indentation is kept when the call's markup stands at column 0 (no container)", () => {
  // Severity: medium-low, wrong arguments (a write sends content the model did not write: YAML
  // nesting or a Makefile recipe's tab is gone, so the file means something else or breaks).
  // main: the value as written ("\n  port: 80\n  host: x\n  "). Suspected: src/parse/values.ts
  // trimHuggingNewlines/dedentToCloserLine (and costume.ts codeCall): the closer line's indentation is
  // taken as a container's without checking that the opener's line (the invoke/parameter/costume
  // markup) is indented by it too. Expected: the indentation kept (or, at most, the hugging newlines
  // trimmed), or the call refused; never content with the file's own indentation cut off.
  test("DSML write of a YAML fragment whose closer is indented like its lines", () => {
    const o = outcome(dsmlWrite("fragment.yaml", "\n  port: 80\n  host: x\n  "));
    expect(contents(o)).not.toContain("port: 80\nhost: x");
    for (const c of contents(o)) expect(String(c)).toContain("  port: 80\n  host: x");
  });

  test("Qwen3-Coder write of a Makefile recipe fragment: the recipe tab is removed", () => {
    const o = outcome(qwenWrite("rules.mk", "\t$(CC) -o app main.c\n\t"));
    for (const c of contents(o)) expect(String(c).startsWith("\t")).toBe(true);
  });

  test("DSML write of an indented Markdown code block (four spaces are the code block)", () => {
    const o = outcome(dsmlWrite("snippet.md", "\n    npm install\n    npm test\n    "));
    for (const c of contents(o)) expect(String(c)).toContain("    npm install");
  });
});

describe("hard negatives: the dedent rule leaves values alone where it must", () => {
  test("a line indented less than the closer keeps every line as written", () => {
    const o = outcome(dsmlWrite("a.py", "\n    def f():\n  return 1\n    "));
    expect(contents(o)).toEqual(["\n    def f():\n  return 1\n    "]);
  });

  test("a closer at column 0 keeps the indentation of the lines", () => {
    const o = outcome(qwenWrite("a.yaml", "  port: 80\n  host: x\n"));
    expect(contents(o)).toEqual(["  port: 80\n  host: x"]);
  });
});
