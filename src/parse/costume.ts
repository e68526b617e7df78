// Code costumes (C01-C05, C07): code dressed as a tag, read into a bash call (codeCall). Where a
// costume's span ends, held past a closer read as code, is costume-hold.ts; the XML execute
// costume's fields (`<tool_name>`, `<language>`, `<code>`) are read in costume-xml.ts.
import { codeCostumeNames, codeLanguage, executeLanguage, isLineStartCostume, type CodeLanguage } from "../grammar/dialects.ts";
import { Flaw, type Tag } from "../grammar/tags.ts";
import type { SpanContext } from "./call.ts";
import { brokenSpan, tagsOf, textSpan, type Segment } from "./segments.ts";
import { decodeHtmlReferences } from "./html-references.ts";
import { dedentToCloserLine } from "./values.ts";
import type { OpenerRule } from "./span-kind.ts";
import { costumeAsToolElement, parameterNames } from "./tool-element.ts";
import { aliasMappingOf, carriesName, reservedNamesOf } from "./aliases.ts";
import { heredocLeftOpen, notCommandLine, parameterElementLine } from "./code-lines.ts";
import type { Shape } from "../grammar/shapes.ts";
import { CR, LF, SP, TAB, lineEndAt, lineEndFrom } from "../grammar/chars.ts";

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
  const closer = lastCloser(span, opener);
  // `<bash><command>ls</command></bash>`: a tool-named element (O09), not code.
  const element = opener.name === "pre" || opener.name === "code_interpreter" ? null : costumeAsToolElement(span, opener, { start: opener.end, end: closer }, ctx);
  if (element) return element;
  const inner = span.slice(opener.end, closer);
  switch (opener.name) {
    case "pre":
      return preBlock(span, opener, inner, ctx);
    case "code_interpreter":
      // `lang="python" language="bash"`: which interpreter (so which command) is unknowable.
      if (opener.attrs.lang !== undefined && opener.attrs.language !== undefined && codeLanguage(opener.attrs.lang) !== codeLanguage(opener.attrs.language)) {
        return brokenSpan(span.length, "C07", "broken-markup", "lang= and language= name different languages");
      }
      return codeCall(span.length, codeLanguage(opener.attrs.lang ?? opener.attrs.language ?? "python"), inner, "C07", ctx, true, opener.name);
    default: {
      const executes = executeLanguage(opener.name);
      const written = writtenName(span, opener);
      return executes === null ? codeCall(span.length, codeLanguage(opener.name), inner, "C04", ctx, false, written) : codeCall(span.length, codeLanguage(executes), inner, "C04", ctx, true, written);
    }
  }
}

/**
 * Attributes a costume's opener may carry without saying anything a call would need: on
 * `<code_interpreter>` its type and language. A language tag (`<bash>`, `<shell>`, `<python>`,
 * `<execute_bash>`) carries none but a call's `id`. `<pre>` (and its `<code>`) are read in
 * preBlock, once the block proves to be code (htmlAttributeUnread).
 */
function unreadAttribute(opener: Tag): string | undefined {
  if (opener.name === "pre") return undefined;
  const allowed = opener.name === "code_interpreter" ? CODE_INTERPRETER_ATTRIBUTES : NO_ATTRIBUTES;
  return Object.keys(opener.attrs).find((name) => !allowed.has(name));
}

/**
 * Review 52: whether `<pre>` or `<code>` carries an attribute that is not HTML's own. HTML's global
 * attributes (`class`, `style`, `id`, `lang`, `tabindex`, `translate`, `data-*`, `aria-*`, ...,
 * `dir` as a text direction) say how the page shows the block: highlighters write them (Prism and
 * Shiki put `tabindex="0"` on `<pre>`). Any other (`workdir`, `cwd`, `timeout`) says something about
 * the run that no parameter would read, so the call would run without it (as R12.14 for a language
 * tag, A40.11 for the XML costume). `dir` is a text direction only with its own values (`ltr`,
 * `rtl`, `auto`); `dir="/srv/app"` names a directory. Event handlers (`onclick`) are not taken:
 * no highlighter writes them on a code block.
 */
function htmlAttributeUnread(attrs: Readonly<Record<string, string>>): boolean {
  return Object.keys(attrs).some((name) => {
    if (name === "dir") return !TEXT_DIRECTIONS.has(attrs[name]!.trim().toLowerCase());
    return !HTML_ATTRIBUTES.has(name) && !name.startsWith("data-") && !name.startsWith("aria-");
  });
}

/** HTML's global attributes (WHATWG HTML, 3.2.6), `role`, and the XML ones an XHTML page writes. */
const HTML_ATTRIBUTES: ReadonlySet<string> = new Set([
  "accesskey", "autocapitalize", "autocorrect", "autofocus", "class", "contenteditable", "draggable", "enterkeyhint",
  "exportparts", "hidden", "id", "inert", "inputmode", "is", "itemid", "itemprop", "itemref", "itemscope", "itemtype",
  "lang", "nonce", "part", "popover", "role", "slot", "spellcheck", "style", "tabindex", "title", "translate",
  "writingsuggestions", "xml:lang", "xml:space", "xmlns",
]);
const TEXT_DIRECTIONS: ReadonlySet<string> = new Set(["ltr", "rtl", "auto"]);

/**
 * The costume's name as the model spelled it (`<Bash>`, not the tag grammar's lowered `bash`):
 * denyTools is matched against the written name (addressedElsewhere), and `<Bash>` is another
 * agent's spelling where `<bash>` is the runner's own.
 */
function writtenName(span: string, opener: Tag): string {
  // The lowered name's first place in the tag is the name itself: only `<` and spaces precede it.
  const tag = span.slice(opener.start, opener.end);
  const at = tag.toLowerCase().indexOf(opener.name);
  return at < 0 ? opener.name : tag.slice(at, at + opener.name.length);
}

const CODE_INTERPRETER_ATTRIBUTES: ReadonlySet<string> = new Set(["id", "type", "lang", "language"]);
/** A call's `id` (`<execute_bash id="1">`) labels it; nothing else is harmless on a language tag. */
const NO_ATTRIBUTES: ReadonlySet<string> = new Set(["id"]);

/**
 * Where the code ends: the start of the costume's last own closer as the tag grammar reads it, so
 * every spelling that closed the span (`</ shell>`, `</\tshell>`, `</SHELL>`, like the opener's
 * `< shell>`) closes the code too, and none of it lands in the command (golden C45.1-C45.2). A string search
 * for `</shell` knew only one of them.
 */
function lastCloser(span: string, opener: Tag): number {
  let at = span.length;
  for (const tag of tagsOf(span, opener.end)) if (ownCloser(tag, opener)) at = tag.start;
  return at;
}

/** The closer of the costume `opener` opened, in any spelling the tag grammar reads (costume-hold.ts holds on it too). */
export const ownCloser = (tag: Tag, opener: Tag) => tag.family === "costume" && tag.closing && tag.name === opener.name;

/**
 * C02/C03: `<pre>` holding exactly one `<code>` element and only whitespace around it. Text before
 * or after the element, a second element, or none at all is an HTML block, not a call: it stays
 * text (C08), so nothing the model wrote inside `<pre>` is run without being read or dropped unseen.
 */
function preBlock(span: string, pre: Tag, inner: string, ctx: SpanContext): Segment[] {
  const tags = tagsOf(inner).filter((t) => t.family === "costume" && t.name === "code");
  if (tags.length !== 2 || tags[0]!.closing || !tags[1]!.closing) return textSpan(span.length);
  const [open, close] = tags as [Tag, Tag];
  if (inner.slice(0, open.start).trim() !== "" || inner.slice(close.end).trim() !== "") return textSpan(span.length);
  let code = inner.slice(open.end, close.start);
  const classLang = open.attrs.class?.match(/(?:^|\s)(?:language-|lang-)?([\w+-]+)/)?.[1];
  let language = codeLanguage(classLang);
  let shape: Shape = "C03";
  // Review 56: `class="python language-bash"` names two languages (the first token was taken, so
  // bash code ran under python3, or python code under bash): which one runs it is unknowable, as
  // with a code interpreter's lang and language that disagree (golden A40.7).
  const classNamed = classLanguage(open.attrs.class);
  if (classNamed === "two") return brokenSpan(span.length, shape, "broken-markup", "the code tag's class names two languages: which one runs the code is unknowable");
  if (!language) {
    // The first line (after a line end hugging the tag: LF, CR LF or a lone CR) names the language.
    const body = code.slice(lineEndAt(code, 0));
    const newline = lineEndFrom(body, 0);
    language = codeLanguage(body.slice(0, newline));
    if (!language) return textSpan(span.length);
    // `class="hljs language-python"` and `bash` on the first line: two languages again.
    if (classNamed !== null && classNamed !== language) return brokenSpan(span.length, "C02", "broken-markup", "the code tag's class and the code's first line name two languages: which one runs the code is unknowable");
    code = newline < body.length ? body.slice(newline + lineEndAt(body, newline)) : "";
    shape = "C02";
  }
  // `<code class="language-bash" class="language-python">`: which language (so which command) is unknowable.
  if (open.flaws & Flaw.RepeatedAttr) return brokenSpan(span.length, shape, "broken-markup", "the code tag names an attribute twice");
  // The attribute's name is the model's own (it may be anything): not repeated.
  if (htmlAttributeUnread(pre.attrs) || htmlAttributeUnread(open.attrs)) return brokenSpan(span.length, shape, "broken-markup", "the pre or code tag carries an attribute that is not HTML's and that no parameter reads");
  // A raw HTML element or comment inside the code (golden C48.1, C48.4) (`<span class="nb">rm</span>`, `<br>`,
  // `<b>`, `<!-- ... -->`, `<![CDATA[`, `<?php`) is markup of a rendered page, not code: once entities are decoded a raw
  // `<b>` and an escaped `&lt;b&gt;` are one text, so the command would be neither what the page
  // shows nor what the model typed. Refused (a nudge), never stripped and run: a highlighted block
  // is an example as often as a call. A `<` that starts no tag (`test 1 < 2`, `cat <file`) stays code.
  if (RAW_HTML.test(code)) return brokenSpan(span.length, shape, "broken-markup", "the code block holds raw HTML elements: a rendered page, not code");
  const decoded = decodeHtmlReferences(code);
  if (decoded === null) return brokenSpan(span.length, shape, "broken-markup", "the code block holds a character reference that names no character the code could mean");
  return codeCall(span.length, language, decoded, shape, ctx, false, "pre");
}

/**
 * The language codeLanguage knows that the class tokens name (with a `language-` or `lang-` prefix
 * or none): null for none, "two" when they name two. Tokens split at ASCII whitespace, as HTML
 * splits a class list; scanned by hand (no new regex to audit, test/security/regex-audit.test.ts).
 */
function classLanguage(classes: string | undefined): CodeLanguage | null | "two" {
  let named: CodeLanguage | null = null;
  const list = classes ?? "";
  for (let i = 0; i < list.length; ) {
    while (i < list.length && isClassSpace(list.charCodeAt(i))) i++;
    let end = i;
    while (end < list.length && !isClassSpace(list.charCodeAt(end))) end++;
    const token = list.slice(i, end);
    i = end;
    const language = codeLanguage(token.startsWith("language-") ? token.slice(9) : token.startsWith("lang-") ? token.slice(5) : token);
    if (language !== null && named !== null && language !== named) return "two";
    named ??= language;
  }
  return named;
}

/** HTML's ASCII whitespace: space, tab, LF, FF, CR. */
const isClassSpace = (c: number) => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0c || c === 0x0d;

/**
 * An HTML element's start or end tag (`<span class="x">`, `</b>`, `<br>`, `<br/>`), a comment
 * opener, or a CDATA section (golden C48.4), a declaration (`<!DOCTYPE`) or a processing
 * instruction (`<?php`, `<?xml`): markup of the page, not code.
 */
const RAW_HTML = /<!--|<!\[CDATA\[|<![A-Za-z]|<\?[A-Za-z]|<\/?[A-Za-z][\w:-]*(?:\s[^<>]*)?\/?>/;

/**
 * `executes`: an explicit execute costume (C01, C07, `<execute_*>`), whose code was meant to run: a language no
 * declared tool runs is then an invented tool (nudged), where an HTML code block stays text (C08).
 * `written`: the costume's name as the model wrote it (the tag's, or a `<tool_call>` costume's tool
 * name), asked of the request's tool names (addressedElsewhere).
 */
export function codeCall(length: number, language: CodeLanguage | null, rawCode: string, shape: Shape, ctx: SpanContext, executes: boolean, written: string): Segment[] {
  if (!ctx.options.codeCostumes) return textSpan(length);
  if (!language) {
    if (!executes) return textSpan(length);
    return brokenSpan(length, shape, "undeclared-tool", "code costume in a language no declared tool runs");
  }
  // A costume in a list item's continuation lines (golden C48.2) (`   <shell>` ... `   </shell>`): the
  // closer's indentation is the container's, removed from every line when each non-blank one
  // starts with it (a heredoc's `   EOF` would never end it, Python would not parse); otherwise
  // the code stays as written (values.ts dedentToCloserLine). Only when the costume's
  // own opener line is indented by that much (SpanContext.openerIndent); at column 0 never.
  const code = trimBlankLines(dedentToCloserLine(rawCode, ctx.openerIndent ?? null) ?? rawCode);
  if (code.trim() === "") return brokenSpan(length, "C05", "broken-markup", "code costume without code");
  const elsewhere = addressedElsewhere(written, ctx);
  if (elsewhere !== undefined) {
    // A declared tool (an MCP `python` sandbox): the correction asks for that tool's own call. One the
    // request declared but policy left out, or a name denyTools matches: it runs nothing, as its own call would not.
    return ctx.tools.has(elsewhere)
      ? brokenSpan(length, shape, "broken-markup", `code costume named after the declared tool ${elsewhere}: its code is not bash's to run; call ${elsewhere} with its own parameters`, elsewhere)
      : brokenSpan(length, shape, "undeclared-tool", `code costume named after the tool ${elsewhere}, which this request does not offer`, elsewhere);
  }
  const bash = ctx.tools.get(RUNNER);
  if (!bash) return brokenSpan(length, shape, "undeclared-tool", "code costume needs the bash tool", RUNNER);
  // A line that is an element named after a parameter of bash (`<command timeout="5">ls</command>`
  // in `<pre><code class="language-bash">`, in a `<tool_call>` costume's code) is the element form
  // written inside the costume, not code: refused, as a `<bash>` body holding it is
  // (costumeAsToolElement; the rule is parameterElementLine's, src/parse/code-lines.ts).
  const params = parameterNames(bash);
  const element = parameterElementLine(code, language, (name) => params.has(name.toLowerCase()));
  if (element !== undefined) return brokenSpan(length, shape, "broken-markup", `the code has a line that is <${element}>, a parameter of bash: element markup, not code`);
  // Review 52: a terminal transcript (`$ cat cleanup.sh` and the file's lines under it) or an HTML
  // comment around a line the model did not want run: not one command the model typed (code-lines.ts).
  const notCommand = notCommandLine(code, language);
  if (notCommand !== undefined) return brokenSpan(length, shape, "broken-markup", NOT_COMMAND[notCommand]);
  // Review 52: shell code whose heredoc never ends (its delimiter line missing, or opened on the
  // closer's line) would run with the heredoc cut short: a file written short, never run.
  if (language === "shell" && heredocLeftOpen(code)) return brokenSpan(length, shape, "broken-markup", "the code opens a heredoc it never ends");
  const command = language === "shell" ? code : pythonHeredoc(code);
  const input: Record<string, unknown> = { command };
  const required = bash.parameters?.required;
  if (Array.isArray(required) && required.includes("description")) {
    input.description = COSTUME_DESCRIPTIONS[language];
  }
  return [{ kind: "call", start: 0, end: length, tool: RUNNER, input, shape }];
}

/**
 * Review 50: a costume whose name is a tool's the request declared (an MCP `python` sandbox, a
 * Jupyter `execute_ipython`, an `execute` container) or reserved (declared but left out by
 * allowTools, denyTools or the tool choice; a costume name denyTools matches:
 * EngineOptions.reservedNames) is addressed to that tool, never to the local bash, as a declared
 * name is never an alias (src/parse/aliases.ts). Compared case-insensitively, as costume tags are
 * read (`<PYTHON>` is the python costume). The runner's own name as it spells it (`<bash>`,
 * `<tool_name>bash`) names the tool it runs as: only denying bash itself stops it. Spelled
 * otherwise (`<Bash>`, `<tool_name>BASH`) it is the name another agent gives the shell, as a
 * Hermes call named `Bash` is (an alias, src/parse/aliases.ts), so a denyTools entry naming it
 * stops it as it stops that call (review 52): EngineOptions.reservedNames then holds such a
 * spelling, and one the request offers as a tool of its own keeps the costume bash's as before.
 *
 * Review 56: as an alias is (src/parse/aliases.ts carriesName), a costume name but the
 * runner's `bash` is addressed to a declared or reserved tool that carries it after a namespace
 * separator (`<execute_ipython>` beside OpenCode's `jupyter_execute_ipython` or Claude Code's
 * `mcp__jupyter__execute_ipython`, `<python>` beside `sandbox_python`, a `<tool_call>` naming
 * `run_code` beside `e2b_run_code`): models drop the host's prefix, so the code may be meant for
 * that sandbox, and it never runs as the local bash. In any case, as the exact name is compared;
 * review 57: in camelCase too (`<python>` beside `sandboxPython` or `executePython`); diff review
 * 57a: as a whole word anywhere in the name (`python_sandbox`, `PythonSandbox`, `run_python3`), never
 * inside one (`CPython`, `pythonic`).
 * One pass over the names, a fixed number of reads for each.
 * The matching name (the request's spelling; an exact one before a namespaced one), or undefined.
 */
function addressedElsewhere(written: string, ctx: SpanContext): string | undefined {
  const spelled = written.trim();
  const lower = spelled.toLowerCase();
  if (lower === RUNNER) {
    // Without bash offered the costume is refused as needing it (codeCall), as it was.
    if (spelled === RUNNER || !ctx.tools.has(RUNNER)) return undefined;
    for (const name of reservedNamesOf(ctx.tools)) if (name !== RUNNER && name.toLowerCase() === RUNNER && !ctx.tools.has(name)) return name;
    return undefined;
  }
  const namespaced = COSTUME_NAMES.has(lower);
  let carried: string | undefined;
  const ask = (name: string, declared: boolean): boolean => {
    const folded = name.toLowerCase();
    if (folded === lower) return true;
    // A reserved name that is itself a costume name (`execute_python`, reserved when denyTools
    // matches `execute_*`) is CodeAct's name for that language's costume, not a `python` under an
    // `execute` namespace: the pattern denies `<execute_python>`, not `<python>`. A DECLARED
    // `execute_python` is a sandbox tool the request offers (an MCP server's, unprefixed): the
    // model drops `execute_` as it drops `run_`, so `<python>` is that tool's (diff review 56a).
    if (namespaced && carried === undefined && (declared || !COSTUME_NAMES.has(folded)) && carriesName(name, lower, "costume")) carried = name;
    return false;
  };
  for (const [name, tool] of ctx.tools) if (!aliasMappingOf(tool) && ask(name, true)) return name;
  for (const name of reservedNamesOf(ctx.tools)) if (ask(name, ctx.tools.has(name))) return name;
  return carried;
}

const NOT_COMMAND = {
  prompt: "the code has a line that starts with a shell prompt: a terminal transcript, whose output lines are no commands",
  "html-comment": "the code holds an HTML comment, which no shell or Python skips: the line it comments out would run",
} as const;

/** The tool every code costume's call runs as. */
const RUNNER = "bash";

/** The code costume names (lowered) a namespaced tool name may carry (addressedElsewhere): all but the runner's own. */
const COSTUME_NAMES: ReadonlySet<string> = new Set(codeCostumeNames().filter((name) => name !== RUNNER));

/**
 * Blank lines around the code are layout; a hand-written scan, since an end-anchored regex would
 * backtrack quadratically. A line ends at LF, CR LF or a lone CR (lineEndAt).
 */
function trimBlankLines(code: string): string {
  let start = 0;
  for (let i = 0; i < code.length; i++) {
    const c = code.charCodeAt(i);
    if (c === LF || c === CR) start = i + 1;
    else if (c !== SP && c !== TAB) break;
  }
  let end = code.length;
  for (let i = code.length - 1; i >= start; i--) {
    const c = code.charCodeAt(i);
    if (c === LF || c === CR) end = i;
    else if (c !== SP && c !== TAB) break;
  }
  return code.slice(start, Math.max(start, end));
}

/** What a costume call says it does when bash requires a description: written by us, not quoted by the model. */
export const COSTUME_DESCRIPTIONS: Record<CodeLanguage, string> = { shell: "Run shell code from the reply", python: "Run Python code from the reply" };

/** `python3 - <<'PYEOF'`; another delimiter when a code line equals it. */
function pythonHeredoc(code: string): string {
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
 * The costume tags' opener rule (tag family "costume"): `<tool_call>` opens a span wherever it
 * starts, since its body decides the dialect (tool-call.ts); a free-code costume opens only at the
 * start of a line, with code costumes on (anywhere else its body is still read as a costume's, and
 * never run: costume-hold.ts INLINE_COSTUME). A wrapper closer right after a recovered call is that
 * call's noise (O02 without its opener, S04).
 */
export const COSTUME_OPENER: OpenerRule = (tag, _s, view) => {
  if (tag.closing) {
    if (tag.name === "tool_call") view.closeToolCall();
    return tag.name === "tool_call" && view.tail ? "noise" : "text";
  }
  if (tag.name === "tool_call") {
    const dialects = view.dialects;
    return view.codeCostumes || dialects.hermes || dialects.qwen3coder || dialects.glm ? { open: "tool-call" } : "text";
  }
  if (!isLineStartCostume(tag.name) || !view.codeCostumes) return "text";
  // Not at a line's start: never run, but its body is read as a costume's all the same (INLINE_COSTUME).
  if (!view.atLineStart()) return { open: "inline-costume" };
  // A prose line right before it (golden N48.1: `The agent wraps commands like` / `<bash>rm -rf build</bash>`
  // / `in its replies.`): the next line after its closer decides whether it is a call.
  return { open: view.continuesParagraph?.() ? "paragraph-costume" : "costume" };
};
