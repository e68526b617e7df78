/**
 * Review 50 (rules): LineEnds (src/engine/line-ends.ts) folds its pieces lazily. Its unit test holds
 * it to an eager model; this holds the whole engine to it: the same reply, read with the lazy
 * reader and with one that folds after every piece (each read followed by a fact asked), gives the
 * same calls, text and reports, whole, char by char and at seeded random splits. Pieces mix long
 * lines (past the 1,024-character fold), CR LF cut anywhere, costumes in sentences, Hermes and DSML
 * blocks with strays. Found no disagreement (hard negative, kept as a guard).
 */
import { expect, test } from "bun:test";
import fc from "fast-check";
import { LineEnds } from "../../src/engine/line-ends.ts";
import { runAtEverySplit } from "../support/run-engine.ts";
import { fixtureTools } from "../golden/tools.ts";
import { live } from "../golden/notation.ts";

const lazyRead = LineEnds.prototype.read;

/** Runs `f` with every LineEnds folding at once after each piece (`before` asks a fact, which folds). */
function eagerly<T>(f: () => T): T {
  LineEnds.prototype.read = function (this: LineEnds, ...args: Parameters<typeof lazyRead>) {
    lazyRead.apply(this, args);
    void this.before;
  };
  try {
    return f();
  } finally {
    LineEnds.prototype.read = lazyRead;
  }
}

const words = [
  "The agent writes commands like", "in its replies.", "Run:", "ok,", "x".repeat(1100), "very ".repeat(260),
  "\n", "\r\n", "\r", "\n\n", " ", "\u00a0", "<bash>", "</bash>", "rm -rf build", "<shell>ls</shell>", "\u4e2d\u6587", "- item", "> q", "\u2014", "`", "```",
  "<tool_call>", "</tool_call>", '{"name": "bash", "arguments": {"command": "ls"}}',
  "<{D}tool_calls>", '<{D}invoke name="bash">', '<{D}parameter name="command" string="true">ls</{D}parameter>', "</{D}invoke>", "</{D}tool_calls>",
  '<{D}parameter name="workdir" string="true">/t</{D}parameter>',
];

/** Each property runs hundreds of replies at every split twice: past bun's 5 s default on a loaded shared machine (no time is asserted). */
const PROPERTY_TIMEOUT = 120_000;

const seen = (r: ReturnType<typeof runAtEverySplit>) => JSON.stringify([r.calls.map((c) => [c.tool, c.input]), r.text, r.summary.broken.map((b) => b.reason)]);

test("the lazy line reader decides every reply as the eager one does, at every split", () => {
  let calls = 0;
  fc.assert(
    fc.property(fc.array(fc.constantFrom(...words), { maxLength: 30 }), (xs) => {
      const input = live(xs.join(""));
      const lazy = runAtEverySplit(input, fixtureTools);
      calls += lazy.calls.length;
      expect(seen(lazy)).toBe(seen(eagerly(() => runAtEverySplit(input, fixtureTools))));
    }),
    { seed: 5001, numRuns: 150 },
  );
  // The property ran replies that made calls, not only text.
  expect(calls).toBeGreaterThan(0);
}, PROPERTY_TIMEOUT);

// Finding 5's fix (review 50): Unicode spaces, zero-width characters and a backslash hard break at
// a line's end or the next line's start, cut anywhere, decide as the eager reader does.
const spacedWords = [
  "The agent writes commands like", "in its replies.", "Run:", "Then.", "\n", "\r\n", "\n\n", " ", "\u00a0", "\u202f", "\u3000", "\u200b", "\ufeff", "\\",
  "<bash>\nrm -rf build\n</bash>", "<shell>ls</shell>", "\u4e2d\u6587", "x".repeat(1100),
];

test("the lazy line reader decides as the eager one with Unicode spaces and hard breaks, at every split", () => {
  let calls = 0;
  let texts = 0;
  fc.assert(
    fc.property(fc.array(fc.constantFrom(...spacedWords), { maxLength: 24 }), (xs) => {
      const input = xs.join("");
      const lazy = runAtEverySplit(input, fixtureTools);
      calls += lazy.calls.length;
      if (lazy.calls.length === 0 && input.includes("<bash>")) texts++;
      expect(seen(lazy)).toBe(seen(eagerly(() => runAtEverySplit(input, fixtureTools))));
    }),
    { seed: 5002, numRuns: 150 },
  );
  // The property ran replies that made calls and costumes kept as text.
  expect(calls).toBeGreaterThan(0);
  expect(texts).toBeGreaterThan(0);
}, PROPERTY_TIMEOUT);

test("the eager stand-in really folds (a fact asked after each piece): same facts as the lazy reader", () => {
  const lazy = new LineEnds();
  const eager = eagerly(() => {
    const l = new LineEnds();
    l.read("Run it,\r", 0, 8);
    l.read("\nx".repeat(600), 0, 1200);
    l.read("\r\nmore,", 0, 7);
    return l;
  });
  lazy.read("Run it,\r", 0, 8);
  lazy.read("\nx".repeat(600), 0, 1200);
  lazy.read("\r\nmore,", 0, 7);
  expect([lazy.before, lazy.lead, lazy.endsMidSentence()]).toEqual([eager.before, eager.lead, eager.endsMidSentence()]);
});
