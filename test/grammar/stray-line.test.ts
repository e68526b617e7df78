import { describe, expect, test } from "bun:test";
import { createRepairEngine } from "../../src/engine/engine.ts";
import { readStrayLine } from "../../src/grammar/stray-line.ts";
import { NEED_MORE } from "../../src/grammar/tags.ts";
import { fixtureTools } from "../golden/tools.ts";

/** Issue 29 item 7: the stray wrapper line before a bare invoke, and what holding it costs prose. */
describe("readStrayLine", () => {
  test("a stray word alone on its line points at the next line's `<`", () => {
    expect(readStrayLine('call\n<invoke name="x">', 0, true)).toBe(5);
    expect(readStrayLine("count  \r\n   <invoke", 0, true)).toBe(12);
    expect(readStrayLine("calls\n<", 0, false)).toBe(6);
  });

  test.each(["call me\n<invoke", "callback\n<invoke", "cat\n<invoke", "call\n\n<invoke", "call\n    <invoke", "call\nx<invoke", "Call\n<invoke"])(
    "%j is no stray line",
    (text) => {
      expect(readStrayLine(text, 0, false)).toBeNull();
      expect(readStrayLine(text, 0, true)).toBeNull();
    },
  );

  test("undecided only while the text ends inside what could still be one", () => {
    for (const text of ["c", "ca", "cal", "call", "cou", "count ", "call\r", "call\n", "call\n  "]) {
      expect([text, readStrayLine(text, 0, false)]).toEqual([text, NEED_MORE]);
      expect([text, readStrayLine(text, 0, true)]).toEqual([text, null]);
    }
    expect(readStrayLine("cx", 0, false)).toBeNull();
  });
});

describe("holding a paragraph-start word", () => {
  const feedByChar = (text: string) => {
    const engine = createRepairEngine({ tools: fixtureTools, idPrefix: "t" });
    let out = "";
    const held: number[] = [];
    for (const c of text) {
      for (const e of engine.feed(c)) if (e.type === "text") out += e.text;
      held.push(engine.held);
    }
    for (const e of engine.flush()) if (e.type === "text") out += e.text;
    return { out, held };
  };

  test.each(["call me when it is done.\n", "counting is hard\n", "calls\nare cheap\n", "Done.\n\ncount\nthe files\n"])(
    "%j is released as it was written, holding at most the word, its line end and the next line's first character",
    (text) => {
      const { out, held } = feedByChar(text);
      expect(out).toBe(text);
      expect(Math.max(...held)).toBeLessThanOrEqual(7);
      expect(held[held.length - 1]).toBe(0);
    },
  );

  test("a word that continues a paragraph, or starts mid-line, is never held", () => {
    for (const text of ["I will\ncall\nyou", "please call\nnow", "We count on it."]) expect(Math.max(...feedByChar(text).held)).toBe(0);
  });
});
