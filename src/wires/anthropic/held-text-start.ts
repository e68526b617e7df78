// A text block's start held back by the Anthropic stream (stream.ts), with the deltas that wait
// with it: a block whose text all became calls is never opened, as an empty text block would be
// replayed in the next request and the API refuses it.
import { type Json, isObject } from "../../sse/json.ts";

export class HeldTextStart {
  /** The upstream text block's start, held until the block releases text; undefined when none is held. */
  event: Json | undefined;
  /**
   * Deltas of the block that carry no text of their own (a citations_delta), come while its start
   * is held: they go out right after the start when the block opens (some of its text goes out),
   * in the order they came. A citation whose block never opens (its text all became calls) cites
   * text that is no longer shown: it goes with the block. An empty text_delta there is dropped.
   */
  #deltas: Json[] = [];

  hold(event: Json): void {
    this.event = event;
    this.#deltas = [];
  }

  /** A delta without text while the start is held: it waits with the start (an empty text_delta is dropped). */
  wait(event: Json): void {
    const delta = event.delta;
    if (!(isObject(delta) && delta.type === "text_delta" && delta.text === "")) this.#deltas.push(event);
  }

  /** Opens the block under downstream `index`: the held start (or a new one) and the deltas that waited with it. */
  open(index: number): Json[] {
    const held = this.event;
    const start = held ?? textStart(index);
    this.event = undefined;
    start.index = index;
    if (held === undefined || this.#deltas.length === 0) return [start];
    // The deltas that waited with the start (citations) follow it, in the order they came.
    const deltas = this.#deltas;
    this.#deltas = [];
    for (const delta of deltas) delta.index = index;
    return [start, ...deltas];
  }
}

function textStart(index: number): Json {
  return { type: "content_block_start", index, content_block: { type: "text", text: "" } };
}
