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
import { everyChar, runEngine } from "../support/run-engine.ts";
import { countWork } from "../support/work.ts";

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
  // Fixed: a shell costume's code is read for heredocs (src/parse/costume-heredoc.ts): its own
  // closer on a line of an open heredoc's body is that body's text, read as a closer read as code
  // is, so the costume runs whole to its real closer (the heredoc ended); a costume cut off with
  // such a closer in a heredoc still open, or closed on the line that opens one, is refused
  // (broken-markup), and shell code whose heredoc never ends never runs (costume.ts codeCall).
  // `<pre><code>` with the closer pair inside: one HTML block holding two code closers, text (C08).
  const cases: [string, string][] = [
    ["<shell>: a lone `</shell>` line in the heredoc", "<shell>\ncat > a.md <<'EOF'\nend with\n</shell>\nEOF\n</shell>"],
    ["<shell>: a heredoc writing a document that shows a <shell> costume", "Writing the doc:\n<shell>\ncat > docs/usage.md <<'EOF'\nWrap commands like this:\n<shell>\nls\n</shell>\nEOF\n</shell>\nDone."],
    ["<bash>: a lone `</bash>` line, then a real call", "<bash>\ncat > a.md <<'EOF'\nend with\n</bash>\nEOF\n</bash>\n<bash>\nls\n</bash>"],
    ["<pre><code>: a lone `</code></pre>` line", `<pre><code class="language-bash">cat > a.html <<'EOF'\n</code></pre>\nEOF\n</code></pre>`],
  ];
  for (const [title, input] of cases) {
    test(`${title}: no command with its heredoc cut`, () => {
      expect(cutHeredoc(outcome(input))).toBe(false);
    });
  }

  test("nothing the model wrote after the cut is stripped unseen (`EOF` and the real closer)", () => {
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

  // The rule as fixed, beyond the reviewer's cases.
  test("fixed: the heredoc ends, the costume's closer ends the code: one whole command, then `Done.` stripped (S03)", () => {
    const code = "cat > a.md <<'EOF'\nend with\n</shell>\nEOF";
    expect(outcome(`<shell>\n${code}\n</shell>\nDone.`)).toEqual({ calls: [{ tool: "bash", input: { command: code } }], broken: [], text: "" });
  });
  test("fixed: every spelling of the heredoc (<<EOF, <<\"EOF\", <<-EOF with tabs, after a pipe) shelters the closer", () => {
    for (const code of ["cat <<EOF\n</shell>\nEOF", 'cat <<"EOF" > x\n</shell>\nEOF', "cat <<-EOF\n\t</shell>\n\tEOF", "tr a b <<END | sort\n</shell>\nEND", "cat <<EOF\nx </shell>\nEOF"]) {
      expect(commands(outcome(`<shell>\n${code}\n</shell>\n`))).toEqual([code]);
    }
  });
  test("hard negative: the closer right after the delimiter on its line ends the code with the heredoc ended", () => {
    expect(commands(outcome("<shell>cat > a.md <<'EOF'\nx\nEOF</shell>\n"))).toEqual(["cat > a.md <<'EOF'\nx\nEOF"]);
  });
  test("fixed: the reply ends with the heredoc still open after the closer: refused, every character kept", () => {
    for (const input of ["<shell>\ncat > a.md <<'EOF'\nend with\n</shell>\n", "<shell>\ncat <<EOF\nhi\n</shell>\nDone.", "<bash>\ncat <<EOF\nhi\n</bash>\n<bash>\nrm -rf build\n</bash>\n"]) {
      expect(outcome(input)).toEqual({ calls: [], broken: ["broken-markup"], text: input });
    }
  });
  test("fixed: a closer on the line that opens the heredoc: the command's heredoc never ends, refused", () => {
    const input = "<shell>\ncat > a.md <<EOF </shell>\nhi\nEOF\n";
    expect(outcome(input)).toEqual({ calls: [], broken: ["broken-markup"], text: input });
  });
  test("fixed: shell code whose heredoc never ends runs nowhere, `<pre><code>` included", () => {
    const input = `<pre><code class="language-bash">cat &lt;&lt;EOF\nhi\n</code></pre>\n`;
    expect(outcome(input).calls).toEqual([]);
  });

  // Hard negatives: what opens no heredoc, and costumes it must not hold up.
  test("hard negative: a here-string (<<<), a quoted `<<EOF`, a comment and arithmetic shifts open no heredoc", () => {
    for (const code of ['cat <<< "$x"', 'echo "<<EOF"', "echo '<<EOF'", "ls # see <<EOF", "echo $((1<<2))", "echo $((x << n))", "(( y <<= 2 ))"]) {
      expect(commands(outcome(`<shell>\n${code}\n</shell>\n`))).toEqual([code]);
    }
  });
  test("hard negative: Python has no heredocs (`a << b` is a shift)", () => {
    expect(outcome("<python>\nx = a << b\n</python>\n").calls).toEqual([{ tool: "bash", input: { command: "python3 - <<'PYEOF'\nx = a << b\nPYEOF" } }]);
  });
  test("hard negative: a costume after a heredoc costume, and one after a refused one's text, still runs", () => {
    expect(commands(outcome("<shell>\ncat <<EOF\n</shell>\nEOF\n</shell>\n<shell>\npwd\n</shell>\n"))).toEqual(["cat <<EOF\n</shell>\nEOF", "pwd"]);
    expect(commands(outcome("<shell>\ncat <<EOF\nx\nEOF\n</shell>\n\n<bash>\npwd\n</bash>\n"))).toEqual(["cat <<EOF\nx\nEOF", "pwd"]);
  });
});

describe("a further closer of the same costume after one that ended its line", () => {
  // Review 52 (brief fx52-costume-heredoc): `<shell>\na\n</shell>\nb\n</shell>` ran `a` and stripped
  // `b` and the second closer unseen (S03). Which closer is the costume's is unknowable (the first
  // may be the code's text, `b` its next line), as for a closer read as code (A40.21).
  // Fixed: after a costume's closer that ended its line, what follows is held (costume-hold.ts
  // holdsAfterCloserLine) until the next call or block opener, the reply's end or the buffer limit
  // (the costume ended at its closer, as before), or a further closer of the same costume, which
  // refuses it whole to there (broken-markup, every character kept); what follows is read again.
  test("a further closer of the same costume refuses it, text kept", () => {
    for (const input of ["<shell>\na\n</shell>\nb\n</shell>", "<shell>\nls\n</shell>\n</shell>\n", "<bash>\nrm -rf build\n</bash>\nthat was it </bash> ok\n"]) {
      expect(outcome(input)).toEqual({ calls: [], broken: ["broken-markup"], text: input });
    }
  });
  test("a call after the refused costume's further closer runs on its own", () => {
    expect(commands(outcome("<shell>\na\n</shell>\nb\n</shell>\n<shell>\npwd\n</shell>\n"))).toEqual(["pwd"]);
  });
  test("hard negative: prose, another costume's closer, then the reply's end: the costume runs", () => {
    expect(commands(outcome("<shell>\nls\n</shell>\nDone, see </bash> above.\n"))).toEqual(["ls"]);
  });
  test("hard negative: the next call opener ends the hold (a costume, a Hermes call, a DSML block)", () => {
    expect(commands(outcome("<shell>\nls\n</shell>\nNow:\n<shell>\npwd\n</shell>\n"))).toEqual(["ls", "pwd"]);
    const hermes = outcome('<shell>\nls\n</shell>\n<tool_call>\n{"name": "bash", "arguments": {"command": "pwd"}}\n</tool_call>\n</shell>\n');
    expect(commands(hermes)).toEqual(["ls", "pwd"]);
  });
  test("hard negative: a long reply after the costume past the buffer limit: the costume still runs", () => {
    const input = `<shell>\nls\n</shell>\n${"words ".repeat(200)}\n`;
    const r = runEngine(input, [], fixtureTools, { bufferLimit: 300 });
    expect(r.calls.map((c) => c.input.command)).toEqual(["ls"]);
    expect(runEngine(input, everyChar(input.length), fixtureTools, { bufferLimit: 300 }).calls.map((c) => c.input.command)).toEqual(["ls"]);
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

describe("the heredoc reading and the hold after a closer stay linear (work counted, not timed)", () => {
  const cutsOf = (length: number, every: number) => Array.from({ length: Math.floor((length - 1) / every) }, (_, k) => (k + 1) * every);
  const work = (input: string, every: number) => countWork(() => runEngine(input, every === 0 ? [] : cutsOf(input.length, every), fixtureTools));
  const shapes: [string, (n: number) => string][] = [
    ["closers on lines of a heredoc that never ends", (n) => `<shell>\ncat <<EOF\n${"</shell>\n".repeat(n)}`],
    ["closers on one line of a heredoc that never ends", (n) => `<shell>\ncat <<EOF\n${"</shell> ".repeat(n)}`],
    ["closers after long indentation in a heredoc", (n) => `<shell>\ncat <<EOF\n${"        </shell>\t</shell>".repeat(n)}`],
    ["heredoc costumes back to back", (n) => "<shell>\ncat <<EOF\n</shell>\nEOF\n</shell>\n".repeat(n)],
    ["a costume, then other costumes' closers", (n) => `<shell>\nls\n</shell>\n${"x </bash>\n".repeat(n)}`],
    ["costumes refused by a further closer, back to back", (n) => "<shell>\na\n</shell>\nb\n</shell>\n".repeat(n)],
  ];
  for (const [name, make] of shapes) {
    test(`${name}: 4x the input costs at most 4.5x the work`, () => {
      for (const every of [0, 7, 4096]) {
        const ratio = work(make(8000), every) / work(make(2000), every);
        if (ratio > 4.5) expect({ every, ratio }).toEqual({ every, ratio: 4.5 });
      }
    }, 120_000);
  }
});
