import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { ChunkShape, asciiText, sameBytes, stringBody } from "../../src/wires/chat/chunk-shape.ts";

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
  const payloadOf = (content: string, extra: Record<string, unknown>) =>
    JSON.stringify({ ...envelope, choices: [{ index: 0, delta: { content }, ...extra, finish_reason: null }] });
  /** A shape learned from a chunk carrying `extra` in its choice, and optionally written over two lines. */
  function learned(extra: Record<string, unknown>, lineBreak: boolean): { shape: ChunkShape; prefix: string; suffix: string } {
    const shape = new ChunkShape();
    let payload = payloadOf("x", extra);
    if (lineBreak) payload = payload.replace(`"model":`, `"model":\n`);
    shape.learn(payload, JSON.parse(payload), "x");
    const at = payload.indexOf('"x"');
    return { shape, prefix: payload.slice(0, at + 1), suffix: payload.slice(at + 2) };
  }
  const extras = fc.constantFrom<Record<string, unknown>>({}, { logprobs: null }, { logprobs: { content: [] } }, { note: "a\nb" }, { model: "mod\u00e8le" });
  const piece = fc.oneof(body, fc.constantFrom("\r", "\n", "\r\n", "\ufeff", '"', "data: ", "\n\ndata: {}", "a<b", "plain words", 'say \\"hi\\"'));
  const event = fc.record({
    space: fc.boolean(),
    head: fc.oneof(fc.constant("keep"), fc.constant("drop"), fc.string({ maxLength: 3 })),
    content: piece,
    tail: fc.oneof(fc.constant("keep"), fc.constant("cut"), fc.string({ maxLength: 3 })),
    end: fc.constantFrom("\n\n", "\n\n", "\r\n\r\n", "\n"),
  });

  /** The case's event around `content`: the learned prefix and suffix kept, cut or padded as the case says. */
  function eventText(e: { space: boolean; head: string; tail: string; end: string }, prefix: string, suffix: string, content: string): string {
    const head = e.head === "keep" ? prefix : e.head === "drop" ? prefix.slice(1) : prefix + e.head;
    const tail = e.tail === "keep" ? suffix : e.tail === "cut" ? suffix.slice(0, -1) : e.tail + suffix;
    return `data:${e.space ? " " : ""}${head}${content}${tail}${e.end}`;
  }

  // Bytes: the events encoded (lone surrogates become U+FFFD, as a server's UTF-8 would).
  test("differential: matchBytes(bytes) is what match() reads from the payload of the one `data: ` line the bytes decode to, whenever their content is ASCII; else undefined", () => {
    let byBytes = 0;
    fc.assert(
      fc.property(extras, fc.boolean(), event, (extra, lineBreak, e) => {
        const { shape, prefix, suffix } = learned(extra, lineBreak);
        const bytes = new TextEncoder().encode(eventText(e, prefix, suffix, e.content));
        const text = new TextDecoder().decode(bytes);
        // The one `data: ` line the event must be, read the slow way.
        const oneLine = text.startsWith("data: ") && text.endsWith("\n\n") && text.indexOf("\n") === text.length - 2 && !text.includes("\r");
        const expected = oneLine ? shape.match(text.slice(6, -2)) : undefined;
        const got = shape.matchBytes(bytes);
        const ascii = [...text].every((ch) => ch.charCodeAt(0) < 0x80);
        expect(got).toBe(ascii ? expected : undefined);
        if (got !== undefined) byBytes++;
      }),
      { seed: 1414, numRuns: 5000 },
    );
    expect(byBytes).toBeGreaterThan(50);
  });

  test("a shape written over two lines matches its payloads, never an event's bytes", () => {
    const { shape, prefix, suffix } = learned({}, true);
    const payload = `${prefix}hello${suffix}`;
    expect(shape.match(payload)).toBe("hello");
    expect(shape.matchBytes(new TextEncoder().encode(`data: ${payload}\n\n`))).toBeUndefined();
  });
});

describe("asciiText", () => {
  test("the native Latin-1 slice and the loop used where there is none read ASCII bytes as their characters", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 40, max: 0x7f }), fc.nat(), fc.nat(), (bytes, a, b) => {
        const [start, end] = [a % (bytes.length + 1), b % (bytes.length + 1)].sort((x, y) => x - y) as [number, number];
        const expected = new TextDecoder().decode(bytes.slice(start, end));
        expect(asciiText(bytes, start, end)).toBe(expected);
        expect(asciiText(bytes, start, end, null)).toBe(expected);
      }),
      { seed: 1414, numRuns: 3000 },
    );
  });
});

describe("sameBytes", () => {
  test("agrees with a byte-by-byte reading, at every position", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 40 }), fc.uint8Array({ maxLength: 8 }), fc.nat(), fc.boolean(), (bytes, ref, at, copy) => {
        if (ref.length > bytes.length) return;
        const start = at % (bytes.length - ref.length + 1);
        // Half the time the reference is the very bytes there, so matches are tested as often as mismatches.
        const wanted = copy ? bytes.slice(start, start + ref.length) : ref;
        const expected = wanted.every((b, i) => bytes[start + i] === b);
        // The runtime's native compare, and the plain loop kept for runtimes without Buffer.
        expect(sameBytes(bytes, start, wanted)).toBe(expected);
        expect(sameBytes(bytes, start, wanted, null)).toBe(expected);
      }),
      { seed: 1414, numRuns: 3000 },
    );
  });
});
