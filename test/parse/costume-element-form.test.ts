/**
 * A code costume whose body opens with an element named after a parameter (review 43): the
 * Cline/Roo element form (`<bash><command>ls</command></bash>`). When that body cannot be read as
 * the form (an attribute on a child, `<command >`, text after the children) the call is refused,
 * never run with the markup as the shell code. Since review 44 any line that is such an element
 * counts, not only the first markup (test/parse/costume-element-lines.test.ts); code that merely
 * holds tags (an echo, a heredoc writing XML) stays code. Every case runs whole, char by char and
 * at seeded random splits, and every input character stays visible or inside the recovered call.
 */
import { describe, expect, test } from "bun:test";
import type { ToolSpec } from "../../src/parse/types.ts";
import { fixtureTools } from "../golden/tools.ts";
import { accountsForEveryCharacter, runAtEverySplit } from "../support/run-engine.ts";

function outcome(input: string, tools: readonly ToolSpec[] = fixtureTools) {
  const r = runAtEverySplit(input, tools);
  expect(accountsForEveryCharacter(input, r)).toBe(true);
  return { calls: r.calls.map((c) => ({ tool: c.tool, input: c.input })), broken: r.summary.broken.map((b) => ({ shape: b.shape, reason: b.reason, tool: b.tool })), text: r.text };
}

const refused = (input: string, tools?: readonly ToolSpec[]) => {
  const o = outcome(input, tools);
  expect(o.calls).toEqual([]);
  expect(o.broken.map((b) => b.reason)).toEqual(["broken-markup"]);
  expect(o.text).toBe(input);
  return o.broken[0]!;
};

const runs = (input: string, command: string) => expect(outcome(input).calls).toEqual([{ tool: "bash", input: { command } }]);

describe("a `<bash>` body that opens with a parameter element but is not only such elements: refused", () => {
  const cases: [string, string][] = [
    ["an attribute on the child", '<bash>\n<command timeout="5">ls</command>\n</bash>'],
    ["a space before the child's `>`", "<bash>\n<command >ls</command>\n</bash>"],
    ["a line after the children", "<bash>\n<command>ls</command>\nstray\n</bash>"],
    ["a child that never closes", "<bash>\n<command>ls\n</bash>"],
    ["a self-closing child", "<bash>\n<command/>\nls\n</bash>"],
    ["another parameter first, then code", "<bash>\n<description>list</description>\nls -la\n</bash>"],
    ["the parameter in another case", '<bash>\n<Command timeout="5">ls</Command>\n</bash>'],
    ["an attribute on a later child", '<bash>\n<command>ls</command>\n<timeout unit="s">5</timeout>\n</bash>'],
  ];
  for (const [what, input] of cases) {
    test(`${what}: no call, the markup stays visible, the nudge names bash`, () => {
      expect(refused(input)).toEqual({ shape: "O09", reason: "broken-markup", tool: "bash" });
    });
  }

  test("a costume tag no tool is named after (`<shell>`, `<python>`): the parameters of bash, which would run it", () => {
    expect(refused('<shell>\n<command timeout="5">ls</command>\n</shell>')).toEqual({ shape: "C04", reason: "broken-markup", tool: undefined });
    expect(refused("<python>\n<command >print(1)</command>\n</python>")).toEqual({ shape: "C04", reason: "broken-markup", tool: undefined });
  });

  test("an alias tag (`<execute_command>`): its own parameters", () => {
    refused('<execute_command>\n<command>ls</command>\n<cwd mode="x">/</cwd>\n</execute_command>');
    refused("<execute_command>\n<cwd>/</cwd>\nls\n</execute_command>");
  });
});

describe("controls: code is still code, the clean element form still runs", () => {
  test("the element form read whole runs; a call's id on the tag labels it", () => {
    runs("<bash>\n<command>ls</command>\n</bash>", "ls");
    runs('<bash id="1">\n<command>ls</command>\n</bash>', "ls");
  });

  test("an id on the tag does not make an unreadable element body code", () => {
    refused('<bash id="1">\n<command timeout="5">ls</command>\n</bash>');
  });

  test("code with tags further on: HTML in an echo, a heredoc writing XML that names a parameter", () => {
    runs('<bash>echo "<b>hi</b>" > x.html</bash>', 'echo "<b>hi</b>" > x.html');
    runs("<bash>\ncat > x.xml <<'EOF'\n<command>ls</command>\nEOF\n</bash>", "cat > x.xml <<'EOF'\n<command>ls</command>\nEOF");
  });

  test("code with a line that is a parameter element after it is refused (review 44: the line is markup, which bash would only fail on)", () => {
    expect(refused("<shell>\necho hi\n<command>ls</command>\n</shell>")).toEqual({ shape: "C04", reason: "broken-markup", tool: undefined });
  });

  test("a redirection from a file that is no parameter, or written with a space, is code", () => {
    runs("<bash>\n<input.txt sort\n</bash>", "<input.txt sort");
    runs("<bash>\n< command.txt sort\n</bash>", "< command.txt sort");
  });

  test("without a bash tool, `<shell>` holding a parameter-like element is no call either way", () => {
    const tools = fixtureTools.filter((t) => t.name !== "bash");
    expect(outcome('<shell>\n<command timeout="5">ls</command>\n</shell>', tools).calls).toEqual([]);
  });
});
