// Review 53a: strings a costume's code opened, for the mention re-read (costume-hold.ts
// unclosedRereadAt). A Python `'''`/`"""` string, a `'`/`"` string, a shell `'`/`"` argument goes
// on over blank lines just as a heredoc's body does, and an example call written in it must not
// run. Not a tokenizer: one linear scan that errs toward refusing (a backslash escapes the next
// character in every quote, so a shell `'\'` stays open; a quote in a comment or an apostrophe
// counts too), since a wrongly open string only keeps a call from running (a nudge), while a
// wrongly closed one runs a call the code wrote as data.

import { BACKSLASH, DQ, SQ } from "../grammar/chars.ts";

/** Steps monotonically through `span` from `from`: openAt(at) says whether a string is open at `at`. */
export class CostumeQuotes {
  #at: number;
  /** The open quote: "" none, else `'`, `"`, `'''` or `"""`. */
  #open = "";
  readonly #span: string;

  constructor(span: string, from: number) {
    this.#span = span;
    this.#at = from;
  }

  /** A string opened after `from` still open at `at` (at least where the last call left off). */
  openAt(at: number): boolean {
    const span = this.#span;
    let i = this.#at;
    while (i < at) {
      const c = span.charCodeAt(i);
      if (c === BACKSLASH) {
        i += 2;
        continue;
      }
      if (c !== SQ && c !== DQ) {
        i++;
        continue;
      }
      const q = span[i]!;
      const triple = span.startsWith(q + q + q, i);
      if (this.#open === "") {
        this.#open = triple ? q + q + q : q;
        i += this.#open.length;
      } else if (this.#open === q || (this.#open.length === 3 && triple && this.#open[0] === q)) {
        i += this.#open.length;
        this.#open = "";
      } else i++;
    }
    // A quote or escape straddling `at` is read whole; the next call starts past it.
    this.#at = Math.max(i, at);
    return this.#open !== "";
  }
}
