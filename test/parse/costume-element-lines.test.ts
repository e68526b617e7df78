/**
 * Review 44: a code costume's body (`<bash>`, `<shell>`, `<python>`, an HTML pre/code block) with a
 * line that is an element named after a parameter of the tool that would run it is the element
 * form, wherever that line stands: after comment lines, an XML comment or declaration, or code.
 * Unreadable as the form, it is refused, never run with the markup as the code. A heredoc's body
 * or a string the code spans lines with is data, and stays code, but only when the body ends it
 * (src/parse/code-lines.ts). Every case runs whole, char by char and at seeded random splits, and
 * every input character stays visible or inside the recovered call.
 */
import { describe, expect, test } from "bun:test";
import { fixtureTools } from "../golden/tools.ts";
import { parameterElementLine } from "../../src/parse/code-lines.ts";
import { accountsForEveryCharacter, runAtEverySplit } from "../support/run-engine.ts";
import { countWork } from "../support/work.ts";

function outcome(input: string) {
  const r = runAtEverySplit(input, fixtureTools);
  expect(accountsForEveryCharacter(input, r)).toBe(true);
  return { calls: r.calls.map((c) => ({ tool: c.tool, input: c.input })), broken: r.summary.broken.map((b) => ({ shape: b.shape, reason: b.reason, tool: b.tool })), text: r.text };
}

function refused(input: string) {
  const o = outcome(input);
  expect(o.calls).toEqual([]);
  expect(o.broken.map((b) => b.reason)).toEqual(["broken-markup"]);
  expect(o.text).toBe(input);
  return o.broken[0]!;
}

const runs = (input: string, command: string) => expect(outcome(input).calls).toEqual([{ tool: "bash", input: { command } }]);

describe("a parameter element line anywhere in the body: refused", () => {
  const bash: [string, string][] = [
    ["after a shell comment line", "<bash>\n# list\n<command>ls</command>\n</bash>"],
    ["after a shebang", "<bash>\n#!/bin/bash\n<command>ls</command>\n</bash>"],
    ["after an XML comment", "<bash>\n<!-- c -->\n<command>ls</command>\n</bash>"],
    ["after an XML comment holding a quote", "<bash>\n<!-- it's the list -->\n<command>ls</command>\n<!-- that's it -->\n</bash>"],
    ["after an XML comment over two lines", "<bash>\n<!-- a\nb's -->\n<command>ls</command>\n</bash>"],
    ["after an XML declaration", '<bash>\n<?xml version="1.0"?>\n<command>ls</command>\n</bash>'],
    ["after code", "<bash>\ncd /tmp\n<command>ls</command>\n</bash>"],
    ["its opener alone on a line", "<bash>\ncd /tmp\n<command>\nls\n</command>\n</bash>"],
    ["only its closer", "<bash>\nls\n</command>\n</bash>"],
    ["another parameter, another case", "<bash>\nls\n<Timeout>5</Timeout>\n</bash>"],
    ["after a comment with a quote in it", "<bash>\n# don't list\n<command>ls</command>\n</bash>"],
    ["CRLF line ends", "<bash>\r\n# list\r\n<command>ls</command>\r\n</bash>"],
    ["inside an XML comment (no shell skips one)", "<bash>\n<!--\n<command>ls</command>\n-->\nls\n</bash>"],
  ];
  for (const [what, input] of bash) {
    test(`<bash>, ${what}: the nudge names bash`, () => {
      expect(refused(input)).toEqual({ shape: "O09", reason: "broken-markup", tool: "bash" });
    });
  }

  test("costume tags no tool is named after: the parameters of bash", () => {
    expect(refused('<shell>\n# c\n<command timeout="5">ls</command>\n</shell>')).toEqual({ shape: "C04", reason: "broken-markup", tool: undefined });
    expect(refused("<python>\nimport os\n<command>ls</command>\n</python>")).toEqual({ shape: "C04", reason: "broken-markup", tool: undefined });
    expect(refused("<python>\n# it's\n<command>ls</command>\n</python>")).toEqual({ shape: "C04", reason: "broken-markup", tool: undefined });
  });

  test("an HTML pre/code costume, readable or not, raw or escaped", () => {
    for (const input of [
      '<pre><code class="language-bash">\n<command>ls</command>\n</code></pre>',
      '<pre><code class="language-bash">\n<command timeout="5">ls</command>\n</code></pre>',
      '<pre><code class="language-bash">\n# list\n<command>ls</command>\n</code></pre>',
      '<pre><code class="language-bash">\n&lt;command&gt;ls&lt;/command&gt;\n</code></pre>',
      "<pre><code>shell\n<command>ls</command>\n</code></pre>",
    ]) {
      expect(refused(input).reason).toBe("broken-markup");
    }
  });

  test("a code_interpreter costume", () => {
    expect(refused('<code_interpreter type="code" lang="bash">\n<command>ls</command>\n</code_interpreter>')).toEqual({ shape: "C07", reason: "broken-markup", tool: undefined });
  });
});

describe("a heredoc or string the body never ends shelters nothing (a misreading errs towards refusing)", () => {
  test("a heredoc without its delimiter line", () => {
    refused("<bash>\ncat <<EOF\n<command>ls</command>\n</bash>");
  });
  test("a quote never closed", () => {
    refused("<bash>\necho 'x\n<command>ls</command>\n</bash>");
    refused("<bash>\necho 'a' 'b\n<command>ls</command>\n</bash>");
  });
  test("an arithmetic shift is no heredoc, a here-string neither", () => {
    refused("<bash>\necho $((1<<2))\n<command>ls</command>\n2\n</bash>");
    refused("<bash>\ncat <<< EOF\n<command>ls</command>\nEOF\n</bash>");
  });
  test("an unterminated Python triple-quoted string", () => {
    refused('<python>\ns = """\n<command>ls</command>\n</python>');
  });
});

describe("controls: data the code reads stays code", () => {
  const heredocs: [string, string][] = [
    ["quoted delimiter", "cat > x.xml <<'EOF'\n<command>ls</command>\nEOF"],
    ["bare delimiter", "cat > x.xml <<EOF\n<command>$HOME</command>\nEOF"],
    ["double-quoted delimiter", 'cat > x.xml << "END"\n<command>ls</command>\nEND'],
    ["backslashed delimiter", "cat > x.xml <<\\EOF\n<command>ls</command>\nEOF"],
    ["tab-stripping heredoc", "if true; then\n\tcat > x.xml <<-EOF\n\t<command>ls</command>\n\tEOF\nfi"],
    ["a pipe after the delimiter", "cat <<EOF | grep command\n<command>ls</command>\nEOF"],
    ["two heredocs on one line", "cat <<A - <<B\nfirst\nA\n<command>ls</command>\nB"],
    ["a heredoc after a comment with a quote", "# don't run this\ncat > x.xml <<'EOF'\n<?xml version=\"1.0\"?>\n<command>ls</command>\nEOF"],
    ["an XML document with the element on its own lines", "cat > cfg.xml <<'EOF'\n<config>\n  <command>\n    ls\n  </command>\n</config>\nEOF\necho done"],
  ];
  for (const [what, code] of heredocs) {
    test(`heredoc, ${what}`, () => runs(`<bash>\n${code}\n</bash>`, code));
  }

  test("strings that span lines", () => {
    runs("<bash>\necho '\n<command>ls</command>\n'\n</bash>", "echo '\n<command>ls</command>\n'");
    runs('<bash>\necho "a\n<command>ls</command>\n"\n</bash>', 'echo "a\n<command>ls</command>\n"');
    runs("<bash>\nprintf $'it\\'s\n<command>ls</command>\n'\n</bash>", "printf $'it\\'s\n<command>ls</command>\n'");
    // The first string is closed, so the element in it is data; the one left open after it holds no element.
    runs("<bash>\necho '\n<command>ls</command>\n' 'b\nc\n</bash>", "echo '\n<command>ls</command>\n' 'b\nc");
  });

  test("a Python string that spans lines", () => {
    const code = 's = """\n<command>ls</command>\n"""\nprint(s)';
    expect(outcome(`<python>\n${code}\n</python>`).calls).toEqual([{ tool: "bash", input: { command: `python3 - <<'PYEOF'\n${code}\nPYEOF` } }]);
  });

  test("tags that are no parameter, or not at a line's start, and a pre/code heredoc", () => {
    runs('<bash>\necho "<b>hi</b>" > x.html\n</bash>', 'echo "<b>hi</b>" > x.html');
    runs("<bash>\n<input.txt sort\n</bash>", "<input.txt sort");
    runs("<bash>\ngrep -c '<command>' log.xml\n</bash>", "grep -c '<command>' log.xml");
    runs('<pre><code class="language-bash">\ncat &lt;&lt;\'EOF\'\n&lt;command&gt;ls&lt;/command&gt;\nEOF\n</code></pre>', "cat <<'EOF'\n<command>ls</command>\nEOF");
    runs('<pre><code class="language-bash">\nls -la\n</code></pre>', "ls -la");
  });
});

describe("work: linear in the body, whatever it repeats", () => {
  const isParameter = (name: string) => name === "command";
  const hostile = ["<!-- a\n", "cat <<'EOF\n", "cat <<EOF <<A <<B\n", "echo 'x\n<command>\n", "s = '''\n<command>\n", "<?xml a\n<command\n", "echo \"$'\\\n", "# it's\n<!-- '\n"];
  for (const unit of hostile) {
    for (const language of ["shell", "python"] as const) {
      test(`${JSON.stringify(unit)} repeated, read as ${language}`, () => {
        const code = unit.repeat(20_000);
        // The cap stops a quadratic scan at once (WorkCapExceeded fails the test) instead of letting it run.
        const steps = countWork(() => parameterElementLine(code, language, isParameter), 8 * code.length);
        expect(steps).toBeLessThan(8 * code.length);
      });
    }
  }
});
