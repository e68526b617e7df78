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
  // Fixed: a shell line (outside a heredoc body or string the code ends) that starts with a shell
  // prompt (`$ `, `user@host:path$ `, `user@host:path# `, `[user@host dir]$ `, `PS C:\> `) refuses
  // the costume whole (broken-markup, text kept as written; src/parse/code-lines.ts
  // notCommandLine, asked by costume.ts codeCall). Prompts are never stripped: which lines are
  // output is unknowable, and an argument is what the model wrote. `$ npm test` alone in a costume
  // is refused too: it never ran as a command anyway (`$` is no command). `$VAR=`, `${x}`, `$(cmd)`
  // are code; `# ` alone is a bash comment, a prompt only after `user@host:path`.
  const transcripts: [string, string][] = [
    ["<shell> with `$ cat` and the file's lines", "<shell>\n$ cat cleanup.sh\nrm -rf build\n</shell>"],
    ["bash-labelled <pre><code> after `Here is what I got:`", `Here is what I got:\n${pre("$ ls build\nrm -rf build\n")}`],
    ["<bash> with a user@host prompt", "<bash>\nuser@host:~/app$ cat Makefile.old\nrm -rf build\n</bash>"],
  ];
  for (const [title, input] of transcripts) {
    test(`${title}: the output line never runs`, () => {
      expect(runsLine(outcome(input), "rm -rf build")).toBe(false);
    });
  }

  test("prompt lines alone are not sent as commands (`$ npm test` is `$: command not found`)", () => {
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

  // After the fix: each prompt spelling refuses the costume whole, every character kept.
  const prompts = ["$ npm test", "user@host:~/app$ npm test", "root@box:/srv/app# npm test", "[dev@box app]$ npm test", "PS C:\\app> npm test", "  $ npm test"];
  for (const line of prompts) {
    test(`a costume with the prompt line \`${line}\` is refused whole, text kept`, () => {
      const input = `<shell>\n${line}\nrm -rf build\n</shell>`;
      expect(outcome(input)).toEqual({ calls: [], broken: ["broken-markup"], text: input });
    });
  }
  test("a prompt line after code lines refuses the costume too", () => {
    expect(outcome("<bash>\nls\n$ rm -rf build\n</bash>").calls).toEqual([]);
  });
  test("control: an ordinary costume runs", () => {
    expect(commands(outcome("<shell>\nnpm test\n</shell>"))).toEqual(["npm test"]);
  });
  test("control: a bash comment line `# build` runs with the code", () => {
    expect(commands(outcome("<shell>\n# build\nnpm run build\n</shell>"))).toEqual(["# build\nnpm run build"]);
  });
  test("control: `$VAR` expansions, `$1`, `$?` and a `> file` redirection at line starts are code", () => {
    const code = "$EDITOR_CMD notes.txt\n${CC:-cc} -o a a.c\n> build.log\necho $? >> build.log";
    expect(commands(outcome(`<bash>\n${code}\n</bash>`))).toEqual([code]);
  });
  test("control: a heredoc writing a README that shows a transcript runs whole", () => {
    const code = "cat > README.md <<'EOF'\n$ npm install\nuser@host:~/app$ npm test\nEOF";
    expect(commands(outcome(`<shell>\n${code}\n</shell>`))).toEqual([code]);
  });
  test("control: a prompt inside a quoted string that spans lines is the string's", () => {
    const code = "echo 'Run:\n$ npm test' > HINT.txt";
    expect(commands(outcome(`<shell>\n${code}\n</shell>`))).toEqual([code]);
  });
  test("control: `user@host` with no prompt sign (`ssh deploy@box ls`) is code", () => {
    expect(commands(outcome("<shell>\nssh deploy@box:22 ls\n</shell>"))).toEqual(["ssh deploy@box:22 ls"]);
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
  // Fixed: an HTML comment opener `<!--` the code does not quote (at a line's start, or within a
  // shell line), outside a heredoc body or string the code ends and outside a `#` comment, refuses
  // a language-tag costume (broken-markup, text kept), as `<pre><code>` refuses one (C48.1)
  // (src/parse/code-lines.ts notCommandLine). Python cannot compile such a line, so refusing it
  // there loses nothing either.
  test("<shell>: the commented-out `rm -rf build` never runs", () => {
    expect(runsLine(outcome("<shell>\n<!--\nrm -rf build\n-->\nls\n</shell>"), "rm -rf build")).toBe(false);
  });
  test("<bash> after a colon line: the same", () => {
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
  // Review 53 changed this control from "runs `ls` only" to refused: the XML execute costume's strict
  // reader dropped a comment while its tolerant reader (taken when an unrelated `<` made the span
  // invalid XML) kept it, so a quoted `echo '<!-- x -->' > a.html` ran as `echo '' > a.html`. A span
  // holding a comment, CDATA section or processing instruction is now refused whichever reader would
  // read it (src/parse/costume-xml.ts); the commented-out line still never runs.
  test("control: the XML execute costume refuses an XML comment (review 53; it ran `ls` only before)", () => {
    const input = "<tool_call><tool_name>execute</tool_name><tool_args><language>sh</language><code><!--\nrm -rf build\n-->\nls</code></tool_args></tool_call>";
    expect(outcome(input)).toEqual({ calls: [], broken: ["broken-markup"], text: input });
  });
  test("a comment opened after code on a line (`ls <!--`) refuses too, text kept", () => {
    const input = "<shell>\nls <!-- old:\nrm -rf build\n-->\n</shell>";
    expect(outcome(input)).toEqual({ calls: [], broken: ["broken-markup"], text: input });
  });
  test("a <python> costume with a comment line is refused", () => {
    expect(outcome("<python>\n<!--\nimport shutil; shutil.rmtree('build')\n-->\nprint(1)\n</python>").calls).toEqual([]);
  });
  test("control: a `#` comment mentioning `<!--` runs", () => {
    expect(commands(outcome("<shell>\nls # not <!-- this\n</shell>"))).toEqual(["ls # not <!-- this"]);
  });
  test("control: a Python string holding a comment runs", () => {
    expect(outcome("<python>\nprint('<!-- x -->')\n</python>").calls.length).toBe(1);
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
  // Fixed: both decoded costumes read character references as HTML does (src/parse/values.ts
  // decodeHtmlReferences): `&amp; &lt; &gt; &quot; &apos;` and every numeric reference to a
  // valid character. A reference that names nothing the code could mean refuses the costume
  // (broken-markup) rather than run a guess: a numeric one without its digits or `;` (`&#47`), to
  // 0, a surrogate, a control character but tab, LF and CR, or past U+10FFFF, and a named one the
  // decoder does not know (`&nbsp;`). The XML execute costume's strict reader decodes numeric
  // references too (fast-xml-parser `htmlEntities`, its HTML names never reached: the span is
  // checked first). `<shell>` keeps its text as written (P08).
  const undecoded = (o: Outcome) => commands(o).some((c) => /&#/.test(c));
  test("<pre><code> with `&#47;`: never `rm -rf build&#47;cache`", () => {
    expect(undecoded(outcome(pre("rm -rf build&#47;cache")))).toBe(false);
  });
  test("<pre><code> with `&#x2F;`: the same", () => {
    expect(undecoded(outcome(pre("rm -rf build&#x2F;cache")))).toBe(false);
  });
  test("the XML execute costume with `&#47;` in its code: the same", () => {
    const input = "<tool_call><tool_name>execute</tool_name><tool_args><language>sh</language><code>rm -rf build&#47;cache</code></tool_args></tool_call>";
    expect(undecoded(outcome(input))).toBe(false);
  });

  const xmlCode = (code: string) => `<tool_call><tool_name>execute</tool_name><tool_args><language>sh</language><code>${code}</code></tool_args></tool_call>`;
  test("decoded as the page shows it: `&#47;`, `&#x2F;`, `&#X2f;`, `&#0047;` and `&#10;` in <pre><code>", () => {
    expect(commands(outcome(pre("rm -rf build&#47;a &#x2F;b &#X2f;c &#0047;d&#10;ls")))).toEqual(["rm -rf build/a /b /c /d\nls"]);
  });
  test("decoded in the XML execute costume, well-formed (strict reader) or not (tolerant reader)", () => {
    expect(commands(outcome(xmlCode("rm -rf build&#47;cache &amp;&amp; ls")))).toEqual(["rm -rf build/cache && ls"]);
    expect(commands(outcome(xmlCode("test 1 < 2 && rm -rf build&#x2F;cache")))).toEqual(["test 1 < 2 && rm -rf build/cache"]);
  });
  const nameless = ["build&#47cache", "a&#;b", "a &#xZZ; b", "a&#0;b", "a&#xD800;b", "a&#1114112;b", "a&#x110000;b", "a&#27;[31m", "a&#x85;b", "a&nbsp;b", "a &copy; b", "a&#99999999999999999999;b"];
  for (const code of nameless) {
    test(`a reference that names no character the code could mean (\`${code}\`) refuses <pre><code> and the XML costume`, () => {
      const html = pre(`rm -rf ${code}`);
      expect(outcome(html)).toEqual({ calls: [], broken: ["broken-markup"], text: html });
      expect(outcome(xmlCode(`rm -rf ${code}`)).calls).toEqual([]);
    });
  }
  test("a DOCTYPE-defined entity in the XML costume is never expanded into code", () => {
    expect(outcome('<tool_call><!DOCTYPE x [<!ENTITY e "rm -rf /">]><tool_name>execute</tool_name><tool_args><language>sh</language><code>&e;</code></tool_args></tool_call>').calls).toEqual([]);
  });
  test("control: a raw `&` before no reference is the code's own (`&&`, `&>`, `&x` with no `;`)", () => {
    expect(commands(outcome(pre("make &>/dev/null &&ls -l a&b")))).toEqual(["make &>/dev/null &&ls -l a&b"]);
  });
  test("control: `&lt;` and `&gt;` in <pre><code> are decoded", () => {
    expect(commands(outcome(pre("sort &lt; in &gt; out")))).toEqual(["sort < in > out"]);
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
  // Fixed: `<pre>` and its `<code>` keep only HTML's own attributes (`class`, `style`, `id`,
  // `lang`, `title`, `data-*`, and `dir` with a text direction's value, `ltr`/`rtl`/`auto`); any
  // other (`workdir`, `cwd`, `timeout`, `dir="/srv/app"`) refuses the block once it proves to be
  // code (broken-markup, text kept; src/parse/costume.ts preBlock, htmlAttributeUnread), as a
  // language tag's does (R12.14) and the XML costume's (A40.11). A `<pre>` that is no code block
  // stays text whatever it carries.
  const runsWithout = (o: Outcome) => o.calls.some((c) => c.tool === "bash" && c.input.workdir === undefined);
  test("`workdir` on <code>: never run without it", () => {
    expect(runsWithout(outcome(pre("rm -rf build", ' class="language-bash" workdir="/srv/app"')))).toBe(false);
  });
  test("`cwd` on <code>: never run without it", () => {
    expect(runsWithout(outcome(pre("rm -rf build", ' class="language-bash" cwd="/srv/app"')))).toBe(false);
  });
  test("`workdir` on <pre>: never run without it", () => {
    expect(runsWithout(outcome(`<pre workdir="/srv/app"><code class="language-bash">rm -rf build</code></pre>`))).toBe(false);
  });

  // Hard negatives: HTML's own attributes say nothing about the call.
  test("control: <pre class style id> around <code class> runs", () => {
    expect(commands(outcome(`<pre class="highlight" style="color:red" id="b1"><code class="language-bash">ls -la</code></pre>`))).toEqual(["ls -la"]);
  });
  for (const attrs of [' class="language-bash" timeout="5"', ' class="language-bash" dir="/srv/app"', ' class="language-bash" WorkDir="/srv/app"']) {
    test(`<code${attrs}> is refused, text kept`, () => {
      const input = pre("rm -rf build", attrs);
      expect(outcome(input)).toEqual({ calls: [], broken: ["broken-markup"], text: input });
    });
  }
  test("control: `dir` as a text direction, `lang`, `title` and `data-*` run", () => {
    expect(commands(outcome(`<pre dir="ltr" lang="en" title="t"><code class="language-bash" data-lang="bash" dir="auto">ls -la</code></pre>`))).toEqual(["ls -la"]);
  });
  test('control: <pre class="x" id="y"> runs', () => {
    expect(commands(outcome(`<pre class="x" id="y"><code class="language-bash">ls</code></pre>`))).toEqual(["ls"]);
  });
  test("control: a <pre> with an unknown attribute that is no code block stays text", () => {
    const input = `<pre workdir="/srv/app">just a note</pre>`;
    expect(outcome(input)).toEqual({ calls: [], broken: [], text: input });
  });
  test("control: `<shell cwd>` is refused (R12.14)", () => {
    const o = outcome('<shell cwd="/srv/app">\nrm -rf build\n</shell>');
    expect(o.calls).toEqual([]);
    expect(o.broken).toEqual(["broken-markup"]);
  });
});
