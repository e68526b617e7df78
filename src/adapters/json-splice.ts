// Edits to a JSON text that leave every byte outside them as the client wrote it: the history pass
// changes a few strings of a request, and re-serializing the whole body would change the rest
// (an integer above 2^53 such as a `seed` loses digits, escapes and spacing change). The text has
// already been through JSON.parse, so this scanner only finds where values start and end. A body
// that came as bytes is spliced as bytes (spliceJsonBytes): decoding and encoding it again would
// change what does not survive a UTF-8 round trip (invalid sequences become U+FFFD).
import { jsonStringEnd } from "../grammar/json-syntax.ts";
import { concatBytes } from "../sse/framing.ts";

/** A value's place in a document: object keys and array indexes, from the root. */
export type JsonPath = readonly (string | number)[];

export type JsonEdit =
  /** The value at `path` becomes `json`. */
  | { kind: "replace"; path: JsonPath; json: string }
  /** The object at `path` gets `member` (`"key":value`) as its first member. */
  | { kind: "first-member"; path: JsonPath; member: string }
  /** The array at `path` gets `json` as its first element. */
  | { kind: "first-element"; path: JsonPath; json: string }
  /** The array at `path` gets `json` as its last element. */
  | { kind: "last-element"; path: JsonPath; json: string }
  /** The array element at `path` goes, with the comma that parts it from the next one (or, the last one, from the one before). */
  | { kind: "remove"; path: JsonPath };

interface Node {
  children: Map<string | number, Node>;
  edits: JsonEdit[];
}

interface Container {
  /** The trie node of this container's path, or undefined when no edit lies inside it. */
  node: Node | undefined;
  array: boolean;
  index: number;
  /** Where its value started, and whether it holds anything yet. */
  open: number;
  empty: boolean;
  /** An array's: where the comma after its last kept element is, and the element being removed (where it starts) until the next one starts or the array ends. */
  comma?: number;
  removing?: { edit: JsonEdit; from: number };
}

const WHITESPACE = new Set([" ", "\t", "\n", "\r"]);

/** One edit's place in the text: [from, to) becomes `insert`. */
interface Place {
  from: number;
  to: number;
  insert: string;
}

/** A leading byte order mark (U+FEFF) is not JSON: the scanner starts after it and keeps it. */
const BOM = 0xfeff;

/** The JSON text a body holds: without a leading byte order mark, which JSON.parse refuses. */
export function withoutBom(text: string): string {
  return text.charCodeAt(0) === BOM ? text.slice(1) : text;
}

/**
 * Applies `edits` to `text`, a valid JSON document (after a byte order mark, which stays), in one
 * pass. Where a key occurs twice in an object, the last occurrence is the one edited, as JSON.parse
 * keeps the last. Edits at paths the document does not have are dropped.
 */
export function spliceJson(text: string, edits: readonly JsonEdit[]): string {
  const parts: string[] = [];
  let at = 0;
  for (const place of editPlaces(text, edits)) {
    parts.push(text.slice(at, place.from), place.insert);
    at = Math.max(at, place.to);
  }
  parts.push(text.slice(at));
  return parts.join("");
}

/**
 * The edits that turn `before` into `after`, two readings of one document of which `after` was
 * changed in place: objects with the same keys in the same order and arrays of the same length are
 * compared member by member, and only a value that differs is replaced (whole). So a repaired reply
 * keeps every byte outside what the repair changed: an integer above 2^53 in its usage (which
 * JSON.parse reads the same, rounded, in both readings), its escapes and its spacing.
 */
export function valueEdits(before: unknown, after: unknown, path: JsonPath = []): JsonEdit[] {
  if (before === after) return [];
  if (Array.isArray(before) && Array.isArray(after) && before.length === after.length) {
    return before.flatMap((value, index) => valueEdits(value, after[index], [...path, index]));
  }
  if (isRecord(before) && isRecord(after)) {
    const keys = Object.keys(before);
    const afterKeys = Object.keys(after);
    if (keys.length === afterKeys.length && keys.every((key, i) => key === afterKeys[i])) {
      return keys.flatMap((key) => valueEdits(before[key], after[key], [...path, key]));
    }
  }
  return [{ kind: "replace", path, json: JSON.stringify(after) }];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * `spliceJson` for a body that came as bytes: `text` is `bytes` as a replacing UTF-8 decoder with
 * `ignoreBOM` reads them (`new TextDecoder("utf-8", { ignoreBOM: true })`). Only the byte ranges of
 * the edited values change; every other byte (a byte order mark, bytes that are not valid UTF-8,
 * which the text holds as U+FFFD) is the caller's own. Undefined when the text is not that
 * decoding of the bytes, so no place can be trusted; the caller then leaves the body alone.
 */
export function spliceJsonBytes(bytes: Uint8Array, text: string, edits: readonly JsonEdit[]): Uint8Array<ArrayBuffer> | undefined {
  const places = editPlaces(text, edits);
  const offsets = byteOffsets(bytes, text, places.flatMap((place) => [place.from, place.to]).sort((a, b) => a - b));
  if (!offsets) return undefined;
  const encoder = new TextEncoder();
  const parts: Uint8Array[] = [];
  let at = 0;
  for (const place of places) {
    const from = offsets.get(place.from)!;
    if (from > at) parts.push(bytes.subarray(at, from));
    parts.push(encoder.encode(place.insert));
    at = Math.max(at, offsets.get(place.to)!);
  }
  parts.push(bytes.subarray(at));
  return concatBytes(parts);
}

/**
 * Where each of `positions` (sorted text offsets) lies in `bytes`. A byte below 0x80 always decodes
 * to that very character, whether or not the bytes around it are valid UTF-8, and a byte from 0x80
 * up never decodes to one below 0x80; so the ASCII characters of the text and the ASCII bytes pair
 * off in order, and each run of other characters stands for the run of other bytes between the
 * same two ASCII neighbours. An edit's place is always at an ASCII character (a quote, a bracket, a
 * comma or white space, the first character of a number or literal) or at the end, so it maps to
 * exactly one byte offset. Undefined if the text and bytes do not pair off that way.
 */
function byteOffsets(bytes: Uint8Array, text: string, positions: readonly number[]): Map<number, number> | undefined {
  const offsets = new Map<number, number>();
  let k = 0;
  let b = 0;
  let t = 0;
  for (;;) {
    while (k < positions.length && positions[k] === t) offsets.set(positions[k++]!, b);
    if (k < positions.length && positions[k]! < t) return undefined; // inside a run of non-ASCII characters
    if (t >= text.length) break;
    const code = text.charCodeAt(t);
    if (code < 0x80) {
      if (bytes[b] !== code) return undefined;
      t++;
      b++;
      continue;
    }
    const start = b;
    while (t < text.length && text.charCodeAt(t) >= 0x80) t++;
    while (b < bytes.length && bytes[b]! >= 0x80) b++;
    if (b === start) return undefined;
  }
  return k === positions.length && b === bytes.length ? offsets : undefined;
}

/** The places of `edits` in `text`, in text order. */
function editPlaces(text: string, edits: readonly JsonEdit[]): Place[] {
  const root: Node = { children: new Map(), edits: [] };
  for (const edit of edits) {
    let node = root;
    for (const step of edit.path) {
      let next = node.children.get(step);
      if (!next) node.children.set(step, (next = { children: new Map(), edits: [] }));
      node = next;
    }
    node.edits.push(edit);
  }
  const places = new Map<JsonEdit, Place>();
  const stack: Container[] = [];
  /** The node of the value about to start, from its container (or the root). */
  let pending: Node | undefined = root;
  let i = text.charCodeAt(0) === BOM ? 1 : 0;
  const startValue = (): void => {
    const c = text[i]!;
    const node = pending;
    if (c === "{" || c === "[") {
      stack.push({ node, array: c === "[", index: 0, open: i, empty: true });
      i++;
      return;
    }
    const start = i;
    if (c === '"') i = jsonStringEnd(text, i);
    else while (i < text.length && !WHITESPACE.has(text[i]!) && text[i] !== "," && text[i] !== "]" && text[i] !== "}") i++;
    if (node) for (const edit of node.edits) if (edit.kind === "replace") places.set(edit, { from: start, to: i, insert: edit.json });
  };
  const endContainer = (): void => {
    const container = stack.pop()!;
    const close = i;
    i++;
    if (container.removing) {
      // The last element: from the comma before it (the first: from itself) to the bracket.
      const { edit, from } = container.removing;
      places.set(edit, { from: container.comma ?? from, to: close, insert: "" });
    }
    for (const edit of container.node?.edits ?? []) {
      if (edit.kind === "replace") places.set(edit, { from: container.open, to: i, insert: edit.json });
      else if (edit.kind === "first-member" && !container.array) places.set(edit, { from: container.open + 1, to: container.open + 1, insert: container.empty ? edit.member : `${edit.member},` });
      else if (edit.kind === "first-element" && container.array) places.set(edit, { from: container.open + 1, to: container.open + 1, insert: container.empty ? edit.json : `${edit.json},` });
      else if (edit.kind === "last-element" && container.array) places.set(edit, { from: close, to: close, insert: container.empty ? edit.json : `,${edit.json}` });
    }
  };
  while (i < text.length) {
    const c = text[i]!;
    if (WHITESPACE.has(c)) {
      i++;
      continue;
    }
    const top = stack[stack.length - 1];
    if (c === "]" || c === "}") {
      endContainer();
      continue;
    }
    if (c === ",") {
      if (top?.array) {
        top.index++;
        // The comma after a kept element: a removed last element takes it with it. A comma after an
        // element that goes is already in that element's removal, so the last one would take none
        // and leave the kept element's comma before the bracket ([1,2,3] without 2 and 3: "[1,]").
        if (!top.removing) top.comma = i;
      }
      i++;
      continue;
    }
    if (top && !top.array && c === '"') {
      // A key: its value comes after the colon.
      const end = jsonStringEnd(text, i);
      const key = top.node && top.node.children.size > 0 ? (JSON.parse(text.slice(i, end)) as string) : "";
      pending = top.node?.children.get(key);
      i = end;
      while (i < text.length && text[i] !== ":") i++;
      i++;
      while (i < text.length && WHITESPACE.has(text[i]!)) i++;
      top.empty = false;
      startValue();
      continue;
    }
    if (top?.array) {
      pending = top.node?.children.get(top.index);
      top.empty = false;
      if (top.removing) {
        // The element before goes up to here: itself, its comma and the white space after.
        places.set(top.removing.edit, { from: top.removing.from, to: i, insert: "" });
        top.removing = undefined;
      }
      const remove = pending?.edits.find((edit) => edit.kind === "remove");
      if (remove) top.removing = { edit: remove, from: i };
    }
    startValue();
  }
  // In text order, so the caller splices in one pass and many edits in a large body stay linear.
  return [...places.values()].sort((a, b) => a.from - b.from || a.to - b.to);
}
