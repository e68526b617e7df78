/**
 * Review 43, dialect family 2: MiniMax's bracket form (O05, src/parse/dialects/minimax-bracket.ts)
 * `[TOOL_CALL] {tool => "NAME", args => { --key VALUE ... }} [/TOOL_CALL]` and MiniMax-M2's
 * `<minimax:tool_call>` invoke markup. A value is read from what the model wrote after its key,
 * never from the next key. Every case runs whole, char by char and at seeded random splits.
 */
import { describe, expect, test } from "bun:test";
import { outcome, minimaxBracket as bracket } from "../support/outcome.ts";

describe("a key written without a value takes the next key as its value", () => {
  // Severity: wrong-execution. Suspected: src/parse/dialects/minimax-bracket.ts Reader.value(): a
  // bare word is read up to a space, `,` or `}`, so after `--newString` (no value) the next key
  // `--replaceAll` is read as newString's value, and the pair list ends there. The edit runs,
  // replacing "foo" with the text "--replaceAll", a value the model never wrote; the replaceAll
  // flag it did write is gone. With a value after the second key (`--description --timeout 5`) the
  // same input is refused today, so only a value-less key last in the list slips through.
  // Expected: a bare value that starts with `--` is the next key; the call is refused
  // (broken-markup), as `--newString "" --replaceAll` is.
  test("edit: --newString --replaceAll does not run with newString '--replaceAll'", () => {
    const o = outcome(bracket("edit", '--filePath "a.ts" --oldString "foo" --newString --replaceAll'));
    expect(o.calls).toEqual([]);
  });

  test("bash: --command --timeout does not run the command '--timeout'", () => {
    const o = outcome(bracket("bash", "--command --timeout"));
    expect(o.calls).toEqual([]);
  });

  test("control (passes today): a key without a value followed by a full pair is refused", () => {
    expect(outcome(bracket("bash", '--command "ls" --description --timeout 5')).calls).toEqual([]);
    expect(outcome(bracket("edit", '--filePath "a.ts" --oldString "foo" --newString "" --replaceAll')).calls).toEqual([]);
  });
});

describe("`--key=VALUE` keeps the `=` (and the quotes) in the value", () => {
  // Severity: wrong-execution. Suspected: src/parse/dialects/minimax-bracket.ts Reader.dashPairs()
  // and value(): after the key only an optional `:` is skipped, so in `--filePath="a.ts"` (the
  // GNU long-option spelling) the value is the bare word `="a.ts"`: the separator and the JSON
  // string's quotes become part of the value, and its escapes are never read. write creates a file
  // named `="a.ts"` holding `="line\n"` with a literal backslash-n. Expected: either `=` is read as
  // the separator `:` is (the value then "a.ts", its JSON string decoded), or the call is refused;
  // never a value that starts with `=`.
  test("write: --filePath=\"a.ts\" does not create a file named '=\"a.ts\"'", () => {
    const o = outcome(bracket("write", '--filePath="a.ts" --content="line\\n"'));
    expect(o.calls.some((c) => typeof c.input.filePath === "string" && c.input.filePath.startsWith("="))).toBe(false);
  });

  test("bash: --command=ls does not run '=ls'", () => {
    const o = outcome(bracket("bash", "--command=ls"));
    expect(o.calls.some((c) => typeof c.input.command === "string" && c.input.command.startsWith("="))).toBe(false);
  });

  test("control (passes today): the `:` separator is read", () => {
    expect(outcome(bracket("bash", '--command: "ls"')).calls).toEqual([{ tool: "bash", input: { command: "ls" } }]);
  });
});

describe("hard negatives (pass today)", () => {
  test("a bare value stops at a space: `--command ls -la` is refused, never run as `ls`", () => {
    expect(outcome(bracket("bash", "--command ls -la")).calls).toEqual([]);
  });

  test("a key named twice refuses the call", () => {
    expect(outcome(bracket("bash", '--command "ls" --command "rm -rf ~"')).calls).toEqual([]);
  });

  test("a key outside args, or a JSON key beside tool and args, refuses the call", () => {
    expect(outcome('[TOOL_CALL] {tool => "bash", args => { --command "ls" }, extra => 1} [/TOOL_CALL]').calls).toEqual([]);
    expect(outcome('[TOOL_CALL] {"tool": "bash", "args": {"command": "ls"}, "timeout": 5} [/TOOL_CALL]').calls).toEqual([]);
  });

  // Review 54 changed the second half: a bracketed value is the JSON object it spells, which a
  // string parameter refuses (invalid-arguments), as `args => {"command": {"a": 1}}` is; quoted, it
  // is the string (test/hostile/review-54-schema-bracket.test.ts).
  test("values typed from the schema: 0x10 is no number; a JSON object is no string parameter's text", () => {
    expect(outcome(bracket("bash", '--command "ls" --timeout 0x10')).calls).toEqual([]);
    expect(outcome(bracket("bash", '--command {"a": 1}')).calls).toEqual([]);
    expect(outcome(bracket("bash", '--command \'{"a": 1}\'')).calls).toEqual([{ tool: "bash", input: { command: '{"a": 1}' } }]);
  });

  test("MiniMax-M2 invoke markup: a parameter named twice refuses the call", () => {
    const input = '<minimax:tool_call>\n<invoke name="bash">\n<parameter name="command">ls</parameter>\n<parameter name="command">rm -rf ~</parameter>\n</invoke>\n</minimax:tool_call>';
    expect(outcome(input).calls).toEqual([]);
  });
});
