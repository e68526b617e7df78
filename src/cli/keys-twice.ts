// Keys written twice in a plugin entry's options, as doctor may name them. OpenCode substitutes
// `{env:}` and `{file:}` in a config's text before it parses it, so a key is given twice in the
// SUBSTITUTED text (two references to one secret, or a reference that turns into a key written
// beside it): that is where they are found. But a key substitution wrote is never printed
// (as-written.ts), nor is a place counted in the substituted text: a line or column there moves with
// the substituted value's length. So the substituted text and the text as written are read side by
// side, node by node (substitution inside strings leaves the two trees one shape), and each key of
// the path is printed as the file writes it at the same place, or by its shape; the later copy's
// line and column are counted in the file as written, or left out where it has no such place.
// Of the substituted text no line gets more than that a key is given twice, and a key's length
// where it is shown by its shape (as-written.ts shows every changed value so).
import { type Node, parseTree } from "jsonc-parser";
import { lineAndColumn } from "../options/jsonc.ts";
import { shownValue, UNREAD } from "./as-written.ts";

/** A key given twice: its dotted path as a line prints it (JSON-quoted), and where its later copy stands in the file as written. */
export interface KeyTwice {
  shown: string;
  at?: { line: number; column: number };
}

/** Read as src/options/jsonc.ts reads a config (comments and trailing commas allowed). */
const READING = { allowTrailingComma: true, disallowComments: false } as const;

/**
 * Every key written twice in one object inside the value at `at` (keys and list indexes; a key
 * given twice on the way is followed to its last copy, the one JSON keeps) of `substituted`, in
 * the order of their later copies; `written` is the same file as written. Keys compare as read,
 * escapes decoded, as JSON.parse and jsonc-parser compare them ("deny\u0054ools" is "denyTools").
 * `substituted` must be valid JSONC (parsed before); none when `at` names nothing. Iterative: a
 * config may nest deep.
 */
export function keysTwice(substituted: string, written: string, at: readonly (string | number)[]): KeyTwice[] {
  const source = withoutBom(substituted);
  const asFile = substituted === written ? source : withoutBom(written);
  let node = parseTree(source, [], READING);
  // Read as far as it reads: a reference outside a string (`"limit": {env:N}`) leaves the text as
  // written invalid there, and jsonc-parser reads on. What it reads is the file's own text either
  // way, and a place of another type or size pairs with nothing.
  let mate = asFile === source ? node : parseTree(asFile, [], READING);
  for (const step of at) {
    if (node === undefined) return [];
    const index = typeof step === "number" ? (node.type === "array" ? step : -1) : lastProperty(node, step);
    const next = index >= 0 ? node.children?.[index] : undefined;
    const nextMate = next === undefined ? undefined : paired(node, mate, index);
    node = typeof step === "number" || next === undefined ? next : next.children?.[1];
    mate = typeof step === "number" ? nextMate : nextMate?.children?.[1];
  }
  if (node === undefined) return [];
  // Found in whatever order; reported by the place of the later copy.
  const found: { shown: string; offset: number; at?: KeyTwice["at"] }[] = [];
  const pending: { node: Node; mate: Node | undefined; path: string }[] = [{ node, mate, path: "" }];
  while (pending.length > 0) {
    const { node: current, mate: currentMate, path } = pending.pop()!;
    const children = current.children ?? [];
    if (current.type === "array") {
      children.forEach((item, index) => pending.push({ node: item, mate: paired(current, currentMate, index), path: `${path}[${index}]` }));
    }
    if (current.type !== "object") continue;
    const keys = new Set<string>();
    children.forEach((property, index) => {
      const [name, value] = property.children ?? [];
      if (name === undefined || typeof name.value !== "string") return;
      const key: string = name.value;
      const propertyMate = paired(current, currentMate, index);
      const [writtenName, writtenValue] = propertyMate?.children ?? [];
      const keyPath = path === "" ? shownKey(key, writtenName) : `${path}.${shownKey(key, writtenName)}`;
      if (keys.has(key)) found.push({ shown: keyPath, offset: property.offset, ...(propertyMate ? { at: lineAndColumn(asFile, propertyMate.offset) } : {}) });
      keys.add(key);
      if (value !== undefined) pending.push({ node: value, mate: writtenValue, path: keyPath });
    });
  }
  return found.sort((a, b) => a.offset - b.offset).map(({ shown, at: place }) => ({ shown: JSON.stringify(shown), ...(place ? { at: place } : {}) }));
}

/**
 * A key as a path shows it: itself when the file writes the same key at that place; else as the
 * file writes it there when that holds the reference (`{env:NAME}`); else its shape, in angle
 * brackets (no key is read so).
 */
function shownKey(key: string, writtenName: Node | undefined): string {
  const written: unknown = typeof writtenName?.value === "string" ? writtenName.value : UNREAD;
  if (written === key) return key;
  const shown = shownValue(key, written, "bare");
  return shown === written ? shown : `<${shown}>`;
}

/** The node at the same place in the text as written: the same index in a node of the same type and size (else none). */
function paired(node: Node, mate: Node | undefined, index: number): Node | undefined {
  if (mate === undefined || mate.type !== node.type || mate.children?.length !== node.children?.length) return undefined;
  return mate.children?.[index];
}

/** The index of the last property of an object with this key (the copy JSON keeps), -1 when none. */
function lastProperty(node: Node, key: string): number {
  if (node.type !== "object") return -1;
  let found = -1;
  (node.children ?? []).forEach((property, index) => {
    if (property.children?.[0]?.value === key) found = index;
  });
  return found;
}

function withoutBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}
