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
import { Database } from "bun:sqlite";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { main } from "../../src/cli/main.ts";
import { textStream, throughMiddleware } from "../security/support.ts";
import { COMMAND, ECHO, readme } from "../security/tool-result-files.ts";
import { createStore, opencodeBin } from "../cli/session-store.ts";

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
  // Fixed (was FINDING 5, medium: the audit under-reported: a call the plugin RAN was reported as
  // echoed markup that never ran). scan read every stored string as given, also what OpenCode never
  // sends. Rule now (src/cli/given.ts, used by --export and, over givenQuery's rows, by --sessions):
  // scan's given content is what OpenCode 1.18 sends the model: user text parts marked `ignored`
  // are skipped, a compacted tool output is read as "[Old tool result content cleared]" (no
  // attachments), messages before the last finished compaction summary are dropped (or before its
  // tail_start_id), and a failed reply (not aborted) gives nothing.
  test("control (passes): the plugin, given only what OpenCode sends, recovers the call", async () => {
    const prompt = [{ role: "user" as const, content: [{ type: "text" as const, text: "Please set the project up." }] }];
    expect((await throughMiddleware(prompt, textStream(ECHO))).calls).toHaveLength(1);
  });

  test("fixed: a user text part marked ignored (never sent) holds the markup: scan reports the call", async () => {
    const report = await scanExport([
      user("msg_u1", [{ type: "text", text: readme(COMMAND), ignored: true }, { type: "text", text: "Please set the project up." }]),
      assistant("msg_a1", [{ type: "text", text: ECHO }]),
    ]);
    expect(report.messages.flatMap((m) => m.calls).map((c) => c.input)).toEqual([{ command: COMMAND }]);
  });

  test("fixed: a compacted tool output (sent as '[Old tool result content cleared]') holds the markup: scan reports the call", async () => {
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

describe("fixed: scan drops what compaction left out of the request", () => {
  // OpenCode 1.18's history (filterCompacted) starts at the compaction message a finished summary
  // answers (or at its part's tail_start_id, the turns compaction kept); older messages are not sent.
  const compacted = (summary: Record<string, unknown>, compaction: Record<string, unknown> = { type: "compaction", auto: true }) => [
    user("msg_u1", [{ type: "text", text: readme(COMMAND) }]),
    assistant("msg_a1", [{ type: "text", text: "I read it." }]),
    user("msg_u2", [compaction]),
    { info: { id: "msg_a2", role: "assistant", providerID: "deepseek", modelID: "deepseek-chat", parentID: "msg_u2", mode: "compaction", ...summary }, parts: [{ type: "text", text: "We set up nothing yet." }] },
    user("msg_u3", [{ type: "text", text: "Now set the project up." }]),
    assistant("msg_a3", [{ type: "text", text: ECHO }]),
  ];
  const calls = async (messages: unknown[]) => (await scanExport(messages)).messages.flatMap((m) => m.calls).map((c) => c.input);

  test("the markup was given before a finished compaction summary: scan reports the call", async () => {
    expect(await calls(compacted({ summary: true, finish: "stop" }))).toEqual([{ command: COMMAND }]);
  });
  test("hard negative: compaction kept the turns from that message (tail_start_id): an echo, no call", async () => {
    expect(await calls(compacted({ summary: true, finish: "stop" }, { type: "compaction", auto: true, tail_start_id: "msg_u1" }))).toEqual([]);
  });
  test("hard negative: a summary that failed (or never finished) compacts nothing: an echo, no call", async () => {
    expect(await calls(compacted({ summary: true, finish: "stop", error: { name: "APIError", data: { message: "x" } } }))).toEqual([]);
    expect(await calls(compacted({ summary: true }))).toEqual([]);
  });
  test("hard negative: an ordinary assistant message is no summary: an echo, no call", async () => {
    expect(await calls(compacted({ finish: "stop" }))).toEqual([]);
  });
});

describe("fixed: scan reads a tool part as OpenCode sends it", () => {
  const toolPart = (state: Record<string, unknown>) => ({ type: "tool", tool: "read", callID: "c1", state: { input: { filePath: "README.md" }, title: "README.md", metadata: {}, time: { start: 1, end: 2 }, ...state } });
  const calls = async (first: Record<string, unknown>, part: unknown) =>
    (await scanExport([
      user("msg_u1", [{ type: "text", text: "Read the README." }]),
      { info: { id: "msg_a1", role: "assistant", providerID: "deepseek", modelID: "deepseek-chat", ...first }, parts: [part] },
      user("msg_u2", [{ type: "text", text: "Now set the project up." }]),
      assistant("msg_a2", [{ type: "text", text: ECHO }]),
    ])).messages.flatMap((m) => m.calls).map((c) => c.input);
  const attachment = { type: "file", mime: "text/markdown", filename: "README.md", url: `data:text/markdown;base64,${Buffer.from(readme(COMMAND)).toString("base64")}` };

  test("a compacted tool output's attachments are not sent either: scan reports the call", async () => {
    expect(await calls({}, toolPart({ status: "completed", output: "see attachment", attachments: [attachment], time: { start: 1, end: 2, compacted: 3 } }))).toEqual([{ command: COMMAND }]);
  });
  test("a reply that failed (not aborted) is left out of the history with its tool results: scan reports the call", async () => {
    expect(await calls({ error: { name: "APIError", data: { message: "x" } } }, toolPart({ status: "completed", output: readme(COMMAND) }))).toEqual([{ command: COMMAND }]);
  });
  test("hard negative: an aborted reply with a tool part is sent: an echo, no call", async () => {
    expect(await calls({ error: { name: "MessageAbortedError", data: { message: "x" } } }, toolPart({ status: "completed", output: readme(COMMAND) }))).toEqual([]);
  });
  test("an error's text, and an interrupted tool's output sent in place of it, are given: echoes, no call", async () => {
    expect(await calls({}, toolPart({ status: "error", error: readme(COMMAND) }))).toEqual([]);
    expect(await calls({}, toolPart({ status: "error", error: "Tool execution aborted", metadata: { interrupted: true, output: readme(COMMAND) } }))).toEqual([]);
  });
  test("an interrupted tool's error text is not sent when its output is: scan reports the call", async () => {
    expect(await calls({}, toolPart({ status: "error", error: readme(COMMAND), metadata: { interrupted: true, output: "partial" } }))).toEqual([{ command: COMMAND }]);
  });
});

describe("fixed: --sessions reads the store as OpenCode sends it (the real binary's database)", () => {
  type Stored = { id: string; data: Record<string, unknown>; parts: Record<string, unknown>[] };
  /** One session written as OpenCode 1.18.33 writes it (test/cli/session-store.ts), each message's data and parts as given. */
  async function scanStore(messages: Stored[]) {
    const root = mkdtempSync(path.join(tmpdir(), "r47b-store-"));
    const database = path.join(root, "store.db");
    createStore(database, root);
    const db = new Database(database);
    try {
      let clock = 1_790_000_000_000;
      db.run(`INSERT OR IGNORE INTO project (id, worktree, time_created, time_updated, sandboxes) VALUES ('global', '/', ?, ?, '[]')`, [clock, clock]);
      db.run(`INSERT INTO session (id, project_id, slug, directory, title, version, time_created, time_updated) VALUES ('ses_s', 'global', 'fixture', '/w', 't', '1.18.33', ?, ?)`, [++clock, clock]);
      for (const m of messages) {
        const data = { time: { created: ++clock }, ...(m.data.role === "assistant" ? { providerID: "deepseek", modelID: "deepseek-chat", mode: "build", agent: "build", path: { cwd: "/w", root: "/" } } : { agent: "build" }), ...m.data };
        db.run(`INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES (?, 'ses_s', ?, ?, ?)`, [m.id, clock, clock, JSON.stringify(data)]);
        m.parts.forEach((part, i) => db.run(`INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES (?, ?, 'ses_s', ?, ?, ?)`, [`prt_${m.id}_${i}`, m.id, ++clock, clock, JSON.stringify(part)]));
      }
    } finally {
      db.close();
    }
    let out = "";
    const env = { PATH: process.env.PATH ?? "", HOME: path.join(root, "home"), XDG_CONFIG_HOME: path.join(root, "config"), XDG_DATA_HOME: path.join(root, "data"), XDG_CACHE_HOME: path.join(root, "cache") };
    await main(["scan", "--sessions", "--json", "--db", database, "--opencode", opencodeBin], { readStdin: async () => new Uint8Array(), out: (t) => (out += t), err: () => {}, env, cwd: root });
    const report = JSON.parse(out) as { sessions: { models: { leaks: { message: string; calls: unknown[]; broken: { reason: string }[] }[] }[] }[] };
    return report.sessions.flatMap((s) => s.models.flatMap((m) => m.leaks)).map(({ message, calls, broken }) => ({ message, calls: calls.length, echoed: broken.filter((b) => b.reason === "echoed-markup").length }));
  }
  const u = (id: string, parts: Record<string, unknown>[]): Stored => ({ id, data: { role: "user" }, parts });
  const a = (id: string, parts: Record<string, unknown>[], data: Record<string, unknown> = {}): Stored => ({ id, data: { role: "assistant", finish: "stop", ...data }, parts: [{ type: "step-start" }, ...parts] });
  const text = (t: string, more: Record<string, unknown> = {}) => ({ type: "text", text: t, ...more });
  const read = (output: string, time: Record<string, unknown> = {}) => ({ type: "tool", tool: "read", callID: "c1", state: { status: "completed", input: {}, output, title: "README.md", metadata: {}, time: { start: 1, end: 2, ...time } } });

  test("ignored text, a compacted tool output and messages before a compaction summary are not given; the same content sent is", async () => {
    const leaks = await scanStore([
      u("msg_01", [text(readme(COMMAND))]),
      a("msg_02", [text("Read.")]),
      u("msg_03", [{ type: "compaction", auto: true }]),
      a("msg_04", [text("Summary.")], { summary: true, parentID: "msg_03", mode: "compaction" }),
      u("msg_05", [text(readme(COMMAND), { ignored: true }), text("Go.")]),
      a("msg_06", [text(ECHO), read(readme(COMMAND), { compacted: 3 })]),
      u("msg_07", [text("Go on.")]),
      a("msg_08", [text(ECHO), read(readme(COMMAND))]),
      u("msg_09", [text("Again.")]),
      a("msg_10", [text(ECHO)]),
    ]);
    // msg_06: the README before the summary and the ignored copy were not sent: a call. msg_08: the
    // compacted output was sent as the placeholder: a call. msg_10: msg_08's output was sent: an echo.
    expect(leaks).toEqual([
      { message: "msg_06", calls: 1, echoed: 0 },
      { message: "msg_08", calls: 1, echoed: 0 },
      { message: "msg_10", calls: 0, echoed: 1 },
    ]);
  }, 120_000);
});
