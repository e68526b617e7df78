/**
 * Review 45, finding 2 in every dialect whose values are raw text between tags: a call the end of
 * the reply cut off mid-value is broken markup up to its last tag (or to a tag the reply cut off
 * after it, segments.ts cutOffMarkupEnd), not to the end of the text. The live repair shows every
 * character as before; history (src/history/sanitize.ts) replaces only the markup with the note
 * and keeps the value's text and whatever the model wrote after it, as it does for a unit the next
 * markup ended (restart-span.test.ts).
 */
import { describe, expect, test } from "bun:test";
import { parse } from "../../src/engine/parse.ts";
import { REMOVED_NOTE, redactLeaks } from "../../src/history/sanitize.ts";
import { live } from "../golden/notation.ts";
import { fixtureTools } from "../golden/tools.ts";
import { runAtEverySplit } from "../support/run-engine.ts";

/** Each dialect's markup up to the opener of a value, the value itself cut off after it. */
const openers: [string, string][] = [
  ["DSML block", live(`<{D}tool_calls>\n<{D}invoke name="bash">\n<{D}parameter name="command" string="true">`)],
  ["DSML invoke", live(`<{D}invoke name="bash">\n<{D}parameter name="command" string="true">`)],
  ["Claude-style wrapper (O07)", `<function_calls>\n<invoke name="bash">\n<parameter name="command">`],
  ["Claude-style invoke", `<invoke name="bash">\n<parameter name="command">`],
  ["MiniMax wrapper (O05)", `<minimax:tool_call>\n<invoke name="bash">\n<parameter name="command">`],
  ["Qwen3-Coder (O02)", `<tool_call>\n<function=bash>\n<parameter=command>`],
  ["GLM (O03)", `<tool_call>bash\n<arg_key>command</arg_key>\n<arg_value>`],
];

const tails = [
  ["prose", "\n\nThen I will check the output and report back."],
  ["a fenced block", "\n\nThe expected output:\n\n```\nREADME.md\nsrc\n```\nThat is all."],
  ["blank lines and a heading", "\n\n\n## Next steps\n\n- look"],
] as const;

describe("a call cut off mid-value: history's note replaces its tags only", () => {
  for (const [dialect, open] of openers) {
    for (const [name, tail] of tails) {
      // Severity: lost text (medium): history dropped what the user saw.
      test(`${dialect}, then ${name}`, () => {
        const input = `Run:\n${open}ls -la${tail}`;
        const run = runAtEverySplit(input, fixtureTools);
        expect({ calls: run.calls.length, text: run.text, broken: run.summary.broken.map((b) => input.slice(b.span[0], b.span[1])) }).toEqual({ calls: 0, text: input, broken: [open] });
        const out = redactLeaks(input, {}, fixtureTools);
        expect(out.text).toBe(`Run:\n${REMOVED_NOTE}ls -la${tail}`);
        const again = parse(out.text, fixtureTools);
        expect({ calls: again.calls.length, broken: again.broken.length }).toEqual({ calls: 0, broken: 0 });
      });
    }
  }
});

describe("a tag the reply cut off after the value is markup too: the note runs to the end", () => {
  const cutTags: [string, string, string][] = [
    ["DSML", openers[0]![1], live(`</{D}param`)],
    ["Claude-style", openers[2]![1], "</param"],
    ["Qwen3-Coder", openers[5]![1], "</param"],
    ["GLM", openers[6]![1], "</arg_val"],
  ];
  for (const [dialect, open, cut] of cutTags) {
    test(`${dialect}: value, prose, then ${JSON.stringify(cut)} at the reply's end`, () => {
      const input = `Run:\n${open}ls -la\n\nprose\n${cut}`;
      expect(runAtEverySplit(input, fixtureTools).text).toBe(input);
      expect(redactLeaks(input, {}, fixtureTools).text).toBe(`Run:\n${REMOVED_NOTE}`);
    });
  }
});

describe("hard negatives", () => {
  test("a call that closed is replaced whole, the prose after it kept", () => {
    const input = `Run:\n<function_calls>\n<invoke name="bash">\n<parameter name="command">ls</parameter>\n</invoke>\n</function_calls>\nDone.`;
    expect(redactLeaks(input, {}, fixtureTools).text).toBe(`Run:\n${REMOVED_NOTE}\nDone.`);
  });

  test("a wrapper cut off after its invoke closed: the note ends at the invoke's closer", () => {
    const invoke = `<minimax:tool_call>\n<invoke name="read">\n<parameter name="filePath">/a</parameter>\n</invoke>`;
    const input = `Run:\n${invoke}\n\nI will read it next.`;
    expect(redactLeaks(input, {}, fixtureTools).text).toBe(`Run:\n${REMOVED_NOTE}\n\nI will read it next.`);
  });
});
