// readTag's quick rejections (the first two letters after a `<`, the bracket tokens) must never
// turn away a tag we know, whole or cut anywhere, and must turn away ordinary code early.
import { describe, expect, test } from "bun:test";
import { NEED_MORE, type ReadResult, readTag } from "../../src/grammar/tags.ts";

const KNOWN: [tag: string, family: string, name: string][] = [
  ['<invoke name="x">', "naked", "invoke"],
  ['< invoke name="x">', "naked", "invoke"],
  ['<INVOKE name="x">', "naked", "invoke"],
  ["</invoke>", "naked", "invoke"],
  ['<parameter name="a">', "naked", "parameter"],
  ["<function=bash>", "naked", "function"],
  ["<function_calls>", "naked", "function_calls"],
  ["<tool_calls>", "naked", "tool_calls"],
  ["<minimax:tool_call>", "naked", "minimax:tool_call"],
  ["<name>", "naked", "name"],
  ["<tool_call>", "costume", "tool_call"],
  ["<tool_name>", "costume", "tool_name"],
  ["<tool_args>", "costume", "tool_args"],
  ["<shell>", "costume", "shell"],
  ["<sh>", "costume", "sh"],
  ["<bash>", "costume", "bash"],
  ["<python>", "costume", "python"],
  ["<py>", "costume", "py"],
  ["<pre>", "costume", "pre"],
  ["<code>", "costume", "code"],
  ["<code_interpreter>", "costume", "code_interpreter"],
  ["<language>", "costume", "language"],
  ["<arg_key>", "costume", "arg_key"],
  ["<arg_value>", "costume", "arg_value"],
  ["<execute_bash>", "costume", "execute_bash"],
  ["[TOOL_CALLS]", "mistral", "tool_calls"],
  ["[ARGS]", "mistral", "args"],
];

const shape = (r: ReadResult) => (r === null || r === NEED_MORE ? r : `${r.family} ${r.name} ${r.end}`);

describe("readTag", () => {
  test.each(KNOWN)("%s is read whole, and every cut of it waits for more", (tag, family, name) => {
    expect(shape(readTag(tag, 0, true))).toBe(`${family} ${name} ${tag.length}`);
    expect(shape(readTag(`x ${tag} y`, 2, false))).toBe(`${family} ${name} ${tag.length + 2}`);
    for (let n = 1; n < tag.length; n++) expect([n, readTag(tag.slice(0, n), 0, false)]).toEqual([n, NEED_MORE]);
  });

  test.each(["[TOOL_CALLS]", "[ARGS]"])("%s with any one character wrong is no tag, decided at that character", (token) => {
    for (let k = 1; k < token.length; k++) {
      const wrong = `${token.slice(0, k)}x`;
      expect([wrong, readTag(wrong, 0, false)]).toEqual([wrong, null]);
      expect([wrong, readTag(token.slice(0, k), 0, true)]).toEqual([wrong, null]);
    }
  });

  test.each(["<div>", "<string>", "< items", "<T>", "<Record<", "< 0", "<= n", "<< 2", "[i]", "[...list]", "[T"])(
    "ordinary code %s is no tag once its first letters rule every name out",
    (text) => {
      expect(readTag(text, 0, false)).toBe(text === "[T" ? NEED_MORE : null);
      expect(readTag(text, 0, true)).toBeNull();
    },
  );
});
