/**
 * Review 55 (dialects): two rules of the older dialects. An alias is not taken when a declared name
 * carries it after a namespace separator: with an MCP server's `remote_execute_command` declared
 * (here taken out by policy, a reserved name), a bare `execute_command` may be meant for either
 * tool, so it is nobody's (D55.1); an unrelated namespaced tool leaves the alias running as bash
 * (D55.n1). A Python string never holds a raw line break, as in Python and JSON: LFM2's
 * `bash(command='ls<LF>rm -rf ~')` is refused (D55.2), the escape `\n` is read (D55.n2). Spread
 * into build-fixtures.ts's list.
 */
import type { Fixture } from "./build-fixtures.ts";
import { bad, ls, ok } from "./fixture-kit.ts";

export function review55Dialects(): Fixture[] {
  const hermes = '<tool_call>\n{"name": "execute_command", "arguments": {"command": "ls -la"}}\n</tool_call>';
  const lfm2 = (body: string) => `<|tool_call_start|>[${body}]<|tool_call_end|>`;
  return [
    { ...bad("D55.1", "alias-bare-name-of-a-declared-namespaced-tool-no-call", hermes, "undeclared-tool", ["O01"]), reservedNames: ["remote_execute_command"] },
    { ...ok("D55.n1", "alias-beside-an-unrelated-namespaced-tool-runs", hermes, [ls("A01")]), reservedNames: ["remote_fetch_url"] },
    bad("D55.2", "lfm2-string-holding-a-raw-line-break-no-call", lfm2("bash(command='ls\nrm -rf ~')"), "broken-markup", ["O08"]),
    ok("D55.n2", "lfm2-string-with-an-escaped-line-break-runs", lfm2("bash(command='ls\\nrm -rf ~')"), [ls("O08", "ls\nrm -rf ~")]),
  ];
}
