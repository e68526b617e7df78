/**
 * Review 49 (rules): seeded, bounded property over this round's reading rules together (block
 * stray watch with closers in other spellings and containers, paragraph costumes after Unicode
 * line ends, tool_name/tool_args at a line start, broken <tool_call> bodies, degraded openers in
 * values): whole, char by char and seeded random splits agree (runAtEverySplit asserts it) and every
 * input character is visible, inside a recovered call, or in a stripped span. Hard negative: it
 * passes on main; kept because these pieces meet here in orders no single test writes.
 */
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { accountsForEveryCharacter, runAtEverySplit } from "../support/run-engine.ts";
import { fixtureTools } from "../golden/tools.ts";
import { live } from "../golden/notation.ts";

const pieces = [
  `<{D}tool_calls>\n`,
  `<{D}invoke name="bash">\n<{D}parameter name="command" string="true">rm -rf ./*</{D}parameter>\n</{D}invoke>\n`,
  `<{D}invoke name="bash">\n<{D}parameter name="command" string="true">rm -rf ./*\n<{BAR}parameter name= "workdir">/tmp</{BAR}parameter>\n</{D}invoke>\n`,
  `<{D}parameter name="workdir" string="true">/tmp/scratch</{D}parameter>\n`,
  `<{BAR}parameter name="workdir">/tmp</{BAR}parameter>\n`,
  `Set {BAR}parameter name="workdir">/tmp</{BAR}parameter>\n`,
  `</{D}tool_calls>\n`,
  `</{BAR}tool_calls>\n`,
  `</{SP}tool_calls>\n`,
  "`</{D}tool_calls>`\n",
  `The block ends with </{D}tool_calls> here.\n`,
  `The agent wraps commands like\n`,
  `这个代理会把命令写成\n`,
  `The agent wraps commands like —\n`,
  `Running:\n`,
  `<bash>\nrm -rf build\n</bash>\n`,
  `<shell>ls</shell>\n`,
  `in its replies.\n`,
  `放在回复里。\n`,
  "```\n",
  `<tool_call><tool_name>bash</tool_name><tool_args>{"command":"ls"}</tool_args></tool_call>\n`,
  `<tool_call>\n{"name":"bash","arguments":{"command":"ls"}}\nextra\n`,
  `</tool_call>\n`,
  `- Run:\n  <shell>\n  echo a\n  </shell>\n`,
  "\r\n",
].map(live);

describe("hard negative: split parity and character accounting over this round's pieces", () => {
  test("seeded sequences of up to 6 pieces", () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...pieces), { minLength: 1, maxLength: 6 }), (seq) => {
        const input = seq.join("");
        const run = runAtEverySplit(input, fixtureTools);
        expect(accountsForEveryCharacter(input, run)).toBe(true);
      }),
      { seed: 4901, numRuns: 150 },
    );
  }, 120_000);
});
