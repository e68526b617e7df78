/**
 * Review 56 (rules): a code costume under the bare name of a declared namespaced tool. With a
 * Jupyter MCP server's `execute_ipython` declared as OpenCode names it (`jupyter_execute_ipython`,
 * here taken out by policy, a reserved name), an `<execute_ipython>` costume may be meant for that
 * sandbox, so it never runs as the local bash (D56.7: no call, text kept, the nudge naming the
 * tool), as an alias is not taken in that case (D55.1); an unrelated namespaced tool of the same
 * server leaves the costume running as bash (D56.n7). Spread into build-fixtures.ts's list.
 */
import type { Fixture } from "./build-fixtures.ts";
import { bad, ls, ok } from "./fixture-kit.ts";

export function review56Rules(): Fixture[] {
  const ipython = "<execute_ipython>\nprint(2)\n</execute_ipython>";
  return [
    { ...bad("D56.7", "costume-bare-name-of-a-declared-namespaced-tool-no-call", ipython, "undeclared-tool", ["C04"]), reservedNames: ["jupyter_execute_ipython"] },
    { ...ok("D56.n7", "costume-beside-an-unrelated-namespaced-tool-runs", ipython, [ls("C04", "python3 - <<'PYEOF'\nprint(2)\nPYEOF")]), reservedNames: ["jupyter_list_notebooks"] },
  ];
}
