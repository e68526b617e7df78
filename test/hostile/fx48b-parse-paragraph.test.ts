/**
 * Fix 48b (parse), findings 8 and 5: a costume is prose only when the line before it ends
 * mid-sentence (a letter, a digit or a comma last, and no markup on it) and the line after its
 * closer goes on with that sentence (a lower-case word, after `(`, `*`, a quote or a comma too).
 * Differential over the golden costume and pre/code shapes: wrapped as
 * "Running it:\n" + input + "\nthen I check.", each runs the calls it runs alone (main ran them).
 */
import { describe, expect, test } from "bun:test";
import fixtures from "../golden/fixtures.json";
import { fixtureTools } from "../golden/tools.ts";
import { parse } from "../../src/engine/parse.ts";
import { outcome } from "../support/outcome.ts";

type Fixture = { id: string; input: string; options?: object; nativeToolCalls?: boolean; given?: unknown; reservedNames?: unknown; expect: { calls: { shape?: string }[] } };
const COSTUME_SHAPES = /^(C0\d|O09)$/;
const costumeGoldens = (fixtures as Fixture[]).filter((f) => !f.given && !f.reservedNames && f.expect.calls.length > 0 && f.expect.calls.every((c) => COSTUME_SHAPES.test(c.shape ?? "")));
const callsOf = (input: string, f: Fixture) => parse(input, fixtureTools, { ...(f.options ?? {}), nativeToolCalls: f.nativeToolCalls }).calls.map((c) => [c.tool, c.input]);

describe("fixed: golden costume and pre/code shapes after 'Running it:' and before a lower-case line run as alone", () => {
  test("there are such goldens", () => {
    expect(costumeGoldens.length).toBeGreaterThan(15);
  });
  for (const f of costumeGoldens) {
    test(f.id, () => {
      const alone = callsOf(f.input, f);
      expect(alone.length).toBeGreaterThan(0);
      expect(callsOf(`Running it:\n${f.input}\nthen I check.`, f)).toEqual(alone);
    });
  }
});

const costume = "<bash>\nrm -rf build\n</bash>";
const rmBuild = [{ tool: "bash", input: { command: "rm -rf build" } }];

describe("prose after a call on the line before is that line's end; markup shown as text marks its line", () => {
  const hermes = '<tool_call>\n{"name": "bash", "arguments": {"command": "ls"}}\n</tool_call>';
  test("a call's closer then a sentence on its line: a costume after it inside the sentence is text", () => {
    const input = `${hermes} The agent wraps commands like\n${costume}\nin its replies.`;
    expect(outcome(input).calls).toEqual([{ tool: "bash", input: { command: "ls" } }]);
  });
  test("hard negative: a line ending with a call's closer, the costume after it runs", () => {
    const input = `The agent said ${hermes}\n${costume}\nthen I rebuild.`;
    expect(outcome(input).calls.map((c) => c.input)).toEqual([{ command: "ls" }, { command: "rm -rf build" }]);
  });
});

describe("the line before decides: only one ending mid-sentence (letter, digit, comma) makes the costume prose", () => {
  for (const before of ["Cleaning up:", "Cleaning up.", "Done!", "Ready?", "(see above)", "first;", "<b>bold</b>", "[fmt]: /u"]) {
    test(`${JSON.stringify(before)}: runs`, () => {
      expect(outcome(`${before}\n${costume}\nthen I rebuild.`).calls).toEqual(rmBuild);
    });
  }
  for (const before of ["The agent wraps commands like", "It writes, for example,", "in version 2"]) {
    test(`${JSON.stringify(before)}: text`, () => {
      const input = `${before}\n${costume}\nthen I rebuild.`;
      expect(outcome(input)).toEqual({ calls: [], broken: [], text: input });
    });
  }
});

describe("the line after decides: a new start runs the costume, a running word keeps it text", () => {
  const shown = (after: string) => `The agent wraps commands like\n${costume}\n${after}`;
  for (const after of ["Then I rebuild.", "2 files left.", "* in a list", "- in a list", "# Heading", "> quoted", "<b>In</b> bold", "**", "("]) {
    test(`${JSON.stringify(after)}: runs`, () => {
      expect(outcome(shown(after)).calls).toEqual(rmBuild);
    });
  }
  for (const after of ["'in its replies'.", "“in its replies”.", "**in** its replies.", "_in_ its replies.", "<b>in</b> bold"]) {
    test(`${JSON.stringify(after)}: text`, () => {
      const input = shown(after);
      expect(outcome(input)).toEqual({ calls: [], broken: [], text: input });
    });
  }
  test("three costumes in one running sentence: none runs, the text whole", () => {
    const input = `The agent wraps commands like\n${costume}\n<bash>\nls\n</bash>\n<shell>\nrm -rf /\n</shell>\nin its replies.`;
    expect(outcome(input)).toEqual({ calls: [], broken: [], text: input });
  });
  test("two costumes, then a new sentence: the first runs as before", () => {
    const o = outcome(`The agent wraps commands like\n${costume}\n<bash>\nls\n</bash>\nDone.`);
    expect(o.calls[0]).toEqual(rmBuild[0]!);
  });
});
