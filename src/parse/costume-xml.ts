// The XML execute costume (C01, C05): `<tool_call>` holding `<tool_name>execute</tool_name>` and
// `<tool_args>` with `<language>` and `<code>`. Its span is the `<tool_call>` dialect's
// (dialects/tool-call.ts), which hands it here; the code runs as every costume's does (costume.ts codeCall).
import { createRequire } from "node:module";
// Resolved now, loaded later: a missing fast-xml-parser stops the start-up (src/parse/libraries.ts).
import "./libraries.ts";
import type { XMLParser, XMLValidator } from "fast-xml-parser";
import { EXECUTE_TOOL_NAMES, SHELL_TOOL_NAMES, codeLanguage } from "../grammar/dialects.ts";
import { DASH, SLASH, UNDERSCORE } from "../grammar/chars.ts";
import { callOutcome, type SpanContext } from "./call.ts";
import { brokenSpan, layUnits, tagsOf, textSpan, type Segment } from "./segments.ts";
import { decodeHtmlReferences } from "./html-references.ts";
import { parseJson } from "./values.ts";
import { isObject } from "../grammar/plain-data.ts";
import { codeCall } from "./costume.ts";

/**
 * fast-xml-parser is loaded the first time an XML execute call is read, not when the plugin starts
 * (about 20 ms of start-up a reply without one never needs). Synchronous, through its CommonJS build.
 */
const require = createRequire(import.meta.url);
let xmlReader: { parser: XMLParser; validator: typeof XMLValidator } | undefined;

function xml(): { parser: XMLParser; validator: typeof XMLValidator } {
  if (xmlReader === undefined) {
    const fxp = require("fast-xml-parser") as { XMLParser: typeof XMLParser; XMLValidator: typeof XMLValidator };
    // Attributes are read (under ATTRIBUTE keys) only to refuse them: `<code workdir="/tmp">` carries something the call would run without.
    // `htmlEntities` decodes numeric references (`&#47;`), which XML defines and the default leaves
    // raw; the HTML names it adds never reach it, since xmlToolCall refuses a span holding one first.
    const options = { ignoreAttributes: false, attributeNamePrefix: ATTRIBUTE, parseTagValue: false, parseAttributeValue: false, trimValues: false, processEntities: true, htmlEntities: true };
    xmlReader = { parser: new fxp.XMLParser(options), validator: fxp.XMLValidator };
  }
  return xmlReader;
}

/**
 * C01 / C05: a well-formed span is parsed strictly; the tolerant reader covers raw `<` and `&` in
 * code. The code runs only when everything the costume wrote was read: no attribute anywhere (a
 * call's `id` on `<tool_call>` aside), no field besides the tool name, language and code, a tool
 * name that asks for code execution (`<tool_name>read</tool_name>` meant another tool), and a
 * language the model wrote (none is no reason to run it as shell).
 */
export function xmlToolCall(span: string, ctx: SpanContext): Segment[] {
  const json = jsonArgsCall(span, ctx);
  if (json !== null) return json;
  // Review 52: a reference that names no character the code could mean (`&#0;`, `&#47` without its
  // `;`, `&nbsp;`, one a DOCTYPE defines) anywhere in the span: refused rather than run with a guess
  // (html-references.ts decodeHtmlReferences). Both readers then decode the rest alike, numeric ones included.
  if (decodeHtmlReferences(span) === null) return brokenSpan(span.length, "C01", "broken-markup", "tool-call costume holding a character reference that names no character the code could mean");
  // Review 53: the strict reader drops a comment and a processing instruction and unwraps a CDATA
  // section as XML does, the tolerant one keeps them as written, and which reader reads the span
  // turns on an unrelated `<` elsewhere in it (`echo '<!-- x -->' > a.html` ran as `echo '' > a.html`).
  // Neither reading is provably the code the model meant, so a span holding one is refused (text
  // kept, the model told), whichever reader would read it; the code never runs with characters read away.
  if (XML_MARKUP_DECLARATION.test(span)) return brokenSpan(span.length, "C01", "broken-markup", "tool-call costume holding an XML comment, CDATA section or processing instruction: whether it is the code's own text is unknowable");
  // Diff review 53a: the strict reader also reads away a DOCTYPE (`echo '<!DOCTYPE html>' > a.html`
  // ran as `echo '' > a.html`) and takes any other `<!` + letter as markup, never code. Only where it
  // reads the span is that so: the tolerant reader (a raw `<` elsewhere, a heredoc's `<<EOF`) keeps
  // the declaration as written, so there the code runs whole (never with characters read away).
  const strict = strictFields(span);
  if (strict !== null && XML_DECLARATION_OPENER.test(span)) return brokenSpan(span.length, "C01", "broken-markup", "tool-call costume holding an XML markup declaration (`<!DOCTYPE`): whether it is the code's own text is unknowable");
  const fields = strict ?? tolerantFields(span);
  const toolName = fields.toolName?.trim();
  if (fields.attribute !== undefined) {
    // Named only when it is one of the costume's own fields: any other element name is the model's.
    const where = READ_FIELDS.has(fields.attribute) ? fields.attribute : "element";
    return brokenSpan(span.length, "C01", "broken-markup", `tool-call costume whose ${where} carries an attribute no parameter reads`, toolName);
  }
  const code = fields.code;
  if (code === undefined || code.trim() === "") {
    const declared = toolName !== undefined && ctx.tools.has(toolName);
    return brokenSpan(span.length, "C05", declared ? "broken-markup" : "undeclared-tool", "tool-call costume without code", toolName);
  }
  if (fields.codeRanOn) return brokenSpan(span.length, "C01", "broken-markup", "tool-call costume whose code holds the closer of an element around it: where the code ends is unknowable");
  if (fields.unread) return brokenSpan(span.length, "C01", "broken-markup", "tool-call costume with fields besides its language and code");
  if (toolName === undefined || !runsCode(toolName, fields.language)) {
    const declared = toolName !== undefined && ctx.tools.has(toolName);
    return brokenSpan(span.length, "C01", declared ? "broken-markup" : "undeclared-tool", "tool-call costume with code whose tool name is not an execute tool", toolName);
  }
  if (fields.language === undefined || fields.language.trim() === "") return brokenSpan(span.length, "C01", "broken-markup", "tool-call costume with code but no language");
  return codeCall(span.length, codeLanguage(fields.language), code, "C01", ctx, true, toolName);
}

/**
 * Golden C48.3: `<tool_call><tool_name>bash</tool_name><tool_args>{"command":"ls"}</tool_args></tool_call>`:
 * a declared tool named in `<tool_name>` with a strict JSON object as the whole of `<tool_args>`,
 * nothing else in the span but whitespace (a call `id` on the opener aside). Read as that tool's
 * call (the declared-tool and schema gates as every call's); null for any other shape, which the
 * execute costume's reader takes as before. The object ends at the last `</tool_args>` before the
 * wrapper's closer, so a string holding `</tool_args>` is still the object's (strict JSON decides).
 */
function jsonArgsCall(span: string, ctx: SpanContext): Segment[] | null {
  const m = JSON_ARGS_CALL.exec(span);
  if (m === null) return null;
  // Only where a costume runs (golden N48.4): opening a line, not inside a sentence the line before
  // left open (`The format is` / the shape / `in the old API.`), never after text on its line
  // (`Use <tool_call>...</tool_call> to call it.`): there it is a mention, text.
  if (ctx.openerPlace !== "line-start") return textSpan(span.length);
  const name = m[1]!;
  if (!ctx.tools.has(name)) return null;
  const parsed = parseJson(m[2]!);
  if (!parsed.ok || !isObject(parsed.value)) return null;
  const outcome = callOutcome(name, parsed.value, "C01", ctx);
  return layUnits(span.length, [{ start: 0, end: span.length, outcome }], outcome);
}

const JSON_ARGS_CALL = /^<tool_call(?:\s+id\s*=\s*(?:"[^"]*"|'[^']*'))?\s*>\s*<tool_name>\s*([\w.-]+)\s*<\/tool_name>\s*<tool_args>\s*(\{[\s\S]*\})\s*<\/tool_args>\s*<\/tool_call>\s*$/;

/**
 * An XML comment's or CDATA section's opener, or a processing instruction's (`<?` then a name's
 * first character): what fast-xml-parser reads away. A bare `<?` (`[[ $a <? ]]`) is no instruction either reader drops.
 */
const XML_MARKUP_DECLARATION = /<!--|<!\[CDATA\[|<\?[A-Za-z_:]/i;

/** A markup declaration's opener (`<!DOCTYPE`, `<!ELEMENT`, any `<!` + letter): the strict reader never reads one as code. */
const XML_DECLARATION_OPENER = /<![A-Za-z]/;

/** Whether a C01 costume's tool name asks for its code to run: an execute tool, or the shell for shell code (never `read` and the like). */
function runsCode(toolName: string, language: string | undefined): boolean {
  const lower = toolName.trim().toLowerCase();
  return EXECUTE_TOOL_NAMES.has(lower) || (SHELL_TOOL_NAMES.has(lower) && codeLanguage(language) === "shell");
}

/** The costume's own fields, as attributedElement and attributedTag name them. */
const READ_FIELDS = new Set(["<tool_call>", "<tool_name>", "<tool_args>", "<language>", "<code>"]);

/** The key prefix the strict reader gives attributes. */
const ATTRIBUTE = "@_";

interface CostumeFields {
  toolName?: string;
  language?: string;
  code?: string;
  /** An element the costume does not read (a working directory, a timeout): the code must not run without it. */
  unread?: boolean;
  /** The element that carries an attribute (`<code workdir="/tmp">`): nothing reads it, so the code must not run. */
  attribute?: string;
  /** The code holds a closer of an element around it (tolerantFields): where it ends is unknowable. */
  codeRanOn?: boolean;
}

/** The elements around the code. */
const ENCLOSING: ReadonlySet<string> = new Set(["tool_args", "tool_call"]);

const CALL_FIELDS = new Set(["tool_name", "tool_args"]);
const ARG_FIELDS = new Set(["language", "code"]);
/** A prototype-polluting element name (`<constructor>`) is a field the costume does not read, as any other: nothing runs. */
const isReadField = (name: string) => name === "tool_call" || CALL_FIELDS.has(name) || ARG_FIELDS.has(name);

function strictFields(span: string): CostumeFields | null {
  const { parser, validator } = xml();
  if (validator.validate(span) !== true) return null;
  try {
    const doc = parser.parse(span) as { tool_call?: { tool_name?: unknown; tool_args?: { language?: unknown; code?: unknown } } };
    const call = doc.tool_call;
    if (!call || typeof call !== "object") return null;
    const text = (v: unknown) => (typeof v === "string" ? v : undefined);
    const out: CostumeFields = {};
    const attributed = attributedElement("tool_call", call, true);
    if (attributed !== undefined) out.attribute = attributed;
    const toolName = text(call.tool_name);
    const language = text(call.tool_args?.language);
    const code = text(call.tool_args?.code);
    if (toolName !== undefined) out.toolName = toolName;
    if (language !== undefined) out.language = language;
    if (code !== undefined) out.code = code;
    const args = call.tool_args;
    const unread = (obj: object) => Object.keys(obj).some((k) => !isReadField(k) && !k.startsWith(ATTRIBUTE));
    if (unread(call) || (args && typeof args === "object" && unread(args))) out.unread = true;
    return out;
  } catch {
    return null;
  }
}

/**
 * The first element (by name) of the strict reader's tree that carries an attribute, or undefined.
 * `top`: the `<tool_call>` itself, which may carry a call's `id`.
 */
function attributedElement(name: string, node: unknown, top = false): string | undefined {
  if (node === null || typeof node !== "object") return undefined;
  for (const key of Object.keys(node)) {
    if (key.startsWith(ATTRIBUTE)) {
      if (!(top && key === `${ATTRIBUTE}id`)) return `<${name}>`;
      continue;
    }
    const child = (node as Record<string, unknown>)[key];
    for (const item of Array.isArray(child) ? child : [child]) {
      const found = attributedElement(key, item);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}

/**
 * The tolerant reader. A field's closer is one the tag grammar reads (`</code>`, `</ code>`,
 * `</CODE>`): a spelling a string search missed landed in the value with the markup after it
 * (golden C45.3). The code ends at its last closer, since code may hold `</code>` (a heredoc writing
 * HTML); but code that holds a closer of what encloses it (`</tool_args>`, `</tool_call>`) ran
 * past its own end into the costume's structure (`<code>ls</code></tool_args><code>pwd</code>`):
 * where it ends is unknowable, so nothing runs.
 */
function tolerantFields(span: string): CostumeFields {
  const closers = tagsOf(span).filter((t) => t.family === "costume" && t.closing);
  const field = (name: string, last: boolean): { from: number; to: number } | undefined => {
    const open = span.indexOf(`<${name}>`);
    if (open < 0) return undefined;
    const from = open + name.length + 2;
    const own = closers.filter((t) => t.name === name && t.start >= from);
    const close = last ? own[own.length - 1] : own[0];
    return close === undefined ? undefined : { from, to: close.start };
  };
  const between = (name: string, last: boolean): string | undefined => {
    const at = field(name, last);
    return at === undefined ? undefined : decoded(span.slice(at.from, at.to));
  };
  const out: CostumeFields = {};
  const toolName = between("tool_name", false);
  const language = between("language", false);
  const codeAt = field("code", true);
  if (toolName !== undefined) out.toolName = toolName;
  if (language !== undefined) out.language = language;
  if (codeAt !== undefined) {
    out.code = decoded(span.slice(codeAt.from, codeAt.to));
    if (closers.some((t) => t.start >= codeAt.from && t.start < codeAt.to && ENCLOSING.has(t.name))) out.codeRanOn = true;
  }
  // Outside the code (which may hold any `<`), every element must be one the costume reads.
  const outside = codeAt !== undefined ? span.slice(0, codeAt.from - "<code>".length) + span.slice(codeAt.to) : span;
  if (hasUnreadElement(outside)) out.unread = true;
  const attributed = attributedTag(outside);
  if (attributed !== undefined) out.attribute = attributed;
  return out;
}

/** A field's text decoded; xmlToolCall has refused a span with a reference that names nothing, so the fallback is never taken. */
const decoded = (text: string) => decodeHtmlReferences(text) ?? text;

/** An opener of a field the costume reads, with whatever follows its name up to the next `<` or `>`. */
const FIELD_OPENER = /<(tool_call|tool_name|tool_args|language|code)\s[^<>]*/gi;
/** The one attribute a `<tool_call>` opener may carry: the call's id. */
const ID_ONLY = /^id\s*=\s*("[^"]*"|'[^']*')$/i;

/** A read field's opener written with more than its name (`<code workdir="/tmp">`), outside the code; `<tool_call id=…>` aside. */
function attributedTag(text: string): string | undefined {
  // Each match runs to the next `<` or `>` only, so every character is looked at a bounded number of times.
  for (const m of text.matchAll(FIELD_OPENER)) {
    const name = m[1]!.toLowerCase();
    const attrs = m[0].slice(name.length + 1).trim();
    if (attrs === "" || (name === "tool_call" && ID_ONLY.test(attrs))) continue;
    return `<${name}>`;
  }
  return undefined;
}

/** Whether some `<name` or `</name` in the text is an element the costume does not read. A hand-written forward scan. */
function hasUnreadElement(text: string): boolean {
  const isName = (c: number) => (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || (c >= 0x30 && c <= 0x39) || c === UNDERSCORE || c === DASH;
  for (let at = text.indexOf("<"); at >= 0; at = text.indexOf("<", at + 1)) {
    const closing = text.charCodeAt(at + 1) === SLASH;
    const from = closing ? at + 2 : at + 1;
    let end = from;
    while (end < text.length && isName(text.charCodeAt(end))) end++;
    if (end === from) continue;
    const name = text.slice(from, end).toLowerCase();
    if (!isReadField(name)) return true;
  }
  return false;
}
