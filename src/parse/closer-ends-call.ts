import { Flaw, type Tag } from "../grammar/tags.ts";
import { CR, LF, isWhiteSpace } from "../grammar/chars.ts";
import { closerWasContent, type CloserRule } from "./closer-in-value.ts";
import { EXAMPLES_AFTER_CLOSER, anyExampleOpener, exampleEnd, type ExampleOptions } from "./example-in-value.ts";

/**
 * The closer rule (closer-in-value.ts) over a complete span, as the stream steps it: the closer ends at `at`; `tags` are the span's tags and
 * `next` the index of the first one after the closer. The end of the span ends the call (the
 * stream ended it there, or the reply ended).
 */
export function closerEndsCall(span: string, at: number, to: number, tags: readonly Tag[], next: number, rule: CloserRule, example?: ExampleOptions): boolean {
  let lineEnded = false;
  let skipped = 0;
  for (let i = at; i < to; i++) {
    const c = span.charCodeAt(i);
    // A lone CR ends a line as the documentation context reads it (CR LF once), so the next line never joins a closer's.
    if (c === LF || c === CR) lineEnded = true;
    if (isWhiteSpace(c)) continue;
    const tag = tags[next];
    const here = tag !== undefined && tag.start === i ? tag : null;
    if (closerWasContent(rule, here, lineEnded)) return false;
    // Up to MORE_CLOSER_LINES further DSML invoke or block closers between the lone closer and the example (TentativeCloser.closerAfterCloser).
    if (lineEnded && here !== null && rule.valueCloser === "dsml" && skipped < MORE_CLOSER_LINES && isDsmlCallCloser(here)) {
      skipped++;
      next++;
      i = here.end - 1;
      continue;
    }
    // Golden A45.5, E45.11: a DSML call example next that the value's own closer ends: the closer was text too (the stream reads it so, Candidate.exampleAfterCloser).
    // `example`: the open value's I11 reading (an I11 example's opener, an I11 child's own closer), as for an example anywhere in it.
    // An example of any dialect (golden S02.17, S02.18), as after an example in the value.
    if (!lineEnded || here === null || rule.valueCloser !== "dsml" || !anyExampleOpener(here, example?.declared)) return true;
    return exampleEnd(span, tags, next, "dsml", to, true, example ? { ...example, most: EXAMPLES_AFTER_CLOSER } : AFTER_CLOSER).end < 0;
  }
  return true;
}

/**
 * Golden A45.8: a page documents closers on lines of their own
 * (`</{D}invoke>` then `</{D}tool_calls>`) before its example. After a lone closer line in a DSML
 * value, at most this many further DSML invoke or block closers may come before the example that
 * the value's own closer ends (a constant: each closer's lookahead stays bounded, the work linear).
 */
export const MORE_CLOSER_LINES = 2;

/** A DSML invoke or block closer (not self-closing). */
export const isDsmlCallCloser = (tag: Tag) => tag.family === "dsml" && tag.closing && (tag.role === "invoke" || tag.role === "block") && !(tag.flaws & Flaw.SelfClosing);

/** At most EXAMPLES_AFTER_CLOSER examples, no I11 examples (the lookahead after a closer that ended its line). */
const AFTER_CLOSER: ExampleOptions = Object.freeze({ most: EXAMPLES_AFTER_CLOSER });
