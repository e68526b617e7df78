/**
 * quotedTagAt (src/engine/quoted-tags.ts): the tags a call quoted in documentation is followed by.
 * Its first check turns down the `<` of ordinary code by the character after it; these pin that
 * the check lets through every spelling the tag reader must still see (each name's first letter,
 * a closer's `/`, spaces before a sentinel, every bar), and turns down the rest. Review 50 added
 * the Qwen3-Coder, GLM and plain-element tags (quoted-dialects.ts), read where that check turns one down.
 */
import { describe, expect, test } from "bun:test";
import { quotedTagAt } from "../../src/engine/quoted-tags.ts";
import { NEED_MORE } from "../../src/grammar/tags.ts";
import { BAR, DVL, live } from "../golden/notation.ts";

const at0 = (s: string, quoting: boolean, final = true) => quotedTagAt(s, 0, final, quoting);
const name = (s: string, quoting: boolean) => {
  const r = at0(s, quoting);
  return r === null || r === NEED_MORE ? r : `${r.closing ? "/" : ""}${r.family}:${r.role}`;
};

describe("quotedTagAt: what may follow a quoted call's `<`", () => {
  test("before a call is quoted: only an opener (a DSML tag, spaced or not, any bar; a Claude-style invoke)", () => {
    expect(name(live('<{D}invoke name="write">'), false)).toBe("dsml:invoke");
    expect(name(live('< {D}invoke name="write">'), false)).toBe("dsml:invoke");
    expect(name(live("<{D}tool_calls>"), false)).toBe("dsml:block");
    expect(name(`<${DVL}DSML${DVL}invoke name="write">`, false)).not.toBeNull();
    expect(name('<|DSML|invoke name="write">', false)).not.toBeNull();
    expect(name(`<${BAR}DSML${BAR}write>`, false)).toBe("dsml:other");
    expect(name('<invoke name="write">', false)).toBe("naked:invoke");
    // Closers and the other names matter only once a call is quoted.
    expect(name("</invoke>", false)).toBeNull();
    expect(name('<parameter name="a">', false)).toBeNull();
    expect(name("<tool_calls>", false)).toBeNull();
    expect(name("<function_calls>", false)).toBeNull();
  });

  test("once a call is quoted: closers and every Claude-style name", () => {
    expect(name("</invoke>", true)).toBe("/naked:invoke");
    expect(name('<parameter name="a">', true)).toBe("naked:parameter");
    expect(name("</parameter>", true)).toBe("/naked:parameter");
    expect(name("<tool_calls>", true)).toBe("naked:block");
    expect(name("</function_calls>", true)).toBe("/naked:block");
    expect(name(live("</{D}parameter>"), true)).toBe("/dsml:parameter");
    expect(name(live("</ {D}invoke>"), true)).toBe("/dsml:invoke");
  });

  test("ordinary code's `<` is no quoted tag, quoting or not", () => {
    for (const quoting of [false, true]) {
      for (const s of ["<=", "<<", "<input", "<Invoke>", "<Row<Item>>", "<!-- x -->", "<1", "<div class=\"a\">", "<p/>"]) {
        expect([s, quoting, at0(s, quoting)]).toEqual([s, quoting, null]);
      }
    }
    expect(at0("a < b", false)).toBeNull();
    expect(quotedTagAt("a < b", 2, true, false)).toBeNull();
  });

  // Review 50 (quoted-dialects.ts): an element tag with no attributes may be a quoted O09 call's
  // (`<write>`, its `<content>` child), and only the documentation context knows the declared tools,
  // so `<div>` is read as one and dropped there (test/hostile/review-50-docs-quoted-dialects.test.ts).
  test("a plain element tag is read as a quoted O09 call's may be; its closer only once a call is quoted", () => {
    for (const s of ["<div>", "<T>", "<span>", "<p>", "<write>", "<filePath>"]) expect([s, name(s, false), name(s, true)]).toEqual([s, "costume:other", "costume:other"]);
    expect([name("</div>", false), name("</div>", true)]).toEqual([null, "/costume:other"]);
  });

  test("Qwen3-Coder's and GLM's tags: the function, the wrapper, a value, a key read whole", () => {
    expect(name("<function=write>", false)).toBe("naked:function");
    expect(name("</function>", true)).toBe("/naked:function");
    expect(name("<tool_call>", true)).toBe("costume:other");
    // Before any call is quoted a wrapper opens nothing: not read, so a fenced `<tool_call>` goes out as it came.
    expect(at0("<tool_call>", false)).toBeNull();
    expect(name("</tool_call>", true)).toBe("/costume:other");
    expect(name("<arg_value>", true)).toBe("costume:other");
    const key = at0("<arg_key>content</arg_key>\n", false);
    expect(key !== null && key !== NEED_MORE ? [key.name, key.end] : key).toEqual(["content", 26]);
    // A key that is no one word on its line is no GLM key: not read.
    expect(at0("<arg_key>a b</arg_key>", false)).toBeNull();
    expect(at0("<arg_key>content", false, false)).toBe(NEED_MORE);
  });

  test("the text ends before it is known: more is needed, only where one could still follow", () => {
    for (const s of ["<", "< ", "<\t", "<i", "<invo", live("<{D}inv")]) expect([s, at0(s, false, false)]).toEqual([s, NEED_MORE]);
    for (const s of ["</", "<p", "<param", "<t", "<f", "</ "]) expect([s, at0(s, true, false)]).toEqual([s, NEED_MORE]);
    // Not quoting: a closer, `parameter` and the block names are turned down at once.
    for (const s of ["</", "</d"]) expect([s, at0(s, false, false)]).toEqual([s, null]);
    for (const s of ["<=", "<1", "< x"]) expect([s, at0(s, true, false)]).toEqual([s, null]);
    // An element's name may still follow (quoted-dialects.ts): `<p` may be `<path>`, `<f` `<function=`, `<t` `<tool_call>`.
    for (const s of ["<p", "<t", "<f", "<d", "<T", "<in_"]) expect([s, at0(s, false, false)]).toEqual([s, NEED_MORE]);
  });
});

describe("quotedTagAt with the declared tools: code's `<` in documentation is turned down at once", () => {
  const tools = new Map([["write", { name: "write", parameters: {} }]]) as unknown as ReadonlyMap<string, import("../../src/parse/types.ts").ToolSpec>;
  test("before any quote: only a declared tool's element, `<function=` or a GLM key may be begun", () => {
    for (const s of ["<T", "<di", "<tool_c", "<d"]) expect([s, quotedTagAt(s, 0, false, false, tools)]).toEqual([s, null]);
    for (const s of ["<w", "<wri", "<f", "<arg_k"]) expect([s, quotedTagAt(s, 0, false, false, tools)]).toEqual([s, NEED_MORE]);
    expect(quotedTagAt("<div>", 0, true, false, tools)).toBeNull();
    expect(quotedTagAt("<write>", 0, true, false, tools)).not.toBeNull();
  });
  test("inside a quote every element may be a value: begun names wait", () => {
    for (const s of ["<T", "<di", "<content"]) expect([s, quotedTagAt(s, 0, false, true, tools)]).toEqual([s, NEED_MORE]);
  });
});
