/**
 * Review (args) finding 3: a closer written inside a value is the value's text unless it really
 * ends the call (src/parse/closer-in-value.ts). A DSML invoke closer in an open value (P01), a
 * Qwen3-Coder `</function>` in an open value (O02.5) and a costume's own closer end the call only
 * when nothing but spaces follows on their line (or the reply ends, or a block closer or the next
 * invoke comes there), and for a value only when no parameter closer comes next. The outcome is
 * never a truncated file or command. Every case runs whole, char by char and at seeded splits.
 */
import { describe, expect, test } from "bun:test";
import type { ToolSpec } from "../../src/parse/types.ts";
import { live } from "../golden/notation.ts";
import { fixtureTools } from "../golden/tools.ts";
import { runAtEverySplit } from "../support/run-engine.ts";

/** Calls, broken spans, visible text and stripped spans of a run, the same at every split (asserted here). */
function outcome(notation: string, tools: readonly ToolSpec[] = fixtureTools) {
  const input = live(notation);
  const r = runAtEverySplit(input, tools);
  return { calls: r.calls.map((c) => ({ tool: c.tool, input: c.input })), broken: r.summary.broken.map((b) => b.reason), text: r.text, stripped: r.summary.stripped };
}

const dsml = (content: string) =>
  `<{D}tool_calls>\n<{D}invoke name="write">\n<{D}parameter name="filePath" string="true">closer.ts</{D}parameter>\n<{D}parameter name="content" string="true">${content}\n</{D}invoke>\n</{D}tool_calls>`;

describe("DSML: an invoke closer inside an open value (P01)", () => {
  test("text after it on its line: the closer is the file's text, not its end", () => {
    const o = outcome(
      `<{D}tool_calls>\n<{D}invoke name="write">\n<{D}parameter name="filePath" string="true">closer.ts</{D}parameter>\n` +
        `<{D}parameter name="content" string="true">export const closer = "</{D}invoke>";\nexport const n = 1;\n</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`,
    );
    expect(o.calls).toEqual([{ tool: "write", input: { filePath: "closer.ts", content: live(`export const closer = "</{D}invoke>";\nexport const n = 1;\n`) } }]);
    expect(o.stripped).toEqual([]);
  });

  test("alone on its line, a parameter closer next: still the value's text", () => {
    const o = outcome(`<{D}tool_calls>\n<{D}invoke name="bash">\n<{D}parameter name="command" string="true">ls -la\n</{D}invoke>\n</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`);
    expect(o.calls.some((c) => c.input.command === "ls -la")).toBe(false);
  });

  test("P01 as documented: alone on its line, the block closer next, it ends the value", () => {
    expect(outcome(dsml("ls")).calls).toEqual([{ tool: "write", input: { filePath: "closer.ts", content: "ls" } }]);
  });

  test("P01 on one line: the block closer or the next invoke right after it", () => {
    expect(outcome(`<{D}tool_calls>\n<{D}invoke name="bash">\n<{D}parameter name="command" string="true">ls -la</{D}invoke></{D}tool_calls>`).calls).toEqual([{ tool: "bash", input: { command: "ls -la" } }]);
    const next = outcome(`<{D}tool_calls>\n<{D}invoke name="bash">\n<{D}parameter name="command" string="true">ls</{D}invoke><{D}invoke name="read">\n<{D}parameter name="filePath" string="true">/x</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`);
    expect(next.calls).toEqual([{ tool: "bash", input: { command: "ls" } }, { tool: "read", input: { filePath: "/x" } }]);
  });

  test("without a block: an orphan invoke keeps the closer in its command", () => {
    const o = outcome(`<{D}invoke name="bash">\n<{D}parameter name="command" string="true">echo "</{D}invoke>" && rm -rf build</{D}parameter>\n</{D}invoke>\n`);
    expect(o.calls).toEqual([{ tool: "bash", input: { command: live(`echo "</{D}invoke>" && rm -rf build`) } }]);
  });

  test("cut off after such a closer: no call, a nudge (never the command up to the closer)", () => {
    const o = outcome(`<{D}tool_calls>\n<{D}invoke name="bash">\n<{D}parameter name="command" string="true">echo "</{D}invoke>" && rm -rf build`);
    expect(o.calls).toEqual([]);
    expect(o.broken).toEqual(["truncated-call"]);
  });

  test("Claude-style (O07): the same rule inside the wrapper", () => {
    const o = outcome(`<function_calls>\n<invoke name="bash">\n<parameter name="command">echo "</invoke>" && rm -rf build</parameter>\n</invoke>\n</function_calls>`);
    expect(o.calls).toEqual([{ tool: "bash", input: { command: `echo "</invoke>" && rm -rf build` } }]);
    expect(outcome(`<function_calls>\n<invoke name="bash">\n<parameter name="command">ls\n</invoke>\n</function_calls>`).calls).toEqual([{ tool: "bash", input: { command: "ls" } }]);
  });
});

describe("a closer read as a value's text stands only if the value reaches its own parameter closer (review overreach)", () => {
  // Text after the closer on its line makes it the value's text; when the block closer (or the
  // wrapper's, a later invoke closer, the next parameter) then ends the value instead, that closer
  // may have been the real one: the call is refused, never run with the closer and the prose in it.
  test("DSML (P01): ended by the block closer, refused as broken markup", () => {
    const input = `<{D}tool_calls>\n<{D}invoke name="bash">\n<{D}parameter name="command" string="true">ls -la</{D}invoke> Now reading.\n</{D}tool_calls>`;
    const o = outcome(input);
    expect(o.calls).toEqual([]);
    expect(o.broken).toEqual(["broken-markup"]);
    expect(o.text).toBe(live(input));
  });

  test("DSML (P01), second invoke of a block: the first runs, the second is refused", () => {
    const o = outcome(
      `<{D}tool_calls>\n<{D}invoke name="bash">\n<{D}parameter name="command" string="true">ls</{D}invoke>\n<{D}invoke name="read">\n<{D}parameter name="filePath" string="true">/a</{D}invoke> ok\n</{D}tool_calls>`,
    );
    expect(o.calls).toEqual([{ tool: "bash", input: { command: "ls" } }]);
    expect(o.broken).toEqual(["broken-markup"]);
  });

  test("DSML: ended by a later invoke closer or by the next parameter instead, refused too", () => {
    const later = outcome(`<{D}tool_calls>\n<{D}invoke name="bash">\n<{D}parameter name="command" string="true">ls -la</{D}invoke> Now reading.\n</{D}invoke>\n</{D}tool_calls>`);
    expect(later.calls).toEqual([]);
    expect(later.broken).toEqual(["broken-markup"]);
    const next = outcome(
      `<{D}tool_calls>\n<{D}invoke name="bash">\n<{D}parameter name="command" string="true">ls</{D}invoke> x\n<{D}parameter name="description" string="true">d</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`,
    );
    expect(next.calls).toEqual([]);
    expect(next.broken).toEqual(["broken-markup"]);
  });

  test("Qwen3-Coder (O02.5): ended by the function closer and the wrapper, refused", () => {
    const o = outcome("<tool_call>\n<function=bash>\n<parameter=command>\nls\n</function> ok\n</tool_call>");
    expect(o.calls).toEqual([]);
    expect(o.broken).toEqual(["broken-markup"]);
    const bare = outcome("<function=bash>\n<parameter=command>\nls\n</function> ok\n</function>\n");
    expect(bare.calls).toEqual([]);
    expect(bare.broken).toEqual(["broken-markup"]);
  });

  test("Claude-style (O07): ended by the wrapper's closer, refused", () => {
    const o = outcome(`<function_calls>\n<invoke name="bash">\n<parameter name="command">ls</invoke> ok\n</function_calls>`);
    expect(o.calls).toEqual([]);
    expect(o.broken).toEqual(["broken-markup"]);
  });
});

describe("a special token right after the closer ends the call (D07, review overreach)", () => {
  test("P01 closed by the invoke closer, the end-of-sentence token right after it: the call runs, the token is noise", () => {
    const o = outcome(`<{D}tool_calls>\n<{D}invoke name="bash">\n<{D}parameter name="command" string="true">ls</{D}invoke><{BAR}end{SP}of{SP}sentence{BAR}>`);
    expect(o.calls).toEqual([{ tool: "bash", input: { command: "ls" } }]);
    expect(o.broken).toEqual([]);
  });

  test("the same before the tool-calls-end token, and for a costume's closer", () => {
    expect(outcome(`<{D}tool_calls>\n<{D}invoke name="bash">\n<{D}parameter name="command" string="true">ls</{D}invoke><{BAR}tool{SP}calls{SP}end{BAR}>`).calls).toEqual([
      { tool: "bash", input: { command: "ls" } },
    ]);
    expect(outcome(`<shell>ls</shell><{BAR}end{SP}of{SP}sentence{BAR}>`).calls).toEqual([{ tool: "bash", input: { command: "ls" } }]);
  });
});

describe("Qwen3-Coder: a function closer inside an open value (O02.5)", () => {
  test("text after it on its line: the command keeps it", () => {
    const o = outcome("<tool_call>\n<function=bash>\n<parameter=command>\ngrep -n '</function>' src/a.xml && rm -rf build\n</parameter>\n</function>\n</tool_call>");
    expect(o.calls).toEqual([{ tool: "bash", input: { command: "grep -n '</function>' src/a.xml && rm -rf build" } }]);
    expect(o.stripped).toEqual([]);
  });

  test("without the wrapper too", () => {
    const o = outcome("<function=bash>\n<parameter=command>\ngrep -n '</function>' src/a.xml && rm -rf build\n</parameter>\n</function>\n");
    expect(o.calls).toEqual([{ tool: "bash", input: { command: "grep -n '</function>' src/a.xml && rm -rf build" } }]);
  });

  test("O02.5 as documented: on its own line it closes the parameter", () => {
    expect(outcome("<tool_call>\n<function=bash>\n<parameter=command>\nls\n</function>\n</tool_call>").calls).toEqual([{ tool: "bash", input: { command: "ls" } }]);
    expect(outcome("<tool_call>\n<function=bash>\n<parameter=command>\nls</function></tool_call>").calls).toEqual([{ tool: "bash", input: { command: "ls" } }]);
  });
});

describe("costumes: their own closer inside the code", () => {
  test("with the real closer later on the line, the command is whole", () => {
    const o = outcome(`<shell>grep -c "</shell>" docs/a.html && rm -rf build</shell>\n`);
    expect(o.calls).toEqual([{ tool: "bash", input: { command: `grep -c "</shell>" docs/a.html && rm -rf build` } }]);
    expect(o.stripped.filter((s) => s.kind === "fabricated-result")).toEqual([]);
  });

  test("a closer followed by text on its line and never again: no call (never the command up to it)", () => {
    const o = outcome(`<shell>echo "</shell>" && rm -rf build\nDone.`);
    expect(o.calls).toEqual([]);
    expect(o.text).toContain("rm -rf build");
  });

  test("a closer that ends its line (or the reply) still ends the costume", () => {
    expect(outcome(`<shell>ls</shell>`).calls).toEqual([{ tool: "bash", input: { command: "ls" } }]);
    expect(outcome(`<shell>ls</shell>  \nDone.`).calls).toEqual([{ tool: "bash", input: { command: "ls" } }]);
  });
});

describe("a block's or wrapper's closer inside an open value (review finding 1)", () => {
  // The file (or command) the model wrote holds the block's closer as text: the closer rule weighs
  // it like an invoke closer, so the value goes on to its own parameter closer; it never runs cut
  // at the closer (`echo "`), and a value the closer rule kept open that never closes is refused.
  const FILE = `const END = "</{D}tool_calls>";\nexport default END;\n`;

  test("DSML: write with `</{D}tool_calls>` mid-line in its content never runs with the content cut there", () => {
    const o = outcome(
      `<{D}tool_calls>\n<{D}invoke name="write">\n<{D}parameter name="filePath" string="true">end.ts</{D}parameter>\n` +
        `<{D}parameter name="content" string="true">${FILE}</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`,
    );
    expect(o.calls.filter((c) => c.input.content === 'const END = "')).toEqual([]);
    expect(o.calls).toEqual([{ tool: "write", input: { filePath: "end.ts", content: live(FILE) } }]);
    expect(o.stripped).toEqual([]);
  });

  test("DSML: bash with `</{D}tool_calls>` inside a quoted argument never runs `echo \"`", () => {
    const o = outcome(`<{D}tool_calls>\n<{D}invoke name="bash">\n<{D}parameter name="command" string="true">echo "</{D}tool_calls>" && rm -rf build</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`);
    expect(o.calls.filter((c) => c.input.command === 'echo "')).toEqual([]);
    expect(o.calls).toEqual([{ tool: "bash", input: { command: live(`echo "</{D}tool_calls>" && rm -rf build`) } }]);
  });

  test("Claude-style: `</function_calls>` inside a value never cuts it", () => {
    const o = outcome(`<function_calls>\n<invoke name="bash">\n<parameter name="command">echo "</function_calls>" && rm -rf build</parameter>\n</invoke>\n</function_calls>`);
    expect(o.calls.filter((c) => c.input.command === 'echo "')).toEqual([]);
    expect(o.calls).toEqual([{ tool: "bash", input: { command: `echo "</function_calls>" && rm -rf build` } }]);
  });

  test("MiniMax: `</minimax:tool_call>` inside a value never cuts it", () => {
    const o = outcome(`<minimax:tool_call>\n<invoke name="bash">\n<parameter name="command">echo "</minimax:tool_call>" && rm -rf build</parameter>\n</invoke>\n</minimax:tool_call>`);
    expect(o.calls.filter((c) => c.input.command === 'echo "')).toEqual([]);
    expect(o.calls).toEqual([{ tool: "bash", input: { command: `echo "</minimax:tool_call>" && rm -rf build` } }]);
  });

  test("Qwen3-Coder in <tool_call>: `</tool_call>` inside a value never cuts it", () => {
    const o = outcome(`<tool_call>\n<function=bash>\n<parameter=command>\necho "</tool_call>" && rm -rf build\n</parameter>\n</function>\n</tool_call>`);
    expect(o.calls.filter((c) => c.input.command === 'echo "')).toEqual([]);
    expect(o.calls).toEqual([{ tool: "bash", input: { command: `echo "</tool_call>" && rm -rf build` } }]);
  });

  test("read as text, then ended by the real block (or wrapper) closer instead of its own: refused, never run", () => {
    for (const input of [
      `<{D}tool_calls>\n<{D}invoke name="bash">\n<{D}parameter name="command" string="true">echo "</{D}tool_calls>" && rm -rf build\n</{D}tool_calls>`,
      `<function_calls>\n<invoke name="bash">\n<parameter name="command">echo "</function_calls>" && rm -rf build\n</function_calls>\nok`,
      `<tool_call>\n<function=bash>\n<parameter=command>\necho "</tool_call>" && rm -rf build\n</function>\n</tool_call>`,
    ]) {
      const o = outcome(input);
      expect(o.calls).toEqual([]);
      expect(o.broken).toEqual(["broken-markup"]);
      expect(o.text).toBe(live(input));
    }
  });

  test("text after it on its line and nothing more: a cut-off call (never `ls`)", () => {
    const o = outcome(`<{D}tool_calls>\n<{D}invoke name="bash">\n<{D}parameter name="command" string="true">ls</{D}tool_calls> Done.`);
    expect(o.calls).toEqual([]);
    expect(o.broken).toEqual(["truncated-call"]);
  });

  test("as documented: alone on its line (or the reply's end) it still ends the open value", () => {
    expect(outcome(`<{D}tool_calls>\n<{D}invoke name="bash">\n<{D}parameter name="command" string="true">ls</{D}tool_calls>\nDone.`).calls).toEqual([{ tool: "bash", input: { command: "ls" } }]);
    expect(outcome(`<function_calls>\n<invoke name="bash">\n<parameter name="command">ls</function_calls>`).calls).toEqual([{ tool: "bash", input: { command: "ls" } }]);
    expect(outcome(`<tool_call>\n<function=bash>\n<parameter=command>\nls\n</tool_call>`).calls).toEqual([{ tool: "bash", input: { command: "ls" } }]);
  });

  test("an orphan invoke's value keeps a block closer followed by text", () => {
    const o = outcome(`<{D}invoke name="bash">\n<{D}parameter name="command" string="true">echo "</{D}tool_calls>" x</{D}parameter>\n</{D}invoke>\n`);
    expect(o.calls).toEqual([{ tool: "bash", input: { command: live(`echo "</{D}tool_calls>" x`) } }]);
  });
});

describe("a bare CR ends the closer's line, as the documentation context reads it (review finding 7)", () => {
  test("costume: `<bash>ls</bash>` CR `rm -rf x` LF `</bash>` never runs the next line as part of the command", () => {
    const o = outcome("<bash>ls</bash>\rrm -rf x\n</bash>\n");
    expect(o.calls.some((c) => String(c.input.command).includes("rm -rf x"))).toBe(false);
  });

  test("DSML P01: an invoke closer that ends its CR line ends the value; the next line never joins the command", () => {
    const o = outcome(
      `<{D}tool_calls>\n<{D}invoke name="bash">\n<{D}parameter name="command" string="true">ls</{D}invoke>\rrm -rf x</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`,
    );
    expect(o.calls.some((c) => String(c.input.command).includes("rm -rf x"))).toBe(false);
  });

  test("a CR LF after the closer counts as one line end: the DSML value still ends there", () => {
    const o = outcome(`<{D}tool_calls>\n<{D}invoke name="bash">\n<{D}parameter name="command" string="true">ls</{D}invoke>\r\n</{D}tool_calls>`);
    expect(o.calls).toEqual([{ tool: "bash", input: { command: "ls" } }]);
  });
});

describe("GLM (O03): `</tool_call>` and `</arg_value>` inside an open arg_value", () => {
  // The wrapper's closer written in a value (`echo "</tool_call>"`) ends the call only by the closer
  // rule: text after it on its line makes it the value's text, which must then reach its own
  // `</arg_value>`; a value ended otherwise is refused (broken markup), never run cut at the closer.
  const glm = (value: string, after = "</arg_value>\n</tool_call>") => `<tool_call>bash\n<arg_key>command</arg_key>\n<arg_value>${value}${after}`;

  test("`</tool_call>` mid-line in the command, the value closed: the whole command runs", () => {
    const o = outcome(glm(`echo "</tool_call>" && rm -rf build`));
    expect(o.calls.filter((c) => c.input.command === 'echo "')).toEqual([]);
    expect(o.calls).toEqual([{ tool: "bash", input: { command: `echo "</tool_call>" && rm -rf build` } }]);
    expect(o.stripped).toEqual([]);
  });

  test("the same in a written file over several lines, and with a second pair after it", () => {
    const file = `const END = "</tool_call>";\nexport default END;\n`;
    const o = outcome(`<tool_call>write\n<arg_key>filePath</arg_key>\n<arg_value>end.ts</arg_value>\n<arg_key>content</arg_key>\n<arg_value>${file}</arg_value>\n</tool_call>`);
    // The file's final newline is content: only a newline hugging both sides is layout (P09b, review 43).
    expect(o.calls).toEqual([{ tool: "write", input: { filePath: "end.ts", content: file } }]);
    const two = outcome(`<tool_call>bash\n<arg_key>command</arg_key>\n<arg_value>echo "</tool_call>" x</arg_value>\n<arg_key>description</arg_key>\n<arg_value>d</arg_value>\n</tool_call>`);
    expect(two.calls).toEqual([{ tool: "bash", input: { command: `echo "</tool_call>" x`, description: "d" } }]);
  });

  test("alone on its line but `</arg_value>` next: still the value's text", () => {
    const o = outcome(glm("ls\n</tool_call>\n"));
    expect(o.calls.some((c) => c.input.command === "ls")).toBe(false);
  });

  test("read as text, then the real `</tool_call>` ends the value instead of `</arg_value>`: refused, never run", () => {
    for (const input of [
      glm(`echo "</tool_call>" && rm -rf build`, "\n</tool_call>"),
      glm(`echo "</tool_call>" && rm -rf build`, "\n</tool_call>\nDone."),
      glm(`echo "</tool_call>" && rm -rf build`, "</tool_call>"),
    ]) {
      const o = outcome(input);
      expect(o.calls).toEqual([]);
      expect(o.broken).toEqual(["broken-markup"]);
      expect(o.text).toBe(input);
    }
  });

  test("read as text and nothing more: no call (a nudge), never `echo \"`", () => {
    const o = outcome(glm(`echo "</tool_call>" && rm -rf build`, ""));
    expect(o.calls).toEqual([]);
    expect(o.broken).toHaveLength(1);
    const line = outcome(glm(`echo "</tool_call>" && rm -rf build`, "\nDone."));
    expect(line.calls).toEqual([]);
  });

  test("the next call's opener right after it ends the value there: refused, the next call runs", () => {
    const next = `<tool_call>bash\n<arg_key>command</arg_key>\n<arg_value>pwd</arg_value>\n</tool_call>`;
    const o = outcome(glm("ls", `</tool_call>${next}`));
    expect(o.calls).toEqual([{ tool: "bash", input: { command: "pwd" } }]);
    expect(o.broken).toEqual(["broken-markup"]);
  });

  test("as documented: the value's end, or the reply's, right at `</tool_call>` is a broken call, never `ls` run", () => {
    for (const input of [glm("ls", "</tool_call>"), glm("ls", "</tool_call>\nDone."), glm("ls\n", "</tool_call>")]) {
      const o = outcome(input);
      expect(o.calls).toEqual([]);
      expect(o.broken).toEqual(["broken-markup"]);
    }
  });

  test("a closed value followed by `</tool_call>` still ends the call as before", () => {
    expect(outcome(glm("ls")).calls).toEqual([{ tool: "bash", input: { command: "ls" } }]);
    expect(outcome(glm("ls", "</arg_value></tool_call> Done.")).calls).toEqual([{ tool: "bash", input: { command: "ls" } }]);
  });

  test("`</arg_value>` mid-line with text after it, then the real `</arg_value>`: never run with the value cut there", () => {
    // vLLM's GLM4 parser takes the first `</arg_value>` (lazy `(.*?)</arg_value>`) and drops the rest: a cut. Refused here.
    for (const input of [glm("echo </arg_value> and more"), glm("a\n</arg_value> b\nc")]) {
      const o = outcome(input);
      expect(o.calls.filter((c) => c.tool === "bash")).toEqual([]);
      expect(o.text).toBe(input);
    }
  });

  test("another dialect's block closer in the value follows the same rule", () => {
    expect(outcome(glm(`echo "</function_calls>" x`)).calls).toEqual([{ tool: "bash", input: { command: `echo "</function_calls>" x` } }]);
    expect(outcome(glm(`echo "</{D}tool_calls>" x`)).calls).toEqual([{ tool: "bash", input: { command: live(`echo "</{D}tool_calls>" x`) } }]);
    const cut = outcome(glm("ls", "</function_calls>\nDone."));
    expect(cut.calls).toEqual([]);
  });

  test("a file documenting a GLM call: the example never runs, and the file is never written cut at the example's `</arg_value>`", () => {
    // Before: the first `</tool_call>` ended the write (refused) and the example after it ran as a call of its own.
    const example = `<tool_call>bash\n<arg_key>command</arg_key>\n<arg_value>rm -rf /</arg_value>\n</tool_call>`;
    for (const content of [`const a = "</tool_call>";\n${example}\n";`, `doc\n${example}\nend`, `x<arg_key>k</arg_key><arg_value>y`]) {
      const input = `<tool_call>write\n<arg_key>filePath</arg_key>\n<arg_value>a.ts</arg_value>\n<arg_key>content</arg_key>\n<arg_value>${content}</arg_value>\n</tool_call>`;
      const o = outcome(input);
      expect(o.calls).toEqual([]);
      expect(o.broken).toEqual(["broken-markup"]);
    }
  });

  test("CR ends the closer's line: `</tool_call>` CR is the end, the value never closed, refused", () => {
    const o = outcome(glm("ls", "</tool_call>\rrm -rf x</arg_value>\n</tool_call>"));
    expect(o.calls.some((c) => String(c.input.command).includes("rm -rf x"))).toBe(false);
    expect(o.calls.some((c) => c.input.command === "ls")).toBe(false);
  });
});
