/**
 * A call quoted in block documentation is one quote up to its own closers (review 45, finding 5
 * follow-up; DocContext's tail in src/engine/doc-context.ts): when the block around it ended
 * inside its open value (a blank line in `<details>`, a `-->` in a comment, a `</pre>` in a
 * `<pre>`), the closers after that value (the invoke's, the block's it opened, further parameters
 * of the same invoke, white space between) are documentation too, so nothing is reported and the
 * model gets no correction about markup it only quoted; so are a further call opener and, after
 * the block's closer, a further block opener (review 52). Anything else ends the quote as before:
 * a real call after prose or a closing line runs. Every case runs whole, char by char and at
 * five seeded random splits (runAtEverySplit).
 */
import { describe, expect, test } from "bun:test";
import { createRepairEngine } from "../../src/engine/engine.ts";
import { TwoReadings } from "../../src/engine/two-readings.ts";
import { live } from "../golden/notation.ts";
import { fixtureTools } from "../golden/tools.ts";
import { EXAMPLE_BLOCK, EXAMPLE_INVOKE } from "../support/cut-off-examples.ts";
import { runAtEverySplit } from "../support/run-engine.ts";

const OPEN_WRITE = live(`<{D}tool_calls>\n<{D}invoke name="write">\n<{D}parameter name="filePath" string="true">docs/calls.md</{D}parameter>\n<{D}parameter name="content" string="true">`);
const CLOSERS = live(`</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`);
/** A quoted DSML write of `docs/calls.md` whose content is `content`, with its own closers. */
const dsmlWrite = (content: string) => OPEN_WRITE + content + CLOSERS;
/** The write without its block: an invoke alone. */
const dsmlInvokeWrite = (content: string) =>
  live(`<{D}invoke name="write">\n<{D}parameter name="filePath" string="true">docs/calls.md</{D}parameter>\n<{D}parameter name="content" string="true">`) + content + live(`</{D}parameter>\n</{D}invoke>`);
/** The same write, Claude-style. */
const claudeWrite = (content: string) =>
  `<function_calls>\n<invoke name="write">\n<parameter name="filePath">docs/calls.md</parameter>\n<parameter name="content">${content}</parameter>\n</invoke>\n</function_calls>`;
/** The same write in the tool-named form (I11). */
const toolNamedWrite = (content: string) => live(`<{D}write>\n<{D}content>`) + content + live(`</{D}content>\n</{D}write>`);

/** A real leaked call, distinct from the examples: it must run where the hard negatives say so. */
const REAL_CALL = live(`<{D}tool_calls>\n<{D}invoke name="bash">\n<{D}parameter name="command" string="true">ls -la</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`);

/** Pages whose line inside the quoted value ends the block around it, and that block's wrapper. */
const PAGES: Record<string, [page: string, wrap: (quote: string) => string]> = {
  "`<details>` (a blank line in the page)": [`# Calls\n\nRun it like this:\n${EXAMPLE_BLOCK}\n`, (q) => `<details>\n${q}\n</details>\nThat is all.`],
  "`<!--` (a `-->` in the page)": [`a --> b\n${EXAMPLE_BLOCK}\n`, (q) => `<!--\n${q}\n-->\nThat is all.`],
  "`<pre>` (a `</pre>` in the page)": [`Run:\n</pre>\n# T\n${EXAMPLE_BLOCK}\n`, (q) => `Intro:\n<pre>\n${q}\n</pre>\nDone.`],
  "a block quote (a blank line in the page)": [`# Calls\n\nRun it:\n${EXAMPLE_BLOCK}\n`, (q) => `> ${q}\nok`],
};

/** Nothing runs, nothing is reported, no nudge, every character visible. */
function quietQuote(input: string): void {
  const r = runAtEverySplit(input, fixtureTools);
  expect(r.calls.map((c) => [c.tool, c.input])).toEqual([]);
  expect(r.summary.broken.map((b) => [b.shape, input.slice(b.span[0], b.span[1])])).toEqual([]);
  expect(r.summary.nudge).toBeNull();
  expect(r.text).toBe(input);
}

const calls = (input: string) => runAtEverySplit(input, fixtureTools).calls.map((c) => [c.tool, c.input]);
/** The spans reported, with their shapes. */
const reported = (input: string) => runAtEverySplit(input, fixtureTools).summary.broken.map((b) => [b.shape, input.slice(b.span[0], b.span[1])]);

describe("the quoted call's own closers after its value: documentation, nothing reported", () => {
  for (const [name, [page, wrap]] of Object.entries(PAGES)) {
    test(`DSML write in ${name}`, () => quietQuote(wrap(dsmlWrite(page))));
    test(`Claude-style write in ${name}`, () => quietQuote(wrap(claudeWrite(page))));
    test(`an invoke without a block in ${name}`, () => quietQuote(wrap(dsmlInvokeWrite(page))));
    test(`the tool-named form (I11) in ${name}`, () => quietQuote(wrap(toolNamedWrite(page))));
  }

  test("further parameters of the quoted invoke after the value, with their values, then its closers", () => {
    const closers = live(`</{D}parameter>\n<{D}parameter name="filePath" string="true">docs/calls.md</{D}parameter>\n\n<{D}parameter name="mode" string="true">a</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`);
    const quote = live(`<{D}tool_calls>\n<{D}invoke name="write">\n<{D}parameter name="content" string="true">`) + `# Calls\n\nRun it like this:\n${EXAMPLE_BLOCK}\n` + closers;
    quietQuote(`<details>\n${quote}\n</details>\nThat is all.`);
  });

  test("blank lines and indentation between the closers", () => {
    const quote = OPEN_WRITE + `# Calls\n\nRun it like this:\n${EXAMPLE_INVOKE}\n` + live(`</{D}parameter>\n\n  </{D}invoke>\n\n\t</{D}tool_calls>`);
    quietQuote(`<details>\n${quote}\n</details>\nThat is all.`);
  });
});

test("a reply continuing a prefill whose `<details>` holds the quoted write (TwoReadings): its closers are reported by neither reading", () => {
  const prefill = "<details>\n" + live(`<{D}tool_calls>\n<{D}invoke name="write">\n<{D}parameter name="content" string="true">`) + "# Calls\n\nRun:\n";
  const reply = EXAMPLE_BLOCK + "\n" + CLOSERS + "\n</details>\nok";
  for (const cut of [0, 5, EXAMPLE_BLOCK.length + 3]) {
    const context = createRepairEngine({ tools: fixtureTools, idPrefix: "p_", history: true });
    context.feed(prefill);
    context.flush();
    const engine = createRepairEngine({ tools: fixtureTools, idPrefix: "c_", continues: { ...context.carryOver!()!, calls: 0, doc: new TwoReadings(context.carryOver!()!.doc) } });
    const events = cut === 0 ? [...engine.feed(reply), ...engine.flush()] : [...engine.feed(reply.slice(0, cut)), ...engine.feed(reply.slice(cut)), ...engine.flush()];
    expect(events.filter((e) => e.type === "call")).toEqual([]);
    expect(engine.summary().broken).toEqual([]);
    expect(engine.summary().nudge).toBeNull();
  }
});

describe("hard negatives: the quote ends at anything but its own markup", () => {
  test("a real call after the quoted call's closers runs once anything but white space ended the quote (the page's block closed or not)", () => {
    const [page] = PAGES["`<details>` (a blank line in the page)"]!;
    expect(calls(`<details>\n${dsmlWrite(page)}\n</details>\n\n${REAL_CALL}`)).toEqual([["bash", { command: "ls -la" }]]);
    expect(calls(`<details>\n${dsmlWrite(page)}\nNow for real:\n\n${REAL_CALL}`)).toEqual([["bash", { command: "ls -la" }]]);
  });

  // Review 52 (test/hostile/review-52-dsml-quoted-second-invoke.test.ts): right after a quoted
  // call's closers, with only white space between, a further block opener or invoke is a further
  // call quoted in the same place (the page broke CommonMark's block, so nothing else tells a
  // second example from a real call); it stays documentation. These pinned the opposite before.
  test("a real call right after the quoted block's closer (white space between) is quoted too: documentation", () => {
    const [page] = PAGES["`<details>` (a blank line in the page)"]!;
    quietQuote(`<details>\n${dsmlWrite(page)}\n\n${REAL_CALL}`);
    quietQuote(`<details>\n${dsmlWrite(page)}\n${REAL_CALL}`);
  });

  test("a quoted invoke without a block, then a block right after its closer: quoted too, documentation", () => {
    const [page] = PAGES["`<!--` (a `-->` in the page)"]!;
    quietQuote(`<!--\n${dsmlInvokeWrite(page)}\n${REAL_CALL}`);
  });

  test("a quoted invoke without a block, then prose, then a real call: it runs", () => {
    const [page] = PAGES["`<!--` (a `-->` in the page)"]!;
    expect(calls(`<!--\n${dsmlInvokeWrite(page)}\nNow for real:\n\n${REAL_CALL}`)).toEqual([["bash", { command: "ls -la" }]]);
  });

  test("a quoted block's invoke closed, then a real call where its block closer would be: it runs", () => {
    const [page] = PAGES["`<details>` (a blank line in the page)"]!;
    const quote = OPEN_WRITE + page + live(`</{D}parameter>\n</{D}invoke>\n`);
    expect(calls(`<details>\n${quote}${REAL_CALL}`)).toEqual([["bash", { command: "ls -la" }]]);
  });

  test("a real call in place of the quoted invoke's closer (after its value): it runs", () => {
    const [page] = PAGES["`<details>` (a blank line in the page)"]!;
    expect(calls(`<details>\n${OPEN_WRITE}${page}${live(`</{D}parameter>\n`)}${REAL_CALL}`)).toEqual([["bash", { command: "ls -la" }]]);
  });

  test("prose between the value and the closers ends the quote: those closers are stray markup, as before", () => {
    const [page] = PAGES["`<details>` (a blank line in the page)"]!;
    const input = `<details>\n${OPEN_WRITE}${page}${live(`</{D}parameter>\nok\n</{D}invoke>\n</{D}tool_calls>`)}\n</details>`;
    expect(reported(input).map(([shape]) => shape)).toEqual(["D08", "D08"]);
  });

  test("a block closer the quote did not open (an invoke quoted alone) is not its own: reported", () => {
    const [page] = PAGES["`<details>` (a blank line in the page)"]!;
    const input = `<details>\n${dsmlInvokeWrite(page)}\n${live(`</{D}tool_calls>`)}\n</details>`;
    expect(reported(input)).toEqual([["D08", live(`</{D}tool_calls>`)]]);
  });
});
