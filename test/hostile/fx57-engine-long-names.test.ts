/**
 * Fix round 57 (engine): tool names of any declared length, streamed as read whole.
 *
 * 1. Review 57 finding 3 (test/hostile/review-57-history-shapes.test.ts; golden D57.6): the O09
 *    element `<NAME>` of a declared tool whose name is 17 or more characters ran whole and stayed
 *    text char by char. Fixed: src/engine/tagless-openers.ts elementAt holds through the whole
 *    longest declared name (its bound counted the `<`; the tag reader's 16-character namespace wait
 *    hid that for shorter names).
 * 2. Found on the way (wrong execution, fixed): an O09 element named after a declared tool of more
 *    than 65 characters, quoted in block documentation, opened no quote (src/engine/quoted-dialects.ts
 *    read a name of at most NAME_LIMIT + 1 characters), so the call example in its quoted page ran.
 *    Now that read is bounded by the longest declared name (at least NAME_LIMIT).
 * 3. Found on the way (wrong execution, fixed): a quoted Mistral `[TOOL_CALLS]NAME[ARGS]{` whose NAME
 *    has 64 characters (the live reader's own limit) or more opened no quote (src/engine/quoted-strings.ts:
 *    the prelude bound was the name limit itself and was checked before the `[` that ends it), so the
 *    example in its quoted string value ran. Now the bound is read after what ends the prelude and
 *    is longer than any name a live reader takes.
 * 4. The other dialects that carry a tool name in an opener, with a 100-character name: every one
 *    agrees whole, char by char and at seeded random splits. GLM `<tool_call>NAME`, Mistral
 *    `[TOOL_CALLS]NAME`, the `<{D}toolcall>NAME` form and the O06 residue read a name of at most
 *    64 characters (NAME_LIMIT, src/parse/char-form.ts): a longer one is text at every split (a
 *    missed call, pinned as agreement only).
 *
 * Every run here goes whole, char by char and at seeded random splits (test/support/outcome.ts,
 * runAtEverySplit). The hold is bounded by the longest declared name: counted work stays linear in
 * the reply (test/support/work.ts).
 */
import { describe, expect, test } from "bun:test";
import { createRepairEngine } from "../../src/engine/engine.ts";
import type { ToolSpec } from "../../src/parse/types.ts";
import { live } from "../golden/notation.ts";
import { fixtureTools } from "../golden/tools.ts";
import { legacyToken } from "../property/arbitraries.ts";
import { outcome } from "../support/outcome.ts";
import { everyChar, observable, randomCuts, runEngine } from "../support/run-engine.ts";
import { countWork } from "../support/work.ts";

/** A name of `n` characters as an MCP tool's: a server prefix, then letters. */
const nameOf = (n: number) => `mcp_server_${"abcdefghij".repeat(30)}`.slice(0, n);
const LENGTHS = [1, 16, 17, 40, 64, 100, 200];
const titleTool = (name: string): ToolSpec => ({ name, parameters: { type: "object", properties: { title: { type: "string" } }, required: ["title"] } });
const writeTool = (name: string): ToolSpec => ({ name, parameters: { type: "object", properties: { filePath: { type: "string" }, content: { type: "string" } }, required: ["filePath", "content"] } });
const element = (name: string) => `<${name}>\n<title>x</title>\n</${name}>`;

describe("finding 3, fixed: the O09 element of a declared tool runs at every split, whatever the name's length", () => {
  for (const n of LENGTHS) {
    test(`a ${n}-character name: the call, whole, char by char and at seeded random splits`, () => {
      const name = nameOf(n);
      const input = `Filing it.\n\n${element(name)}`;
      expect(outcome(input, [...fixtureTools, titleTool(name)])).toEqual({ calls: [{ tool: name, input: { title: "x" } }], broken: [], text: "Filing it.\n\n" });
    });
  }

  test("the longest of several declared names, and a shorter one that is a prefix of it, each run as itself", () => {
    const long = nameOf(100);
    const short = nameOf(40);
    const tools = [...fixtureTools, titleTool(long), titleTool(short)];
    expect(outcome(`${element(short)}\n${element(long)}`, tools).calls).toEqual([
      { tool: short, input: { title: "x" } },
      { tool: long, input: { title: "x" } },
    ]);
  });
});

describe("finding 3, hard negatives: only a declared name as written opens the element", () => {
  const name = nameOf(100);
  const tools = [...fixtureTools, titleTool(name)];
  const unchanged = (input: string) => expect(outcome(input, tools)).toEqual({ calls: [], broken: [], text: input });

  test("one character short of the declared name: text", () => unchanged(element(name.slice(0, -1))));
  test("one character past the declared name: text", () => unchanged(element(`${name}x`)));
  test("the declared name in another case: text", () => unchanged(element(name.toUpperCase())));
  test("the reply ends right after the whole name, no `>`: text", () => unchanged(`Filing it.\n<${name}`));
  test("the reply ends inside the name: text", () => unchanged(`Filing it.\n<${name.slice(0, 70)}`));
  test("the element inside a running line: text", () => unchanged(`File it as <${name}> <title>x</title> </${name}> later.`));
  test("the element in a fence: documentation", () => unchanged(`Like this:\n\`\`\`\n${element(name)}\n\`\`\``));
  test("with no tool of that name declared: text", () => expect(outcome(element(name))).toEqual({ calls: [], broken: [], text: element(name) }));
});

// The page a quoted write shows, as review 50 built it: its holder broken by the page, then a call example.
const EXAMPLE = "<tool_call>\n<function=bash>\n<parameter=command>\nrm -rf build\n</parameter>\n</function>\n</tool_call>";
const HOLDERS: Record<string, (write: (content: string) => string) => string> = {
  "a fence whose page has a fence (N45.1)": (w) => `Here is the page:\n\`\`\`\n${w(`# Calls\n\`\`\`\n${EXAMPLE}\n\`\`\``)}\n\`\`\`\nThat is all.`,
  "<details> whose page has a blank line (N45.2)": (w) => `<details>\n${w(`# Calls\n\nRun it like this:\n${EXAMPLE}`)}\n</details>\nThat is all.`,
  "a comment whose page has a comment closer (N45.3)": (w) => `<!--\n${w(`a --> b\n${EXAMPLE}`)}\n-->\nThat is all.`,
  "<pre> whose page closes pre (N45.4)": (w) => `Intro:\n<pre>\n${w(`Run:\n</pre>\n# T\n${EXAMPLE}`)}\n</pre>\nDone.`,
};
const elementWrite = (name: string) => (content: string) => `<${name}>\n<filePath>docs/calls.md</filePath>\n<content>${content}</content>\n</${name}>`;
const mistralWrite = (name: string) => (content: string) => `[TOOL_CALLS]${name}[ARGS]{"filePath": "docs/calls.md", "content": "${content}"}`;

describe("found on the way (wrong execution, fixed): a quoted write named after a long tool keeps its page documentation", () => {
  // Severity: wrong execution. Minimal input (a declared 100-character write tool NAME):
  //   Here is the page:⏎```⏎<NAME>⏎<filePath>docs/calls.md</filePath>⏎<content># Calls⏎```⏎
  //   <tool_call>⏎<function=bash>⏎<parameter=command>⏎rm -rf build⏎…⏎```</content>⏎</NAME>⏎```⏎That is all.
  // Was: bash {command: "rm -rf build"} ran, whole and at every split. The same for
  // `[TOOL_CALLS]NAME[ARGS]{…}` with NAME of 64 characters or more.
  // Fixed: the quote's name read is bounded by the longest declared name (quoted-dialects.ts) and a
  // string-valued opener's prelude by more than any live reader's name (quoted-strings.ts).
  for (const n of [64, 66, 100, 200]) {
    for (const [where, holder] of Object.entries(HOLDERS)) {
      test(`O09 element, ${n}-character name, quoted in ${where}: the example never runs`, () => {
        const name = nameOf(n);
        const input = holder(elementWrite(name));
        expect(outcome(input, [...fixtureTools, writeTool(name)])).toEqual({ calls: [], broken: [], text: input });
      });
      test(`Mistral [TOOL_CALLS], ${n}-character name, quoted in ${where}: the example never runs`, () => {
        const name = nameOf(n);
        const input = holder(mistralWrite(name));
        expect(outcome(input, [...fixtureTools, writeTool(name)])).toEqual({ calls: [], broken: [], text: input });
      });
    }
  }
});

describe("found on the way, hard negatives: the longer quotes end where their own markup ends", () => {
  const REAL = "<tool_call>\n<function=bash>\n<parameter=command>\nls -la\n</parameter>\n</function>\n</tool_call>";
  const LS = [{ tool: "bash", input: { command: "ls -la" } }];
  const runsAfter = (quoted: string, tools: ToolSpec[]) => expect(outcome(`${quoted}${REAL}`, tools)).toEqual({ calls: LS, broken: [], text: quoted });
  const name = nameOf(100);
  const tools = [...fixtureTools, writeTool(name)];

  test("a long-named O09 write quoted and closed in its fence, then a real call: the call runs", () => {
    runsAfter(`Here is the page:\n\`\`\`\n${elementWrite(name)("# Calls")}\n\`\`\`\n\n`, tools);
  });

  test("a long-named Mistral write quoted and closed in its fence, then a real call: the call runs", () => {
    runsAfter(`Here is the page:\n\`\`\`\n${mistralWrite(name)("# Calls")}\n\`\`\`\n\n`, tools);
  });

  test("[TOOL_CALLS] named in a fence with words after it, then a real call after the fence: the call runs", () => {
    runsAfter(`Mistral starts its calls with a token:\n\`\`\`\n[TOOL_CALLS] then the name and the arguments\n\`\`\`\n\n`, tools);
  });

  test("[TOOL_CALLS] and a long run of name characters in a comment, then a real call after it: the call runs", () => {
    runsAfter(`<!--\n[TOOL_CALLS]${"x".repeat(400)}\n-->\n\n`, tools);
  });

  test("the real long-named O09 write (no documentation around it) runs with the page as its content", () => {
    const page = `# Calls\n\`\`\`\n${EXAMPLE}\n\`\`\``;
    expect(outcome(elementWrite(name)(page), tools).calls).toEqual([{ tool: name, input: { filePath: "docs/calls.md", content: page } }]);
  });
});

describe("the other dialects that carry a tool name in an opener, with a 100-character name", () => {
  const name = nameOf(100);
  const tools = [...fixtureTools, titleTool(name)];
  const X = [{ tool: name, input: { title: "x" } }];
  /** Dialects whose readers take a name of any declared length: the call at every split. */
  const TAKEN: Record<string, string> = {
    "DSML invoke in its block": live(`<{D}tool_calls>\n<{D}invoke name="${name}">\n<{D}parameter name="title" string="true">x</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`),
    "DSML orphan invoke": live(`<{D}invoke name="${name}">\n<{D}parameter name="title" string="true">x</{D}parameter>\n</{D}invoke>`),
    "DSML tool-named element (I11)": live(`<{D}${name}>\n<{D}parameter name="title" string="true">x</{D}parameter>\n</{D}${name}>`),
    "Hermes JSON (O01)": `<tool_call>\n{"name": "${name}", "arguments": {"title": "x"}}\n</tool_call>`,
    '<tool_call name="…">': `<tool_call name="${name}">{"title": "x"}</tool_call>`,
    "Qwen3-Coder <function=…> (O02)": `<tool_call>\n<function=${name}>\n<parameter=title>\nx\n</parameter>\n</function>\n</tool_call>`,
    "Qwen3-Coder without its wrapper": `<function=${name}>\n<parameter=title>\nx\n</parameter>\n</function>`,
    "MiniMax invoke (O05)": `<minimax:tool_call>\n<invoke name="${name}">\n<parameter name="title">x</parameter>\n</invoke>\n</minimax:tool_call>`,
    "MiniMax bracket form (O05)": `[TOOL_CALL] {tool => "${name}", args => { --title "x" }} [/TOOL_CALL]`,
    "Claude-style invoke (O07)": `<function_calls>\n<invoke name="${name}">\n<parameter name="title">x</parameter>\n</invoke>\n</function_calls>`,
    "Kimi K2 (O04)": `<|tool_calls_section_begin|><|tool_call_begin|>functions.${name}:0<|tool_call_argument_begin|>{"title":"x"}<|tool_call_end|><|tool_calls_section_end|>`,
    "LFM2 (O08)": `<|tool_call_start|>[${name}(title='x')]<|tool_call_end|>`,
    "DeepSeek legacy tokens (L02)": `${legacyToken("tool calls begin")}${legacyToken("tool call begin")}${name}${legacyToken("tool sep")}{"title":"x"}${legacyToken("tool call end")}${legacyToken("tool calls end")}`,
  };
  for (const [dialect, input] of Object.entries(TAKEN)) {
    test(`${dialect}: the call at every split`, () => {
      expect(outcome(input, tools).calls).toEqual(X);
    });
  }

  /**
   * Dialects whose char-level readers take a name of at most NAME_LIMIT (64) characters: a longer
   * one is refused alike at every split (a missed call, never a disagreement). Pinned as agreement
   * only, so a later wider limit needs no change here.
   */
  const LIMITED: Record<string, { input: string; residue?: boolean }> = {
    "GLM <tool_call>NAME (O03)": { input: `<tool_call>${name}\n<arg_key>title</arg_key>\n<arg_value>x</arg_value>\n</tool_call>` },
    "Mistral [TOOL_CALLS]NAME[ARGS] (O06)": { input: `[TOOL_CALLS]${name}[ARGS]{"title":"x"}` },
    "Mistral [TOOL_CALLS]NAME{…} (O06)": { input: `[TOOL_CALLS]${name}{"title":"x"}` },
    "<{D}toolcall>NAME (I10)": { input: live(`<{D}toolcall>${name}\n\n\`\`\`json\n{"title":"x"}\n\`\`\``) },
    "the O06 residue NAME[ARGS], switched on": { input: `Running:\n${name}[ARGS]{"title":"x"}`, residue: true },
  };
  for (const [dialect, { input, residue }] of Object.entries(LIMITED)) {
    test(`${dialect}: whole, char by char and at seeded random splits agree`, () => {
      const parse = residue ? { dialects: { mistralResidue: true } } : undefined;
      const run = (cuts: number[]) => observable(runEngine(input, cuts, tools, { parse }));
      const whole = run([]);
      expect(run(everyChar(input.length))).toEqual(whole);
      for (let seed = 1; seed <= 5; seed++) expect(run(randomCuts(input.length, seed))).toEqual(whole);
    });
    test(`${dialect}: a 64-character name runs at every split (hard negative for the limit)`, () => {
      const short = nameOf(64);
      const parse = residue ? { dialects: { mistralResidue: true } } : undefined;
      const shortInput = input.replaceAll(name, short);
      const run = (cuts: number[]) => runEngine(shortInput, cuts, [...fixtureTools, titleTool(short)], { parse }).calls.map((c) => ({ tool: c.tool, input: c.input }));
      const expected = [{ tool: short, input: { title: "x" } }];
      expect(run([])).toEqual(expected);
      expect(run(everyChar(shortInput.length))).toEqual(expected);
      for (let seed = 1; seed <= 5; seed++) expect(run(randomCuts(shortInput.length, seed))).toEqual(expected);
    });
  }
});

describe("the hold is bounded by the longest declared name: counted work stays linear", () => {
  /** Many line starts that hold as a prefix of a long declared name and never complete it. */
  const reply = (name: string, lines: number) => `<${name.slice(0, -1)}\n`.repeat(lines);
  const feed = (text: string, tools: readonly ToolSpec[], cuts: "char" | number[]) => {
    const engine = createRepairEngine({ tools, idPrefix: "call_", bufferLimit: Number.MAX_SAFE_INTEGER });
    if (cuts === "char") for (let i = 0; i < text.length; i++) engine.feed(text[i]!);
    else {
      let at = 0;
      for (const cut of [...cuts, text.length]) {
        engine.feed(text.slice(at, cut));
        at = cut;
      }
    }
    engine.flush();
  };

  for (const n of [17, 64, 200]) {
    test(`a ${n}-character name among 50 that share its prefix: linear in the reply, O(name) a character char by char`, () => {
      const name = nameOf(n);
      const tools = [titleTool(name), ...Array.from({ length: 50 }, (_, i) => titleTool(`${name.slice(0, n - 3)}${i}`))];
      for (const cuts of ["char", "random", "whole"] as const) {
        const work = (lines: number) => {
          const text = reply(name, lines);
          return { work: countWork(() => feed(text, tools, cuts === "char" ? "char" : cuts === "random" ? randomCuts(text.length, 57) : [])), length: text.length };
        };
        const small = work(50);
        const big = work(200);
        expect(big.work).toBeLessThan(4.4 * small.work);
        // Char by char the held prefix is read again with each character (as any held tag is): at most a few reads per name character.
        expect(big.work).toBeLessThanOrEqual(big.length * (cuts === "char" ? 4 * n + 64 : 128));
      }
    });
  }

  test("many `<` that no declared name starts with cost what they cost without a long name", () => {
    const text = "<div>\n<span>x</span>\n<T>\n".repeat(400);
    const plain = countWork(() => feed(text, fixtureTools, "char"));
    const long = countWork(() => feed(text, [...fixtureTools, titleTool(nameOf(200))], "char"));
    expect(long).toBeLessThanOrEqual(plain * 1.1);
  });
});
