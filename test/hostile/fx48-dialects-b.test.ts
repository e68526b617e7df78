/**
 * Review 48, findings 5, 6 and 8 (fx48-dialects-b): the rules chosen, pinned beyond the reviewer's
 * cases. Every case runs whole, char by char and at seeded random splits (test/support/outcome.ts).
 */
import { describe, expect, test } from "bun:test";
import { outcome } from "../support/outcome.ts";

describe("finding 8: <tool_name> with a JSON object in <tool_args>", () => {
  const call = (name: string, args: string) => `<tool_call><tool_name>${name}</tool_name><tool_args>${args}</tool_args></tool_call>`;
  test("a declared tool with a strict object runs; the read tool too", () => {
    expect(outcome(call("read", '{"filePath":"a.md"}')).calls).toEqual([{ tool: "read", input: { filePath: "a.md" } }]);
  });
  test("an undeclared tool, a malformed object, a key twice, or anything beside the object: no call", () => {
    expect(outcome(call("run_shell", '{"command":"ls"}')).calls).toEqual([]);
    expect(outcome(call("bash", '{"command":"ls",}')).calls).toEqual([]);
    expect(outcome(call("bash", '{"command":"ls","command":"rm -rf build"}')).calls).toEqual([]);
    expect(outcome(call("bash", '{"command":"ls"} and more')).calls).toEqual([]);
    expect(outcome(call("bash", '<code>x</code>{"command":"ls"}')).calls).toEqual([]);
    expect(outcome('<tool_call><tool_name>bash</tool_name><tool_args>{"command":"ls"}</tool_args><workdir>/</workdir></tool_call>').calls).toEqual([]);
  });
  test("arguments that miss a required parameter are refused, never run", () => {
    const o = outcome(call("bash", '{"cmd":"ls"}'));
    expect(o.calls).toEqual([]);
  });
  test("inside documentation it never runs", () => {
    const c = call("bash", '{"command":"rm -rf build"}');
    for (const input of ["```\n" + c + "\n```", "`" + c + "`", "> " + c, `<!-- ${c} -->`]) expect(outcome(input).calls).toEqual([]);
  });
});

describe("finding 5: the closer line's indentation is the container's", () => {
  test("at the top level a value's own indentation is content (closer at column 0)", () => {
    const input = "<tool_call>\n<function=write>\n<parameter=filePath>\na.md\n</parameter>\n<parameter=content>\n  indented\n    more\n</parameter>\n</function>\n</tool_call>";
    expect(outcome(input).calls).toEqual([{ tool: "write", input: { filePath: "a.md", content: "  indented\n    more" } }]);
  });
  test("in a list item, deeper indentation inside the value stays (only the container's is removed)", () => {
    const input = "- Save:\n  <tool_call>\n  <function=write>\n  <parameter=filePath>\n  a.md\n  </parameter>\n  <parameter=content>\n  def f():\n      return 1\n  </parameter>\n  </function>\n  </tool_call>";
    expect(outcome(input).calls).toEqual([{ tool: "write", input: { filePath: "a.md", content: "def f():\n    return 1" } }]);
  });
  test("a heredoc in a list item: the terminator reaches bash unindented", () => {
    const o = outcome("1. Create it:\n   <shell>\n   cat > a.txt <<'EOF'\n   x\n   EOF\n   </shell>");
    expect(o.calls).toEqual([{ tool: "bash", input: { command: "cat > a.txt <<'EOF'\nx\nEOF" } }]);
  });
});

describe("finding 6: raw HTML in a pre/code costume is refused with a report", () => {
  test("a span, a <br>, a comment: broken-markup, the text kept", () => {
    for (const code of ['<span class="nb">ls</span>', "ls<br>pwd", "ls <!-- x -->", "ls <br/>"]) {
      const input = `<pre><code class="language-bash">${code}</code></pre>`;
      const o = outcome(input);
      expect(o.calls).toEqual([]);
      expect(o.broken).toEqual(["broken-markup"]);
      expect(o.text).toBe(input);
    }
  });
  test("a raw `<` that starts no tag stays code", () => {
    expect(outcome('<pre><code class="language-bash">test 1 < 2 && echo ok</code></pre>').calls).toEqual([{ tool: "bash", input: { command: "test 1 < 2 && echo ok" } }]);
  });
});

describe("finding 7: a costume between two prose lines of one paragraph is prose", () => {
  test("the sentence going on (lower case) on the next line (LF or CR LF, indented or not): no call, the whole text visible", () => {
    for (const input of [
      // Review 48b (finding 8): a line ending in ':' introduces the costume (it runs); only a line ending mid-sentence makes it prose.
      "We clean with\n<shell>\nrm -rf build\n</shell>\nthen done.",
      "We clean with\r\n<shell>\r\nrm -rf build\r\n</shell>\r\nin the page.",
      "We clean with\r<shell>rm -rf build</shell>\rin the page.",
      "It reads\n<bash>rm -rf build</bash>   \n   and stops.",
    ]) {
      const o = outcome(input);
      expect(o.calls).toEqual([]);
      expect(o.text).toBe(input);
    }
  });
  test("a blank line (CR LF, spaces), the reply's end or a line starting anew after the closer's line: the costume stood as a block and runs", () => {
    for (const input of [
      "Running it:\n<bash>ls</bash>",
      "Running it:\n<bash>ls</bash>\n",
      "Running it:\n<bash>ls</bash>\n\nDone.",
      "Running it:\r\n<bash>ls</bash>\r\n\r\nDone.",
      "Running it:\n<bash>ls</bash>\n  \nDone.",
      "Running it:\r<bash>ls</bash>\r\rDone.",
      "Running it:\n<bash>ls</bash>\nDone.",
      "The README says:\n<bash>ls</bash>\nNow mine:",
      "Running it:\n<bash>ls</bash>\n2 files.",
    ]) {
      expect(outcome(input).calls).toEqual([{ tool: "bash", input: { command: "ls" } }]);
    }
  });
  test("no prose line before it (the reply's start, a blank line): prose after it changes nothing", () => {
    expect(outcome("<bash>ls</bash>\nDone.").calls).toEqual([{ tool: "bash", input: { command: "ls" } }]);
    expect(outcome("Intro.\n\n<bash>ls</bash>\nDone.").calls).toEqual([{ tool: "bash", input: { command: "ls" } }]);
  });
  test("a heredoc example inside such a costume never runs on its own", () => {
    const input = "Intro\n<shell>\ncat <<EOF\n<bash>rm -rf x</bash>\nEOF\n</shell>\nmore prose";
    const o = outcome(input);
    expect(o.calls).toEqual([]);
    expect(o.text).toBe(input);
  });
});
