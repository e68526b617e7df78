/**
 * Review 57 (rules). A code costume under the last camelCase word of a declared name: with a
 * `sandboxPython` tool declared (here taken out by policy, a reserved name), a `<python>` costume
 * may be meant for that sandbox, as it may for `sandbox_python` (D56.7), so it never runs as the
 * local bash (D57.2: no call, text kept, the nudge naming the tool); so does a name holding the word
 * first (`pythonVersion`, D57.7: the costume name as a whole word anywhere, diff review 57a), while a
 * name whose word only begins with it (`pythonic_lint`: the word is `pythonic`) leaves the costume
 * running as bash (D57.n2). A top-level `<pre>` block
 * ended by a foreign type-1 closer on a line that then holds another `<pre>` (`a</script>b<pre>`):
 * that `<pre>` starts no line, so it opens no block (commonmark.js), and a call on the next line
 * runs (D57.3); a `<pre>` opening a line after the block does open a new one, and the call there
 * is its text (D57.n3). Spread into build-fixtures.ts's list.
 */
import type { Fixture } from "./build-fixtures.ts";
import { bad, ls, none, ok } from "./fixture-kit.ts";

const hermesCall = '<tool_call>{"name":"bash","arguments":{"command":"echo ZQXJ7"}}</tool_call>';

export function review57Rules(): Fixture[] {
  const python = "<python>\nprint(2)\n</python>";
  return [
    { ...bad("D57.2", "costume-last-camelcase-word-of-a-declared-tool-no-call", python, "undeclared-tool", ["C04"]), reservedNames: ["sandboxPython"] },
    { ...ok("D57.n2", "costume-beside-a-tool-whose-word-only-begins-with-it-runs", python, [ls("C04", "python3 - <<'PYEOF'\nprint(2)\nPYEOF")]), reservedNames: ["pythonic_lint"] },
    { ...bad("D57.7", "costume-first-camelcase-word-of-a-declared-tool-no-call", python, "undeclared-tool", ["C04"]), reservedNames: ["pythonVersion"] },
    ok("D57.3", "call-after-a-pre-after-the-foreign-closer-on-a-pre-blocks-last-line-runs", `<pre>\na</script>b<pre>\n${hermesCall}\n`, [ls("O01", "echo ZQXJ7")], "<pre>\na</script>b<pre>\n"),
    none("D57.n3", "call-in-a-pre-block-opening-a-line-after-one-ended-by-a-foreign-closer-is-text", `<pre>\na</script>\n<pre>\n${hermesCall}\n`),
  ];
}
