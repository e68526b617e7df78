/**
 * MiniMax bracket form (O05): how one `--key VALUE` pair's value is read (review 43 fixes). A
 * value is what the model wrote after its key, never the next key, never the separator, never the
 * quotes around it. Every case runs whole, char by char and at seeded random splits, and parse()
 * agrees with the stream.
 */
import { describe, expect, test } from "bun:test";
import { parse } from "../../src/engine/parse.ts";
import { fixtureTools } from "../golden/tools.ts";
import { outcome as outcomeEverySplit, minimaxBracket as bracket } from "../support/outcome.ts";

/** The outcome at every split, and parse() agreeing with the stream on the calls. */
function outcome(input: string) {
  const o = outcomeEverySplit(input);
  expect(parse(input, fixtureTools).calls.map((c) => ({ tool: c.tool, input: c.input }))).toEqual(o.calls);
  return o;
}

const refused = (input: string) => {
  const o = outcome(input);
  expect(o.calls).toEqual([]);
  expect(o.broken).toEqual(["broken-markup"]);
};
const runs = (input: string, tool: string, args: Record<string, unknown>) => expect(outcome(input).calls).toEqual([{ tool, input: args }]);

describe("a bare value never starts with `--` (it is the next key)", () => {
  test("a key without a value, last or before another key, refuses the call", () => {
    refused(bracket("edit", '--filePath "a.ts" --oldString "foo" --newString --replaceAll'));
    refused(bracket("edit", '--filePath "a.ts" --oldString "foo" --newString --replaceAll true'));
    refused(bracket("bash", "--command --timeout"));
    refused(bracket("bash", "--command: --timeout"));
    refused(bracket("bash", "--command --"));
    refused(bracket("bash", "--command ---"));
  });

  test("a value that starts with `--` is read when quoted", () => {
    runs(bracket("bash", '--command "--version"'), "bash", { command: "--version" });
    runs(bracket("edit", '--filePath "a.ts" --oldString "foo" --newString "--replaceAll"'), "edit", { filePath: "a.ts", oldString: "foo", newString: "--replaceAll" });
  });

  test("a single dash stays a bare value", () => {
    runs(bracket("bash", '--command "ls" --description -la'), "bash", { command: "ls", description: "-la" });
    runs(bracket("bash", '--command "sleep 1" --timeout -5'), "bash", { command: "sleep 1", timeout: -5 });
  });
});

describe("`--key=VALUE`: `=` right after the key separates as `:` does", () => {
  test("the value after `=` is read as after a space: a JSON string decoded, a bare word typed", () => {
    runs(bracket("write", '--filePath="a.ts" --content="line\\n"'), "write", { filePath: "a.ts", content: "line\n" });
    runs(bracket("bash", "--command=ls"), "bash", { command: "ls" });
    runs(bracket("bash", '--command="sleep 1" --timeout=5'), "bash", { command: "sleep 1", timeout: 5 });
    runs(bracket("bash", '--command= "ls"'), "bash", { command: "ls" });
    runs(bracket("bash", "--command=a=b"), "bash", { command: "a=b" });
    runs(bracket("bash", '--command="=ls"'), "bash", { command: "=ls" });
  });

  test("after `=` the value rules still hold: nothing, or a bare --word, refuses the call", () => {
    refused(bracket("bash", "--command="));
    refused(bracket("bash", "--command= --timeout 5"));
    refused(bracket("bash", "--command=--version"));
    refused(bracket("bash", "--command=ls -la"));
  });

  test("a bare value never starts with `=`: a separator apart from its key, doubled, or after `:` is refused", () => {
    refused(bracket("bash", "--command =ls"));
    refused(bracket("bash", "--command = ls"));
    refused(bracket("bash", "--command==ls"));
    refused(bracket("bash", "--command:=ls"));
    refused(bracket("bash", '--command => "ls"'));
    refused(bracket("bash", '--command=>"ls"'));
  });
});

describe("a single-quoted value is a string, never a bare word that keeps its quotes", () => {
  test("its text is read literally, spaces and double quotes included", () => {
    runs(bracket("write", "--filePath 'a.ts' --content 'x'"), "write", { filePath: "a.ts", content: "x" });
    runs(bracket("bash", "--command 'ls -la'"), "bash", { command: "ls -la" });
    runs(bracket("bash", "--command: 'ls', --timeout '5'"), "bash", { command: "ls", timeout: 5 });
    runs(bracket("bash", "--command='ls'"), "bash", { command: "ls" });
    runs(bracket("bash", "--command 'echo \"hi\"'"), "bash", { command: 'echo "hi"' });
    runs(bracket("bash", "--command '--version'"), "bash", { command: "--version" });
    runs(bracket("edit", "--filePath 'a.ts' --oldString 'foo' --newString ''"), "edit", { filePath: "a.ts", oldString: "foo", newString: "" });
  });

  test("a backslash, a line break, a missing closing quote or a quote inside the text refuses the call", () => {
    refused(bracket("write", "--filePath 'a.ts' --content 'line\\n'"));
    refused(bracket("bash", "--command 'it\\'s'"));
    refused(bracket("bash", "--command 'ls\n-la'"));
    refused(bracket("bash", "--command 'ls"));
    refused(bracket("bash", "--command 'it's'"));
    refused(bracket("bash", "--command 'ls'x"));
  });
});

describe("review 44: the stream's object scanner reads a single-quoted value as the reader does", () => {
  test("a double quote or a brace inside it is its text, in every separator form", () => {
    runs(bracket("bash", "--command 'echo }'"), "bash", { command: "echo }" });
    runs(bracket("bash", "--command='printf \"%s {\" x'"), "bash", { command: 'printf "%s {" x' });
    runs(bracket("bash", "--command: '}}]'"), "bash", { command: "}}]" });
    runs(bracket("bash", "--command\n'a\"b'"), "bash", { command: 'a"b' });
    runs(bracket("bash", "--command 'echo 5\" wide' --description 'say \"hi'"), "bash", { command: 'echo 5" wide', description: 'say "hi' });
    runs(bracket("bash", "--command 'a}',--description 'b{'"), "bash", { command: "a}", description: "b{" });
  });

  test("a quote that is no value (inside a bare word, a double-quoted string, a JSON body) is text as before", () => {
    runs(bracket("bash", "--command don't"), "bash", { command: "don't" });
    runs(bracket("bash", `--command "it's }"`), "bash", { command: "it's }" });
    runs('[TOOL_CALL] {tool => "bash", args => {"command": "it\'s }"}} [/TOOL_CALL]', "bash", { command: "it's }" });
  });

  test("a single-quoted value the reader refuses (a line break, a backslash, no closing quote) ends the object where it did before", () => {
    // The brace in the quote closed the args object, so the object ends one brace early: prose, as before.
    for (const input of [bracket("bash", "--command 'ls }\n-la'"), bracket("bash", "--command 'a\\}'")]) {
      const o = outcome(input);
      expect(o.calls).toEqual([]);
      expect(o.text).toBe(input);
    }
    refused(bracket("bash", "--command 'a\\' x"));
    // No closing quote before the reply ends: its brace closed the object, the closer follows, and the text after it stays text.
    const o = outcome("[TOOL_CALL] {tool => \"bash\", args => { --command 'ls }} [/TOOL_CALL] done");
    expect(o.calls).toEqual([]);
    expect(o.broken).toEqual(["broken-markup"]);
    expect(o.text).toContain(" done");
  });
});

describe("a bare value never starts with a backtick", () => {
  test("`ls` in backticks is refused, never run as the command `ls` with its backticks (a substitution)", () => {
    refused(bracket("bash", "--command `ls`"));
    refused(bracket("write", "--filePath `a.ts` --content \"x\""));
  });

  test("a backtick inside a bare or quoted value is text", () => {
    runs(bracket("bash", "--command a`b"), "bash", { command: "a`b" });
    runs(bracket("bash", '--command "echo `date`"'), "bash", { command: "echo `date`" });
  });
});
