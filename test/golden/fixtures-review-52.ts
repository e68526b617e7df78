/**
 * Review 52: DSML tags between and after a block's invokes (a parameter or an undeclared tool in the
 * tool-named spelling), a write whose page has a lone closer line then prose, a quoted call whose
 * page breaks its holder followed by a further call in any dialect, and costumes that are no
 * command (a terminal transcript, an HTML comment, an attribute a tool could mean) or that spell a
 * character by number. Spread into build-fixtures.ts's list.
 */
import type { Fixture } from "./build-fixtures.ts";
import { bad, none, ok } from "./fixture-kit.ts";

export function review52(): Fixture[] {
  return [...betweenInvokes(), ...quotedThenAnother(), ...costumes()];
}

const P = (k: string, v: string) => `<{D}parameter name="${k}" string="true">${v}</{D}parameter>`;
const inv = (tool: string, ...params: string[]) => `<{D}invoke name="${tool}">\n${params.join("\n")}\n</{D}invoke>`;
const block = (...items: string[]) => `<{D}tool_calls>\n${items.join("\n")}\n</{D}tool_calls>`;
const F = "```";

/** A block still open after a call: a tag named after a parameter refuses it; one named after an undeclared tool is reported. */
function betweenInvokes(): Fixture[] {
  const rmI11 = "<{D}bash>\n<{D}command>rm -rf ./*</{D}command>\n</{D}bash>";
  const search = "<{D}AgenticSearch>\n<{D}query>x</{D}query>\n</{D}AgenticSearch>";
  return [
    bad("D52.1", "dsml-tool-named-workdir-after-a-tool-named-call-in-its-open-block", block(rmI11, "<{D}workdir>/tmp/x</{D}workdir>"), "broken-markup", ["I02"]),
    bad("D52.2", "dsml-tool-named-workdir-after-an-invoke-in-its-open-block", block(inv("bash", P("command", "rm -rf ./*")), "<{D}workdir>/tmp/x</{D}workdir>"), "broken-markup", ["I02", "D08", "D08", "D08"]),
    bad("D52.3", "dsml-undeclared-tool-named-call-between-two-invokes", block(inv("read", P("filePath", "/a")), search, inv("read", P("filePath", "/b"))), "undeclared-tool", ["B06"], `${search}\n`, [
      { tool: "read", input: { filePath: "/a" }, shape: "D02" },
      { tool: "read", input: { filePath: "/b" }, shape: "D02" },
    ]),
    bad(
      "D52.4",
      "dsml-write-with-a-lone-invoke-closer-line-then-prose-then-its-closers",
      `<{D}tool_calls>\n<{D}invoke name="write">\n${P("filePath", "a.md")}\n<{D}parameter name="content" string="true">An invoke ends with\n</{D}invoke>\nand that is the whole call.\n</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`,
      "broken-markup",
      ["I04", "D08", "D08"],
    ),
  ];
}

/** A quoted write whose page breaks its fence: a further call right after it, in its block or in another dialect, is quoted too. */
function quotedThenAnother(): Fixture[] {
  const write = inv("write", P("filePath", "a.md"), P("content", `# Page\n${F}\nx\n`));
  const bash = inv("bash", P("command", "rm -rf build"));
  return [
    none("N52.1", "dsml-second-invoke-after-a-quoted-write-that-breaks-its-fence", `Example:\n\n${F}\n${block(write, bash)}\n${F}\n`),
    none("N52.2", "hermes-call-after-a-quoted-dsml-write-that-breaks-its-fence", `Example:\n\n${F}\n${block(write)}\n<tool_call>\n{"name": "bash", "arguments": {"command": "rm -rf build"}}\n</tool_call>\n${F}\n`),
    none("N52.3", "dsml-block-after-a-quoted-hermes-write-that-breaks-its-fence", `Example:\n\n${F}\n<tool_call>\n{"name": "write", "arguments": {"filePath": "a.md", "content": "x\\n${F}\\ny"}}\n</tool_call>\n${block(bash)}\n${F}\n`),
    ok("N52.n1", "dsml-call-after-prose-after-a-closed-quoted-write-runs", `Example:\n\n${F}\n${block(inv("write", P("filePath", "a.md"), P("content", "x")))}\n${F}\nNow for real:\n${block(inv("read", P("filePath", "/a")))}`, [
      { tool: "read", input: { filePath: "/a" }, shape: "D02" },
    ], `Example:\n\n${F}\n${block(inv("write", P("filePath", "a.md"), P("content", "x")))}\n${F}\nNow for real:\n`),
  ];
}

/** Costumes that are no command, and a character spelled by number in HTML. */
function costumes(): Fixture[] {
  const pre = (attrs: string, body: string) => `<pre><code class="language-bash"${attrs}>${body}</code></pre>`;
  return [
    bad("C52.1", "shell-costume-holding-a-terminal-transcript", "<shell>\n$ cat cleanup.sh\nrm -rf build\n</shell>", "broken-markup", ["C04"]),
    bad("C52.2", "pre-code-holding-a-prompt-and-its-output", pre("", "user@host:~$ make\nok"), "broken-markup", ["C03"]),
    bad("C52.3", "shell-costume-with-an-html-comment", "<shell>\n<!--\nrm -rf build\n-->\nls\n</shell>", "broken-markup", ["C04"]),
    bad("C52.4", "pre-code-with-a-workdir-attribute", pre(' workdir="/srv/app"', "rm -rf build"), "broken-markup", ["C03"]),
    bad("C52.5", "pre-code-with-a-reference-to-no-character", pre("", "echo &#0;"), "broken-markup", ["C03"]),
    ok("C52.6", "pre-code-with-a-numeric-character-reference", pre("", "rm -rf build&#47;cache"), [{ tool: "bash", input: { command: "rm -rf build/cache" }, shape: "C03" }]),
    ok("C52.n1", "shell-costume-with-parameter-expansion-and-a-comment-runs", "<shell>\n${CC:-cc} -o a a.c\n# build\n</shell>", [{ tool: "bash", input: { command: "${CC:-cc} -o a a.c\n# build" }, shape: "C04" }]),
    ok("C52.n2", "pre-code-with-html-attributes-runs", `<pre class="x" id="y"><code class="language-bash" dir="ltr">ls -la</code></pre>`, [{ tool: "bash", input: { command: "ls -la" }, shape: "C03" }]),
  ];
}
