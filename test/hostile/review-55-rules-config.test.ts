/**
 * Review 55 (rules, hostile, tests only): tool lists that fail closed (src/options/check.ts
 * noToolName, invisible; fix 54 config), read through the plugin (src/plugin/options.ts
 * resolveOptions) and the engine's own reading (src/options/engine.ts recoverableTools).
 */
import { describe, expect, test } from "bun:test";
import { resolveOptions } from "../../src/plugin/options.ts";
import { recoverableTools } from "../../src/options/engine.ts";

const DECLARED = [{ name: "bash" }, { name: "read" }, { name: "mcp__github__create_issue" }, { name: "github.create-issue" }, { name: "server/tool" }, { name: "github_create_issue" }];

function reads(responseFix: Record<string, unknown>) {
  const { options, problems } = resolveOptions({ responseFix });
  return { names: recoverableTools({ responseFix: options.responseFix }, DECLARED).map((tool) => tool.name), problems: problems.length };
}

/**
 * FINDING 5 (a security option silently ignored, leading to a wrong execution; low: the entry must
 * hold the character). noToolName refuses an entry holding a character "seen in a config as
 * nothing" (U+200B, bidi marks, the Hangul fillers U+115F/U+1160/U+3164/U+FFA0, variation
 * selectors, tags), so `denyTools: ["bash\u200b"]` fails closed to ["*"] with one problem line. Other
 * characters that show as nothing pass: U+2800 BRAILLE PATTERN BLANK (the usual "invisible
 * character" in pasted text, not whitespace for String.trim) and the shorthand format controls
 * U+1BCA0-U+1BCA3 (Unicode Cf, like U+200B). `denyTools: ["bash\u2800"]` looks like ["bash"], denies
 * nothing, and reports nothing: a recovered bash call runs.
 * Minimal input: `{ responseFix: { denyTools: ["bash\u2800"] } }`.
 * Suspected source: src/options/check.ts invisible (a hand list of ranges: no U+2800, no
 * U+1BCA0-U+1BCA3; the general category Cf, or \p{Default_Ignorable_Code_Point} plus U+2800,
 * would cover the class).
 * Expected: as for U+200B: one problem line, denyTools fails closed to ["*"] (bash not recoverable).
 * Fixed (fix 55): noToolName tells a character that shows as nothing by its Unicode class (Cc, Cf,
 * Cs, Co, every space separator, Default_Ignorable_Code_Point, the noncharacters, and U+2800), no
 * hand list of ranges; a combining mark with no character before it is refused too.
 */
describe("finding 5: a deny list entry holding a character that shows as nothing", () => {
  for (const [name, entry] of [
    ["U+2800 after the name", "bash\u2800"],
    ["U+2800 before the name", "\u2800bash"],
    ["U+1BCA1 after the name", "bash\u{1BCA1}"],
  ] as const) {
    test(`${name}: bash is not recoverable, one problem line`, () => {
      const r = reads({ denyTools: [entry] });
      expect(r.names).not.toContain("bash");
      expect(r.problems).toBe(1);
    });
  }
  test("hard negative: U+200B after the name fails closed (fix 54)", () => {
    expect(reads({ denyTools: ["bash\u200b"] })).toEqual({ names: [], problems: 1 });
  });
  // Fix 55: the class by Unicode property, each as U+200B.
  for (const [name, entry] of [
    ["U+1BCA0 (shorthand format control)", "bash\u{1BCA0}"],
    ["U+180B (Mongolian variation selector, default-ignorable)", "ba\u180Bsh"],
    ["U+3000 (ideographic space, a space separator)", "bash\u3000x"],
    ["U+FDD0 (a noncharacter)", "bash\uFDD0"],
    ["U+E0062 (a tag character)", "bash\u{E0062}"],
    ["a combining mark alone", "\u0301"],
    ["a combining mark before the name", "\u0301bash"],
  ] as const) {
    test(`${name}: the deny list fails closed, one problem line`, () => {
      expect(reads({ denyTools: [entry] })).toEqual({ names: [], problems: 1 });
    });
  }
});

describe("hard negatives: names MCP servers and hosts really use still work", () => {
  test("allowTools with an OpenCode MCP pattern, a dotted name and a slashed name allows exactly those", () => {
    expect(reads({ allowTools: ["mcp__github__*", "github.create-issue", "server/tool"] })).toEqual({ names: ["mcp__github__create_issue", "github.create-issue", "server/tool"], problems: 0 });
  });
  test("denyTools with such names denies exactly those", () => {
    expect(reads({ denyTools: ["mcp__github__*", "github.create-issue", "server/tool"] })).toEqual({ names: ["bash", "read", "github_create_issue"], problems: 0 });
  });
  test("a non-ASCII letter in a name is a name (not refused)", () => {
    expect(reads({ denyTools: ["r\u00e9sum\u00e9"] })).toEqual({ names: DECLARED.map((t) => t.name), problems: 0 });
  });
  test("fix 55: names in other scripts, a decomposed accent after a letter, `@`, `:`, `*` and `?` are names (not refused)", () => {
    for (const name of ["\u0444\u0430\u0439\u043b", "\u8aad\u3080", "\ud55c\uae00", "\u0627\u0642\u0631\u0623", "re\u0301sume\u0301", "@scope/tool", "server:tool", "git?b_*"]) {
      expect(reads({ denyTools: [name] })).toEqual({ names: DECLARED.map((t) => t.name), problems: 0 });
    }
  });
});
