/**
 * Plain markup inside a DSML value (issue 11 item 7): the lookahead for the value's sentinel closer
 * reads each tag a bounded number of times. It walks tag objects, which the text-work counter in
 * test/support/work.ts cannot see, so here the reads of the tag list are counted instead.
 */
import { describe, expect, test } from "bun:test";
import { plainMarkupValueEnds } from "../../src/parse/dialects/dsml/value-ends.ts";
import { tagsOf } from "../../src/parse/segments.ts";
import type { Tag } from "../../src/grammar/tags.ts";
import { D, live } from "../golden/notation.ts";
import { fixtureTools } from "../golden/tools.ts";
import { runAtEverySplit } from "../support/run-engine.ts";

/** The tag list behind a proxy that counts element reads. */
function countedTags(tags: Tag[]): { list: Tag[]; reads: () => number } {
  let reads = 0;
  const list = new Proxy(tags, {
    get(target, key, receiver) {
      if (typeof key === "string" && /^\d+$/.test(key)) reads++;
      return Reflect.get(target, key, receiver);
    },
  });
  return { list, reads: () => reads };
}

const readsFor = (text: string) => {
  const counted = countedTags(tagsOf(text));
  plainMarkupValueEnds(text, counted.list);
  return counted.reads();
};

const head = `<${D}tool_calls>\n<${D}invoke name="write">\n`;
const shapes: [string, (n: number) => string][] = [
  ["values of plain markup, each closed", (n) => head + `<${D}parameter name="content" string="true"><a><parameter name="x">1</parameter></a></${D}parameter>\n`.repeat(n)],
  ["one value of plain markup that never closes", (n) => `${head}<${D}parameter name="content" string="true">${'<parameter name="x">1</parameter>\n'.repeat(n)}`],
  ["sentinel openers between plain closers, never closed", (n) => head + `<${D}parameter name="c" string="true"></parameter><parameter name="x"></parameter>`.repeat(n)],
  ["sentinel openers with plain markup, one closer at the very end", (n) => `${head}${`<${D}parameter name="c" string="true"><p>`.repeat(n)}</${D}parameter>`],
];

describe("the closer lookahead reads each tag a bounded number of times", () => {
  for (const [name, make] of shapes) {
    test(name, () => {
      const small = readsFor(make(2000));
      const large = readsFor(make(8000));
      expect(small).toBeGreaterThan(0);
      expect(large / small).toBeLessThanOrEqual(4.5);
    });
  }
});

/** The value ends the lookahead found, as [opener index, closer index]. */
const ends = (notation: string) => {
  const text = live(notation);
  return [...plainMarkupValueEnds(text, tagsOf(text)).entries()];
};

describe("which values end at their sentinel closer", () => {
  test("plain tags followed by the value's sentinel closer", () => {
    expect(ends(`<{D}parameter name="c"><r><parameter name="a">1</parameter></r></{D}parameter>`)).toEqual([[0, 3]]);
  });
  test("no plain tags: nothing to decide", () => {
    expect(ends(`<{D}parameter name="c">1</{D}parameter>`)).toEqual([]);
  });
  test("another sentinel tag first: the plain closer ends the value", () => {
    expect(ends(`<{D}parameter name="a">1</parameter><{D}parameter name="b">2</{D}parameter>`)).toEqual([]);
  });
  test("an unmatched plain closer, then a plain opener: the next parameter was written plain", () => {
    expect(ends(`<{D}parameter name="a">1</parameter><parameter name="b">2</{D}parameter>`)).toEqual([]);
  });
  test("an unmatched plain closer alone is content", () => {
    expect(ends(`<{D}parameter name="a">echo '</parameter>'</{D}parameter>`)).toEqual([[0, 2]]);
  });
});

describe("a self-closing sentinel parameter opens no value", () => {
  // Its value sat in an attribute: the plain tags after it are parameters of the call, never the
  // text of a value, whatever sentinel closer follows them (the stream reads them so too).
  test("nothing to decide after it", () => {
    expect(ends(`<{D}parameter name="c" value="ls"/><parameter name="t" value="600"/></{D}parameter>`)).toEqual([]);
  });

  test("the plain parameters after it are read, never dropped from the call that runs", () => {
    const call = (params: string) => {
      const r = runAtEverySplit(live(`<{D}tool_calls>\n<{D}invoke name="bash">\n<{D}parameter name="command" value="ls"/>\n${params}\n</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`), fixtureTools);
      return r.calls.map((c) => c.input);
    };
    expect(call(`<parameter name="timeout" value="600"/>`)).toEqual([{ command: "ls", timeout: 600 }]);
    expect(call(`<parameter name="timeout">600</parameter>`)).toEqual([{ command: "ls", timeout: 600 }]);
    // Diff review 56a: a value that may hold text (workdir, a string) its plain closer ended, then
    // the sentinel closer: either closer may be the value's own (`</parameter>` its text), so the
    // call is refused, never run with one reading; a number (timeout above) holds no text and runs.
    expect(call(`<parameter name="workdir"></parameter>`)).toEqual([]);
  });
});
