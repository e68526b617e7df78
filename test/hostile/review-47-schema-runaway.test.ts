/**
 * Review 47: an optional parameter the model wrote is dropped, and the call runs without it.
 */
import { describe, expect, test } from "bun:test";
import { parse } from "../../src/engine/parse.ts";
import type { ToolSpec } from "../../src/parse/types.ts";
import { live } from "../golden/notation.ts";
import { accountsForEveryCharacter, everyChar, randomCuts, runAtEverySplit, runEngine } from "../support/run-engine.ts";
import { completion, openAiTools, throughFetch } from "../security/support.ts";

/** OpenCode's bash: command and description required, workdir and timeout optional. */
const bash: ToolSpec = {
  name: "bash",
  parameters: { type: "object", properties: { command: { type: "string" }, timeout: { type: "number" }, workdir: { type: "string" }, description: { type: "string" } }, required: ["command", "description"] },
};

describe("fixed: a runaway optional parameter (P03) is dropped and the call runs without it", () => {
  // Fixed (review 47, rule tightened in review 47b): what was wrong is below. The rule now
  // (docs/PATTERNS.md "Runaway parameters (P03)"): a value whose closer was lost, so that the next
  // parameter opener reached it first, refuses the call (broken-markup, P03; O02 in Qwen3-Coder), an
  // optional parameter as much as a required one, wherever that opener stands: never run without the
  // value, and never cut at an opener that may be the value's text (review 47b finding 1).
  // Severity: wrong execution (high: the command runs somewhere the model did not say). The
  // model opens `workdir` and forgets its closer; the next parameter opener follows. P03 (DSML
  // and Claude-style XML) drops a runaway parameter when it is optional and RUNS the call with the
  // rest, so `rm -rf ./*` runs in the session's directory (the project) instead of /tmp/scratch.
  // The value `/tmp/scratch` is neither in the call nor visible, and nothing reports it (no
  // stripped span, no broken span). Documented (docs/PATTERNS.md "Runaway parameters (P03)",
  // golden P03 drops an optional `description`), but it breaks the trust rule: an argument the
  // model wrote was removed on the way, and which parameter is optional is the tool's business,
  // not a measure of harm (workdir, timeout, dry_run, a path filter...). The other readers
  // disagree: Qwen3-Coder keeps such a value up to the next opener (O02.4), the element form
  // (I11) refuses the call, and a runaway value that the invoke closer ends is kept (P01).
  // Expected: the call does not run without the value: either the value is kept up to the next
  // parameter opener (as Qwen3-Coder and P01 read it) or the call is refused (broken-markup, as a
  // runaway required parameter is, P03b). Suspected: src/parse/invoke-input.ts buildAnyInput()
  // (`if (v.dropped) { if (required.has(v.name)) return refuse(...); continue; }`) and the DSML /
  // invoke-markup readers that mark the value `dropped` (src/parse/dialects/dsml/, invoke-markup.ts).
  const runaway = live(
    `<{D}tool_calls>\n<{D}invoke name="bash">\n<{D}parameter name="workdir" string="true">/tmp/scratch\n<{D}parameter name="command" string="true">rm -rf ./*</{D}parameter>\n<{D}parameter name="description" string="true">Clean the scratch dir</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`,
  );
  const claude = `<function_calls>\n<invoke name="bash">\n<parameter name="workdir">/tmp/scratch\n<parameter name="command">rm -rf ./*</parameter>\n<parameter name="description">Clean the scratch dir</parameter>\n</invoke>\n</function_calls>`;

  /** The call ran with the workdir the model wrote, or did not run at all. */
  function expectNoCallWithoutWorkdir(calls: Record<string, unknown>[]) {
    for (const input of calls) expect(input).toEqual({ command: "rm -rf ./*", description: "Clean the scratch dir", workdir: "/tmp/scratch" });
  }

  test("hard negative (passes today): the same runaway as the LAST parameter, ended by the invoke closer, keeps the workdir (P01)", () => {
    const last = live(
      `<{D}tool_calls>\n<{D}invoke name="bash">\n<{D}parameter name="command" string="true">rm -rf ./*</{D}parameter>\n<{D}parameter name="description" string="true">Clean the scratch dir</{D}parameter>\n<{D}parameter name="workdir" string="true">/tmp/scratch\n</{D}invoke>\n</{D}tool_calls>`,
    );
    expect(parse(`Cleaning.\n${last}`, [bash]).calls.map((c) => c.input)).toEqual([{ command: "rm -rf ./*", description: "Clean the scratch dir", workdir: "/tmp/scratch" }]);
  });

  test("Qwen3-Coder refuses a runaway workdir the next opener ended (O02.4, review 47b: the opener may be the value's text)", () => {
    const qwen = `<tool_call>\n<function=bash>\n<parameter=workdir>\n/tmp/scratch\n<parameter=command>\nrm -rf ./*\n</parameter>\n<parameter=description>\nClean the scratch dir\n</parameter>\n</function>\n</tool_call>`;
    const calls = parse(`Cleaning.\n${qwen}`, [bash]).calls.map((c) => c.input);
    expect(calls).toEqual([]);
    expectNoCallWithoutWorkdir(calls);
  });

  test("DSML: rm -rf ./* does not run without the workdir the model wrote", () => {
    const out = parse(`Cleaning.\n${runaway}`, [bash]);
    expectNoCallWithoutWorkdir(out.calls.map((c) => c.input));
  });

  test("Claude-style XML: the same", () => {
    expectNoCallWithoutWorkdir(parse(`Cleaning.\n${claude}`, [bash]).calls.map((c) => c.input));
  });

  test("DSML: the dropped value is not lost without a trace (visible, in the call, or reported)", () => {
    const out = parse(`Cleaning.\n${runaway}`, [bash]);
    const inCalls = out.calls.some((c) => JSON.stringify(c.input).includes("/tmp/scratch"));
    expect(inCalls || out.text.includes("/tmp/scratch") || out.stripped.length > 0 || out.broken.length > 0).toBe(true);
  });

  test("streaming: char by char and at random splits, the same call as parse()", () => {
    const input = `Cleaning.\n${runaway}`;
    for (const cuts of [everyChar(input.length), ...[1, 2, 3].map((seed) => randomCuts(input.length, seed))]) {
      expectNoCallWithoutWorkdir(runEngine(input, cuts, [bash]).calls.map((c) => c.input));
    }
  });

  test("through the fetch adapter (chat completions)", async () => {
    const { out } = await throughFetch({ messages: [{ role: "user", content: "clean /tmp/scratch" }], tools: openAiTools([bash]) }, { json: completion(`Cleaning.\n${runaway}`) });
    for (const call of out.calls) expect(JSON.parse(call.arguments)).toEqual({ command: "rm -rf ./*", description: "Clean the scratch dir", workdir: "/tmp/scratch" });
  });
});

describe("fixed: a parameter written outside its invoke, in the same block, is left out and the call runs", () => {
  // Fixed (review 47): what was wrong is below. The rule now: a parameter outside every invoke of a
  // block that is still open (no wrapped tool, I02) makes the block malformed: the calls of the
  // block are refused (broken-markup I02, text kept): the call right before the parameter (the
  // stream reads on after a call over the stray parameter, its closer and the block's closer,
  // stray-value-closer.ts ExampleRun), every call in the same span, and every later call of the
  // block (engine.ts noteMalformedBlock). A call of the block emitted before an earlier call's
  // boundary had already run (the stream cannot take it back).
  // Severity: wrong execution (medium-low). The model closes the invoke one line too early and
  // writes `workdir` after it (or before the invoke), inside the same tool_calls block. The
  // parameter belongs to no invoke, so the reader leaves it out, and the invoke in the same block
  // runs without it: `rm -rf ./*` runs in the session's directory. After the invoke the stray
  // parameter is stripped as a fabricated result / noise (S03) with no broken span and no nudge;
  // before it, an I02 broken span is reported and the model is nudged, but the call has already
  // run. Expected: a block that holds a parameter outside every invoke is malformed as a whole
  // (broken-markup), and none of its calls runs, as a parameter the invoke cannot account for
  // refuses it inside the invoke (issue 29 "Unread parameters").
  // Suspected: src/parse/dialects/dsml/walk.ts / verdict.ts (I02 is a sibling span of the call,
  // not a verdict on the block), src/parse/dialects/invoke-markup.ts for Claude-style XML.
  const call = `<{D}invoke name="bash">\n<{D}parameter name="command" string="true">rm -rf ./*</{D}parameter>\n<{D}parameter name="description" string="true">Clean</{D}parameter>\n</{D}invoke>`;
  const stray = `<{D}parameter name="workdir" string="true">/tmp/scratch</{D}parameter>`;

  test("DSML: the stray workdir after the invoke", () => {
    const out = parse(`Cleaning.\n${live(`<{D}tool_calls>\n${call}\n${stray}\n</{D}tool_calls>`)}`, [bash]);
    expect(out.calls).toEqual([]);
  });

  test("DSML: the stray workdir before the invoke", () => {
    const out = parse(`Cleaning.\n${live(`<{D}tool_calls>\n${stray}\n${call}\n</{D}tool_calls>`)}`, [bash]);
    expect(out.calls).toEqual([]);
  });

  test("Claude-style XML: the stray workdir after the invoke", () => {
    const reply = `<function_calls>\n<invoke name="bash">\n<parameter name="command">rm -rf ./*</parameter>\n<parameter name="description">Clean</parameter>\n</invoke>\n<parameter name="workdir">/tmp/scratch</parameter>\n</function_calls>`;
    expect(parse(`Cleaning.\n${reply}`, [bash]).calls).toEqual([]);
  });

  test("hard negative (passes today): a stray parameter in a LATER block does not stop an earlier, closed block", () => {
    const reply = live(`<{D}tool_calls>\n${call}\n</{D}tool_calls>\nNext.\n<{D}tool_calls>\n${stray}\n</{D}tool_calls>`);
    expect(parse(`Cleaning.\n${reply}`, [bash]).calls).toHaveLength(1);
  });
});

describe("fixed: a garbled closer ending the LAST value stays in the value (P02 cuts it only before another parameter)", () => {
  // Fixed (review 47): what was wrong is below. The rule now: a garbled parameter closer at the end
  // of a value that the invoke (or block) closer ends is cut there (P02), as before the next
  // parameter; the walk's closeInvoke applies the same garbledCloserAt.
  // Severity: invented argument content (medium-low: markup bytes written into the user's file).
  // docs/PATTERNS.md: "If its value ends in a garbled closer ({BAR}>{BAR}parameter, </{D}param),
  // it is cut there and kept (P02)". Golden P02 shows it for a value followed by the next
  // parameter. When the garbled value is the last one and the invoke closer follows (P01), the
  // `{BAR}>{BAR}parameter>` form is NOT cut: the edit writes `beta{BAR}>{BAR}parameter>` into the
  // file (a bash command gets it too). The `</{D}param` and `</{D}parametr>` forms ARE cut in the
  // same place, so only this spelling leaks. Expected: newString is "beta" (cut, as P02 reads it
  // elsewhere), or the call is refused; never the closer's bytes as content.
  // Suspected: src/parse/dialects/dsml/value-ends.ts (the P02 cut when the value's end is the
  // invoke closer rather than a parameter opener), src/parse/closer-ends-call.ts.
  const edit: ToolSpec = { name: "edit", parameters: { type: "object", properties: { filePath: { type: "string" }, oldString: { type: "string" }, newString: { type: "string" } }, required: ["filePath", "oldString", "newString"] } };
  const head = `<{D}tool_calls>\n<{D}invoke name="edit">\n<{D}parameter name="filePath" string="true">a.txt</{D}parameter>\n<{D}parameter name="oldString" string="true">alpha</{D}parameter>\n`;
  const reply = (last: string) => live(`${head}<{D}parameter name="newString" string="true">beta${last}\n</{D}invoke>\n</{D}tool_calls>`);

  test("hard negative (passes today): `</{D}param` and `</{D}parametr>` ending the last value are cut", () => {
    for (const last of ["</{D}param", "</{D}parametr>"]) {
      expect(parse(`Editing.\n${reply(last)}`, [edit]).calls.map((c) => c.input)).toEqual([{ filePath: "a.txt", oldString: "alpha", newString: "beta" }]);
    }
  });

  test("`{BAR}>{BAR}parameter>` ending the last value is not written into the file", () => {
    const out = parse(`Editing.\n${reply("{BAR}>{BAR}parameter>")}`, [edit]);
    for (const c of out.calls) expect(c.input).toEqual({ filePath: "a.txt", oldString: "alpha", newString: "beta" });
  });

  test("streaming: the same at every split", () => {
    const input = `Editing.\n${reply("{BAR}>{BAR}parameter>")}`;
    for (const cuts of [everyChar(input.length), randomCuts(input.length, 1)]) {
      for (const c of runEngine(input, cuts, [edit]).calls) expect(c.input).toEqual({ filePath: "a.txt", oldString: "alpha", newString: "beta" });
    }
  });
});

/** The run of `input` (after asserting every split agrees with the whole, runAtEverySplit): its calls' inputs and broken shapes. */
function settled(input: string, tools: readonly ToolSpec[]) {
  const run = runAtEverySplit(input, tools);
  return { calls: run.calls.map((c) => c.input), broken: run.summary.broken.map((b) => b.shape), accounted: accountsForEveryCharacter(input, run) };
}

describe("review 47 fix, review 47b rule: a runaway value refuses the call wherever the next opener stands", () => {
  // Review 47b finding 1: keeping a runaway up to a line-start opener of a declared parameter ran a
  // well-formed call whose value only documented such an opener cut short (the same tags and counts
  // as a lost closer). Every runaway now refuses the call (P03), optional or required; the tests that
  // pinned the kept reading assert the refusal.
  const dsml = (first: string, between: string, next: string) =>
    live(`<{D}tool_calls>\n<{D}invoke name="bash">\n<{D}parameter name="workdir" string="true">${first}${between}<{D}parameter name="${next}" string="true">rm -rf ./*</{D}parameter>\n<{D}parameter name="description" string="true">Clean</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`);
  const claude = (first: string, between: string, next: string) =>
    `<function_calls>\n<invoke name="bash">\n<parameter name="workdir">${first}${between}<parameter name="${next}">rm -rf ./*</parameter>\n<parameter name="description">Clean</parameter>\n</invoke>\n</function_calls>`;
  const kept = { workdir: "/tmp/scratch", command: "rm -rf ./*", description: "Clean" };

  for (const [dialect, reply] of [["DSML", dsml], ["Claude-style XML", claude]] as const) {
    test(`${dialect}: the next opener at a line start (spaces or tabs before it) naming a declared parameter not given yet: refused, text kept (split parity)`, () => {
      for (const between of ["\n", "\n  ", "\n\t"]) {
        const out = settled(`Cleaning.\n${reply("/tmp/scratch", between, "command")}`, [bash]);
        expect(out.calls).toEqual([]);
        expect(out.broken).toEqual(["P03"]);
        expect(out.accounted).toBe(true);
      }
    });

    test(`${dialect}: an opener mid-line ends nothing the call may run with: refused, text kept (split parity)`, () => {
      const out = settled(`Cleaning.\n${reply("/tmp/scratch", " ", "command")}`, [bash]);
      expect(out.calls).toEqual([]);
      expect(out.broken).toEqual(["P03"]);
      expect(out.accounted).toBe(true);
    });

    test(`${dialect}: an opener naming an undeclared parameter, or one the call gave already, refuses the call`, () => {
      expect(settled(`Cleaning.\n${reply("/tmp/scratch", "\n", "cmd")}`, [bash]).calls).toEqual([]);
      // `workdir` twice: the runaway's own name is given (a duplicate refuses the call anyway, P10).
      expect(settled(`Cleaning.\n${reply("/tmp/scratch", "\n", "workdir")}`, [bash]).calls).toEqual([]);
    });
  }

  test("DSML: a multi-line runaway value is refused too", () => {
    const out = settled(`Cleaning.\n${dsml("/tmp/a\n/tmp/b", "\n", "command")}`, [bash]);
    expect(out.calls).toEqual([]);
    expect(out.broken).toEqual(["P03"]);
  });

  test("DSML: an opener for a parameter given earlier in the call (not the runaway's) refuses it", () => {
    const reply = live(
      `<{D}tool_calls>\n<{D}invoke name="bash">\n<{D}parameter name="description" string="true">Clean</{D}parameter>\n<{D}parameter name="workdir" string="true">/tmp/scratch\n<{D}parameter name="description" string="true">Again</{D}parameter>\n<{D}parameter name="command" string="true">ls</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`,
    );
    expect(settled(`Cleaning.\n${reply}`, [bash]).calls).toEqual([]);
  });

  test("DSML: a runaway REQUIRED value ended the same way is refused too (golden P03b refused again)", () => {
    const reply = live(
      `<{D}tool_calls>\n<{D}invoke name="bash">\n<{D}parameter name="command" string="true">rm -rf ./build\n<{D}parameter name="description" string="true">Clean</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`,
    );
    expect(settled(`Cleaning.\n${reply}`, [bash]).calls).toEqual([]);
  });

  test("DSML: a parameter closer that closes nothing after a runaway: refused (P47.7)", () => {
    const edit: ToolSpec = { name: "write", parameters: { type: "object", properties: { filePath: { type: "string" }, content: { type: "string" } }, required: ["filePath", "content"] } };
    const reply = live(
      `<{D}tool_calls>\n<{D}invoke name="write">\n<{D}parameter name="content" string="true">doc:\n<{D}parameter name="filePath" string="true">/etc/passwd</{D}parameter>\n</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`,
    );
    expect(settled(`Writing.\n${reply}`, [edit]).calls).toEqual([]);
  });

  test("hard negative: a garbled closer before the next opener is still cut (P02), mid-line or not", () => {
    const out = settled(`Cleaning.\n${dsml(`/tmp/scratch{BAR}>{BAR}parameter>`.replaceAll("{BAR}", "\uFF5C"), " ", "command")}`, [bash]);
    expect(out.calls).toEqual([kept]);
  });
});

describe("review 47 fix: a parameter outside every invoke refuses the block's calls, in the stream as in the whole", () => {
  const inv = (command: string) =>
    `<{D}invoke name="bash">\n<{D}parameter name="command" string="true">${command}</{D}parameter>\n<{D}parameter name="description" string="true">Clean</{D}parameter>\n</{D}invoke>`;
  const stray = `<{D}parameter name="workdir" string="true">/tmp/scratch</{D}parameter>`;

  const refused: Record<string, string> = {
    "after the call": `<{D}tool_calls>\n${inv("rm -rf ./*")}\n${stray}\n</{D}tool_calls>`,
    "before the call": `<{D}tool_calls>\n${stray}\n${inv("rm -rf ./*")}\n</{D}tool_calls>`,
    "between two calls (both refused)": `<{D}tool_calls>\n${inv("rm -rf ./a")}\n${stray}\n${inv("rm -rf ./b")}\n</{D}tool_calls>`,
    "after the call, its value never closed": `<{D}tool_calls>\n${inv("rm -rf ./*")}\n<{D}parameter name="workdir" string="true">/tmp/scratch\n</{D}tool_calls>`,
    "after the call, then prose and no block closer": `<{D}tool_calls>\n${inv("rm -rf ./*")}\n${stray}\nDone.`,
    "after the call, the reply ends": `<{D}tool_calls>\n${inv("rm -rf ./*")}\n${stray}`,
    "after a call whose invoke closer ended its last value (P01)": `<{D}tool_calls>\n<{D}invoke name="bash">\n<{D}parameter name="description" string="true">Clean</{D}parameter>\n<{D}parameter name="command" string="true">rm -rf ./*\n</{D}invoke>\n${stray}\n</{D}tool_calls>`,
    "a prefix-less parameter after the call": `<{D}tool_calls>\n${inv("rm -rf ./*")}\n<parameter name="workdir" string="true">/tmp/scratch</parameter>\n</{D}tool_calls>`,
  };
  for (const [name, reply] of Object.entries(refused)) {
    test(`DSML, ${name}: no call runs, every character accounted for (split parity)`, () => {
      const out = settled(`Cleaning.\n${live(reply)}`, [bash]);
      expect(out.calls).toEqual([]);
      expect(out.broken.length).toBeGreaterThan(0);
      expect(out.accounted).toBe(true);
    });
  }

  test("Claude-style XML: the stray workdir before the invoke (split parity)", () => {
    const reply = `<function_calls>\n<parameter name="workdir">/tmp/scratch</parameter>\n<invoke name="bash">\n<parameter name="command">rm -rf ./*</parameter>\n<parameter name="description">Clean</parameter>\n</invoke>\n</function_calls>`;
    expect(settled(`Cleaning.\n${reply}`, [bash]).calls).toEqual([]);
  });

  test("hard negative: a stray parameter after the block closed leaves the block's call running", () => {
    const out = settled(`Cleaning.\n${live(`<{D}tool_calls>\n${inv("ls")}\n</{D}tool_calls>\n${stray}\nok`)}`, [bash]);
    expect(out.calls).toEqual([{ command: "ls", description: "Clean" }]);
  });

  test("hard negative: two calls of a block with no stray parameter both run; a fabricated result after the block is still stripped (S03)", () => {
    const input = `Cleaning.\n${live(`<{D}tool_calls>\n${inv("ls")}\n${inv("pwd")}\n</{D}tool_calls>`)}\nThe listing shows 3 files: a, b, c.`;
    const run = runAtEverySplit(input, [bash]);
    expect(run.calls.map((c) => c.input.command)).toEqual(["ls", "pwd"]);
    expect(run.summary.stripped.map((s) => s.kind)).toContain("fabricated-result");
    expect(run.text).toBe("Cleaning.\n");
  });

  test("hard negative: a stray value CLOSER after the call keeps its own reading (A46: the call stood in a value)", () => {
    const out = settled(`Cleaning.\n${live(`<{D}tool_calls>\n${inv("ls")}\n</{D}tool_calls>\n</{D}parameter>\n`)}`, [bash]);
    expect(out.calls).toEqual([]);
    expect(out.broken).toEqual(["I04"]);
  });
});

describe("review 47 fix: a garbled closer ending the last value is cut wherever the call's closer ends it", () => {
  const edit: ToolSpec = { name: "edit", parameters: { type: "object", properties: { filePath: { type: "string" }, oldString: { type: "string" }, newString: { type: "string" } }, required: ["filePath", "oldString", "newString"] } };
  const head = `<{D}tool_calls>\n<{D}invoke name="edit">\n<{D}parameter name="filePath" string="true">a.txt</{D}parameter>\n<{D}parameter name="oldString" string="true">alpha</{D}parameter>\n<{D}parameter name="newString" string="true">`;

  test("ended by the block closer (no invoke closer): cut (split parity)", () => {
    const out = settled(`Editing.\n${live(`${head}beta{BAR}>{BAR}parameter>\n</{D}tool_calls>`)}`, [edit]);
    expect(out.calls).toEqual([{ filePath: "a.txt", oldString: "alpha", newString: "beta" }]);
  });

  test("the double-bar spelling is cut too", () => {
    const out = settled(`Editing.\n${live(`${head}beta{DVL}parameter>\n</{D}invoke>\n</{D}tool_calls>`)}`, [edit]);
    expect(out.calls).toEqual([{ filePath: "a.txt", oldString: "alpha", newString: "beta" }]);
  });

  test("hard negative: an ASCII pipe ending the last value is the value's text (a shell pipe), kept", () => {
    const out = settled(`Editing.\n${live(`${head}make | paramfix\n</{D}invoke>\n</{D}tool_calls>`)}`, [edit]);
    expect(out.calls).toEqual([{ filePath: "a.txt", oldString: "alpha", newString: "make | paramfix" }]);
  });
});
