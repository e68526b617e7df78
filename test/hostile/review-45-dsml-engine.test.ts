/**
 * Review 45, area 2: the streaming engine (src/engine/*) around DSML: documentation context at the
 * edge of a quoted call, maxCalls, tool restrictions. Every case runs whole, char by char and at
 * five seeded random splits (runAtEverySplit asserts they agree; they do for every case here).
 */
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { createRepairEngine } from "../../src/engine/engine.ts";
import { withAliases } from "../../src/parse/aliases.ts";
import { parseDsmlSpan } from "../../src/parse/dialects/dsml/parse-span.ts";
import { SchemaGate } from "../../src/parse/schema-gate.ts";
import { resolveParseOptions } from "../../src/parse/types.ts";
import type { ToolSpec } from "../../src/parse/types.ts";
import { escaped, live } from "../golden/notation.ts";
import { fixtureTools } from "../golden/tools.ts";
import { DOCUMENTED_EXAMPLES, EXAMPLE_BLOCK, EXAMPLE_INVOKE } from "../support/cut-off-examples.ts";
import { everyChar, randomCuts, runAtEverySplit, runEngine } from "../support/run-engine.ts";

/** A quoted DSML write of `docs/calls.md`: its content is `content`, its own closers follow. */
const quotedWrite = (content: string) =>
  live(`<{D}tool_calls>\n<{D}invoke name="write">\n<{D}parameter name="filePath" string="true">docs/calls.md</{D}parameter>\n<{D}parameter name="content" string="true">`) +
  content +
  live(`</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`);

const ranExample = (r: ReturnType<typeof runAtEverySplit>) => r.calls.some((c) => c.tool === "bash" && c.input.command === "rm -rf x");

describe("a documentation block closed by a line inside the value of a DSML call it quotes", () => {
  // Severity: wrong execution (medium: a model explaining how it would write a Markdown page that
  // documents tool calls, the very situation of a project like this one), plus lost text: once the
  // example runs, everything after it (the quoted write's closers, the fence, the prose) is
  // stripped as a fabricated result (S03).
  // The model quotes a whole DSML write inside a fence (or an HTML block, or a comment); the
  // write's content is Markdown holding its own fence (or a blank line, or `-->`), which by
  // CommonMark closes the outer block. The example call written next inside that content is then
  // outside any documentation and runs, though the write's own `</{D}parameter>` right after it
  // shows it was the content's text (the example-in-value rule, S02.8-S02.16, keeps it text when
  // the write itself is live; compare the control). Expected: nothing runs, the text stays whole.
  // Suspected: src/engine/doc-context.ts / doc-fence.ts / doc-html.ts with src/engine/text-mode.ts:
  // a call quoted in documentation is never a candidate, so nothing tracks that the lines after
  // the closing line are still inside its value; no later evidence (a parameter closer that closes
  // nothing open) takes the example back.
  const fencedDoc = (open: string, close: string) =>
    `Here is how I would write the page:\n${open}\n${quotedWrite(`# Calls\n${close}\n${EXAMPLE_BLOCK}\n${open}\n`)}\n${close}\nThat is all.`;

  test("a ``` fence: the page's own fence closes it, its DSML example runs", () => {
    const input = fencedDoc("```", "```");
    const r = runAtEverySplit(input, fixtureTools);
    // Observed: bash {command: "rm -rf x"} runs; visible text ends at the page's fence line.
    expect(ranExample(r)).toBe(false);
    expect(r.text).toContain("That is all.");
  });

  test("a ~~~ fence: the same", () => {
    expect(ranExample(runAtEverySplit(fencedDoc("~~~", "~~~"), fixtureTools))).toBe(false);
  });

  test("an HTML block (`<details>`): a blank line between the page's paragraphs ends it", () => {
    const input = `<details>\n${quotedWrite(`# Calls\n\nRun it like this:\n${EXAMPLE_BLOCK}\n`)}\n</details>\n\nok`;
    // Observed: the example runs.
    expect(ranExample(runAtEverySplit(input, fixtureTools))).toBe(false);
  });

  test("an HTML comment: `-->` in the page ends it", () => {
    const input = `<!--\n${quotedWrite(`a --> b\n${EXAMPLE_BLOCK}\n`)}\n-->\nok`;
    expect(ranExample(runAtEverySplit(input, fixtureTools))).toBe(false);
  });

  test("a ``` fence, the example a lone invoke (orphan, B05)", () => {
    const input = "```\n" + quotedWrite(`# Calls\n\`\`\`\n${EXAMPLE_INVOKE}\n`) + "\n```\nok";
    expect(ranExample(runAtEverySplit(input, fixtureTools))).toBe(false);
  });

  test("control (passes today): the same write unquoted is written whole, its example never runs", () => {
    const content = `# Calls\n\`\`\`\n${EXAMPLE_BLOCK}\n\`\`\`\n`;
    const r = runAtEverySplit(quotedWrite(content), fixtureTools);
    expect(r.calls.map((c) => [c.tool, c.input])).toEqual([["write", { filePath: "docs/calls.md", content }]]);
  });
});

describe("the stream against its own span walk, on one complete DSML block", () => {
  // Severity: wrong execution (high; ~12% of the generated blocks). A complete block whose value
  // holds only closers and non-structural tags (no opener of any dialect, so no restart is
  // possible) must give the calls the span walk gives over the whole block: the stream may refuse
  // more (a missed repair), never run a call the walk does not, nor with other arguments. Observed:
  // the stream ends the span early and runs the call cut short (`write {content: "v"}` for
  // `v</invoke> ; rm -rf build </{D}invoke>...`, `bash {command: "v</{D}command> <a>\n"}` where
  // the walk refuses the call), or runs one the walk refuses. fast-check prints a shrunk
  // counterexample (escaped notation). Cause, for most: src/engine/candidate.ts
  // SpanReader.plainInValue forgets the open value after any sentinel tag that is no parameter
  // opener and after any prefix-less closer (see review-45-dsml-reader.test.ts), so the closer
  // rule is no longer applied to a later closer; the span walk (dialects/dsml/walk.ts) keeps the
  // value open.
  const ctx = { tools: withAliases(new Map(fixtureTools.map((t) => [t.name, t]))), options: resolveParseOptions(undefined), schemas: new SchemaGate() };
  const FRAGMENTS = [
    "<{D}thinking>", "</{D}thinking>", "<{D}bash>", "</{D}bash>", "<{D}command>", "</{D}command>", "</{D}invoke>", "</{D}tool_calls>", "</parameter>", "</invoke>", "</function_calls>",
    "</function>", "</tool_call>", "</{D}parameter>", "<a>", "</a>", "<br/>", "</{D}function_calls>", "<{D}description>", "</{D}description>", "</name>", "<name>",
    // fx45-dsml-restart: plain closers mentioned in prose (the closer rule makes each a mention), lone closer lines.
    "ends with </parameter> and </invoke> tags.", "\n</{D}invoke>\n</{D}tool_calls>\n", "</parameter> x",
  ];
  const FILL = [" text ", "\n", " ", "x\n", "\n\n", " ; rm -rf build "];
  const block = fc.record({
    write: fc.boolean(),
    value: fc.array(fc.tuple(fc.constantFrom(...FRAGMENTS), fc.constantFrom(...FILL)), { minLength: 1, maxLength: 4 }).map((parts) => "v" + parts.map(([t, f]) => t + f).join("")),
  }).map(({ write, value }) =>
    write
      ? `<{D}tool_calls>\n<{D}invoke name="write">\n<{D}parameter name="filePath" string="true">a.md</{D}parameter>\n<{D}parameter name="content" string="true">${value}</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`
      : `<{D}tool_calls>\n<{D}invoke name="bash">\n<{D}parameter name="command" string="true">${value}</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`,
  );

  const subset = (notation: string) => {
    const input = live(notation);
    const walk = parseDsmlSpan(input, ctx).flatMap((seg) => (seg.kind === "call" ? [JSON.stringify([seg.tool, seg.input])] : []));
    const stream = runEngine(input, [], fixtureTools).calls.map((c) => JSON.stringify([c.tool, c.input]));
    const extra = stream.filter((c) => !walk.includes(c));
    if (extra.length > 0) expect({ input: escaped(input), extra: extra.map(escaped) }).toEqual({ input: escaped(input), extra: [] });
  };

  // The same for the tool-named form (I11, `<{D}write>` / `<{D}content>`): ~23% of the generated
  // elements (e.g. `v</invoke> ` as the content: the walk writes it, the stream writes "v").
  test("I11: every call the stream runs is one the walk over the whole element reads, with the same input", () => {
    const element = fc.record({
      write: fc.boolean(),
      value: fc.array(fc.tuple(fc.constantFrom(...FRAGMENTS), fc.constantFrom(...FILL)), { minLength: 1, maxLength: 4 }).map((parts) => "v" + parts.map(([t, f]) => t + f).join("")),
    }).map(({ write, value }) => (write ? `<{D}write>\n<{D}filePath>a.md</{D}filePath>\n<{D}content>${value}</{D}content>\n</{D}write>` : `<{D}bash>\n<{D}command>${value}</{D}command>\n</{D}bash>`));
    fc.assert(fc.property(element, subset), { seed: 45_2026, numRuns: 300 });
  });

  test("every call the stream runs is one the walk over the whole block reads, with the same input", () => {
    fc.assert(
      // The blocks are generated in the escaped notation (so a counterexample prints without marker bytes) and made live in subset().
      fc.property(block, subset),
      { seed: 45_2026, numRuns: 300 },
    );
  });
});

describe("hard negatives (pass today)", () => {
  test("the example in every documentation form, prose before and after: no call, text unchanged", () => {
    const forms: Record<string, string> = {
      ...DOCUMENTED_EXAMPLES,
      "an HTML <pre>": `<pre>\n${EXAMPLE_BLOCK}\n</pre>\n`,
      "an HTML comment": `<!--\n${EXAMPLE_BLOCK}\n-->\n`,
      "a <div> block": `<div>\n${EXAMPLE_BLOCK}\n</div>\n`,
      "a lazy block quote": `> ${EXAMPLE_BLOCK}\n`,
      "inline code over lines": `Use \`${EXAMPLE_BLOCK}\` to run it.\n`,
      "a link title": `[x](http://a "${EXAMPLE_BLOCK}")\n`,
      "link text": `[${EXAMPLE_BLOCK}](http://x)\n`,
      "a table row": `| a | b |\n| --- | --- |\n${EXAMPLE_BLOCK}\n`,
      "display math": `$$\n${EXAMPLE_BLOCK}\n$$\n`,
      "a four-backtick fence holding a three-backtick one": "````\n```\n" + EXAMPLE_BLOCK + "\n```\n````\n",
      "a fence whose closer is indented four spaces (no closer)": "```\ncode\n    ```\n" + EXAMPLE_BLOCK + "\n```\n",
    };
    for (const [name, doc] of Object.entries(forms)) {
      const input = `Example:\n\n${doc}\nDone.`;
      const r = runAtEverySplit(input, fixtureTools);
      expect({ name, calls: r.calls.length }).toEqual({ name, calls: 0 });
      expect({ name, text: r.text }).toEqual({ name, text: input });
    }
  });

  test("maxCalls 1: a second invoke of the block is an extra call, never run; maxCalls 0 runs nothing", () => {
    const input = live(`<{D}tool_calls>\n<{D}invoke name="bash">\n<{D}parameter name="command" string="true">ls</{D}parameter>\n</{D}invoke>\n<{D}invoke name="bash">\n<{D}parameter name="command" string="true">rm -rf x</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`);
    for (const [maxCalls, ran] of [[1, ["ls"]], [0, []]] as const) {
      for (const cuts of [[], everyChar(input.length), randomCuts(input.length, 3)]) {
        const engine = createRepairEngine({ tools: fixtureTools, maxCalls, idPrefix: "call_" });
        const events = [...cuts, input.length].flatMap((cut, i, all) => engine.feed(input.slice(i === 0 ? 0 : all[i - 1]!, cut))).concat(engine.flush());
        const calls = events.flatMap((e) => (e.type === "call" ? [e.call.input.command] : []));
        expect(calls).toEqual([...ran]);
        expect(engine.summary().broken.map((b) => b.reason)).toContain("extra-call");
      }
    }
  });

  test("a named tool (only read offered): bash in every DSML form runs nothing", () => {
    const readOnly: ToolSpec[] = fixtureTools.filter((t) => t.name === "read");
    const forms = [
      EXAMPLE_BLOCK,
      live(`<{D}bash>\n<{D}command>rm -rf x</{D}command>\n</{D}bash>`),
      live(`<{D}tool_calls>\n<{D}invoke name="read">\n<{D}parameter name="bash" string="true">\n<{D}parameter name="command" string="true">rm -rf x</{D}parameter>\n</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`),
      live(`<{D}tool_calls>\n<{D}parameter name="bash" string="true">\n<{D}parameter name="command" string="true">rm -rf x</{D}parameter>\n</{D}parameter>\n</{D}tool_calls>`),
    ];
    for (const input of forms) expect(runAtEverySplit(input, readOnly).calls).toEqual([]);
  });
});
