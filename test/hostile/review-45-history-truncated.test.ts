/**
 * Review 45, area 2: history (src/history/sanitize.ts) replaces a broken span with the note. A
 * call cut off mid-value by the end of the reply (S02, truncated-call) is broken from its opener
 * to the end of the text, so everything the model wrote after the cut-off line, prose and a fenced
 * block included, is replaced by the note in history although the live repair showed all of it.
 * A unit that the NEXT markup ended stops at its last tag instead (test/history/restart-span.test.ts:
 * "history keeps the value's text and the documentation"); one the end of the reply ended does not.
 */
import { describe, expect, test } from "bun:test";
import { parse } from "../../src/engine/parse.ts";
import { REMOVED_NOTE, redactLeaks } from "../../src/history/sanitize.ts";
import { live } from "../golden/notation.ts";
import { fixtureTools } from "../golden/tools.ts";

const open = live(`<{D}tool_calls>\n<{D}invoke name="bash">\n<{D}parameter name="command" string="true">`);
const after = [
  ["prose", "\n\nThen I will check the output and report back.\n\nMore prose here."],
  ["a fenced block", "\n\nThe expected output:\n\n```\nREADME.md\nsrc\n```\nThat is all."],
] as const;

describe("a call cut off by the end of the reply, then text", () => {
  for (const [name, tail] of after) {
    // Severity: lost text (medium): history drops what the user saw. Suspected:
    // src/parse/dialects/dsml/parse-span.ts (the truncated span's end: the end of the text, not
    // its last tag, unlike endAtLastTag for a unit the next markup ended) and so
    // src/history/sanitize.ts redactOnce. Expected: the note replaces the markup up to the cut-off
    // value's parameter opener; the value's text and everything after it stay as written.
    test(`cut off mid-value, then ${name}: history keeps the text after the last tag`, () => {
      const input = `Run:\n${open}ls -la${tail}`;
      const live = parse(input, fixtureTools);
      expect({ calls: live.calls.length, text: live.text }).toEqual({ calls: 0, text: input }); // the live repair shows every character
      expect(redactLeaks(input, {}, fixtureTools).text).toBe(`Run:\n${REMOVED_NOTE}ls -la${tail}`);
    });
  }

  test("hard negative (passes today): the same cut-off value ended by the next markup keeps the text after its last tag", () => {
    const input = `Run:\n${open}ls -la\n\nThen:\n${live(`<{D}tool_calls>\n<{D}invoke name="bash">\n<{D}parameter name="command" string="true">pwd</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`)}`;
    expect(redactLeaks(input, {}, fixtureTools).text.startsWith(`Run:\n${REMOVED_NOTE}ls -la\n\nThen:\n`)).toBe(true);
  });
});
