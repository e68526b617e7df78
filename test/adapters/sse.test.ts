import { describe, expect, test } from "bun:test";
import { ChunkShape } from "../../src/wires/chat/chunk-shape.ts";
import { SseFramer, SseReader, serialize } from "../../src/sse/framing.ts";

const enc = new TextEncoder();
const dec = new TextDecoder();

/** Every event the framer reports, as text, for the given cut of the bytes; a lead goes back to its event. */
function frame(parts: string[]): { events: string[]; tail: string | undefined } {
  const framer = new SseFramer();
  const events: string[] = [];
  for (const part of parts) {
    const chunk = enc.encode(part);
    const { lead, head, ends } = framer.push(chunk);
    // The LF of a CRLF cut after its CR belongs to the event reported before.
    if (lead > 0) events.push(events.pop()! + dec.decode(chunk.subarray(0, lead)));
    let at = lead;
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

  test("CR, LF and CRLF all end a line, mixed in one stream, wherever the bytes are cut", () => {
    const mixed = "data: a\r\r: c\rdata: b\r\n\rid: 7\ndata: c\r\n\ndata: d\r\r\ndata: tail";
    const expected = { events: ["data: a\r\r", ": c\rdata: b\r\n\r", "id: 7\ndata: c\r\n\n", "data: d\r\r\n"], tail: "data: tail" };
    expect(frame([mixed])).toEqual(expected);
    expect(frame([...mixed])).toEqual(expected);
    for (let at = 1; at < mixed.length; at++) {
      for (let at2 = at + 1; at2 <= mixed.length; at2++) {
        expect(frame([mixed.slice(0, at), mixed.slice(at, at2), mixed.slice(at2)])).toEqual(expected);
      }
    }
  });

  test("a CR last in a chunk ends its event at once; the LF that follows is reported as that event's lead", () => {
    const framer = new SseFramer();
    expect(framer.push(enc.encode("data: a\r\n\r"))).toEqual({ lead: 0, head: undefined, ends: [10] });
    expect(framer.push(enc.encode("\ndata: b\r\r"))).toEqual({ lead: 1, head: undefined, ends: [10] });
    // A CR that ended a non-empty line: its LF stays inside the event.
    expect(framer.push(enc.encode("data: c\r"))).toEqual({ lead: 0, head: undefined, ends: [] });
    const { lead, head, ends } = framer.push(enc.encode("\n\r\n"));
    expect([lead, dec.decode(head), ends]).toEqual([0, "data: c\r\n\r\n", [3]]);
  });

  test("a CR before the LF of a non-empty line is no blank line", () => {
    expect(frame(["data: x\n", "\r", "z\n", "\n"]).events).toEqual(["data: x\n\r", "z\n\n"]);
    expect(frame(["data: x\r\ndata: y\r\n\r\n"]).events).toEqual(["data: x\r\ndata: y\r\n\r\n"]);
  });

  test("an event inside one chunk is reported by offset; only one spanning chunks is copied", () => {
    const framer = new SseFramer();
    const first = enc.encode("data: a\n\ndata: b");
    expect(framer.push(first)).toEqual({ lead: 0, head: undefined, ends: [9] });
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

  test("CR-only and mixed terminators; the first line's terminator is the EOL", () => {
    expect(read("data: x\r\rnext")).toEqual({ data: "x", meta: [], eol: "\r", end: 9 });
    expect(read("id: 1\rdata: a\r\ndata:b\n: note\r\rrest")).toEqual({ data: "a\nb", meta: ["id: 1", ": note"], eol: "\r", end: 30 });
    expect(read("data: x\r\n\r")).toEqual({ data: "x", meta: [], eol: "\r\n", end: 10 });
    expect(read("data: x\r\r\n")).toEqual({ data: "x", meta: [], eol: "\r", end: 10 });
  });

  test("an unterminated tail is read to its end; a CR last in it is a terminator", () => {
    expect(read("event: x\ndata: tail\r")).toEqual({ data: "tail", meta: ["event: x"], eol: "\n", end: 20 });
    expect(read("event: x\ndata: tail")).toEqual({ data: "tail", meta: ["event: x"], eol: "\n", end: 19 });
  });

  test("many events of one text are read in one pass whichever terminator is missing", () => {
    for (const eol of ["\n", "\r", "\r\n"]) {
      const text = `id: 1${eol}data: a${eol}${eol}`.repeat(3);
      const reader = new SseReader();
      const seen: string[] = [];
      for (let at = 0; at < text.length; at = reader.end) {
        reader.read(text, at);
        seen.push(`${reader.meta.join()}|${reader.data}`);
      }
      expect(seen).toEqual(["id: 1|a", "id: 1|a", "id: 1|a"]);
    }
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
