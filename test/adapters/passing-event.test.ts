// An SSE event too long to hold streams past after the rewrite stood aside (src/sse/passing.ts):
// its bytes go on as they come, but for the few short values a wire renumbers, set in place. The
// output must be the same at every split, the event's end found exactly (blank line after LF, CR
// or CR LF, an LF of a CR LF in the next chunk), and nothing but the watched values changed.
import { describe, expect, test } from "bun:test";
import { type PassingEdits, PassingEvent } from "../../src/sse/passing.ts";
import type { Json } from "../../src/sse/json.ts";
import { byteByByte, seededCuts } from "./wire-support.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Every number under `index` plus 10, every finish_reason "stop" made "tool_calls"; the paths and what was seen, recorded. */
function edits(): PassingEdits & { offered: string[]; top?: Map<string, string> } {
  const offered: string[] = [];
  const self: PassingEdits & { offered: string[]; top?: Map<string, string> } = {
    keys: new Set(["index", "finish_reason", "type"]),
    offered,
    scalar(path, json, seen) {
      offered.push(`${path.join(".")}=${json}${seen.at(-1)?.has("type") ? ` (type ${seen.at(-1)!.get("type")})` : ""}`);
      if (path.at(-1) === "index") return String(Number(json) + 10);
      if (path.at(-1) === "finish_reason" && json === '"stop"') return '"tool_calls"';
      return undefined;
    },
    ended(top): Json[] {
      self.top = new Map(top);
      return [];
    },
  };
  return self;
}

/**
 * The event read in `chunks`: what went out, and how many bytes of all the chunks it took. An
 * event whose blank line's CR ends a chunk ends there; an LF first in the next chunk is its, taken
 * as the caller's framer takes it (SseFramer.endedAtCR).
 */
function run(chunks: Uint8Array[], watch = edits()) {
  const out: Uint8Array[] = [];
  const event = new PassingEvent(watch, (bytes) => out.push(bytes.slice()));
  let taken = 0;
  for (let i = 0; i < chunks.length; i++) {
    const end = event.push(chunks[i]!);
    if (end < 0) {
      taken += chunks[i]!.length;
      continue;
    }
    taken += end;
    if (event.endedAtCR && chunks[i + 1]?.[0] === 10) {
      out.push(Uint8Array.of(10));
      taken++;
    }
    break;
  }
  event.ended();
  return { text: decoder.decode(Buffer.concat(out)), taken, endedAtCR: event.endedAtCR, watch };
}

/** The same bytes at every split there is to try: whole, byte by byte, seeded random cuts. */
function splits(bytes: Uint8Array): Uint8Array[][] {
  return [[bytes], byteByByte(bytes), ...[1, 2, 3, 4, 5].map((seed) => seededCuts(bytes, seed, 7))];
}

const LONG = "y".repeat(5000);

describe("PassingEvent", () => {
  const cases: [string, string, string][] = [
    [
      "an Anthropic delta, named, LF",
      `event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"${LONG}"}}\n\n`,
      `event: content_block_delta\ndata: {"type":"content_block_delta","index":10,"delta":{"type":"text_delta","text":"${LONG}"}}\n\n`,
    ],
    [
      "CR LF line ends, the index after the long text",
      `event: x\r\ndata: {"type":"content_block_delta","delta":{"text":"${LONG}"},"index":3}\r\n\r\n`,
      `event: x\r\ndata: {"type":"content_block_delta","delta":{"text":"${LONG}"},"index":13}\r\n\r\n`,
    ],
    [
      "CR line ends, a comment, the JSON over three data lines, no space after the colon",
      `: note\rdata:{"type":"a",\rdata: "index"\rdata: :  7}\r\r`,
      `: note\rdata:{"type":"a",\rdata: "index"\rdata: :  17}\r\r`,
    ],
    [
      "a chat chunk: choice 0's finish_reason, a native call's index nested; the choice's own index is watched too",
      `data: {"choices":[{"index":0,"delta":{"content":"${LONG}","tool_calls":[{"index":1,"id":"c"}]},"finish_reason":"stop"}]}\n\n`,
      `data: {"choices":[{"index":10,"delta":{"content":"${LONG}","tool_calls":[{"index":11,"id":"c"}]},"finish_reason":"tool_calls"}]}\n\n`,
    ],
    [
      "watched keys inside strings, escaped quotes, and a key that only looks like one are left alone",
      `data: {"text":"\\"index\\":5, \\\\","idx":{"index_":4},"type":"t\\"x","index":2}\n\n`,
      `data: {"text":"\\"index\\":5, \\\\","idx":{"index_":4},"type":"t\\"x","index":12}\n\n`,
    ],
    [
      "a value longer than the bound passes as it came",
      `data: {"finish_reason":"${"s".repeat(100)}","index":-1}\n\n`,
      `data: {"finish_reason":"${"s".repeat(100)}","index":9}\n\n`,
    ],
  ];

  for (const [name, input, expected] of cases) {
    test(`${name}: the values set, every other byte as it came, the end found, at every split`, () => {
      const bytes = encoder.encode(`${input}data: {"index":99}\n\n`);
      const eventLength = encoder.encode(input).length;
      for (const chunks of splits(bytes)) {
        const { text, taken } = run(chunks);
        expect(text).toBe(expected);
        expect(taken).toBe(eventLength);
      }
    });
  }

  test("what the wire sees: the path, the JSON text as it came, the values read before it in the same object; the top-level values at the end", () => {
    const bytes = encoder.encode(`data: {"type":"content_block_delta","index":4,"delta":{"type":"text_delta","text":"${LONG}"}}\n\n`);
    for (const chunks of splits(bytes)) {
      const { watch } = run(chunks);
      expect(watch.offered).toEqual(['type="content_block_delta"', 'index=4 (type "content_block_delta")', 'delta.type="text_delta"']);
      expect([...watch.top!]).toEqual([
        ["type", '"content_block_delta"'],
        ["index", "4"],
      ]);
    }
  });

  test("a blank line's CR that ends a chunk: the event ended there, and says so", () => {
    const bytes = encoder.encode('data: {"index":1}\r\r\n');
    const out: string[] = [];
    const event = new PassingEvent(edits(), (b) => out.push(decoder.decode(b)));
    expect(event.push(bytes.subarray(0, 19))).toBe(19);
    expect([out.join(""), event.endedAtCR]).toEqual(['data: {"index":11}\r\r', true]);
    // Within one chunk the LF that follows is the event's own.
    const whole = run([bytes]);
    expect([whole.text, whole.taken, whole.endedAtCR]).toEqual(['data: {"index":11}\r\r\n', 20, false]);
  });

  test("an event that never ends: every byte goes out as it comes, but for a watched value still being read", () => {
    const out: string[] = [];
    const event = new PassingEvent(edits(), (bytes) => out.push(decoder.decode(bytes)));
    expect(event.push(encoder.encode('data: {"index":12'))).toBe(-1);
    expect(out.join("")).toBe('data: {"index":');
    expect(event.push(encoder.encode('3,"text":"yyy'))).toBe(-1);
    expect(out.join("")).toBe('data: {"index":133,"text":"yyy');
  });

  test("no edits: the bytes pass as they came, the end found", () => {
    const input = `event: x\ndata: {"index":0,"text":"${LONG}"}\n\n`;
    const bytes = encoder.encode(`${input}data: {}\n\n`);
    for (const chunks of splits(bytes)) {
      const out: Uint8Array[] = [];
      const event = new PassingEvent(undefined, (b) => out.push(b.slice()));
      let at = 0;
      for (const chunk of chunks) {
        const end = event.push(chunk);
        if (end >= 0) {
          at += end;
          break;
        }
        at += chunk.length;
      }
      expect(decoder.decode(Buffer.concat(out))).toBe(input);
      expect(at).toBe(encoder.encode(input).length);
    }
  });
});
