/**
 * Review 52, diff review (hostile, tests only): what the round's source diff (main..int52) gets
 * wrong. The lone-closer-line rule (src/parse/stray-value-closer.ts prose mode "value",
 * src/engine/span-callbacks.ts runAfterCutValue, src/parse/dialects/dsml/walk.ts cutValue) now
 * refuses a DSML write whose page has a lone `</{D}invoke>` line, then prose, then the write's own
 * closers (golden D52.4). It stops at the first thing after the prose that is not a stray value
 * closer: a block closer line, an invoke of the page, an HTML tag or a bare `<` in the prose all
 * end the run "and the call stands", so the write still runs with its page cut at the lone line,
 * though the write's own `</{D}parameter>` follows and closes nothing (the sign the rule reads).
 * The costume attribute rule (src/parse/costume.ts htmlAttributeUnread) refuses HTML's own global
 * attributes other than five.
 *
 * Every outcome runs whole, char by char and at seeded random splits (test/support/outcome.ts).
 */
import { describe, expect, test } from "bun:test";
import { live } from "../golden/notation.ts";
import { outcome } from "../support/outcome.ts";

const P = (k: string, v: string) => `<{D}parameter name="${k}" string="true">${v}</{D}parameter>`;
const inv = (tool: string, ...params: string[]) => `<{D}invoke name="${tool}">\n${params.join("\n")}\n</{D}invoke>`;
const block = (...items: string[]) => `<{D}tool_calls>\n${items.join("\n")}\n</{D}tool_calls>`;
const head = `<{D}tool_calls>\n<{D}invoke name="write">\n${P("filePath", "docs/dsml.md")}\n<{D}parameter name="content" string="true">`;
const tail = "</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>";

/** The write never runs with its page cut short, and nothing of the page runs: written whole, or refused with its text kept. */
function neverCut(page: string) {
  const input = live(`${head}${page}${tail}`);
  const o = outcome(input);
  const whole = [{ tool: "write", input: { filePath: "docs/dsml.md", content: live(page) } }];
  if (o.calls.length === 0) {
    expect(o.broken).toContain("broken-markup");
    expect(o.text).toBe(input);
  } else expect(o.calls).toEqual(whole);
}

describe("a write cut at a lone invoke closer line, then prose: the run after the call stops too soon", () => {
  // Finding 1 (severity: WRONG EXECUTION, a truncated file). What is wrong: a DSML page that shows
  // both closers on lines of their own, prose between (`An invoke ends with⏎</{D}invoke>⏎and
  // that is the call.⏎</{D}tool_calls>⏎and that is the block.⏎`), then the write's own
  // `</{D}parameter>` `</{D}invoke>` `</{D}tool_calls>`. P01 cuts the value at the lone
  // `</{D}invoke>` line; the new prose mode reads on over the prose, but ExampleRun.tag ("gap",
  // sawProse) ends the run at the lone block closer line ("the call stands"), so the write runs
  // with content "An invoke ends with" and the rest of the page (with the write's own closers,
  // which close nothing) is stripped. The stray `</{D}parameter>` that refuses D52.4 comes two lines
  // later. Same on main (the fix stops short). Minimal input: the page above in a write.
  // Suspected: src/parse/stray-value-closer.ts ExampleRun.tag (`if (this.sawProse && (tag.closing
  // || ...)) return "fail"`), src/parse/dialects/dsml/walk.ts (runRefuses with "value").
  // Expected: refused (broken-markup, text kept), as D52.4, or written whole.
  // Fixed (fx52-diff): after a lone closer line that ended an OPEN value (P01) the run after the call
  // holds everything (prose, tags, a bare `<`, block closers, further invokes) until a closer of the
  // value that closes nothing (the write's own `</{D}parameter>`, its line ending or a tag next):
  // the whole run is refused (I04, text kept, nothing in it runs). The reply's end or bufferLimit
  // proves nothing: the cut call runs as P01 did and the rest is read again (stray-value-closer.ts
  // valueChar/valueStep, dsml/walk.ts valueRunRefuses). Cost: a P01 call followed by more invokes
  // in the same reply now runs only at the reply's end.
  test("a lone block closer line after the prose: the write is not run cut", () => {
    neverCut("An invoke ends with\n</{D}invoke>\nand that is the call.\n</{D}tool_calls>\nand that is the block.\n");
  });

  // Finding 2 (severity: WRONG EXECUTION, a truncated file AND the page's own example runs). What
  // is wrong: the page shows a closer line, prose, then a whole invoke of its own (`Calls look
  // like⏎</{D}invoke>⏎then⏎<{D}invoke name="read">…</{D}invoke>⏎ok⏎`). After the prose the
  // invoke opener ends the run (ExampleRun "fail"), the write runs with content "Calls look like",
  // and the page's `read /b` runs as a call of the block. Same on main. Suspected: as finding 1.
  // Expected: no call from the page; the write refused or whole.
  // Fixed (fx52-diff): the page's invoke is held like the prose (its own parameter and invoke closers
  // are counted, so they close something); the write's stray `</{D}parameter>` refuses the whole run,
  // the page's read with the write (the walk refuses every call of a refused run). Cost as finding 1.
  test("an invoke of the page after the prose: neither the cut write nor the page's read runs", () => {
    neverCut(`Calls look like\n</{D}invoke>\nthen\n${inv("read", P("filePath", "/b"))}\nok\n`);
  });

  // Finding 3 (severity: WRONG EXECUTION, a truncated file). What is wrong: prose that holds any
  // markup (`that is <b>all</b>.`) or a bare `<` (`if a < b then`) ends prose mode: a tag in the gap
  // after prose is "fail" (any markup but an example block), and a `<` no tag reader took is "fail"
  // (ExampleRun.char, kept for goldens P48.10, P49.6, P50.2), so the write runs cut at the lone line.
  // A documentation page is exactly where both show up. Same on main. Suspected:
  // src/parse/stray-value-closer.ts ExampleRun.char/tag. Expected: refused as D52.4.
  // Fixed (fx52-diff): in the run after a cut value a tag or a `<` in prose is held like the prose;
  // the write's stray `</{D}parameter>` refuses it. Cost as finding 1.
  test("an HTML tag in the prose: the write is not run cut", () => {
    neverCut("Ends with\n</{D}invoke>\nthat is <b>all</b>.\n");
  });
  test("a bare `<` in the prose: the write is not run cut", () => {
    neverCut("Ends with\n</{D}invoke>\nif a < b then\n");
  });

  // Hard negatives: what the rule must keep doing.
  test("D52.4 (plain prose then the write's closers) stays refused, text kept", () => {
    neverCut("An invoke ends with\n</{D}invoke>\nand that is the whole call.\n");
    expect(outcome(live(`${head}An invoke ends with\n</{D}invoke>\nand that is the whole call.\n${tail}`)).calls).toEqual([]);
  });
  test("two lines of prose and a heading before the stray closer: still refused", () => {
    neverCut("Ends with\n</{D}invoke>\nthat is all.\n\n## Next\nmore text\n");
  });
  test("a command whose parameter closer is missing, then prose to the end: it runs", () => {
    const o = outcome(live(`<{D}tool_calls>\n<{D}invoke name="bash">\n<{D}parameter name="command" string="true">ls\n</{D}invoke>\n</{D}tool_calls>\nLet me look at the listing.`));
    expect(o.calls).toEqual([{ tool: "bash", input: { command: "ls" } }]);
  });
  test("a missing parameter closer, prose, then a further block: both calls run", () => {
    const o = outcome(live(`<{D}tool_calls>\n<{D}invoke name="bash">\n<{D}parameter name="command" string="true">ls\n</{D}invoke>\n</{D}tool_calls>\nNow reading:\n${block(inv("read", P("filePath", "/b")))}`));
    expect(o.calls).toEqual([
      { tool: "bash", input: { command: "ls" } },
      { tool: "read", input: { filePath: "/b" } },
    ]);
  });
  test("prose between two invokes of a block still open: both calls run", () => {
    const o = outcome(live(`<{D}tool_calls>\n${inv("read", P("filePath", "/a"))}\nAlso the second file:\n${inv("read", P("filePath", "/b"))}\n</{D}tool_calls>`));
    expect(o.calls).toEqual([
      { tool: "read", input: { filePath: "/a" } },
      { tool: "read", input: { filePath: "/b" } },
    ]);
  });
  test("a call in a block never closed, then prose to the end: it runs", () => {
    const o = outcome(live(`<{D}tool_calls>\n${inv("read", P("filePath", "/a"))}\nI'll wait for the result.`));
    expect(o.calls).toEqual([{ tool: "read", input: { filePath: "/a" } }]);
  });
});

describe("a <pre><code> costume with HTML's own attributes is refused", () => {
  // Finding 4 (severity: MISSED CALL, over-refusal). What is wrong: htmlAttributeUnread accepts only
  // class, style, id, lang, title, data-* and dir; every other HTML global attribute refuses the
  // block as carrying something a tool could mean. Prism, the most common highlighter, renders
  // `<pre class="language-bash" tabindex="0"><code class="language-bash">`; `translate="no"`,
  // `spellcheck="false"` are as common. None says anything about the run. Minimal input:
  // `<pre class="language-bash" tabindex="0"><code class="language-bash">ls -la</code></pre>` ->
  // no call, broken-markup. Suspected: src/parse/costume.ts HTML_ATTRIBUTES. Expected: bash
  // {command: "ls -la"} (as C52.n2), a non-HTML attribute (`workdir`, C52.4) still refused.
  // Fixed: every HTML global attribute (WHATWG 3.2.6: tabindex, translate, spellcheck, hidden, ...),
  // `role`, `aria-*`, `data-*` and the XML ones an XHTML page writes are HTML's own; anything else
  // (`workdir`, `cwd`, `timeout`, an event handler) still refuses the block.
  test("Prism's tabindex on <pre>: the call runs", () => {
    const o = outcome(`Listing it:\n<pre class="language-bash" tabindex="0"><code class="language-bash">ls -la</code></pre>\n`);
    expect(o.calls).toEqual([{ tool: "bash", input: { command: "ls -la" } }]);
  });
  test("translate=\"no\" on <code>: the call runs", () => {
    const o = outcome(`Listing it:\n<pre><code class="language-bash" translate="no">ls -la</code></pre>\n`);
    expect(o.calls).toEqual([{ tool: "bash", input: { command: "ls -la" } }]);
  });

  test("spellcheck, role and aria-label on <pre>/<code>: the call runs", () => {
    const o = outcome(`Listing it:\n<pre role="region" aria-label="code"><code class="language-bash" spellcheck="false">ls -la</code></pre>\n`);
    expect(o.calls).toEqual([{ tool: "bash", input: { command: "ls -la" } }]);
  });

  // Hard negatives.
  test("cwd on <pre> and onclick on <code> stay refused", () => {
    for (const attrs of [['pre', ' cwd="/srv/app"'], ['code', ' onclick="x()"']]) {
      const pre = attrs[0] === "pre" ? attrs[1] : "";
      const code = attrs[0] === "code" ? attrs[1] : "";
      const o = outcome(`Listing it:\n<pre${pre}><code class="language-bash"${code}>rm -rf build</code></pre>\n`);
      expect(o.calls).toEqual([]);
      expect(o.broken).toContain("broken-markup");
    }
  });
  test("workdir on <code> stays refused (C52.4)", () => {
    const o = outcome(`Listing it:\n<pre><code class="language-bash" workdir="/srv/app">rm -rf build</code></pre>\n`);
    expect(o.calls).toEqual([]);
    expect(o.broken).toContain("broken-markup");
  });
  test("class, id and dir=ltr run (C52.n2)", () => {
    const o = outcome(`Listing it:\n<pre class="x" id="y"><code class="language-bash" dir="ltr">ls -la</code></pre>\n`);
    expect(o.calls).toEqual([{ tool: "bash", input: { command: "ls -la" } }]);
  });
});

describe("the new costume refusals leave common shell lines alone (hard negatives)", () => {
  const shell = (code: string) => outcome(`Cleaning up:\n<bash>\n${code}\n</bash>\n`).calls;
  const xmlExec = (code: string) => outcome(`Cleaning up:\n<tool_call><tool_name>execute</tool_name><tool_args><language>bash</language><code>${code}</code></tool_args></tool_call>\n`).calls;
  for (const code of [
    "# clean the build\nrm -rf build",
    "$HOME/bin/x --flag",
    "$(which python) -V",
    "cat <<EOF\n$ not a prompt\nEOF",
    "cat > a.html <<EOF\n<!-- c -->\nEOF",
    'echo "<!-- x -->" > f.html',
    "sed -i 's/<!--.*-->//g' index.html",
    "grep -c x <<< '<!--'",
    "diff <(ls a) <(ls b)",
    "git clone git@github.com:org/repo.git",
    "PS1='$ ' bash",
  ]) {
    test(`runs: ${JSON.stringify(code)}`, () => expect(shell(code)).toEqual([{ tool: "bash", input: { command: code } }]));
  }
  test("a transcript line stays refused", () => expect(shell("$ ls")).toEqual([]));
  // Both XML readers (strict fast-xml-parser with htmlEntities, tolerant decodeHtmlReferences) decode alike.
  for (const [ref, char] of [["&#X2F;", "/"], ["&#x2F;", "/"], ["&#00000047;", "/"], ["&#x000002F;", "/"], ["&#128512;", "\u{1F600}"], ["&#x1F600;", "\u{1F600}"]] as const) {
    test(`XML costume decodes ${ref}`, () => expect(xmlExec(`echo a${ref}b`)).toEqual([{ tool: "bash", input: { command: `echo a${char}b` } }]));
  }
  test("XML costume: &amp;#47; is the text &#47;, decoded once", () => expect(xmlExec("echo &amp;#47;")).toEqual([{ tool: "bash", input: { command: "echo &#47;" } }]));
});
