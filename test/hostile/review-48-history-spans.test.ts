/**
 * Review 48 (hostile, tests only): the history sanitizer (src/history/sanitize.ts redactLeaks,
 * redactReply) over every dialect, read as one text and split over text parts. Each finding test (now fixed)
 * says what is wrong, its severity and the suspected source file; the rest are hard negatives
 * (they pass today and say so). DSML is built from escaped notation (test/golden/notation.ts).
 */
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { REMOVED_NOTE, redactLeaks, redactReply } from "../../src/history/sanitize.ts";
import { escaped, live } from "../golden/notation.ts";
import { fixtureTools } from "../golden/tools.ts";
import { indent } from "../support/cut-off-examples.ts";
import { runAtEverySplit } from "../support/run-engine.ts";

const NS = "ant" + "ml:";
const history = (text: string) => redactLeaks(text, {}, fixtureTools);

/** One complete `rm -rf x` bash call in each dialect the live repair acts on. */
const CALLS: Record<string, string> = {
  "DSML block": live(`<{D}tool_calls>\n<{D}invoke name="bash">\n<{D}parameter name="command" string="true">rm -rf x</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`),
  "DSML, double vertical line": live(`<{DVL}DSML{DVL}tool_calls>\n<{DVL}DSML{DVL}invoke name="bash">\n<{DVL}DSML{DVL}parameter name="command" string="true">rm -rf x</{DVL}DSML{DVL}parameter>\n</{DVL}DSML{DVL}invoke>\n</{DVL}DSML{DVL}tool_calls>`),
  "DSML, ASCII bars": `<|DSML|tool_calls>\n<|DSML|invoke name="bash">\n<|DSML|parameter name="command" string="true">rm -rf x</|DSML|parameter>\n</|DSML|invoke>\n</|DSML|tool_calls>`,
  "DeepSeek V3 legacy": live(`<{BAR}tool{SP}calls{SP}begin{BAR}><{BAR}tool{SP}call{SP}begin{BAR}>bash<{BAR}tool{SP}sep{BAR}>{"command":"rm -rf x"}<{BAR}tool{SP}call{SP}end{BAR}><{BAR}tool{SP}calls{SP}end{BAR}>`),
  Hermes: `<tool_call>{"name":"bash","arguments":{"command":"rm -rf x"}}</tool_call>`,
  "Qwen3-Coder": `<tool_call>\n<function=bash>\n<parameter=command>\nrm -rf x\n</parameter>\n</function>\n</tool_call>`,
  GLM: `<tool_call>bash\n<arg_key>command</arg_key>\n<arg_value>rm -rf x</arg_value>\n</tool_call>`,
  "Claude-style": `<function_calls>\n<invoke name="bash">\n<parameter name="command">rm -rf x</parameter>\n</invoke>\n</function_calls>`,
  "Claude-style, namespaced": `<${NS}function_calls>\n<${NS}invoke name="bash">\n<${NS}parameter name="command">rm -rf x</${NS}parameter>\n</${NS}invoke>\n</${NS}function_calls>`,
  Mistral: `[TOOL_CALLS][{"name":"bash","arguments":{"command":"rm -rf x"}}]`,
  "MiniMax bracket": `[TOOL_CALL] {tool => "bash", args => { --command "rm -rf x" }} [/TOOL_CALL]`,
  "named element": `<bash>\n<command>rm -rf x</command>\n</bash>`,
  "shell costume": `<shell>rm -rf x</shell>`,
  "LFM2 pythonic list": `<|tool_call_start|>[bash(command="rm -rf x")]<|tool_call_end|>`,
  Kimi: `<|tool_calls_section_begin|><|tool_call_begin|>functions.bash:0<|tool_call_argument_begin|>{"command":"rm -rf x"}<|tool_call_end|><|tool_calls_section_end|>`,
};

/** Markup residue: the command or any dialect's tag words (the note holds none of them). */
const RESIDUE = /rm -rf|tool_call|invoke|TOOL_CALL|function_calls|arg_key|<shell|<bash|DSML|[\uFF5C\u2016\u2581]/;

// ---------------------------------------------------------------------------------------------
// Findings: prose after a cut-off call replaced with the note (lost text)
// ---------------------------------------------------------------------------------------------

describe("a call the end of the reply cut off, then prose: history keeps the prose", () => {
  const PROSE = "Then I will check the output and report back.";

  // fixed (finding 1): (medium: lost text in history; the model no longer sees what it said). A DeepSeek V3
  // legacy call cut off after its separator (no call-end token), then a line of prose: the live
  // repair shows every character and runs nothing (truncated-call), but history replaces the
  // markup AND every line after it with the note: "Run:\n" + NOTE, the prose is gone. Review 45's
  // rule (test/history/cut-off-span.test.ts) is that a cut-off span ends at its last tag; the
  // legacy dialect was not covered there. Expected: "Run:\n" + NOTE + "\n" + PROSE (or the JSON
  // kept beside the note, as other dialects keep a cut-off value).
  // Suspected: src/parse/legacy.ts (the truncated span runs to the end of the text).
  test.each([
    ["after the separator", live(`<{BAR}tool{SP}calls{SP}begin{BAR}><{BAR}tool{SP}call{SP}begin{BAR}>bash<{BAR}tool{SP}sep{BAR}>`)],
    ["after the JSON arguments", live(`<{BAR}tool{SP}calls{SP}begin{BAR}><{BAR}tool{SP}call{SP}begin{BAR}>bash<{BAR}tool{SP}sep{BAR}>{"command":"ls"}`)],
  ])("fixed: DeepSeek V3 legacy call cut off %s", (_, open) => {
    const input = `Run:\n${open}\n${PROSE}`;
    const run = runAtEverySplit(input, fixtureTools);
    expect({ calls: run.calls.length, text: run.text === input }).toEqual({ calls: 0, text: true });
    const out = history(input);
    expect(out.removed).toBe(1);
    expect(escaped(out.text)).toContain(PROSE);
    expect(out.text.startsWith(`Run:\n${REMOVED_NOTE}`)).toBe(true);
  });

  // fixed (finding 2): (medium: lost text in history). A Mistral call list whose closing bracket never
  // came (`[TOOL_CALLS][{...}` then prose): live shows it all (truncated-call), history leaves
  // "Run:\n" + NOTE and drops the prose. Expected: the prose kept after the note.
  // Suspected: src/parse/dialects/mistral.ts (the truncated span runs to the end of the text).
  test("fixed: Mistral call list cut off before its closing bracket", () => {
    const input = `Run:\n[TOOL_CALLS][{"name":"bash","arguments":{"command":"ls"}}\n${PROSE}`;
    const run = runAtEverySplit(input, fixtureTools);
    expect({ calls: run.calls.length, text: run.text === input }).toEqual({ calls: 0, text: true });
    const out = history(input);
    expect(out.removed).toBe(1);
    expect(out.text).toContain(PROSE);
  });

  // fixed (finding 3): (medium: lost text, and inconsistent). A lone DSML block opener, then one line of a
  // single word: "Run:\n<block opener>\nDone." becomes "Run:\n" + NOTE ("Done." lost; same for
  // "OK", "ls"), while the same opener before a line of two words is left as written (finding 3b).
  // Expected: the note replaces the opener only and the word stays.
  // Suspected: src/parse/dialects/dsml (the cut-off wrapper's span, I10, runs to the end).
  test.each(["Done.", "OK", "ls"])("fixed: a lone DSML block opener, then the one-word line %p", (word) => {
    const input = live(`Run:\n<{D}tool_calls>\n${word}`);
    const out = history(input);
    expect(out.text).toContain(`\n${word}`);
  });

  // fixed (finding 3b): (low-medium: live DSML markup left in history; same cause as 3). The same lone block
  // opener (real marker bytes, never prose) followed by a line of two or more words ("ok then",
  // "The command failed.", or "Done." then a paragraph) is neither run nor reported live, and
  // history leaves it verbatim: "Run:\n<block opener>\nok then" is replayed, and the model sees its
  // own DSML opener on every turn. Expected: the opener replaced by the note, the prose kept.
  // Suspected: src/parse/dialects/dsml (a wrapper opener with no invoke is no span unless the next
  // line is one word), src/history/sanitize.ts.
  test.each(["ok then", "The command failed.", "Done.\n\nNow the summary: all good."])("fixed: a lone DSML block opener, then %p", (tail) => {
    const input = live(`Run:\n<{D}tool_calls>\n${tail}`);
    expect(escaped(history(input).text)).toBe(`Run:\n${REMOVED_NOTE}\n${tail}`);
  });

  // fixed (finding 3c): (low: same as 3b for the other dialects' special tokens, which are never prose):
  // a lone DeepSeek V3 begin token, Kimi section opener or LFM2 call start, then prose, is left
  // verbatim in history. Suspected: src/parse/legacy.ts (no span for an opener with nothing after).
  test.each([
    ["DeepSeek V3 calls-begin token", live(`<{BAR}tool{SP}calls{SP}begin{BAR}>`)],
    ["Kimi section opener", "<|tool_calls_section_begin|>"],
    ["LFM2 call start", "<|tool_call_start|>"],
  ])("fixed: a lone %s, then prose", (_, open) => {
    const input = `Run:\n${open}\nThe command failed.`;
    expect(escaped(history(input).text)).toBe(`Run:\n${REMOVED_NOTE}\nThe command failed.`);
  });

  test("hard negative (passes today): the DSML invoke cut off after its opener keeps the prose (the rule the findings above break)", () => {
    const input = live(`Run:\n<{D}tool_calls>\n<{D}invoke name="bash">\n${PROSE}`);
    expect(history(input).text).toBe(`Run:\n${REMOVED_NOTE}\n${PROSE}`);
  });
});

// ---------------------------------------------------------------------------------------------
// Findings: markup the model will imitate left in history
// ---------------------------------------------------------------------------------------------

describe("leaked markup left in history", () => {
  // fixed (finding 4): (low-medium: a whole call the model will imitate stays in history). A Hermes call
  // whose `</tool_call>` never came (the reply ended, or prose followed) is a complete call with
  // name and arguments; live runs nothing and reports nothing, and history leaves it verbatim:
  // `<tool_call>{"name":"bash","arguments":{"command":"rm -rf x"}}` replayed on every turn.
  // History never runs anything, so replacing it costs no trust. Expected: the note in its place,
  // the prose after it kept. Suspected: src/parse/dialects/tool-call.ts (an unclosed Hermes body is
  // no span), so src/history/sanitize.ts never sees it.
  test("fixed: a Hermes call without its closer, then prose", () => {
    const input = `Running:\n<tool_call>{"name":"bash","arguments":{"command":"rm -rf x"}}\nDone, check the output.`;
    const out = history(input);
    expect(out.text).not.toContain("rm -rf x");
    expect(out.text).toContain("\nDone, check the output.");
  });

  test("hard negative (passes today): the same Hermes call without its closer at the reply's end is replaced", () => {
    const out = history(`Running:\n<tool_call>{"name":"bash","arguments":{"command":"rm -rf x"}}`);
    expect(out.text).toBe(`Running:\n${REMOVED_NOTE}`);
  });

  // fixed (finding 5): (low: wrapper tags left around the note). A Seed-OSS call (`<seed:tool_call>` around
  // a Qwen-style function) is run live, and history replaces only the inner function: the reply
  // replays as "<seed:tool_call>\n" + NOTE + "\n</seed:tool_call>", a wrapper the model will keep
  // writing. Expected: the wrapper goes with the call (as `<tool_call>` does in the Qwen3-Coder
  // form). Suspected: src/parse/dialects/qwen.ts (the span starts at `<function=`).
  test("fixed: a Seed-OSS wrapper goes with the note", () => {
    const input = "Sure.\n<seed:tool_call>\n<function=bash>\n<parameter=command>ls</parameter>\n</function>\n</seed:tool_call>\nDone.";
    expect(runAtEverySplit(input, fixtureTools).calls.length).toBe(1);
    const out = history(input);
    expect(out.removed).toBe(1);
    expect(out.text).not.toContain("seed:tool_call");
  });

  // fixed (finding 6): (low-medium: a whole leak replayed verbatim). A leak that covers two or more whole
  // text parts of one reply (an Anthropic reply cut into text blocks, e.g. around citations, or a
  // client that stores a reply in chunks) is left exactly as written: redactReply's PartWriter
  // refuses to leave two parts blank, so it writes nothing, and the full `rm -rf x` call goes back
  // to the model. Example (4 parts): ["Sure, running it now.\n<tool", "_call>{\"name\":\"bash\",\"arg",
  // "uments\":{\"", "command\":\"rm -rf x\"}}</tool_call>\nDone."] comes back unchanged. Expected:
  // no markup left (e.g. the note in one part and the other all-markup parts cut to a non-blank
  // remainder, or the markup parts dropped). Suspected: src/history/sanitize.ts PartWriter.replace
  // (the `blank.length > 1` branch). Seeded fast-check over every dialect above.
  test("fixed: a leak split over four text parts, two of them all markup", () => {
    const c = CALLS.Hermes!;
    const input = `Sure, running it now.\n${c}\nDone, check the output.`;
    const i = input.indexOf("<tool_call>");
    const parts = [input.slice(0, i + 5), input.slice(i + 5, i + 30), input.slice(i + 30, i + 40), input.slice(i + 40)];
    const out = redactReply(parts.map((text) => ({ text })), {}, fixtureTools);
    expect(out.texts.join("")).not.toContain("rm -rf x");
    expect(out.texts.every((t) => t.trim() !== "")).toBe(true);
  });

  test("fixed: seeded splits into up to five non-blank parts: no markup residue, no blank part", () => {
    const cases = Object.entries(CALLS);
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: cases.length - 1 }),
        fc.uniqueArray(fc.integer({ min: 0, max: 1_000_000 }), { minLength: 1, maxLength: 4 }),
        (which, picks) => {
          const [, c] = cases[which]!;
          const input = `Sure, running it now.\n${c}\nDone, check the output.`;
          const cuts = [...new Set(picks.map((n) => 1 + (n % (input.length - 1))))].sort((a, b) => a - b);
          const parts: string[] = [];
          let at = 0;
          for (const cut of [...cuts, input.length]) {
            parts.push(input.slice(at, cut));
            at = cut;
          }
          fc.pre(parts.every((p) => p.trim() !== ""));
          const out = redactReply(parts.map((text) => ({ text })), {}, fixtureTools);
          const joined = out.texts.join("");
          if (RESIDUE.test(joined) || out.texts.some((t) => t.trim() === "")) expect({ parts: parts.map(escaped), out: out.texts.map(escaped) }).toEqual({ parts: parts.map(escaped), out: ["no residue"] });
        },
      ),
      { seed: 48_2026, numRuns: 300 },
    );
  });

  test("hard negative (passes today): split in two parts that both keep prose, history equals the whole text's", () => {
    const cases = Object.entries(CALLS);
    fc.assert(
      fc.property(fc.integer({ min: 0, max: cases.length - 1 }), fc.integer({ min: 0, max: 1_000_000 }), (which, n) => {
        const [, c] = cases[which]!;
        const input = `Sure, running it now.\n${c}\nDone, check the output.`;
        const cut = 1 + (n % (input.length - 1));
        const out = redactReply([{ text: input.slice(0, cut) }, { text: input.slice(cut) }], {}, fixtureTools);
        expect(escaped(out.texts.join(""))).toBe(escaped(history(input).text));
      }),
      { seed: 48_2027, numRuns: 300 },
    );
  });
});

// ---------------------------------------------------------------------------------------------
// Hard negatives
// ---------------------------------------------------------------------------------------------

describe("hard negatives (pass today): every dialect", () => {
  for (const [name, c] of Object.entries(CALLS)) {
    test(`${name}: replaced by the note alone, prose around it kept; twice == once`, () => {
      const input = `Sure.\n${c}\nDone.`;
      const once = history(input);
      expect(escaped(once.text)).toBe(`Sure.\n${REMOVED_NOTE}\nDone.`);
      const twice = history(once.text);
      expect({ removed: twice.removed, same: twice.text === once.text }).toEqual({ removed: 0, same: true });
    });
  }

  test("the note holds no markup: read on its own (and beside a bare Mistral token) it is never re-noted", () => {
    expect(RESIDUE.test(REMOVED_NOTE)).toBe(false);
    for (const text of [REMOVED_NOTE, `${REMOVED_NOTE}${REMOVED_NOTE}`, `- ${REMOVED_NOTE}\n> ${REMOVED_NOTE}`, `\`${REMOVED_NOTE}\``]) expect(history(text)).toMatchObject({ text, removed: 0 });
  });
});

describe("hard negatives (pass today): documentation in an answer about the formats is never redacted", () => {
  const DOCS: Record<string, (c: string) => string> = {
    "a ```xml fence": (c) => "```xml\n" + c + "\n```\n",
    "a tilde fence": (c) => "~~~\n" + c + "\n~~~\n",
    "a four-backtick fence": (c) => "````\n" + c + "\n````\n",
    "a fence in a list item": (c) => "- example:\n\n" + indent("```\n" + c + "\n```", "  ") + "\n",
    "a fence in a numbered item": (c) => "1. step\n\n   ```\n" + indent(c, "   ") + "\n   ```\n",
    "a block quote": (c) => indent(c, "> ") + "\n",
    "a fence in a block quote": (c) => "> ```\n" + indent(c, "> ") + "\n> ```\n",
    "an indented code block": (c) => indent(c, "    ") + "\n",
    "inline code": (c) => "Write `" + c.replaceAll("\n", " ") + "` like that.\n",
    "double-backtick inline code": (c) => "Write ``" + c.replaceAll("\n", " ") + "`` like that.\n",
    "an HTML comment": (c) => "<!--\n" + c + "\n-->\n",
  };
  for (const [dialect, c] of Object.entries(CALLS)) {
    test(`${dialect}: in every documentation form, whole and in three parts`, () => {
      for (const [form, wrap] of Object.entries(DOCS)) {
        const input = `The format is:\n\n${wrap(c)}\nThat is how it looks.`;
        const a = Math.floor(input.length / 3);
        const b = Math.floor((2 * input.length) / 3);
        const whole = history(input);
        const split = redactReply([{ text: input.slice(0, a) }, { text: input.slice(a, b) }, { text: input.slice(b) }], {}, fixtureTools);
        expect({ form, whole: whole.removed, split: split.removed }).toEqual({ form, whole: 0, split: 0 });
        expect(whole.text).toBe(input);
      }
    });
  }
});
