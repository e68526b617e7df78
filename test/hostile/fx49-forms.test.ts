/**
 * Fix 49 (forms): the boundaries of the rules this fix widened, each able to fail.
 * - The paragraph rule's line before: a line ends mid-sentence when its last character leaves the
 *   sentence open (a letter or mark of any script, a digit, a comma of any script, a dash, an
 *   ellipsis, an open bracket or quote; a hyphen unless the line is dashes); `.`, `!`, `?`, `:`, `;`
 *   and their fullwidth forms, closers and a tag's `>` end or introduce, so the costume runs.
 * - Its line after: a lower-case letter or a caseless script's letter goes on, after leads.
 * - A `<tool_call>` body that is not one readable call is refused whole, nothing in it runs.
 * Every case runs whole, char by char and at seeded random splits (outcome()).
 */
import { describe, expect, test } from "bun:test";
import { outcome } from "../support/outcome.ts";

const block = "<bash>\nrm -rf build\n</bash>";
const rmBuild = [{ tool: "bash", input: { command: "rm -rf build" } }];
const hermesLs = `{"name":"bash","arguments":{"command":"ls"}}`;
const qwen = (cmd: string) => `<function=bash>\n<parameter=command>\n${cmd}\n</parameter>\n</function>`;

describe("the line before: what ends or introduces still runs the costume", () => {
  for (const before of ["Cleaning up...", "Cleaning up。", "清理：", "Step one;", "**Run:**", "(see above)", "Title\n---", "---", "# Steps —", "It said \"go\"", "The agent writes <shell>ls</shell>."]) {
    test(`${JSON.stringify(before)}: runs`, () => {
      expect(outcome(`${before}\n${block}\nthen I rebuild.`).calls).toEqual(rmBuild);
    });
  }
});

describe("the line before: what leaves the sentence open keeps the costume text", () => {
  for (const before of ["The agent wraps commands like –", "代理把命令写成、", "الوكيل يكتب الأوامر مثل،", "The agent wraps commands like “", "The agent wraps commands 「", "The agent writes <shell>ls</shell> and, like"]) {
    test(`${JSON.stringify(before)}: text`, () => {
      const input = `${before}\n${block}\nin its replies.`;
      expect(outcome(input)).toEqual({ calls: [], broken: [], text: input });
    });
  }
});

describe("the line after: a new start still runs the costume after an open line", () => {
  for (const after of ["Then I rebuild.", "- in a list", "~/build is gone.", "— Then I rebuild.", "¿Qué?", "42 files left."]) {
    test(`${JSON.stringify(after)}: runs`, () => {
      expect(outcome(`The agent wraps commands like\n${block}\n${after}`).calls).toEqual(rmBuild);
    });
  }
});

describe("a <tool_call> body that is not one readable call", () => {
  // The object names a declared tool: a call whose closer never came, prose after it, is refused
  // as broken markup up to the object's end (O01, as golden T29.8), so live reports what history removes.
  test("text on a line after the Hermes object, no closer: a call whose closer never came, refused and reported, its text kept", () => {
    const input = `<tool_call>\n${hermesLs}\nI will wait.`;
    expect(outcome(input)).toEqual({ calls: [], broken: ["broken-markup"], text: input });
  });
  test("text on a line after the Hermes object, then its closer: refused, reported", () => {
    const input = `<tool_call>\n${hermesLs}\nextra\n</tool_call>\nDone.`;
    const o = outcome(input);
    expect(o.calls).toEqual([]);
    expect(o.broken).toEqual(["broken-markup"]);
    expect(o.text).toBe(input);
  });
  test("text on a line after the Hermes object, then the next wrapper: the next call runs", () => {
    const o = outcome(`<tool_call>\n${hermesLs}\nNow the next one.\n<tool_call>\n{"name":"bash","arguments":{"command":"pwd"}}\n</tool_call>`);
    expect(o.calls).toEqual([{ tool: "bash", input: { command: "pwd" } }]);
  });
  test("a costume inside the unclosed wrapper after any length of prose never runs (the hold lasts to the buffer limit)", () => {
    const o = outcome(`<tool_call>\n${hermesLs}\n${"prose line\n".repeat(50)}<shell>ls</shell>\nDone.`);
    expect(o.calls).toEqual([]);
  });
  test("text on the object's own line stays a mention (golden N21.7)", () => {
    const input = `<tool_call>${hermesLs} is one line.`;
    expect(outcome(input)).toEqual({ calls: [], broken: [], text: input });
  });
  test("Qwen3-Coder function, then a pre/code costume inside the wrapper: refused", () => {
    const o = outcome(`<tool_call>\n${qwen("ls")}\n<pre><code>rm -rf build</code></pre>\n</tool_call>`);
    expect(o.calls).toEqual([]);
    expect(o.broken.length).toBeGreaterThan(0);
  });
  test("Qwen3-Coder function, its closer left out, then the next wrapper: both run as before", () => {
    const o = outcome(`<tool_call>\n${qwen("ls")}\n<tool_call>\n${qwen("pwd")}\n</tool_call>`);
    expect(o.calls).toEqual([{ tool: "bash", input: { command: "ls" } }, { tool: "bash", input: { command: "pwd" } }]);
  });
  test("Qwen3-Coder, two functions in one wrapper: both run", () => {
    const o = outcome(`<tool_call>\n${qwen("ls")}\n${qwen("pwd")}\n</tool_call>`);
    expect(o.calls).toEqual([{ tool: "bash", input: { command: "ls" } }, { tool: "bash", input: { command: "pwd" } }]);
  });
  test("a wrapper opened mid-line, its valid call laid out on its own lines: runs as before", () => {
    expect(outcome(`Run it: <tool_call>\n${hermesLs}\n</tool_call>`).calls).toEqual([{ tool: "bash", input: { command: "ls" } }]);
  });
  test("a mid-line Qwen3-Coder wrapper laid out, a costume after its function: refused", () => {
    expect(outcome(`I ran <tool_call>\n${qwen("ls")}\n<shell>rm -rf build</shell>\n</tool_call>`).calls).toEqual([]);
  });
  test("two wrappers written in a broken JSON string: the refusal reaches the third closer", () => {
    const input = `<tool_call>\n{"name":"write","arguments":{"filePath":"a.md","content":"<tool_call> <TOOL_CALL attr>\n"}}\n</tool_call>\n<shell>ls</shell>\n</tool_call>\n<shell>rm -rf build</shell>\n</tool_call>\nAfter.`;
    expect(outcome(input).calls).toEqual([]);
  });
  test("a closer written in the broken JSON string before its break: the first closer after the break ends the refusal", () => {
    const o = outcome(`<tool_call>\n{"name":"write","arguments":{"filePath":"a.md","content":"the </tool_call> tag\nline"}}\n</tool_call>\n<tool_call>\n${hermesLs}\n</tool_call>`);
    expect(o.calls).toEqual([{ tool: "bash", input: { command: "ls" } }]);
  });
});

describe("tool_name/tool_args: a </tool_call> inside the open <tool_args>", () => {
  const tc = (args: string) => `<tool_call><tool_name>bash</tool_name><tool_args>${args}</tool_args></tool_call>`;
  test("in a JSON string: the call reads it as its value", () => {
    expect(outcome(tc('{"command":"echo \\"</tool_call>\\""}')).calls).toEqual([{ tool: "bash", input: { command: 'echo "</tool_call>"' } }]);
  });
  test("ending its line, no </tool_args> after: no call", () => {
    expect(outcome(`<tool_call><tool_name>bash</tool_name><tool_args>{"command":"rm -rf /"}</tool_call>\nin that case.`).calls).toEqual([]);
  });
});
