// Offsets into a reply's text (url_citation start_index/end_index) after the repair removed
// markup from it: kept where the words provably still stand, moved back by what was removed
// before them, dropped when their words are gone, never re-pointed at the same words elsewhere.
import { describe, expect, test } from "bun:test";
import { movedAnnotations } from "../../src/wires/annotations.ts";

const CALL = '<tool_call>{"name":"read","arguments":{"path":"a.ts"}}</tool_call>';
const flat = (was: string, words: string, from = 0) => {
  const start = was.indexOf(words, from);
  return { type: "url_citation", start_index: start, end_index: start + words.length, url: "https://x.test" };
};
const nested = (was: string, words: string, from = 0) => {
  const start = was.indexOf(words, from);
  return { type: "url_citation", url_citation: { start_index: start, end_index: start + words.length, url: "https://x.test" } };
};
const cited = (now: string, a: { start_index: number; end_index: number }) => now.slice(a.start_index, a.end_index);

describe("movedAnnotations", () => {
  test("words before the removed markup keep their offsets", () => {
    const was = `See the docs. ${CALL}`;
    expect(movedAnnotations([flat(was, "the docs")], was, "See the docs. ")).toEqual([flat(was, "the docs")]);
  });

  test("words after the removed markup move back by its length", () => {
    const was = `Intro ${CALL} then the docs.`;
    const now = "Intro  then the docs.";
    const [moved] = movedAnnotations([flat(was, "the docs")], was, now) as { start_index: number; end_index: number }[];
    expect(cited(now, moved!)).toBe("the docs");
    expect(moved!.start_index).toBe(now.indexOf("the docs"));
  });

  test("words between two removed calls move onto themselves", () => {
    const was = `A ${CALL} mid words ${CALL} end`;
    const now = "A  mid words  end";
    const [moved] = movedAnnotations([flat(was, "mid words")], was, now) as { start_index: number; end_index: number }[];
    expect(cited(now, moved!)).toBe("mid words");
  });

  test("words inside the markup, or in stripped prose after it, are dropped, even when the same words stand earlier", () => {
    const was = `See the docs. ${CALL}\nPer the docs, a.ts says hi.`;
    const now = "See the docs. ";
    expect(movedAnnotations([flat(was, "the docs", 20), flat(was, "a.ts")], was, now)).toEqual([]);
  });

  test("the chat shape (offsets under url_citation) moves and drops the same way", () => {
    const was = `Per the docs ${CALL} and the spec.`;
    const now = "Per the docs  and the spec.";
    const out = movedAnnotations([nested(was, "the docs"), nested(was, "the spec"), nested(was, "a.ts")], was, now) as { url_citation: { start_index: number; end_index: number } }[];
    expect(out.map((a) => cited(now, a.url_citation))).toEqual(["the docs", "the spec"]);
  });

  test("an annotation without offsets, or with offsets past the old text, stays as it is", () => {
    const was = `x ${CALL}`;
    const odd = [{ type: "file_citation", file_id: "f" }, { type: "url_citation", start_index: 0, end_index: 999 }];
    expect(movedAnnotations(odd, was, "x ")).toEqual(odd);
  });
});
