/**
 * What scan says would happen is what the plugin does: no nudge and no "broken markup found" for a
 * reply that only quoted content it was given (src/plugin/retry-controller.ts correctionDue owes it
 * nothing), and nothing "would be recovered" on a model the plugin leaves alone by default
 * (providers ["auto"]: leak-prone model families only).
 */
import { describe, expect, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { main } from "../../src/cli/main.ts";
import { describeSessions, scanSessions } from "../../src/cli/sessions.ts";
import { opencodeBuiltinTools } from "../../src/tools/opencode-builtins.ts";
import { live } from "../golden/notation.ts";
import { attack, COMMAND, ECHO, readme } from "../security/tool-result-files.ts";

const truncated = live('<{D}tool_calls>\n<{D}invoke name="bash">\n<{D}parameter name="command" string="true">ls');

async function scanExport(messages: unknown[], json: boolean) {
  const root = mkdtempSync(path.join(tmpdir(), "dsml-verdicts-"));
  const file = path.join(root, "session.json");
  writeFileSync(file, JSON.stringify({ info: { id: "ses_1" }, messages }));
  let out = "";
  let err = "";
  const code = await main(["scan", "--export", file, ...(json ? ["--json"] : [])], { readStdin: async () => new Uint8Array(), out: (t) => (out += t), err: (t) => (err += t), env: { PATH: "" }, cwd: root });
  return { code, out, err };
}

const user = (id: string, text: string) => ({ info: { id, role: "user" }, parts: [{ type: "text", text }] });
const assistant = (id: string, text: string) => ({ info: { id, role: "assistant", providerID: "deepseek", modelID: "deepseek-chat" }, parts: [{ type: "text", text }] });

describe("a reply that only quoted given content: reported echoed, owed nothing", () => {
  test("--export: nudge none (JSON null), exit 0; the echoed span is still listed", async () => {
    const messages = [user("msg_01", readme(COMMAND)), assistant("msg_02", ECHO)];
    const text = await scanExport(messages, false);
    expect(text.out).toContain("message msg_02: recovered 0 call(s), 1 broken span(s), nudge: none");
    expect(text.code).toBe(0);
    const json = await scanExport(messages, true);
    expect(JSON.parse(json.out).messages[0]).toMatchObject({ nudge: null, broken: [{ reason: "echoed-markup" }] });
    expect(json.code).toBe(0);
  });

  test("hard negative: broken markup of the model's own beside a quote still exits 1 with its nudge", async () => {
    const r = await scanExport([user("msg_01", readme(COMMAND)), assistant("msg_02", `${ECHO}\n\nNow:\n${truncated}`)], true);
    const [message] = JSON.parse(r.out).messages;
    expect(message.nudge).not.toBeNull();
    expect(message.broken.map((b: { reason: string }) => b.reason)).toContain("echoed-markup");
    expect(r.code).toBe(1);
  });
});

describe("--sessions: a model outside the plugin's default scope", () => {
  const leak = `Running it now.\n${attack("ls")}`;
  const message = (id: string, providerID: string, modelID: string) => ({ info: { id, role: "assistant", providerID, modelID }, parts: [{ type: "text", text: leak }] });

  test("its leak is listed as left as written (outOfScope), counted as untouched, never as a call that would be recovered", () => {
    const report = scanSessions([{ id: "ses_1", title: "t", directory: "/w", messages: [message("msg_1", "deepseek", "deepseek-chat"), message("msg_2", "openai", "gpt-4o")] }], opencodeBuiltinTools, "/db");
    const openai = report.models.find((m) => m.provider === "openai")!;
    expect(openai).toMatchObject({ inScope: false, calls: 0, broken: 0, untouched: 1, messagesWithLeaks: 1, shapes: { recovered: {}, broken: {} } });
    expect(report.models.find((m) => m.provider === "deepseek")).toMatchObject({ inScope: true, calls: 1, untouched: 0 });
    expect(report.totals).toMatchObject({ calls: 1, untouched: 1, messagesWithLeaks: 2 });
    const leaks = report.sessions[0]!.models.flatMap((m) => m.leaks);
    expect(leaks.find((l) => l.message === "msg_2")).toMatchObject({ outOfScope: true });
    expect(leaks.find((l) => l.message === "msg_1")!.outOfScope).toBeUndefined();
    const text = describeSessions(report).join("\n");
    expect(text).toContain("openai/gpt-4o: 1 of 1 message(s) leaked; outside the plugin's default scope: 1 leaked call(s) or broken span(s) left as written");
    expect(text).toContain("    msg_2: left as written: call bash");
    expect(text).toContain("1 call(s) would be recovered, 0 broken span(s); 1 left as written on models outside the plugin's default scope");
    expect(text).toContain("outside the plugin's default scope (providers [\"auto\"]: leak-prone model families): openai/gpt-4o;");
  });

  test("hard negative: a leak-prone model on any provider is in scope (auto), and its leak would be recovered", () => {
    const report = scanSessions([{ id: "ses_1", title: "t", directory: "/w", messages: [message("msg_1", "openrouter", "qwen/qwen3-coder")] }], opencodeBuiltinTools, "/db");
    expect(report.models[0]).toMatchObject({ inScope: true, calls: 1, untouched: 0 });
    expect(describeSessions(report).join("\n")).not.toContain("outside the plugin's default scope");
  });
});
