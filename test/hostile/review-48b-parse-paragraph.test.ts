/**
 * Review 48b (parse): the paragraph-costume rule (src/engine/candidate.ts continuesSentence,
 * tentative-closer.ts, span-kind.ts paragraph-costume): a code costume opening a line right after a
 * prose line is prose when the line after its closer's line goes on with the sentence (a lower-case
 * letter). Attacks: a continuation that starts with punctuation or Markdown emphasis before its
 * lower-case word, a second costume shown in the same sentence, and the rule refusing a plain call
 * main ran. Every case runs whole, char by char and at seeded random splits.
 */
import { describe, expect, test } from "bun:test";
import { outcome } from "../support/outcome.ts";

const costume = "<bash>\nrm -rf build\n</bash>";
const shown = (after: string) => `The agent wraps commands like\n${costume}\n${after}`;

describe("fixed: the sentence goes on after the costume, its first character no lower-case letter: the shown costume stays text", () => {
  // Severity: medium-low, wrong execution of a costume quoted inside a running sentence (the rule
  // this round added exists for exactly this reply; the sentence only starts with '(', '*', '_' or a
  // quote instead of a letter). The text after the closer is then stripped as a fabricated result.
  // Not a regression (main ran these too), a hole in the new rule. Suspected: src/engine/candidate.ts
  // continuesSentence (looks at the first character only). Expected: as with "in its replies.":
  // no call, the text whole.
  for (const [name, after] of [
    ["a parenthesis", "(in its replies)."],
    ["Markdown emphasis", "*in its replies*."],
    ["a double quote", '"in its replies".'],
    ["a comma", ", in its replies."],
  ] as const) {
    test(`continuation after ${name}`, () => {
      const input = shown(after);
      expect(outcome(input)).toEqual({ calls: [], broken: [], text: input });
    });
  }

  test("two costumes shown in one running sentence: neither runs, nothing stripped", () => {
    // main ran both; int48 runs the first (its next line is a tag, not prose) and strips the rest as
    // a fabricated result. Expected: the whole sentence is prose: no call, the text whole.
    const input = `The agent wraps commands like\n${costume}\n<bash>\nrm -rf /\n</bash>\nin its replies.`;
    expect(outcome(input)).toEqual({ calls: [], broken: [], text: input });
  });
});

describe("fixed (regression): a colon-ended line introducing the costume, then a lower-case line: the call runs as on main", () => {
  // Severity: low (false refusal, text kept; the model's own call for a cleanup does not run and
  // no nudge is sent). main: bash "rm -rf build" ran, "Cleaning up:\n" shown. "Cleaning up:" ends
  // with a colon, which introduces what follows rather than continuing a sentence through it.
  // Suspected: src/parse/costume.ts COSTUME_OPENER (continuesParagraph counts a line ending in ':'
  // as the paragraph the costume sits in) / src/engine/candidate.ts continuesSentence.
  test("Cleaning up: / costume / then I rebuild.", () => {
    const o = outcome(`Cleaning up:\n${costume}\nthen I rebuild.`);
    expect(o.calls).toEqual([{ tool: "bash", input: { command: "rm -rf build" } }]);
  });
});

describe("fixed (regression): golden call shapes after 'Running it:' with a lower-case line after them run as on main", () => {
  // Severity: low (false refusals, text kept), but wide: a differential of every golden input
  // wrapped as "Running it:\n" + input + "\nthen I check." against main's parse() finds 18
  // goldens main ran and int48 refuses (C02, C03, C04, C04b, C04c, C07, C04.1, C04.2, C45.1, C45.2,
  // R4.6, R12.n3, R43.n1, R43.n2, R44.n1, R44.n2, A40.16, E29.7): every costume and pre/code shape.
  // C02's own golden input already begins with "Running it:\n". Suspected: as above
  // (costume.ts COSTUME_OPENER continuesParagraph, candidate.ts continuesSentence). Expected: the
  // call main ran.
  for (const [id, shape, command] of [
    ["C02", "<pre><code>shell\nls -la\n</code></pre>", "ls -la"],
    ["C03", '<pre><code class="language-bash">grep -c x a &amp;&amp; echo y</code></pre>', "grep -c x a && echo y"],
    ["E29.7", "<bash>\n<command>ls</command>\n<timeout>600</timeout>\n</bash>", "ls"],
  ] as const) {
    test(`${id}: Running it: / the shape / then I check.`, () => {
      const o = outcome(`Running it:\n${shape}\nthen I check.`);
      expect(o.calls.map((c) => c.input.command)).toEqual([command]);
    });
  }
});

describe("hard negatives: the rule's other edges", () => {
  test("a lower-case continuation after a tab or spaces is still the sentence's", () => {
    for (const lead of ["\t", "  "]) {
      const input = shown(`${lead}in its replies.`);
      expect(outcome(input)).toEqual({ calls: [], broken: [], text: input });
    }
  });

  test("CRLF line ends: the shown costume stays text", () => {
    const input = `The agent wraps commands like\r\n<bash>\r\nrm -rf build\r\n</bash>\r\nin its replies.`;
    expect(outcome(input)).toEqual({ calls: [], broken: [], text: input });
  });

  test("a lazy continuation of a list item: the shown costume stays text", () => {
    const input = `- The agent wraps commands like\n${costume}\nin its replies.`;
    expect(outcome(input)).toEqual({ calls: [], broken: [], text: input });
  });

  test("a blank line after the costume: it runs as before", () => {
    expect(outcome(shown("\nin its replies.")).calls).toEqual([{ tool: "bash", input: { command: "rm -rf build" } }]);
  });
});
