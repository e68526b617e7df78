/**
 * Review 56, costumes (hostile, tests only): HTML costumes (`<pre><code class="language-bash">`,
 * `<pre><code>bash`, the XML execute costume's `<code>`) are decoded "as a page shows them"
 * (PATTERNS, Entities): the five named references with their `;` and every numeric one; a numeric
 * one without its `;` is refused (review 52: "a `&#` left raw reaches bash as `&`, run in the
 * background"). HTML also decodes the legacy named references WITHOUT their `;` in text
 * (`&amp`, `&lt`, `&gt`, `&quot`: WHATWG HTML, named character reference state), so a page shows
 * `&gt/dev/null` as `>/dev/null`; here they are kept raw and run.
 *
 * Every outcome runs whole, char by char and at seeded random splits (test/support/outcome.ts);
 * those agree today, so each failing test fails on the call, not on split dependence.
 */
import { describe, expect, test } from "bun:test";
import { outcome } from "../support/outcome.ts";

const pre = (code: string) => `<pre><code class="language-bash">${code}</code></pre>`;
const execute = (code: string) => `<tool_call><tool_name>execute</tool_name><tool_args><language>sh</language><code>${code}</code></tool_args></tool_call>`;

/** Runs what the page shows (`shown`), or is refused with its text kept: never the raw reference. */
function runsWhatIsShown(input: string, shown: string) {
  const o = outcome(input);
  if (o.calls.length === 0) {
    expect(o.broken).toContain("broken-markup");
    expect(o.text).toBe(input);
  } else expect(o.calls).toEqual([{ tool: "bash", input: { command: shown } }]);
}

// Finding 2 (severity: WRONG EXECUTION, a command that is neither what the page shows nor one
// command). What is wrong: in an HTML costume a legacy named reference without its `;` (`&gt`,
// `&lt`, `&amp`, `&quot`) is left raw, where the page shows the character. Raw, bash reads its `&`
// as "run in the background": `cd /tmp/scratch &gt/dev/null; rm -rf ./*` (the page:
// `cd /tmp/scratch >/dev/null; rm -rf ./*`, clearing the scratch directory) runs `cd` in a
// background subshell, then `gt/dev/null`, then `rm -rf ./*` in the session's own directory.
// The numeric analogue (`&#62` without `;`) is refused since review 52 for exactly this reason.
// Minimal input: <pre><code class="language-bash">cd /tmp/scratch &gt/dev/null; rm -rf ./*</code></pre>
// Today: bash {command: "cd /tmp/scratch &gt/dev/null; rm -rf ./*"} runs.
// Expected: refused (broken-markup, text kept) as `&#62` is, or decoded as the page shows it.
// Suspected: src/parse/values.ts decodeHtmlReferences (REFERENCE's named branch needs the `;`,
// so `&gt` is no reference to it and passes through untouched).
// Fixed: a legacy name (WHATWG HTML's 106 names a page decodes without `;`: `&amp`, `&lt`, `&gt`,
// `&quot`, `&copy`, `&nbsp`, ...) without its `;`, the letters after `&` starting with one, refuses
// the costume (broken-markup, text kept), like the numeric case (src/parse/html-references.ts).
// References with their `;` decode as before; a `&` before no legacy name stays code.
describe("finding 2: a legacy named reference without its `;` in an HTML costume", () => {
  test("`&gt` in pre/code: never run raw", () => runsWhatIsShown(pre("cd /tmp/scratch &gt/dev/null; rm -rf ./*"), "cd /tmp/scratch >/dev/null; rm -rf ./*"));
  test("`&lt` in pre/code: never run raw", () => runsWhatIsShown(pre("cd /tmp/scratch &lt/dev/null; rm -rf ./*"), "cd /tmp/scratch </dev/null; rm -rf ./*"));
  test("`&amp&amp` in pre/code: never run raw", () => runsWhatIsShown(pre("make &amp&amp make install"), "make && make install"));
  test("`&quot` in pre/code: never run raw", () => runsWhatIsShown(pre("echo &quotdone&quot"), 'echo "done"'));
  test("the language named on the code's first line (C02): never run raw", () => runsWhatIsShown("<pre><code>bash\nmake &amp&amp make install\n</code></pre>", "make && make install"));
  test("the XML execute costume's code (C01): never run raw", () => runsWhatIsShown(execute("make &amp&amp make install"), "make && make install"));
});

describe("finding 2, hard negatives (pass today)", () => {
  test("references with their `;` are decoded and run (C03)", () => {
    expect(outcome(pre("make &amp;&amp; make install")).calls).toEqual([{ tool: "bash", input: { command: "make && make install" } }]);
  });
  test("a numeric reference without its `;` is refused, text kept (review 52)", () => {
    const input = pre("cd /tmp/scratch &#62/dev/null; rm -rf ./*");
    const o = outcome(input);
    expect(o.calls).toEqual([]);
    expect(o.text).toBe(input);
  });
  test("a bare `&` and `&&` are code, run as written", () => {
    expect(outcome(pre("sleep 1 & wait && echo ok")).calls).toEqual([{ tool: "bash", input: { command: "sleep 1 & wait && echo ok" } }]);
  });
  test("`&` before a word that names no reference is code (`a&b`)", () => {
    expect(outcome(pre("echo a&b")).calls).toEqual([{ tool: "bash", input: { command: "echo a&b" } }]);
  });
  test("a language tag costume is never decoded: `&gt` there is the model's text", () => {
    expect(outcome("<shell>\necho a &gt b\n</shell>").calls).toEqual([{ tool: "bash", input: { command: "echo a &gt b" } }]);
  });
});

describe("finding 2, the rule's edges", () => {
  const refused = (input: string) => {
    const o = outcome(input);
    expect(o.calls).toEqual([]);
    expect(o.broken).toEqual(["broken-markup"]);
    expect(o.text).toBe(input);
  };
  test("the other legacy names HTML decodes without `;` (`&copy`, `&nbsp`, `&AMP`, `&frac12`) are refused", () => {
    refused(pre("echo &copy 2025"));
    refused(pre("echo a&nbspb"));
    refused(pre("make &AMP&AMP make install"));
    refused(pre("echo &frac12"));
  });
  // The cost: HTML reads the longest legacy name the letters start with, so `&notes` shows as `¬es`;
  // the model may have meant a background job then `notes`. Which one is unknowable: refused.
  test("cost: letters after `&` that start with a legacy name (`&notes`) are refused", () => refused(pre("sleep 1 &notes")));
  test("a legacy name without `;` in the execute costume's other fields refuses it too", () => refused(execute("ls").replace("<language>sh</language>", "<language>sh&amp</language>")));
  test("hard negative: a `&` before a word no legacy name starts (`&Amp`, `&x`, `&ls`) is code, run as written", () => {
    expect(outcome(pre("true &ls")).calls).toEqual([{ tool: "bash", input: { command: "true &ls" } }]);
    expect(outcome(pre("echo &Amp &x")).calls).toEqual([{ tool: "bash", input: { command: "echo &Amp &x" } }]);
  });
  test("hard negative: `&>/dev/null` and `&&` are code", () => {
    expect(outcome(pre("make &>/dev/null && echo ok")).calls).toEqual([{ tool: "bash", input: { command: "make &>/dev/null && echo ok" } }]);
  });
  test("hard negative: the five names with their `;` decode, in the execute costume too", () => {
    expect(outcome(pre("echo &quot;a&quot; &lt;in &gt;out &apos;b&apos;")).calls).toEqual([{ tool: "bash", input: { command: `echo "a" <in >out 'b'` } }]);
    expect(outcome(execute("make &amp;&amp; make install")).calls).toEqual([{ tool: "bash", input: { command: "make && make install" } }]);
  });
});

// Suspicion checked beside finding 2 (the fixer's brief): `class="python language-bash"` took its
// first class token, so bash code ran under python3 (and `class="bash language-python"` ran Python
// code under bash: `import os` is ImageMagick's screenshot command there). Severity: wrong execution.
// Fixed: class tokens (with a `language-`/`lang-` prefix or none) naming two languages refuse the
// block (broken-markup, text kept, C03), as a code interpreter's disagreeing lang and language do
// (golden A40.7); so does a class naming one language and a first line naming another (C02).
describe("a code class naming two languages", () => {
  const refused = (input: string) => {
    const o = outcome(input);
    expect(o.calls).toEqual([]);
    expect(o.broken).toEqual(["broken-markup"]);
    expect(o.text).toBe(input);
  };
  test("`python language-bash`: refused, never run under python3", () => refused('<pre><code class="python language-bash">ls -la</code></pre>'));
  test("`bash language-python`: refused, never run under bash", () => refused('<pre><code class="bash language-python">import os</code></pre>'));
  test("`language-bash lang-py`: refused", () => refused('<pre><code class="language-bash lang-py">ls -la</code></pre>'));
  test("a class naming python and a first line naming bash (C02): refused", () => refused('<pre><code class="hljs language-python">bash\nls -la</code></pre>'));
  test("hard negative: one language named twice, or beside a class that names none, runs", () => {
    expect(outcome('<pre><code class="language-bash bash">ls -la</code></pre>').calls).toEqual([{ tool: "bash", input: { command: "ls -la" } }]);
    expect(outcome('<pre><code class="language-bash hljs">ls -la</code></pre>').calls).toEqual([{ tool: "bash", input: { command: "ls -la" } }]);
    expect(outcome('<pre><code class="hljs language-bash">bash\nls -la</code></pre>').calls).toEqual([{ tool: "bash", input: { command: "ls -la" } }]);
  });
});
