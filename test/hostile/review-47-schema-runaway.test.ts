/**
 * Review 47: an optional parameter the model wrote is dropped, and the call runs without it.
 */
import { describe, expect, test } from "bun:test";
import { parse } from "../../src/engine/parse.ts";
import type { ToolSpec } from "../../src/parse/types.ts";
import { live } from "../golden/notation.ts";
import { everyChar, randomCuts, runEngine } from "../support/run-engine.ts";
import { completion, openAiTools, throughFetch } from "../security/support.ts";

/** OpenCode's bash: command and description required, workdir and timeout optional. */
const bash: ToolSpec = {
  name: "bash",
  parameters: { type: "object", properties: { command: { type: "string" }, timeout: { type: "number" }, workdir: { type: "string" }, description: { type: "string" } }, required: ["command", "description"] },
};

describe("FINDING: a runaway optional parameter (P03) is dropped and the call runs without it", () => {
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

  test("hard negative (passes today): Qwen3-Coder keeps a runaway workdir up to the next opener (O02.4)", () => {
    const qwen = `<tool_call>\n<function=bash>\n<parameter=workdir>\n/tmp/scratch\n<parameter=command>\nrm -rf ./*\n</parameter>\n<parameter=description>\nClean the scratch dir\n</parameter>\n</function>\n</tool_call>`;
    const calls = parse(`Cleaning.\n${qwen}`, [bash]).calls.map((c) => c.input);
    expect(calls).toHaveLength(1);
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

describe("FINDING: a parameter written outside its invoke, in the same block, is left out and the call runs", () => {
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

describe("FINDING: a garbled closer ending the LAST value stays in the value (P02 cuts it only before another parameter)", () => {
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
