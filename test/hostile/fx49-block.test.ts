/**
 * Fix 49 (block watch): what the stray-parameter watch of an open DSML block now keeps, beside the
 * pinned findings of review-49-rules-block/-parts. Only a closer right after the call's markup or
 * ending its line (spaces, a line break, the next markup) ends the watch; a closer inside a running
 * line is prose and the calls stay held (they run at the block's real closer or the reply's end,
 * never lost). A second block opener before the closer takes the held calls over. A stray in a
 * block refuses the later orphan invokes, as one with no block open does (golden P48.5). Every case
 * runs whole, char by char and at seeded random splits (outcome()).
 */
import { describe, expect, test } from "bun:test";
import { createRepairEngine } from "../../src/engine/engine.ts";
import { fixtureTools } from "../golden/tools.ts";
import { live } from "../golden/notation.ts";
import { outcome } from "../support/outcome.ts";

const rm = `<{D}invoke name="bash">\n<{D}parameter name="command" string="true">rm -rf ./*</{D}parameter>\n</{D}invoke>`;
const ls = `<{D}invoke name="bash">\n<{D}parameter name="command" string="true">ls</{D}parameter>\n</{D}invoke>`;
const stray = `<{D}parameter name="workdir" string="true">/tmp/scratch</{D}parameter>`;
const open = `Cleaning.\n<{D}tool_calls>\n${rm}\n`;
const closer = `</{D}tool_calls>`;
const rmRuns = [{ tool: "bash", input: { command: "rm -rf ./*" } }];

describe("a closer inside a running line keeps the calls held, never lost: with no stray they run", () => {
  for (const [name, rest] of [
    ["words after the closer right after the call, reply ends", `${closer} Done.`],
    ["words after the closer, then a line, reply ends", `${closer} is the closer.\nThat is all.`],
    ["a closer named mid-sentence, then the real closer", `The block ends with ${closer} here.\n${closer}\nDone.`],
    ["emphasis, then the real closer", `*${closer}*\n${closer}`],
  ] as const) {
    test(name, () => {
      const input = live(open + rest);
      const r = outcome(input);
      expect(r.calls).toEqual(rmRuns);
    });
  }
});

describe("refused for the stray after a closer inside a running line, the closer read as the held call's noise is text again", () => {
  // Never lose text: no call ran, yet the closer read while the call was held was stripped as its
  // noise (Tail.joinInto released noise as stripped). Severity: low (reported as stripped noise, no call).
  // Fixed (fix 53, with golden P48.4): a held call refused gives the noise it held back as text (joinInto with the refusal).
  for (const [name, line] of [
    ["named inside a sentence", `The block ends with ${closer} here.`],
    ["followed by words on its line (read in the call's span: kept visible)", `${closer} is the closer.`],
    ["wrapped in emphasis", `*${closer}*`],
  ] as const) {
    test(name, () => {
      const input = live(`${open}${line}\n${stray}\n${closer}`);
      const r = outcome(input);
      expect(r.calls).toEqual([]);
      expect(r.text).toBe(input);
      expect(r.broken).toContain("broken-markup");
    });
  }
});

describe("a closer ending its line still ends the watch: a stray after it is S03 text and the call runs", () => {
  for (const [name, rest] of [
    ["spaces then a line break", `${closer}   \n${stray}\nDone.`],
    ["CRLF", `${closer}\r\n${stray}\r\nDone.`],
    ["the next markup on its line", `${closer}${stray}\nDone.`],
    ["after prose, alone on its line", `Now the closer:\n${closer}\n${stray}\nDone.`],
    ["the reply ends at the closer", closer],
  ] as const) {
    test(name, () => {
      expect(outcome(live(open + rest)).calls).toEqual(rmRuns);
    });
  }
});

describe("a second block opener before the closer", () => {
  test("no stray: both blocks' calls run (at the second block's closer)", () => {
    const r = outcome(live(`${open}<{D}tool_calls>\n${ls}\n${closer}`));
    expect(r.calls.map((c) => c.input.command)).toEqual(["rm -rf ./*", "ls"]);
  });
  test("a stray in the second block refuses the first block's held call and its own", () => {
    expect(outcome(live(`${open}<{D}tool_calls>\n${ls}\n${stray}\n${closer}`)).calls).toEqual([]);
  });
  test("control: the first block closed, the second with a stray: the first block's call runs", () => {
    expect(outcome(live(`${open}${closer}\n<{D}tool_calls>\n${ls}\n${stray}\n${closer}`)).calls).toEqual(rmRuns);
  });
});

describe("a stray in a block refuses the later orphan invokes (golden P48.5's rule)", () => {
  test("a stray read by text mode after prose in the block", () => {
    expect(outcome(live(`${open}Note:\n${stray}\n${closer}\n${rm}`)).calls).toEqual([]);
  });
  test("a block holding only a stray, then an orphan invoke", () => {
    expect(outcome(live(`<{D}tool_calls>\n${stray}\n${closer}\n${rm}`)).calls).toEqual([]);
  });
  test("control: a clean block, then an orphan invoke: both run", () => {
    expect(outcome(live(`${open}${closer}\n${ls}`)).calls.map((c) => c.input.command)).toEqual(["rm -rf ./*", "ls"]);
  });
});

describe("carried across continued parts (carryOver strayBefore)", () => {
  const parts = (texts: string[]) => {
    let continues: ReturnType<NonNullable<ReturnType<typeof createRepairEngine>["carryOver"]>> | undefined;
    const calls: unknown[] = [];
    for (const text of texts) {
      const engine = createRepairEngine({ tools: fixtureTools, idPrefix: "call_", ...(continues ? { continues } : {}) });
      for (const e of [...engine.feed(text), ...engine.flush()]) if (e.type === "call") calls.push(e.call.input);
      continues = engine.carryOver!();
    }
    return { calls, continues };
  };
  test("a block refused for its stray in part one, an orphan invoke in part two: refused", () => {
    expect(parts([live(`${open}${stray}\n${closer}\n`), live(rm)]).calls).toEqual([]);
  });
  test("a clean part one carries no stray: part two's orphan invoke runs", () => {
    const r = parts([live(`${open}${closer}\n`), live(rm)]);
    expect(r.calls).toEqual([{ command: "rm -rf ./*" }, { command: "rm -rf ./*" }]);
    expect(r.continues?.strayBefore).toBeUndefined();
  });
});
