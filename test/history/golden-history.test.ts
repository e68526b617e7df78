/**
 * History against the whole golden catalogue: replayed text is read as the live repair reads a
 * reply, so every fixture the live repair acts on (a call, or a nudge) loses its markup to the
 * note, and every hard negative (`none(...)`) comes back exactly as written.
 */
import { describe, expect, test } from "bun:test";
import { parse } from "../../src/engine/parse.ts";
import { REMOVED_NOTE, redactLeaks } from "../../src/history/sanitize.ts";
import type { ParseOptionsInput, ToolSpec } from "../../src/parse/types.ts";
import { opencodeBuiltinTools } from "../../src/tools/opencode-builtins.ts";
import { fixtures, type Fixture } from "../golden/build-fixtures.ts";
import { escaped } from "../golden/notation.ts";
import { fixtureTools } from "../golden/tools.ts";

const toolsFor = (f: Fixture) => (f.tools ? fixtureTools.filter((t) => f.tools!.includes(t.name)) : fixtureTools);
const optionsOf = (f: Fixture) => (f.options ?? {}) as ParseOptionsInput;
const acts = (f: Fixture) => f.expect.calls.length > 0 || f.expect.nudge !== null;
// A "strip" row (markup beside a native call) is neither: its live verdict depends on the native call, which history does not see.
const positives = fixtures.filter((f) => !f.nativeToolCalls && acts(f));
const negatives = fixtures.filter((f) => !f.nativeToolCalls && !acts(f));
const liveActs = (text: string, tools: readonly ToolSpec[], f: Fixture) => {
  const r = parse(text, tools, optionsOf(f));
  return r.calls.length + r.broken.length > 0;
};
/** Hard negatives the redaction changed, read with each of `toolSets` (a function of the fixture). */
function changedNegatives(toolSets: (f: Fixture) => [string, readonly ToolSpec[] | undefined][]): string[] {
  const changed: string[] = [];
  for (const f of negatives) {
    for (const [label, tools] of toolSets(f)) {
      const out = redactLeaks(f.input, optionsOf(f), tools);
      if (out.text !== f.input || out.removed !== 0) changed.push(`${f.id} (${label}): ${escaped(out.text)}`);
    }
  }
  return changed;
}

describe("history over the golden fixtures", () => {
  test("with the request's tools: every call or nudge fixture is redacted, leaving nothing the live repair acts on; every none fixture is unchanged", () => {
    expect([positives.length > 250, negatives.length > 100]).toEqual([true, true]);
    const missed: string[] = [];
    for (const f of positives) {
      const tools = toolsFor(f);
      const out = redactLeaks(f.input, optionsOf(f), tools);
      if (out.removed === 0 || !out.text.includes(REMOVED_NOTE) || liveActs(out.text, tools, f)) missed.push(`${f.id}: ${escaped(out.text)}`);
    }
    // A value opened outside any readable invoke (S46.1, S46.3: several parameters) is reported from
    // its first loose parameter opener to its call's last closer read, so one note takes every
    // parameter opener of that call: none is left for the replayed reply to nudge on or imitate.
    expect(missed).toEqual([]);
    // N45.6 quotes a tool-named write (`<{D}write>`), which is markup only when `write` is declared:
    // with no tools the comment ends at the page's `-->` as CommonMark reads it, and the example after
    // it is a leak like any other, so that reading alone is not asked to leave it as written.
    const toolNamedQuote = new Set(["N45.6"]);
    expect(changedNegatives((f) => [["fixture tools", toolsFor(f)], ...(toolNamedQuote.has(f.id) ? [] : [["no tools", []] as [string, readonly ToolSpec[]]])])).toEqual([]);
  }, 30_000); // a timeout, not a speed assertion: every golden read twice, over 5 s with other runs on the machine

  test("with no tools given (the plugin): every fixture the live repair acts on with OpenCode's built-ins declared is redacted; every none fixture is unchanged", () => {
    const builtin = new Set(opencodeBuiltinTools.map((t) => t.name));
    const missed: string[] = [];
    for (const f of positives) {
      if (!liveActs(f.input, toolsFor(f).filter((t) => builtin.has(t.name)), f)) continue;
      const out = redactLeaks(f.input, optionsOf(f));
      if (!out.text.includes(REMOVED_NOTE)) missed.push(f.id);
    }
    expect(missed).toEqual([]);
    expect(changedNegatives(() => [["built-ins", undefined]])).toEqual([]);
  }, 30_000);
});
