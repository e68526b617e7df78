/**
 * Review 44, rule 2: Qwen3-Coder's parameter boundary (src/parse/dialects/qwen.ts QwenParameters,
 * trackQwenParameter; tool-call.ts wrapperCloser). A `<parameter=NAME>` ends an open value only at
 * a line start, naming a declared parameter not yet given. Every case runs whole, char by char and
 * at seeded random splits.
 */
import { describe, expect, test } from "bun:test";
import { outcome, qwenCall as qwen } from "../support/outcome.ts";

describe("a line-start opener for a declared parameter not yet given, inside a value that reaches its own </parameter>", () => {
  // Severity: wrong-execution (a file written cut to its first lines, under a path taken from the
  // file's text; an edit run with replaceAll it never set; a command cut short).
  // Suspected: src/parse/dialects/qwen.ts QwenParameters.opener()/closer() and parseQwenFunctions():
  // a `<parameter=KEY>` at a line start naming a declared parameter not yet given always ends the
  // open value (O02.4, a lost `</parameter>`). But when the markup then holds one `</parameter>`
  // MORE than the openers it left open (the second closer below is "stray" for QwenParameters and
  // silently ignored), the closers balance only if the inner opener was the value's text: the
  // model wrote a file documenting the format (or an example inside a command) and closed both. The
  // evidence that the value's closer was lost is gone, so which value the model meant is
  // unknowable, the very case the walk refuses for an opener mid-line (openerCutShort). Expected:
  // refused (broken-markup), or the whole text as the value; never the value cut at the inner
  // opener and the inner text run as another argument. A stray `</parameter>` after a value that
  // ended any way other than its own closer could count as that evidence.
  test("write: content documenting `<parameter=filePath>` on its own line is not cut, nor written to the path it documents", () => {
    const input = qwen("write", "<parameter=content>\n# Format\n<parameter=filePath>\nnotes/a.md\n</parameter>\n</parameter>");
    const o = outcome(input);
    expect(o.calls).not.toContainEqual({ tool: "write", input: { content: "# Format", filePath: "notes/a.md" } });
    expect(o.calls.every((c) => c.input.content !== "# Format")).toBe(true);
  });

  test("the same without the <tool_call> wrapper (bare <function=...>)", () => {
    const input = "<function=write>\n<parameter=content>\n# Format\n<parameter=filePath>\nnotes/a.md\n</parameter>\n</parameter>\n</function>";
    expect(outcome(input).calls.every((c) => c.input.content !== "# Format")).toBe(true);
  });

  test("edit: newString documenting `<parameter=replaceAll>` does not run with replaceAll true and newString cut", () => {
    const input = qwen("edit", "<parameter=filePath>a.md</parameter>\n<parameter=oldString>\nx\n</parameter>\n<parameter=newString>\nUse:\n<parameter=replaceAll>\ntrue\n</parameter>\n</parameter>");
    const o = outcome(input);
    expect(o.calls.some((c) => c.input.replaceAll === true)).toBe(false);
  });

  test("bash: a command holding a `<parameter=description>` line and two closers does not run cut short", () => {
    const input = qwen("bash", "<parameter=command>\ncat > doc.md <<'EOF'\n<parameter=description>\nx\n</parameter>\nEOF\n</parameter>");
    // Hard negative shape (text after the inner closer): refused today.
    expect(outcome(input).calls).toEqual([]);
    const tight = qwen("bash", "<parameter=command>\nrm -rf build\n<parameter=description>\nclean\n</parameter>\n</parameter>");
    expect(outcome(tight).calls.every((c) => c.input.command !== "rm -rf build")).toBe(true);
  });

  test("O02.4, one closer for the last value, is refused (review 47b: the same tags as a page documenting the opener, never run cut)", () => {
    const input = qwen("write", "<parameter=content>\n# Format\n<parameter=filePath>\nnotes/a.md\n</parameter>");
    expect(outcome(input).calls).toEqual([]);
    expect(outcome(input).broken).toEqual(["broken-markup"]);
  });
});

describe("hard negatives (pass today)", () => {
  test("`<parameter = description>` (spaces) is the value's text", () => {
    expect(outcome(qwen("bash", "<parameter=command>echo <parameter = description>x\n</parameter>")).calls).toEqual([{ tool: "bash", input: { command: "echo <parameter = description>x\n" } }]);
  });
  test("a case-different name (`Description`) at a line start is text, and the value must reach its own closer", () => {
    expect(outcome(qwen("bash", "<parameter=command>\necho a\n<parameter=Description>\nx\n</parameter>")).calls).toEqual([]);
  });
  test("a given name (`command` again) at a line start is text", () => {
    expect(outcome(qwen("bash", "<parameter=command>\necho a\n<parameter=command>\necho b\n</parameter>")).calls).toEqual([]);
  });
  test("CRLF: a mid-line opener inside a value is text, and the value never reached its closer", () => {
    const input = qwen("write", "<parameter=filePath>a.md</parameter>\n<parameter=content>\nUse <parameter=x>b\n</parameter>").replace(/\n/g, "\r\n");
    expect(outcome(input).calls).toEqual([]);
  });
  test("nested pairs inside a value balanced by their closers are the value's text", () => {
    const input = qwen("write", "<parameter=filePath>a.md</parameter>\n<parameter=content>\n<parameter=a>\n<parameter=b>\nx\n</parameter>\n</parameter>\n</parameter>");
    expect(outcome(input).calls).toEqual([{ tool: "write", input: { filePath: "a.md", content: "<parameter=a>\n<parameter=b>\nx\n</parameter>\n</parameter>" } }]);
  });
  test("the wrapper's closer does not end a value that held an opener as text", () => {
    expect(outcome("<tool_call>\n<function=bash>\n<parameter=command>echo <parameter=description>x</parameter>\n</tool_call>").calls).toEqual([]);
  });
});
