/**
 * Review 43: which `<parameter=KEY>` ends an open Qwen3-Coder value (src/parse/dialects/qwen.ts
 * QwenParameters). The next opener ends a value whose `</parameter>` was lost (O02.4) only when it
 * starts its line and names a parameter the tool declares that the call has not given yet (for a
 * tool with no declared properties: a line start alone), and such a call is refused (review 47b:
 * the opener may be the value's text, closed by the value's own closer). Any other opener is the value's text; its
 * own `</parameter>` closes it, and the value must then reach its own closer or the call is
 * refused. And P09 in these dialects: only a newline hugging both sides of a value is layout.
 * Every case runs whole, char by char and at seeded random splits (the stream and the walk agree).
 */
import { describe, expect, test } from "bun:test";
import type { ToolSpec } from "../../src/parse/types.ts";
import { fixtureTools } from "../golden/tools.ts";
import { outcome } from "../support/outcome.ts";

const wrapped = (fn: string, params: string) => `<tool_call>\n<function=${fn}>\n${params}\n</function>\n</tool_call>`;
const bare = (fn: string, params: string) => `<function=${fn}>\n${params}\n</function>\n`;
const FORMS = { "in <tool_call>": wrapped, bare };

/** A tool whose schema declares no properties: any name may be a parameter. */
const loose: ToolSpec = { name: "loose", parameters: { type: "object" } };

for (const [form, qwen] of Object.entries(FORMS)) {
  describe(`Qwen3-Coder ${form}: a <parameter= inside a value`, () => {
    test("an opener and its own closer inside a value are its text: the whole file is written", () => {
      const content = "Set it with <parameter=x>b</parameter> in the call.\n";
      const o = outcome(qwen("write", `<parameter=filePath>notes.md</parameter>\n<parameter=content>${content}</parameter>`));
      expect(o.calls).toEqual([{ tool: "write", input: { filePath: "notes.md", content } }]);
    });

    test("a file documenting the format over several lines is written whole", () => {
      const content = "# Calls\n<function=NAME>\n<parameter=KEY>\nvalue\n</parameter>\n</function>\nend\n";
      const o = outcome(qwen("write", `<parameter=filePath>qwen.md</parameter>\n<parameter=content>\n${content}\n</parameter>`));
      expect(o.calls).toEqual([{ tool: "write", input: { filePath: "qwen.md", content } }]);
    });

    test("an opener alone on its line naming no parameter of the tool is text too", () => {
      const content = "intro\n<parameter=NAME>\nvalue\n</parameter>\noutro";
      const o = outcome(qwen("write", `<parameter=filePath>a.md</parameter>\n<parameter=content>\n${content}\n</parameter>`));
      expect(o.calls).toEqual([{ tool: "write", input: { filePath: "a.md", content } }]);
    });

    test("after an inner opener-closer pair, a `</function>` with text on its line is still the value's text", () => {
      const command = "echo '<parameter=x>1</parameter>' '</function>' done";
      const o = outcome(qwen("bash", `<parameter=command>${command}</parameter>`));
      expect(o.calls).toEqual([{ tool: "bash", input: { command } }]);
    });

    test("a mid-line opener naming a declared parameter never cuts the value: refused when one closer serves both", () => {
      const o = outcome(qwen("bash", "<parameter=command>ls <parameter=description>list\n</parameter>"));
      expect(o.calls).toEqual([]);
      expect(o.broken).toEqual(["broken-markup"]);
    });

    test("an opener alone on its line naming a parameter the call already gave is text: the call is refused, never run with either", () => {
      const o = outcome(qwen("bash", "<parameter=command>ls\n<parameter=command>rm -rf /\n</parameter>"));
      expect(o.calls).toEqual([]);
      expect(o.broken).toEqual(["broken-markup"]);
    });

    test("read as text, then ended by the function's closer on its own line: refused", () => {
      const o = outcome(qwen("write", "<parameter=filePath>a.md</parameter>\n<parameter=content>\n<parameter=NAME>\nvalue"));
      expect(o.calls).toEqual([]);
      expect(o.broken).toEqual(["broken-markup"]);
    });

    test("O02.4 (review 47b): a declared, not yet given parameter on its own line ends the runaway value, and the call is refused", () => {
      // Indented (spaces or tabs only before it) it still starts its line; LF or CR LF alike.
      for (const sep of ["\n", "\n\t ", "\r\n"]) {
        const o = outcome(qwen("read", `<parameter=filePath>/a/b.ts${sep}<parameter=limit>5</parameter>`));
        expect(o.calls).toEqual([]);
        expect(o.broken).toEqual(["broken-markup"]);
      }
    });

    test("a tool declaring no properties: a line start alone ends the runaway value, a mid-line opener is text", () => {
      const tools = [...fixtureTools, loose];
      // Review 47b: the runaway the line-start opener ended refuses the call.
      const refused = outcome(qwen("loose", "<parameter=a>x\n<parameter=b>y</parameter>"), tools);
      expect([refused.calls, refused.broken]).toEqual([[], ["broken-markup"]]);
      expect(outcome(qwen("loose", "<parameter=a>x <parameter=b>y</parameter>"), tools).calls).toEqual([]);
      expect(outcome(qwen("loose", "<parameter=a>x <parameter=b>y</parameter></parameter>"), tools).calls).toEqual([
        { tool: "loose", input: { a: "x <parameter=b>y</parameter>" } },
      ]);
    });
  });

  describe(`Qwen3-Coder ${form}: a </parameter> that closes no value (review 44)`, () => {
    test("after a value a line-start opener ended, a second closer shows the opener was its text: refused, never run cut", () => {
      const o = outcome(qwen("write", "<parameter=content>\n# Format\n<parameter=filePath>\nnotes/a.md\n</parameter>\n</parameter>"));
      expect(o.calls).toEqual([]);
      expect(o.broken).toEqual(["broken-markup"]);
    });

    test("a doubled closer after a value its own closer ended is markup outside every parameter: refused", () => {
      const o = outcome(qwen("bash", "<parameter=command>ls</parameter>\n</parameter>"));
      expect(o.calls).toEqual([]);
      expect(o.broken).toEqual(["broken-markup"]);
    });

    test("a closer before the first parameter is refused too", () => {
      const o = outcome(qwen("bash", "</parameter>\n<parameter=command>ls</parameter>"));
      expect(o.calls).toEqual([]);
      expect(o.broken).toEqual(["broken-markup"]);
    });

    test("control: the closers balancing the openers still read; O02.4 with one closer for the last value is refused (review 47b)", () => {
      expect(outcome(qwen("bash", "<parameter=command>ls</parameter>\n<parameter=description>list</parameter>")).calls).toEqual([
        { tool: "bash", input: { command: "ls", description: "list" } },
      ]);
      const refused = outcome(qwen("bash", "<parameter=command>ls\n<parameter=description>list</parameter>"));
      expect([refused.calls, refused.broken]).toEqual([[], ["broken-markup"]]);
    });
  });

  describe(`Qwen3-Coder ${form}: newlines (P09)`, () => {
    test("one newline hugging both sides is layout (LF and CR LF); a lone one is content", () => {
      const write = (content: string) => qwen("write", `<parameter=filePath>a.txt</parameter>\n<parameter=content>${content}</parameter>`);
      expect(outcome(write("\r\nx\r\n")).calls).toEqual([{ tool: "write", input: { filePath: "a.txt", content: "x" } }]);
      expect(outcome(write("\nx\n\n")).calls).toEqual([{ tool: "write", input: { filePath: "a.txt", content: "x\n" } }]);
      expect(outcome(write("x\r\n")).calls).toEqual([{ tool: "write", input: { filePath: "a.txt", content: "x\r\n" } }]);
      expect(outcome(write("\n\nx")).calls).toEqual([{ tool: "write", input: { filePath: "a.txt", content: "\n\nx" } }]);
    });

    test("a value the function's closer ends loses the template's newline on each side (O02.5)", () => {
      expect(outcome(qwen("bash", "<parameter=command>\nls")).calls).toEqual([{ tool: "bash", input: { command: "ls" } }]);
      expect(outcome(qwen("bash", "<parameter=command>ls</parameter>\n<parameter=description>\nlist")).calls).toEqual([
        { tool: "bash", input: { command: "ls", description: "list" } },
      ]);
    });
  });
}

describe("GLM: pair tags inside an <arg_value>", () => {
  const glm = (value: string) => `<tool_call>write\n<arg_key>filePath</arg_key>\n<arg_value>a.md</arg_value>\n<arg_key>content</arg_key>\n<arg_value>${value}</arg_value>\n</tool_call>`;

  test("an <arg_key> pair inside a value is its text: the value reaches its own </arg_value>, never cut at the key", () => {
    const content = "Write <arg_key>name</arg_key> before the value.\n";
    expect(outcome(glm(content)).calls).toEqual([{ tool: "write", input: { filePath: "a.md", content } }]);
  });

  test("a value that lost its closer before the next pair is refused, never run cut short", () => {
    const o = outcome("<tool_call>bash\n<arg_key>command</arg_key>\n<arg_value>ls\n<arg_key>description</arg_key>\n<arg_value>list</arg_value>\n</tool_call>");
    expect(o.calls).toEqual([]);
    expect(o.broken).toEqual(["broken-markup"]);
  });

  test("P09: a newline hugging both sides is layout, a lone leading one content", () => {
    expect(outcome(glm("\nx\n")).calls).toEqual([{ tool: "write", input: { filePath: "a.md", content: "x" } }]);
    expect(outcome(glm("\nx")).calls).toEqual([{ tool: "write", input: { filePath: "a.md", content: "\nx" } }]);
  });
});
