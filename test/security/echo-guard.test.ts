/**
 * The echo guard's byte net (src/echo/linear-search.ts): it decides exactly as a naive normalize-and-
 * includes oracle does, in work linear in given content plus markup even when both are shaped to
 * make substring search quadratic; the given forms (src/echo/given-text.ts) see through
 * line-number gutters.
 */
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { createMarkupMatcher, normalizeForEcho, occursIn } from "../../src/echo/linear-search.ts";
import { givenForms, stripLinePrefixes } from "../../src/echo/given-text.ts";
import { D } from "../golden/notation.ts";
import { countWorkAsync as countWork } from "../support/work.ts";

const params = { seed: 20240611, numRuns: 500 };

/** The oracle: the same normalization and floor with a plain substring search and no gutters. */
const naiveGuard = (given: readonly string[]) => (markup: string) => {
  const needle = normalizeForEcho(markup);
  return needle.length >= 8 && given.map(normalizeForEcho).join("\u0000").includes(needle);
};
/** Few symbols, so substrings, periodic runs and near misses are common. */
const piece = fc.constantFrom("a", "b", "<", ">", " ", "\n", "\t", "  ", `<${D}invoke>`, "<shell>", "\u0000", "\uD83D\uDE00");
const text = fc.array(piece, { maxLength: 40 }).map((p) => p.join(""));

describe("agreement with a naive oracle", () => {
  test("same decision for any given content and markup, including reflowed quotes of it", () => {
    const markup = fc.oneof(
      text,
      fc.tuple(fc.array(text, { minLength: 1, maxLength: 3 }), fc.nat(), fc.nat(), fc.boolean()).map(([given, a, b, reflow]) => {
        const all = given.join("\n");
        const from = a % (all.length + 1);
        const quote = all.slice(from, from + (b % 60));
        return reflow ? quote.replaceAll(" ", "\n ") : quote;
      }),
    );
    fc.assert(
      fc.property(fc.array(text, { maxLength: 3 }), markup, (given, m) => {
        expect(createMarkupMatcher(() => given)(m)).toBe(naiveGuard(given)(m));
      }),
      params,
    );
  });

  test("occursIn is String.prototype.includes", () => {
    const ab = fc.array(fc.constantFrom("a", "b"), { maxLength: 30 }).map((p) => p.join(""));
    fc.assert(fc.property(ab, ab, (hay, needle) => expect(occursIn(hay, needle)).toBe(hay.includes(needle))), params);
    fc.assert(fc.property(text, text, (hay, needle) => expect(occursIn(hay, needle)).toBe(hay.includes(needle))), params);
  });

  test("given content is read once per request, and not at all for markup too short to judge", () => {
    let reads = 0;
    const guard = createMarkupMatcher(() => {
      reads++;
      return ["some given text <shell>ls -la</shell>"];
    });
    expect(guard("<a>")).toBe(false);
    expect(reads).toBe(0);
    expect(guard("<shell>ls -la</shell>")).toBe(true);
    expect(guard("<shell>rm -rf /</shell>")).toBe(false);
    expect(guard("<shell>ls -la</shell>")).toBe(true);
    expect(reads).toBe(1);
  });
});

describe("linear work (counted, not timed)", () => {
  /**
   * A periodic tool result and a reply that repeats it with one wrong character near the end:
   * every alignment matches for thousands of characters, so a search that restarts at each
   * alignment does O(given * markup) work. JavaScriptCore's includes() is such a search.
   */
  function periodic(n: number): { given: string; markup: string } {
    const unit = "<shell>";
    return { given: unit.repeat(n / unit.length), markup: `${unit.repeat(n / (4 * unit.length))}x</shell>` };
  }

  async function work(n: number, make: (n: number) => { given: string; markup: string }): Promise<number> {
    const { given, markup } = make(n);
    let found = true;
    const units = await countWork(() => {
      found = createMarkupMatcher(() => [given])(markup);
    });
    expect(found).toBe(false);
    return units;
  }

  const shapes: [string, (n: number) => { given: string; markup: string }][] = [
    ["periodic near-echo", periodic],
    ["one repeated character, mismatch in the middle", (n) => ({ given: "a".repeat(n), markup: `${"a".repeat(n / 8)}b${"a".repeat(n / 8)}` })],
    ["DSML openers, mismatch at the end", (n) => ({ given: `<${D}invoke name="bash">`.repeat(n / 24), markup: `${`<${D}invoke name="bash">`.repeat(n / 96)}<x` })],
  ];
  for (const [name, make] of shapes) {
    test(`${name}: 4x the input costs at most 4.5x the work, and at most 5 units per character`, async () => {
      const small = await work(40_000, make);
      const large = await work(160_000, make);
      expect(small).toBeGreaterThan(0);
      expect(large / small).toBeLessThanOrEqual(4.5);
      const { given, markup } = make(160_000);
      expect(large).toBeLessThanOrEqual(5 * (given.length + markup.length));
    });
  }

  test("the counter sees a restarting search grow quadratically (so the bound above can fail)", async () => {
    const naive = (hay: string, needle: string) => {
      for (let i = 0; i + needle.length <= hay.length; i++) {
        let k = 0;
        while (k < needle.length && hay.charCodeAt(i + k) === needle.charCodeAt(k)) k++;
        if (k === needle.length) return true;
      }
      return false;
    };
    const cost = async (n: number) => {
      const { given, markup } = periodic(n);
      return countWork(() => naive(given, markup));
    };
    expect((await cost(16_000)) / (await cost(4_000))).toBeGreaterThan(12);
  });
});

describe("line-number gutters", () => {
  test("OpenCode read, cat -n, grep and older OpenCode gutters are removed; other text is kept", () => {
    expect(stripLinePrefixes("1: <a>\n2:   <b>\n10: </a>")).toBe("<a>\n  <b>\n</a>");
    expect(stripLinePrefixes("     1\t<a>\n     2\t</a>\n")).toBe("<a>\n</a>\n");
    expect(stripLinePrefixes("Found 2 matches\n/p/x.md:\n  Line 3: <a>\n  Line 4: </a>")).toBe("Found 2 matches\n/p/x.md:\n<a>\n</a>");
    expect(stripLinePrefixes("00001| <a>\n00002| </a>")).toBe("<a>\n</a>");
    const plain = "no numbers here\n12 apples\nratio 3:4\n";
    expect(stripLinePrefixes(plain)).toBe(plain);
  });

  test("numbered tool output still counts as given content", () => {
    const quoted = `<${D}invoke name="bash">\n<${D}parameter name="command">ls</${D}parameter>\n</${D}invoke>`;
    const numbered = quoted.split("\n").map((line, i) => `${i + 1}: ${line}`).join("\n");
    expect(naiveGuard([numbered])(quoted)).toBe(false);
    expect(createMarkupMatcher(() => givenForms(numbered))(quoted)).toBe(true);
  });
});
