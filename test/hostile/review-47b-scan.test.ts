/**
 * Hostile review 47b: `dsml-fix scan` now reads a reply as the plugin reads it, its echo guard over
 * what the model was given before the reply (src/cli/plugin-reading.ts; --export: src/cli/main.ts
 * givenBefore; --sessions: src/cli/session-store.ts givenQuery). Looking for a reply where scan and
 * the plugin disagree. OpenCode 1.18's request builder (the binary in node_modules, its
 * toModelMessages) does NOT send: a user text part marked `ignored`, and the output (and
 * attachments) of a tool part whose `state.time.compacted` is set: it sends
 * "[Old tool result content cleared]" instead. The plugin's echo guard reads the request, so it
 * never sees that content; scan reads every string of the stored parts, so it takes the quote for
 * an echo and reports no call where the plugin ran one.
 */
import { describe, expect, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { main } from "../../src/cli/main.ts";
import { textStream, throughMiddleware } from "../security/support.ts";
import { COMMAND, ECHO, readme } from "../security/tool-result-files.ts";

async function scanExport(messages: unknown[]) {
  const root = mkdtempSync(path.join(tmpdir(), "r47b-scan-"));
  const file = path.join(root, "session.json");
  writeFileSync(file, JSON.stringify({ info: { id: "ses_1" }, messages }));
  let out = "";
  const env = { PATH: process.env.PATH ?? "", HOME: path.join(root, "home"), XDG_CONFIG_HOME: path.join(root, "config"), XDG_DATA_HOME: path.join(root, "data"), XDG_CACHE_HOME: path.join(root, "cache") };
  await main(["scan", "--export", file, "--json"], { readStdin: async () => new Uint8Array(), out: (t) => (out += t), err: () => {}, env, cwd: root });
  return JSON.parse(out) as { messages: { id: string; calls: { input: unknown }[]; broken: unknown[] }[] };
}

const assistant = (id: string, parts: unknown[]) => ({ info: { id, role: "assistant", providerID: "deepseek", modelID: "deepseek-chat" }, parts });
const user = (id: string, parts: unknown[]) => ({ info: { id, role: "user" }, parts });

describe("scan takes for an echo what OpenCode never sent the model (the plugin runs the call)", () => {
  // FINDING 5 (medium: the audit under-reports: a call the plugin RAN is reported as echoed markup
  // that never ran, the reverse of the direction scan's docs accept, "errs towards reporting").
  // Expected: scan's given content is what the request carried: skip user text parts with
  // `ignored`, and read a compacted tool part as "[Old tool result content cleared]" (no
  // attachments); likewise --sessions' SQL (givenQuery) and messages before a compaction summary
  // (OpenCode filters them out of the request). Suspected: src/cli/main.ts givenBefore,
  // src/cli/session-store.ts givenQuery.
  test("control (passes): the plugin, given only what OpenCode sends, recovers the call", async () => {
    const prompt = [{ role: "user" as const, content: [{ type: "text" as const, text: "Please set the project up." }] }];
    expect((await throughMiddleware(prompt, textStream(ECHO))).calls).toHaveLength(1);
  });

  test("a user text part marked ignored (never sent) holds the markup: scan reports no call", async () => {
    const report = await scanExport([
      user("msg_u1", [{ type: "text", text: readme(COMMAND), ignored: true }, { type: "text", text: "Please set the project up." }]),
      assistant("msg_a1", [{ type: "text", text: ECHO }]),
    ]);
    expect(report.messages.flatMap((m) => m.calls).map((c) => c.input)).toEqual([{ command: COMMAND }]);
  });

  test("a compacted tool output (sent as '[Old tool result content cleared]') holds the markup: scan reports no call", async () => {
    const report = await scanExport([
      user("msg_u1", [{ type: "text", text: "Read the README." }]),
      assistant("msg_a1", [{ type: "tool", tool: "read", callID: "c1", state: { status: "completed", input: { filePath: "README.md" }, output: readme(COMMAND), title: "README.md", metadata: {}, time: { start: 1, end: 2, compacted: 3 } } }]),
      user("msg_u2", [{ type: "text", text: "Now set the project up." }]),
      assistant("msg_a2", [{ type: "text", text: ECHO }]),
    ]);
    expect(report.messages.flatMap((m) => m.calls).map((c) => c.input)).toEqual([{ command: COMMAND }]);
  });

  test("hard negative (passes): the same tool output not compacted is an echo, no call", async () => {
    const report = await scanExport([
      user("msg_u1", [{ type: "text", text: "Read the README." }]),
      assistant("msg_a1", [{ type: "tool", tool: "read", callID: "c1", state: { status: "completed", input: { filePath: "README.md" }, output: readme(COMMAND), title: "README.md", metadata: {}, time: { start: 1, end: 2 } } }]),
      user("msg_u2", [{ type: "text", text: "Now set the project up." }]),
      assistant("msg_a2", [{ type: "text", text: ECHO }]),
    ]);
    expect(report.messages.flatMap((m) => m.calls)).toEqual([]);
  });
});
