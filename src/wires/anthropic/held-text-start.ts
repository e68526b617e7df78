// A text block's start held back by the Anthropic stream (stream.ts), with the deltas that wait
// with it: a text block opens downstream only when text that is shown goes into it, as an empty
// text block would be replayed in the next request and the API refuses it. That holds for a
// block's first text (its start waits) and for text after a recovered call closed the block (a
// delta without text waits for the next text shown, under a new start).
import { type Json, isObject } from "../../sse/json.ts";

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

  /** A text block starts: its start is held. Deltas still waiting were handed on to it (handOn); every other end dropped them. */
  hold(event: Json): void {
    this.event = event;
  }

  /** No text block opens with what waited: the held start and the deltas that waited with it are dropped. */
  drop(): void {
    this.event = undefined;
    this.#deltas = [];
    this.#handed = 0;
  }

  /** A recovered call goes out before any text was shown: the deltas handed on from the block before go with its held text (drop). */
  dropHanded(): void {
    if (this.#handed === 0) return;
    this.#deltas = this.#deltas.slice(this.#handed);
    this.#handed = 0;
  }

  /**
   * The block ended holding text that goes on in the next text block (as the JSON path reads
   * adjacent text blocks): its start, never opened, is dropped; the deltas that waited go with
   * that text when it is shown, under the next block's start.
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

  /** Opens a block under downstream `index`: the held start (or a new one) and the deltas that waited, in the order they came. */
  open(index: number): Json[] {
    const start = this.event ?? textStart(index);
    const deltas = this.#deltas;
    this.drop();
    start.index = index;
    for (const delta of deltas) delta.index = index;
    return [start, ...deltas];
  }
}

function textStart(index: number): Json {
  return { type: "content_block_start", index, content_block: { type: "text", text: "" } };
}
