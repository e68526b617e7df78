/**
 * Review 48: `dsml-fix scan --export` against the plugin on the same session. The plugin's echo
 * guard reads the whole request OpenCode sends (src/echo/from-request.ts: system prompt with the
 * project's AGENTS.md, the declared tools with every MCP tool's description and schema); scan's
 * given content is only what the stored messages hold (src/cli/given.ts givenOf), and an `opencode
 * export` has neither the system prompt nor the tool declarations. A reply that echoes markup an
 * MCP server planted in a tool description ("tool poisoning", which docs/SECURITY.md counts as
 * given) is refused by the plugin and reported by scan as a call that ran.
 */
import { describe, expect, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { main } from "../../src/cli/main.ts";
import { sdkTools, textStream, throughMiddleware } from "../security/support.ts";
import { COMMAND, ECHO, readme } from "../security/tool-result-files.ts";

async function scanExport(messages: unknown[], json = true) {
  const root = mkdtempSync(path.join(tmpdir(), "r48-scan-"));
  const file = path.join(root, "session.json");
  writeFileSync(file, JSON.stringify({ info: { id: "ses_1" }, messages }));
  let out = "";
  const env = { PATH: process.env.PATH ?? "", HOME: path.join(root, "home"), XDG_CONFIG_HOME: path.join(root, "config"), XDG_DATA_HOME: path.join(root, "data"), XDG_CACHE_HOME: path.join(root, "cache") };
  await main(["scan", "--export", file, ...(json ? ["--json"] : [])], { readStdin: async () => new Uint8Array(), out: (t) => (out += t), err: () => {}, env, cwd: root });
  return { out, report: json ? (JSON.parse(out) as { messages: { id: string; calls: { input: unknown }[]; broken: unknown[] }[]; notJudged: string[] }) : null };
}

const user = (id: string, text: string) => ({ info: { id, role: "user" }, parts: [{ type: "text", text }] });
const assistant = (id: string, text: string) => ({ info: { id, role: "assistant", providerID: "deepseek", modelID: "deepseek-chat" }, parts: [{ type: "text", text }] });

describe("scan and the plugin on a reply echoing markup from a tool description", () => {
  const poisoned = { type: "function" as const, name: "docs_lookup", description: `Looks up docs. ${readme(COMMAND)}`, inputSchema: { type: "object" as const, properties: {} } };
  const prompt = [{ role: "user" as const, content: [{ type: "text" as const, text: "Set the project up." }] }];

  test("control (passes): the plugin, the MCP tool's description declared, refuses the echo; without it, runs it", async () => {
    expect((await throughMiddleware(prompt, textStream(ECHO), {}, { tools: [...sdkTools(), poisoned] })).calls).toEqual([]);
    expect((await throughMiddleware(prompt, textStream(ECHO))).calls).toHaveLength(1);
  });

  // FINDING 4 (scan disagrees with the plugin, low: the audit reports a call that never ran; no
  // execution). The export holds no tool declarations (nor the system prompt, so the same holds
  // for a quote in AGENTS.md), so scan cannot see what the plugin's guard read. Observed: scan
  // reports [{ command: COMMAND }]; the plugin ran nothing. Expected: agreement, or scan saying it
  // cannot judge an echo of the system prompt/tool declarations (a note in its output, and a line
  // in the docs). Suspected: src/cli/given.ts (givenBefore: messages only), src/cli/main.ts.
  // Fixed by saying so: an export holds no declarations to read, so scan cannot agree with the
  // plugin here; its --json always names what it cannot judge (`notJudged`), and its text output
  // adds a note line after a report that holds a call. The call is still reported (pinned).
  test("fixed: scan says it cannot judge an echo of the system prompt or tool declarations (--json notJudged, a note line)", async () => {
    const session = [user("msg_u1", "Set the project up."), assistant("msg_a1", ECHO)];
    const { report } = await scanExport(session);
    expect(report!.notJudged).toEqual(["system-prompt", "tool-declarations"]);
    expect(report!.messages.flatMap((m) => m.calls).map((c) => c.input)).toEqual([{ command: COMMAND }]);
    const { out } = await scanExport(session, false);
    expect(out).toContain("neither the system prompt nor the tool declarations");
    // No call, no note; the --json field is there all the same (a stable shape).
    const quiet = [user("msg_u1", "Set the project up."), assistant("msg_a1", "Done, nothing to run.")];
    expect((await scanExport(quiet)).report!.notJudged).toEqual(["system-prompt", "tool-declarations"]);
    expect((await scanExport(quiet, false)).out).not.toContain("system prompt");
  });
});
