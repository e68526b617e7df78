/**
 * Code costumes read whole or not at all (review args, findings 4 and 5): an HTML `<pre>` block
 * (C02/C03) runs only as exactly one `<code>` element with whitespace around it, and the XML
 * execute costume (C01) only when every part of it was read: no attribute, an execute tool name,
 * a language the model wrote (an execute tool name, or the shell's own for shell code). A costume
 * whose closer had text after it is text and never stays open over later costumes or leaks
 * (review overreach). Every case runs whole, char by char and at seeded splits.
 */
import { describe, expect, test } from "bun:test";
import { live } from "../golden/notation.ts";
import { fixtureTools } from "../golden/tools.ts";
import { runAtEverySplit } from "../support/run-engine.ts";

function outcome(input: string) {
  const r = runAtEverySplit(input, fixtureTools);
  return { calls: r.calls.map((c) => ({ tool: c.tool, input: c.input })), broken: r.summary.broken.map((b) => ({ shape: b.shape, reason: b.reason, tool: b.tool })), text: r.text };
}

describe("HTML <pre> costume (C02/C03): text inside <pre> outside the <code> element", () => {
  test("text after </code> inside <pre>: no call, the text is shown", () => {
    const o = outcome(`<pre><code class="language-bash">ls</code>\nrm -rf build</pre>`);
    expect(o.calls).toEqual([]);
    expect(o.text).toContain("rm -rf build");
  });

  test("text before <code> inside <pre>: no call, the text is shown", () => {
    const o = outcome(`<pre>rm -rf build\n<code class="language-bash">ls</code></pre>`);
    expect(o.calls).toEqual([]);
    expect(o.text).toContain("rm -rf build");
  });

  test("two <code> elements are not one command holding the markup between them", () => {
    const o = outcome(`<pre><code class="language-bash">ls</code><code class="language-bash">rm -rf build</code></pre>`);
    expect(o.calls).toEqual([]);
  });

  test("control: one element with whitespace around it runs", () => {
    expect(outcome(`<pre>\n<code class="language-bash">ls</code>\n</pre>`).calls).toEqual([{ tool: "bash", input: { command: "ls" } }]);
  });
});

describe("XML execute costume (C01): every part of the markup is read", () => {
  const costume = (args: string, name = "execute", argsTag = "<tool_args>") => `<tool_call><tool_name>${name}</tool_name>${argsTag}${args}</tool_args></tool_call>`;

  test("an attribute on <code> refuses the call (the strict reader no longer drops it)", () => {
    const o = outcome(costume(`<language>sh</language><code workdir="/tmp">ls</code>`));
    expect(o.calls).toEqual([]);
    expect(o.broken).toEqual([{ shape: "C01", reason: "broken-markup", tool: "execute" }]);
    // The tolerant reader (raw `<` in the code) too.
    expect(outcome(costume(`<language>sh</language><code workdir="/tmp">test 1 < 2</code>`)).calls).toEqual([]);
  });

  test("an attribute on <tool_args> refuses the call", () => {
    expect(outcome(costume(`<language>sh</language><code>ls</code>`, "execute", `<tool_args timeout="5">`)).calls).toEqual([]);
  });

  test("a call's id on <tool_call> labels it", () => {
    expect(outcome(`<tool_call id="1"><tool_name>execute</tool_name><tool_args><language>sh</language><code>ls</code></tool_args></tool_call>`).calls).toEqual([{ tool: "bash", input: { command: "ls" } }]);
  });

  test("a tool name naming another declared tool does not run the code as bash", () => {
    const o = outcome(costume(`<language>sh</language><code>cat /etc/hosts</code>`, "read"));
    expect(o.calls).toEqual([]);
    expect(o.broken).toEqual([{ shape: "C01", reason: "broken-markup", tool: "read" }]);
    expect(outcome(costume(`<language>sh</language><code>ls</code>`, "frobnicate")).broken.map((b) => b.reason)).toEqual(["undeclared-tool"]);
  });

  test("no language: not run as shell by a default the model never wrote", () => {
    const o = outcome(costume(`<code>print(len("abc"))</code>`));
    expect(o.calls).toEqual([]);
    expect(o.broken.map((b) => b.reason)).toEqual(["broken-markup"]);
  });

  test("control: the catalogue's C01 runs", () => {
    expect(outcome(costume(`<language>sh</language><code>ls -la</code>`)).calls).toEqual([{ tool: "bash", input: { command: "ls -la" } }]);
  });

  test("the shell's own name (bash, sh, shell) with shell code runs it in bash, as e1985a9 did (review overreach)", () => {
    for (const name of ["bash", "sh", "shell", "Bash"]) {
      expect(outcome(costume(`<language>sh</language><code>ls -la</code>`, name)).calls).toEqual([{ tool: "bash", input: { command: "ls -la" } }]);
    }
    expect(outcome(costume(`<language>bash</language><code>ls</code>`, "bash")).calls).toEqual([{ tool: "bash", input: { command: "ls" } }]);
  });

  test("the shell's name over Python code, or no language, is not run", () => {
    const o = outcome(costume(`<language>python</language><code>print(1)</code>`, "bash"));
    expect(o.calls).toEqual([]);
    expect(o.broken).toEqual([{ shape: "C01", reason: "broken-markup", tool: "bash" }]);
    expect(outcome(costume(`<code>ls</code>`, "bash")).calls).toEqual([]);
  });
});

const BLOCK_READ = live(`<{D}tool_calls>\n<{D}invoke name="read">\n<{D}parameter name="filePath" string="true">/a</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`);

describe("a costume whose closer had text after it never stays open over the rest of the reply (review overreach)", () => {
  // The closer with text after it may be the code's text (closer-in-value.ts), so that costume is
  // text, never run; what it must not do is merge later costumes into its command or swallow leaks.
  test("a second costume later in the reply runs on its own, never merged with the first and the prose between", () => {
    const o = outcome("<shell>\nls\n</shell>ok\n<shell>\npwd\n</shell>");
    expect(o.calls).toEqual([{ tool: "bash", input: { command: "pwd" } }]);
    expect(o.text).toBe("<shell>\nls\n</shell>ok\n");
  });

  test("a well-formed DSML block on a later line still runs", () => {
    const o = outcome(`<shell>\nls -la\n</shell> to list files.\n\nThen:\n\n${BLOCK_READ}`);
    expect(o.calls).toEqual([{ tool: "read", input: { filePath: "/a" } }]);
    expect(o.text).toBe("<shell>\nls -la\n</shell> to list files.\n\nThen:\n\n");
  });

  test("a DSML block right after the closer runs; the costume before it is text (which closer ended it is unknowable)", () => {
    const o = outcome(`<shell>\nls\n</shell>${BLOCK_READ}`);
    expect(o.calls).toEqual([{ tool: "read", input: { filePath: "/a" } }]);
    expect(o.text).toBe("<shell>\nls\n</shell>");
  });

  test("a Hermes call after a <pre> costume with text after it still runs", () => {
    const o = outcome(`<pre><code>shell\nls\n</code></pre> to list.\n\n<tool_call>\n{"name": "read", "arguments": {"filePath": "/a"}}\n</tool_call>`);
    expect(o.calls).toEqual([{ tool: "read", input: { filePath: "/a" } }]);
  });

  test("Mistral, MiniMax and another costume on a later line still run", () => {
    expect(outcome(`<shell>\nls\n</shell>ok\n[TOOL_CALLS]read[ARGS]{"filePath":"/a"}`).calls).toEqual([{ tool: "read", input: { filePath: "/a" } }]);
    const minimax = `<minimax:tool_call>\n<invoke name="read">\n<parameter name="filePath">/a</parameter>\n</invoke>\n</minimax:tool_call>`;
    expect(outcome(`<shell>\nls\n</shell>ok\n${minimax}`).calls).toEqual([{ tool: "read", input: { filePath: "/a" } }]);
    expect(outcome("<shell>\nls\n</shell>ok\n<bash>\npwd\n</bash>").calls).toEqual([{ tool: "bash", input: { command: "pwd" } }]);
  });

  test("a closer that is the code's text, then the real closer, is still one command", () => {
    const o = outcome(`<shell>\ngrep -c "</shell>" a.html && rm -rf build\n</shell>\nDone.`);
    expect(o.calls).toEqual([{ tool: "bash", input: { command: `grep -c "</shell>" a.html && rm -rf build` } }]);
  });

  test("cut off by the reply after such a closer: all text, nothing lost", () => {
    const input = "<shell>\nls\n</shell>ok\nmore </shell> x\n";
    const o = outcome(input);
    expect(o.calls).toEqual([]);
    expect(o.text).toBe(input);
  });
});

describe("costume read on past a closer: an example inside its code never runs on its own (review stop 40, finding 3)", () => {
  // One shell costume writing a document with a heredoc; the document mentions `</shell>` and
  // shows an example call. The costume's own closer ends its line at the end: the whole was one
  // costume, so the example is the heredoc's text. Which closer ended it is unknowable: refused whole.
  const refused = { calls: [], broken: [{ shape: "C04" as const, reason: "broken-markup" as const, tool: undefined }] };
  const examples: [string, string][] = [
    ["a <bash> example", "<bash>rm -rf build</bash>"],
    ["a <tool_call> example", `<tool_call>\n{"name": "bash", "arguments": {"command": "rm -rf build"}}\n</tool_call>`],
    ["a <shell> example of the same costume, on its own line", "<shell>rm -rf build</shell>"],
    ["a DSML example", live(`<{D}tool_calls>\n<{D}invoke name="bash">\n<{D}parameter name="command" string="true">rm -rf build</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`)],
  ];
  test.each(examples)("%s inside a <shell> heredoc never runs; the costume is refused, all text", (_name, example) => {
    const input = `<shell>cat > doc.md <<'EOF'\nEnd the block with </shell> on its own line.\n${example}\nEOF\n</shell>\n`;
    const o = outcome(input);
    expect({ calls: o.calls, broken: o.broken }).toEqual(refused);
    expect(o.text).toBe(input);
  });

  test("the same at the reply's end (the closer ends the reply) and with prose after the costume", () => {
    const body = "<shell>cat > doc.md <<'EOF'\nEnd with </shell> here.\n<bash>rm -rf build</bash>\nEOF\n</shell>";
    expect(outcome(body).calls).toEqual([]);
    const o = outcome(`${body}\nThe document is written.\n`);
    expect({ calls: o.calls, broken: o.broken }).toEqual(refused);
  });

  test("a costume after the refused one does not run: where the refused one's code ended is unknown (review 44 follow-up; review 40 ran it)", () => {
    const input = "<shell>cat > doc.md <<'EOF'\nEnd with </shell> here.\n<bash>rm -rf build</bash>\nEOF\n</shell>\n\n<shell>\npwd\n</shell>\n";
    const o = outcome(input);
    expect(o.calls).toEqual([]);
    expect(o.broken).toEqual([
      { shape: "C04", reason: "broken-markup", tool: undefined },
      { shape: "C04", reason: "overflowed-markup", tool: "bash" },
    ]);
    expect(o.text).toBe(input);
  });

  test("a Python costume whose string holds the example is refused the same way", () => {
    const o = outcome(`<python>\ns = """\nEnd with </python> here.\n<bash>rm -rf build</bash>\n"""\nprint(s)\n</python>\n`);
    expect(o.calls).toEqual([]);
  });

  test("the same costume opened again after the closer read as code, then closed: the reply ending there keeps the second costume's call (A40.16)", () => {
    const o = outcome("<shell>\nls\n</shell>ok\n<shell>\npwd\n</shell>\nDone.\n<bash>\nwhoami\n</bash>\n");
    expect(o.calls).toEqual([
      { tool: "bash", input: { command: "pwd" } },
      { tool: "bash", input: { command: "whoami" } },
    ]);
  });

  test("a closer of the first costume that ends a line after such a second costume refuses it all", () => {
    const o = outcome("<shell>\nls\n</shell>ok\n<shell>\npwd\n</shell>\n</shell>\n");
    expect(o.calls).toEqual([]);
    expect(o.broken.map((b) => b.reason)).toEqual(["broken-markup"]);
  });

  test("a closer with text after it, after the example, refuses as one ending its line does (review 41, rule 4)", () => {
    expect(outcome("<shell>\ncat <<'EOF'\n</shell> a\n<bash>rm -rf build</bash>\n</shell> b\nEOF\n</shell>\n").calls).toEqual([]);
    // Before review 41 this ran `pwd`: the same markup as a heredoc's example followed by
    // `</shell> done` (test/hostile/review-41-costume.test.ts), so nothing tells it apart. The
    // call is refused with a nudge (a lost call) rather than risk running a quoted example.
    const o = outcome("<shell>\nls\n</shell> a\n<bash>\npwd\n</bash>\n</shell> b\n");
    expect({ calls: o.calls, broken: o.broken }).toEqual(refused);
    expect(o.text).toBe("<shell>\nls\n</shell> a\n<bash>\npwd\n</bash>\n</shell> b\n");
  });

  describe("a later own closer with text after it refuses up to the last closer (review 41, rule 4)", () => {
    const heredoc = "<shell>cat <<'EOF'\nuse </shell> x\n<bash>rm -rf build</bash>\nEOF\n</shell> done";

    test("refused up to that closer, all text, nothing stripped; the rest is read again", () => {
      const input = `${heredoc}\nThe document is written.\n`;
      const r = runAtEverySplit(input, fixtureTools);
      expect(r.calls).toEqual([]);
      expect(r.summary.stripped).toEqual([]);
      expect(r.summary.broken.map((b) => ({ span: b.span, shape: b.shape, reason: b.reason }))).toEqual([{ span: [0, heredoc.length - " done".length], shape: "C04", reason: "broken-markup" }]);
      expect(r.text).toBe(input);
    });

    test("a call after the costume's last closer runs on its own", () => {
      const o = outcome(`${heredoc}\n<bash>\npwd\n</bash>\n`);
      expect(o.calls).toEqual([{ tool: "bash", input: { command: "pwd" } }]);
      expect(o.broken.map((b) => b.reason)).toEqual(["broken-markup"]);
    });

    test("the same costume opened again after that closer is refused too (it may be the code's text)", () => {
      expect(outcome(`${heredoc}\n<shell>\npwd\n</shell>\n`).calls).toEqual([]);
      expect(outcome(`${heredoc}\n<shell>\npwd\n</shell> ok\n`).calls).toEqual([]);
    });

    test("a Python costume, a code_interpreter and a CR LF reply are refused the same way", () => {
      expect(outcome(`<python>\ns = """\nEnd with </python> here.\n<bash>rm -rf build</bash>\n"""\nprint(s)\n</python> # done\n`).calls).toEqual([]);
      const ci = outcome(`<code_interpreter>\ns = """\nEnd with </code_interpreter> here.\n<bash>rm -rf build</bash>\n"""\nprint(s)\n</code_interpreter> ok\n`);
      expect({ calls: ci.calls, shapes: ci.broken.map((b) => b.shape) }).toEqual({ calls: [], shapes: ["C07"] });
      expect(outcome("<shell>cat <<'EOF'\r\nuse </shell> x\r\n<bash>rm -rf build</bash>\r\nEOF\r\n</shell> done\r\n").calls).toEqual([]);
    });

    test("the cost: the costume's closer written inside a later real call refuses that call", () => {
      const o = outcome(`<shell>\nls\n</shell> lists.\n<tool_call>\n{"name": "bash", "arguments": {"command": "grep '</shell>' f"}}\n</tool_call>\n`);
      expect(o.calls).toEqual([]);
      expect(o.broken.map((b) => b.reason)).toEqual(["broken-markup"]);
    });

    test("only the first costume's own closer counts: another costume's closer later leaves the call running", () => {
      expect(outcome("<shell>\nls\n</shell> a\n<bash>\npwd\n</bash>\n</python> b\n").calls).toEqual([{ tool: "bash", input: { command: "pwd" } }]);
      // Review 52: a closer of the second costume itself after its clean closer refuses that one
      // (which of its closers ends it is unknowable: costume-hold.ts holdsAfterCloserLine).
      expect(outcome("<shell>\nls\n</shell> a\n<bash>\npwd\n</bash>\n</bash> b\n").calls).toEqual([]);
    });
  });

  test("a reply running on far past the held call without the costume's closer is refused whole (bounded work)", () => {
    const block = live(`<{D}tool_calls>\n<{D}invoke name="read">\n<{D}parameter name="filePath" string="true">/a</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`);
    const near = `<shell>\nls -la\n</shell> to list files.\n\n${block}\n`;
    expect(outcome(near + "Done.\n".repeat(100)).calls).toEqual([{ tool: "read", input: { filePath: "/a" } }]);
    const far = outcome(near + "Done.\n".repeat(800));
    expect(far.calls).toEqual([]);
    expect(far.broken.map((b) => b.reason)).toEqual(["broken-markup"]);
  });
});
