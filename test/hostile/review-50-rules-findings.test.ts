/**
 * Review 50 (rules): the engine rules of round 49 (the block stray watch and its closer line,
 * stray-opener.ts and text-mode.ts; runaway spellings, unread-opener.ts; `<tool_call>` bodies,
 * tool-call-body.ts; the paragraph costume rule, line-ends.ts and tentative-closer.ts). Every case
 * runs whole, char by char and at seeded random splits (outcome()); the most severe ones also
 * through the fetch adapter's chat stream (7-character deltas).
 *
 * Each failing test (test.failing) says what is wrong, its severity, a minimal input, the suspected
 * file and what is expected. Beside each, hard negatives that pass today and must keep passing.
 */
import { describe, expect, test } from "bun:test";
import { outcome } from "../support/outcome.ts";
import { live } from "../golden/notation.ts";
import { deltas, openAiTools, sseText, throughFetch } from "../security/support.ts";
import { createRepairEngine } from "../../src/engine/engine.ts";
import { fixtureTools } from "../golden/tools.ts";
import { everyChar, randomCuts, runEngine } from "../support/run-engine.ts";

const rm = `<{D}invoke name="bash">\n<{D}parameter name="command" string="true">rm -rf ./*</{D}parameter>\n</{D}invoke>`;
const stray = `<{D}parameter name="workdir" string="true">/tmp/scratch</{D}parameter>`;
const open = `Cleaning.\n<{D}tool_calls>\n${rm}\n`;
const closer = `</{D}tool_calls>`;
const rmRuns = [{ tool: "bash", input: { command: "rm -rf ./*" } }];

async function fetchCalls(reply: string) {
  const { out } = await throughFetch({ model: "deepseek-chat", messages: [{ role: "user", content: "go" }], tools: openAiTools() }, { sse: sseText(deltas(reply, 7)) });
  return out.calls;
}

describe("finding 1: a block closer followed on its line by any `<`, or by 200 spaces, ends the stray watch", () => {
  // Severity: medium-low (wrong execution: `rm -rf ./*` runs in the project although the model's
  // workdir /tmp/scratch follows as a stray parameter before the block's real closer). Round 49's
  // rule: only a closer ending its line ends the watch; `</{D}tool_calls> is the closer.` is prose
  // and keeps the block watched (review-49-rules-block, passes). But closerEndsItsLine
  // (src/engine/stray-opener.ts) counts ANY `<` after the closer as "the next markup", and gives up
  // after STRAY_OPENER_REACH (200) spaces answering "ends its line": `</{D}tool_calls> <3 is the
  // closer.`, `</{D}tool_calls>< is ...`, `</{D}tool_calls><b>is</b> the closer.`, or 205 spaces then
  // words are taken as the real closer, the call runs and the stray is an S03/D08 after-block stray.
  // Minimal input: open + `</{D}tool_calls> <3 is the closer.\n` + stray + `\n</{D}tool_calls>`.
  // Expected: no call (the `<` must start a marker tag, e.g. the next block opener, to count; past
  // the reach the line is unknown, which should keep the watch, not end it).
  // Fixed: closerEndsItsLine counts as the next markup only a tag the tag grammar reads or a marker
  // opener it does not (`<` then a bar, a lookalike bar or U+2581); past STRAY_OPENER_REACH spaces
  // the line is unknown and the watch stays (false). The look-ahead stays bounded (the reach, MAX_TAG).
  for (const [name, line] of [
    ["`<3` after a space", `${closer} <3 is the closer.`],
    ["a bare `<` then words", `${closer}< is the closer.`],
    ["an inline element then words", `${closer}<b>is</b> the closer.`],
    ["205 spaces then words", `${closer}${" ".repeat(205)}is the closer.`],
  ] as const) {
    test(`${name}, then the stray, then the real closer: refused`, () => {
      expect(outcome(live(`${open}${line}\n${stray}\n${closer}`)).calls).toEqual([]);
    });
  }
  test("through the fetch adapter: `<3` after the closer", async () => {
    expect(await fetchCalls(live(`${open}${closer} <3 is the closer.\n${stray}\n${closer}`))).toEqual([]);
  });
});

describe("hard negatives beside finding 1: the closer-line rule that must keep working", () => {
  test("words after the closer keep the watch (review 49): refused", () => {
    expect(outcome(live(`${open}${closer} is the closer.\n${stray}\n${closer}`)).calls).toEqual([]);
  });
  test("the real closer alone on its line, then the stray: the call runs", () => {
    expect(outcome(live(`${open}${closer}\n${stray}\nDone.`)).calls).toEqual(rmRuns);
  });
  test("the real closer with trailing spaces, then the stray: the call runs", () => {
    expect(outcome(live(`${open}${closer}   \n${stray}\nDone.`)).calls).toEqual(rmRuns);
  });
  test("the real closer glued to the next block's opener: both calls run", () => {
    expect(outcome(live(`${open}${closer}<{D}tool_calls>\n${rm}\n${closer}`)).calls).toEqual([...rmRuns, ...rmRuns]);
  });
  test("CRLF after the real closer: the call runs", () => {
    expect(outcome(live(`${open}${closer}\r\n${stray}\r\nDone.`)).calls).toEqual(rmRuns);
  });
  test("the real closer, a space, then the next block's opener on its line: both calls run", () => {
    expect(outcome(live(`${open}${closer} <{D}tool_calls>\n${rm}\n${closer}`)).calls).toEqual([...rmRuns, ...rmRuns]);
  });
  test("the real closer, a tab, then the next block's opener on its line: both calls run", () => {
    expect(outcome(live(`${open}${closer}\t<{D}tool_calls>\n${rm}\n${closer}`)).calls).toEqual([...rmRuns, ...rmRuns]);
  });
  test("the real closer, 150 spaces (within the reach), then the stray on the next line: the call runs", () => {
    expect(outcome(live(`${open}${closer}${" ".repeat(150)}\n${stray}\nDone.`)).calls).toEqual(rmRuns);
  });
  test("the real closer glued to a degraded block opener (a marker opener the grammar does not read): the call runs", () => {
    expect(outcome(live(`${open}${closer}<{BAR}tool_calls>\nDone.`)).calls).toEqual(rmRuns);
  });
  test("prose with `<` in the block (`a < b`, `c<d`, `<div>`), then the closer: the call runs", () => {
    expect(outcome(live(`${open}if a < b and c<d then <div> ok\n${closer}`)).calls).toEqual(rmRuns);
  });
});

describe("finding 2: a stray workdir in a degraded spelling text mode does not read lets the block's call run", () => {
  // Severity: medium-low (wrong execution: `rm -rf ./*` runs in the project; the workdir the model
  // wrote inside the block, before its real closer, is dropped as the block's layout). Text mode's
  // stray check (src/engine/stray-opener.ts strayParameterOpenerAt, text-mode.ts noteStrayParameter,
  // quoted-tags.ts lookalikeTagAt) reads the one-bar, `<`-lost, spaced and `<{BAR}DSML{BAR}`
  // lookalike spellings, but not (a) `<DSML{BAR}parameter` (the first bar lost: the DSML reader
  // itself reports this spelling as broken inside an invoke, see the control) nor (b) one lookalike
  // bar and no DSML word (`<\u2502parameter`), though `<\u2223DSML\u2223parameter` is read. Minimal
  // input: open + `<DSML{BAR}parameter name="workdir" string="true">/tmp/scratch</DSML{BAR}parameter>\n`
  // + closer. Expected: no call, as for every other stray spelling (golden P47.11-P47.16).
  // Fixed: the stray watch reads its openers with the runaway rule's own predicate
  // (parse/unread-opener.ts mayStartUnreadOpener and dsmlOpenerAt), which now takes `<DSML{BAR}`
  // (first bar lost) and lookalike bars (grammar/markers.ts isOpenerBarCode, the one set text mode
  // and the runaway rule share); the one-bar spelling takes a lookalike bar too.
  for (const [name, s] of [
    ["first bar lost", `<DSML{BAR}parameter name="workdir" string="true">/tmp/scratch</DSML{BAR}parameter>`],
    ["one lookalike bar U+2502", `<\u2502parameter name="workdir">/tmp/scratch</\u2502parameter>`],
  ] as const) {
    test(`${name}, in the block before its closer: refused`, () => {
      expect(outcome(live(`${open}${s}\n${closer}`)).calls).toEqual([]);
    });
  }
  test("first bar lost, with no block open, before an orphan invoke: the orphan is refused (P48.5)", () => {
    expect(outcome(live(`<DSML{BAR}parameter name="workdir" string="true">/tmp/scratch</DSML{BAR}parameter>\n${rm}`)).calls).toEqual([]);
  });
});

describe("hard negatives beside finding 2", () => {
  test("control: `<DSML{BAR}parameter` as an invoke's parameter is refused as broken (the reader sees it)", () => {
    const o = outcome(live(`<{D}tool_calls>\n<{D}invoke name="bash">\n<DSML{BAR}parameter name="command" string="true">ls</{D}parameter>\n</{D}invoke>\n${closer}`));
    expect(o.calls).toEqual([]);
    expect(o.broken).toContain("broken-markup");
  });
  test("lookalike bars with the DSML word, in the block: refused", () => {
    expect(outcome(live(`${open}<\u2223DSML\u2223parameter name="workdir" string="true">/tmp/scratch</{D}parameter>\n${closer}`)).calls).toEqual([]);
  });
  test("the canonical stray in the block: refused", () => {
    expect(outcome(live(`${open}${stray}\n${closer}`)).calls).toEqual([]);
  });
  test("prose naming DSML in the block (no opener): the call runs at the closer", () => {
    expect(outcome(live(`${open}The DSML parameter list is done.\n${closer}`)).calls).toEqual(rmRuns);
  });
  test("`<DSML` and a box-drawing table row with `<\u2502 param` (no name) in the block: the call runs", () => {
    expect(outcome(live(`${open}See <DSML docs> and \u2502 <\u2502 param \u2502 type \u2502\n${closer}`)).calls).toEqual(rmRuns);
  });
  test("prose naming `<DSML|parameter>` (no name), then an orphan invoke: the orphan runs as without it", () => {
    expect(outcome(live(`Write <DSML|parameter> in docs.\n${rm}`)).calls).toEqual(rmRuns);
  });
});

const runaway = (opener: string, valueCloser = "</{BAR}parameter>") =>
  live(`<{D}tool_calls>\n<{D}invoke name="bash">\n<{D}parameter name="command" string="true">rm -rf ./*\n${opener}/tmp/scratch${valueCloser}\n</{D}invoke>\n</{D}tool_calls>`);

describe("finding 3: a workdir opener with lookalike bars or its first bar lost, inside the command's value, is no runaway", () => {
  // Severity: medium (wrong execution: the command runs as `rm -rf ./*` + a line of markup, in the
  // project, without the workdir the model wrote). The runaway rule (src/parse/unread-opener.ts
  // dsmlOpenerAt: isPrefixStart / isSentinelBar) takes `<` + a real bar or U+2581 only, while text
  // mode reads the same opener written with lookalike bars as a parameter opener (quoted-tags.ts
  // BAR_LOOKALIKES, a stray in a block is refused: finding 2's hard negative). `<DSML{BAR}parameter`
  // (the first bar lost) is no runaway either. Minimal input: the command `rm -rf ./*\n<\u2502parameter
  // name="workdir">/tmp/scratch</{BAR}parameter>`. Expected: no call, as golden P48.6 for `<{BAR}parameter`.
  // Fixed: dsmlOpenerAt's prefix takes the lookalike bars (grammar/markers.ts isOpenerBarCode, the
  // set quoted-tags.ts reads lookalike tags with, moved down so parse can share it) and `<DSML`
  // then a bar; text mode's stray watch asks the same predicate, so the two agree on the spellings.
  for (const [name, opener, valueCloser] of [
    ["lookalike bars and DSML (U+2223)", `<\u2223DSML\u2223parameter name="workdir">`, `</\u2223DSML\u2223parameter>`],
    ["one lookalike bar U+2502", `<\u2502parameter name="workdir">`, undefined],
    ["one lookalike bar U+FFE8", `<\uffe8parameter name="workdir">`, undefined],
    ["the first bar lost", `<DSML{BAR}parameter name="workdir">`, undefined],
  ] as const) {
    test(name, () => {
      expect(outcome(runaway(opener, valueCloser)).calls).toEqual([]);
    });
  }
  test("through the fetch adapter: one lookalike bar", async () => {
    expect(await fetchCalls(runaway(`<\u2502parameter name="workdir">`))).toEqual([]);
  });
});

describe("hard negatives beside finding 3", () => {
  for (const opener of [`<{BAR}parameter name="workdir">`, `<{SP}parameter name="workdir">`, `\uff1c{BAR}DSML{BAR}parameter name="workdir"\uff1e`, `<{BAR}PARAMETER NAME="WORKDIR">`]) {
    test(`runaway read: ${JSON.stringify(opener)}`, () => {
      expect(outcome(runaway(opener)).calls).toEqual([]);
    });
  }
  for (const command of [
    `grep -n '<\u2502param' notes.txt`,
    `printf '\u2502 <\u2502 a \u2502 b \u2502'`,
    `echo "<DSML> and <dsml|x> and <DSML|parameter>"`,
    `f <| params`,
    `echo '<details><summary>x</summary></details>'`,
  ]) {
    test(`code with \`<\` and bars, no parameter name after them, runs: ${JSON.stringify(command)}`, () => {
      const input = live(`<{D}tool_calls>\n<{D}invoke name="bash">\n<{D}parameter name="command" string="true">${command}</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`);
      expect(outcome(input).calls).toEqual([{ tool: "bash", input: { command } }]);
    });
  }
  test("a value mentioning a lookalike bar with no opener after it runs", () => {
    const input = live(`<{D}tool_calls>\n<{D}invoke name="bash">\n<{D}parameter name="command" string="true">printf '\u2502 a \u2502 b \u2502'</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`);
    expect(outcome(input).calls).toEqual([{ tool: "bash", input: { command: "printf '\u2502 a \u2502 b \u2502'" } }]);
  });
});

const qwen = `<tool_call>\n<function=bash>\n<parameter=command>\nrm -rf ./*\n</parameter>\n</function>\n`;
const read = `<tool_call>\n<function=read>\n<parameter=filePath>\n/a\n</parameter>\n</function>\n</tool_call>`;

describe("finding 4: text after a Qwen3-Coder function inside its wrapper lets the call run", () => {
  // Severity: medium-low (wrong execution: `rm -rf ./*` runs in the project; the workdir the model
  // wrote inside the same `<tool_call>` wrapper, after `</function>`, is read as prose after the
  // call). A Hermes object followed by a line of text inside its wrapper is refused whole (O49.1,
  // hard negative below); PATTERNS says a `<tool_call>` body "whose call is followed by other
  // markup before </tool_call>" is refused. For Qwen3-Coder only a marker tag refuses (O49.2): a
  // plain `<workdir>` element, a `workdir: /tmp/scratch` line or a JSON object there do not.
  // Suspected: src/parse/dialects/tool-call-body.ts (the after-function phase looks for tags only).
  // Minimal input: qwen + `workdir: /tmp/scratch\n</tool_call>`. Expected: no call, broken-markup,
  // as for the Hermes body. (Not the known gap of `<param=x>`/`<parameter:x>` spellings.)
  // Was a known gap (round 50): after `</function>` the span trailed and only a tag could refuse it
  // (tool-call-body.ts tagAfterFunction); text and unknown elements there ended the trail and the
  // call ran. Refusing at the text would break golden O02.8 (a wrapper that never closes, prose
  // after it, its call runs): the two differ only by a `</tool_call>` after the text.
  // Fixed: text or an unknown element after `</function>` in a wrapper that opens its line is held
  // in the span, the call not run and the text not shown (SpanKind.holdsAfterCall, Candidate.hold).
  // `</tool_call>` then refuses the span whole as broken-markup O02, every character visible; the
  // reply's end, the next `<tool_call>` opener or the buffer limit (bufferLimit, the bound of every
  // candidate) end the span where the text began, so the call runs and the text is read as before.
  for (const [name, line] of [
    ["a workdir element", "<workdir>/tmp/scratch</workdir>"],
    ["a workdir line", "workdir: /tmp/scratch"],
    ["a JSON object", `{"workdir": "/tmp/scratch"}`],
  ] as const) {
    test(`${name} before </tool_call>: refused`, () => {
      const input = `${qwen}${line}\n</tool_call>\n${read}`;
      const o = outcome(input);
      expect(o.calls.filter((c) => c.tool === "bash")).toEqual([]);
      expect(o.broken).toEqual(["broken-markup"]);
      // The wrapper refused is visible whole; the read call after it runs.
      expect(o.text).toBe(input.slice(0, input.length - read.length));
      expect(o.calls.map((c) => c.tool)).toEqual(["read"]);
    });
  }
});

describe("hard negatives beside finding 4", () => {
  test("the Hermes body with a workdir line: refused (O49.1)", () => {
    expect(outcome(`<tool_call>\n{"name": "bash", "arguments": {"command": "rm -rf ./*"}}\nworkdir: /tmp/scratch\n</tool_call>`).calls).toEqual([]);
  });
  test("a costume after the function: refused (O49.2)", () => {
    expect(outcome(`${qwen}<shell>rm -rf build</shell>\n</tool_call>`).calls).toEqual([]);
  });
  test("a workdir element inside the function: refused (U29.10)", () => {
    expect(outcome(`<tool_call>\n<function=bash>\n<parameter=command>\nrm -rf ./*\n</parameter>\n<workdir>/tmp/scratch</workdir>\n</function>\n</tool_call>`).calls).toEqual([]);
  });
  test("the plain wrapper, then prose after it, then a second call: both run, the prose kept", () => {
    const o = outcome(`${qwen}</tool_call>\nChecking the file next.\n${read}`);
    expect(o.calls.map((c) => c.tool)).toEqual(["bash", "read"]);
    expect(o.text).toContain("Checking the file next.");
  });
});

describe("hard negatives beside finding 4's fix (the text held after `</function>`)", () => {
  const prose = "Now reading the file.";
  test("a wrapper never closed, prose, then the next wrapper: both run, the prose kept (O02.8's shape)", () => {
    const o = outcome(`${qwen}${prose}\n${read}`);
    expect(o.calls.map((c) => c.tool)).toEqual(["bash", "read"]);
    expect(o.text).toBe(`${prose}\n`);
    expect(o.broken).toEqual([]);
  });
  test("a wrapper never closed, prose, the reply's end: the call runs, the prose after it is as after any call", () => {
    const o = outcome(`${qwen}${prose}`);
    expect(o.calls).toEqual(rmRuns);
    expect(o.broken).toEqual([]);
  });
  test("whitespace only before the closer, CRLF and indentation: the call runs", () => {
    expect(outcome(`${qwen}  \n\t\n</tool_call>`).calls).toEqual(rmRuns);
    expect(outcome(`${qwen.replaceAll("\n", "\r\n")}\r\n</tool_call>`).calls).toEqual(rmRuns);
  });
  test("text then a costume before the closer: refused whole, the costume never runs", () => {
    const input = `${qwen}Also:\n<shell>ls</shell>\n</tool_call>`;
    const o = outcome(input);
    expect(o.calls).toEqual([]);
    expect(o.text).toBe(input);
  });
  test("text then a second function before the closer: refused whole, neither runs", () => {
    const input = `${qwen}and then\n<function=read>\n<parameter=filePath>\n/a\n</parameter>\n</function>\n</tool_call>`;
    expect(outcome(input)).toEqual({ calls: [], broken: ["broken-markup"], text: input });
  });
  test("CRLF and an indented workdir line: refused", () => {
    const input = `${qwen.replaceAll("\n", "\r\n")}  workdir: /tmp/scratch\r\n</tool_call>`;
    expect(outcome(input)).toEqual({ calls: [], broken: ["broken-markup"], text: input });
  });
  test("the call is not held when only whitespace comes: it is out as soon as the closer is read", () => {
    const engine = createRepairEngine({ tools: fixtureTools, idPrefix: "call_" });
    expect(engine.feed(`${qwen}\n`).filter((e) => e.type === "call")).toEqual([]);
    expect(engine.feed("</tool_call>\n").filter((e) => e.type === "call").length).toBe(1);
  });
  test("held text is neither shown nor its call run before the closer; the closer shows it all", () => {
    const engine = createRepairEngine({ tools: fixtureTools, idPrefix: "call_" });
    expect(engine.feed(`${qwen}workdir: /tmp/scratch\n`)).toEqual([]);
    const events = engine.feed("</tool_call>");
    expect(events.some((e) => e.type === "call")).toBe(false);
    expect(events.map((e) => (e.type === "text" ? e.text : "")).join("")).toBe(`${qwen}workdir: /tmp/scratch\n</tool_call>`);
  });

  // A wrapper that never closes holds no reply back: the hold's bound is bufferLimit, the bound of
  // every candidate; past it the call runs and the text is released as text after a call is.
  const limit = 1000;
  const paragraph = `${"The build is clean and the tests pass, so the next step is the release notes. ".repeat(60)}Done.`;
  const bounded = (input: string, cuts: number[]) => {
    const run = runEngine(input, cuts, fixtureTools, { bufferLimit: limit });
    return { calls: run.calls.map((c) => ({ tool: c.tool, input: c.input })), text: run.text, broken: run.summary.broken, maxHeld: run.maxHeld };
  };
  test("a wrapper never closed, then a long prose paragraph: the call runs, the text whole, nothing held past the bound", () => {
    const input = `${qwen}${paragraph}`;
    const whole = bounded(input, []);
    expect(whole.calls).toEqual(rmRuns);
    expect(whole.text).toBe(paragraph);
    expect(whole.broken).toEqual([]);
    for (const cuts of [everyChar(input.length), ...[1, 2, 3, 4, 5].map((seed) => randomCuts(input.length, seed))]) {
      const split = bounded(input, cuts);
      expect({ ...split, maxHeld: 0 }).toEqual({ ...whole, maxHeld: 0 });
      expect(split.maxHeld).toBeLessThanOrEqual(2 * limit + 512);
    }
  });
  test("text longer than the bound, then the closer: the call ran at the bound (the hold is bounded)", () => {
    const input = `${qwen}${paragraph}\n</tool_call>`;
    expect(bounded(input, []).calls).toEqual(rmRuns);
    expect(bounded(input, everyChar(input.length)).calls).toEqual(rmRuns);
  });
  test("a workdir line within the bound, then the closer: refused at any split", () => {
    const input = `${qwen}workdir: /tmp/scratch\n</tool_call>`;
    for (const cuts of [[], everyChar(input.length), randomCuts(input.length, 7)]) expect(bounded(input, cuts).calls).toEqual([]);
  });

  describe("through the fetch adapter's chat stream (7-character deltas)", () => {
    const fetchOut = async (reply: string) => (await throughFetch({ model: "qwen3-coder", messages: [{ role: "user", content: "go" }], tools: openAiTools() }, { sse: sseText(deltas(reply, 7)) })).out;
    test("the workdir line before the closer: no call, the wrapper shown whole", async () => {
      const reply = `${qwen}workdir: /tmp/scratch\n</tool_call>`;
      const out = await fetchOut(reply);
      expect(out.calls).toEqual([]);
      expect(out.content).toBe(reply);
    });
    test("the plain wrapper, prose, a second call: both run, the prose reaches the client", async () => {
      const out = await fetchOut(`${qwen}</tool_call>\nChecking the file next.\n${read}`);
      expect(out.calls.map((c) => c.name)).toEqual(["bash", "read"]);
      expect(out.content).toContain("Checking the file next.");
    });
    test("a wrapper never closed, prose, the next wrapper: both run, the held prose reaches the client", async () => {
      const out = await fetchOut(`${qwen}${prose}\n${read}`);
      expect(out.calls.map((c) => c.name)).toEqual(["bash", "read"]);
      expect(out.content).toBe(`${prose}\n`);
    });
  });
});

const costume = "<bash>\nrm -rf build\n</bash>";

describe("finding 5: a Unicode space or a backslash hard break at a line end hides the running sentence from the paragraph rule", () => {
  // Severity: low (wrong execution of a costume the reply only shows inside a running sentence;
  // the text is kept whole). LineEnds reads spaces and tabs only as line space (line-ends.ts
  // isLineSpace), so a line ending in a no-break space (U+00A0, U+202F, French typography), an
  // ideographic space (U+3000, CJK text), a zero-width space or a BOM ends on that character, which
  // is neither a letter nor OPEN_AT_END: the line "ends the sentence" and the costume runs. So does
  // a CommonMark hard break (`like\`), a line break inside the paragraph as two trailing spaces are
  // (passes). sentenceGoesOn (tentative-closer.ts) stops at a no-break space on the next line too.
  // Minimal input: `The agent writes commands like\u00a0\n<bash>\nrm -rf build\n</bash>\nin its
  // replies.` Expected: no call, the text whole, as with a plain space (golden N48.2).
  // Fixed: LineEnds reads every Unicode space separator (\p{Zs}) and zero-width character (ZWSP,
  // ZWNJ, ZWJ, word joiner, BOM) as line space (line-ends.ts isLineSpace), and a line whose last
  // character is a hard break's backslash is decided by the character before it (keyAt);
  // sentenceGoesOn reads past those spaces at the next line's start as it does past a space.
  for (const [name, input] of [
    ["no-break space before the line end", `The agent writes commands like\u00a0\n${costume}\nin its replies.`],
    ["narrow no-break space before the line end", `The agent writes commands like\u202f\n${costume}\nin its replies.`],
    ["ideographic space, Chinese", `代理把命令写成\u3000\n${costume}\n放在回复里。`],
    ["zero-width space", `The agent writes commands like\u200b\n${costume}\nin its replies.`],
    ["backslash hard break", `The agent writes commands like\\\n${costume}\nin its replies.`],
    ["no-break space opening the next line", `The agent writes commands like\n${costume}\n\u00a0in its replies.`],
    ["ideographic space opening the next line, Chinese", `代理把命令写成\n${costume}\n\u3000放在回复里。`],
    ["BOM before the line end", `The agent writes commands like\ufeff\n${costume}\nin its replies.`],
    ["a space, then a backslash hard break", `The agent writes commands like \\\n${costume}\nin its replies.`],
    ["no-break space after a comma", `The agent writes commands like this,\u00a0\n${costume}\nin its replies.`],
    ["no-break space before the chained costume's prose", `The agent writes commands like\n${costume}\n<shell>ls</shell>\u00a0in its replies.`],
  ] as const) {
    test(name, () => {
      const o = outcome(input);
      expect(o.calls).toEqual([]);
      expect(o.text).toBe(input);
    });
  }
});

describe("hard negatives beside finding 5", () => {
  for (const [name, input] of [
    ["plain spaces before the line end", `The agent writes commands like   \n${costume}\nin its replies.`],
    ["a tab opening the next line", `The agent writes commands like\n${costume}\n\tin its replies.`],
    ["CRLF", `The agent writes commands like\r\n${costume.replaceAll("\n", "\r\n")}\r\nin its replies.`],
    ["CR only", `The agent writes commands like\r${costume.replaceAll("\n", "\r")}\rin its replies.`],
    ["a line of 1,500 characters before it", `The agent writes ${"very ".repeat(300)}long commands like\n${costume}\nin its replies.`],
    ["two hundred lines before it", `${"a line that goes on,\n".repeat(200)}The agent writes commands like\n${costume}\nin its replies.`],
    ["in a block quote", `> The agent writes commands like\n> ${costume.replaceAll("\n", "\n> ")}\n> in its replies.`],
    ["in a list item", `- The agent writes commands like\n  ${costume.replaceAll("\n", "\n  ")}\n  in its replies.`],
  ] as const) {
    test(`text: ${name}`, () => {
      const o = outcome(input);
      expect(o.calls).toEqual([]);
      expect(o.text).toBe(input);
    });
  }
  for (const [name, input] of [
    ["after a colon", `Run this:\n${costume}\nin its replies.`],
    ["after a colon and a no-break space", `Run this:\u00a0\n${costume}\nin its replies.`],
    ["after a colon and a narrow no-break space (French)", `Lancez ceci\u202f:\u00a0\n${costume}\nin its replies.`],
    ["after a full stop and a no-break space", `The agent writes commands.\u00a0\n${costume}\nin its replies.`],
    ["after an ideographic full stop and an ideographic space", `代理这样写。\u3000\n${costume}\n放在回复里。`],
    ["after a full stop and a zero-width space", `The agent writes commands.\u200b\n${costume}\nin its replies.`],
    ["after a colon and a backslash hard break", `Run this:\\\n${costume}\nin its replies.`],
    ["after an escaped backslash (`C:\\\\` is no hard break)", `Path C:\\\\\n${costume}\nin its replies.`],
    ["a line of only a backslash before it", `\\\n${costume}\nin its replies.`],
    ["next line a no-break space then a capital", `The agent writes commands like\n${costume}\n\u00a0Then it checks.`],
    ["next line an ideographic space then a digit", `The agent writes commands like\n${costume}\n\u30002 more.`],
    ["after a blank line", `The agent writes commands like\n\n${costume}\n\nNext.`],
    ["next line a capital", `The agent writes commands like\n${costume}\nThen it checks.`],
  ] as const) {
    test(`runs: ${name}`, () => {
      expect(outcome(input).calls).toEqual([{ tool: "bash", input: { command: "rm -rf build" } }]);
    });
  }
});
