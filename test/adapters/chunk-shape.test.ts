import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { ChunkShape, sameBytes, stringBody } from "../../src/wires/chat/chunk-shape.ts";
import { singleDataPayloadOf } from "../../src/sse/framing.ts";
import { isPassableCode } from "../../src/engine/engine.ts";

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

describe("ChunkShape.matchEvent", () => {
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
  const extras = fc.constantFrom<Record<string, unknown>>({}, { logprobs: null }, { logprobs: { content: [] } }, { note: "a\nb" });
  const piece = fc.oneof(body, fc.constantFrom("\r", "\n", "\r\n", "\ufeff", '"', "data: ", "\n\ndata: {}"));
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

  // About one case in twenty matches (234 of 5,000 with this seed); the rest must be refused alike.
  test("differential: the content match() reads from the event's single-line payload, or undefined where that is none", () => {
    fc.assert(
      fc.property(extras, fc.boolean(), event, (extra, lineBreak, e) => {
        const { shape, prefix, suffix } = learned(extra, lineBreak);
        const text = eventText(e, prefix, suffix, e.content);
        if (!text.endsWith("\n\n")) return;
        const payload = singleDataPayloadOf(text);
        const expected = payload === undefined ? undefined : shape.match(payload);
        expect(shape.matchEvent(text)).toBe(expected);
      }),
      { seed: 1414, numRuns: 5000 },
    );
  });

  // Bytes: the same events, encoded (lone surrogates become U+FFFD, as a server's UTF-8 would).
  test("differential: plainEventLength(bytes) is the length of what matchEvent() reads from the decoded text, for plain content only, else -1", () => {
    let plainHits = 0;
    fc.assert(
      fc.property(extras, fc.boolean(), event, fc.constantFrom("", "abc", "a<b", "x|y", "[1]", "`q`", "\u00e9", "tab\there", "caf\u00e9"), (extra, lineBreak, e, plainish) => {
        const { shape, prefix, suffix } = learned(extra, lineBreak);
        for (const content of [e.content, plainish]) {
          const bytes = new TextEncoder().encode(eventText(e, prefix, suffix, content));
          const text = new TextDecoder().decode(bytes);
          const read = text.endsWith("\n\n") ? shape.matchEvent(text) : undefined;
          const passable = read !== undefined && read.length > 0 && [...read].every((ch) => ch.charCodeAt(0) < 0x80 && isPassableCode(ch.charCodeAt(0)));
          // Plain means the body is the content as it is: ASCII, nothing escaped, nothing the engine stops at.
          const raw = text.slice((e.space ? 6 : 5) + prefix.length, text.length - 2 - suffix.length);
          const expected = passable && raw === read ? read.length : -1;
          expect(shape.plainEventLength(bytes)).toBe(expected);
          if (expected > 0) plainHits++;
        }
      }),
      { seed: 1414, numRuns: 5000 },
    );
    expect(plainHits).toBeGreaterThan(100);
  });

  test("differential: asciiEventContent(bytes) is what matchEvent() reads from the decoded text when the content's bytes are ASCII, else undefined", () => {
    let asciiHits = 0;
    fc.assert(
      fc.property(extras, fc.boolean(), event, fc.constantFrom("", "a<b", 'say \\"hi\\"', "x\\ny", "\\u00e9", "\u00e9", "caf\u00e9<", "`q`"), (extra, lineBreak, e, asciiish) => {
        const { shape, prefix, suffix } = learned(extra, lineBreak);
        for (const content of [e.content, asciiish]) {
          const bytes = new TextEncoder().encode(eventText(e, prefix, suffix, content));
          const text = new TextDecoder().decode(bytes);
          const read = text.endsWith("\n\n") ? shape.matchEvent(text) : undefined;
          const raw = text.slice((e.space ? 6 : 5) + prefix.length, text.length - 2 - suffix.length);
          const expected = read !== undefined && /^[\x00-\x7f]*$/.test(raw) ? read : undefined;
          expect(shape.asciiEventContent(bytes)).toBe(expected);
          if (expected !== undefined && expected !== raw) asciiHits++;
        }
      }),
      { seed: 1414, numRuns: 5000 },
    );
    // Escaped content read from bytes, not only plain content.
    expect(asciiHits).toBeGreaterThan(100);
  });

  test("a shape with a non-ASCII envelope is matched on its text only, never on its bytes", () => {
    const shape = new ChunkShape();
    const payload = JSON.stringify({ id: "c1", model: "mod\u00e8le", choices: [{ index: 0, delta: { content: "x" } }] });
    shape.learn(payload, JSON.parse(payload), "x");
    const event = `data: ${payload.replace('"x"', '"hello"')}\n\n`;
    expect(shape.matchEvent(event)).toBe("hello");
    expect(shape.plainEventLength(new TextEncoder().encode(event))).toBe(-1);
    expect(shape.asciiEventContent(new TextEncoder().encode(event))).toBeUndefined();
    const ascii = new ChunkShape();
    const plainPayload = payload.replace("mod\u00e8le", "model");
    ascii.learn(plainPayload, JSON.parse(plainPayload), "x");
    expect(ascii.plainEventLength(new TextEncoder().encode(`data: ${plainPayload.replace('"x"', '"hello"')}\n\n`))).toBe(5);
  });

  test("a shape written over two lines never matches an event by its text", () => {
    const { shape, prefix, suffix } = learned({}, true);
    const payload = `${prefix}hello${suffix}`;
    expect(shape.match(payload)).toBe("hello");
    expect(shape.matchEvent(`data: ${payload}\n\n`)).toBeUndefined();
  });
});

describe("sameBytes", () => {
  test("the native compare and the loop used where there is none agree with a byte-by-byte reading, at every position", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 40 }), fc.uint8Array({ maxLength: 8 }), fc.nat(), fc.boolean(), (bytes, ref, at, copy) => {
        if (ref.length > bytes.length) return;
        const start = at % (bytes.length - ref.length + 1);
        // Half the time the reference is the very bytes there, so matches are tested as often as mismatches.
        const wanted = copy ? bytes.slice(start, start + ref.length) : ref;
        const expected = wanted.every((b, i) => bytes[start + i] === b);
        expect(sameBytes(bytes, start, wanted)).toBe(expected);
        expect(sameBytes(bytes, start, wanted, undefined)).toBe(expected);
      }),
      { seed: 1414, numRuns: 3000 },
    );
  });
});
