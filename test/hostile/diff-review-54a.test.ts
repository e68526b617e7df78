/**
 * Hostile diff review 54a (tests only): the round's fixes read as a diff (main..int54), attacked
 * where they are new: the `<tool_call>` sentence mention (src/parse/dialects/tool-call-body.ts
 * ToolCallStart.endsSentence, fix 54, N54.1 / N54.n1), the tool-list entries that can name no tool
 * (src/options/check.ts noToolName, engine.ts toolNames) and OpenCode's tool-off map in responseFix
 * (src/options/security-search.ts toolsOffIn). Hard negatives beside the finding; what was checked
 * with no finding is in the report.
 */
import { describe, expect, test } from "bun:test";
import { outcome } from "../support/outcome.ts";
import { block, live } from "../golden/notation.ts";
import { resolveOptions } from "../../src/plugin/options.ts";
import { settleOptions } from "../../src/options/settle.ts";
import { recoverableTools } from "../../src/options/engine.ts";

const DSML_BASH = live(block("tool_calls", [["bash", [["command", "rm -rf /tmp/x"]]]]));
const QWEN_BASH = "<function=bash>\n<parameter=command>\nrm -rf /tmp/x\n</parameter>\n</function>";
const RAN_BASH = [{ tool: "bash", input: { command: "rm -rf /tmp/x" } }];

describe("finding: a declared tool's name with a colon or a period after <tool_call> is read as a sentence's word", () => {
  // FINDING (wrong execution, low-medium). fix 54 made `<tool_call>` + one word ending in `.` or
  // `:` + a blank line a mention (`Use <tool_call> here.`): the opener and the word become text and
  // what follows is read afresh, so a call in the next paragraph runs (N54.1). PATTERNS.md limits
  // this to a word that is "no declared tool", and endsSentence means to check it
  // (`!this.body.declares(this.name)`), but `this.name` holds the punctuation: "read:" is never a
  // declared tool's name, so the check never holds. `<tool_call>read:` (a GLM call's name, written
  // with a colon as models label a call) then a blank line and a call to ANOTHER tool in another
  // dialect (DSML, Qwen3-Coder) now runs that other call. The same text without the colon,
  // `<tool_call>read` + blank line + the DSML bash call, is a call written in two dialects at once
  // and is refused whole (O51.1), as it was on main for both spellings. The word names `read`; the
  // call that runs is `bash`: which one the model meant cannot be known, so O51.1's refusal is the
  // rule. (The same slip makes `<tool_call>bash:` + blank line + a bash call in DSML run, where
  // `<tool_call>bash` + blank line + the same block is refused: the brief's "declared name flips it".)
  // Minimal input: "<tool_call>read:\n\n" + a DSML bash block + "\n</tool_call>\n".
  // Suspected source: src/parse/dialects/tool-call-body.ts ToolCallStart.endsSentence (compare the
  // word without its trailing `.`/`:` against the declared tools; perhaps also require text before
  // the opener on its line, as a sentence has).
  // Expected: no call, the text kept as written, broken-markup (as `<tool_call>read` + blank line).
  // Fixed: endsSentence compares the word without its trailing `.`/`:`, so a declared tool's name
  // never makes a mention; `<tool_call>read:` + blank line + another dialect is refused whole again.
  const conflicting: [string, string][] = [
    ["read: then a DSML bash block", `<tool_call>read:\n\n${DSML_BASH}\n</tool_call>\n`],
    ["read. then a Qwen3-Coder bash call", `<tool_call>read.\n\n${QWEN_BASH}\n</tool_call>\n`],
    ["write: then a DSML bash block, no closer", `<tool_call>write:\n\n${DSML_BASH}\n`],
    // The name the call itself uses: refused like `<tool_call>bash` + blank line + the block.
    ["bash: then a DSML bash block", `<tool_call>bash:\n\n${DSML_BASH}\n</tool_call>\n`],
  ];
  for (const [name, input] of conflicting) {
    test(`<tool_call>${name}: the bash call does not run, the text stays`, () => {
      const o = outcome(input);
      expect(o.calls).toEqual([]);
      expect(o.text).toBe(input);
    });
  }

  test("hard negative: the same without the punctuation is a call in two dialects, refused whole (O51.1)", () => {
    for (const input of [`<tool_call>read\n\n${DSML_BASH}\n</tool_call>\n`, `<tool_call>read\n\n${QWEN_BASH}\n</tool_call>\n`]) {
      const o = outcome(input);
      expect(o.calls).toEqual([]);
      expect(o.text).toBe(input);
      expect(o.broken.length).toBeGreaterThan(0);
    }
  });

  test("hard negative: a sentence's word that is no tool still makes a mention; the call in its own paragraph runs (N54.1)", () => {
    for (const word of ["here.", "below:", "Example:"]) {
      const lead = word === "Example:" ? "<tool_call>Example:" : `Use <tool_call> ${word}`;
      const o = outcome(`${lead}\n\n${DSML_BASH}`);
      expect(o.calls).toEqual(RAN_BASH);
      expect(o.text).toBe(`${lead}\n\n`);
    }
  });

  test("hard negative: after a mention, a Hermes JSON body or GLM pairs alone never run; no blank line keeps the body (N54.n1)", () => {
    const inputs = [
      'Use <tool_call> here.\n{"name": "bash", "arguments": {"command": "rm -rf /tmp/x"}}\n</tool_call>\n',
      'Use <tool_call> here.\n\n{"name": "bash", "arguments": {"command": "rm -rf /tmp/x"}}\n</tool_call>\n',
      '<tool_call>Note:\n\n{"name":"bash","arguments":{"command":"rm -rf /tmp/x"}}\n</tool_call>\n',
      "<tool_call>Note:\n\n<arg_key>command</arg_key>\n<arg_value>rm -rf /tmp/x</arg_value>\n</tool_call>\n",
      `Use <tool_call> here.\n${DSML_BASH}\n`,
    ];
    for (const input of inputs) {
      const o = outcome(input);
      expect({ input, calls: o.calls, text: o.text }).toEqual({ input, calls: [], text: input });
    }
  });

  test("hard negative: a mention and its example inside a blockquote stay documentation", () => {
    const input = `> Use <tool_call> here.\n>\n> ${QWEN_BASH.replaceAll("\n", "\n> ")}\n> </tool_call>\n`;
    const o = outcome(input);
    expect(o.calls).toEqual([]);
    expect(o.text).toBe(input);
  });
});

describe("tool lists: names real hosts and MCP servers use stay names (hard negatives)", () => {
  // MCP tool names (the 2025 spec allows letters, digits, `_-./`; Gemini takes `.` and `:`), a
  // non-ASCII name a library user may declare, and the lists' own wildcards.
  const NAMES = ["mcp.server:tool-x", "fs/read_file", "github__create-issue", "\u5de5\u5177", "\u00fcnic\u00f8de", "tool@v2", "mcp__*", "?ash"];

  test("plugin and library read them as given, with no problem or debug line", () => {
    for (const key of ["denyTools", "allowTools"] as const) {
      const read = resolveOptions({ responseFix: { [key]: NAMES } });
      expect({ key, list: read.options.responseFix[key], problems: read.problems }).toEqual({ key, list: NAMES, problems: [] });
      const lines: string[] = [];
      const settled = settleOptions({ responseFix: { [key]: NAMES }, debug: (line: string) => lines.push(line) });
      expect({ key, list: settled.responseFix?.[key], lines }).toEqual({ key, list: NAMES, lines: [] });
    }
  });

  test("a deny entry with a dot and a colon denies that tool only; an allow list of them allows those only", () => {
    const declared = [{ name: "mcp.server:tool-x" }, { name: "\u5de5\u5177" }, { name: "bash" }];
    const names = (responseFix: Record<string, unknown>) => recoverableTools({ responseFix }, declared).map((tool) => tool.name);
    expect(names({ denyTools: ["mcp.server:tool-x"] })).toEqual(["\u5de5\u5177", "bash"]);
    expect(names({ allowTools: ["mcp.server:*", "\u5de5\u5177"] })).toEqual(["mcp.server:tool-x", "\u5de5\u5177"]);
  });

  test("an entry that names no tool: one line, read once, naming the character without quoting the value", () => {
    const lines: string[] = [];
    const settled = settleOptions({ responseFix: { denyTools: ["bash read"] }, debug: (line: string) => lines.push(line) });
    expect(settled.responseFix?.denyTools).toEqual(["*"]);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain("entry 1 holds a blank");
    expect(lines[0]).not.toContain("bash read");
  });

  test("OpenCode's tool map in responseFix: only an 'off' entry for a tool closes recovery", () => {
    const bashRecoverable = (responseFix: Record<string, unknown>) => {
      const { options, problems } = resolveOptions({ responseFix });
      return { on: recoverableTools({ responseFix: options.responseFix }, [{ name: "bash" }, { name: "read" }]).some((tool) => tool.name === "bash"), problems: problems.length };
    };
    expect(bashRecoverable({ tools: { bash: false } })).toEqual({ on: false, problems: 1 });
    expect(bashRecoverable({ permission: { bash: { "rm *": "deny" } } })).toEqual({ on: false, problems: 1 });
    // Turning tools on restricts nothing, and an option's own name is no tool: reported, recovery stays.
    expect(bashRecoverable({ tools: { bash: true } })).toEqual({ on: true, problems: 1 });
    expect(bashRecoverable({ tools: { hermes: false } })).toEqual({ on: true, problems: 1 });
    expect(bashRecoverable({ permission: { bash: "allow" } })).toEqual({ on: true, problems: 1 });
  });
});
