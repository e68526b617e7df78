// Edits to a JSON text that leave every byte outside them as the client wrote it: the history pass
// changes a few strings of a request, and re-serializing the whole body would change the rest
// (an integer above 2^53 such as a `seed` loses digits, escapes and spacing change). The text has
// already been through JSON.parse, so this scanner only finds where values start and end.
import { jsonStringEnd } from "../grammar/json-syntax.ts";

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
  | { kind: "last-element"; path: JsonPath; json: string };

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
}

const WHITESPACE = new Set([" ", "\t", "\n", "\r"]);

/**
 * Applies `edits` to `text`, a valid JSON document, in one pass. Where a key occurs twice in an
 * object, the last occurrence is the one edited, as JSON.parse keeps the last. Edits at paths the
 * document does not have are dropped.
 */
export function spliceJson(text: string, edits: readonly JsonEdit[]): string {
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
  // Each edit's place in the text: [from, to) replaced by `insert`.
  const places = new Map<JsonEdit, { from: number; to: number; insert: string }>();
  const stack: Container[] = [];
  /** The node of the value about to start, from its container (or the root). */
  let pending: Node | undefined = root;
  let i = 0;
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
      if (top?.array) top.index++;
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
    }
    startValue();
  }
  // One pass over the places in text order, so many edits in a large body stay linear.
  const parts: string[] = [];
  let at = 0;
  for (const place of [...places.values()].sort((a, b) => a.from - b.from || a.to - b.to)) {
    parts.push(text.slice(at, place.from), place.insert);
    at = Math.max(at, place.to);
  }
  parts.push(text.slice(at));
  return parts.join("");
}
