/**
 * A `write` whose content documents a tool call of ANY known dialect (example-in-value.ts
 * ExampleInValue): a complete example written inside an open value is that value's text when the
 * value then reaches its own parameter closer. The example never runs, in any split; the write runs
 * with every character of its content; a value that never reaches its own closer stays as before
 * (refused, never run cut). Every case runs whole, char by char and at seeded random splits.
 */
import { describe, expect, test } from "bun:test";
import type { ToolSpec } from "../../src/parse/types.ts";
import { live } from "../golden/notation.ts";
import { fixtureTools } from "../golden/tools.ts";
import { accountsForEveryCharacter, runAtEverySplit } from "../support/run-engine.ts";
import { parse } from "../../src/engine/parse.ts";

function outcome(notation: string, tools: readonly ToolSpec[] = fixtureTools) {
  const input = live(notation);
  const r = runAtEverySplit(input, tools);
  expect(accountsForEveryCharacter(input, r)).toBe(true);
  return { calls: r.calls.map((c) => ({ tool: c.tool, input: c.input })), broken: r.summary.broken.map((b) => b.reason), text: r.text, input };
}

// The examples: each shows a call that must never run (`rm -rf x`, `/etc/passwd`).
const QWEN = "<tool_call>\n<function=bash>\n<parameter=command>\nrm -rf x\n</parameter>\n</function>\n</tool_call>";
const QWEN_BARE = "<function=bash>\n<parameter=command>\nrm -rf x\n</parameter>\n</function>";
const QWEN_ONE_LINE = "<tool_call><function=bash><parameter=command>rm -rf x</parameter></function></tool_call>";
const QWEN_TWO_PARAMS = "<tool_call>\n<function=bash>\n<parameter=command>\nrm -rf x\n</parameter>\n<parameter=description>\nclean\n</parameter>\n</function>\n</tool_call>";
const HERMES = '<tool_call>\n{"name": "bash", "arguments": {"command": "rm -rf x"}}\n</tool_call>';
const CLAUDE = '<function_calls>\n<invoke name="bash">\n<parameter name="command">rm -rf x</parameter>\n</invoke>\n</function_calls>';
const CLAUDE_INVOKE = '<invoke name="bash">\n<parameter name="command">rm -rf x</parameter>\n</invoke>';
const MINIMAX = '<minimax:tool_call>\n<invoke name="bash">\n<parameter name="command">rm -rf x</parameter>\n</invoke>\n</minimax:tool_call>';
const GLM = "<tool_call>bash\n<arg_key>command</arg_key>\n<arg_value>rm -rf x</arg_value>\n</tool_call>";
const DSML = `<{D}tool_calls>\n<{D}invoke name="bash">\n<{D}parameter name="command" string="true">rm -rf x</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`;
const DSML_INVOKE = `<{D}invoke name="bash">\n<{D}parameter name="command" string="true">rm -rf x</{D}parameter>\n</{D}invoke>`;
const ELEMENT = `<function><name>bash</name><parameter name="command">rm -rf x</parameter></function>`;
const READ = (open: string, close: string) => `${open}\n{"name": "read", "arguments": {"filePath": "/etc/passwd"}}\n${close}`;
const QWEN_READ = "<tool_call>\n<function=read>\n<parameter=filePath>\n/etc/passwd\n</parameter>\n</function>\n</tool_call>";

const EXAMPLES: Record<string, string> = {
  "Qwen3-Coder in <tool_call>": QWEN,
  "Qwen3-Coder without its wrapper": QWEN_BARE,
  "Qwen3-Coder on one line": QWEN_ONE_LINE,
  "Qwen3-Coder with two parameters": QWEN_TWO_PARAMS,
  "two Qwen3-Coder calls": `${QWEN}\n${QWEN_READ}`,
  Hermes: HERMES,
  "two Hermes calls": `${HERMES}\n${READ("<tool_call>", "</tool_call>")}`,
  "Claude-style block": CLAUDE,
  "Claude-style invoke": CLAUDE_INVOKE,
  MiniMax: MINIMAX,
  GLM,
  "DSML block": DSML,
  "DSML invoke": DSML_INVOKE,
  "element form": ELEMENT,
  "a Qwen3-Coder and a Claude-style example": `${QWEN}\n\nand\n\n${CLAUDE}`,
};

/** A markdown file documenting `example`, with prose around it. */
const doc = (example: string) => `# Calls\n\nWrite it like this:\n\n${example}\n\nThen wait.\n`;

const dsmlWrite = (content: string, after = "") =>
  `<{D}tool_calls>\n<{D}invoke name="write">\n<{D}parameter name="filePath" string="true">calls.md</{D}parameter>\n<{D}parameter name="content" string="true">${content}</{D}parameter>\n</{D}invoke>\n${after}</{D}tool_calls>`;
const claudeWrite = (content: string, wrapper = "function_calls", after = "") =>
  `<${wrapper}>\n<invoke name="write">\n<parameter name="filePath">calls.md</parameter>\n<parameter name="content">${content}</parameter>\n</invoke>\n${after}</${wrapper}>`;
const qwenWrite = (content: string) => `<tool_call>\n<function=write>\n<parameter=filePath>\ncalls.md\n</parameter>\n<parameter=content>\n${content}\n</parameter>\n</function>\n</tool_call>`;
const qwenBareWrite = (content: string) => `<function=write>\n<parameter=filePath>\ncalls.md\n</parameter>\n<parameter=content>\n${content}\n</parameter>\n</function>\n`;

const OUTERS: Record<string, (content: string) => string> = {
  DSML: (c) => dsmlWrite(c),
  "Claude-style": (c) => claudeWrite(c),
  MiniMax: (c) => claudeWrite(c, "minimax:tool_call"),
};

describe("a write whose content documents a call runs with its whole content; the example never runs", () => {
  for (const [outerName, outer] of Object.entries(OUTERS)) {
    for (const [exampleName, example] of Object.entries(EXAMPLES)) {
      test(`${outerName} write holding a ${exampleName} example`, () => {
        const content = doc(example);
        const o = outcome(outer(content));
        expect(o.calls).toEqual([{ tool: "write", input: { filePath: "calls.md", content: live(content) } }]);
        expect(o.broken).toEqual([]);
      });
    }
  }

  // The helper writes `<parameter=content>\n${content}\n</parameter>`: the hugging newlines are layout (P09).
  for (const [outerName, outer] of Object.entries({ "Qwen3-Coder": qwenWrite, "bare Qwen3-Coder": qwenBareWrite })) {
    for (const [exampleName, example] of Object.entries(EXAMPLES)) {
      test(`${outerName} write holding a ${exampleName} example`, () => {
        const content = doc(example).slice(0, -1);
        const o = outcome(outer(content));
        expect(o.calls).toEqual([{ tool: "write", input: { filePath: "calls.md", content: live(content) } }]);
        expect(o.broken).toEqual([]);
      });
    }
  }
});

describe("a closer written inside the example's own value never cuts the write (the example reaches its real closer)", () => {
  const cases: Record<string, string> = {
    "DSML invoke closer mid-line": `<{D}invoke name="bash">\n<{D}parameter name="command" string="true">echo "</{D}invoke>" && rm -rf x</{D}parameter>\n</{D}invoke>`,
    "DSML block closer mid-line": `<{D}tool_calls>\n<{D}invoke name="bash">\n<{D}parameter name="command" string="true">echo "</{D}tool_calls>" && rm -rf x</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`,
    "Claude-style invoke closer mid-line": `<invoke name="bash">\n<parameter name="command">echo "</invoke>" && rm -rf x</parameter>\n</invoke>`,
    "Claude-style wrapper closer mid-line": `<function_calls>\n<invoke name="bash">\n<parameter name="command">echo "</function_calls>" && rm -rf x</parameter>\n</invoke>\n</function_calls>`,
    "Qwen3-Coder function closer mid-line": "<tool_call>\n<function=bash>\n<parameter=command>\ngrep '</function>' a.xml && rm -rf x\n</parameter>\n</function>\n</tool_call>",
    "Qwen3-Coder wrapper closer mid-line": '<tool_call>\n<function=bash>\n<parameter=command>\necho "</tool_call>" && rm -rf x\n</parameter>\n</function>\n</tool_call>',
  };
  for (const [outerName, outer] of Object.entries({ ...OUTERS, "Qwen3-Coder": (c: string) => qwenWrite(c.slice(0, -1)) })) {
    for (const [name, example] of Object.entries(cases)) {
      test(`${outerName} write, example with a ${name}`, () => {
        const content = doc(example);
        const o = outcome(outer(content));
        const expected = outerName === "Qwen3-Coder" ? content.slice(0, -1) : content;
        expect(o.calls).toEqual([{ tool: "write", input: { filePath: "calls.md", content: live(expected) } }]);
      });
    }
  }

  test("the example's value closed by its invoke closer on its own line (P01) is still an example", () => {
    const example = `<{D}invoke name="bash">\n<{D}parameter name="command" string="true">rm -rf x\n</{D}invoke>`;
    for (const outer of [(c: string) => dsmlWrite(c), (c: string) => claudeWrite(c)]) {
      const content = doc(example);
      expect(outcome(outer(content)).calls).toEqual([{ tool: "write", input: { filePath: "calls.md", content: live(content) } }]);
    }
  });
});

describe("the value never reaches its own closer: no write, and the example never runs", () => {
  const neverRuns = (o: ReturnType<typeof outcome>) => {
    expect(o.calls.filter((c) => JSON.stringify(c.input).includes("rm -rf x") || JSON.stringify(c.input).includes("/etc/passwd"))).toEqual([]);
    expect(o.calls.filter((c) => c.tool === "write")).toEqual([]);
  };
  for (const [exampleName, example] of Object.entries({ QWEN, QWEN_BARE, QWEN_ONE_LINE, ELEMENT, "two Qwen": `${QWEN}\n${QWEN_READ}` })) {
    test(`Claude-style: ${exampleName}, then the invoke's and the wrapper's closers`, () => {
      const input = `<function_calls>\n<invoke name="write">\n<parameter name="filePath">calls.md</parameter>\n<parameter name="content">Example:\n${example}\n</invoke>\n</function_calls>`;
      const o = outcome(input);
      neverRuns(o);
      expect(o.broken.length).toBeGreaterThan(0);
    });

    test(`Claude-style: ${exampleName}, then the end of the reply`, () => {
      const o = outcome(`<function_calls>\n<invoke name="write">\n<parameter name="filePath">calls.md</parameter>\n<parameter name="content">Example:\n${example}\n`);
      neverRuns(o);
      expect(o.broken.length).toBeGreaterThan(0);
    });

    test(`Qwen3-Coder: ${exampleName}, then the function's and the wrapper's closers`, () => {
      const o = outcome(`<tool_call>\n<function=write>\n<parameter=filePath>\ncalls.md\n</parameter>\n<parameter=content>\nExample:\n${example}\n</function>\n</tool_call>`);
      expect(o.calls.filter((c) => c.tool === "write")).toEqual([]);
    });
  }

  test("Claude-style: the example, then the wrapper's closer and a real call: the example never runs", () => {
    const input = `<function_calls>\n<invoke name="write">\n<parameter name="filePath">calls.md</parameter>\n<parameter name="content">Example:\n${QWEN}\n</function_calls>\n\nok`;
    neverRuns(outcome(input));
  });
});

describe("a real call after the write still runs, exactly as written", () => {
  test("DSML: the write holding a Qwen3-Coder example, then a real invoke in the same block", () => {
    const content = doc(QWEN);
    const o = outcome(dsmlWrite(content, `<{D}invoke name="bash">\n<{D}parameter name="command" string="true">ls</{D}parameter>\n</{D}invoke>\n`));
    expect(o.calls).toEqual([
      { tool: "write", input: { filePath: "calls.md", content: live(content) } },
      { tool: "bash", input: { command: "ls" } },
    ]);
  });

  test("Claude-style: the write holding a Qwen3-Coder example, then a real invoke in the same wrapper", () => {
    const content = doc(QWEN);
    const o = outcome(claudeWrite(content, "function_calls", `<invoke name="bash">\n<parameter name="command">ls</parameter>\n</invoke>\n`));
    expect(o.calls).toEqual([
      { tool: "write", input: { filePath: "calls.md", content } },
      { tool: "bash", input: { command: "ls" } },
    ]);
  });

  test("Qwen3-Coder: the write holding two examples, then a real call after it", () => {
    const content = doc(`${QWEN}\n${QWEN_READ}`).slice(0, -1);
    const o = outcome(`${qwenWrite(content)}\n<tool_call>\n<function=bash>\n<parameter=command>\nls\n</parameter>\n</function>\n</tool_call>`);
    expect(o.calls).toEqual([
      { tool: "write", input: { filePath: "calls.md", content } },
      { tool: "bash", input: { command: "ls" } },
    ]);
  });

  test("Claude-style: a separate real call in its own wrapper after the write", () => {
    const content = doc(QWEN_TWO_PARAMS);
    const o = outcome(`${claudeWrite(content)}\n\n<function_calls>\n<invoke name="read">\n<parameter name="filePath">/a</parameter>\n</invoke>\n</function_calls>`);
    expect(o.calls).toEqual([
      { tool: "write", input: { filePath: "calls.md", content } },
      { tool: "read", input: { filePath: "/a" } },
    ]);
  });
});

describe("hard negatives: documentation and undeclared tools never run", () => {
  const claude = claudeWrite(doc(QWEN));
  const dsml = dsmlWrite(doc(QWEN));
  test("the whole write in a fence, in inline code or in a block quote: no call", () => {
    for (const markup of [claude, dsml, qwenWrite(doc(CLAUDE).slice(0, -1))]) {
      for (const documented of ["```xml\n" + markup + "\n```\n", "Use `" + markup.replaceAll("\n", " ") + "` here.\n", markup.split("\n").map((l) => `> ${l}`).join("\n") + "\n"]) {
        const o = outcome(`Here is how:\n\n${documented}\nDone.`);
        expect(o.calls).toEqual([]);
      }
    }
  });

  test("an undeclared outer tool: no call, and the example never runs", () => {
    const tools = fixtureTools.filter((t) => t.name !== "write");
    for (const markup of [claude, dsml, qwenWrite(doc(QWEN).slice(0, -1)), qwenBareWrite(doc(CLAUDE).slice(0, -1))]) {
      expect(outcome(markup, tools).calls).toEqual([]);
    }
  });
});

describe("unprefixed markup in a DSML value is read by the stream as the walk reads it (PlainRunInValue)", () => {
  test("a plain closer with text after it, then the value's DSML closer: the whole value, never an empty write", () => {
    const o = outcome(dsmlWrite(`const end = "</invoke>" + x;\n`));
    expect(o.calls).toEqual([{ tool: "write", input: { filePath: "calls.md", content: `const end = "</invoke>" + x;\n` } }]);
  });

  test("a documented Claude-style call whose command holds `</invoke>`: the write runs whole, the call never runs (not `echo \"`)", () => {
    const content = doc(`<invoke name="bash">\n<parameter name="command">echo "</invoke>" && rm -rf x</parameter>\n</invoke>`);
    for (const outer of [(c: string) => dsmlWrite(c), (c: string) => `<{D}invoke name="write">\n<{D}parameter name="filePath" string="true">calls.md</{D}parameter>\n<{D}parameter name="content" string="true">${c}</{D}parameter>\n</{D}invoke>\n`]) {
      expect(outcome(outer(content)).calls).toEqual([{ tool: "write", input: { filePath: "calls.md", content } }]);
    }
  });

  test("M07 as before: a plain closer that ends the value, then DSML markup, closes it there", () => {
    const o = outcome(`<{D}tool_calls>\n<{D}invoke name="bash">\n<{D}parameter name="command" string="true">ls</parameter>\n</{D}invoke>\n</{D}tool_calls>`);
    expect(o.calls).toEqual([{ tool: "bash", input: { command: "ls" } }]);
    const next = outcome(`<{D}tool_calls>\n<{D}invoke name="bash">\n<{D}parameter name="command" string="true">ls</parameter>\n<{D}parameter name="description" string="true">d</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`);
    expect(next.calls).toEqual([{ tool: "bash", input: { command: "ls", description: "d" } }]);
  });
});

describe("Hermes (O01, T01): a `</tool_call>` inside a JSON string is the string's text", () => {
  const hermes = (content: string, opener = "<tool_call>") =>
    `${opener}\n{"name": "write", "arguments": {"filePath": "calls.md", "content": ${JSON.stringify(content)}}}\n</tool_call>`;
  for (const [name, example] of Object.entries({ Hermes: HERMES, "Qwen3-Coder": QWEN, GLM, "two Hermes calls": `${HERMES}\n${READ("<tool_call>", "</tool_call>")}` })) {
    test(`a Hermes write holding a ${name} example runs with its whole content`, () => {
      const content = doc(example);
      expect(outcome(hermes(content)).calls).toEqual([{ tool: "write", input: { filePath: "calls.md", content } }]);
    });
  }

  test("T01, the tool named in the opener: the same", () => {
    const content = doc(HERMES);
    const o = outcome(`<tool_call name="write">\n${JSON.stringify({ filePath: "calls.md", content })}\n</tool_call>`);
    expect(o.calls).toEqual([{ tool: "write", input: { filePath: "calls.md", content } }]);
  });

  test("JSON cut off at a `</tool_call>` outside any string is still read as before (a nudge, no call)", () => {
    const o = outcome(`<tool_call>\n{"name": "write", "arguments": {"filePath": "a", "content": "x"}\n</tool_call>`);
    expect(o.calls).toEqual([]);
    expect(o.broken).toEqual(["broken-markup"]);
  });
});

describe("other outer dialects", () => {
  test("parse() on the whole reply: a Claude-style write holding a Qwen3-Coder example", () => {
    const content = doc(QWEN);
    const r = parse(claudeWrite(content), fixtureTools);
    expect(r.calls.map((c) => ({ tool: c.tool, input: c.input }))).toEqual([{ tool: "write", input: { filePath: "calls.md", content } }]);
    expect(r.broken).toEqual([]);
    expect(r.text).toBe("");
  });

  test("a Qwen3-Coder example whose value its `</function>` closes (O02.5) is an example too", () => {
    const content = doc("<function=bash>\n<parameter=command>\nrm -rf x\n</function>");
    expect(outcome(claudeWrite(content)).calls).toEqual([{ tool: "write", input: { filePath: "calls.md", content } }]);
  });

  const glmWrite = (content: string) => `<tool_call>write\n<arg_key>filePath</arg_key>\n<arg_value>calls.md</arg_value>\n<arg_key>content</arg_key>\n<arg_value>${content}</arg_value>\n</tool_call>`;

  test("GLM: a write holding another dialect's example runs whole (GLM's layout newlines are the markup's)", () => {
    for (const example of [CLAUDE, DSML, QWEN_BARE, QWEN, HERMES, MINIMAX, `${QWEN}\n${QWEN_READ}`]) {
      const content = doc(example).slice(0, -1);
      expect(outcome(glmWrite(content)).calls).toEqual([{ tool: "write", input: { filePath: "calls.md", content: live(content) } }]);
    }
  });

  test("GLM: the example's closer followed by prose and no `</arg_value>`: refused as before, the example never runs", () => {
    for (const example of [QWEN, HERMES, CLAUDE]) {
      const o = outcome(`<tool_call>write\n<arg_key>filePath</arg_key>\n<arg_value>calls.md</arg_value>\n<arg_key>content</arg_key>\n<arg_value>${doc(example)}\n</tool_call>\nDone.`);
      expect(o.calls).toEqual([]);
      expect(o.broken.length).toBeGreaterThan(0);
    }
  });

  test("GLM: a write holding a GLM example stays refused (which </arg_value> ends the value is unknowable), the example never runs", () => {
    const o = outcome(`<tool_call>write\n<arg_key>filePath</arg_key>\n<arg_value>calls.md</arg_value>\n<arg_key>content</arg_key>\n<arg_value>${doc(GLM)}</arg_value>\n</tool_call>`);
    expect(o.calls).toEqual([]);
    expect(o.broken).toEqual(["broken-markup"]);
  });

  test("a code costume writing the file with a heredoc runs with the whole command", () => {
    for (const example of [QWEN, HERMES, CLAUDE, DSML]) {
      const command = `cat > calls.md <<'EOF'\n${doc(example)}EOF`;
      expect(outcome(`<shell>${command}</shell>\n`).calls).toEqual([{ tool: "bash", input: { command: live(command) } }]);
    }
  });
});
