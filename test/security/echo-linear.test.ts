/**
 * Issue 27: the echo guard stays linear on hostile given content. Work is counted (charCodeAt
 * calls plus sliced characters, test/support/work.ts), never timed: for every shape, 4x the given
 * content costs at most 4.5x the work and a bounded number of units per character, through the
 * engine with one recovered call. The shapes aim at each part: HTML references without their
 * `;`, dense markup (every window overlaps), long line prefixes, JSON escapes (three forms),
 * periodic near-miss values (KMP), and many matches that are not next to markup.
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
});
