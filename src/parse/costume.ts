import { POLLUTING_KEYS } from "../grammar/plain-data.ts";
import { createRequire } from "node:module";
// Resolved now, loaded later: a missing fast-xml-parser stops the start-up (src/parse/libraries.ts).
import "./libraries.ts";
import type { XMLParser, XMLValidator } from "fast-xml-parser";
import { codeLanguage, COSTUME_INNER, executeLanguage, isLineStartCostume, type CodeLanguage } from "../grammar/dialects.ts";
import { Flaw, type Tag } from "../grammar/tags.ts";
import type { SpanContext } from "./call.ts";
import { brokenSpan, tagsOf, textSpan, type Segment } from "./segments.ts";
import { decodeEntities } from "./values.ts";
import { ignoreContent, type OpenerRule, type SpanKind } from "./span-kind.ts";
import { closerRule } from "./closer-in-value.ts";

/** A costume's closer is its code's end only at the end of its line (closer-in-value.ts). */
const COSTUME_CODE = closerRule(null);
import { costumeAsToolElement, parameterNames } from "./tool-element.ts";
import { parameterElementLine } from "./code-lines.ts";
import type { Shape } from "../grammar/shapes.ts";
import { CR, DASH, LF, SLASH, SP, TAB, UNDERSCORE } from "../grammar/chars.ts";

/**
 * Fenceless code costumes (C01-C05, C07): code the model meant to run, dressed as a tag. Shell code
 * becomes `bash {command}`; Python runs through a quoted heredoc so the shell expands nothing.
 */
export function parseCostumeSpan(span: string, opener: Tag, ctx: SpanContext): Segment[] {
  // `<bash timeout="5">`, `<shell cwd="/">`: the attribute says something no parameter would read,
  // so the call would run without it. Refused, as DSML refuses an attribute beside a parameter.
  const unread = unreadAttribute(opener);
  // The attribute's name is the model's own (it may be anything, a token included): not repeated.
  if (unread !== undefined) return brokenSpan(span.length, opener.name === "code_interpreter" ? "C07" : "C04", "broken-markup", "the opening tag carries an attribute no parameter reads");
  const closer = lastCloser(span, opener.name);
  // `<bash><command>ls</command></bash>`: a tool-named element (O09), not code.
  const element = opener.name === "pre" || opener.name === "code_interpreter" ? null : costumeAsToolElement(span, opener, { start: opener.end, end: closer }, ctx);
  if (element) return element;
  const inner = span.slice(opener.end, closer);
  switch (opener.name) {
    case "pre":
      return preBlock(span, inner, ctx);
    case "code_interpreter":
      // `lang="python" language="bash"`: which interpreter (so which command) is unknowable.
      if (opener.attrs.lang !== undefined && opener.attrs.language !== undefined && codeLanguage(opener.attrs.lang) !== codeLanguage(opener.attrs.language)) {
        return brokenSpan(span.length, "C07", "broken-markup", "lang= and language= name different languages");
      }
      return codeCall(span.length, codeLanguage(opener.attrs.lang ?? opener.attrs.language ?? "python"), inner, "C07", ctx, true);
    default: {
      const executes = executeLanguage(opener.name);
      return executes === null ? codeCall(span.length, codeLanguage(opener.name), inner, "C04", ctx) : codeCall(span.length, codeLanguage(executes), inner, "C04", ctx, true);
    }
  }
}

/**
 * Attributes a costume's opener may carry without saying anything a call would need: on `<pre>`
 * any (HTML's own: class, style, id; the language is read from the `<code>` inside), on
 * `<code_interpreter>` its type and language. A language tag (`<bash>`, `<shell>`, `<python>`,
 * `<execute_bash>`) carries none but a call's `id`.
 */
function unreadAttribute(opener: Tag): string | undefined {
  if (opener.name === "pre") return undefined;
  const allowed = opener.name === "code_interpreter" ? CODE_INTERPRETER_ATTRIBUTES : NO_ATTRIBUTES;
  return Object.keys(opener.attrs).find((name) => !allowed.has(name));
}

const CODE_INTERPRETER_ATTRIBUTES: ReadonlySet<string> = new Set(["id", "type", "lang", "language"]);
/** A call's `id` (`<execute_bash id="1">`) labels it; nothing else is harmless on a language tag. */
const NO_ATTRIBUTES: ReadonlySet<string> = new Set(["id"]);

function lastCloser(span: string, name: string): number {
  const at = span.toLowerCase().lastIndexOf(`</${name}`);
  return at < 0 ? span.length : at;
}

/**
 * C02/C03: `<pre>` holding exactly one `<code>` element and only whitespace around it. Text before
 * or after the element, a second element, or none at all is an HTML block, not a call: it stays
 * text (C08), so nothing the model wrote inside `<pre>` is run without being read or dropped unseen.
 */
function preBlock(span: string, inner: string, ctx: SpanContext): Segment[] {
  const tags = tagsOf(inner).filter((t) => t.family === "costume" && t.name === "code");
  if (tags.length !== 2 || tags[0]!.closing || !tags[1]!.closing) return textSpan(span.length);
  const [open, close] = tags as [Tag, Tag];
  if (inner.slice(0, open.start).trim() !== "" || inner.slice(close.end).trim() !== "") return textSpan(span.length);
  let code = inner.slice(open.end, close.start);
  const classLang = open.attrs.class?.match(/(?:^|\s)(?:language-|lang-)?([\w+-]+)/)?.[1];
  let language = codeLanguage(classLang);
  let shape: Shape = "C03";
  if (!language) {
    const newline = code.replace(/^\r?\n/, "").indexOf("\n");
    const firstLine = code.replace(/^\r?\n/, "").slice(0, newline < 0 ? undefined : newline);
    language = codeLanguage(firstLine);
    if (!language) return textSpan(span.length);
    code = code.replace(/^\r?\n/, "").slice(newline + 1);
    shape = "C02";
  }
  // `<code class="language-bash" class="language-python">`: which language (so which command) is unknowable.
  if (open.flaws & Flaw.RepeatedAttr) return brokenSpan(span.length, shape, "broken-markup", "the code tag names an attribute twice");
  return codeCall(span.length, language, decodeEntities(code), shape, ctx);
}

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
    const options = { ignoreAttributes: false, attributeNamePrefix: ATTRIBUTE, parseTagValue: false, parseAttributeValue: false, trimValues: false, processEntities: true };
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
  const fields = strictFields(span) ?? tolerantFields(span);
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
  if (fields.unread) return brokenSpan(span.length, "C01", "broken-markup", "tool-call costume with fields besides its language and code");
  if (toolName === undefined || !runsCode(toolName, fields.language)) {
    const declared = toolName !== undefined && ctx.tools.has(toolName);
    return brokenSpan(span.length, "C01", declared ? "broken-markup" : "undeclared-tool", "tool-call costume with code whose tool name is not an execute tool", toolName);
  }
  if (fields.language === undefined || fields.language.trim() === "") return brokenSpan(span.length, "C01", "broken-markup", "tool-call costume with code but no language");
  return codeCall(span.length, codeLanguage(fields.language), code, "C01", ctx, true);
}

/** Tool names under which a `<tool_call>` costume asks for its code to be run (C01: `execute`). */
const EXECUTE_TOOL_NAMES: ReadonlySet<string> = new Set(["execute", "execute_code", "exec", "run_code", "code_execution", "code_interpreter"]);
/** The shell's own names: a costume naming one asks for its code to run, when that code is shell (C01 `<tool_name>bash</tool_name>`). */
const SHELL_TOOL_NAMES: ReadonlySet<string> = new Set(["bash", "sh", "shell"]);

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
}

const CALL_FIELDS = new Set(["tool_name", "tool_args"]);
const ARG_FIELDS = new Set(["language", "code"]);
/** Prototype-polluting element names are dropped (as in every dialect), not counted as unread fields. */
const DROPPED = POLLUTING_KEYS;
const isReadField = (name: string) => name === "tool_call" || CALL_FIELDS.has(name) || ARG_FIELDS.has(name) || DROPPED.has(name);

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

function tolerantFields(span: string): CostumeFields {
  const between = (name: string, last: boolean): string | undefined => {
    const open = span.indexOf(`<${name}>`);
    if (open < 0) return undefined;
    const from = open + name.length + 2;
    const close = last ? span.lastIndexOf(`</${name}>`) : span.indexOf(`</${name}>`, from);
    return close < from ? undefined : decodeEntities(span.slice(from, close));
  };
  const out: CostumeFields = {};
  const toolName = between("tool_name", false);
  const language = between("language", false);
  const code = between("code", true);
  if (toolName !== undefined) out.toolName = toolName;
  if (language !== undefined) out.language = language;
  if (code !== undefined) out.code = code;
  // Outside the code (which may hold any `<`), every element must be one the costume reads.
  const codeStart = span.indexOf("<code>");
  const codeEnd = span.lastIndexOf("</code>");
  const outside = codeStart >= 0 && codeEnd > codeStart ? span.slice(0, codeStart) + span.slice(codeEnd) : span;
  if (hasUnreadElement(outside)) out.unread = true;
  const attributed = attributedTag(outside);
  if (attributed !== undefined) out.attribute = attributed;
  return out;
}

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

/**
 * Whether some `<name` or `</name` in the text is an element the costume does not read; a dropped
 * (prototype-polluting) element is skipped whole, to its closer. A hand-written forward scan.
 */
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
    if (DROPPED.has(name) && !closing) {
      const closer = text.indexOf(`</${name}`, end);
      if (closer < 0) return true;
      at = closer;
    }
  }
  return false;
}

/**
 * `executes`: an explicit execute costume (C01, C07, `<execute_*>`), whose code was meant to run: a language no
 * declared tool runs is then an invented tool (nudged), where an HTML code block stays text (C08).
 */
function codeCall(length: number, language: CodeLanguage | null, rawCode: string, shape: Shape, ctx: SpanContext, executes = false): Segment[] {
  if (!ctx.options.codeCostumes) return textSpan(length);
  if (!language) {
    if (!executes) return textSpan(length);
    return brokenSpan(length, shape, "undeclared-tool", "code costume in a language no declared tool runs");
  }
  const code = trimBlankLines(rawCode);
  if (code.trim() === "") return brokenSpan(length, "C05", "broken-markup", "code costume without code");
  const bash = ctx.tools.get("bash");
  if (!bash) return brokenSpan(length, shape, "undeclared-tool", "code costume needs the bash tool", "bash");
  // A line that is an element named after a parameter of bash (`<command timeout="5">ls</command>`
  // in `<pre><code class="language-bash">`, in a `<tool_call>` costume's code) is the element form
  // written inside the costume, not code: refused, as a `<bash>` body holding it is
  // (costumeAsToolElement; the rule is parameterElementLine's, src/parse/code-lines.ts).
  const params = parameterNames(bash);
  const element = parameterElementLine(code, language, (name) => params.has(name.toLowerCase()));
  if (element !== undefined) return brokenSpan(length, shape, "broken-markup", `the code has a line that is <${element}>, a parameter of bash: element markup, not code`);
  const command = language === "shell" ? code : pythonHeredoc(code);
  const input: Record<string, unknown> = { command };
  const required = bash.parameters?.required;
  if (Array.isArray(required) && required.includes("description")) {
    input.description = COSTUME_DESCRIPTIONS[language];
  }
  return [{ kind: "call", start: 0, end: length, tool: "bash", input, shape }];
}

/** Blank lines around the code are layout; a hand-written scan, since an end-anchored regex would backtrack quadratically. */
function trimBlankLines(code: string): string {
  let start = 0;
  for (let i = 0; i < code.length; i++) {
    const c = code.charCodeAt(i);
    if (c === LF) start = i + 1;
    else if (c !== SP && c !== TAB && c !== CR) break;
  }
  let end = code.length;
  for (let i = code.length - 1; i >= start; i--) {
    const c = code.charCodeAt(i);
    if (c === LF) end = i > 0 && code.charCodeAt(i - 1) === CR ? i - 1 : i;
    else if (c !== SP && c !== TAB && c !== CR) break;
  }
  return code.slice(start, Math.max(start, end));
}

/** What a costume call says it does when bash requires a description: written by us, not quoted by the model. */
export const COSTUME_DESCRIPTIONS: Record<CodeLanguage, string> = { shell: "Run shell code from the reply", python: "Run Python code from the reply" };

/** `python3 - <<'PYEOF'`; another delimiter when a code line equals it. */
export function pythonHeredoc(code: string): string {
  const lines = new Set(code.split(/\r?\n/));
  let delimiter = "PYEOF";
  for (let n = 1; lines.has(delimiter); n++) delimiter = `PYEOF_${n}`;
  return `python3 - <<'${delimiter}'\n${code}\n${delimiter}`;
}

/** The code of a command pythonHeredoc() wrote, or null: the echo guard looks for the code, not our wrapper. */
export function heredocCode(command: string): string | null {
  const head = "python3 - <<'";
  if (!command.startsWith(head)) return null;
  const quote = command.indexOf("'\n", head.length);
  const delimiter = quote < 0 ? "" : command.slice(head.length, quote);
  if (!delimiter.startsWith("PYEOF")) return null;
  const tail = `\n${delimiter}`;
  const start = quote + 2;
  return command.endsWith(tail) && command.length - tail.length >= start ? command.slice(start, command.length - tail.length) : null;
}

/**
 * A code costume (C01-C04, C07) ends only at its own closer, and only one that ends its line (or
 * the reply): `<shell>grep -c "</shell>" a.html && rm -rf build</shell>` is one command, not
 * `grep -c "` (review finding 3).
 *
 * Once a closer was read as the code's text, a tag that opens a call or a block (the same costume
 * again, another, `<tool_call>`, a DSML block, ...) may be the start of what comes after a costume
 * that ended at that closer (`<shell>\nls\n</shell>ok\n<shell>\npwd\n</shell>`, golden A40.16;
 * a DSML block after `</shell> to list files.`, A40.17), or an example inside the code (a heredoc
 * writing a document that mentions `</shell>` and shows `<bash>rm -rf build</bash>`; review stop
 * 40, finding 3). Which one is known only later, so the costume holds on from there:
 * - its own closer ends a line (one the same costume opened after it does not count): the whole
 *   was one costume whose code holds markup after a closer read as code. Which closer ended it
 *   stays unknowable, so nothing of it runs: broken markup, a nudge (HELD_COSTUME). That closer
 *   may be the code's text as well (a heredoc documenting it, going on after it), so where the
 *   code ends is unknown: no later call of the reply runs either (Segment.unbounded, golden
 *   A44.3-A44.4);
 * - the reply ends after another own closer of it that has text after it on its line
 *   (`EOF\n</shell> done`; review 41, rule 4): refused too. A closer with text after it is no
 *   weaker a candidate end than the first one was, so the call opener between them may as well
 *   be the code's text (a heredoc's example): refused up to the last own closer, the furthest
 *   the costume can reach in the reply, and the engine reads the rest again (not unbounded: no
 *   later closer of it follows, so a later call runs). This gives up a legit costume, text after
 *   its closer, a real call, then the costume's closer again with text after it: the call is
 *   refused with a nudge instead of run. Nothing in the markup tells those apart, and a wrong
 *   execution outranks a lost call;
 * - the reply ends without one: the costume ended at its first closer, and is text up to there;
 *   the engine reads the rest again, so a later costume or leak runs on its own;
 * - the reply ends more than HELD_LOOKAHEAD characters after that tag (with or without a later
 *   closer): the whole is refused as above (a long document could still be the code's, and
 *   reading it again once per such costume would make the work grow with the square of the reply).
 *   Where it ends was never found, so no later call of the reply (a later Responses part or
 *   reasoning stretch, a later Anthropic text block) runs either (Segment.unbounded). A costume
 *   that outgrows responseFix.bufferLimit while it holds is released as text, and the same holds.
 * A costume the reply cut off after a closer read as code, with no such tag, is text up to its
 * first closer likewise (the engine reads the rest again).
 */
export const COSTUME: SpanKind<{ firstCloserEnd: number; held: boolean; depth: number }> = {
  watchesContent: false,
  content: ignoreContent,
  body: () => ({ firstCloserEnd: -1, held: false, depth: 0 }),
  tag: (r, tag, base, _first, _closesBlock, body) => {
    if (ownCloser(tag, r.opener)) {
      // The closer of the same costume opened again after the hold began: code, never the end.
      if (body.depth > 0) {
        body.depth--;
        return null;
      }
      if (body.firstCloserEnd < 0) body.firstCloserEnd = base + tag.end;
      return r.tentatively(COSTUME_CODE, base + tag.end);
    }
    if (body.firstCloserEnd >= 0 && opensCall(tag)) {
      body.held = true;
      if (sameOpener(tag, r.opener)) body.depth++;
    }
    return null;
  },
  parse: ({ span, opener, truncated, ctx }) => {
    const held = heldPast(span, opener);
    if (held === null) return truncated ? textSpan(firstCloserEnd(span, opener)) : parseCostumeSpan(span, opener, ctx);
    const shape = opener.name === "code_interpreter" ? "C07" : "C04";
    // Its own closer ended a line, yet an earlier one was read as code: that closer may be the
    // code's text as well (a heredoc documenting `</shell>`), so where the code ends is unknown
    // and what follows may still be it. No later call of the reply runs (Segment.unbounded).
    if (!truncated) return unbounded(brokenSpan(span.length, shape, "broken-markup", HELD_COSTUME));
    // The hold cap: the span ended (a Responses part, a reasoning stretch, an Anthropic text block)
    // so far past the call opener that where the costume ends was never found. What the reply
    // writes next may still be its code, so no later call of the reply runs (Segment.unbounded).
    if (span.length - held.callAt > HELD_LOOKAHEAD) return unbounded(brokenSpan(span.length, shape, "broken-markup", HELD_COSTUME));
    // A later own closer, wherever it stands on its line: refused up to the last one; what follows
    // it is no costume's code, so the engine reads it again.
    if (held.lastCloserEnd >= 0) return brokenSpan(held.lastCloserEnd, shape, "broken-markup", HELD_COSTUME);
    return textSpan(held.firstCloserEnd);
  },
};

function unbounded(segments: Segment[]): Segment[] {
  for (const seg of segments) if (seg.kind === "broken") seg.unbounded = true;
  return segments;
}

/** How far past a call opener after a closer read as code a reply may run on before the costume is refused whole (COSTUME). */
export const HELD_LOOKAHEAD = 4096;
const HELD_COSTUME = "a code costume whose code holds tool-call markup after a closer read as code: which closer ended it is unknowable";

function firstCloserEnd(span: string, opener: Tag): number {
  const first = tagsOf(span, opener.end).find((t) => ownCloser(t, opener));
  return first === undefined ? span.length : first.end;
}

/**
 * A tag that opens a call or a block after a closer read as the code's text (COSTUME): where it
 * starts, the first closer's end, and the end of the costume's last own closer after it, or -1.
 * Every later own closer counts whatever follows it on its line (review 41, rule 4: `</shell> done`
 * after a heredoc's example), except the closer of the same costume opened again at the start of
 * a line after that tag (A40.16); the last one counts even then, since the reopened costume may
 * itself be the code's text. Null when there is no such tag.
 */
function heldPast(span: string, opener: Tag): { callAt: number; firstCloserEnd: number; lastCloserEnd: number } | null {
  const tags = tagsOf(span, opener.end);
  let firstEnd = -1;
  let callAt = -1;
  let depth = 0;
  let closedLater = false;
  let lastEnd = -1;
  for (const tag of tags) {
    if (callAt < 0) {
      if (ownCloser(tag, opener)) {
        if (firstEnd < 0) firstEnd = tag.end;
      } else if (firstEnd >= 0 && opensCall(tag)) {
        callAt = tag.start;
        if (sameOpener(tag, opener) && startsLine(span, tag.start)) depth++;
      }
      continue;
    }
    if (sameOpener(tag, opener) && startsLine(span, tag.start)) depth++;
    else if (ownCloser(tag, opener)) {
      lastEnd = tag.end;
      if (depth > 0) depth--;
      else closedLater = true;
    }
  }
  if (callAt < 0) return null;
  return { callAt, firstCloserEnd: firstEnd, lastCloserEnd: closedLater ? lastEnd : -1 };
}

const sameOpener = (tag: Tag, opener: Tag) => tag.family === "costume" && !tag.closing && tag.name === opener.name;

/** Only spaces or tabs between the line's start (or the span's) and `at`. */
function startsLine(span: string, at: number): boolean {
  for (let i = at - 1; i >= 0; i--) {
    const c = span.charCodeAt(i);
    if (c === LF || c === CR) return true;
    if (c !== SP && c !== TAB) return false;
  }
  return true;
}

const ownCloser = (tag: Tag, opener: Tag) => tag.family === "costume" && tag.closing && tag.name === opener.name;

/**
 * A tag that opens a call or a block wherever the engine's text mode meets it: any costume but an
 * inner one (the same costume again, another, `<tool_call>`), a DSML tag (its sentinel is
 * markup, never code), a Claude-style or MiniMax wrapper, invoke or function, a special token that
 * begins a section or call, Mistral's or MiniMax's bracket opener.
 */
function opensCall(tag: Tag): boolean {
  if (tag.closing) return false;
  switch (tag.family) {
    case "costume":
      return !COSTUME_INNER.has(tag.name);
    case "dsml":
      return true;
    case "naked":
      return tag.role === "block" || tag.role === "invoke" || tag.role === "function";
    case "legacy":
      return tag.legacy === "section-begin" || tag.legacy === "call-begin" || tag.legacy === "call-start";
    case "mistral":
      return tag.name === "tool_calls" || tag.name === "tool_call";
  }
}

/**
 * The costume tags' opener rule (tag family "costume"): `<tool_call>` opens a span wherever it
 * starts, since its body decides the dialect (tool-call.ts); a free-code costume opens only at the
 * start of a line, with code costumes on. A wrapper closer right after a recovered call is that
 * call's noise (O02 without its opener, S04).
 */
export const COSTUME_OPENER: OpenerRule = (tag, _s, view) => {
  if (tag.closing) return tag.name === "tool_call" && view.tail ? "noise" : "text";
  if (tag.name === "tool_call") {
    const dialects = view.dialects;
    return view.codeCostumes || dialects.hermes || dialects.qwen3coder || dialects.glm ? { open: "tool-call" } : "text";
  }
  return isLineStartCostume(tag.name) && view.atLineStart() && view.codeCostumes ? { open: "costume" } : "text";
};
