/**
 * Review 48: the HTML `<pre><code class="language-bash">` costume (C02) decodes the block's
 * entities as HTML (`&amp;&amp;` is sent as `&&`) but sends the block's raw HTML elements as shell
 * code: syntax highlighting (`<span class="nb">rm</span>`), `<b>`, `<br>`, a comment, a costume
 * tag. Once entities are decoded, a raw `<b>` and an escaped `&lt;b&gt;` are one text, so the
 * command is neither what the page shows nor what the model typed. Every case runs whole, char by
 * char and at seeded random splits. Related: review 44 (`<command>` elements in the same costume,
 * now refused); this is the same reader with elements that are no parameter.
 */
import { describe, expect, test } from "bun:test";
import { outcome } from "../support/outcome.ts";

const pre = (code: string, lang = "bash") => `<pre><code class="language-${lang}">${code}</code></pre>`;
/** Whether a bash call ran whose command holds an HTML tag that the block wrote as markup. */
const sendsHtml = (input: string, tag: RegExp) => outcome(input).calls.some((c) => typeof c.input.command === "string" && tag.test(c.input.command));

describe("fixed: HTML elements inside a pre/code costume are refused, never sent to bash as code", () => {
  // Severity: wrong execution, medium (bash reads `<span`, `<br>`, `</b>` as redirections: the
  // command reads and truncates files named after the tags, e.g. `ls <br> pwd` writes ls's output
  // over a file named `pwd`; a highlighted Python block is sent to python3 with its spans).
  // Suspected: src/parse/costume.ts (the pre/code reader: decodes entities, keeps every other tag
  // as text). Expected: refused (broken-markup: a block holding HTML elements is a rendered page,
  // not code), never the tags in the command. Stripping the tags and running the rest would run
  // a highlighted example, which is no better.
  test("syntax-highlighting spans", () => {
    expect(sendsHtml(pre('<span class="nb">rm</span> -rf build'), /<span/)).toBe(false);
  });

  test("spans in a python block", () => {
    expect(sendsHtml(pre('<span class="kn">import</span> os\nos.remove(<span class="s">"a"</span>)', "python"), /<span/)).toBe(false);
  });

  test("a <br> line break becomes a redirection", () => {
    expect(sendsHtml(pre("ls <br> pwd"), /<br>/)).toBe(false);
  });

  test("an escaped &lt;b&gt; and a raw <b> are sent as one text", () => {
    expect(sendsHtml(pre("echo &lt;b&gt; <b>x</b>"), /<\/b>/)).toBe(false);
  });

  test("an HTML comment inside the code", () => {
    expect(sendsHtml(pre("cat a.txt<!-- the file -->\n"), /<!--/)).toBe(false);
  });

  test("a <shell> costume tag inside the block", () => {
    expect(sendsHtml(pre("<shell>rm -rf build</shell>"), /<shell>/)).toBe(false);
  });
});

describe("hard negatives (pass today)", () => {
  test("entities decoded, plain code runs", () => {
    expect(outcome(pre("ls &amp;&amp; pwd")).calls).toEqual([{ tool: "bash", input: { command: "ls && pwd" } }]);
    expect(outcome(pre("cat &lt;file")).calls).toEqual([{ tool: "bash", input: { command: "cat <file" } }]);
  });
  test("a <command> element inside the block is refused (review 44)", () => {
    expect(outcome(pre("\n<command>ls</command>\n")).calls).toEqual([]);
  });
  test("a language that is no shell or python, or no language: no call", () => {
    expect(outcome(pre("<shell>\nrm -rf build\n</shell>", "html")).calls).toEqual([]);
    expect(outcome("<pre><code>rm -rf build</code></pre>").calls).toEqual([]);
  });
});
