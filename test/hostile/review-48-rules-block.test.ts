/**
 * Review 48 (hostile, tests only): the block hold (src/engine/output.ts blockHold) and the stray
 * rule (src/engine/text-mode.ts strayBlock/refuseStrayBlock; docs/PATTERNS.md "A parameter outside
 * every invoke", I02, golden P47.11-P47.16): a parameter outside every invoke anywhere before the
 * block's closer refuses every call of the block. Looking for a stray that still lets the call run.
 * Known gaps not re-reported: the limit, a text part's end (endSpan) and the reasoning channel.
 * Each failing test (test.failing) says what is wrong, its severity and the suspected file;
 * passing tests are hard negatives kept on purpose.
 */
import { describe, expect, test } from "bun:test";
import { parse } from "../../src/engine/parse.ts";
import { live } from "../golden/notation.ts";
import { fixtureTools } from "../golden/tools.ts";
import { repairFetch } from "../../src/adapters/fetch.ts";
import { responsesItemSse } from "../adapters/responses-support.ts";
import { chunkedFetch, dataEvents, encode, namedSse } from "../adapters/wire-support.ts";
import { textStream, throughMiddleware } from "../security/support.ts";
import { accountsForEveryCharacter, runAtEverySplit } from "../support/run-engine.ts";

const RM = `<{D}invoke name="bash">\n<{D}parameter name="command" string="true">rm -rf ./*</{D}parameter>\n</{D}invoke>`;
const LS = RM.replace("rm -rf ./*", "ls");
const WORKDIR = `<{D}parameter name="workdir" string="true">/tmp/scratch</{D}parameter>`;
const F = "```";
const prompt = [{ role: "user" as const, content: [{ type: "text" as const, text: "clean up" }] }];

/** The run (whole), after asserting char by char and seeded splits agree with it and parse(), every character accounted for. */
function run(notation: string) {
  const input = live(notation);
  const r = runAtEverySplit(input, fixtureTools);
  expect(accountsForEveryCharacter(input, r)).toBe(true);
  expect(parse(input, fixtureTools).calls.map((c) => c.input)).toEqual(r.calls.map((c) => c.input));
  return r;
}
const expectNoRmWithoutWorkdir = (r: ReturnType<typeof run>) => {
  for (const c of r.calls) expect(c.input).not.toEqual({ command: "rm -rf ./*" });
};

describe("a fenced code block right after the invoke closer, then the stray parameter, in the still-open block", () => {
  // fixed (high: wrong execution, the review-47 harm again; review 47b finding 2 by another
  // path). A line of prose between the invoke closer and the stray workdir is refused now, but a
  // fenced code block there (empty, `echo hi`, or an output the model made up) is read as a
  // fabricated result (S03): everything from the fence to the end of the block, the stray workdir
  // included, is stripped as "fabricated-result" with NO broken report and no nudge, and
  // `rm -rf ./*` runs in the session's directory. The same input in Claude-style XML is refused
  // (control), as is a line of prose before the fence (control). Expected: refused, broken-markup
  // I02, text kept (the stray stands before the block's closer). Suspected: src/engine/output.ts
  // (the S03 strip after a call ends the block hold before text mode reads the stray) and
  // src/engine/text-mode.ts (the stray watch does not look inside what S03 strips).
  for (const [name, fence] of [
    ["an empty fence", `${F}\n${F}`],
    ["a fence with a command", `${F}\necho hi\n${F}`],
    ["a fence with made-up output", `${F}text\na.txt b.txt\n${F}`],
    ["a fence, then a blank line", `${F}\necho hi\n${F}\n`],
    ["a tilde fence", `~~~\necho hi\n~~~`],
  ] as const) {
    test(`DSML, ${name}: rm -rf ./* does not run without its workdir`, () => {
      expectNoRmWithoutWorkdir(run(`Cleaning.\n<{D}tool_calls>\n${RM}\n${fence}\n${WORKDIR}\n</{D}tool_calls>`));
    });
  }
  test("DSML: the stray workdir is never dropped without a report", () => {
    const r = run(`Cleaning.\n<{D}tool_calls>\n${RM}\n${F}\necho hi\n${F}\n${WORKDIR}\n</{D}tool_calls>`);
    expect(r.summary.broken.length).toBeGreaterThan(0);
  });
  // fixed (high, same cause) in Qwen3-Coder's wrapper: a fence after `</function>`, then
  // `<parameter=workdir>` before `</tool_call>`: the call runs, the rest stripped silently.
  test("Qwen3-Coder: a fence after </function>, then the stray workdir: refused", () => {
    expectNoRmWithoutWorkdir(run(`Cleaning.\n<tool_call>\n<function=bash>\n<parameter=command>\nrm -rf ./*\n</parameter>\n</function>\n${F}\necho hi\n${F}\n<parameter=workdir>\n/tmp/scratch\n</parameter>\n</tool_call>`));
  });
  test("through the AI SDK middleware (chunks of 1, 7, whole): no call", async () => {
    const input = live(`Cleaning.\n<{D}tool_calls>\n${RM}\n${F}\necho hi\n${F}\n${WORKDIR}\n</{D}tool_calls>`);
    for (const size of [1, 7, input.length]) expect((await throughMiddleware(prompt, textStream(input, size))).calls).toEqual([]);
  });
  // Controls (pass on main).
  test("control: Claude-style XML with the same fence is refused", () => {
    expect(run(`Cleaning.\n<function_calls>\n<invoke name="bash">\n<parameter name="command">rm -rf ./*</parameter>\n</invoke>\n${F}\necho hi\n${F}\n<parameter name="workdir">/tmp/scratch</parameter>\n</function_calls>`).calls).toEqual([]);
  });
  test("control: a line of prose before the fence: refused", () => {
    expect(run(`Cleaning.\n<{D}tool_calls>\n${RM}\nNote:\n${F}\necho hi\n${F}\n${WORKDIR}\n</{D}tool_calls>`).calls).toEqual([]);
  });
  test("control: the stray before the fence and a later call: both refused", () => {
    expect(run(`Cleaning.\n<{D}tool_calls>\n${LS}\n${WORKDIR}\n${F}\necho hi\n${F}\n${RM}\n</{D}tool_calls>`).calls).toEqual([]);
  });
});

describe("the block's closer written inside a CommonMark container (documentation), then a stray parameter", () => {
  // fixed (medium-high: wrong execution; documentation counts as markup). A block closer that
  // stands in a block quote, a list item, a fenced or an indented code block is documentation, yet
  // it ends the watched block: the stray workdir after it (before the block's real closer) is
  // read as a loose value after a closed block (D08, stripped), and `rm -rf ./*` runs. The same
  // closer in inline code or an HTML comment does not end the block (controls: refused).
  // Expected: refused (the block is still open; its real closer comes after the stray).
  // Suspected: src/engine/text-mode.ts (the closer that ends strayBlock / closedBlock is taken
  // without the container check the call openers get) and src/engine/tentative-closer.ts.
  for (const [name, closer] of [
    ["a block quote", `> </{D}tool_calls>`],
    ["a list item", `- </{D}tool_calls>`],
    ["a fenced code block", `${F}\n</{D}tool_calls>\n${F}`],
    ["an indented code block", `\n    </{D}tool_calls>\n`],
  ] as const) {
    test(`${name}: rm -rf ./* does not run without its workdir`, () => {
      expectNoRmWithoutWorkdir(run(`Cleaning.\n<{D}tool_calls>\n${RM}\n${closer}\n${WORKDIR}\n</{D}tool_calls>`));
    });
  }
  for (const [name, closer] of [
    ["inline code", `the \`</{D}tool_calls>\` closer`],
    ["an HTML comment", `<!-- </{D}tool_calls> -->`],
  ] as const) {
    test(`control: the closer in ${name}: refused`, () => {
      expect(run(`Cleaning.\n<{D}tool_calls>\n${RM}\n${closer}\n${WORKDIR}\n</{D}tool_calls>`).calls).toEqual([]);
    });
  }
});

describe("a closer whose word only starts like the block's", () => {
  // fixed (low: the rule can be ended by a tag that is not the block's closer). `</{D}tool_callsX>`
  // and `</{D}tool_calls_begin>` end the watched block as `</{D}tool_calls>` does, so a stray after
  // them and before the real closer refuses nothing. `</{D}tool_results>`, `</{D}foo>` and
  // `</div>` do not (controls). Expected: a closer with another word does not end the block.
  // Suspected: src/grammar/ (the closer word matched by prefix) / src/engine/tentative-closer.ts.
  for (const closer of [`</{D}tool_callsX>`, `</{D}tool_calls_begin>`]) {
    test(`${closer}: the stray after it still refuses`, () => {
      expectNoRmWithoutWorkdir(run(`Cleaning.\n<{D}tool_calls>\n${RM}\n${closer}\n${WORKDIR}\n</{D}tool_calls>`));
    });
  }
  for (const closer of [`</{D}tool_results>`, `</{D}foo>`, `</div>`, `</{BAR}DSML{SP}tool_calls>`]) {
    test(`control: ${closer} does not end the block: refused`, () => {
      expect(run(`Cleaning.\n<{D}tool_calls>\n${RM}\n${closer}\n${WORKDIR}\n</{D}tool_calls>`).calls).toEqual([]);
    });
  }
});

describe("an orphan DSML invoke (the block wrapper lost) beside a parameter outside it", () => {
  // fixed in part (medium: wrong execution; the rule's scope). Rule chosen (fx48-block): a DSML
  // parameter outside every invoke read with no block open (no wrapped tool) refuses every later
  // orphan DSML invoke of the reply (I02, text kept), so a stray before or between orphan invokes
  // refuses the calls after it; it needs no hold (text-mode.ts strayOutsideBlock).
  const ORPHAN_LS = LS;
  // known gap: a stray after the last orphan invoke would need every orphan call held to the
  // reply's end (or the candidate reading on over a parameter after an orphan invoke, which the
  // span walk does not refuse today): the orphan rm -rf ./* still runs, the stray is a loose value (D08).
  test("known gap: the stray workdir right after the orphan rm -rf ./* invoke (the call runs)", () => {
    const r = run(`Cleaning.\n${RM}\n${WORKDIR}`);
    expect(r.calls.map((c) => c.input)).toEqual([{ command: "rm -rf ./*" }]);
  });
  test("the stray workdir right before the orphan rm -rf ./* invoke", () => {
    expectNoRmWithoutWorkdir(run(`Cleaning.\n${WORKDIR}\n${RM}`));
  });
  test("the stray workdir between two orphan invokes: the later one is refused (the earlier one ran before it: the known gap)", () => {
    const r = run(`Cleaning.\n${ORPHAN_LS}\n${WORKDIR}\n${RM}`);
    expectNoRmWithoutWorkdir(r);
    expect(r.calls.map((c) => c.input)).toEqual([{ command: "ls" }]);
    expect(r.summary.broken.map((b) => b.shape)).toContain("I02");
  });
  test("control: the same inside a block is refused", () => {
    expect(run(`Cleaning.\n<{D}tool_calls>\n${RM}\n${WORKDIR}\n</{D}tool_calls>`).calls).toEqual([]);
  });
});

describe("hard negatives (pass on main)", () => {
  test("two blocks back to back, the second with a stray: the first block's call runs, the second's does not", () => {
    const r = run(`<{D}tool_calls>\n${LS}\n</{D}tool_calls><{D}tool_calls>\n${RM}\n${WORKDIR}\n</{D}tool_calls>`);
    expect(r.calls.map((c) => c.input)).toEqual([{ command: "ls" }]);
  });
  test("the block's closer inside a later call's value does not end the block: the stray after refuses both", () => {
    const write = `<{D}invoke name="write">\n<{D}parameter name="filePath" string="true">a.md</{D}parameter>\n<{D}parameter name="content" string="true">x </{D}tool_calls> y</{D}parameter>\n</{D}invoke>`;
    expect(run(`<{D}tool_calls>\n${RM}\n${write}\n${WORKDIR}\n</{D}tool_calls>`).calls).toEqual([]);
  });
  test("a stray in a block quote inside the open block refuses", () => {
    expect(run(`Cleaning.\n<{D}tool_calls>\n${RM}\n> ${WORKDIR}\n</{D}tool_calls>`).calls).toEqual([]);
  });
  test("a stray before every invoke refuses", () => {
    expect(run(`<{D}tool_calls>\n${WORKDIR}\n${RM}\n</{D}tool_calls>`).calls).toEqual([]);
  });
  test("refused: every character stays visible (nothing lost, nothing doubled), whole and split", () => {
    const input = live(`Cleaning.\n<{D}tool_calls>\n${LS}\nNote:\n${WORKDIR}\nThen:\n${RM}\n</{D}tool_calls>\nDone.`);
    const r = runAtEverySplit(input, fixtureTools);
    expect(r.calls).toEqual([]);
    expect(r.text).toBe(input);
  });
});

describe("through the fetch adapter: Responses and Anthropic Messages (a read call, its path given twice)", () => {
  const SCHEMA = { type: "object", properties: { path: { type: "string" } }, required: ["path"] };
  const READ = `<{D}invoke name="read">\n<{D}parameter name="path" string="true">a.ts</{D}parameter>\n</{D}invoke>`;
  const STRAY = `<{D}parameter name="path" string="true">b.ts</{D}parameter>`;
  /** Calls and text the client gets on each wire, the text streamed in deltas of `size`. */
  async function wires(text: string, size: number) {
    const rInit = { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ model: "m", stream: true, input: [{ role: "user", content: [{ type: "input_text", text: "hi" }] }], tools: [{ type: "function", name: "read", parameters: SCHEMA }] }) };
    const r = dataEvents(await (await repairFetch({}, chunkedFetch([encode(responsesItemSse([{ message: "m1", parts: [text] }], size))]))("http://model.test/v1/responses", rInit)).text());
    const events: Record<string, unknown>[] = [
      { type: "message_start", message: { id: "msg", type: "message", role: "assistant", model: "m", content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 1, output_tokens: 1 } } },
      { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
    ];
    for (let i = 0; i < text.length; i += size) events.push({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text: text.slice(i, i + size) } });
    events.push({ type: "content_block_stop", index: 0 }, { type: "message_delta", delta: { stop_reason: "end_turn", stop_sequence: null }, usage: { output_tokens: 5 } }, { type: "message_stop" });
    const aInit = { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ model: "m", max_tokens: 100, stream: true, messages: [{ role: "user", content: "hi" }], tools: [{ name: "read", input_schema: SCHEMA }] }) };
    const a = dataEvents(await (await repairFetch({}, chunkedFetch([encode(namedSse(events))]))("http://127.0.0.1:1/v1/messages", aInit)).text());
    return {
      responses: { calls: r.filter((e) => e.type === "response.output_item.done" && e.item?.type === "function_call").length, text: r.filter((e) => e.type === "response.output_text.delta").map((e) => e.delta).join("") },
      anthropic: { calls: a.filter((e) => e.type === "content_block_start" && e.content_block?.type === "tool_use").length, text: a.filter((e) => e.type === "content_block_delta" && e.delta?.type === "text_delta").map((e) => e.delta.text).join("") },
    };
  }
  // fixed (high, the fence finding above on the other wires): the read runs with a.ts, the
  // stray b.ts and the fence are stripped in silence. Expected: no call, the text whole.
  test("a fence then the stray path: no call on either wire, the text whole (deltas of 1, 5, whole)", async () => {
    const text = live(`Reading.\n<{D}tool_calls>\n${READ}\n${F}\necho\n${F}\n${STRAY}\n</{D}tool_calls>`);
    for (const size of [1, 5, text.length]) {
      const out = await wires(text, size);
      expect(out).toEqual({ responses: { calls: 0, text }, anthropic: { calls: 0, text } });
    }
  });
  test("hard negative: prose then the stray path: no call on either wire, the text whole", async () => {
    const text = live(`Reading.\n<{D}tool_calls>\n${READ}\nNote:\n${STRAY}\n</{D}tool_calls>\nDone.`);
    for (const size of [1, 5, text.length]) {
      const out = await wires(text, size);
      expect(out).toEqual({ responses: { calls: 0, text }, anthropic: { calls: 0, text } });
    }
  });
});

describe("fx48-block: the line after a call's markup is a line of its own (a fence there is a fence), and a stray in documentation inside the open block", () => {
  // The rule chosen for the fence finding: the line ending a call's span took after its markup
  // moves the documentation context on (output.ts afterMarkup), so a fence on the next line opens
  // a fence and its closing fence closes it; and while a block is open a parameter outside every
  // invoke refuses its calls even where it stands in documentation (a fence, a block quote, an
  // HTML block), since the block's own lines document nothing (text-mode.ts strayInDocAt).
  test("a stray inside a fence in the open block refuses, the text whole", () => {
    const input = live(`Cleaning.\n<{D}tool_calls>\n${RM}\n${F}\n${WORKDIR}\n${F}\n</{D}tool_calls>`);
    const r = run(`Cleaning.\n<{D}tool_calls>\n${RM}\n${F}\n${WORKDIR}\n${F}\n</{D}tool_calls>`);
    expect(r.calls).toEqual([]);
    expect(r.text).toBe(input);
    expect(r.summary.broken.map((b) => b.shape)).toContain("I02");
  });
  test("a Markdown table right after the invoke closer, then the stray: refused, the text whole", () => {
    const notation = `Cleaning.\n<{D}tool_calls>\n${RM}\n| a | b |\n| - | - |\n| 1 | 2 |\n${WORKDIR}\n</{D}tool_calls>`;
    const r = run(notation);
    expect(r.calls).toEqual([]);
    expect(r.text).toBe(live(notation));
  });
  test("a stray inside an HTML block in the open block refuses", () => {
    expect(run(`Cleaning.\n<{D}tool_calls>\n${RM}\n<div>\n${WORKDIR}\n</div>\n</{D}tool_calls>`).calls).toEqual([]);
  });
  test("hard negative: a fence after the block closed, a parameter in it: the block's call runs", () => {
    const r = run(`Cleaning.\n<{D}tool_calls>\n${RM}\n</{D}tool_calls>\n${F}\n${WORKDIR}\n${F}\nDone.`);
    expect(r.calls.map((c) => c.input)).toEqual([{ command: "rm -rf ./*" }]);
  });
  test("hard negative: a fence between two calls of one block (no stray): both run at the closer", () => {
    const r = run(`Cleaning.\n<{D}tool_calls>\n${LS}\n${F}\necho hi\n${F}\n${RM.replace("rm -rf ./*", "pwd")}\n</{D}tool_calls>`);
    expect(r.calls.map((c) => c.input)).toEqual([{ command: "ls" }, { command: "pwd" }]);
  });
  test("an invoke inside a fence opened on the line after a call is documentation: it never runs", () => {
    const r = run(`Cleaning.\n${LS}\n${F}\n${RM}\n${F}\nDone.`);
    expect(r.calls.map((c) => c.input)).toEqual([{ command: "ls" }]);
  });
});

describe("fx48-block: what ends the watched block, and the orphan rule's bounds (hard negatives and the rules chosen)", () => {
  test("a misspelled closer with a wrapper's word (`</{D}tool_call>`) still ends the block: a parameter after it and prose leaves the call", () => {
    const r = run(`Cleaning.\n<{D}tool_calls>\n${RM}\n</{D}tool_call>\nNote:\n${WORKDIR}`);
    expect(r.calls.map((c) => c.input)).toEqual([{ command: "rm -rf ./*" }]);
  });
  test("`</{D}tool_callsX>` then prose and no stray: the call runs at the reply's end", () => {
    const r = run(`Cleaning.\n<{D}tool_calls>\n${RM}\n</{D}tool_callsX>\nDone.`);
    expect(r.calls.map((c) => c.input)).toEqual([{ command: "rm -rf ./*" }]);
  });
  test("an indented closer without a blank line before it still closes the block (no indented code there)", () => {
    const r = run(`Cleaning.\n<{D}tool_calls>\n${RM}\n    </{D}tool_calls>\nNote:\n${WORKDIR}`);
    expect(r.calls.map((c) => c.input)).toEqual([{ command: "rm -rf ./*" }]);
  });
  test("a block written inside a list item, closed in it: the closer at the opener's depth ends the block (a parameter after it leaves the call)", () => {
    const item = (line: string) => `  ${line}`;
    const r = run(`Steps:\n- <{D}tool_calls>\n${RM.split("\n").map(item).join("\n")}\n  </{D}tool_calls>\n\nNote:\n${WORKDIR}`);
    expect(r.calls.map((c) => c.input)).toEqual([{ command: "rm -rf ./*" }]);
  });
  test("a stray parameter before a whole block: the block's own calls still run (the orphan rule refuses only orphan invokes)", () => {
    const r = run(`Cleaning.\n${WORKDIR}\n<{D}tool_calls>\n${LS}\n</{D}tool_calls>`);
    expect(r.calls.map((c) => c.input)).toEqual([{ command: "ls" }]);
  });
  test("a parameter in a fence before an orphan invoke is documentation: the invoke runs", () => {
    const r = run(`Example:\n${F}\n${WORKDIR}\n${F}\n${LS}`);
    expect(r.calls.map((c) => c.input)).toEqual([{ command: "ls" }]);
  });
  test("a wrapped tool (a parameter named after a declared tool) is no stray: the orphan invoke after it is not refused by it", () => {
    const r = run(`Cleaning.\n<{D}parameter name="bash">\n<{D}parameter name="command" string="true">pwd</{D}parameter>\n</{D}parameter>\n${LS}`);
    expect(r.calls.map((c) => c.input)).toContainEqual({ command: "ls" });
  });
});
