/**
 * Lead, round 50 (left open by the leaks fixer): a value that swallowed the next parameter opener
 * written with a misspelled sentinel word (`<{BAR}DSL{BAR}parameter name="workdir">`, `DMSL`,
 * `DSMLL`) was not seen as a runaway: the command ran with the opener and the workdir glued on.
 * The runaway rule now reads the sentinel word as the garbled-closer rule does (one edit of DSML).
 */
import { describe, expect, test } from "bun:test";
import { live } from "../golden/notation.ts";
import { outcome } from "../support/outcome.ts";

const runaway = (word: string) =>
  live(`<{D}tool_calls>\n<{D}invoke name="bash">\n<{D}parameter name="command" string="true">rm -rf ./*\n<{BAR}${word}{BAR}parameter name="workdir" string="true">/tmp/scratch</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`);

describe("a runaway value ended by an opener whose sentinel word is misspelled is refused", () => {
  for (const word of ["DSL", "DMSL", "DSMLL", "dsml", "DSM"]) {
    test(`<{BAR}${word}{BAR}parameter name="workdir">: nothing runs, the text stays`, () => {
      const o = outcome(runaway(word));
      expect(o.calls).toEqual([]);
      expect(o.broken).toContain("broken-markup");
    });
  }

  for (const command of ["printf '<|HTML|param x'", "echo '<|DSL|paramount>'", "grep -n '<|DSMX|params' a.txt"]) {
    test(`hard negative: ${command} runs as written (no name follows, or no opener word)`, () => {
      const o = outcome(live(`<{D}tool_calls>\n<{D}invoke name="bash">\n<{D}parameter name="command" string="true">${command}</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`));
      expect(o.calls).toEqual([{ tool: "bash", input: { command } }]);
    });
  }
});
