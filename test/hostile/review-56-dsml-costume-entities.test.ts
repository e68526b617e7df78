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
describe("finding 2: a legacy named reference without its `;` in an HTML costume", () => {
  test.failing("`&gt` in pre/code: never run raw", () => runsWhatIsShown(pre("cd /tmp/scratch &gt/dev/null; rm -rf ./*"), "cd /tmp/scratch >/dev/null; rm -rf ./*"));
  test.failing("`&lt` in pre/code: never run raw", () => runsWhatIsShown(pre("cd /tmp/scratch &lt/dev/null; rm -rf ./*"), "cd /tmp/scratch </dev/null; rm -rf ./*"));
  test.failing("`&amp&amp` in pre/code: never run raw", () => runsWhatIsShown(pre("make &amp&amp make install"), "make && make install"));
  test.failing("`&quot` in pre/code: never run raw", () => runsWhatIsShown(pre("echo &quotdone&quot"), 'echo "done"'));
  test.failing("the language named on the code's first line (C02): never run raw", () => runsWhatIsShown("<pre><code>bash\nmake &amp&amp make install\n</code></pre>", "make && make install"));
  test.failing("the XML execute costume's code (C01): never run raw", () => runsWhatIsShown(execute("make &amp&amp make install"), "make && make install"));
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
