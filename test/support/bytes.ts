/**
 * Byte helpers for the request-body tests (fetch adapter and proxy): UTF-8 bodies with bytes that
 * are not UTF-8 around the strings the history pass rewrites, streamed at chosen cuts.
 */
import type { JsonPath } from "../../src/adapters/json-splice.ts";

export const utf8 = (text: string) => new TextEncoder().encode(text);
export const BOM = [0xef, 0xbb, 0xbf];
/** Not UTF-8: a lone FF FE, a stray continuation byte, a cut 3-byte sequence, an overlong "/", an encoded surrogate. */
export const INVALID = [0xff, 0xfe, 0x80, 0x20, 0xe2, 0x82, 0x41, 0xc0, 0xaf, 0xed, 0xa0, 0x80];

export function concat(...parts: (Uint8Array | number[])[]): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

/** `bytes` as a stream cut at `cuts` (byte offsets), so multi-byte characters and invalid sequences fall across chunks. */
export function cutStream(bytes: Uint8Array, cuts: readonly number[]): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      let from = 0;
      for (const at of [...cuts, bytes.length]) {
        controller.enqueue(bytes.slice(from, at));
        from = at;
      }
      controller.close();
    },
  });
}

/** The path of every string in a JSON value, depth first. */
export function stringPaths(value: unknown): JsonPath[] {
  const paths: JsonPath[] = [];
  const walk = (v: unknown, path: (string | number)[]) => {
    if (typeof v === "string") paths.push(path);
    else if (Array.isArray(v)) v.forEach((x, i) => walk(x, [...path, i]));
    else if (v && typeof v === "object") for (const [k, x] of Object.entries(v)) walk(x, [...path, k]);
  };
  walk(value, []);
  return paths;
}
