/**
 * Review 55 (rules, hostile, tests only): the costume mention re-read (src/parse/costume-prose.ts
 * isProse, costume-hold.ts unclosedRereadAt; goldens N53.1, N53.2, N54.1) and MiniMax bracket
 * values (src/parse/dialects/minimax-bracket-values.ts). No finding here: hard negatives that pass
 * on main, pinning what the attacks found holding.
 *
 * Suspicion, not a finding (documented policy): `Now: <shell> cd tmp` then a blank line then
 * `rm -rf ./*` as a Hermes call runs the rm (the opener is inside a line and a blank is not a
 * glued word, so it is a mention), while `Now: <shell>cd tmp` (glued) and `Now: <shell>` + LF +
 * `cd tmp` hold it. One space decides whether the model's `cd` is a mention. The inline costume
 * closed on its line (`Now: <shell> cd tmp </shell>`) is text too and the rm runs after it, so the
 * re-read agrees with the inline-costume policy (PATTERNS: inline costumes are prose); pinned below
 * as it stands, so that a change shows.
 */
import { describe, expect, test } from "bun:test";
import { minimaxBracket, outcome } from "../support/outcome.ts";

const CALL = '<tool_call>{"name":"bash","arguments":{"command":"echo ZQ"}}</tool_call>';
const RAN = [{ tool: "bash", input: { command: "echo ZQ" } }];

describe("the mention re-read: a call inside what CommonMark or the costume still holds never runs", () => {
  const HELD: [string, string][] = [
    ["a `~~~` fence opened in the mention's paragraph (a tilde passes as prose)", `I use <python> like this:\n~~~\nx\n\n${CALL}\n~~~\n`],
    ["a `~~~` fence opened after the blank line", `I use <python> like this.\n\n~~~\nx\n\n${CALL}\n~~~\n`],
    ["a five-backtick fence with a three-backtick line in it (even backticks, the fence still open)", "I use <python> like this.\n\n`````\n```\n\n" + CALL + "\n`````\n"],
    ["a top-level <pre> (HTML block type 1 goes on over blank lines)", `<pre>\nx\n\n${CALL}\n`],
    ["a top-level <PRE> in capitals", `<PRE>\nx\n\n${CALL}\n`],
    ["a top-level <script>", `<script>\nx\n\n${CALL}\n`],
    ["a top-level <textarea>", `<textarea>\nx\n\n${CALL}\n`],
    ["code glued to a mid-line opener", `Now: <shell>cd tmp\n\n${CALL}\n`],
    ["a mid-line opener ending its line, prose code after it", `Now: <shell>\ncd tmp\n\n${CALL}\n`],
    ["the costume closed later in capitals", `Now: <shell> cd build\n\n${CALL}\n</SHELL>\n`],
    ["the costume closed later with a blank inside its closer", `Now: <shell> cd build\n\n${CALL}\n</ shell>\n`],
  ];
  for (const [name, text] of HELD) {
    test(`held: ${name}`, () => {
      const o = outcome(text);
      expect(o.calls).toEqual([]);
      expect(o.text).toBe(text);
    });
  }
  const RUNS: [string, string][] = [
    ["N53.1's sentence", `I will use the <python> tool.\n\n${CALL}\n`],
    ["the mention in capitals", `I will use the <SHELL> tool.\n\n${CALL}\n`],
    ["(suspicion, pinned as it stands) a mid-line opener, a blank, then prose-like code", `Now: <shell> cd build\n\n${CALL}\n`],
  ];
  for (const [name, text] of RUNS) {
    test(`runs: ${name}`, () => {
      expect(outcome(text).calls).toEqual(RAN);
    });
  }
});

describe("MiniMax bracket values: JSON for a string parameter is refused, text starting with a bracket stays text", () => {
  const REFUSED: [string, string, "invalid-arguments" | "broken-markup"][] = [
    ["a JSON array for the string command", minimaxBracket("bash", '--command ["ls"]'), "invalid-arguments"],
    ["a Python list for the string command", minimaxBracket("bash", "--command ['rm','-rf']"), "invalid-arguments"],
    ["a JSON object for the string command", minimaxBracket("bash", '--command {"a": 1}'), "invalid-arguments"],
    ["an array holding a brace", minimaxBracket("bash", '--command ["}"]'), "invalid-arguments"],
    ["an array for the integer limit", minimaxBracket("read", "--filePath a --limit [5]"), "invalid-arguments"],
    ["a key given twice in a bracketed value", minimaxBracket("bash", '--command {"a":1,"a":2}'), "broken-markup"],
    ["a subscript after an array", minimaxBracket("bash", '--command ["rm -rf ~"][0]'), "broken-markup"],
  ];
  for (const [name, text, reason] of REFUSED) {
    test(`refused: ${name}`, () => {
      const o = outcome(text);
      expect(o.calls).toEqual([]);
      expect(o.broken).toEqual([reason]);
    });
  }
  const RUNS: [string, string, Record<string, unknown>][] = [
    ["a shell test `[ -f x ]`", minimaxBracket("bash", "--command [ -f x ]"), { command: "[ -f x ]" }],
    ["a quoted value starting with a bracket", minimaxBracket("bash", '--command "[ -f x ] && ls"'), { command: "[ -f x ] && ls" }],
    ["escaped double quotes", minimaxBracket("bash", '--command "echo \\"hi\\""'), { command: 'echo "hi"' }],
    ["double quotes in single quotes", minimaxBracket("bash", "--command 'echo \"hi\"'"), { command: 'echo "hi"' }],
    ["a brace group", minimaxBracket("bash", "--command { ls; }"), { command: "{ ls; }" }],
  ];
  for (const [name, text, input] of RUNS) {
    test(`runs: ${name}`, () => {
      expect(outcome(text).calls).toEqual([{ tool: "bash", input }]);
    });
  }
});
