/**
 * Review 52 (hostile, tests only): what a code costume's command is made of. A costume runs its
 * body as bash; these are bodies whose text is not the command the model meant (a terminal
 * transcript, an HTML comment that commented a line out, HTML character references the page
 * decodes but the reader does not, an attribute on `<code>` that says where to run). Each case runs
 * whole, char by char and at seeded random splits (test/support/outcome.ts).
 */
import { describe, expect, test } from "bun:test";
import { outcome, type Outcome } from "../support/outcome.ts";

const commands = (o: Outcome) => o.calls.filter((c) => c.tool === "bash").map((c) => String(c.input.command));
const runsLine = (o: Outcome, line: string) => commands(o).some((c) => c.split(/\r?\n/).some((l) => l.trim() === line));
const pre = (code: string, attrs = ' class="language-bash"') => `<pre><code${attrs}>${code}</code></pre>`;

describe("a terminal transcript dressed as a costume runs its output lines as commands", () => {
  // FINDING 1. Severity: wrong execution (high). A costume (or a bash-labelled `<pre><code>`) whose
  // lines start with a shell prompt (`$ `, `user@host:~$ `) is a transcript: prompt lines and the
  // output under them. The reader sends the whole body to bash, so every OUTPUT line runs as a
  // command, and the prompted line fails (`$: command not found`). Output is whatever the program
  // printed: a file's lines (`$ cat cleanup.sh` then `rm -rf build`), a log, a listing.
  // Minimal input: "<shell>\n$ cat cleanup.sh\nrm -rf build\n</shell>"
  //   -> bash {command: "$ cat cleanup.sh\nrm -rf build"} (rm -rf build runs).
  // Suspected: src/parse/costume.ts codeCall() (nothing looks at the lines' shape; code-lines.ts
  // already reads lines for parameterElementLine). docs/PATTERNS.md has no rule for prompts.
  // Expected: a body with a prompt line is a transcript, not a call (text or a nudge); never a
  // command holding a `$ ` prompt line, never an output line run.
  const transcripts: [string, string][] = [
    ["<shell> with `$ cat` and the file's lines", "<shell>\n$ cat cleanup.sh\nrm -rf build\n</shell>"],
    ["bash-labelled <pre><code> after `Here is what I got:`", `Here is what I got:\n${pre("$ ls build\nrm -rf build\n")}`],
    ["<bash> with a user@host prompt", "<bash>\nuser@host:~/app$ cat Makefile.old\nrm -rf build\n</bash>"],
  ];
  for (const [title, input] of transcripts) {
    test.failing(`${title}: the output line never runs`, () => {
      expect(runsLine(outcome(input), "rm -rf build")).toBe(false);
    });
  }

  test.failing("prompt lines alone are not sent as commands (`$ npm test` is `$: command not found`)", () => {
    const o = outcome("<shell>\n$ npm install\n$ npm test\n</shell>");
    expect(commands(o).some((c) => /^\$ /m.test(c))).toBe(false);
  });

  // Hard negatives: `$` that is shell syntax, not a prompt.
  test("control: `$HOME`, `$(...)` and `${X}` at a line start are code and run", () => {
    expect(commands(outcome("<shell>\n$(which python3) -V\necho $HOME ${USER}\n</shell>"))).toEqual(["$(which python3) -V\necho $HOME ${USER}"]);
  });
  test("control: a plain shell costume after a colon runs (C48.5)", () => {
    expect(commands(outcome("Cleaning up:\n<shell>\nrm -rf build\n</shell>"))).toEqual(["rm -rf build"]);
  });
  test("control: `language-console` (a transcript language) stays text", () => {
    const input = pre("$ ls build\nrm -rf build\n", ' class="language-console"');
    expect(outcome(input)).toEqual({ calls: [], broken: [], text: input });
  });
});

describe("an HTML comment inside a language-tag costume runs the line it commented out", () => {
  // FINDING 2. Severity: wrong execution (high). `<shell>` / `<bash>` bodies are kept as written
  // (never decoded, docs/PATTERNS.md P08), so an HTML comment the model put around a line it did
  // NOT want run reaches bash as three lines: `<!--` (a failed redirection, bash goes on), the
  // commented-out command (runs), `-->` (a syntax error, too late). Checked with bash 5:
  // `bash -c $'<!--\necho RAN\n-->'` prints RAN. The `<pre><code>` costume refuses a comment
  // (golden C48.1, C48.4) and the XML execute costume drops it as XML does; the language tags
  // neither refuse nor drop it.
  // Minimal input: "<shell>\n<!--\nrm -rf build\n-->\nls\n</shell>"
  //   -> bash {command: "<!--\nrm -rf build\n-->\nls"}.
  // Suspected: src/parse/costume.ts codeCall() / parseCostumeSpan() (RAW_HTML is asked for `pre` only).
  // Expected: refused (broken-markup), as C48.1; or the comment dropped; never the commented line run.
  test.failing("<shell>: the commented-out `rm -rf build` never runs", () => {
    expect(runsLine(outcome("<shell>\n<!--\nrm -rf build\n-->\nls\n</shell>"), "rm -rf build")).toBe(false);
  });
  test.failing("<bash> after a colon line: the same", () => {
    expect(runsLine(outcome("Cleaning up:\n<bash>\n<!--\nrm -rf build\n-->\nls -la\n</bash>"), "rm -rf build")).toBe(false);
  });

  // Hard negatives: a comment in code that is the code's own text (a heredoc writing HTML, a quoted string).
  test("control: a heredoc writing an HTML file with a comment line still runs whole", () => {
    const code = "cat > index.html <<'EOF'\n<!-- generated -->\n<p>hi</p>\nEOF";
    expect(commands(outcome(`<shell>\n${code}\n</shell>`))).toEqual([code]);
  });
  test("control: a quoted comment in an echo still runs", () => {
    expect(commands(outcome("<shell>\necho '<!-- x -->' >> a.html\n</shell>"))).toEqual(["echo '<!-- x -->' >> a.html"]);
  });
  test("control: the XML execute costume drops an XML comment as XML does (runs `ls` only)", () => {
    const input = "<tool_call><tool_name>execute</tool_name><tool_args><language>sh</language><code><!--\nrm -rf build\n-->\nls</code></tool_args></tool_call>";
    expect(commands(outcome(input))).toEqual(["ls"]);
  });
  test("control: <pre><code> holding a comment is refused (C48.1)", () => {
    const o = outcome(pre("<!--\nrm -rf build\n-->\nls\n"));
    expect(o.calls).toEqual([]);
    expect(o.broken).toEqual(["broken-markup"]);
  });
});

describe("HTML character references the decoder does not know stay in an always-decoded costume's command", () => {
  // FINDING 3. Severity: wrong execution (high). docs/PATTERNS.md P08: "HTML costumes
  // (`pre`/`code`, `tool_call`) are always decoded". The decoder (src/parse/values.ts ENTITY) knows
  // `&amp; &lt; &gt; &quot; &apos; &#39; &#x27;` only; any other numeric reference (`&#47;`,
  // `&#x2F;`, which escapers such as OWASP's write for `/`) stays raw. The page shows
  // `rm -rf build/cache`; bash reads `rm -rf build&#47;cache` as `rm -rf build &` and a comment:
  // the whole build directory goes. Same in the XML execute costume (its strict reader,
  // fast-xml-parser, leaves numeric references too; XML itself defines them).
  // Minimal input: '<pre><code class="language-bash">rm -rf build&#47;cache</code></pre>'
  //   -> bash {command: "rm -rf build&#47;cache"}.
  // Suspected: src/parse/values.ts decodeEntities() (ENTITY), src/parse/costume.ts preBlock(),
  // src/parse/costume-xml.ts (xml() options, tolerantFields()).
  // Expected: the reference decoded (`rm -rf build/cache`) or the costume refused; never a command
  // holding an undecoded reference.
  const undecoded = (o: Outcome) => commands(o).some((c) => /&#/.test(c));
  test.failing("<pre><code> with `&#47;`: never `rm -rf build&#47;cache`", () => {
    expect(undecoded(outcome(pre("rm -rf build&#47;cache")))).toBe(false);
  });
  test.failing("<pre><code> with `&#x2F;`: the same", () => {
    expect(undecoded(outcome(pre("rm -rf build&#x2F;cache")))).toBe(false);
  });
  test.failing("the XML execute costume with `&#47;` in its code: the same", () => {
    const input = "<tool_call><tool_name>execute</tool_name><tool_args><language>sh</language><code>rm -rf build&#47;cache</code></tool_args></tool_call>";
    expect(undecoded(outcome(input))).toBe(false);
  });

  // Hard negatives: the references the decoder knows, and language tags kept as written (P08).
  test("control: `&amp;&amp;` and `&gt;` in <pre><code> are decoded (C03)", () => {
    expect(commands(outcome(pre("grep -c x a &amp;&amp; echo y &gt; out")))).toEqual(["grep -c x a && echo y > out"]);
  });
  test("control: a <shell> costume keeps `&amp;` as written (P08: language tags are never decoded)", () => {
    expect(commands(outcome("<shell>\necho 'a &amp; b' > note.txt\n</shell>"))).toEqual(["echo 'a &amp; b' > note.txt"]);
  });
});

describe("an attribute on <pre> or <code> saying where to run is dropped, and the code runs elsewhere", () => {
  // FINDING 4. Severity: wrong execution (medium). `<shell cwd="/">` and `<bash timeout="5">` are
  // refused, "the attribute says something no parameter would read, so the call would run without
  // it" (golden R12.14), and the XML execute costume refuses `<code workdir="/tmp">` (A40.11). The
  // `<pre><code>` costume reads only `class` from `<code>` and ignores every attribute on `<pre>`:
  // `workdir` (a parameter bash declares!) or `cwd` is dropped, and `rm -rf build` runs in the
  // session's directory instead of the one the model named.
  // Minimal input: '<pre><code class="language-bash" workdir="/srv/app">rm -rf build</code></pre>'
  //   -> bash {command: "rm -rf build"} (no workdir).
  // Suspected: src/parse/costume.ts preBlock() (reads open.attrs.class only) and unreadAttribute()
  // (`pre`: any attribute; docs/PATTERNS.md says "any (HTML's own: class, style, id)", and
  // `workdir`/`cwd` are no HTML attributes).
  // Expected: refused (broken-markup, as A40.11), or the attribute read into the call; never a run
  // without it.
  const runsWithout = (o: Outcome) => o.calls.some((c) => c.tool === "bash" && c.input.workdir === undefined);
  test.failing("`workdir` on <code>: never run without it", () => {
    expect(runsWithout(outcome(pre("rm -rf build", ' class="language-bash" workdir="/srv/app"')))).toBe(false);
  });
  test.failing("`cwd` on <code>: never run without it", () => {
    expect(runsWithout(outcome(pre("rm -rf build", ' class="language-bash" cwd="/srv/app"')))).toBe(false);
  });
  test.failing("`workdir` on <pre>: never run without it", () => {
    expect(runsWithout(outcome(`<pre workdir="/srv/app"><code class="language-bash">rm -rf build</code></pre>`))).toBe(false);
  });

  // Hard negatives: HTML's own attributes say nothing about the call.
  test("control: <pre class style id> around <code class> runs", () => {
    expect(commands(outcome(`<pre class="highlight" style="color:red" id="b1"><code class="language-bash">ls -la</code></pre>`))).toEqual(["ls -la"]);
  });
  test("control: `<shell cwd>` is refused (R12.14)", () => {
    const o = outcome('<shell cwd="/srv/app">\nrm -rf build\n</shell>');
    expect(o.calls).toEqual([]);
    expect(o.broken).toEqual(["broken-markup"]);
  });
});
