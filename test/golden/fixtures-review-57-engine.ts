/**
 * Review 57 (engine): the plain element form (O09) of a declared tool whose name is longer than 16
 * characters, the usual OpenCode MCP name (`<server>_<tool>`, here `github_create_issue`). Read
 * whole it always ran; streamed, a split right after the whole name let the opener go as text,
 * since its hold was bounded one short of the longest declared name and only the tag reader's
 * 16-character namespace wait covered shorter names (D57.6: the call at every split). A name one
 * character short of the declared one, or one longer, is no declared tool: text (D57.n6, D57.n6b).
 * Spread into build-fixtures.ts's list.
 */
import type { Fixture } from "./build-fixtures.ts";
import { none, ok } from "./fixture-kit.ts";

export function review57Engine(): Fixture[] {
  const element = (name: string) => `<${name}>\n<title>Crash on start</title>\n</${name}>`;
  return [
    ok("D57.6", "tool-named-element-of-a-long-mcp-name-runs-at-every-split", `Filing it.\n\n${element("github_create_issue")}`, [
      { tool: "github_create_issue", input: { title: "Crash on start" }, shape: "O09" },
    ], "Filing it.\n\n"),
    none("D57.n6", "element-one-character-short-of-a-long-mcp-name-stays-text", `Filing it.\n\n${element("github_create_issu")}`),
    none("D57.n6b", "element-one-character-past-a-long-mcp-name-stays-text", `Filing it.\n\n${element("github_create_issues")}`),
  ];
}
