// TwoReadings (src/engine/two-readings.ts): the documentation context of a reply that may continue
// a prefill or start fresh. DSML replies, built from the golden notation (no marker bytes here).
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { createRepairEngine } from "../../src/engine/engine.ts";
import { DocContext } from "../../src/engine/doc-context.ts";
import { TwoReadings } from "../../src/engine/two-readings.ts";
import type { DocContext as DocContextType } from "../../src/engine/doc-context.ts";
import { D, escaped } from "../golden/notation.ts";
import { fixtureTools } from "../golden/tools.ts";
import { everyChar, randomCuts } from "../support/run-engine.ts";

const DSML = `<${D}tool_calls>\n<${D}invoke name="bash">\n<${D}parameter name="command" string="true">ls -la</${D}parameter>\n</${D}invoke>\n</${D}tool_calls>`;

/** The context a prefill leaves (as the adapters read it, minus the engine). */
function after(prefill: string): DocContextType {
  const doc = new DocContext();
  doc.advanceText(prefill);
  return doc;
}

/** Calls and text of `reply` read in this context, cut at `cuts`. */
function read(doc: () => DocContextType | undefined, reply: string, cuts: readonly number[]): { calls: number; text: string } {
  const context = doc();
  const engine = createRepairEngine({ tools: fixtureTools, idPrefix: "c_", ...(context ? { continues: { doc: context, calls: 0 } } : {}) });
  let calls = 0;
  let text = "";
  let prev = 0;
  for (const cut of [...cuts, reply.length]) {
    for (const e of [...engine.feed(reply.slice(prev, cut)), ...(cut === reply.length ? engine.flush() : [])]) {
      if (e.type === "call") calls++;
      else text += e.text;
    }
    prev = cut;
  }
  return { calls, text };
}

describe("a DSML reply: a call only where the continued and the fresh reading both run it", () => {
  const cases: [string, string, string, number][] = [
    ["a fenced example after a prefill that opened a fence", "Here is the example:\n```\n", "```\n" + DSML + "\n```\n", 0],
    ["a call inside the prefill's fence", "Here is the example:\n```\n", DSML + "\n```", 0],
    ["indented code after a prefill mid-line", "Sure.", "    " + DSML.replaceAll("\n", "\n    "), 0],
    ["a blockquote lazy line after a prefill's quote", "> Note:\n", DSML, 0],
    ["a leak after a prefill both readings agree on", "Sure.", DSML, 1],
    ["a leak on its own line after a prefill's paragraph", "Sure.\n", DSML, 1],
  ];
  for (const [name, prefill, reply, calls] of cases) {
    test(name, () => {
      const continued = read(() => after(prefill), reply, []).calls;
      const fresh = read(() => undefined, reply, []).calls;
      expect(Math.min(continued, fresh)).toBe(calls);
      for (const cuts of [[], everyChar(reply.length), randomCuts(reply.length, 43), randomCuts(reply.length, 4302, 5)]) {
        const both = read(() => new TwoReadings(after(prefill)), reply, cuts);
        expect(both.calls).toBe(calls);
        if (calls === 0) expect(escaped(both.text)).toBe(escaped(reply));
      }
    });
  }
});

test("every question and move the engine puts to its documentation context is TwoReadings' own", () => {
  // TwoReadings never feeds the state it inherits: a DocContext member the engine uses but
  // TwoReadings leaves to its base would answer for a document that never saw a character.
  const dir = join(import.meta.dir, "../../src/engine");
  const used = new Set<string>();
  for (const file of readdirSync(dir)) {
    if (!file.endsWith(".ts") || file.startsWith("doc-") || file === "two-readings.ts" || file === "quote-blind.ts") continue;
    for (const match of readFileSync(join(dir, file), "utf8").matchAll(/\bdoc\.([A-Za-z_]\w*)/g)) used.add(match[1]!);
  }
  expect(used.size).toBeGreaterThan(5);
  const own = new Set(Object.getOwnPropertyNames(TwoReadings.prototype));
  expect([...used].filter((name) => !own.has(name))).toEqual([]);
});
