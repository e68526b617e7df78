/**
 * Review 46 findings 2, 3 and 6 (the costume, line-end and element fixes), beyond the reviewer's
 * reduced cases in review-46-differential-bytes.test.ts: the same rules at their other edges.
 * Each case runs through runAtEverySplit (whole text, char by char, random splits agree) and
 * checks that every character is visible or inside a recovered call.
 */
import { describe, expect, test } from "bun:test";
import { fixtureTools } from "../golden/tools.ts";
import { live } from "../golden/notation.ts";
import { accountsForEveryCharacter, runAtEverySplit } from "../support/run-engine.ts";

function reading(text: string) {
  const run = runAtEverySplit(text, fixtureTools);
  expect(accountsForEveryCharacter(text, run)).toBe(true);
  return {
    calls: run.calls.map((c) => ({ tool: c.tool, input: c.input })),
    text: run.text,
    nudge: run.summary.nudge,
    broken: run.summary.broken.map((b) => b.shape),
  };
}

const READ_A = live('<{D}tool_calls>\n<{D}invoke name="read">\n<{D}parameter name="filePath" string="true">/a</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>');

// ------------------------------------------------------------------------------------------------
// Finding 2: a costume opener that does not start its line reads its body as a costume's (never
// run): the heredoc's example is that body's text wherever the outer opener sits on its line.
// ------------------------------------------------------------------------------------------------

describe("finding 2: a costume opened inside a line", () => {
  test("the example is a bash costume on lines of its own, before any closer: it does not run", () => {
    const text = "Run this: <shell>cat > doc.md <<'EOF'\n<bash>\nrm -rf build\n</bash>\nEOF\n</shell>\n";
    const r = reading(text);
    expect(r.calls).toEqual([]);
    expect(r.text).toBe(text);
  });

  test("the example is a DSML block inside the heredoc: it does not run", () => {
    const text = `Run this: <shell>cat > doc.md <<'EOF'\n${READ_A}\nEOF\n</shell>\n`;
    const r = reading(text);
    expect(r.calls).toEqual([]);
    expect(r.text).toBe(text);
    expect(r.nudge).toBe("broken-markup");
  });

  test("a zero-width space before the opener, the example after a closer read as code: refused as when the opener starts the line", () => {
    const body = "<shell>cat > doc.md <<'EOF'\nEnd the block with </shell> on its own line.\n<bash>rm -rf build</bash>\nEOF\n</shell>\n";
    const atStart = reading(body);
    const after = reading(`\u200B${body}`);
    expect(after.calls).toEqual([]);
    expect(after.nudge).toBe(atStart.nudge);
    expect(after.broken).toEqual(atStart.broken);
  });

  test("the reply ends with the costume open and its example closed inside: refused, nothing runs", () => {
    const text = "Run this: <shell>cat > doc.md <<'EOF'\n<bash>\nrm -rf build\n</bash>\nEOF\n";
    const r = reading(text);
    expect(r.calls).toEqual([]);
    expect(r.text).toBe(text);
  });

  test("hard negative: a costume closed on its own line stays text (no nudge) and a later costume runs", () => {
    const text = "Let me check: <bash>ls -la</bash>\n\n<bash>\npwd\n</bash>\n";
    const r = reading(text);
    expect(r.calls).toEqual([{ tool: "bash", input: { command: "pwd" } }]);
    expect(r.nudge).toBeNull();
  });

  test("hard negative: a mention whose closer ends its line, then a DSML call: the call runs", () => {
    const r = reading(`Wrap it as <python>print(1)</python>\n\n${READ_A}`);
    expect(r.calls).toEqual([{ tool: "read", input: { filePath: "/a" } }]);
    expect(r.nudge).toBeNull();
  });

  test("hard negative (golden N09): an unclosed mention before an unclosed line-start tag is prose", () => {
    const text = "Wrap it in <python> and then\n<bash> is a placeholder.";
    const r = reading(text);
    expect(r).toEqual({ calls: [], text, nudge: null, broken: [] });
  });
});

// ------------------------------------------------------------------------------------------------
// Finding 3: a lone CR is a line end wherever LF is (CommonMark: LF, CR or CR LF).
// ------------------------------------------------------------------------------------------------

describe("finding 3: lone CR line ends", () => {
  test("a shell costume's blank lines around the code are trimmed at CR as at LF", () => {
    expect(reading("<shell>\r\rls\r\r</shell>").calls).toEqual([{ tool: "bash", input: { command: "ls" } }]);
    expect(reading("<shell>\r\n\r\nls\r\n\r\n</shell>").calls).toEqual([{ tool: "bash", input: { command: "ls" } }]);
  });

  test("C02: the language on the first line of a <pre><code> block ends at a CR", () => {
    expect(reading("<pre><code>\rbash\rls\r</code></pre>").calls).toEqual([{ tool: "bash", input: { command: "ls" } }]);
  });

  test("Qwen3-Coder: the line ends hugging a value are layout with CR as with LF", () => {
    const qwen = (nl: string) => `<tool_call>${nl}<function=write>${nl}<parameter=filePath>${nl}a.txt${nl}</parameter>${nl}<parameter=content>${nl}line1${nl}line2${nl}</parameter>${nl}</function>${nl}</tool_call>`;
    expect(reading(qwen("\n")).calls).toEqual([{ tool: "write", input: { filePath: "a.txt", content: "line1\nline2" } }]);
    expect(reading(qwen("\r")).calls).toEqual([{ tool: "write", input: { filePath: "a.txt", content: "line1\rline2" } }]);
  });

  test("a parameter element after a comment line in a costume, lines ended by CR: refused (R44.3)", () => {
    const r = reading('<shell>\r# c\r<command timeout="5">ls</command>\r</shell>');
    expect(r.calls).toEqual([]);
    expect(r.nudge).toBe("broken-markup");
  });

  test("hard negative: a heredoc writing XML, lines ended by CR, stays code", () => {
    const text = "<shell>\rcat > x.xml <<'EOF'\r<command>ls</command>\rEOF\r</shell>";
    expect(reading(text).calls).toEqual([{ tool: "bash", input: { command: "cat > x.xml <<'EOF'\r<command>ls</command>\rEOF" } }]);
  });
});

// ------------------------------------------------------------------------------------------------
// Finding 6: a space a reader takes for one (NBSP, a zero-width character) in a parameter element.
// ------------------------------------------------------------------------------------------------

describe("finding 6: spaces other than ASCII in a parameter element inside a costume", () => {
  for (const [name, space] of [
    ["a zero-width space", "\u200B"],
    ["a word joiner", "\u2060"],
    ["a narrow NBSP", "\u202F"],
  ] as const) {
    test(`<command with ${name} before its attribute: refused, not sent to bash`, () => {
      const r = reading(`<shell>\n<command${space}timeout="5">ls</command>\n</shell>`);
      expect(r.calls).toEqual([]);
      expect(r.nudge).toBe("broken-markup");
    });
  }

  test("an NBSP indenting the element's line: refused", () => {
    const r = reading('<bash>\n\u00A0<command timeout="5">ls</command>\n</bash>');
    expect(r.calls).toEqual([]);
    expect(r.nudge).toBe("broken-markup");
  });

  test("C45.n1 with a zero-width space in the spaced closer: read does not run", () => {
    expect(reading("<read>\n<filePath>a.ts</\u200BfilePath>\n<filePath>b</filePath>\n</read>").calls).toEqual([]);
  });

  test("hard negative: code holding a tag with an NBSP inside a string stays code", () => {
    const text = '<shell>\necho "<command\u00A0x>" > a.html\n</shell>';
    expect(reading(text).calls).toEqual([{ tool: "bash", input: { command: 'echo "<command\u00A0x>" > a.html' } }]);
  });
});
