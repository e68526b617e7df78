import { matchStep } from "./doc-tag-attempt.ts";
import { HTML_TYPE1_NAMES } from "../grammar/tags.ts";
import { BANG, DASH, GT, LBRACKET, LT, QUESTION, SLASH, isWhiteSpace } from "../grammar/chars.ts";

/**
 * CommonMark's HTML block start conditions of types 1-6 and end conditions of types 1-5, one
 * character at a time, for the block reader (doc-blocks.ts; the start through doc-block-opener.ts).
 * Type 7 (a line holding one complete tag) is the inline tag reader's (doc-tag-reader.ts), decided at
 * the line end (doc-line-shapes.ts).
 */

const Start = { Lt: 0, Bang: 1, BangDash: 2, Cdata: 3, Slash: 4, Name: 5, NameSlash: 6 } as const;
type StartValue = (typeof Start)[keyof typeof Start];
const CDATA = "[CDATA[";
const TYPE1: ReadonlySet<string> = new Set(HTML_TYPE1_NAMES);
const TYPE6 = new Set(
  (
    "address article aside base basefont blockquote body caption center col colgroup dd details dialog dir div dl dt fieldset figcaption " +
    "figure footer form frame frameset h1 h2 h3 h4 h5 h6 head header hr html iframe legend li link main menu menuitem nav noframes ol " +
    "optgroup option p param section search summary table tbody td tfoot th thead title tr track ul"
  ).split(" "),
);
/** Ends of HTML blocks of types 2-5 (type 1 ends at a closing script, pre, style or textarea tag). */
const BLOCK_END = ["", "", "-->", "?>", ">", "]]>"];
/** The longest tag name of types 1 and 6 ("blockquote", "figcaption"). */
const LONGEST_NAME = 10;

const isDigit = (c: number) => c >= 0x30 && c <= 0x39;
const isLetter = (c: number) => (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a);
const lower = (c: number) => String.fromCharCode(c >= 0x41 && c <= 0x5a ? c + 0x20 : c);

/** `<` read at a block start: which HTML block (types 1-6) the characters after it open. */
export class HtmlBlockStart {
  private state: StartValue = Start.Lt;
  private name = "";
  private closing = false;
  private cdata = 0;

  begin(): void {
    this.state = Start.Lt;
    this.name = "";
    this.closing = false;
    this.cdata = 0;
  }

  /** One more character: 0 while it may still open a block (taken when `take`), its type once it does, -1 when it cannot. */
  step(c: number, take: boolean): number {
    let next: StartValue = this.state;
    switch (this.state) {
      case Start.Lt:
        if (c === QUESTION) return 3;
        if (c === BANG) next = Start.Bang;
        else if (c === SLASH) next = Start.Slash;
        else if (isLetter(c)) next = Start.Name;
        else return -1;
        break;
      case Start.Bang:
        if (isLetter(c)) return 4;
        if (c === DASH) next = Start.BangDash;
        else if (c === LBRACKET) next = Start.Cdata;
        else return -1;
        break;
      case Start.BangDash:
        return c === DASH ? 2 : -1;
      case Start.Cdata:
        if (c !== CDATA.charCodeAt(this.cdata)) return -1;
        if (this.cdata === CDATA.length - 1) return 5;
        break;
      case Start.Slash:
        if (!isLetter(c)) return -1;
        next = Start.Name;
        break;
      case Start.Name:
        if (isLetter(c) || isDigit(c)) {
          if (this.name.length >= LONGEST_NAME) return -1;
          break;
        }
        // `(?:\s|>|$)` after the name: JavaScript's `\s` (U+00A0 too), as commonmark.js matches it (doc-tag-reader.ts).
        if (isWhiteSpace(c) || c === GT) return this.named() || -1;
        if (c === SLASH && TYPE6.has(this.name)) next = Start.NameSlash;
        else return -1;
        break;
      case Start.NameSlash:
        return c === GT ? 6 : -1;
    }
    if (!take) return 0;
    if (this.state === Start.Slash) this.closing = true;
    if (next === Start.Cdata) this.cdata = this.state === Start.Bang ? 1 : this.cdata + 1;
    if (next === Start.Name) this.name += lower(c);
    this.state = next;
    return 0;
  }

  /** The line ended here: a type 1 or 6 tag name ends at the line end too (0: no block). */
  atLineEnd(): number {
    return this.state === Start.Name ? this.named() : 0;
  }

  private named(): number {
    if (!this.closing && TYPE1.has(this.name)) return 1;
    return TYPE6.has(this.name) ? 6 : 0;
  }
}

/** An open HTML block's end condition on the current line (types 1-5; 6 and 7 end at a blank line). */
export class HtmlBlockEnd {
  private type = 0;
  private pos = 0;
  private name = "";
  done = false;

  begin(type: number): void {
    this.type = type;
    this.pos = 0;
    this.name = "";
    this.done = false;
  }

  step(c: number): void {
    if (this.done || this.type < 1 || this.type > 5) return;
    if (this.type !== 1) {
      const target = BLOCK_END[this.type]!;
      this.pos = matchStep(target, this.pos, c);
      if (this.pos === target.length) this.done = true;
      return;
    }
    // `</script>`, `</pre>`, `</style>` or `</textarea>`, any case.
    switch (this.pos) {
      case 0:
        if (c === LT) this.pos = 1;
        return;
      case 1:
        this.pos = c === SLASH ? 2 : c === LT ? 1 : 0;
        this.name = "";
        return;
      default:
        if (isLetter(c) && this.name.length < 8) this.name += lower(c);
        else if (c === GT && TYPE1.has(this.name)) this.done = true;
        else this.pos = c === LT ? 1 : 0;
    }
  }
}
