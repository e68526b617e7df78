/**
 * Review 44, rule 4: MiniMax's bracket form (src/parse/dialects/minimax-bracket.ts):
 * `=` after a key, single-quoted values, bare values never starting with `--`, `=` or a backtick.
 * Every case runs whole, char by char and at seeded random splits.
 */
import { describe, expect, test } from "bun:test";
import { outcome, minimaxBracket as bracket } from "../support/outcome.ts";

describe("a single-quoted value holding a double quote or a brace is never read", () => {
  // Severity: missed repair (low; the call is a plain, well-formed single-quoted value, and the
  // model is nudged for a truncation it never made). Suspected: src/parse/dialects/minimax-bracket.ts
  // BracketCallState (the char-form scanner that finds where the object ends): it knows JSON's
  // double-quoted strings but not the single-quoted values the reader now accepts, so a `"` inside
  // `'...'` opens a string that runs past `}} [/TOOL_CALL]` (truncated-call), and a `}` inside
  // `'...'` closes the object early (the call is read as prose). The reader itself reads both
  // (a quote pair spread over two values, `'a "b' ... 'c" d'`, runs today). Expected: the call runs
  // with the value as written.
  test("--command 'echo 5\" wide' (one double quote) runs", () => {
    const o = outcome(bracket("bash", `--command 'echo 5" wide'`));
    expect(o.calls).toEqual([{ tool: "bash", input: { command: 'echo 5" wide' } }]);
  });

  test("control (passes today): balanced double quotes inside single quotes", () => {
    const o = outcome(bracket("bash", `--command 'grep "x" a.txt'`));
    expect(o.calls).toEqual([{ tool: "bash", input: { command: 'grep "x" a.txt' } }]);
  });

  test("--command 'echo }' runs", () => {
    const o = outcome(bracket("bash", "--command 'echo }'"));
    expect(o.calls).toEqual([{ tool: "bash", input: { command: "echo }" } }]);
  });
});

describe("hard negatives (pass today)", () => {
  test("a second value after a single-quoted one, with or without =, is refused", () => {
    expect(outcome(bracket("bash", "--command='ls' 'rm -rf /'")).calls).toEqual([]);
    expect(outcome(bracket("bash", "--command 'ls' 'x'")).calls).toEqual([]);
  });
  test("a key with = and nothing after it, := , ==, =--, =` are refused", () => {
    for (const pairs of ["--command=", "--command:='ls'", "--command=='ls'", "--command=--help", "--command=`ls`", "--command =ls"]) {
      expect(outcome(bracket("bash", pairs)).calls).toEqual([]);
    }
  });
  test("unicode dashes are no key marker", () => {
    expect(outcome(bracket("bash", "\u2014command 'ls'")).calls).toEqual([]);
    expect(outcome(bracket("bash", "\u2013command 'ls'")).calls).toEqual([]);
  });
  test("a key given twice, in the = and the space forms, is refused", () => {
    expect(outcome(bracket("bash", "--command 'ls' --command='rm'")).calls).toEqual([]);
    expect(outcome(bracket("bash", "--command=ls --command 'rm'")).calls).toEqual([]);
  });
  test("'-' and '--' in quotes are values; so is a bare -rf", () => {
    expect(outcome(bracket("bash", "--command '--'")).calls).toEqual([{ tool: "bash", input: { command: "--" } }]);
    expect(outcome(bracket("bash", "--command '-'")).calls).toEqual([{ tool: "bash", input: { command: "-" } }]);
  });
  test("a single-quoted value holding the closer token is its text", () => {
    expect(outcome(bracket("bash", "--command 'echo [/TOOL_CALL]'")).calls).toEqual([{ tool: "bash", input: { command: "echo [/TOOL_CALL]" } }]);
  });
  test("adjacent single-quoted strings ('a''b', 'it''s') are refused", () => {
    expect(outcome(bracket("bash", "--command 'a''b'")).calls).toEqual([]);
    expect(outcome(bracket("bash", "--command 'it''s'")).calls).toEqual([]);
  });
});
