// Checking option values straight from the spec, with no schema library: the plugin's start-up
// (every OpenCode start) then loads nothing it does not need. The zod schema (src/options/schema.ts)
// stays for the JSON schema editors complete from; test/options/check.test.ts pins this checker to
// it, value by value and option by option, so the two readings of the spec cannot drift apart.
import { isObject } from "../grammar/plain-data.ts";
import { expectation, type Fields, OPTIONS, type OptionSpec, type PluginOptions } from "./spec.ts";

export type Checked = { ok: true; value: unknown } | { ok: false; message: string };

/**
 * One entry of a names list: a non-empty string with no whitespace around it. No tool name, and no
 * provider id, holds a blank, so `"read "` (a copy-paste slip) would name nothing: a deny list
 * holding it would deny nothing in silence. It is refused like `""`, and a security list fails closed.
 */
export function isNameEntry(name: unknown): name is string {
  return typeof name === "string" && name.length > 0 && name.trim() === name;
}

/**
 * The most entries a list option may have. Only a JS-built options object can come near it (a
 * sparse `new Array(2 ** 32 - 1)`), and reading one entry by entry would hang the host's start
 * for minutes; past the bound a list is refused before any entry is read (one problem line, and
 * the option's fail-closed value or default). No tool or provider list comes near it, and reading
 * that many entries takes milliseconds.
 */
export const MAX_LIST_ENTRIES = 1_000_000;

/** Why a list past MAX_LIST_ENTRIES is refused. */
export const TOO_LONG = `must be a list of at most ${MAX_LIST_ENTRIES} entries`;

/** A fresh copy of an option's default: a caller may change the array it gets without changing the spec. */
export function defaultOf(spec: OptionSpec): unknown {
  return spec.kind === "names" ? [...spec.default] : spec.default;
}

/**
 * The value an option takes for `value` (undefined: its default), or the spec's message for why it
 * cannot. A list is read entry by entry through its own getters, every entry even after a bad one,
 * so a hostile list throws here (one unreadable key for the caller) whatever it holds before that;
 * a list longer than MAX_LIST_ENTRIES is refused without reading any entry.
 */
export function checkOption(spec: OptionSpec, value: unknown): Checked {
  if (value === undefined) return { ok: true, value: defaultOf(spec) };
  const rejected: Checked = { ok: false, message: expectation(spec) };
  switch (spec.kind) {
    case "flag":
      return typeof value === "boolean" ? { ok: true, value } : rejected;
    case "integer":
      return typeof value === "number" && Number.isSafeInteger(value) && value >= spec.min && value <= spec.max ? { ok: true, value } : rejected;
    case "choice":
      return (spec.values as readonly unknown[]).includes(value) ? { ok: true, value } : rejected;
    case "names": {
      if (!Array.isArray(value)) return rejected;
      if (value.length > MAX_LIST_ENTRIES) return { ok: false, message: TOO_LONG };
      const names: unknown[] = [];
      let valid = true;
      for (let index = 0; index < value.length; index++) {
        const name: unknown = value[index];
        if (!isNameEntry(name)) valid = false;
        names.push(name);
      }
      return valid ? { ok: true, value: names } : rejected;
    }
  }
}

/**
 * Characters no tool name holds: a blank or any whitespace inside (around it, isNameEntry refuses
 * it already), a control or invisible character (U+200B, a bidi mark), a quote, a bracket or
 * brace, "|", a backslash, and "," and ";" (which checkAsWritten splits on before it asks).
 * OpenAI and Anthropic take names of [a-zA-Z0-9_-]; OpenCode sanitises MCP names to that set; the
 * lists' own wildcards are * and ?.
 * An entry holding one is a list written as one string (`"bash read"`, `'["bash","read"]'`,
 * `"bash|read"`), an unsubstituted variable or a paste slip: compared whole it names no tool.
 */
const NO_TOOL_CHARACTER = new Set(["\"", "'", "`", "[", "]", "(", ")", "{", "}", "<", ">", "|", "\\", ",", ";"]);

/**
 * Review 57: the regular-expression characters no tool name holds and the list above leaves out:
 * the anchors `^` and `$` and the quantifier `+`. `"denyTools": ["^bash$"]`, written by a user used
 * to regular expressions, compared whole names no tool, so a deny list holding it denied nothing in
 * silence. None is in OpenAI's or Anthropic's name set ([a-zA-Z0-9_-]) nor in an MCP tool name
 * (letters, digits, `_`, `-`, `.`, `/`; some servers `:`), which stay names; the rest of a regular
 * expression's syntax is in the list above (brackets, braces, "|", a backslash) or is no name's
 * business to refuse: `.` is an MCP name's, `*` and `?` are the lists' own wildcards.
 */
const REGEX_CHARACTER = new Set(["^", "$", "+"]);

/** Why an entry names no tool, and whether what shows it is regular-expression syntax (the message then says how the lists match). */
interface NoToolReason {
  why: string;
  regex: boolean;
}

/**
 * Why a tool list entry can name no tool (the character that shows it, described, never quoted
 * from the value), or undefined. Shared by the readers (checkAsWritten) and the engine's own
 * reading of a list it is given (engine.ts toolNames), so a list read by neither fails closed too.
 */
export function noToolName(name: string): string | undefined {
  return noToolReason(name)?.why;
}

/**
 * noToolName with what kind of slip it is. One pass by code point; each code point's class is one
 * audited single-class pattern (test/security/regex-audit.test.ts), never a hand list of ranges.
 */
function noToolReason(name: string): NoToolReason | undefined {
  let first = true;
  for (const found of name) {
    const unseen = unseenCharacter(found, first);
    if (unseen !== undefined) return { why: unseen, regex: false };
    if (NO_TOOL_CHARACTER.has(found)) return { why: `the character ${JSON.stringify(found)}`, regex: false };
    if (REGEX_CHARACTER.has(found)) return { why: `the character ${JSON.stringify(found)}`, regex: true };
    first = false;
  }
  return undefined;
}

/**
 * Why a name holds a character a config shows as nothing or as a blank (whitespace inside, an
 * invisible character, a combining mark first), or undefined: no tool name and no provider id holds
 * one. The plugin's reading of `providers` asks it too (src/plugin/options.ts), so `"deep\nseek"`
 * names no provider instead of reaching a log line as written.
 */
export function unseenInName(name: string): string | undefined {
  let first = true;
  for (const found of name) {
    const unseen = unseenCharacter(found, first);
    if (unseen !== undefined) return unseen;
    first = false;
  }
  return undefined;
}

/** unseenInName for one code point (`first`: nothing stands before it in the name), described by its code, never quoted. */
function unseenCharacter(found: string, first: boolean): string | undefined {
  const shown = `U+${found.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}`;
  if (found.trim() === "") return found === " " ? "a blank" : `whitespace (${shown})`;
  if (SHOWS_AS_NOTHING.test(found)) return `an invisible character (${shown})`;
  // A mark with no character before it in the name shows on the config's quote (or as nothing): `"\u0301bash"` looks like bash.
  if (first && COMBINING_MARK.test(found)) return `a combining mark with no character before it (${shown})`;
  return undefined;
}

/**
 * A code point seen in a config as nothing (or as a blank), so `"bash\u200b"` looks like bash and
 * names no tool. By Unicode property, so the class is whole (review 55: a hand list missed U+2800
 * and U+1BCA0-U+1BCA3): controls (Cc), format characters (Cf: zero-width, bidi, the soft hyphen,
 * the shorthand format controls), surrogates (Cs), private use (Co), every space separator (Zs,
 * Zl, Zp; U+0020 is told apart first, as "a blank"), the default-ignorable code points (variation
 * selectors, the Hangul fillers, the Mongolian selectors, tags), the noncharacters, and U+2800
 * BRAILLE PATTERN BLANK and U+1D159 MUSICAL SYMBOL NULL NOTEHEAD (symbols drawn as nothing, on the
 * usual lists of "invisible characters" pasted from the web; diff review 55b). Letters
 * of any script, digits, marks after a character, `.` `:` `/` `-` `@` `*` `?` are no part of it.
 */
const SHOWS_AS_NOTHING = /^[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Zs}\p{Zl}\p{Zp}\p{Default_Ignorable_Code_Point}\p{Noncharacter_Code_Point}\u2800\u{1D159}]$/u;

/** A combining mark (Mn, Mc, Me): a name made of marks alone, or starting with one, shows as no name. */
const COMBINING_MARK = /^\p{M}$/u;

/** Why a tool list is refused for an entry that can name no tool: it fails closed, as for `""`. */
function noToolMessage(index: number, reason: NoToolReason): string {
  const advice = reason.regex
    ? '(a regular expression is no list entry: an entry is one whole tool name, its only wildcards * for any run of characters and ? for any one); write "bash" for ^bash$ and "bash*" for ^bash'
    : "(a list written as one string is no list of names); write each name as its own entry";
  return `has an entry that can name no tool: entry ${index + 1} holds ${reason.why}, which no tool name does ${advice}`;
}

/** What checkAsWritten found: checkOption's answer, and the entries it split (none: undefined). */
export type CheckedAsWritten = Checked & { joined?: string[] };

/**
 * checkOption for a value as a user wrote it: in a tool list (spec.splitJoined), an entry holding
 * "," or ";" ("bash,read", "bash; read", or `["{env:DSML_DENY}"]` with DSML_DENY=bash,read) can
 * only be a list written as one string, since no tool name holds either character; compared whole
 * it would name no tool, and a deny list holding it would deny nothing in silence. It is split into
 * its parts, each trimmed, and the parts are checked as any entry is: an empty part ("bash,")
 * refuses the list as `""` does (a security list fails closed). The caller says it split them (one
 * problem or debug line). Any other character no tool name holds (noToolName: a blank inside, a
 * quote, a bracket, "|", an invisible one) refuses the list too, with its own message: it cannot be
 * told which names were meant, so a deny list fails closed to ["*"] and an allow list to [].
 * Kept apart from checkOption, which stays pinned to the zod schema.
 */
export function checkAsWritten(spec: OptionSpec, value: unknown): CheckedAsWritten {
  if (spec.kind !== "names" || !spec.splitJoined || !Array.isArray(value) || value.length > MAX_LIST_ENTRIES) return checkOption(spec, value);
  const names: unknown[] = [];
  /** Where each name was written: its entry's index in the list as given. */
  const from: number[] = [];
  const joined: string[] = [];
  for (let index = 0; index < value.length; index++) {
    const name: unknown = value[index];
    if (typeof name === "string" && (name.includes(",") || name.includes(";"))) {
      joined.push(name);
      for (const part of name.replaceAll(";", ",").split(",")) (names.push(part.trim()), from.push(index));
    } else (names.push(name), from.push(index));
  }
  // The copy is checked (each entry was read once, through its getter, above).
  const checked = checkOption(spec, names);
  if (!checked.ok) return checked;
  // A valid entry that still can name no tool refuses the list (a security list fails closed).
  for (let index = 0; index < names.length; index++) {
    const reason = noToolReason(names[index] as string);
    if (reason !== undefined) return { ok: false, message: noToolMessage(from[index]!, reason) };
  }
  return joined.length > 0 ? { ...checked, joined } : checked;
}

/** Thrown by withDefaults for a tree that is not a valid options value. */
class InvalidOptionsError extends Error {}

/**
 * The whole options tree from a partial one: every missing key takes its default, every namespace
 * is filled in. Strict like the schema: an unknown key or an invalid value throws InvalidOptionsError.
 */
export function withDefaults(tree: unknown = {}, fields: Fields = OPTIONS.fields, parentPath = ""): PluginOptions {
  if (!isObject(tree)) throw new InvalidOptionsError(`${parentPath ? `option ${JSON.stringify(parentPath.slice(0, -1))}` : "options"} must be an object`);
  const out: Record<string, unknown> = {};
  for (const [key, spec] of Object.entries(fields)) {
    const value = tree[key];
    if (spec.kind === "namespace") {
      out[key] = withDefaults(value === undefined ? {} : value, spec.fields, `${parentPath}${key}.`);
      continue;
    }
    const checked = checkOption(spec, value);
    if (!checked.ok) throw new InvalidOptionsError(`option ${JSON.stringify(parentPath + key)} ${checked.message}`);
    out[key] = checked.value;
  }
  const unknown = Object.keys(tree).filter((key) => !Object.hasOwn(fields, key));
  if (unknown.length > 0) throw new InvalidOptionsError(`unknown option ${JSON.stringify(parentPath + unknown[0])}`);
  return out as PluginOptions;
}

/** Every option at its default, frozen all the way down. */
export const defaultOptions: PluginOptions = deepFreeze(withDefaults({}));

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null) {
    for (const nested of Object.values(value)) deepFreeze(nested);
    Object.freeze(value);
  }
  return value;
}
