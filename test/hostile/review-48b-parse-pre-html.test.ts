/**
 * Review 48b (parse): `<pre><code>` holding raw HTML tags or comments is refused (src/parse/costume.ts
 * RAW_HTML). Attack: the other raw markup of a rendered page, and spellings of tags the check must
 * see. Every case runs whole, char by char and at seeded random splits.
 */
import { describe, expect, test } from "bun:test";
import { outcome } from "../support/outcome.ts";

const pre = (code: string) => `<pre><code class="language-bash">${code}</code></pre>`;

describe("fixed: a CDATA section or processing instruction inside the code is refused as raw HTML", () => {
  // Severity: low (bash gets `<![CDATA[rm -rf /]]>`, which a page renders as nothing (a bogus
  // comment in HTML) and which the model did not write as a command; bash reads it as a redirection
  // and fails, but the command is neither what the page shows nor code). Suspected:
  // src/parse/costume.ts RAW_HTML (`<!--` and elements only; `<![CDATA[` and `<?` are markup of the
  // page too). Expected: refused as the comment is.
  test("CDATA", () => {
    expect(outcome(pre("<![CDATA[rm -rf /]]>")).calls).toEqual([]);
  });
  test("processing instruction", () => {
    expect(outcome(pre("<?php echo 1; ?>")).calls).toEqual([]);
  });
});

describe("hard negatives: raw tags in any spelling are refused, a '<' that starts no tag stays code", () => {
  for (const [name, code] of [
    ["upper-case tag", '<SPAN CLASS="nb">rm</SPAN> -rf /'],
    ["namespaced tag", "<x:y>rm</x:y> -rf /"],
    ["attributes on the next line", '<span\nclass="nb">rm</span> -rf /'],
    ["a heading element", "<h1>rm</h1> -rf /"],
    ["a comment", "rm -rf build <!-- then / -->"],
  ] as const) {
    test(`${name}: refused, text whole`, () => {
      const o = outcome(pre(code));
      expect(o.calls).toEqual([]);
      expect(o.text).toBe(pre(code));
    });
  }

  test("comparisons and redirections stay code", () => {
    expect(outcome(pre("test 1 &lt; 2 && cat <file && echo a<b")).calls).toEqual([{ tool: "bash", input: { command: "test 1 < 2 && cat <file && echo a<b" } }]);
  });
});

describe("fx48b: page markup besides elements and comments is refused, text whole; shell redirections stay code", () => {
  for (const code of ["<!DOCTYPE html>ls", "<?xml version=\"1.0\"?>ls", "ls <![CDATA[x]]>"]) {
    test(JSON.stringify(code), () => {
      const input = pre(code);
      const o = outcome(input);
      expect(o.calls).toEqual([]);
      expect(o.text).toBe(input);
    });
  }
  test("`cat <file`, `diff <(a) <(b)`, `echo $((1<2))` stay code", () => {
    for (const code of ["cat &lt;file", "diff &lt;(ls a) &lt;(ls b)", "echo $((1&lt;2))"]) {
      expect(outcome(pre(code)).calls.length).toBe(1);
    }
  });
});
