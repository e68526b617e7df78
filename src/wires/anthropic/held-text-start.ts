// A text block's start held back by the Anthropic stream (stream.ts), with the deltas that wait
// with it: a text block opens downstream only when text that is shown goes into it, as an empty
// text block would be replayed in the next request and the API refuses it. That holds for a
// block's first text (its start waits) and for text after a recovered call closed the block (a
// delta without text waits for the next text shown, under a new start). Whitespace waits too:
// the API refuses a text block of whitespace alone as it refuses an empty one ("text content blocks
// must contain non-whitespace text"), and a block whose words all became calls would be one.
import { BlankWait } from "../../grammar/blank.ts";
import { type Json, isObject } from "../../sse/json.ts";
import { HELD_EVENT_LIMIT } from "../../sse/rewrite.ts";

/**
 * The most whitespace that waits for words (the stream's bound for what it holds): past it, it is
 * shown (a model looping on newlines is not held without end). A JSON answer that long is never
 * read (the fetch adapter's JSON_READ_LIMIT is the same 4 MiB), so the JSON path needs no bound.
 */
export const BLANK_LIMIT = HELD_EVENT_LIMIT;

/** Whitespace alone, as the API reads a text block's (Unicode White_Space; a BOM is not). */
export { isBlank } from "../../grammar/blank.ts";

export class HeldTextStart {
  /** The upstream text block's start, held until the block releases text; undefined when none is held. */
  event: Json | undefined;
  /**
   * Deltas of the block that carry no text of their own (a citations_delta), come while no text
   * block is open downstream (its start held, or a recovered call closed it): they go out right
   * after the start when a text block opens (text is shown), in the order they came. A citation
   * whose block never opens (its text all became calls, or all after the call was dropped) cites
   * text that is no longer shown: it goes with the block (drop). An empty text_delta is dropped.
   */
  #deltas: Json[] = [];
  /**
   * How many of the waiting deltas came in a block before the one being fed (handOn): they belong
   * to that block's held text, so they go out only with it (the next text shown, while nothing else
   * came first); when a call comes first, that held text became the call and they are dropped
   * (dropHanded), as the JSON path gives a block's citations only to text of that block.
   */
  #handed = 0;
  /**
   * Shown text that is whitespace alone, come while no text block is open downstream (a block's
   * first text, or text after a recovered call): it goes out with the next words shown (open). At
   * the span's end it is shown when no call was taken out of its block, and otherwise is not sent
   * (the cost: that whitespace is not shown; a block the model wrote as whitespace alone, with no
   * markup, passes as it came). The rule is grammar/blank.ts's, shared with the middleware.
   */
  #blank = new BlankWait(BLANK_LIMIT);

  /** A text block starts: its start is held. Deltas still waiting were handed on to it (handOn); every other end dropped them. */
  hold(event: Json): void {
    this.event = event;
    this.#blank.removed = false;
  }

  /**
   * Shown text while no text block is open downstream: true when it opens none, being empty or
   * whitespace alone (which waits, up to BLANK_LIMIT). Once the engine `failed` everything passes as
   * written: only an empty text with no whitespace waiting opens none.
   */
  waits(text: string, failed: boolean): boolean {
    if (failed) return text === "" && this.#blank.text === "";
    return this.#blank.waits(text);
  }

  /**
   * The span ends with whitespace waiting: true when it is shown (no call was taken out of its
   * block, or the engine `failed` and everything passes as written); otherwise it is not sent.
   * Whitespace waits only while no text block is open downstream, so a shown one opens a block.
   */
  shownAtEnd(failed: boolean): boolean {
    if (this.#blank.text === "") return false;
    // Shown: it stays waiting, and open() puts it before the text.
    if (!this.#blank.removed || failed) return true;
    this.#blank.callTaken();
    return false;
  }

  /** A call was taken out of the block: the whitespace that waited before it is not sent, nor are deltas handed on (dropHanded). */
  callTaken(): void {
    this.#blank.callTaken();
    this.dropHanded();
  }

  /** No text block opens with what waited: the held start and the deltas that waited with it are dropped. */
  drop(): void {
    this.event = undefined;
    this.#deltas = [];
    this.#handed = 0;
    this.#blank.take();
  }

  /** A recovered call goes out before any text was shown: the deltas handed on from the block before go with its held text (drop). */
  dropHanded(): void {
    if (this.#handed === 0) return;
    this.#deltas = this.#deltas.slice(this.#handed);
    this.#handed = 0;
  }

  /**
   * The block ended holding text that goes on in the next text block (as the JSON path reads
   * adjacent text blocks): its start, never opened, is dropped; the deltas and whitespace that
   * waited go with that text when it is shown, under the next block's start.
   */
  handOn(): void {
    this.event = undefined;
    this.#handed = this.#deltas.length;
  }

  /** A delta without text while no text block is open downstream: it waits (an empty text_delta is dropped). */
  wait(event: Json): void {
    const delta = event.delta;
    if (!(isObject(delta) && delta.type === "text_delta" && delta.text === "")) this.#deltas.push(event);
  }

  /**
   * Opens a block under downstream `index`: the held start (or a new one) and the deltas that
   * waited, in the order they came, then `text` shown after the whitespace that waited.
   */
  open(index: number, text = ""): Json[] {
    const start = this.event ?? textStart(index);
    const deltas = this.#deltas;
    const shown = this.#blank.take() + text;
    this.drop();
    start.index = index;
    for (const delta of deltas) delta.index = index;
    return shown === "" ? [start, ...deltas] : [start, ...deltas, textDelta(index, shown)];
  }
}

export function textDelta(index: number, text: string): Json {
  return { type: "content_block_delta", index, delta: { type: "text_delta", text } };
}

function textStart(index: number): Json {
  return { type: "content_block_start", index, content_block: { type: "text", text: "" } };
}
