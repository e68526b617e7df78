import { CR, FF, GT, LF, SLASH, SP, TAB, VT } from "../grammar/chars.ts";
import { Flaw, NEED_MORE, readTag, type Tag } from "../grammar/tags.ts";
import { NAME_LIMIT } from "../parse/char-form.ts";
import { isElementNameCode, isElementNameStart } from "../parse/tool-element-name.ts";
import type { ToolSpec } from "../parse/types.ts";

// A call quoted in documentation written in Qwen3-Coder (O02), GLM (O03) or a plain tool-named
// element (O09): its tags as the documentation context counts them (DocContext.noteQuotedTag;
// test/hostile/review-50-docs-quoted-dialects.test.ts), read beside the DSML and Claude-style ones (quoted-tags.ts), and each read as the
// invoke, parameter or block tag it stands for, so a value of the quoted call keeps the holder
// (fence, HTML block, comment, `<pre>`) open up to the value's own closer, as a DSML value does.

/** The kind of call quoted in documentation whose values DocContext counts. */
export const enum QuotedCall {
  None,
  /** A DSML, Claude-style or Qwen3-Coder invoke (`<function=NAME>`): parameter tags open and close its values. */
  Invoke,
  /** A DSML tag named after a tool (I11): its DSML children are its values. */
  Element,
  /**
   * GLM's pairs (O03), opened by an `<arg_key>KEY</arg_key>` (the GLM tool name is plain text before
   * it): `<arg_value>` opens and closes its values, `</tool_call>` closes it. Its own markup only,
   * from its first key on (a strict quote, see DocContext.endQuote).
   */
  Glm,
  /** An O09 element named after a declared tool: its children, each closed by its own name, are its values. Strict, as GLM's. */
  Plain,
}

/** A tag only these quotes read: an O09 element's (no attributes, the name as written) or a GLM key whole. */
interface DialectTag extends Tag {
  dialect: "plain" | "glm-key";
}

const dialectOf = (tag: Tag) => (tag as Partial<DialectTag>).dialect;

/** The tag as a quote of the three dialects reads it: a role of its own, or GLM's key as a tag of its own markup. */
const as = (tag: Tag, role: Tag["role"], flaws = Flaw.None): Tag => ({ ...tag, role, flaws });

/**
 * At `s[j]` (a `<` in documentation, no DSML or Claude-style tag there): Qwen3-Coder's function tag,
 * a `<tool_call>` or `</tool_call>`, GLM's `<arg_value>`/`</arg_value>` and its key read whole
 * (`<arg_key>KEY</arg_key>`: the key is no text of a value), or a plain element tag `<NAME>` /
 * `</NAME>` (a letter or `_`, then name characters, then `>`; not a name the sentinel or
 * Claude-style reading owns). Before any call is quoted (`quoting` false) only an opener can
 * matter: a closer is turned down at its `/`. Null for anything else, NEED_MORE while the text ends
 * before that is known. Reads at most a name and a tag (bounded): `<div>` is read as a plain
 * element's tag, which the documentation context drops unless it names a declared tool (it knows
 * the tools; this reader does not).
 */
export function dialectTagAt(s: string, j: number, final: boolean, quoting: boolean, tools?: ReadonlyMap<string, ToolSpec>): Tag | null | typeof NEED_MORE {
  let k = j + 1;
  if (k < s.length && s.charCodeAt(k) === SLASH) {
    if (!quoting) return null;
    k++;
  }
  if (k >= s.length) return final ? null : NEED_MORE;
  if (!isElementNameStart(s.charCodeAt(k))) return null;
  // The hot path (code's `<T>`, `<string>` in a fence): a first letter no opener can have.
  if (!quoting && tools !== undefined && !openersOf(tools).letters.has(s.charCodeAt(k))) return null;
  const name = k;
  // Bounded by the longest declared name (MCP names run past NAME_LIMIT): an O09 opener named
  // after a longer tool that this read cut short opened no quote, and the call example in its
  // quoted value ran (review 57).
  const limit = tools === undefined ? NAME_LIMIT : openersOf(tools).nameLimit;
  while (k < s.length && k - name <= limit && isElementNameCode(s.charCodeAt(k))) k++;
  if (k >= s.length) return final || !mayStillOpen(s.slice(name, k), quoting, tools) ? null : NEED_MORE;
  const closing = name > j + 1;
  switch (s.slice(name, k).toLowerCase()) {
    case "function":
      return readOne(s, j, final, (r) => r.family === "naked" && r.role === "function" && (r.closing || r.attrs.name !== undefined));
    case "tool_call":
      // Before any call is quoted its opener opens nothing (a quote opens at `<function=…>` or at
      // GLM's first key): read only as a closer, so a `<tool_call>` shown in a fence goes out as it came.
      if (!closing && !quoting) return null;
      return readOne(s, j, final, (r) => r.family === "costume" && (r.name === "tool_call" || r.name === "arg_value"));
    case "arg_value":
      return readOne(s, j, final, (r) => r.family === "costume" && (r.name === "tool_call" || r.name === "arg_value"));
    case "arg_key":
      return closing ? null : glmKeyAt(s, j, final);
  }
  if (s.charCodeAt(k) !== GT) return null;
  // Before any call is quoted only an element named after a declared tool opens one (quotedView):
  // `<T>`, `<div>` in code are turned down here, before the tag reader is asked.
  if (!quoting && tools !== undefined && !tools.has(s.slice(name, k))) return null;
  // `<tool_calls>`, `<Invoke>`: the sentinel and Claude-style reading's names (quoted-tags.ts), no element's.
  const known = readTag(s, j, true);
  if (known !== null && known !== NEED_MORE && (known.family === "naked" || known.family === "dsml")) return null;
  const tag: DialectTag = { start: j, end: k + 1, family: "costume", closing, role: "other", name: s.slice(name, k), attrs: {}, sentinel: "", flaws: Flaw.None, dialect: "plain" };
  return tag;
}

function readOne(s: string, j: number, final: boolean, fits: (r: Tag) => boolean): Tag | null | typeof NEED_MORE {
  const r = readTag(s, j, final);
  return r === NEED_MORE || (r !== null && fits(r) && (r.flaws & Flaw.MissingLt) === 0) ? r : null;
}

/**
 * `<arg_key>KEY</arg_key>` as one tag, the key padded as the live GLM reader takes it (it trims the
 * key: `<arg_key>⏎content⏎</arg_key>` runs, so its quote must open here too; diff review 50):
 * spaces, tabs and line breaks on either side. Bounded: each padding and the name at most
 * NAME_LIMIT characters, then the closer. Null for any other text.
 */
function glmKeyAt(s: string, j: number, final: boolean): Tag | null | typeof NEED_MORE {
  const open = readTag(s, j, final);
  if (open === NEED_MORE || open === null) return open;
  if (open.family !== "costume" || open.name !== "arg_key" || open.closing) return null;
  let k = open.end;
  const skip = () => {
    const from = k;
    while (k < s.length && k - from <= NAME_LIMIT && isKeyPadding(s.charCodeAt(k))) k++;
  };
  skip();
  const key = k;
  while (k < s.length && k - key <= NAME_LIMIT && isElementNameCode(s.charCodeAt(k))) k++;
  const name = s.slice(key, k);
  skip();
  if (k >= s.length) return final ? null : NEED_MORE;
  if (name === "" || name.length > NAME_LIMIT) return null;
  const close = readTag(s, k, final);
  if (close === NEED_MORE) return close;
  if (close === null || close.start !== k || close.family !== "costume" || close.name !== "arg_key" || !close.closing) return null;
  const tag: DialectTag = { ...open, end: close.end, name, dialect: "glm-key" };
  return tag;
}

/** Whitespace the live GLM reader trims from a key (String.prototype.trim's ASCII ones). */
const isKeyPadding = (c: number) => c === SP || c === TAB || c === LF || c === CR || c === VT || c === FF;

/**
 * `tag` as the quote now open reads it (`call` with `values` open, `tool` the quoted element's
 * name, `key` its open value's), or null where it is none of that quote's tags nor an opener of
 * one: Qwen3-Coder's function tags are an invoke's, `<tool_call>` a block's (GLM's closer its
 * call's), GLM's `<arg_value>` a value's, its key its own markup (a parameter with no value) or,
 * outside a GLM quote, its opener; an O09 element named after one of `tools` (none given: no
 * opener) opens a quote whose children are its values. A DSML or Claude-style parameter tag is no
 * value of a GLM or O09 quote (its live readers read only their own). Other tags are returned as
 * they are.
 */
export function quotedView(tag: Tag, call: QuotedCall, values: number, tool: string, key: string, tools?: ReadonlyMap<string, ToolSpec>): Tag | null {
  const strict = call === QuotedCall.Glm || call === QuotedCall.Plain;
  switch (dialectOf(tag)) {
    case "plain":
      if (call === QuotedCall.Plain) {
        if (values > 0) return tag.name === key ? as(tag, "parameter") : null;
        return as(tag, tag.closing && tag.name === tool ? "invoke" : "parameter");
      }
      return values === 0 && !tag.closing && tools?.has(tag.name) ? as(tag, "invoke") : null;
    case "glm-key":
      if (call === QuotedCall.Glm) return values === 0 ? as(tag, "parameter", Flaw.SelfClosing) : null;
      return values === 0 ? as(tag, "invoke") : null;
  }
  if (tag.family === "naked" && tag.role === "function") return as(tag, "invoke", tag.flaws);
  if (tag.family === "costume" && tag.name === "tool_call") {
    if (call !== QuotedCall.Glm) return as(tag, "block", tag.flaws);
    return tag.closing ? as(tag, "invoke", tag.flaws) : null;
  }
  if (tag.family === "costume" && tag.name === "arg_value") return call === QuotedCall.Glm ? as(tag, "parameter", tag.flaws) : null;
  return strict && tag.role === "parameter" ? null : tag;
}

/** The quoted call an opener opens (the view quotedView gave it, its role "invoke"). */
export function quotedCallOf(view: Tag): QuotedCall {
  const dialect = dialectOf(view);
  return dialect === "plain" ? QuotedCall.Plain : dialect === "glm-key" ? QuotedCall.Glm : QuotedCall.Invoke;
}

/** Names whose opener can open a quote before any is open (a `<tool_call>` opens none: see dialectTagAt). */
const OPENING_WORDS = ["function", "arg_key"];

/**
 * Whether the name begun at a part's end may still be one this reader takes: anything while a
 * quote is open (its values are any element), else the opening words or a declared tool's name
 * (every name when the tools are not known). So a `<div` or `<tool_c` shown in a fence is no reason
 * to hold text back: it goes out as it came.
 */
function mayStillOpen(begun: string, quoting: boolean, tools?: ReadonlyMap<string, ToolSpec>): boolean {
  if (quoting || tools === undefined) return true;
  const lower = begun.toLowerCase();
  if (OPENING_WORDS.some((w) => w.startsWith(lower))) return true;
  for (const tool of tools.keys()) if (tool.startsWith(begun)) return true;
  return false;
}

/**
 * Per tool map (built once; the map is the engine's own): the first letters an opener may have
 * before any quote is open, and how long a name this reader reads (NAME_LIMIT, or the longest
 * declared name when one is longer).
 */
interface Openers {
  letters: ReadonlySet<number>;
  nameLimit: number;
}

const OPENERS = new WeakMap<ReadonlyMap<string, ToolSpec>, Openers>();

function openersOf(tools: ReadonlyMap<string, ToolSpec>): Openers {
  let openers = OPENERS.get(tools);
  if (openers === undefined) {
    const letters = new Set<number>();
    let nameLimit = NAME_LIMIT;
    for (const word of OPENING_WORDS) letters.add(word.charCodeAt(0)).add(word.toUpperCase().charCodeAt(0));
    for (const tool of tools.keys()) {
      if (tool.length > 0) letters.add(tool.charCodeAt(0));
      nameLimit = Math.max(nameLimit, tool.length);
    }
    OPENERS.set(tools, (openers = { letters, nameLimit }));
  }
  return openers;
}
