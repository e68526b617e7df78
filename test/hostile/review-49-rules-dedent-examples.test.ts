/**
 * Review 49 (rules): hard negatives for last round's list-item dedent (C48.2, O48.5, P48.9) and
 * "an example of any dialect in a value is text" (S02.17, S02.18). All pass on main; kept because
 * they pin meaning-bearing indentation (Python, YAML, heredocs, Makefile tabs, CRLF) and value ends
 * (an example of each dialect after a DSML example, one left open) that the rules could break.
 * Every case runs whole, char by char and at seeded random splits (outcome()).
 */
import { describe, expect, test } from "bun:test";
import { outcome } from "../support/outcome.ts";
import { live } from "../golden/notation.ts";

const listWrite = (file: string, lines: string[], nl = "\n") =>
  live(
    [`- Write it:`, `  <{D}tool_calls>`, `  <{D}invoke name="write">`, `  <{D}parameter name="filePath" string="true">${file}</{D}parameter>`, `  <{D}parameter name="content" string="true">`, ...lines, `  </{D}parameter>`, `  </{D}invoke>`, `  </{D}tool_calls>`].join(nl),
  );

describe("hard negatives: the dedent strips the container's indentation only", () => {
  for (const [name, input, expected] of [
    ["Python keeps its relative indent", listWrite("a.py", ["  def f():", "      return 1"]), "def f():\n    return 1"],
    ["YAML keeps its nesting", listWrite("a.yml", ["    a:", "      b: 1"]), "  a:\n    b: 1"],
    ["a Makefile tab after the container's spaces stays", listWrite("Makefile", ["  all:", "  \techo hi"]), "all:\n\techo hi"],
    ["CRLF lines", listWrite("a.yml", ["  a:", "    b: 1"], "\r\n"), "a:\r\n  b: 1"],
  ] as const) {
    test(name, () => {
      expect(outcome(input).calls.map((c) => c.input.content)).toEqual([expected]);
    });
  }
  test("a tab container strips one tab", () => {
    const input = live(`-\tWrite it:\n\t<{D}tool_calls>\n\t<{D}invoke name="write">\n\t<{D}parameter name="filePath" string="true">Makefile</{D}parameter>\n\t<{D}parameter name="content" string="true">\n\tall:\n\t\techo hi\n\t</{D}parameter>\n\t</{D}invoke>\n\t</{D}tool_calls>`);
    expect(outcome(input).calls.map((c) => c.input.content)).toEqual(["all:\n\techo hi"]);
  });
  for (const [name, input, command] of [
    ["a heredoc's body keeps its extra indent, its terminator reaches column 0", "1. Create it:\n   <shell>\n   cat > a.txt <<'EOF'\n     x\n   EOF\n   </shell>", "cat > a.txt <<'EOF'\n  x\nEOF"],
    ["a <<- heredoc keeps its tabs", "1. Create it:\n   <shell>\n   cat > a.txt <<-EOF\n   \tx\n   \tEOF\n   </shell>", "cat > a.txt <<-EOF\n\tx\n\tEOF"],
    ["a costume at column 0 keeps its lines as written", "<shell>\n  echo a\n  echo b\n  </shell>", "  echo a\n  echo b"],
    ["a blank line inside the list item's code", "1. Run:\n   <shell>\n   echo a\n\n   echo b\n   </shell>", "echo a\n\necho b"],
    ["CRLF list-item costume", "- Run:\r\n  <shell>\r\n  echo a\r\n    echo b\r\n  </shell>", "echo a\r\n  echo b"],
  ] as const) {
    test(name, () => {
      expect(outcome(input).calls).toEqual([{ tool: "bash", input: { command } }]);
    });
  }
});

describe("hard negatives: examples in a value end neither early nor late", () => {
  const ex = `<{D}tool_calls>\n<{D}invoke name="bash">\n<{D}parameter name="command" string="true">rm -rf build</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`;
  const write = (content: string) =>
    live(`<{D}tool_calls>\n<{D}invoke name="write">\n<{D}parameter name="filePath" string="true">a.md</{D}parameter>\n<{D}parameter name="content" string="true">${content}</{D}parameter>\n</{D}invoke>\n<{D}invoke name="bash">\n<{D}parameter name="command" string="true">ls</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`);
  for (const [name, second] of [
    ["Hermes", `<tool_call>\n{"name":"bash","arguments":{"command":"rm -rf build"}}\n</tool_call>\nend`],
    ["Hermes left open", `<tool_call>\n{"name":"bash"`],
    ["Claude-style left open", `<function_calls>\n<invoke name="bash">`],
    ["Qwen3-Coder without its wrapper's closer", `<tool_call>\n<function=bash>\n<parameter=command>\nrm -rf build\n</parameter>\n</function>`],
    ["a costume", `<shell>rm -rf build</shell>\nend`],
    ["pre/code", `<pre><code>rm -rf build</code></pre>\nend`],
    ["Mistral", `[TOOL_CALLS]bash{"command":"rm -rf build"}\nend`],
    ["a Python literal", `bash(command="rm -rf build")\nend`],
    ["MiniMax", `[TOOL_CALL] {tool => "bash", args => { --command "rm -rf build" }} [/TOOL_CALL]\nend`],
  ] as const) {
    test(`a DSML example then ${name}: the write holds both, the real ls after it runs`, () => {
      const content = live(`Page:\n${ex}\n${second}`);
      expect(outcome(write(content)).calls).toEqual([
        { tool: "write", input: { filePath: "a.md", content } },
        { tool: "bash", input: { command: "ls" } },
      ]);
    });
  }
});
