import { CR, GT, LF, LT, SLASH, SP, TAB, isSpaceInTag } from "../grammar/chars.ts";
import type { Tag } from "../grammar/tags.ts";
import { aliasMappingOf } from "./aliases.ts";
import { wholeSpan, type SpanContext } from "./call.ts";
import { NAME_LIMIT, isSpaceCode, type CharState } from "./char-form.ts";
import { buildInput } from "./invoke-input.ts";
import { textSpan, type Segment, type UnitOutcome } from "./segments.ts";
import { abandon, complete, ignoreContent, type SpanKind, type Step } from "./span-kind.ts";
import type { ToolSpec } from "./types.ts";
import { propertySchema } from "./values.ts";
import type { Shape } from "../grammar/shapes.ts";
import { codeLanguage, costumeTool, executeLanguage } from "../grammar/dialects.ts";
import { parameterElementLine } from "./code-lines.ts";
import { isElementNameCode, isElementNameStart, writtenName } from "./tool-element-name.ts";

/**
 * Issue 29 item 5: tool-named elements, the Cline/Roo convention. The element is named after the
 * tool and each child after one of its parameters: `<read_file><path>a.ts</path></read_file>`
 * (plain, O09), or with the DSML sentinel on some tags (I11, read by the DSML walk in dialects/dsml/walk.ts).
 */

const isNameStart = isElementNameStart;
/** Space that may end a line: the element's closer may be followed by it. */
const isLineSpace = (c: number) => c === SP || c === TAB || c === CR;

interface PlainChild {
  name: string;
  value: string;
}

/**
 * `<name>value</name>` children separated only by whitespace, from `from` to `to`, or null when
 * anything else is there (text between children, attributes, a child that never closes). Linear:
 * each child's closer is searched from its own value onwards, and the next child starts after it.
 */
export function readPlainChildren(text: string, from: number, to: number): PlainChild[] | null {
  const children: PlainChild[] = [];
  let at = from;
  for (;;) {
    while (at < to && isSpaceCode(text.charCodeAt(at))) at++;
    if (at >= to) return children;
    if (text.charCodeAt(at) !== LT || !isNameStart(text.charCodeAt(at + 1))) return null;
    let end = at + 2;
    while (end < to && end - at <= NAME_LIMIT && isElementNameCode(text.charCodeAt(end))) end++;
    if (text.charCodeAt(end) !== GT) return null;
    const name = text.slice(at + 1, end);
    const closer = text.indexOf(`</${name}>`, end + 1);
    if (closer < 0 || closer + name.length + 3 > to) return null;
    // `</ name>`, `</NAME>` or `</name >` before it: a closer of the child in another spelling, so
    // which one ends the value is unknowable (golden C45.n1: the value ran on through it and the next
    // child's opener, `a.ts</ filePath>\n<filePath>b`). Not this form: nothing is read.
    if (otherCloserIn(text, end + 1, closer, name)) return null;
    children.push({ name, value: text.slice(end + 1, closer) });
    at = closer + name.length + 3;
  }
}

/**
 * Whether `text` between `from` and `to` holds a closer of the element `name` spelled otherwise
 * than `</name>`: spaces after `</` (any a reader takes for one, isSpaceInTag: `</\u00A0filePath>`,
 * golden C46.n1), the name in another case, anything after the name but a name character.
 * Linear: each `</` is looked at once.
 */
function otherCloserIn(text: string, from: number, to: number, name: string): boolean {
  const lower = name.toLowerCase();
  for (let at = text.indexOf("</", from); at >= 0 && at < to; at = text.indexOf("</", at + 2)) {
    let i = at + 2;
    while (i < to && isSpaceInTag(text.charCodeAt(i))) i++;
    if (i + name.length > to || text.slice(i, i + name.length).toLowerCase() !== lower) continue;
    if (i + name.length < to && isElementNameCode(text.charCodeAt(i + name.length))) continue;
    return true;
  }
  return false;
}

/**
 * The call a tool-named element makes: every child must be a declared parameter of the tool (an
 * alias's known parameters count, src/parse/aliases.ts), values typed from the schema, entities
 * decoded where the value is escaped throughout (`2&gt;/dev/null`). `prose`: with no child that is
 * a parameter at all, the element was markup of some other kind (HTML, XML in prose): text.
 */
function toolElementOutcome(tool: ToolSpec, children: PlainChild[], shape: Shape, ctx: SpanContext, prose: boolean): UnitOutcome {
  const declared = children.filter((c) => propertySchema(tool.parameters, c.name) !== undefined);
  if (prose && declared.length === 0) return { kind: "foreign" };
  // An alias's unknown parameter is refused when the call is mapped, with a nudge naming the declared tool.
  const stranger = aliasMappingOf(tool) ? undefined : children.find((c) => propertySchema(tool.parameters, c.name) === undefined);
  // The stranger's name is the model's own (it may be anything, a token included): not repeated.
  if (stranger) return { kind: "broken", shape, reason: "broken-markup", detail: `an element is not a parameter of ${tool.name}`, tool: tool.name };
  const values = children.map((c) => ({ name: c.name, hint: undefined, raw: c.value, dropped: false, implicitEnd: false }));
  const built = buildInput(tool, values, "", ctx.options);
  if (!built.ok) return { kind: "broken", shape, reason: built.reason, detail: built.detail, tool: tool.name };
  return { kind: "call", tool: tool.name, input: built.input, shape };
}

const PLAIN_SHAPE = "O09";

/**
 * O09 over a complete span `<tool>` children `</tool>` (then spaces to the line end); the opener's name is as written. Only a
 * declared tool (or alias) with at least one child opens such a span (src/engine/tagless-openers.ts).
 */
function parsePlainElementSpan(span: string, opener: Tag, truncated: boolean, ctx: SpanContext): Segment[] {
  const tool = ctx.tools.get(opener.name);
  const closer = `</${opener.name}>`;
  let end = span.length;
  while (end > 0 && isLineSpace(span.charCodeAt(end - 1))) end--;
  if (truncated || !tool || !span.startsWith(closer, end - closer.length)) return textSpan(span.length);
  const children = readPlainChildren(span, opener.end, end - closer.length);
  if (children === null || children.length === 0) return textSpan(span.length);
  return wholeSpan(span.length, toolElementOutcome(tool, children, PLAIN_SHAPE, ctx, true));
}

/**
 * A code costume whose tag is also a declared tool's name (`<bash>`, `<execute_command>`) and whose
 * body is only elements: the Cline/Roo form, never code to run (a shell would read `<command>ls`
 * as redirections). Null when the body is anything else (code: the costume reads it).
 *
 * A body with a line that is an element named after a parameter (`<command`, `</timeout`, any
 * case; the rule and its exceptions, heredoc bodies and strings that span lines, are
 * parameterElementLine's in src/parse/code-lines.ts) is that form even when it cannot be read as
 * such (`<command timeout="5">`, `<command >`, text beside the children, a `# list` comment or an
 * `<?xml ...?>` declaration before them; golden R43.2-R43.4, R44.1-R44.5): refused as broken markup, never run
 * with the markup as the code, which would bypass the form's own refusals. The parameters are the
 * tag's tool's, or, for a costume tag no tool is named after (`<shell>`), those of the tool its
 * code would run with (bash). Code that merely holds tags (`echo "<b>hi</b>" > x.html`, a heredoc
 * writing XML) stays code. The caller refused every opener attribute but a call's `id`.
 */
export function costumeAsToolElement(span: string, opener: Tag, inner: { start: number; end: number }, ctx: SpanContext): Segment[] | null {
  if (Object.keys(opener.attrs).some((attr) => attr !== "id")) return null;
  const tool = ctx.tools.get(writtenName(span, opener));
  const children = readPlainChildren(span, inner.start, inner.end);
  if (children === null) {
    const runsWith = tool ?? runner(opener, ctx);
    if (runsWith === undefined) return null;
    const language = codeLanguage(executeLanguage(opener.name) ?? opener.name);
    const params = parameterNames(runsWith);
    const found = parameterElementLine(span.slice(inner.start, inner.end), language, (name) => params.has(name.toLowerCase()));
    if (found === undefined) return null;
    const detail = `the body has a line that is <${found}>, a parameter of ${runsWith.name}, but is not only such elements`;
    return wholeSpan(span.length, { kind: "broken", shape: tool ? PLAIN_SHAPE : "C04", reason: "broken-markup", detail, ...(tool ? { tool: tool.name } : {}) });
  }
  if (children.length === 0) return null;
  if (!tool) return wholeSpan(span.length, { kind: "broken", shape: "C04", reason: "broken-markup", detail: "a code costume holding elements, not code" });
  return wholeSpan(span.length, toolElementOutcome(tool, children, PLAIN_SHAPE, ctx, false));
}

/** The declared tool a costume tag's code runs with (`<shell>`: bash), or undefined. */
function runner(opener: Tag, ctx: SpanContext): ToolSpec | undefined {
  const name = costumeTool(opener.name);
  return name === null ? undefined : ctx.tools.get(name);
}

/** The tool's parameter names, lowered: an element in any case (`<Command>`) is no code either. */
export function parameterNames(tool: ToolSpec): Set<string> {
  return new Set(Object.keys(tool.parameters?.properties ?? {}).map((param) => param.toLowerCase()));
}

/**
 * The plain form's body, one character at a time: whitespace, `<child>`, anything up to
 * `</child>`, again, until `</tool>` and the end of its line. Anything else (text between children, an attribute, another
 * closer) proves the opener was not this form: the span is text up to that character, and reading
 * resumes there (never from the opener: elements read so far are not read again, so repeated
 * openers cost linear work; a call written inside a child's value is not recovered).
 */
class PlainElementState implements CharState {
  private phase: "between" | "lt" | "name" | "value" | "closer" | "after" = "between";
  private child = 0;
  private pattern = "";
  private matched = 0;
  private name = "";
  private readonly closer: string;

  constructor(tool: string) {
    this.closer = `</${tool}>`;
  }

  /** The reply ended right after the closer (and spaces): the element had its line to itself. */
  completesAtEnd(): boolean {
    return this.phase === "after";
  }

  step(c: number, at: number): Step | null {
    switch (this.phase) {
      case "between":
        if (isSpaceCode(c)) return null;
        if (c !== LT) return abandon(at);
        this.phase = "lt";
        return null;
      case "lt":
        if (c === SLASH && this.child > 0) {
          this.phase = "closer";
          this.pattern = this.closer;
          this.matched = 2;
          return null;
        }
        if (!isNameStart(c)) return abandon(at);
        this.phase = "name";
        this.name = String.fromCharCode(c);
        return null;
      case "name":
        if (isElementNameCode(c) && this.name.length < NAME_LIMIT) {
          this.name += String.fromCharCode(c);
          return null;
        }
        if (c !== GT) return abandon(at);
        this.pattern = `</${this.name}>`;
        this.matched = 0;
        this.phase = "value";
        return null;
      case "value":
        // The closer starts with `<` and holds no other `<`: on a mismatch only a `<` restarts it.
        if (c === this.pattern.charCodeAt(this.matched)) {
          if (++this.matched === this.pattern.length) {
            this.child++;
            this.phase = "between";
          }
        } else this.matched = c === LT ? 1 : 0;
        return null;
      case "closer":
        if (c !== this.pattern.charCodeAt(this.matched)) return abandon(at);
        if (++this.matched === this.pattern.length) this.phase = "after";
        return null;
      case "after":
        // The element ends its line: words after the closer on the same line are prose quoting it.
        if (isLineSpace(c)) return null;
        return c === LF ? complete(at) : abandon(at);
    }
  }
}

/**
 * O09: a plain element named after a declared tool, opened only at the start of a line (the engine
 * decides, holding no more than a declared name's length). Its body is read as characters.
 */
export const PLAIN_ELEMENT: SpanKind = {
  watchesContent: false,
  content: ignoreContent,
  tag: () => null,
  charForm: (opener) => new PlainElementState(opener.name),
  parse: ({ span, opener, truncated, ctx }) => parsePlainElementSpan(span, opener, truncated, ctx),
};
