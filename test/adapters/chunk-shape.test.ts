import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { ChunkShape, stringBody } from "../../src/wires/chat/chunk-shape.ts";

/** What the shipped code did: the body parsed as a JSON string. */
function parsed(body: string): string | undefined {
  try {
    return JSON.parse(`"${body}"`) as string;
  } catch {
    return undefined;
  }
}

/** Bodies made of the characters that matter: escapes, quotes, controls, hex digits, surrogates. */
const body = fc
  .array(fc.oneof(fc.constantFrom("\\", '"', "u", "n", "t", "/", "b", "f", "r", "0", "a", "F", "9", "\n", "\u0001", "\u00e9", "\ud83d", "\ude00", " "), fc.string({ maxLength: 3 })), { maxLength: 24 })
  .map((parts) => parts.join(""));

describe("stringBody", () => {
  test("differential: what JSON.parse makes of the same JSON string body, or undefined where it throws", () => {
    fc.assert(
      fc.property(body, (b) => {
        expect(stringBody(b)).toBe(parsed(b));
      }),
      { seed: 1414, numRuns: 5000 },
    );
  });

  test("reads back every string JSON.stringify writes", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 40 }), (s) => {
        expect(stringBody(JSON.stringify(s).slice(1, -1))).toBe(s);
      }),
      { seed: 1414, numRuns: 5000 },
    );
  });
});

describe("ChunkShape.match", () => {
  const envelope = { id: "c1", object: "chat.completion.chunk", created: 1, model: "m" };

  test("a shape written over two lines matches its payloads", () => {
    const shape = new ChunkShape();
    const payload = JSON.stringify({ ...envelope, choices: [{ index: 0, delta: { content: "x" }, finish_reason: null }] }).replace(`"model":`, `"model":\n`);
    shape.learn(payload, JSON.parse(payload), "x");
    expect(shape.match(payload.replace('"x"', '"hello"'))).toBe("hello");
  });
});
