/**
 * Review 56 (DSML, costumes): a parameter closer that closes no open value inside an invoke
 * refuses it, text kept, nudged: a page whose last line is the closer, then the write's own
 * closer, is never written cut (D56.1); a wrapped tool's closer inside an invoke closes its
 * wrapper and is no stray (D56.n1). An HTML costume holding a legacy named reference without its
 * `;` (`&gt`, which a page shows as `>`) is refused like a numeric one (D56.2); a `&` before no
 * reference stays code (D56.n2). A code class naming two languages is refused (D56.3); one
 * language named beside a class that names none runs (D56.n3). Spread into build-fixtures.ts's list.
 */
import type { Fixture } from "./build-fixtures.ts";
import { bad, ls, ok } from "./fixture-kit.ts";

const P = (name: string, value: string) => `<{D}parameter name="${name}" string="true">${value}</{D}parameter>`;
const inBlock = (tool: string, body: string) => `<{D}tool_calls>\n<{D}invoke name="${tool}">\n${body}\n</{D}invoke>\n</{D}tool_calls>`;
const pre = (classes: string, code: string) => `<pre><code class="${classes}">${code}</code></pre>`;

export function review56Dsml(): Fixture[] {
  const wrapped = `<{D}parameter name="edit">\n${P("filePath", "a.kt")}\n${P("oldString", "val a = 1")}\n${P("newString", "val a = 2")}\n</{D}parameter>`;
  return [
    bad("D56.1", "dsml-page-ending-with-the-closer-then-its-own-closer-no-call", inBlock("write", `${P("filePath", "a.md")}\n${P("content", "# DSML\nA value ends with\n</{D}parameter>\n")}`), "broken-markup", ["I04"]),
    ok("D56.n1", "dsml-wrapped-tool-closer-inside-an-invoke-runs", inBlock("edit", wrapped), [
      { tool: "edit", input: { filePath: "a.kt", oldString: "val a = 1", newString: "val a = 2" }, shape: "I02" },
    ]),
    bad("D56.2", "html-pre-code-legacy-reference-without-semicolon-no-call", pre("language-bash", "cd /tmp/scratch &gt/dev/null; rm -rf ./*"), "broken-markup", ["C03"]),
    ok("D56.n2", "html-pre-code-ampersand-before-no-reference-runs", pre("language-bash", "sleep 1 & wait && echo a&b"), [ls("C03", "sleep 1 & wait && echo a&b")]),
    bad("D56.3", "html-pre-code-class-naming-two-languages-no-call", pre("python language-bash", "ls -la"), "broken-markup", ["C03"]),
    ok("D56.n3", "html-pre-code-class-with-one-language-runs", pre("language-bash bash", "ls -la"), [ls("C03")]),
  ];
}
