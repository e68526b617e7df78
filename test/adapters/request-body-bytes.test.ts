/**
 * Review 41, rule 6: the fetch adapter's history pass rewrites the replayed assistant strings of a
 * request body, and only those may differ from what the client sent, byte for byte. A body that
 * came as bytes is spliced as bytes (src/adapters/json-splice.ts spliceJsonBytes), so bytes that
 * are not valid UTF-8 elsewhere, a leading byte order mark, and multi-byte characters before and
 * after the rewritten string (where character and byte offsets part ways) all go up as sent, in
 * every body form, whole or streamed in any cuts.
 */
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { repairFetch } from "../../src/adapters/fetch.ts";
import { spliceJson, spliceJsonBytes, type JsonEdit, type JsonPath } from "../../src/adapters/json-splice.ts";
import { BOM, concat, cutStream, INVALID, stringPaths, utf8 } from "../support/bytes.ts";
import { readRequestBody } from "../../src/adapters/request-body.ts";
import { sanitizeRequestBytes } from "../../src/adapters/request-history.ts";
import { REMOVED_NOTE } from "../../src/history/sanitize.ts";
import { block, live } from "../golden/notation.ts";
import { assemble, deltas, sseText } from "../security/support.ts";
import { randomCuts } from "../support/run-engine.ts";

const URL_CHAT = "http://model.test/v1/chat/completions";
const BASH_TOOL = { type: "function", function: { name: "bash", parameters: { type: "object", properties: { command: { type: "string" } }, required: ["command"] } } };
const LEAK = live(block("tool_calls", [["bash", [["command", "ls"]]]]));
const SAID = "Ünïcödé ✓ Doing.\n";

/**
 * A chat body as bytes: `lead` (a BOM or nothing), multi-byte characters and `junk` in the user's
 * message before the assistant's turn and in the one after it, the assistant's leak between.
 * `sent` is the body the client sends, `expected` what the upstream must get: the same bytes, the
 * assistant's string alone rewritten.
 */
function chatBytes(lead: number[], junk: number[]): { sent: Uint8Array<ArrayBuffer>; expected: Uint8Array<ArrayBuffer> } {
  const before = concat(lead, utf8(`{"model":"m", "tools":${JSON.stringify([BASH_TOOL])},\n "messages":[{"role":"user","content":"é😀 `), junk, utf8(` ✓"},{"role":"assistant","content":`));
  const after = concat(utf8(`},{"role":"user","content":"→`), junk, utf8(`😀 ß"}], "seed": 123456789012345678901}`));
  return {
    sent: concat(before, utf8(JSON.stringify(`${SAID}${LEAK}`)), after),
    expected: concat(before, utf8(JSON.stringify(`${SAID}${REMOVED_NOTE}`)), after),
  };
}

/** An upstream recording the exact bytes and headers it got, answering with a reply that leaks. */
function recorder(reply = sseText(deltas(`Running.\n${LEAK}`, 9))): { base: typeof fetch; sent: { bytes: Uint8Array; headers: Headers }[] } {
  const sent: { bytes: Uint8Array; headers: Headers }[] = [];
  const base = async (input: string | URL | Request, init?: RequestInit) => {
    const request = new Request(input, init);
    const headers = new Headers(request.headers);
    sent.push({ bytes: new Uint8Array(await request.arrayBuffer()), headers });
    return new Response(reply, { status: 200, headers: { "content-type": "text/event-stream" } });
  };
  return { base: base as typeof fetch, sent };
}

const JSON_TYPE = { "content-type": "application/json" };
const STREAMED = { duplex: "half" } as RequestInit;

/** Every body form that is bytes, each made afresh from `bytes` (a view into a larger buffer where it can be). */
const BYTE_FORMS: Record<string, (bytes: Uint8Array<ArrayBuffer>) => [string | Request, RequestInit | undefined]> = {
  Uint8Array: (bytes) => [URL_CHAT, { method: "POST", headers: JSON_TYPE, body: bytes.slice() }],
  "Uint8Array over part of a larger buffer": (bytes) => {
    const larger = new Uint8Array(bytes.length + 7).fill(0xff);
    larger.set(bytes, 3);
    return [URL_CHAT, { method: "POST", headers: JSON_TYPE, body: larger.subarray(3, 3 + bytes.length) }];
  },
  Buffer: (bytes) => [URL_CHAT, { method: "POST", headers: JSON_TYPE, body: Buffer.from(bytes) }],
  ArrayBuffer: (bytes) => [URL_CHAT, { method: "POST", headers: JSON_TYPE, body: bytes.slice().buffer }],
  "DataView over part of a larger buffer": (bytes) => {
    const larger = new Uint8Array(bytes.length + 5).fill(0xfe);
    larger.set(bytes, 2);
    return [URL_CHAT, { method: "POST", headers: JSON_TYPE, body: new DataView(larger.buffer, 2, bytes.length) }];
  },
  Blob: (bytes) => [URL_CHAT, { method: "POST", body: new Blob([bytes.slice()], { type: "application/json" }) }],
  "ReadableStream (one chunk)": (bytes) => [URL_CHAT, { method: "POST", headers: JSON_TYPE, body: cutStream(bytes, []), ...STREAMED }],
  "ReadableStream (one byte per chunk)": (bytes) => [URL_CHAT, { method: "POST", headers: JSON_TYPE, body: cutStream(bytes, Array.from({ length: bytes.length - 1 }, (_, i) => i + 1)), ...STREAMED }],
  Request: (bytes) => [new Request(URL_CHAT, { method: "POST", headers: JSON_TYPE, body: bytes.slice() }), undefined],
  "Request with a stream body": (bytes) => [new Request(URL_CHAT, { method: "POST", headers: JSON_TYPE, body: cutStream(bytes, [5, 6, 7, 40]), ...STREAMED }), undefined],
  "Request plus an init that replaces its body": (bytes) => [new Request(URL_CHAT, { method: "POST", body: "not json" }), { method: "POST", headers: JSON_TYPE, body: bytes.slice() }],
};

describe("only the rewritten string differs, byte for byte, in every body form", () => {
  const CASES: [string, number[], number[]][] = [
    ["invalid UTF-8 in the other messages", [], INVALID],
    ["a byte order mark at the start", BOM, []],
    ["a byte order mark and invalid UTF-8", BOM, INVALID],
    ["multi-byte characters only", [], []],
  ];
  for (const [form, make] of Object.entries(BYTE_FORMS)) {
    test.each(CASES)(`${form}: %s`, async (_case, lead, junk) => {
      const { sent: body, expected } = chatBytes(lead, junk);
      const { base, sent } = recorder();
      const lines: string[] = [];
      const [input, init] = make(body);
      const response = await repairFetch({ debug: (line) => void lines.push(line) }, base)(input, init);
      expect(sent).toHaveLength(1);
      expect([...sent[0]!.bytes]).toEqual([...expected]);
      expect(sent[0]!.headers.get("content-type")).toStartWith("application/json");
      // The request was read (with its BOM skipped for JSON.parse), so the reply's leak is repaired too.
      expect(assemble(await response.text()).calls.map((call) => call.name)).toEqual(["bash"]);
      expect(lines).toEqual([]);
    });
  }

  test("a string body with a leading U+FEFF is read like the same bytes: the BOM stays, the leak is replaced and the reply repaired", async () => {
    const before = `\uFEFF{"model":"m","tools":${JSON.stringify([BASH_TOOL])},"messages":[{"role":"user","content":"é😀"},{"role":"assistant","content":`;
    const after = `},{"role":"user","content":"→😀"}]}`;
    const { base, sent } = recorder();
    const response = await repairFetch({}, base)(URL_CHAT, { method: "POST", headers: JSON_TYPE, body: `${before}${JSON.stringify(`${SAID}${LEAK}`)}${after}` });
    expect([...sent[0]!.bytes]).toEqual([...utf8(`${before}${JSON.stringify(`${SAID}${REMOVED_NOTE}`)}${after}`)]);
    expect(sent[0]!.bytes.subarray(0, 3)).toEqual(new Uint8Array(BOM));
    expect(assemble(await response.text()).calls.map((call) => call.name)).toEqual(["bash"]);
  });

  test("a stream cut at 100 seeded random byte offsets forwards the same bytes as one chunk", async () => {
    const { sent: body, expected } = chatBytes(BOM, INVALID);
    for (let seed = 1; seed <= 100; seed++) {
      const { base, sent } = recorder();
      await repairFetch({}, base)(URL_CHAT, { method: "POST", headers: JSON_TYPE, body: cutStream(body, randomCuts(body.length, seed, 30)), ...STREAMED });
      expect({ seed, same: Buffer.from(sent[0]!.bytes).equals(Buffer.from(expected)) }).toEqual({ seed, same: true });
    }
  });
});

describe("hard negatives", () => {
  test("with nothing to replace, a body holding a BOM and invalid UTF-8 goes up as the very same bytes in every form", async () => {
    const body = concat(BOM, utf8(`{"model":"m","tools":${JSON.stringify([BASH_TOOL])},"messages":[{"role":"user","content":"`), INVALID, utf8(`"},{"role":"assistant","content":"plain < text é"}]}`));
    for (const [form, make] of Object.entries(BYTE_FORMS)) {
      const { base, sent } = recorder();
      const [input, init] = make(body);
      await repairFetch({}, base)(input, init);
      expect({ form, same: Buffer.from(sent[0]!.bytes).equals(Buffer.from(body)) }).toEqual({ form, same: true });
    }
  });

  test("a body read as bytes keeps its BOM in the text the adapter reads, and its bytes as given", async () => {
    const body = concat(BOM, utf8('{"a":"é"}'));
    const read = await readRequestBody(URL_CHAT, { method: "POST", body: cutStream(body, [1, 2, 5]), ...STREAMED });
    expect("text" in read && [read.text, [...read.bytes!]]).toEqual(['\uFEFF{"a":"é"}', [...body]]);
  });

  test("invalid bytes inside the rewritten string itself become U+FFFD there, and only there (the string is written from its text)", async () => {
    const before = utf8(`{"model":"m","tools":${JSON.stringify([BASH_TOOL])},"messages":[{"role":"user","content":"x"},{"role":"assistant","content":`);
    const after = concat(utf8(`},{"role":"user","content":"`), [0xff], utf8(`"}]}`));
    const leakJson = utf8(JSON.stringify(`${SAID}${LEAK}`));
    const body = concat(before, [0x22, 0xff], leakJson.subarray(1), after);
    const { base, sent } = recorder();
    await repairFetch({}, base)(URL_CHAT, { method: "POST", headers: JSON_TYPE, body });
    expect([...sent[0]!.bytes]).toEqual([...concat(before, utf8(JSON.stringify(`\uFFFD${SAID}${REMOVED_NOTE}`)), after)]);
  });
});

describe("spliceJsonBytes", () => {
  const decode = (bytes: Uint8Array) => new TextDecoder("utf-8", { ignoreBOM: true }).decode(bytes);

  test("places map to byte offsets past multi-byte characters and invalid bytes; a leading BOM stays", () => {
    const bytes = concat(BOM, utf8('{"a":"é😀'), [0xff, 0xc3], utf8('","b":"old","c":["'), [0x80], utf8('",1]}'));
    const edits: JsonEdit[] = [
      { kind: "replace", path: ["b"], json: '"néw"' },
      { kind: "last-element", path: ["c"], json: '"→"' },
      { kind: "first-member", path: [], member: '"z":0' },
    ];
    const out = spliceJsonBytes(bytes, decode(bytes), edits)!;
    expect([...out]).toEqual([...concat(BOM, utf8('{"z":0,"a":"é😀'), [0xff, 0xc3], utf8('","b":"néw","c":["'), [0x80], utf8('",1,"→"]}'))]);
  });

  test("a text that is not those bytes' decoding gives undefined, never a guess", () => {
    const bytes = utf8('{"a":"x","b":"old"}');
    expect(spliceJsonBytes(bytes, '{"a":"y","b":"old"}', [{ kind: "replace", path: ["b"], json: '"new"' }])).toBeUndefined();
    expect(spliceJsonBytes(bytes, '{"a":"\u00e9","b":"old"}', [{ kind: "replace", path: ["b"], json: '"new"' }])).toBeUndefined();
    expect(spliceJsonBytes(utf8('{"a":"é","b":"old"} '), '{"a":"é","b":"old"}', [{ kind: "replace", path: ["b"], json: '"new"' }])).toBeUndefined();
    const sanitized = sanitizeRequestBytes("/v1/chat/completions", utf8(`{"messages":[{"role":"assistant","content":${JSON.stringify(LEAK)}}]}`), `{"messages":[{"role":"assistant","content":${JSON.stringify(`${LEAK}x`)}}]}`, { messages: [{ role: "assistant", content: LEAK }] }, { parse: {}, sanitize: true, correct: false });
    expect([sanitized.removed, sanitized.why]).toEqual([0, "request body bytes do not pair off with their text: history not sanitized"]);
  });

  test("any document with bytes that are not UTF-8 put into some strings and others replaced: the output is spliceJson's on the clean text, those bytes put back (seeded)", () => {
    const JUNK: number[][] = [[0xff], [0xfe, 0xff], [0x80], [0xc3], [0xe2, 0x82], [0xf0, 0x9f, 0x98], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [...utf8("é")], [...utf8("😀")], BOM];
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 4, stringUnit: "grapheme" }), fc.integer({ min: 0, max: 2 }), fc.string({ unit: "grapheme" }), fc.boolean(), fc.array(fc.integer({ min: 0, max: JUNK.length - 1 }), { minLength: 1, maxLength: 40 }), (value, indent, replacement, bom, junkPicks) => {
        const paths = stringPaths(value);
        // Odd strings get a marker (bytes that are not UTF-8 later), even ones are replaced.
        const marked = structuredClone(value) as unknown;
        const set = (path: JsonPath, to: (s: string) => string) => {
          if (path.length === 0) return;
          let at = marked as Record<string | number, unknown>;
          for (const step of path.slice(0, -1)) at = at[step] as Record<string | number, unknown>;
          const last = path[path.length - 1]!;
          at[last] = to(at[last] as string);
        };
        paths.forEach((path, i) => i % 2 === 1 && set(path, (s) => `${s}~~JUNK${i}~~`));
        const text = JSON.stringify(marked, null, indent);
        const edits: JsonEdit[] = paths.filter((_, i) => i % 2 === 0).map((path) => ({ kind: "replace", path, json: JSON.stringify(replacement) }));
        let pick = 0;
        const junkFor = new Map<string, number[]>();
        /** `text` as bytes, each marker replaced by its own bytes that are not UTF-8. */
        const withJunk = (t: string) =>
          concat(bom ? BOM : [], ...t.split(/(~~JUNK\d+~~)/).map((piece) => {
            if (!/^~~JUNK\d+~~$/.test(piece)) return utf8(piece);
            if (!junkFor.has(piece)) junkFor.set(piece, JUNK[junkPicks[pick++ % junkPicks.length]!]!);
            return junkFor.get(piece)!;
          }));
        const bytes = withJunk(text);
        const out = spliceJsonBytes(bytes, decode(bytes), edits);
        expect(out).toBeDefined();
        expect([...out!]).toEqual([...withJunk(spliceJson(text, edits))]);
      }),
      { seed: 20260415, numRuns: 300 },
    );
  });
});
