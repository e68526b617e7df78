/**
 * Review 48 (hostile, tests only): the runaway rule (P03, docs/PATTERNS.md "Runaway parameters")
 * against the spellings the parser reads as a parameter CLOSER but the rule does not count as a
 * parameter OPENER. Each failing test (test.failing) says what is wrong, its severity and the
 * suspected file; passing tests are hard negatives kept on purpose.
 */
import { describe, expect, test } from "bun:test";
import { parse } from "../../src/engine/parse.ts";
import { live } from "../golden/notation.ts";
import { fixtureTools } from "../golden/tools.ts";
import { throughMiddleware, textStream } from "../security/support.ts";
import { accountsForEveryCharacter, runAtEverySplit } from "../support/run-engine.ts";

const prompt = [{ role: "user" as const, content: [{ type: "text" as const, text: "clean up" }] }];

/** The calls (inputs) parse() gives, after asserting whole, char by char and seeded splits agree and every character is accounted for. */
function calls(notation: string) {
  const input = live(notation);
  const r = runAtEverySplit(input, fixtureTools);
  expect(accountsForEveryCharacter(input, r)).toBe(true);
  const parsed = parse(input, fixtureTools);
  expect(parsed.calls.map((c) => c.input)).toEqual(r.calls.map((c) => c.input));
  return parsed;
}

const dsml = (body: string) => `Cleaning.\n<{D}tool_calls>\n<{D}invoke name="bash">\n${body}\n</{D}invoke>\n</{D}tool_calls>`;
const claude = (body: string) => `Cleaning.\n<function_calls>\n<invoke name="bash">\n${body}\n</invoke>\n</function_calls>`;
const minimax = (body: string) => `Cleaning.\n<minimax:tool_call>\n<invoke name="bash">\n${body}\n</invoke>\n</minimax:tool_call>`;

describe("a runaway command whose next parameter is written with a degraded prefix the parser closes but does not open", () => {
  // fixed (high: wrong execution, the review-47 harm by another spelling). The command's closer
  // is lost; the next line is the workdir parameter written with a one-sentinel-bar prefix
  // (`<{BAR}parameter ...>`, the DSML word lost), a single double-vertical-line, or an ASCII bar,
  // and closed by the same spelling (`</{BAR}parameter>`). The parser reads that closer as the
  // COMMAND's closer (a garbled closer, P02), but the runaway rule does not count the matching
  // opener as a parameter opener, so the call runs with command
  // "rm -rf ./*\n<{BAR}parameter name=\"workdir\" ...>/tmp/scratch": bash runs `rm -rf ./*` in the
  // session's directory, then fails on the second line. The same opener spelled `<|DSML|parameter`
  // or `<{DVL}DSML{DVL}parameter` IS refused (control), and the stray-parameter rule already reads
  // `<{BAR}parameter` as a parameter (text-mode.ts oneBarParameterAt, golden P47.16): the two rules
  // disagree on the same tag. Expected: refused, broken-markup P03, text kept.
  // Suspected: src/parse/dialects/dsml/walk.ts (the runaway check's opener set) against the P02
  // garbled-closer spellings in src/grammar/ (closer accepted, opener not).
  for (const [name, open, close] of [
    ["one sentinel bar", "<{BAR}parameter", "</{BAR}parameter>"],
    ["one double vertical line", "<{DVL}parameter", "</{DVL}parameter>"],
    ["one ASCII bar", "<|parameter", "</|parameter>"],
  ] as const) {
    test(`DSML, ${name}: rm -rf ./* does not run without its workdir`, () => {
      const r = calls(dsml(`<{D}parameter name="command" string="true">rm -rf ./*\n${open} name="workdir" string="true">/tmp/scratch${close}`));
      expect(r.calls).toEqual([]);
      expect(r.broken.map((b) => b.reason)).toContain("broken-markup");
    });
  }

  // fixed (high, same cause): the workdir written with the one-bar prefix and NO closer, the
  // command ended by the invoke closer (P01): the command runs swallowing the workdir line. With
  // `<|DSML|parameter` the same input is refused (P03, control).
  test("DSML P01: a one-bar workdir opener swallowed by the command ended at the invoke closer is refused", () => {
    expect(calls(dsml(`<{D}parameter name="command" string="true">rm -rf ./*\n<{BAR}parameter name="workdir" string="true">/tmp/scratch`)).calls).toEqual([]);
  });

  // fixed (high, same cause): the one-bar workdir self-closing, or the command ended by the
  // block's closer (no invoke closer). The canonical self-closing opener there is refused (I04).
  test("DSML: a one-bar self-closing workdir inside the command (P01) is refused", () => {
    expect(calls(dsml(`<{D}parameter name="command" string="true">rm -rf ./*\n<{BAR}parameter name="workdir" string="true" value="/tmp/scratch"/>`)).calls).toEqual([]);
  });
  test("DSML: a one-bar workdir opener swallowed by a command the block's closer ends is refused", () => {
    expect(calls(`<{D}tool_calls>\n<{D}invoke name="bash">\n<{D}parameter name="command" string="true">rm -rf ./*\n<{BAR}parameter name="workdir" string="true">/tmp/scratch\n</{D}tool_calls>`).calls).toEqual([]);
  });
  test("control: a canonical self-closing workdir inside the command (P01) is refused", () => {
    expect(calls(dsml(`<{D}parameter name="command" string="true">rm -rf ./*\n<{D}parameter name="workdir" string="true" value="/tmp/scratch"/>`)).calls).toEqual([]);
  });

  // fixed (high, same cause) in Claude-style and MiniMax XML: `</{BAR}parameter>` closes the
  // plain `<parameter name="command">` value, `<{BAR}parameter` opens nothing.
  test("Claude-style XML, one sentinel bar: refused", () => {
    expect(calls(claude(`<parameter name="command">rm -rf ./*\n<{BAR}parameter name="workdir">/tmp/scratch</{BAR}parameter>`)).calls).toEqual([]);
  });
  test("MiniMax XML, one sentinel bar: refused", () => {
    expect(calls(minimax(`<parameter name="command">rm -rf ./*\n<{BAR}parameter name="workdir">/tmp/scratch</{BAR}parameter>`)).calls).toEqual([]);
  });

  test("through the AI SDK middleware (chunks of 1, 7 and whole): no call, the text shown whole", async () => {
    const input = live(dsml(`<{D}parameter name="command" string="true">rm -rf ./*\n<{BAR}parameter name="workdir" string="true">/tmp/scratch</{BAR}parameter>`));
    for (const size of [1, 7, input.length]) {
      const run = await throughMiddleware(prompt, textStream(input, size));
      expect(run.calls).toEqual([]);
      expect(run.text).toBe(input);
    }
  });

  // fixed (medium-low: wrong execution): the next opener in the full canonical spelling, but its
  // `>` lost (`<{D}parameter name="workdir"/tmp/scratch</{D}parameter>`): not a tag, so the
  // command runs as "rm -rf ./*\n<{D}parameter name=\"workdir\"/tmp/scratch". Every other garbled
  // opener tried (case, spaces, quotes, doubled bars, `param`, `parameters`, no name, a tab or a
  // line break inside) is refused. Expected: refused (a sentinel parameter opener at a line start
  // inside a value is markup, not the value's text). Suspected: src/parse/dialects/dsml/walk.ts.
  test("DSML: the next canonical opener with its `>` lost: refused", () => {
    expect(calls(dsml(`<{D}parameter name="command" string="true">rm -rf ./*\n<{D}parameter name="workdir"/tmp/scratch</{D}parameter>`)).calls).toEqual([]);
  });

  // Controls (pass on main): the spellings the rule does count.
  for (const [name, open, close] of [
    ["ASCII bars", "<|DSML|parameter", "</|DSML|parameter>"],
    ["DVL", "<{DVL}DSML{DVL}parameter", "</{DVL}DSML{DVL}parameter>"],
    ["canonical", "<{D}parameter", "</{D}parameter>"],
  ] as const) {
    test(`control: DSML, the next opener spelled ${name}: refused`, () => {
      expect(calls(dsml(`<{D}parameter name="command" string="true">rm -rf ./*\n${open} name="workdir" string="true">/tmp/scratch${close}`)).calls).toEqual([]);
    });
  }
  test("control: DSML P01 with an ASCII-bar workdir opener swallowed: refused", () => {
    expect(calls(dsml(`<{D}parameter name="command" string="true">rm -rf ./*\n<|DSML|parameter name="workdir" string="true">/tmp/scratch`)).calls).toEqual([]);
  });
});

describe("Qwen3-Coder: a runaway command whose next opener is spelled with a stray space or a bar", () => {
  // fixed (medium: wrong execution). PATTERNS (G43.1-G43.3): any other `<parameter=` inside a
  // Qwen3-Coder value is the value's text, and the `</parameter>` after it closes THAT opener, not
  // the value; the value must reach its own `</parameter>` or the call is refused. An opener
  // written `<parameter= workdir>` or `<parameter=workdir >` (a stray space; the reader does not
  // take either as an opener) or `<{BAR}parameter=workdir>` on its own line is neither: its
  // `</parameter>` closes the COMMAND, and `rm -rf ./*` runs with the workdir line swallowed
  // (bash runs the first line in the session's directory). `<parameter=workdir>`,
  // `<parameter=Workdir>` and `<parameter name="workdir">` there are refused (O02, controls).
  // Expected: refused. Suspected: src/parse/dialects/qwen.ts (the value's closer search counts
  // only exact `<parameter=NAME>` openers).
  const qwen = (opener: string) => `Cleaning.\n<tool_call>\n<function=bash>\n<parameter=command>\nrm -rf ./*\n${opener}\n/tmp/scratch\n</parameter>\n</function>\n</tool_call>`;
  for (const opener of ["<parameter= workdir>", "<parameter=workdir >", "<{BAR}parameter=workdir>"]) {
    test(`${opener}: refused`, () => {
      expect(calls(qwen(opener)).calls).toEqual([]);
    });
  }
  for (const opener of ["<parameter=workdir>", "<parameter=Workdir>", `<parameter name="workdir">`]) {
    test(`control: ${opener}: refused`, () => {
      expect(calls(qwen(opener)).calls).toEqual([]);
    });
  }
});

describe("hard negatives (pass on main)", () => {
  test("a runaway across CDATA: the opener inside CDATA still refuses", () => {
    expect(calls(dsml(`<{D}parameter name="command" string="true"><![CDATA[rm -rf ./*\n<{D}parameter name="workdir" string="true">/tmp/scratch]]></{D}parameter>`)).calls).toEqual([]);
  });
  test("Hermes JSON with an unterminated string is refused, never read up to the closer", () => {
    expect(calls(`<tool_call>{"name":"bash","arguments":{"command":"rm -rf ./*", "workdir":"/tmp}}</tool_call>`).calls).toEqual([]);
  });
  test("Qwen3-Coder: a runaway ended by </function> with the next <parameter=...> refuses (O02)", () => {
    expect(calls(`<tool_call>\n<function=bash>\n<parameter=command>\nrm -rf ./*\n<parameter=workdir>\n/tmp/scratch\n</function>\n</tool_call>`).calls).toEqual([]);
  });
  test("Claude-style: a DSML opener swallowed by a P01 value refuses", () => {
    expect(calls(claude(`<parameter name="command">rm -rf ./*\n<{D}parameter name="workdir" string="true">/tmp/scratch`)).calls).toEqual([]);
  });
});
