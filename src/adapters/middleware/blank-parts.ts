// Whitespace beside recovered calls in the middleware's stream (stream.ts), under the rule the
// fetch route's Anthropic wire keeps (src/grammar/blank.ts): while a text part shows no words, its
// whitespace waits for them; a call taken out of that part drops it, and at the part's end it is
// shown only when no call was. The AI SDK keeps a text part unless it is empty, and a provider
// replays it as it is: "\n" between two recovered calls would be a text part of its own on the
// next request, which the Messages API refuses, and which says nothing on any other API.
import { BlankWait, isBlank } from "../../grammar/blank.ts";
import { HELD_EVENT_LIMIT } from "../../sse/rewrite.ts";

/** One text part at a time (the one text was shown under last): parts follow one another, and text moves only to a newer one. */
export class BlankParts {
  /** Past this much whitespace (the stream's bound for what it holds), it is shown: a model looping on newlines is not held without end. */
  #wait = new BlankWait(HELD_EVENT_LIMIT);
  #id: string | undefined;
  /** The part showed words: its text goes on as it comes. */
  #worded = false;

  /** `release`: text shown under a part, as the stream sends it; `failed`: the engine gave up, and everything passes as written. */
  constructor(
    private readonly release: (id: string, text: string) => void,
    private readonly failed: () => boolean,
  ) {}

  /** Text shown under part `id`: released, or kept waiting while the part shows no words and it is whitespace alone. */
  text(id: string, text: string): void {
    this.#enter(id);
    if (!this.#worded) {
      if (!this.failed() && this.#wait.waits(text)) return;
      text = this.#wait.take() + text;
      this.#worded = true;
    }
    this.release(id, text);
  }

  /** Whether a delta of part `id` may go on as it came (the stream's fast path): the part shows words, or the delta brings the first ones and nothing waits. */
  plain(id: string, text: string): boolean {
    this.#enter(id);
    if (this.#worded) return true;
    if (this.#wait.text !== "" || (isBlank(text) && !this.failed())) return false;
    this.#worded = true;
    return true;
  }

  /** A call was taken out of part `id`'s text: the whitespace waiting in it is not sent. */
  callTaken(id: string): void {
    this.#enter(id);
    this.#wait.callTaken();
  }

  /** Part `id` ends (any part when left out: the reply ends): the whitespace still waiting in it is shown when no call was taken out of it. */
  end(id?: string): void {
    const part = this.#id;
    if (part === undefined || (id !== undefined && id !== part)) return;
    this.#id = undefined;
    const text = this.#wait.atEnd(this.failed());
    if (text !== "") this.release(part, text);
  }

  /** Text goes to another part: the one before is decided first (end). */
  #enter(id: string): void {
    if (this.#id === id) return;
    this.end();
    this.#id = id;
    this.#worded = false;
    this.#wait.start();
  }
}
