/**
 * Issue 27: the echo guard stays linear on hostile given content. Work is counted (charCodeAt
 * calls plus sliced characters, test/support/work.ts), never timed: for every shape, 4x the given
 * content costs at most 4.5x the work and a bounded number of units per character, through the
 * engine with one recovered call. The shapes aim at each part: HTML references without their
 * `;`, dense markup (every window overlaps), long line prefixes, JSON escapes (three forms),
 * periodic near-miss values (KMP), and many matches that are not next to markup; and for values
 * without a letter or digit, the haystack that keeps line prefixes (symbol near misses, long
 * symbol prefixes, a value of thousands of lines).
 */
import { describe, expect, test } from "bun:test";
import { createEchoGuard } from "../../src/echo/guard.ts";
import { createEchoSearch } from "../../src/echo/search.ts";
import { createRepairEngine } from "../../src/engine/engine.ts";
import { fixtureTools } from "../golden/tools.ts";
import { countWork } from "../support/work.ts";

const SLOW = 60_000;

function recovered(reply: string, given: readonly string[]): number {
  const engine = createRepairEngine({ tools: fixtureTools, idPrefix: "c_", isEchoed: createEchoGuard(() => given) });
  return [...engine.feed(reply), ...engine.flush()].filter((e) => e.type === "call").length;
}

const fill = (unit: string, n: number) => unit.repeat(Math.ceil(n / unit.length));
/** A symbol value that matches the given runs of `:|&; ` for 750 characters, then misses. */
const SYMBOLS = `${":|&; ".repeat(150)}:|&;!`;

/** [shape, given content of about n characters, the reply (one call), whether that call runs]. */
const SHAPES: [string, (n: number) => string, (n: number) => string, number][] = [
  ["'&' without ';' (reference lookahead)", (n) => `<shell>${fill("&", n)}`, () => "<shell>ls -la</shell>", 1],
  ["dense markup tokens", (n) => fill("<tool_calls><shell>", n), () => "<shell>ls -la</shell>", 1],
  ["long line prefixes", (n) => fill(`${"+-#/* >".repeat(40)}<shell>x\n`, n), () => "<shell>ls -la</shell>", 1],
  ["HTML references", (n) => fill("&lt;shell&gt;&#60;invoke&#x3E;", n), () => "<shell>ls -la</shell>", 1],
  ["JSON escapes (three forms)", (n) => fill('\\\\\\"<shell>\\\\n', n), () => "<shell>ls -la</shell>", 1],
  ["a periodic near-miss value next to dense markup", (n) => fill("<shell>ab ", n), (n) => `<shell>${fill("ab <shell>", n / 8)}ab x</shell>`, 1],
  ["many matches that are not inside markup", (n) => fill("</shell> a <shell>", n), () => "<shell>a</shell>", 1],
  ["a quote at the end of dense markup", (n) => `${fill("<shell>ab ", n)}<shell>rm -rf ~</shell>`, () => "<shell>rm -rf ~</shell>", 0],
  // A value without a letter or digit is searched in the haystack that keeps line prefixes (built on first need).
  ["symbol values: periodic near misses, the quote at the end", (n) => `${fill(`<tool_call>${":|&; ".repeat(200)}\n`, n)}<tool_call>\n${SYMBOLS}\n</tool_call>`, () => `<shell>${SYMBOLS}</shell>`, 0],
  ["symbol values: long symbol line prefixes, the quote at the end", (n) => `${fill(`${"+-#/* >".repeat(40)}<tool_call>:|&;\n`, n)}+ <tool_call>\n+ :(){ :|:& };:\n+ </tool_call>\n`, () => "<shell>:(){ :|:& };:</shell>", 0],
  // Review 42: where strings open after an opener (string-lexer.ts), text as a reader sees it, a value's JSON spelling.
  ["quotes, apostrophes and backslashes after openers, decoys inside the strings", (n) => fill(`<tool_call>{"a": "[/TOOL_CALL]\\\\\\"", 'b': '[TOOL_CALL]\\'', "c": "it's"} `, n), () => "<shell>ls -la</shell>", 1],
  ["every occurrence fills a string, none after an opener", (n) => fill('</shell> "ab" <shell>', n), () => "<shell>ab</shell>", 1],
  ["every occurrence fills a string after an opener beyond the window", (n) => fill(`<tool_call>{"p": "${"[/TOOL_CALL] ".repeat(30)}", "c": "ab", "q": "[TOOL_CALL]"}\n`, n), () => "<shell>ab</shell>", 1],
  ["a value found only in the window's decoys, the quote at the end", (n) => `${fill('<tool_call>{"a": "[/TOOL_CALL]", "c": "ab x", "b": "[TOOL_CALL]"} ', n)}<tool_call>{"a": "[/TOOL_CALL]", "c": "rm -rf ~", "b": "[TOOL_CALL]"}`, () => "<shell>rm -rf ~</shell>", 0],
  ["quotes spelled as entities (the form is kept undecoded too)", (n) => fill("<shell>&quot;ab&#39;&bsol; ", n), () => "<shell>ls -la</shell>", 1],
  ["invisible characters and combining marks", (n) => fill("<shell>e\u0301\u200bq\u0301\ufe0f ", n), () => "<shell>ls -la</shell>", 1],
  ["a value a JSON string escapes, near misses between closers and openers", (n) => fill('</shell>echo \\"ab\\" x <shell>', n), () => '<shell>echo "ab"</shell>', 1],
];

describe("linear work on hostile given content (counted, not timed)", () => {
  for (const [name, given, reply, runs] of SHAPES) {
    test(`${name}: 4x the given content costs at most 4.5x the work, at most 80 units per character`, () => {
      const work = (n: number) => {
        let calls = -1;
        const units = countWork(() => {
          calls = recovered(reply(n), [given(n)]);
        });
        expect(calls).toBe(runs);
        return units;
      };
      const small = work(50_000);
      const large = work(200_000);
      expect(small).toBeGreaterThan(0);
      expect(large / small).toBeLessThanOrEqual(4.5);
      expect(large).toBeLessThanOrEqual(80 * (given(200_000).length + reply(200_000).length));
    }, SLOW);
  }

  test("many calls in one reply: the characters scanned are bounded by a multiple of the given content", () => {
    const given = [fill("<shell>ab ", 100_000)];
    const search = createEchoSearch(() => given);
    const tools = new Map(fixtureTools.map((t) => [t.name, t]));
    // Distinct values (so nothing is memoized), each scanned over every window of the dense markup.
    for (let i = 0; i < 200; i++) search({ tool: "bash", input: { command: `ab ${i}` }, markup: `<shell>ab ${i}</shell>`, tools });
    expect(search.scanned()).toBeLessThanOrEqual(16 * 2 * given[0]!.length + 4_000_000 + 4 * given[0]!.length);
    // Past the bound the guard fails closed: a hostile request can only stop calls.
    expect(search({ tool: "bash", input: { command: "npm test" }, markup: "<shell>npm test</shell>", tools })).toBe(true);
  });

  test("a symbol value of many distinct lines: each line is a search, the characters scanned stay bounded, then the call counts as given", () => {
    // 4096 lines, no two alike (so nothing is memoized), quoted after dense markup: each line's
    // search scans the one window the dense markup makes before it finds the line at the end.
    const digits = "~!@#$^*(";
    const lines = Array.from({ length: 4096 }, (_, i) => `=${[0, 3, 6, 9].map((s) => digits[(i >> s) & 7]).join("")}=`);
    const command = lines.join("\n");
    const given = [`${fill("<tool_call>:|&; ", 100_000)}<tool_call>\n${command}\n</tool_call>`];
    const search = createEchoSearch(() => given);
    const tools = new Map(fixtureTools.map((t) => [t.name, t]));
    expect(search({ tool: "bash", input: { command }, markup: `<shell>\n${command}\n</shell>`, tools })).toBe(true);
    // Both haystacks are about the given content long: 16 times each, the floor, and one last search.
    expect(search.scanned()).toBeLessThanOrEqual(16 * 2 * given[0]!.length + 4_000_000 + 4 * given[0]!.length);
    // The bound ended the search: 4096 scans of the window would be 4096 times the given content.
    expect(search.scanned()).toBeGreaterThan(4_000_000);
  });
});
