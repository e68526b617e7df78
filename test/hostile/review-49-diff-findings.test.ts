/**
 * Review 49 (differential, hostile; tests only, no source change). The harness in
 * review-49-diff-entries.test.ts found every entry (parse, engine at any split, fetch on three wires
 * as SSE and JSON, middleware stream and generate, proxy, a reasoning channel first) in agreement on
 * one text part; the disagreements are between one part and two parts of the same reply, between a
 * golden fixture and the same fixture after a prefix or after an earlier call, and between the live
 * path and history. Each failing test below proves one finding: what, severity, suspected source.
 * Tests marked "hard negative" pass on main and pin the behaviour the finding departs from.
 * No DSML marker bytes here: fixtures are read from fixtures.json, new text is built by live().
 */
import { describe, expect, test } from "bun:test";
import { parse } from "../../src/engine/parse.ts";
import { REMOVED_NOTE, redactLeaks } from "../../src/history/sanitize.ts";
import type { Fixture } from "../golden/build-fixtures.ts";
import { live } from "../golden/notation.ts";
import { fixtureTools } from "../golden/tools.ts";
import { anthropicJson, anthropicStream, engineRun, responsesJson, responsesStream, spannedEngineRun, type Scenario } from "../property/diff-harness.ts";
import { everyChar, observable, randomCuts, runEngine } from "../support/run-engine.ts";
import { replayedInProcess as replayed } from "./review-49-diff-support.ts";

const stored = (await Bun.file(new URL("../golden/fixtures.json", import.meta.url)).json()) as Fixture[];
const fx = (id: string) => stored.find((f) => f.id === id)!.input;

/** parse(), asserting the engine char by char and at seeded random splits reads the same (no split finding). */
function read(text: string) {
  const whole = observable(runEngine(text, [], fixtureTools));
  expect(observable(runEngine(text, everyChar(text.length), fixtureTools))).toEqual(whole);
  for (let seed = 1; seed <= 5; seed++) expect(observable(runEngine(text, randomCuts(text.length, 4900 + seed, 16), fixtureTools))).toEqual(whole);
  const p = parse(text, fixtureTools);
  return { commands: p.calls.map((c) => (c.input as { command?: unknown }).command ?? c.tool), nudge: p.nudge, text: p.text };
}

// FIXED, FINDING 1 (high: wrong execution; src/parse Qwen3-Coder reader (`<function=NAME>` body) and the
// costume reader, src/engine/text-mode.ts line-start rule for the `<tool_call>` wrapper). Golden
// O48.4 (a Qwen3-Coder write whose body is YAML, `content: |`, holding `<shell>rm -rf build</shell>`)
// is refused as broken markup when `<tool_call>` opens a line. Put anything before the `<tool_call>`
// on its line (a lead-in "Sure: ", an earlier call's or block's closer: golden B45.2, D01, I10, C02,
// O01 glued or a space apart) or leave the wrapper out, and the wrapper is no longer read: the
// `<shell>` costume inside the write's body runs `rm -rf build`, and the `</function>\n</tool_call>`
// after it is stripped as the S03 tail. The same write with `<parameter=...>` tags is read as a write
// wherever its wrapper stands (hard negative below), so only the YAML body loses its outer call.
// Expected: refused (broken-markup, nothing runs), as at the line start. Kept now: the wrapper
// cases by the broken-body rule (tool-call-body.ts), the bare `<function=write>` opening its line for
// a declared tool by QWEN_FUNCTION (src/parse/dialects/qwen.ts), which refuses it whole.
describe("fixed (finding 1): a Qwen3-Coder write whose body is no parameter pairs is refused whole wherever its wrapper stands, and without a wrapper: its costume never runs", () => {
  const O484 = fx("O48.4");
  const BODY = O484.slice("<tool_call>\n".length);
  const cases: [string, string][] = [
    ["a lead-in on the wrapper's line", `Sure: ${O484}`],
    ["a recovered DSML block's closer, a space apart (D01 + O48.4)", `${fx("D01")} ${O484}`],
    ["a Hermes call's closer, a space apart (O01 + O48.4)", `${fx("O01")} ${O484}`],
    ["a refused DSML block's closer, glued (B45.2 + O48.4)", `${fx("B45.2")}${O484}`],
    ["no <tool_call> wrapper at all", BODY.replace("\n</tool_call>", "")],
  ];
  for (const [what, text] of cases) {
    test(`${what}: rm -rf build does not run, the write is refused`, () => {
      const r = read(text);
      expect(r.commands).not.toContain("rm -rf build");
      expect(r.commands).not.toContain("write");
      expect(r.nudge).toBe("broken-markup");
    });
  }
  test("a bare <function=write> after a lead-in, its body laid out on its own lines, is refused too", () => {
    expect(read(`Sure: ${BODY.replace("\n</tool_call>", "")}`)).toMatchObject({ commands: [], nudge: "broken-markup" });
  });
  test("hard negative: a bare <function=write> named in a sentence that goes on on its line stays text with no nudge", () => {
    expect(read("Qwen writes <function=write> and then its parameters, one per line.")).toMatchObject({ commands: [], nudge: null });
    expect(read("<function=write> is how Qwen opens a call.")).toMatchObject({ commands: [], nudge: null });
  });
  test("hard negative: a bare <function=write> with parameter pairs still runs the write", () => {
    expect(read("<function=write>\n<parameter=filePath>\na.md\n</parameter>\n<parameter=content>\nhi\n</parameter>\n</function>").commands).toEqual(["write"]);
  });
  test("hard negative: O48.4 at a line start is refused (passes today)", () => {
    expect(read(`Sure:\n${O484}`)).toMatchObject({ commands: [], nudge: "broken-markup" });
  });
  test("hard negative: the same write with <parameter=...> tags after a lead-in is a write, its costume kept in the content (passes today)", () => {
    const text = "Sure: <tool_call>\n<function=write>\n<parameter=filePath>a.md</parameter>\n<parameter=content>\n<shell>\nrm -rf build\n</shell>\n</parameter>\n</function>\n</tool_call>";
    expect(read(text).commands).toEqual(["write"]);
  });
});

// FINDING 2 (high: wrong execution in one entry; src/engine/engine.ts endSpan and the state text
// mode keeps after it: src/engine/text-mode.ts stray-parameter rules, example-in-value refusal).
// A reply whose text reaches the adapter as two parts (Responses: two output_text parts or two
// message items; Anthropic: two text blocks with a thinking block between) is read by one engine
// with endSpan() between the parts (the design: a part boundary ends markup). When the boundary
// falls inside an outer call, the example in that call's value runs, although the whole reply does
// not run it (the write runs with the example as its content, S02.9 / E45.8) and neither part read
// alone runs it (the first is a cut-off call, the second broken markup: its loose parameter
// openers refuse it). Cuts as plain as the end of the `<invoke name="write">` line do it
// (S02.9, cut after that line). Likewise golden P48.8 (a stray parameter before an orphan invoke,
// refused) cut after its first `<`: the orphan's `rm -rf ./*` runs without its workdir. The same
// split with no thinking block between (Anthropic text blocks back to back, one span) agrees with
// the whole. Not the pinned "held block calls run at endSpan" gap: the call that runs is not held
// at the boundary, it is read in the part after it. Expected: the part after a boundary that cut
// markup is read as a fresh reply is (its loose parameter / closer lines refuse what follows), or
// nothing in it runs that the whole reply refuses.
// Rule kept (src/engine/engine.ts endSpan, cut-tag.ts, DocContext.partEnded): a part boundary ends
// markup and the next part reads on as after it: no readable invoke stays open across it (its
// parameter openers open loose values), a bar right after a `<` cut there is a `<`-lost opener,
// and a marker tag the next part completes leaves the markup's end unknown (no later call runs).
describe("a part boundary inside an outer call never runs the example in its value (finding 2, fixed)", () => {
  const cases: [string, string, number, string][] = [
    ["S02.9 (Claude write holding a Qwen3-Coder example) cut after the invoke line", "S02.9", fx("S02.9").indexOf("\n<parameter"), "rm -rf x"],
    ["E45.8 (tool-named write holding a DSML example) cut inside its filePath tag", "E45.8", 29, "rm -rf x"],
    ["P48.8 (stray parameter before an orphan invoke) cut after its first <", "P48.8", 1, "rm -rf ./*"],
  ];
  for (const [what, id, cut, command] of cases) {
    const text = fx(id);
    const parts = [text.slice(0, cut), text.slice(cut)];
    const s: Scenario = { text, tools: fixtureTools };
    test(`${what}: neither the whole nor either part alone runs ${command} (hard negative, passes today)`, () => {
      expect(engineRun(s, []).calls.map((c) => (c.input as { command?: string }).command)).not.toContain(command);
      for (const part of parts) expect(parse(part, fixtureTools).calls.map((c) => (c.input as { command?: string }).command)).not.toContain(command);
    });
    test(`${what}: Responses (two parts, two items), Anthropic (thinking between) and the spanned engine read the next part as after the markup ended, and do not run ${command}`, async () => {
      const runs = {
        spannedEngine: spannedEngineRun(s, parts),
        responsesParts: await responsesJson(s, [parts]),
        responsesItems: await responsesJson(s, [[parts[0]!], [parts[1]!]]),
        responsesSse: await responsesStream(s, 3, [parts]),
        anthropicThinkingBetween: await anthropicJson(s, parts, true),
        anthropicSseThinkingBetween: await anthropicStream(s, 3, parts, true),
      };
      const ran = Object.fromEntries(Object.entries(runs).map(([k, r]) => [k, r.calls.some((c) => (c.input as { command?: string }).command === command)]));
      expect(ran).toEqual(Object.fromEntries(Object.keys(runs).map((k) => [k, false])));
    });
  }
  test("hard negative: Anthropic text blocks back to back (one span) agree with the whole (passes today)", async () => {
    const text = fx("S02.9");
    const cut = text.indexOf("\n<parameter");
    const s: Scenario = { text, tools: fixtureTools };
    expect((await anthropicJson(s, [text.slice(0, cut), text.slice(cut)])).calls).toEqual(engineRun(s, []).calls);
  });
});

// FINDING 3 (high: wrong execution; src/engine/text-mode.ts LineEnds after a call span or after text
// released from a held candidate, read by
// src/engine/candidate.ts / tentative-closer.ts for review 48's paragraph costume). Golden N48.2 and
// N48.5 keep a costume that sits inside a sentence as text ("The agent wraps commands like\n<bash>...
// </bash>\n(in its replies)."). When the sentence starts on the line of an earlier call's closer
// (`</tool_call> The agent wraps...`, a DSML block's closer then a space), the line before the
// costume is read as a fresh line and `rm -rf build` runs. The same sentence after plain prose on
// that line ("OK. The agent wraps...") stays text. Worse, the rule also fails on lines of their own
// after markup the engine held and then released as text (an unclosed Hermes call, an unclosed
// plain element), so the line tracker seems to miss released text, not only a call's span.
// Expected: the line that began after a call's closer, or after released text, is still the line
// before the costume (text, nothing runs beyond the earlier call).
describe("finding 3: the paragraph costume rule forgets the line before it after a call or after released markup", () => {
  const N482 = fx("N48.2");
  const N485 = fx("N48.5");
  const HERMES = '<tool_call>\n{"name": "bash", "arguments": {"command": "ls"}}\n</tool_call>';
  const cases: [string, string][] = [
    ["a Hermes call's closer then N48.2", `${HERMES} ${N482}`],
    ["a DSML block's closer then N48.2 (D02 + N48.2)", `${fx("D02")} ${N482}`],
    ["a DSML block's closer then N48.5 (D02 + N48.5)", `${fx("D02")} ${N485}`],
    ["J29.2 glued to N48.2", `${fx("J29.2")}${N482}`],
    // The same rule after markup held and released as text, on lines of their own: an unclosed
    // Hermes call (O01.4, which alone runs `ls`) and an unclosed plain element (E29.n9, text).
    // O01.4 then N48.3 runs `rm -rf build` and `rm -rf /` (and not `ls`); "in its replies." is
    // stripped as the S03 tail.
    ["O01.4 then N48.3 on the next line", `${fx("O01.4")}\n${fx("N48.3")}`],
    ["E29.n9 then N48.2 a blank line apart", `${fx("E29.n9")}\n${N482}`],
  ];
  for (const [what, text] of cases) {
    test(`${what}: rm -rf build does not run`, () => {
      const { commands } = read(text);
      expect(commands).not.toContain("rm -rf build");
      expect(commands).not.toContain("rm -rf /");
    });
  }
  test("hard negative: the same sentence after plain prose on its line stays text (passes today)", () => {
    expect(read(`OK. ${N482}`)).toMatchObject({ commands: [], nudge: null });
    expect(read(`OK. ${N485}`)).toMatchObject({ commands: [], nudge: null });
  });
});

// FIXED, FINDING 4 (medium-low: wrong execution; src/engine/text-mode.ts strayOutsideBlock after a block
// whose closer was read inside a value). Golden P48.5 (a stray parameter before an orphan invoke)
// is refused wherever it stands after prose, after a recovered DSML block or after B45.2's refused
// block on the same line. After golden A40.22 (a block closer quoted inside a command value, then
// the real closer) on the same line, the orphan invoke's `rm -rf ./*` runs without its workdir.
// Expected: refused (broken-markup), as after any other text. Kept now: a stray DSML parameter in
// text no call took (here the block's broken span that ran on over it) refuses the orphan invokes
// after it (src/engine/span-stray.ts, engine.ts finish).
describe("fixed (finding 4): a stray parameter inside a refused block's span (A40.22) refuses the orphan invoke after it", () => {
  const P485 = fx("P48.5");
  test("A40.22 then P48.5 a space apart: rm -rf ./* does not run", () => {
    expect(read(`${fx("A40.22")} ${P485}`).commands).not.toContain("rm -rf ./*");
  });
  test("hard negative: after prose, after D02 or after B45.2 on the same line it is refused (passes today)", () => {
    for (const before of ["Done.</x>", fx("D02"), fx("B45.2")]) expect(read(`${before} ${P485}`).commands).not.toContain("rm -rf ./*");
  });
});

// Finding 5 (fixed: src/engine/output.ts, the history branch, and src/history/sanitize.ts
// FirstReading). A DeepSeek V3 legacy call whose arguments sit in a ```json fence closed on the
// `<{BAR}tool{SP}call{SP}end{BAR}>` line (golden L01, L06) left, in history, a fence open for the rest of the
// reply: the history engine read a well-formed call's markup as released text (the line
// "```<token>" is no closing fence), where the live path reads it as markup (afterMarkup). Live, the
// L01 call and the DSML block after it both run; replayed, only L01 was replaced. Rule now kept: a
// call's markup is read in history as the live repair reads it, so every span the live path
// recovers is replaced by the note, through every history entry.
describe("finding 5: history replaces every call after a DeepSeek V3 fenced call", () => {
  const AFTER = live(`<{D}tool_calls>\n<{D}invoke name="bash">\n<{D}parameter name="command" string="true">echo two</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`);
  const E291 = fx("E29.1");
  const cases: [string, string][] = [
    ["L01 then a DSML block", `${fx("L01")}\n\n${AFTER}`],
    ["L06 then a DSML block", `${fx("L06")}\n\n${AFTER}`],
    ["L01 then a tool-named DSML call (E29.1)", `${fx("L01")} ${E291}`],
  ];
  for (const [what, text] of cases) {
    test(`${what}: live runs both; every history entry replaces both (a fence inside a call's arguments opens no documentation)`, async () => {
      expect(parse(text, fixtureTools).calls).toHaveLength(2);
      const all = await replayed(text, fixtureTools);
      for (const [entry, out] of Object.entries(all)) {
        expect({ entry, notes: out.split(REMOVED_NOTE).length - 1, runsAgain: parse(out, fixtureTools).calls.length }).toEqual({ entry, notes: 2, runsAgain: 0 });
      }
    });
  }
  test("hard negative: the DSML block first, then L01: both replaced (passes today)", () => {
    const out = redactLeaks(`${AFTER}\n\n${fx("L01")}`, {}, fixtureTools);
    expect(out.removed).toBe(2);
  });
});

// Finding 6 (fixed with finding 5: the history engine read C02's markup as released text, so the
// `<pre>` it had just read left L07.1 inside documentation). Golden C02
// (`<pre><code>shell\nls -la\n</code></pre>`, runs) glued to golden L07.1 (a DeepSeek V3 call with no
// separator, refused: broken-markup). Live: ls -la runs, L07.1 is reported and stripped (S03 tail).
// Rule now kept: history replaces L07.1 too, as it does alone or on the next line.
describe("finding 6: history replaces a V3 legacy call glued to an HTML costume's closer", () => {
  test("C02 glued to L07.1: no legacy token left in the replayed text (markup the live path reports is replaced)", () => {
    const text = `${fx("C02")}${fx("L07.1")}`;
    const p = parse(text, fixtureTools);
    expect({ calls: p.calls.length, nudge: p.nudge }).toEqual({ calls: 1, nudge: "broken-markup" });
    const out = redactLeaks(text, {}, fixtureTools);
    expect(parse(out.text, fixtureTools).broken).toEqual([]);
  });
  test("hard negative: C02 then L07.1 on the next line: both replaced (passes today)", () => {
    const out = redactLeaks(`${fx("C02")}\n${fx("L07.1")}`, {}, fixtureTools);
    expect(parse(out.text, fixtureTools).broken).toEqual([]);
  });
});

// Finding 7 (fixed with finding 5: the history engine read the first call's markup as released
// text, so the documentation context took its tags or fence as a quote or a block, and the second
// call was read inside it). Two calls the live path runs both of, the second right after the first
// (glued, a space apart, or on the next line): history replaced the first only. Found by pairing
// golden fixtures: Kimi tokens without their `<` (R11.3) glued to an XML tool_call (C01); an HTML
// pre/code costume (C02) glued to a Kimi section (O04); a Kimi section without its `<` (R11.4) then
// an element-style call (I09); a DSML toolcall with a fenced JSON body (I10) then a DSML block a
// space apart (A41.5); a plain tool-named write (E29.8) then a DSML tool-named write on the next
// line (E45.10). Rule now kept: both spans replaced by the note through every in-process history
// entry, as for O04 then C01.
describe("finding 7: history replaces both of two calls the live path runs", () => {
  const pairs: [string, string, string][] = [
    ["R11.3", "", "C01"],
    ["C02", "", "O04"],
    ["R11.4", " ", "I09"],
    ["I10", " ", "A41.5"],
    ["E29.8", "\n", "E45.10"],
  ];
  for (const [a, sep, b] of pairs) {
    test(`${a} ${JSON.stringify(sep)} ${b}: both replaced, nothing in the replayed text runs again`, async () => {
      const text = `${fx(a)}${sep}${fx(b)}`;
      expect(parse(text, fixtureTools).calls.length).toBeGreaterThanOrEqual(2);
      const all = await replayed(text, fixtureTools);
      const runsAgain = Object.fromEntries(Object.entries(all).map(([entry, out]) => [entry, parse(out, fixtureTools).calls.length]));
      expect(runsAgain).toEqual(Object.fromEntries(Object.keys(all).map((k) => [k, 0])));
    });
  }
  test("hard negative: O04 glued to C01, and a space apart: both replaced (passes today)", () => {
    for (const sep of ["", " "]) expect(redactLeaks(`${fx("O04")}${sep}${fx("C01")}`, {}, fixtureTools).removed).toBe(2);
  });
});

// FIXED, FINDING 8 (high: wrong execution; src/engine/text-mode.ts orphan-invoke state left by a prose
// mention, and the example-in-value refusal of review 46 (S46.x)). Golden S46.3 (a Qwen3-Coder
// write whose `<function =write>` tag is unreadable, holding an example call) and S46.2 (a bare
// invoke with a zero-width space, holding the same example) are refused (broken-markup), also after
// a paragraph of plain prose. After golden N14 or N4.4 (a sentence that mentions a DSML invoke
// opener, `Models emit <{D}invoke name="bash"> followed by parameters.`), a blank line apart, the
// example runs `rm -rf x`. The mention runs nothing itself and the blank line ends its paragraph.
// Expected: refused as after any prose. Kept now: an invoke or function opener mentioned in a
// sentence opens no call for the loose-value rule (src/engine/doc-context.ts noteLooseTag), as a
// parameter opener mentioned in one opens no value.
describe("fixed (finding 8): an invoke opener mentioned in prose leaves no call open: a later unreadable outer call's example is refused", () => {
  const pairs: [string, string][] = [
    ["N14", "S46.3"],
    ["N14", "S46.2"],
    ["N4.4", "S46.3"],
  ];
  for (const [a, b] of pairs) {
    test(`${a}, a blank line, ${b}: rm -rf x does not run`, () => {
      expect(read(`${fx(a)}\n\n${fx(b)}`).commands).not.toContain("rm -rf x");
    });
  }
  test("hard negative: after plain prose S46.3 is refused (passes today)", () => {
    expect(read(`Some prose here.\n\n${fx("S46.3")}`)).toMatchObject({ commands: [], nudge: "broken-markup" });
  });
});

// FIXED, FINDING 9 (medium-high: wrong execution; src/engine/text-mode.ts stray-parameter rules (P47.11,
// strayOutsideBlock, review 48's P48.x) after a call cut off mid-reply). Golden P48.5 / P48.8 (a
// stray parameter, `workdir`, before an orphan invoke) and P47.5 (the stray before the invoke in its
// block) are refused: the invoke would run without the workdir the model stated. After a call the
// reply cut off (golden R7.9, a namespaced wrapper never closed; B07, an orphan invoke cut off in
// its value; R7.10, a bare invoke cut off), the same text runs `rm -rf ./*` without its workdir.
// Expected: refused (the cut-off call is reported as well). Kept now: the cut-off candidate ran on
// over the stray parameter, so text mode never read it; a DSML parameter outside every invoke, or
// opened while the value before it never closed, in text no call took refuses the invokes after it
// (src/engine/span-stray.ts).
describe("fixed (finding 9): a stray parameter swallowed by a call cut off earlier still refuses the invoke after it", () => {
  const pairs: [string, string, string][] = [
    ["R7.9", "\n\n", "P48.8"],
    ["B07", "\n\n", "P48.5"],
    ["R7.10", "\n", "P47.5"],
  ];
  for (const [a, sep, b] of pairs) {
    test(`${a} ${JSON.stringify(sep)} ${b}: rm -rf ./* does not run`, () => {
      expect(read(`${fx(a)}${sep}${fx(b)}`).commands).not.toContain("rm -rf ./*");
    });
  }
  test("hard negative: each of P48.8, P48.5, P47.5 after plain prose is refused (passes today)", () => {
    for (const b of ["P48.8", "P48.5", "P47.5"]) expect(read(`Checking.\n\n${fx(b)}`).commands).not.toContain("rm -rf ./*");
  });
  test("hard negative: a cut-off call with one parameter, or whose values all closed (S02.5), does not refuse a whole invoke after it", () => {
    const next = live(`<{D}invoke name="bash">\n<{D}parameter name="command" string="true">ls</{D}parameter>\n</{D}invoke>`);
    expect(read(`${fx("B07")}\n\n${next}`).commands).toEqual(["ls"]);
    expect(read(`${fx("R7.10")}\n${next}`).commands).toEqual(["ls"]);
  });
});

// FIXED, FINDING 10 (low: missed call / missed nudge, and history departing from live; src/engine (the
// Hermes reader's closer-missing rule, golden O01.4) and src/history/stray-markup.ts). Golden O01.4
// (a complete Hermes call whose `</tool_call>` never came, at the reply's end) runs `ls`. With a
// sentence after it ("\n\nThat should do it.") the live path shows the call as text with no nudge
// (nothing runs, no correction), while history replaces it with the note (shape T01, a history-only
// reading). So history removes what live neither ran nor refused. Nothing wrong runs; the model is
// neither served nor corrected. Expected: live reports it (truncated-call or broken-markup nudge),
// or runs it as at the reply's end, so live and history agree. Kept now: an object naming a declared
// tool whose closer never came, prose on a later line, is refused as broken markup up to the object's
// end (O01, as golden T29.8; src/parse/dialects/tool-call-body.ts ToolCallStart.atEnd).
describe("fixed (finding 10): a Hermes call whose closer never came, then a sentence, is refused with a nudge as history removes it", () => {
  test("O01.4 then a sentence: nothing runs, broken-markup nudge, every character visible", () => {
    const text = `${fx("O01.4")}\n\nThat should do it.`;
    expect(read(text)).toEqual({ commands: [], nudge: "broken-markup", text });
  });
  test("T29.2 (its closer cut to `</tool_ca`) then a sentence: nothing runs, broken-markup nudge", () => {
    const text = `${fx("T29.2")}\n\nThat should do it.`;
    expect(read(text)).toEqual({ commands: [], nudge: "broken-markup", text });
  });
  test("hard negative: the sentence on the object's own line (a mention, golden N21.7) stays text with no nudge", () => {
    const text = `${fx("O01.4")} That should do it.`;
    expect(read(text)).toEqual({ commands: [], nudge: null, text });
  });
  test("hard negative: an object naming no declared tool, then a sentence, stays text with no nudge", () => {
    const text = `<tool_call>\n{"name": "publish", "arguments": {"x": 1}}\n\nThat should do it.`;
    expect(read(text)).toEqual({ commands: [], nudge: null, text });
  });
  test("history replaces a Hermes call whose closer never came, and keeps the sentence after it", async () => {
    const text = `${fx("O01.4")}\n\nThat should do it.`;
    for (const [entry, out] of Object.entries(await replayed(text, fixtureTools))) expect({ entry, out }).toEqual({ entry, out: `${REMOVED_NOTE}\n\nThat should do it.` });
  });
  test("hard negative: O01.4 at the reply's end runs ls (passes today)", () => {
    expect(read(fx("O01.4")).commands).toEqual(["ls"]);
  });
});

// FINDING 2b (medium: wrong execution in one entry; src/engine/engine.ts endSpan with
// src/engine/text-mode.ts LineEnds / the held paragraph costume). Golden N48.3 (two costumes inside
// one running sentence, text) cut into two parts at a line end, after the first `<bash>` line: the
// Responses and Anthropic-with-thinking entries run the second costume's `rm -rf /`. The second part
// read alone runs it too, so the engine reads the part after endSpan as a fresh reply, although the
// sentence it sits in began in the first part (a part boundary ends markup, not the paragraph: the
// documentation context is carried over, the paragraph rule's line state is not). Cut after the
// second `<bash>` the first costume's `rm -rf build` runs at the boundary instead. Possibly accepted
// under "a part boundary ends markup"; reported because the whole reply is a hard negative and the
// command is `rm -rf /`. Expected: nothing runs, as in one part.
describe("finding 2b: a paragraph costume sentence cut into two text parts runs a costume", () => {
  // Known gap (cut after the second `<bash>`): a part's end decides what it holds as the reply's end
  // would (the first costume's sentence cannot wait for the next part), the pinned endSpan class.
  // Fixed (fix 53): a part's end always has a later part now (every wire flushes its last part):
  // a paragraph costume waiting for its next line there, or a costume cut before its closer, is
  // shown as written and ends the markup where no one can tell (engine.ts finish): nothing runs.
  for (const [what, cut] of [["after the first <bash> line", 37], ["after the second <bash>", 64]] as const) {
    test(`N48.3 cut ${what}: nothing runs through Responses parts or Anthropic blocks with thinking between`, async () => {
      const text = fx("N48.3");
      const parts = [text.slice(0, cut), text.slice(cut)];
      const s: Scenario = { text, tools: fixtureTools };
      expect(engineRun(s, []).calls).toEqual([]);
      const runs = {
        spannedEngine: spannedEngineRun(s, parts),
        responsesParts: await responsesJson(s, [parts]),
        anthropicThinkingBetween: await anthropicJson(s, parts, true),
      };
      expect(Object.fromEntries(Object.entries(runs).map(([k, r]) => [k, r.calls.map((c) => (c.input as { command?: string }).command)]))).toEqual({ spannedEngine: [], responsesParts: [], anthropicThinkingBetween: [] });
    });
  }
});

// FINDING 11 (low: a false correction; src/engine/engine.ts endSpan reporting a cut-off span). A
// sentence that mentions a format (golden N21, N21.7, N43.1: a Hermes `<tool_call>{...}` or an invoke
// written inline in prose; text, no nudge) cut into two text parts inside the mention (Responses
// output_text parts, Anthropic blocks with thinking between) is reported as a call the reply cut
// off: nudge truncated-call, so the wire's retry schedules a correction for a reply that called
// nothing. Expected: no nudge, as in one part (the rest of the mention arrives in the next part).
// Rule kept (src/engine/cut-tag.ts CutReports): a call cut off mid-line at a part's end is reported
// as truncated only if the reply ends there; the next part's text withdraws the report.
describe("a part's end is not the reply's: a format mention cut into two text parts draws no truncated-call nudge (finding 11, fixed)", () => {
  for (const [id, cut] of [["N21", 34], ["N21.7", 43], ["N43.1", 47]] as const) {
    test(`${id} cut at ${cut}: no nudge through the spanned engine and Responses parts`, async () => {
      const text = fx(id);
      const parts = [text.slice(0, cut), text.slice(cut)];
      const s: Scenario = { text, tools: fixtureTools };
      expect(engineRun(s, []).nudge).toBeNull();
      expect({ spanned: spannedEngineRun(s, parts).nudge, responses: (await responsesJson(s, [parts])).nudge }).toEqual({ spanned: null, responses: null });
    });
  }
});
