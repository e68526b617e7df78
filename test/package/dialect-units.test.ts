import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { readTag, type Tag, type TagFamily } from "../../src/grammar/tags.ts";
import { defaultDialects, type DialectId } from "../../src/grammar/dialects.ts";
import { OPENERS, type OpenerRule, type OpenerView } from "../../src/parse/openers.ts";
import { fixtureTools } from "../golden/tools.ts";
import { everyChar, randomCuts, runEngine } from "../support/run-engine.ts";

// Issue 28 step 4, dialects as units: adding or fixing a dialect touches its own file. The engine
// decides nothing per tag family (each family's opener rule sits beside its dialect and the engine
// dispatches through parse/openers.ts), and the candidate names no dialect's body rules.

const SRC = path.resolve(import.meta.dir, "../../src");
const read = (file: string) => readFileSync(path.join(SRC, file), "utf8");
const BAR = String.fromCharCode(0xff5c);
const D = `${BAR}DSML${BAR}`;

/** One leak per tag family, each a call with the default switches. */
const LEAKS: Record<TagFamily, string> = {
  dsml: `<${D}invoke name="bash">\n<${D}parameter name="command" string="true">ls</${D}parameter>\n</${D}invoke>`,
  naked: `<function_calls>\n<invoke name="bash">\n<parameter name="command">ls</parameter>\n</invoke>\n</function_calls>`,
  legacy: `<|tool_calls_section_begin|><|tool_call_begin|>functions.bash:0<|tool_call_argument_begin|>{"command":"ls"}<|tool_call_end|><|tool_calls_section_end|>`,
  costume: `<tool_call>bash\n<arg_key>command</arg_key>\n<arg_value>ls</arg_value>\n</tool_call>`,
  mistral: `[TOOL_CALLS]bash[ARGS]{"command":"ls"}`,
};

/** A view of an engine with nothing held, no block open, mid-line, every tool declared. */
function view(change: Partial<OpenerView> = {}): OpenerView {
  return { tail: false, openBlock: null, atLineStart: () => false, declared: () => true, dialects: { ...defaultDialects }, codeCostumes: true, closeOpenBlock: () => false, closeToolCall: () => {}, ...change };
}

function tagOf(text: string): Tag {
  const tag = readTag(text, 0, true);
  if (tag === null || typeof tag !== "object") throw new Error(`not a tag: ${text}`);
  return tag;
}

const cutsOf = (input: string) => [[], everyChar(input.length), randomCuts(input.length, 28), randomCuts(input.length, 4)];

describe("dialects as units: the engine and the candidate name no dialect", () => {
  test("the engine has no switch over tag families: its text mode dispatches through the opener rules", () => {
    for (const file of ["engine.ts", "text-mode.ts", "tagless-openers.ts", "output.ts", "tail.ts"]) {
      const engine = read(`engine/${file}`);
      expect(engine).not.toMatch(/switch\s*\(\s*\w+\.family\s*\)/);
      for (const family of Object.keys(LEAKS)) expect(engine).not.toContain(`case "${family}"`);
    }
    expect(read("engine/text-mode.ts")).toContain("OPENERS[tag.family]");
  });

  test("candidate.ts and the value tracker it reads with name none of the <tool_call> body's dialects", () => {
    for (const file of ["candidate.ts", "value-tracker.ts"]) {
      const candidate = read(`engine/${file}`);
      for (const word of [/glm/i, /arg_key/, /arg_value/, /function-inner/, /ToolCall(Start|Body)/, /COSTUME_INNER/]) expect(candidate).not.toMatch(word);
    }
  });

  test("every tag family the tag reader yields has exactly one opener rule, defined once in parse/", () => {
    const families = new Set<string>(Object.values(LEAKS).map((leak) => tagOf(leak).family));
    expect([...families].sort()).toEqual(Object.keys(OPENERS).sort());
    const rules = Object.values(OPENERS);
    expect(new Set(rules).size).toBe(rules.length);
    for (const rule of rules) expect(typeof rule).toBe("function");
    // Each rule is written once, in the dialect's own file below the engine.
    const definitions = sourceFiles(SRC).flatMap((file) => [...readFileSync(file, "utf8").matchAll(/export const (\w+): OpenerRule\b/g)].map((m) => ({ name: m[1]!, file: path.relative(SRC, file) })));
    expect(definitions.length).toBe(rules.length);
    for (const d of definitions) expect(d.file.startsWith(`parse${path.sep}`)).toBe(true);
    expect(new Set(definitions.map((d) => d.file)).size).toBeGreaterThanOrEqual(4);
  });
});

describe("dialects as units: the opener rules are what the engine uses", () => {
  for (const family of Object.keys(LEAKS) as TagFamily[]) {
    test(`${family}: a leak is a call; with the family's rule saying "text" it passes through whole, char by char and at random splits`, () => {
      const input = LEAKS[family];
      for (const cuts of cutsOf(input)) expect(runEngine(input, cuts, fixtureTools).calls.map((c) => c.tool)).toEqual(["bash"]);
      const rules = OPENERS as Record<TagFamily, OpenerRule>;
      const own = rules[family];
      rules[family] = () => "text";
      try {
        for (const cuts of cutsOf(input)) {
          const run = runEngine(input, cuts, fixtureTools);
          expect(run.calls).toEqual([]);
          expect(run.text).toBe(input);
        }
      } finally {
        rules[family] = own;
      }
    });
  }

  // Each dialect switch is read by its own family's rule: off, the opener is text.
  const SWITCHED: [DialectId[], string, string][] = [
    [["mistral"], "[TOOL_CALLS]", "mistral"],
    [["minimax"], "[TOOL_CALL]", "minimax-bracket"],
    [["minimax"], "<minimax:tool_call>", "block"],
    [["qwen3coder"], "<function=bash>", "qwen-function"],
    [["kimi"], "<|tool_calls_section_begin|>", "legacy-section"],
    [["lfm2"], "<|tool_call_start|>", "legacy-call"],
    [["hermes", "qwen3coder", "glm"], "<tool_call>", "tool-call"],
  ];
  for (const [ids, opener, root] of SWITCHED) {
    test(`${opener} opens "${root}" only with parse.dialects.${ids.join("/")} on`, () => {
      const tag = tagOf(opener);
      expect(OPENERS[tag.family](tag, opener, view())).toEqual({ open: root as never });
      const off = { ...defaultDialects };
      for (const id of ids) off[id] = false;
      // `<tool_call>` is also the code costumes' wrapper (C01): it is text only with those off too.
      expect(OPENERS[tag.family](tag, opener, view({ dialects: off, codeCostumes: !opener.startsWith("<tool_call>") }))).toBe("text");
    });
  }

  test("with GLM, Hermes, Qwen3-Coder and code costumes off, a GLM leak through the engine is text", () => {
    const input = LEAKS.costume;
    const parse = { codeCostumes: false, dialects: { glm: false, hermes: false, qwen3coder: false } };
    for (const cuts of cutsOf(input)) {
      const run = runEngine(input, cuts, fixtureTools, { parse });
      expect(run.calls).toEqual([]);
      expect(run.text).toBe(input);
    }
  });
});

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith(".ts") ? [full] : [];
  });
}
