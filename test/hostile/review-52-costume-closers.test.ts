/**
 * Review 52 (hostile, tests only): where a code costume ends, and whose name it was written under.
 * A costume's own closer alone on its line inside a heredoc ends the code there: the heredoc is cut,
 * and the rest of the costume (the heredoc's delimiter, the costume's real closer) is stripped as a
 * fabricated result. And a `<Bash>` costume (or `<tool_name>Bash`) runs past `denyTools: ["Bash"]`.
 * Engine cases run whole, char by char and at seeded random splits (test/support/outcome.ts).
 */
import { describe, expect, test } from "bun:test";
import { outcome, type Outcome } from "../support/outcome.ts";
import { fixtureTools } from "../golden/tools.ts";
import { completion, openAiTools, throughFetch, type Json } from "../security/support.ts";

const commands = (o: Outcome) => o.calls.filter((c) => c.tool === "bash").map((c) => String(c.input.command));
/** A command with a quoted heredoc whose delimiter line never comes: bash writes what it got and warns. */
const cutHeredoc = (o: Outcome) => commands(o).some((c) => /<<'EOF'/.test(c) && !/(^|\n)EOF(\n|$)/.test(c));

describe("a costume's closer alone on its line inside a heredoc cuts the heredoc", () => {
  // FINDING 5. Severity: wrong execution (high: a truncated file). The closer rule ends a costume
  // at its own closer when nothing follows it on its line (closer-in-value.ts), and the hold that
  // looks for the costume's closer again (costume-hold.ts heldPast) starts only after a closer READ
  // AS CODE (one with text after it). A heredoc that writes a document showing the costume (or just
  // a line `</shell>`) has its closer on a line of its own: the code ends there, `cat > FILE` runs
  // with the heredoc cut (bash: "here-document delimited by end-of-file", FILE written short, an
  // existing FILE overwritten), and `EOF` plus the costume's real `</shell>` after it are stripped
  // as a fabricated result, never shown. The same costume's opener at a line start inside the code
  // (`<shell>` in the document) is not counted either, so its closer is taken as the outer one's.
  // docs/PATTERNS.md, "A closer inside a value": "never a truncated or padded file or command".
  // Minimal input: "<shell>\ncat > a.md <<'EOF'\nend with\n</shell>\nEOF\n</shell>"
  //   -> bash {command: "cat > a.md <<'EOF'\nend with"}, "\nEOF\n</shell>" stripped.
  // Suspected: src/parse/costume-hold.ts (heldPast / the tag hook: a later own closer after a
  // closer that ended its line, with no opener between, is not looked for; depth counts only
  // openers after the first closer), src/parse/closer-in-value.ts.
  // Expected: the costume refused (broken-markup, as A40.19-A40.21), or the whole heredoc as one
  // command; never a command whose heredoc was cut at the costume's closer.
  const cases: [string, string][] = [
    ["<shell>: a lone `</shell>` line in the heredoc", "<shell>\ncat > a.md <<'EOF'\nend with\n</shell>\nEOF\n</shell>"],
    ["<shell>: a heredoc writing a document that shows a <shell> costume", "Writing the doc:\n<shell>\ncat > docs/usage.md <<'EOF'\nWrap commands like this:\n<shell>\nls\n</shell>\nEOF\n</shell>\nDone."],
    ["<bash>: a lone `</bash>` line, then a real call", "<bash>\ncat > a.md <<'EOF'\nend with\n</bash>\nEOF\n</bash>\n<bash>\nls\n</bash>"],
    ["<pre><code>: a lone `</code></pre>` line", `<pre><code class="language-bash">cat > a.html <<'EOF'\n</code></pre>\nEOF\n</code></pre>`],
  ];
  for (const [title, input] of cases) {
    test.failing(`${title}: no command with its heredoc cut`, () => {
      expect(cutHeredoc(outcome(input))).toBe(false);
    });
  }

  test.failing("nothing the model wrote after the cut is stripped unseen (`EOF` and the real closer)", () => {
    const o = outcome("<shell>\ncat > a.md <<'EOF'\nend with\n</shell>\nEOF\n</shell>");
    // Either a refusal (the text kept whole) or a call whose command holds `EOF`.
    expect(o.text.includes("EOF") || commands(o).some((c) => c.includes("\nEOF"))).toBe(true);
  });

  // Hard negatives: a heredoc that closes before the costume's closer; a closer with text after it
  // on its line (A40.n5); prose after a complete costume (S03 strips it, the call runs).
  test("control: a complete heredoc in a costume runs whole", () => {
    const code = "cat > a.md <<'EOF'\nhello\nEOF";
    expect(commands(outcome(`<shell>\n${code}\n</shell>`))).toEqual([code]);
  });
  test("control: a closer with text after it inside the command is code (A40.n5)", () => {
    expect(commands(outcome('<shell>grep -c "</shell>" docs/a.html && rm -rf build</shell>\n'))).toEqual(['grep -c "</shell>" docs/a.html && rm -rf build']);
  });
  test("control: a costume then `Done.` runs", () => {
    expect(commands(outcome("<shell>\nls\n</shell>\nDone."))).toEqual(["ls"]);
  });
  test("control: two costumes one after the other both run", () => {
    expect(commands(outcome("<shell>\nls\n</shell>\n<shell>\npwd\n</shell>"))).toEqual(["ls", "pwd"]);
  });
});

describe("denyTools: [\"Bash\"] does not stop a costume written as Bash", () => {
  // FINDING 6. Severity: wrong execution (medium: a denyTools bypass). The option's own description
  // (src/options/spec.ts): denyTools is "Matched against the name the model wrote as well as the
  // tool the call would run as: [\"Bash\"] also stops a Bash call that would run as bash". It does for
  // a Hermes call named `Bash` and for the `<Bash><command>ls</command></Bash>` element form, but a
  // `<Bash>` code costume and the XML execute costume naming `Bash` run as bash: costume.ts
  // addressedElsewhere() returns early when the written name, lowered, is the runner's (`bash`),
  // before reservedNamesOf() is asked, and options/engine.ts reservedNames() adds only alias and
  // lowered costume names. (A source comment there says "the runner's own name (`<bash>`) is
  // stopped only by denying bash itself"; the user-facing option says otherwise, and the same
  // spelling in another form is stopped.)
  // Minimal input: tools [bash, ...], denyTools ["Bash"], reply "<Bash>\nls\n</Bash>" -> bash {command: "ls"}.
  // Suspected: src/parse/costume.ts addressedElsewhere(), src/options/engine.ts reservedNames().
  // Expected: a costume whose written name denyTools matches (case as written) runs nothing
  // (undeclared-tool), as the Hermes and element forms.
  // Fixed: the runner's own name as it spells it (`<bash>`, `<tool_name>bash`) is bash's, stopped
  // only by denying bash itself; any other spelling (`<Bash>`, `<BASH>`, `<tool_name>Bash`) is the
  // name other agents give the shell (the `Bash` alias), so a denyTools entry naming bash in any
  // letter case reserves `Bash` (src/options/engine.ts reservedNames) and such a costume runs
  // nothing (undeclared-tool; src/parse/costume.ts addressedElsewhere, reading the tag's name as
  // written). A Hermes call named `Bash` is then stopped under `["BASH"]` too, so every form reads
  // the entry alike.
  const USER: Json[] = [{ role: "user", content: "List the files." }];
  const chat = async (reply: string, denyTools: string[]) => {
    const { out } = await throughFetch({ messages: USER, tools: openAiTools(fixtureTools) }, { json: completion(reply) }, { responseFix: { denyTools } });
    return out.calls.map((c) => c.name);
  };
  test("a <Bash> costume: no call", async () => {
    expect(await chat("<Bash>\nls\n</Bash>", ["Bash"])).toEqual([]);
  });
  test("the XML execute costume with <tool_name>Bash</tool_name>: no call", async () => {
    expect(await chat("<tool_call><tool_name>Bash</tool_name><tool_args><language>sh</language><code>ls</code></tool_args></tool_call>", ["Bash"])).toEqual([]);
  });

  // Hard negatives: the forms denyTools ["Bash"] already stops; and a lower-case <bash> costume still
  // runs (its written name is bash's own, which ["Bash"] does not name).
  test("control: a Hermes call named Bash is stopped", async () => {
    expect(await chat('<tool_call>\n{"name": "Bash", "arguments": {"command": "ls"}}\n</tool_call>', ["Bash"])).toEqual([]);
  });
  test("control: the <Bash> element form is stopped", async () => {
    expect(await chat("<Bash>\n<command>ls</command>\n</Bash>", ["Bash"])).toEqual([]);
  });
  test("control: a <bash> costume runs under denyTools [\"Bash\"]", async () => {
    expect(await chat("<bash>\nls\n</bash>", ["Bash"])).toEqual(["bash"]);
  });
  test("control: denyTools [\"shell\"] stops a <shell> costume (review 50)", async () => {
    expect(await chat("<shell>\nls\n</shell>", ["shell"])).toEqual([]);
  });

  // After the fix: the entry in any letter case stops every other spelling of the runner's name.
  for (const [reply, deny] of [["<BASH>\nls\n</BASH>", ["Bash"]], ["<Bash>\nls\n</Bash>", ["BASH"]], ["<Bash>\nls\n</Bash>", ["B*"]], ["<tool_call><tool_name>BASH</tool_name><tool_args><language>sh</language><code>ls</code></tool_args></tool_call>", ["bAsh"]]] as const) {
    test(`denyTools ${JSON.stringify(deny)} stops ${JSON.stringify(reply.slice(0, 30))}`, async () => {
      expect(await chat(reply, [...deny])).toEqual([]);
    });
  }
  test("a Hermes call named Bash is stopped under denyTools [\"BASH\"] too", async () => {
    expect(await chat('<tool_call>\n{"name": "Bash", "arguments": {"command": "ls"}}\n</tool_call>', ["BASH"])).toEqual([]);
  });
  test("control: denyTools [\"write\"] leaves a <shell> costume running", async () => {
    expect(await chat("<shell>\nls\n</shell>", ["write"])).toEqual(["bash"]);
  });
  test("control: <Bash> runs with no denyTools", async () => {
    expect(await chat("<Bash>\nls\n</Bash>", [])).toEqual(["bash"]);
  });
  test("control: <bash> and <tool_name>bash run under denyTools [\"BASH\"]", async () => {
    expect(await chat("<bash>\nls\n</bash>", ["BASH"])).toEqual(["bash"]);
    expect(await chat("<tool_call><tool_name>bash</tool_name><tool_args><language>sh</language><code>ls</code></tool_args></tool_call>", ["Bash"])).toEqual(["bash"]);
  });
});
