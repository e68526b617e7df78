/**
 * Hostile review 49: `dsml-fix scan` against the plugin's own reading (src/cli/main.ts,
 * session-store.ts, given.ts, history-guard.ts, sessions.ts). Tests named FINDING fail on main
 * when written; the others are hard negatives (they pass, and guard a line that is easy to break).
 */
import { describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { main } from "../../src/cli/main.ts";
import { scanSessions } from "../../src/cli/sessions.ts";
import { opencodeBuiltinTools } from "../../src/tools/opencode-builtins.ts";
import { attack, COMMAND, ECHO, readme } from "../security/tool-result-files.ts";
import { createStore, opencodeBin } from "../cli/session-store.ts";

function scratch(): string {
  return mkdtempSync(path.join(tmpdir(), "r49-scan-"));
}

function isolatedEnv(root: string): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH ?? "", HOME: path.join(root, "home"), XDG_CONFIG_HOME: path.join(root, "config"), XDG_DATA_HOME: path.join(root, "data"), XDG_CACHE_HOME: path.join(root, "cache") };
}

async function run(argv: string[], root: string) {
  let out = "";
  let err = "";
  const code = await main(argv, { readStdin: async () => new Uint8Array(), out: (t) => (out += t), err: (t) => (err += t), env: isolatedEnv(root), cwd: root });
  return { code, out, err };
}

type Leak = { message: string; calls: number; echoed: number };

async function scanExport(messages: unknown[], json = true) {
  const root = scratch();
  const file = path.join(root, "session.json");
  writeFileSync(file, JSON.stringify({ info: { id: "ses_1" }, messages }));
  return run(["scan", "--export", file, ...(json ? ["--json"] : [])], root);
}

async function exportLeaks(messages: unknown[]): Promise<Leak[]> {
  const report = JSON.parse((await scanExport(messages)).out) as { messages: { id: string; calls: unknown[]; broken: { reason: string }[] }[] };
  return report.messages.map(({ id, calls, broken }) => ({ message: id, calls: calls.length, echoed: broken.filter((b) => b.reason === "echoed-markup").length }));
}

type Stored = { id: string; data: Record<string, unknown>; parts: Record<string, unknown>[] };

/** One session written as OpenCode 1.18.33 writes it (as test/hostile/review-47b-scan.test.ts does), scanned with --sessions through the real binary. */
async function scanStore(messages: Stored[], json = true) {
  const root = scratch();
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
  return run(["scan", "--sessions", ...(json ? ["--json"] : []), "--db", database, "--opencode", opencodeBin], root);
}

async function storeLeaks(messages: Stored[]): Promise<Leak[]> {
  const report = JSON.parse((await scanStore(messages)).out) as { sessions: { models: { leaks: { message: string; calls: unknown[]; broken: { reason: string }[] }[] }[] }[] };
  return report.sessions.flatMap((s) => s.models.flatMap((m) => m.leaks)).map(({ message, calls, broken }) => ({ message, calls: calls.length, echoed: broken.filter((b) => b.reason === "echoed-markup").length }));
}

const storedUser = (id: string, parts: Record<string, unknown>[]): Stored => ({ id, data: { role: "user" }, parts });
const storedAssistant = (id: string, parts: Record<string, unknown>[]): Stored => ({ id, data: { role: "assistant", finish: "stop" }, parts: [{ type: "step-start" }, ...parts] });
const exported = (stored: Stored) => ({ info: { id: stored.id, providerID: "deepseek", modelID: "deepseek-chat", ...stored.data }, parts: stored.parts });
const text = (t: string) => ({ type: "text", text: t });
const dataUrl = (mime: string, body: string) => `data:${mime};base64,${Buffer.from(body, "utf8").toString("base64")}`;

describe("--sessions and --export read the same session alike (given content the plugin's echo guard reads)", () => {
  // Fixed (was FINDING 1; missed refusal in the report, i.e. scan reports a call the plugin never ran; lowest
  // class, but it is the audit's trust claim). A user message's file part that OpenCode sends as a
  // file (any type but text/plain and directories, given.ts UNSENT_FILE_TYPES) counts as given
  // content in --export (given.ts givenOf: collectStrings(part), whose data: URL is decoded like the
  // plugin's echo guard decodes it), but --sessions never reads file parts: givenQuery
  // (src/cli/session-store.ts) selects only tool, compaction, subtask and non-assistant text parts.
  // So the same session reads as an echo with --export and as a recovered call with --sessions.
  // Suspected source: src/cli/session-store.ts givenQuery / storedPart (no `file` parts, no `url`).
  test("a README attached as a file part (application/json here) is given content for --sessions as for --export: both say echoed", async () => {
    const session: Stored[] = [
      storedUser("msg_01", [text("Set the project up as the attached notes say."), { type: "file", mime: "application/json", filename: "notes.json", url: dataUrl("application/json", JSON.stringify({ notes: readme(COMMAND) })) }]),
      storedAssistant("msg_02", [text(ECHO)]),
    ];
    const fromExport = await exportLeaks(session.map(exported));
    expect(fromExport).toEqual([{ message: "msg_02", calls: 0, echoed: 1 }]);
    expect(await storeLeaks(session)).toEqual(fromExport);
  }, 120_000);

  // Fixed (was FINDING 2; same class and source as FINDING 1). A completed tool part's `state.attachments`
  // (given.ts: collectStrings([state.output, state.attachments]); OpenCode sends them with the
  // result) are read by --export but never selected by givenQuery, so a quote of an attached text
  // file is an echo in --export and a recovered call in --sessions.
  // Suspected source: src/cli/session-store.ts givenQuery (no `$.state.attachments`).
  test("a tool result's text attachment is given content for --sessions as for --export: both say echoed", async () => {
    const attachment = { type: "file", mime: "text/markdown", filename: "README.md", url: dataUrl("text/markdown", readme(COMMAND)) };
    const session: Stored[] = [
      storedUser("msg_01", [text("Read the README.")]),
      storedAssistant("msg_02", [{ type: "tool", tool: "webfetch", callID: "c1", state: { status: "completed", input: {}, output: "fetched, see attachment", attachments: [attachment], title: "README.md", metadata: {}, time: { start: 1, end: 2 } } }]),
      storedUser("msg_03", [text("Now do it.")]),
      storedAssistant("msg_04", [text(ECHO)]),
    ];
    const fromExport = await exportLeaks(session.map(exported));
    expect(fromExport).toEqual([{ message: "msg_04", calls: 0, echoed: 1 }]);
    expect(await storeLeaks(session)).toEqual(fromExport);
  }, 120_000);
});

describe("--sessions reads only the file parts OpenCode sends", () => {
  // Hard negative: a text/plain file part is not sent as a file (OpenCode inlines its text as a
  // synthetic text part, absent here): neither reading takes it as given, so the call stands in both.
  test("hard negative: a text/plain file part alone is not given content: both say call", async () => {
    const session: Stored[] = [
      storedUser("msg_01", [text("Set the project up."), { type: "file", mime: "text/plain", filename: "notes.txt", url: dataUrl("text/plain", readme(COMMAND)) }]),
      storedAssistant("msg_02", [text(ECHO)]),
    ];
    const fromExport = await exportLeaks(session.map(exported));
    expect(fromExport).toEqual([{ message: "msg_02", calls: 1, echoed: 0 }]);
    expect(await storeLeaks(session)).toEqual(fromExport);
  }, 120_000);
});

describe("the history guard is built as the history is walked", () => {
  // Hard negative (passes on main): the guard grows by appending (history-guard.ts); content given
  // only AFTER a reply must never excuse that reply, and each later reply sees what came between.
  test("hard negative: a later user message holding the same markup does not turn an earlier reply's call into an echo; a later reply quoting a result in between is an echo", async () => {
    const leaks = await exportLeaks([
      exported(storedUser("msg_01", [text("hi")])),
      exported(storedAssistant("msg_02", [text(`Running:\n${attack(COMMAND)}`)])),
      exported(storedUser("msg_03", [text(readme(COMMAND))])),
      exported(storedAssistant("msg_04", [text(`Again:\n${attack("ls")}`), { type: "tool", tool: "read", callID: "c1", state: { status: "completed", input: {}, output: readme("pwd"), title: "x", metadata: {}, time: { start: 1, end: 2 } } }])),
      exported(storedUser("msg_05", [text("go on")])),
      exported(storedAssistant("msg_06", [text(`The file says:\n${attack("pwd")}`)])),
      exported(storedAssistant("msg_07", [text(`And the user said:\n${attack(COMMAND)}`)])),
    ]);
    expect(leaks).toEqual([
      { message: "msg_02", calls: 1, echoed: 0 },
      { message: "msg_04", calls: 1, echoed: 0 },
      { message: "msg_06", calls: 0, echoed: 1 },
      { message: "msg_07", calls: 0, echoed: 1 },
    ]);
  });
});

describe("what scan says would happen after a reply that only quoted given content", () => {
  // Fixed (was FINDING 3; report wrong, lowest class). The plugin owes a reply that only quoted given content
  // nothing: no correction, no wake (src/plugin/retry-controller.ts: `nudge === "echoed-markup"`
  // -> null; README: "never after one that only quoted content"). scan's human report still prints
  // "nudge: echoed-markup" for it, which reads as "the plugin would nudge the model", and exits 1
  // ("broken tool-call markup found") for a session where nothing is broken and nothing would be
  // sent. Expected: "nudge: none" for such a reply (and --json `nudge: null`).
  // Suspected source: src/cli/report.ts describe/report (prints the engine summary's reason as the nudge).
  test("a reply that only quoted given content is owed nothing: reported with 'nudge: none'", async () => {
    const r = await scanExport([exported(storedUser("msg_01", [text(readme(COMMAND))])), exported(storedAssistant("msg_02", [text(ECHO)]))], false);
    expect(r.out).toContain("message msg_02: recovered 0 call(s), 1 broken span(s)");
    expect(r.out).toContain("nudge: none");
    expect(r.out).not.toContain("nudge: echoed-markup");
  });
});

describe("--sessions: 'would be recovered' for a model the plugin leaves alone by default", () => {
  // Fixed (was FINDING 4; report wrong, lowest class). With default options (providers ["auto"]: leak-prone
  // model families only) the plugin does not touch an openai/gpt-4o reply at all (doctor reports
  // that route "off"); --sessions still tallies its leak under "call(s) would be recovered", the
  // same words it uses for a deepseek reply the plugin does repair. A user deciding whether the
  // plugin covers their model is told it does. Expected: a leak on a route the default scope leaves
  // off is not counted as "would be recovered" (or is marked as out of scope).
  // Suspected source: src/cli/sessions.ts scanSessions / describeSessions (no routeMode check).
  test("a leak on a model outside the default scope (openai/gpt-4o) is not a call that would be recovered", () => {
    const leak = `Running it now.\n${attack("ls")}`;
    const message = (id: string, providerID: string, modelID: string) => ({ info: { id, role: "assistant", providerID, modelID }, parts: [{ type: "text", text: leak }] });
    const report = scanSessions([{ id: "ses_1", title: "t", directory: "/w", messages: [message("msg_1", "deepseek", "deepseek-chat"), message("msg_2", "openai", "gpt-4o")] }], opencodeBuiltinTools, "/db");
    const tally = (provider: string) => report.models.find((m) => m.provider === provider)!;
    expect(tally("deepseek").calls).toBe(1); // the plugin repairs this one
    expect(tally("openai").calls).toBe(0); // the plugin leaves this route alone by default
  });
});

describe("--sessions says what it cannot judge, as --export does", () => {
  // Fixed (was FINDING 5; report incomplete, lowest class). A stored session holds neither the system prompt
  // (AGENTS.md, instructions) nor the tool declarations (an MCP tool's description), exactly like an
  // export: a call the model only quoted from them was refused by the plugin and is reported as a
  // call. --export says so (main.ts NOT_JUDGED: `notJudged` always in --json, a note line after a
  // text report holding a call; pinned by review-48-echo-scan); --sessions, read with the same echo
  // guard, says neither: its --json has no `notJudged`, its text no note.
  // Suspected source: src/cli/main.ts scanStoredSessions / src/cli/sessions.ts describeSessions.
  test("--sessions says what it cannot judge as --export does: notJudged in --json, the note in text when a call is reported", async () => {
    const session: Stored[] = [storedUser("msg_01", [text("Set the project up.")]), storedAssistant("msg_02", [text(ECHO)])];
    const json = JSON.parse((await scanStore(session)).out);
    expect(json.totals.calls).toBe(1);
    expect(json.notJudged).toEqual(["system-prompt", "tool-declarations"]);
    expect((await scanStore(session, false)).out).toContain("neither the system prompt nor the tool declarations");
  }, 120_000);
});
