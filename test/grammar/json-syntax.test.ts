/**
 * The streaming JSON checker behind the Hermes `<tool_call>` gate (src/grammar/json-syntax.ts):
 * it must never refuse JSON that JSON.parse accepts (or a real call would be lost), and it must
 * refuse prose at its first wrong character (or a mention would be held).
 */
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { JsonSyntax, type JsonStep } from "../../src/grammar/json-syntax.ts";

/** Each character's step, stopping at the first non-"ok". */
function steps(text: string): { last: JsonStep; at: number } {
  const json = new JsonSyntax();
  for (let i = 0; i < text.length; i++) {
    const r = json.step(text.charCodeAt(i));
    if (r !== "ok") return { last: r, at: i };
  }
  return { last: "ok", at: text.length };
}

describe("JsonSyntax", () => {
  test("every object or array JSON.stringify writes, compact or indented, is accepted and ends at its last character", () => {
    const container = fc.oneof(fc.dictionary(fc.string(), fc.jsonValue()), fc.array(fc.jsonValue()));
    fc.assert(
      fc.property(container, fc.constantFrom(undefined, 2, "\t"), (value, indent) => {
        const text = JSON.stringify(value, null, indent);
        expect(steps(text)).toEqual({ last: "done", at: text.length - 1 });
      }),
      { seed: 20240611, numRuns: 500 },
    );
  });

  test("prose after an opening brace is refused at its first wrong character", () => {
    const cases: [string, number][] = [
      ['{"name": ...}', 9],
      ["{ prose", 2],
      ['{"name": <function-name>, "arguments": <args-json-object>}', 9],
      ['{"a": tru}', 9],
      ['{"a": "x\ny"}', 8],
      ['{"a" 1}', 5],
      ['{"a": 1,}', 8],
      ["[1 2]", 3],
      ['{"a": "\\q"}', 8],
    ];
    for (const [text, at] of cases) expect({ text, ...steps(text) }).toEqual({ text, last: "bad", at });
  });

  test("a complete string or number alone is not a call body", () => {
    expect(steps('"name"').last).toBe("bad");
    expect(steps("12").last).toBe("bad");
  });
});
