import { Flaw, type Tag } from "../grammar/tags.ts";
import type { BrokenSpan } from "../parse/types.ts";

/**
 * A parameter's value opened where no readable call is open (a loose value).
 * The model wrote a call whose invoke (or function) opener the grammar cannot read (an NBSP or a
 * zero-width space in the tag, a fullwidth letter in its name, entity-escaped attribute quotes,
 * another tag name such as `<call name="write">`), so its parameter openers reach the reading
 * outside any candidate, yet a reader still sees a value open there: `<parameter name="content">`
 * (Claude-style, Qwen3-Coder's `<parameter=content>`) or a sentinel parameter opener. What
 * follows up to that value's own closer is the value's text, whatever it holds: a call example in
 * it (a file documenting a call, golden S02.9, S02.16, A45.3, S02.5 with their invoke unreadable)
 * never runs. The documentation context (doc-context.ts) reads such a value as the value of a
 * quoted call (nested parameters counted, its own closers after it as the quote's tail), so text
 * mode opens no candidate inside it and every character stays visible.
 *
 * This decides where such a value opens, from the tags read outside documentation (text mode's
 * text, candidate text released as text): a parameter opener with a name that starts its line
 * (one mentioned in a sentence opens nothing), while no readable invoke or function opener is
 * open before it (a readable one opens a candidate of its own, and a value of a call it refused
 * is that call's: the restart rule there as before, S02.3). A sentinel opener written with
 * lookalike bars counts too (quoted-tags.ts lookalikeTagAt, S02.5 with U+2502). The engine
 * reports the opener as broken markup (D08): the call did not run and the model is told. The
 * report is widened over that call's own markup as it is read (DocContext.takeLooseTagEnd: the
 * value's closer, further parameters with their values, the invoke closer), so history replaces
 * the whole broken call by one note (golden S46.1, S46.3), never its first opener alone. A value
 * that never closes keeps the rest of the reply text (trust first: with no readable call there
 * is no restart to tell an example from the model starting over). It also counts an I11 example
 * inside the value (inValue). One comparison per tag, no lookahead: the stream and the whole
 * text read it alike.
 */
export class LooseValue {
  /** A readable invoke or function opener was read and no closer of it (nor any call) since. */
  private callOpen = false;

  /** A tag read outside documentation: true when it opens a value outside any readable call. */
  opens(tag: Tag): boolean {
    if (tag.family !== "dsml" && tag.family !== "naked") return false;
    if (tag.flaws & Flaw.SelfClosing) return false;
    switch (tag.role) {
      case "invoke":
      case "function":
        // An invoke opener without a name is no call's (the walk reads none from it).
        this.callOpen = !tag.closing && (tag.role === "function" || tag.attrs.name !== undefined);
        return false;
      case "block":
        this.callOpen = false;
        return false;
      case "parameter":
        // One whose `<` was lost is left alone: the quote's closers are read from a `<` (quoted-tags.ts).
        return !tag.closing && !this.callOpen && tag.attrs.name !== undefined && !(tag.flaws & Flaw.MissingLt);
      default:
        return false;
    }
  }

  /** The documentation context's quoted value is one opens() opened (the quote the value starts). */
  active = false;
  /** The count of open values at which an I11 example's element opened in it, or 0. */
  private element = 0;

  /**
   * A DSML tag that is no parameter tag, in the open loose value (`values` open, nested parameters
   * counted): an I11 example (golden A45.3) is a tag named after a declared tool (`toolNamed`)
   * whose children (`<{D}command>`) close with a parameter closer or their own, and which an
   * invoke closer or its own closer ends. Its element and children count as values, so the
   * example's closers never end the loose value early and let a second example after them run.
   * The new count, or -1: the tag changes nothing.
   */
  inValue(tag: Tag, values: number, toolNamed: boolean): number {
    if (tag.family !== "dsml" || tag.flaws & Flaw.SelfClosing) return -1;
    if (tag.closing && tag.role === "invoke") {
      if (this.element === 0) return -1;
      const outside = this.element - 1;
      this.element = 0;
      return outside;
    }
    if (tag.role !== "other") return -1;
    if (!tag.closing) {
      if (this.element === 0 && !toolNamed) return -1;
      if (this.element === 0) this.element = values + 1;
      return values + 1;
    }
    if (this.element === 0) return -1;
    this.closed(values - 1);
    return values - 1;
  }

  /** A value of the loose quote closed, `values` left open: below its element, the example is over. */
  closed(values: number): void {
    if (values < this.element) this.element = 0;
  }

  /** Markup the engine removed (a call) closed whatever was open. */
  reset(): void {
    this.callOpen = false;
  }
}

/**
 * A parameter opener outside any readable call (its invoke or function tag
 * unreadable, engine/loose-value.ts). Its value is text up to its own closer, so nothing in it
 * runs; the markup around it is a call that did not run: broken, so the model is told.
 */
export function looseOpener(start: number, end: number): BrokenSpan {
  return { span: [start, end], shape: "D08", reason: "broken-markup", detail: "a parameter opened outside any readable invoke: its value, up to its closer, is text and nothing in it runs" };
}
