/**
 * Review 48b (parse): split parity and character accounting over pairs of this round's new pieces
 * (paragraph costume, indented closer, tool_name/tool_args, orphan stray, pre/code with raw HTML,
 * unread opener in a value). Whole, char by char and five seeded splits must agree
 * (runAtEverySplit), and every input character is visible, in a call's span or in a stripped span.
 * A hard negative: passes on int48.
 */
import { describe, expect, test } from "bun:test";
import { accountsForEveryCharacter, runAtEverySplit } from "../support/run-engine.ts";
import { fixtureTools } from "../golden/tools.ts";
import { live } from "../golden/notation.ts";

const pieces: string[] = [
  "The agent wraps commands like\n<bash>\nrm -rf build\n</bash>\nin its replies.",
  "- Clean:\n  <bash>\n  cat > a.py <<'EOF'\n  x = 1\n  EOF\n  </bash>",
  `<tool_call><tool_name>bash</tool_name><tool_args>{"command":"ls"}</tool_args></tool_call>`,
  live(`<{D}parameter name="workdir" string="true">/tmp/scratch</{D}parameter>`),
  live(`<{D}invoke name="bash">\n<{D}parameter name="command" string="true">rm -rf ./*</{D}parameter>\n</{D}invoke>`),
  `<pre><code class="language-bash"><span class="nb">rm</span> -rf /</code></pre>`,
  live(`<{D}tool_calls>\n<{D}invoke name="bash">\n<{D}parameter name="command" string="true">rm -rf ./*\n<{BAR}parameter name="workdir" string="true">/tmp</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`),
  "Note: the reply goes on here.",
];

describe("hard negative: pairs of the new pieces agree across splits and lose no character", () => {
  for (let i = 0; i < pieces.length; i++) {
    test(`piece ${i} then every piece`, () => {
      for (let j = 0; j < pieces.length; j++) {
        for (const sep of ["\n", "\n\n"]) {
          const input = pieces[i]! + sep + pieces[j]!;
          const run = runAtEverySplit(input, fixtureTools);
          expect(accountsForEveryCharacter(input, run)).toBe(true);
        }
      }
    }, 120_000);
  }

  test("triples, one line break between", () => {
    for (const a of pieces) for (const b of pieces) for (const c of pieces) {
      const input = `${a}\n${b}\n${c}`;
      expect(accountsForEveryCharacter(input, runAtEverySplit(input, fixtureTools))).toBe(true);
    }
  }, 600_000);
});
