/**
 * Fix 53 (docs): a code costume the reply never closes (costume-hold.ts unclosedRereadAt). A
 * mention inside a line (`Use <shell> here.`) is prose once its paragraph ends at a blank line, and
 * an unclosed `<pre>` that starts a line or a list item is released for the documentation context
 * to read as CommonMark's HTML block: a later call standing as its own top-level paragraph runs
 * (review-53-docs-costume-mention.test.ts, review-53-docs-pre-in-list.test.ts). The hard
 * negatives here pin what that rule must not reach: a costume that closes later, a call in the
 * mention's own paragraph or inside a `<pre>` block, a heredoc still open, a part's end (a later
 * part may close it), and the bound on how often a reply's rest is read again.
 */
import { describe, expect, test } from "bun:test";
import { createRepairEngine } from "../../src/engine/engine.ts";
import type { EngineEvent } from "../../src/engine/types.ts";
import type { RecoveredCall } from "../../src/parse/types.ts";
import { parse } from "../../src/engine/parse.ts";
import { outcome } from "../support/outcome.ts";
import { countWork } from "../support/work.ts";
import { live } from "../golden/notation.ts";
import { fixtureTools } from "../golden/tools.ts";

const TOKEN = "ZQXJ7";
const HERMES = `<tool_call>{"name":"bash","arguments":{"command":"echo ${TOKEN}"}}</tool_call>`;
const DSML = live(`<{D}tool_calls><{D}invoke name="bash"><{D}parameter name="command" string="true">echo ${TOKEN}</{D}parameter></{D}invoke></{D}tool_calls>`);
const CALLS = { hermes: HERMES, dsml: DSML };
const ONE = { tool: "bash", input: { command: `echo ${TOKEN}` } };

/** Nothing runs, and every character stays visible. */
const HOLDS: [string, string][] = [
  // N09.1's rule over a blank line: the costume closes later, so what it holds is its code's text.
  ["a mid-line costume closed after a blank line", "Wrap it as <shell>\n\nX\n\n</shell> in the page.\n"],
  ["a mid-line costume closed later with text after its closer", "Use <shell> here.\n\nX\n\n</shell> ok.\n"],
  // The mention's own paragraph may still be a cut-off costume's code: refused, as before.
  ["a call in the mention's own paragraph", "Use <shell> here.\nX\n\nMore prose.\n"],
  // A heredoc opened in the costume's code goes on over blank lines.
  ["a cut-off heredoc over a blank line", "Run this: <shell>cat > doc.md <<'EOF'\n# Title\n\nX\n"],
  ["a cut-off <pre> heredoc", "- <pre>\n  cat > a <<EOF\nX\n"],
  // CommonMark's type-1 block runs to `</pre>` or its container's end.
  ["a top-level <pre> never closed", "<pre>\nx\n\nX\n"],
  ["an indented call in the item's <pre>", "- <pre>\n  x\n\n  X\n"],
  ["a <pre> in a nested list item", "- a\n  - <pre>\n    X\n"],
];

/** The call stands as its own top-level paragraph after the unclosed opener: it runs. */
const RUNS: [string, string][] = [
  ["two different mentions", "Use <shell> or <python> here.\n\nX\n"],
  ["a mention in a later paragraph, the call after it", "Intro.\n\nUse <bash> here.\n\nX\n"],
  ["a mention, a call, a mention, a call", "Use <shell> here.\n\nX\n\nAlso <python> there.\n\nX\n"],
  ["CR LF line ends", "Use <shell> here.\r\n\r\nX\r\n"],
];

describe("fix 53: a never-closed costume opener and the calls after it", () => {
  for (const [dialect, call] of Object.entries(CALLS)) {
    for (const [name, template] of HOLDS) {
      const doc = template.replaceAll("X", () => call);
      test(`holds: ${name} (${dialect})`, () => {
        const o = outcome(doc);
        expect(o.calls).toEqual([]);
        expect(o.text).toBe(doc);
      });
    }
    for (const [name, template] of RUNS) {
      const doc = template.replaceAll("X", () => call);
      const count = template.split("X").length - 1;
      test(`runs: ${name} (${dialect})`, () => {
        const o = outcome(doc);
        expect(o.calls).toEqual(Array.from({ length: count }, () => ONE));
        expect(o.broken).toEqual([]);
      });
    }
  }
});

/** Feeds the parts through one engine (a part's end between them), then flushes. */
function parts(...texts: string[]): { calls: RecoveredCall[]; text: string } {
  const engine = createRepairEngine({ tools: fixtureTools, idPrefix: "call_" });
  const calls: RecoveredCall[] = [];
  let text = "";
  const take = (events: EngineEvent[]) => {
    for (const e of events) {
      if (e.type === "text") text += e.text;
      else calls.push(e.call);
    }
  };
  texts.forEach((t, i) => {
    take(engine.feed(t));
    if (i < texts.length - 1) take(engine.endSpan!());
  });
  take(engine.flush());
  return { calls, text };
}

describe("fix 53: only the reply's end reads a never-closed costume's rest again", () => {
  test("a part's end is no reply's end: the call stays held, as before", () => {
    const r = parts(`Use <shell> here.\n\n${HERMES}\n`, "Then </shell> closes it.\n");
    expect(r.calls).toEqual([]);
  });
  test("the same text in one part runs the call", () => {
    expect(parts(`Use <shell> here.\n\n${HERMES}\n`).calls.map((c) => c.tool)).toEqual(["bash"]);
  });
});

describe("fix 53: the rest is read again a bounded number of times, so the work stays linear", () => {
  const unit = `Use <shell> here.\n\n${HERMES}\n\n`;
  const perChar = (text: string) => countWork(() => void parse(text, fixtureTools)) / text.length;
  test("many mentions each followed by a call: work per character does not grow with their number", () => {
    const small = perChar(unit.repeat(40));
    const large = perChar(unit.repeat(320));
    expect(large).toBeLessThan(small * 1.5 + 4);
  });
  test("past the bound, the later calls are held again (refused, text kept), never run twice", () => {
    const doc = unit.repeat(12);
    const o = outcome(doc);
    expect(o.calls.length).toBeGreaterThanOrEqual(8);
    expect(o.calls.length).toBeLessThan(12);
    expect(o.text.length).toBeLessThanOrEqual(doc.length);
  });
});
