import { describe, expect, test } from "bun:test";
import { ChunkShape } from "../../src/adapters/chunk-shape.ts";
import { SseFramer, SseReader, serialize } from "../../src/adapters/sse.ts";

const enc = new TextEncoder();
const dec = new TextDecoder();

/** Every event the framer reports, as text, for the given cut of the bytes. */
function frame(parts: string[]): { events: string[]; tail: string | undefined } {
  const framer = new SseFramer();
  const events: string[] = [];
  for (const part of parts) {
    const chunk = enc.encode(part);
    const { head, ends } = framer.push(chunk);
    let at = 0;
    ends.forEach((end, k) => {
      events.push(dec.decode(k === 0 && head ? head : chunk.subarray(at, end)));
      at = end;
    });
  }
  const tail = framer.end();
  return { events, tail: tail && dec.decode(tail) };
}

describe("SseFramer", () => {
  const body = "data: a\n\n: comment\r\ndata: b\r\n\r\nid: 7\ndata: c\n\ndata: tail";

  test("events end at a blank line, LF or CRLF, wherever the bytes are cut", () => {
    const expected = { events: ["data: a\n\n", ": comment\r\ndata: b\r\n\r\n", "id: 7\ndata: c\n\n"], tail: "data: tail" };
    expect(frame([body])).toEqual(expected);
    expect(frame([...body])).toEqual(expected);
    for (let at = 1; at < body.length; at++) expect(frame([body.slice(0, at), body.slice(at)])).toEqual(expected);
  });

  test("a lone CR is not a line end, and a CR before the LF of a non-empty line is no blank line", () => {
    expect(frame(["data: x\r\rdata: y\n\n"]).events).toEqual(["data: x\r\rdata: y\n\n"]);
    expect(frame(["data: x\n", "\r", "z\n", "\n"]).events).toEqual(["data: x\n\rz\n\n"]);
  });

  test("an event inside one chunk is reported by offset; only one spanning chunks is copied", () => {
    const framer = new SseFramer();
    const first = enc.encode("data: a\n\ndata: b");
    expect(framer.push(first)).toEqual({ head: undefined, ends: [9] });
    const second = enc.encode("\n\ndata: c\n\n");
    const { head, ends } = framer.push(second);
    expect(dec.decode(head)).toBe("data: b\n\n");
    expect(ends).toEqual([2, 11]);
    expect(framer.end()).toBeUndefined();
  });
});

describe("SseReader", () => {
  function read(text: string, from = 0) {
    const reader = new SseReader();
    reader.read(text, from);
    return { data: reader.data, meta: reader.meta, eol: reader.eol, end: reader.end };
  }

  test("a single data line, with or without the space, LF or CRLF", () => {
    expect(read('data: {"a":1}\n\nnext')).toEqual({ data: '{"a":1}', meta: [], eol: "\n", end: 15 });
    expect(read("data:x\r\n\r\n")).toEqual({ data: "x", meta: [], eol: "\r\n", end: 10 });
    expect(read("xx data: y\n\n", 3)).toEqual({ data: "y", meta: [], eol: "\n", end: 12 });
    expect(read("data: \n\n")).toEqual({ data: "", meta: [], eol: "\n", end: 8 });
  });

  test("several data lines join with LF; other lines are meta; the first line decides the EOL", () => {
    expect(read("id: 1\r\ndata: a\ndata:b\n: note\n\nrest")).toEqual({ data: "a\nb", meta: ["id: 1", ": note"], eol: "\r\n", end: 30 });
    expect(read(": only a comment\n\n")).toEqual({ data: undefined, meta: [": only a comment"], eol: "\n", end: 18 });
    expect(read("\n")).toEqual({ data: undefined, meta: [], eol: "\n", end: 1 });
  });

  test("an unterminated tail is read to its end and keeps a trailing CR", () => {
    expect(read("event: x\ndata: tail\r")).toEqual({ data: "tail\r", meta: ["event: x"], eol: "\n", end: 20 });
  });

  test("the reader forgets the previous event's meta", () => {
    const reader = new SseReader();
    reader.read("id: 1\ndata: a\n\ndata: b\n\n", 0);
    expect(reader.meta).toEqual(["id: 1"]);
    reader.read("id: 1\ndata: a\n\ndata: b\n\n", reader.end);
    expect([reader.data, reader.meta]).toEqual(["b", []]);
  });

  test("serialize puts meta lines first and ends with a blank line", () => {
    expect(serialize('{"a":1}', "\r\n", ["id: 1"])).toBe('id: 1\r\ndata: {"a":1}\r\n\r\n');
    expect(serialize("x", "\n")).toBe("data: x\n\n");
  });
});

describe("ChunkShape", () => {
  const chunk = (content: string, id = "c1") => ({ id, object: "chat.completion.chunk", choices: [{ index: 0, delta: { content }, finish_reason: null }] });

  function learned(payload: string): ChunkShape {
    const shape = new ChunkShape();
    const parsed = JSON.parse(payload);
    shape.learn(payload, parsed, parsed.choices[0].delta.content);
    return shape;
  }

  test("after one content chunk, the next ones give their content without a full parse", () => {
    const shape = learned(JSON.stringify(chunk("first")));
    expect(shape.source).toEqual(chunk("first"));
    expect(shape.match(JSON.stringify(chunk("second")))).toBe("second");
    expect(shape.match(JSON.stringify(chunk("")))).toBe("");
    expect(shape.match(JSON.stringify(chunk('q"uo\\te\n\u00e9')))).toBe('q"uo\\te\n\u00e9');
    expect(shape.match(JSON.stringify(chunk("caf\u00e9")).replace("\u00e9", "\\u00e9"))).toBe("caf\u00e9");
  });

  test("anything but one valid string between the prefix and the suffix is no match", () => {
    const shape = learned(JSON.stringify(chunk("first")));
    const disguised = JSON.stringify(chunk("MARK")).replace('"MARK"', '"x","tool_calls":[],"pad":""');
    expect(shape.match(disguised)).toBeUndefined();
    expect(shape.match(JSON.stringify(chunk("x", "c2")))).toBeUndefined();
    expect(shape.match(JSON.stringify(chunk("x")).replace('"x"', '"bad\\q"'))).toBeUndefined();
    expect(shape.match(JSON.stringify(chunk("x")).replace('"x"', '"raw\nline"'))).toBeUndefined();
    expect(shape.match(JSON.stringify(chunk("x")).replace('"x"', '"ends in\\"'))).toBeUndefined();
  });

  test("a content string that first appears elsewhere in the chunk teaches nothing", () => {
    // The literal "same" occurs in the id before the content: cutting there would read ids as content.
    const shape = learned(JSON.stringify(chunk("same", "same")));
    expect(shape.source).toBeUndefined();
    expect(shape.match(JSON.stringify(chunk("same", "other")))).toBeUndefined();
  });

  test("with a duplicate content key only the one JSON.parse keeps is the slot", () => {
    const twice = (a: string, b: string) => `{"choices":[{"index":0,"delta":{"content":"${a}","content":"${b}"}}]}`;
    const last = new ChunkShape();
    last.learn(twice("a", "b"), JSON.parse(twice("a", "b")), "b");
    expect(last.match(twice("a", "c"))).toBe("c");
    // Here the literal is first found in the key JSON.parse overrides.
    const first = new ChunkShape();
    first.learn(twice("a", "a"), JSON.parse(twice("a", "a")), "a");
    expect(first.source).toBeUndefined();
    expect(first.match(twice("z", "a"))).toBeUndefined();
  });
});
