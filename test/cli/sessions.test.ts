import { describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { spawnSync } from "node:child_process";
import { main } from "../../src/cli/main.ts";
import { SESSION_QUERY } from "../../src/cli/session-store.ts";
import { block, live } from "../golden/notation.ts";
import { runOpencode, setup } from "../e2e/harness.ts";
import { addSessions, createStore, opencodeBin, type FixtureSession } from "./session-store.ts";

const repoRoot = path.join(import.meta.dir, "..", "..");
const bin = path.join(repoRoot, "bin", "dsml-fix.js");
const recoverable = live(block("tool_calls", [["bash", [["command", "echo secret-token-123"]]]]));
const undeclared = live(block("tool_calls", [["launch_rockets", [["when", "now"]]]]));
const truncated = live('<{D}tool_calls>\n<{D}invoke name="bash">\n<{D}parameter name="command" string="true">ls');
const hermes = '<tool_call>\n{"name": "read", "arguments": {"filePath": "/etc/hosts"}}\n</tool_call>';

function scratch(): string {
  return mkdtempSync(path.join(tmpdir(), "dsml-sessions-"));
}

async function run(argv: string[], env: NodeJS.ProcessEnv, cwd = "/") {
  let out = "";
  let err = "";
  const code = await main(argv, { readStdin: async () => new Uint8Array(), out: (t) => (out += t), err: (t) => (err += t), env, cwd });
  return { code, out, err };
}

/** Rows as SESSION_QUERY returns them: one per text part of an assistant message (text null: a message without one). */
type Row = { sessionID: string; title: string; directory: string; messageID: string; providerID: string; modelID: string; text: string | null };
const row = (sessionID: string, directory: string, messageID: string, model: string, text: string | null): Row => {
  const [providerID, modelID] = model.split("/") as [string, string];
  return { sessionID, title: `title of ${sessionID}`, directory, messageID, providerID, modelID, text };
};

/** A stand-in for the opencode binary: records its arguments and environment, prints the rows (or fails). */
function fakeOpencode(dir: string, rows: Row[] | string, exitCode = 0, stderr = "") {
  const rowsFile = path.join(dir, "rows.json");
  writeFileSync(rowsFile, typeof rows === "string" ? rows : JSON.stringify(rows, null, 2));
  const script = path.join(dir, "opencode");
  const calls = path.join(dir, "calls.json");
  writeFileSync(
    script,
    `#!/usr/bin/env node\nconst fs = require("fs");\nfs.appendFileSync(${JSON.stringify(calls)}, JSON.stringify({ argv: process.argv.slice(2), db: process.env.OPENCODE_DB ?? null }) + "\\n");\n` +
      `process.stderr.write(${JSON.stringify(stderr)});\nprocess.stdout.write(fs.readFileSync(${JSON.stringify(rowsFile)}, "utf8"));\nprocess.exit(${exitCode});\n`,
  );
  chmodSync(script, 0o755);
  const database = path.join(dir, "opencode.db");
  writeFileSync(database, "");
  const recorded = () => readFileSync(calls, "utf8").trim().split("\n").map((l) => JSON.parse(l) as { argv: string[]; db: string | null });
  return { script, database, recorded, env: { PATH: process.env.PATH ?? "" } };
}

describe("dsml-fix scan --sessions", () => {
  test("reports per session and model: calls that would be recovered and broken spans, with shape ids and no argument values; exit 1", async () => {
    const dir = scratch();
    const fake = fakeOpencode(dir, [
      row("ses_a", "/work/app", "msg_1", "fireworks/deepseek-v3p2", `Let me look.\n${recoverable}`),
      row("ses_a", "/work/app", "msg_1", "fireworks/deepseek-v3p2", "second text part"),
      row("ses_a", "/work/app", "msg_2", "fireworks/deepseek-v3p2", truncated),
      row("ses_a", "/work/app", "msg_3", "qwen/qwen3-coder", hermes),
      row("ses_a", "/work/app", "msg_4", "qwen/qwen3-coder", null),
      row("ses_b", "/work/other", "msg_5", "fireworks/deepseek-v3p2", "all fine"),
    ]);
    const r = await run(["scan", "--sessions", "--json", "--db", fake.database, "--opencode", fake.script], fake.env);
    expect(r.err).toBe("");
    expect(r.code).toBe(1);
    const report = JSON.parse(r.out);
    // Text after a leaked call reads as the model inventing the call's result: the parser strips it.
    expect(report.totals).toEqual({ sessions: 2, sessionsWithLeaks: 1, messages: 5, messagesWithLeaks: 3, calls: 2, broken: 1, stripped: 1, nearMisses: 0, untouched: 0 });
    expect(report.sessions).toHaveLength(1);
    expect(report.sessions[0]).toMatchObject({ id: "ses_a", title: "title of ses_a", directory: "/work/app" });
    const [deepseek, qwen] = report.sessions[0].models;
    expect(deepseek).toMatchObject({ provider: "fireworks", model: "deepseek-v3p2", messages: 2, messagesWithLeaks: 2, calls: 1, broken: 1 });
    expect(deepseek.shapes).toEqual({ recovered: { D02: 1 }, broken: { S02: 1 } });
    expect(deepseek.leaks).toEqual([
      { message: "msg_1", calls: [{ tool: "bash", shape: "D02" }], broken: [], stripped: [{ kind: "fabricated-result" }] },
      { message: "msg_2", calls: [], broken: [{ shape: "S02", reason: "truncated-call" }], stripped: [] },
    ]);
    expect(qwen).toMatchObject({ provider: "qwen", model: "qwen3-coder", messages: 2, messagesWithLeaks: 1, calls: 1, broken: 0 });
    expect(qwen.shapes.recovered).toEqual({ O01: 1 });
    // Across sessions: the clean session's message counts toward its model.
    expect(report.models.find((m: { model: string }) => m.model === "deepseek-v3p2")).toMatchObject({ messages: 3, messagesWithLeaks: 2 });
    // History may hold secrets: only tool names and shape ids leave the scan.
    expect(r.out).not.toContain("secret-token-123");
    expect(r.out).not.toContain("/etc/hosts");

    const human = await run(["scan", "--sessions", "--db", fake.database, "--opencode", fake.script], fake.env);
    expect(human.code).toBe(1);
    expect(human.out).toContain('session ses_a "title of ses_a" (/work/app)');
    expect(human.out).toContain("  fireworks/deepseek-v3p2: 2 of 2 message(s) leaked; 1 call(s) would be recovered [D02], 1 broken span(s) [S02], 1 stripped");
    expect(human.out).toContain("    msg_1: call bash (D02), stripped 1");
    expect(human.out).toContain("    msg_2: broken S02 (truncated-call)");
    expect(human.out).toContain("  qwen/qwen3-coder: 1 of 2 message(s) leaked; 1 call(s) would be recovered [O01], 0 broken span(s)");
    expect(human.out).toContain("scanned 2 session(s), 5 assistant message(s)");
    expect(human.out).not.toContain("ses_b");
    expect(human.out).not.toContain("secret-token-123");
  });

  test("near misses: markup quoted in code or too partial to be a call is counted, listed, and never a leak (exit 0)", async () => {
    const dir = scratch();
    const quoted = `The format looks like this:\n\n\`\`\`\n${recoverable}\n\`\`\`\n`;
    const inline = "A call starts with `<tool_call>` and a JSON object.";
    const fake = fakeOpencode(dir, [
      row("ses_a", "/work/app", "msg_1", "fireworks/deepseek-v3p2", quoted),
      row("ses_a", "/work/app", "msg_2", "fireworks/deepseek-v3p2", inline),
      row("ses_a", "/work/app", "msg_3", "fireworks/deepseek-v3p2", "prose with a < b and [links]"),
      row("ses_b", "/work/other", "msg_4", "fireworks/deepseek-v3p2", `Also \`<tool_call>\` in prose.\n${recoverable}`),
    ]);
    const r = await run(["scan", "--sessions", "--json", "--db", fake.database, "--opencode", fake.script], fake.env);
    const report = JSON.parse(r.out);
    // The fenced block's wrapper and invoke openers, the inline <tool_call>, the one beside a real leak.
    expect(report.totals).toMatchObject({ messagesWithLeaks: 1, calls: 1, stripped: 0, nearMisses: 4 });
    expect(report.sessions.map((s: { id: string }) => s.id)).toEqual(["ses_b"]);
    expect(report.sessions[0].models[0].leaks).toEqual([{ message: "msg_4", calls: [{ tool: "bash", shape: "D02" }], broken: [], stripped: [], nearMisses: 1 }]);
    const human = await run(["scan", "--sessions", "--db", fake.database, "--opencode", fake.script], fake.env);
    expect(human.out).toContain("    msg_4: call bash (D02), near misses 1");
    expect(human.out).toContain("4 near miss(es): tool-call markup left as text");

    const quietDir = scratch();
    const onlyQuoted = fakeOpencode(quietDir, [row("ses_a", "/work/app", "msg_1", "fireworks/deepseek-v3p2", quoted)]);
    const clean = await run(["scan", "--sessions", "--db", onlyQuoted.database, "--opencode", onlyQuoted.script], onlyQuoted.env);
    expect(clean.code).toBe(0);
    expect(clean.out).toContain("no leaked tool-call markup");
    expect(clean.out).toContain("2 near miss(es)");
  });

  test("a clean store exits 0; --tools changes what counts as a recoverable call", async () => {
    const dir = scratch();
    const fake = fakeOpencode(dir, [row("ses_a", "/w", "msg_1", "deepseek/deepseek-chat", "Here is how: `ls -la`."), row("ses_a", "/w", "msg_2", "deepseek/deepseek-chat", undeclared)]);
    const all = await run(["scan", "--sessions", "--db", fake.database, "--opencode", fake.script], fake.env);
    expect(all.code).toBe(1);
    expect(all.out).toContain("broken B06 (undeclared-tool)");
    const clean = fakeOpencode(scratch(), [row("ses_a", "/w", "msg_1", "deepseek/deepseek-chat", "no markup here")]);
    const r = await run(["scan", "--sessions", "--db", clean.database, "--opencode", clean.script], clean.env);
    expect(r.code).toBe(0);
    expect(r.out).toContain("no leaked tool-call markup");
    const empty = fakeOpencode(scratch(), []);
    const none = await run(["scan", "--sessions", "--json", "--db", empty.database, "--opencode", empty.script], empty.env);
    expect(none.code).toBe(0);
    expect(JSON.parse(none.out).totals.sessions).toBe(0);
    const narrowed = fakeOpencode(scratch(), [row("ses_a", "/w", "msg_1", "deepseek/deepseek-chat", recoverable)]);
    const readOnly = JSON.parse((await run(["scan", "--sessions", "--json", "--tools", "read", "--db", narrowed.database, "--opencode", narrowed.script], narrowed.env)).out);
    expect(readOnly.totals).toMatchObject({ calls: 0, broken: 1 });
  });

  test("--dir keeps the sessions of DIR and below (not a sibling that shares its prefix), relative to the working directory", async () => {
    const fake = fakeOpencode(scratch(), [
      row("ses_in", "/work/app", "msg_1", "deepseek/deepseek-chat", recoverable),
      row("ses_below", "/work/app/pkg", "msg_2", "deepseek/deepseek-chat", recoverable),
      row("ses_sibling", "/work/app2", "msg_3", "deepseek/deepseek-chat", recoverable),
    ]);
    const r = await run(["scan", "--sessions", "--json", "--dir", "app", "--db", fake.database, "--opencode", fake.script], fake.env, "/work");
    const report = JSON.parse(r.out);
    expect(report.directory).toBe("/work/app");
    expect(report.sessions.map((s: { id: string }) => s.id)).toEqual(["ses_in", "ses_below"]);
    const elsewhere = await run(["scan", "--sessions", "--dir", "/nowhere", "--db", fake.database, "--opencode", fake.script], fake.env);
    expect(elsewhere.code).toBe(0);
    expect(elsewhere.out).toContain("under /nowhere");
  });

  test("read-only: the binary gets one SELECT through `opencode db ... --format json`, on a private copy of the database --db names, removed afterwards", async () => {
    const fake = fakeOpencode(scratch(), []);
    await run(["scan", "--sessions", "--db", fake.database, "--opencode", fake.script], fake.env);
    const [call, ...more] = fake.recorded();
    expect(more).toEqual([]);
    expect(call!.argv).toEqual(["db", SESSION_QUERY, "--format", "json"]);
    // The binary opens its database read-write: it never gets the user's file, only a copy elsewhere.
    expect(call!.db).not.toBeNull();
    expect(path.dirname(call!.db!)).not.toBe(path.dirname(fake.database));
    expect(existsSync(path.dirname(call!.db!))).toBe(false);
    expect(SESSION_QUERY.trimStart().startsWith("SELECT")).toBe(true);
    expect(SESSION_QUERY).not.toMatch(/;|\b(INSERT|UPDATE|DELETE|DROP|ALTER|CREATE|REPLACE|PRAGMA|ATTACH)\b/i);
  });

  test("exit 2 with one message when the store cannot be read: no database, no binary, the query fails, output is not rows", async () => {
    const dir = scratch();
    const missing = await run(["scan", "--sessions"], { PATH: "", HOME: dir, XDG_DATA_HOME: path.join(dir, "data") });
    expect(missing.code).toBe(2);
    expect(missing.err).toBe(`dsml-fix: no OpenCode session database at ${path.join(dir, "data", "opencode", "opencode.db")}; if OpenCode keeps it elsewhere, \`opencode db path\` prints it: pass that as --db FILE\n`);
    const fake = fakeOpencode(dir, []);
    const noBinary = await run(["scan", "--sessions", "--db", fake.database], { PATH: path.join(dir, "empty-bin") });
    expect([noBinary.code, noBinary.err]).toEqual([2, "dsml-fix: cannot find the opencode binary on PATH; pass --opencode PATH\n"]);
    const onPath = await run(["scan", "--sessions", "--db", fake.database], { PATH: `${dir}${path.delimiter}${process.env.PATH}` });
    expect(onPath.code).toBe(0);
    const failing = fakeOpencode(scratch(), "", 1, "\x1b[91mError: \x1b[0mUnexpected error\n\nno such column: s.title\n");
    const failed = await run(["scan", "--sessions", "--db", failing.database, "--opencode", failing.script], failing.env);
    expect(failed.code).toBe(2);
    expect(failed.err).toContain("db could not read the sessions (exit 1): no such column: s.title.");
    expect(failed.err).toContain("dsml-fix scan --export s.json");
    for (const output of ["not json at all [", '[{"unexpected": true}]']) {
      const odd = fakeOpencode(scratch(), output);
      const r = await run(["scan", "--sessions", "--db", odd.database, "--opencode", odd.script], odd.env);
      expect([r.code, r.out]).toEqual([2, ""]);
      expect(r.err).toStartWith("dsml-fix: opencode db printed");
    }
    const notExecutable = await run(["scan", "--sessions", "--db", fake.database, "--opencode", path.join(dir, "rows.json")], fake.env);
    expect(notExecutable.code).toBe(2);
    expect(notExecutable.err).toStartWith("dsml-fix: cannot run ");
  });

  test("usage errors exit 2: --sessions with FILE or --export, --dir/--opencode/--db without --sessions, an option without its value", async () => {
    for (const argv of [
      ["scan", "--sessions", "reply.txt"],
      ["scan", "--sessions", "--export", "x.json"],
      ["scan", "--dir", "/w"],
      ["scan", "--db", "x.db", "reply.txt"],
      ["scan", "--export", "x.json", "--opencode", "/bin/opencode"],
      ["scan", "--sessions", "--dir"],
    ]) {
      const r = await run(argv, {});
      expect([argv, r.code, r.out]).toEqual([argv, 2, ""]);
      expect(r.err).toStartWith("dsml-fix: ");
    }
  });
});

describe("dsml-fix scan --sessions on OpenCode 1.18.33's own store", () => {
  test("a store the real binary created, holding sessions in its format: scanned through the real binary, left unchanged", () => {
    const root = scratch();
    const database = path.join(root, "store.db");
    createStore(database, root);
    const sessions: FixtureSession[] = [
      {
        id: "ses_fixture_a",
        title: "Fix the build",
        directory: "/work/app",
        messages: [
          { id: "msg_a1", role: "user", providerID: "deepseek", modelID: "deepseek-chat", texts: ["Fix the build"] },
          { id: "msg_a2", role: "assistant", providerID: "deepseek", modelID: "deepseek-chat", texts: ["Let me look.", recoverable] },
          { id: "msg_a3", role: "assistant", providerID: "deepseek", modelID: "deepseek-chat", texts: [truncated] },
        ],
      },
      {
        id: "ses_fixture_b",
        title: "Clean",
        directory: "/work/app",
        messages: [{ id: "msg_b1", role: "assistant", providerID: "zai", modelID: "glm-4.6", texts: ["No markup."] }],
      },
      {
        // What the model was given (a user message, an earlier tool result) feeds the echo guard, as
        // in the plugin: a reply quoting it recovers nothing (broken echoed-markup); a leak of a
        // command nobody gave is still a call.
        id: "ses_fixture_c",
        title: "Quotes",
        directory: "/work/app",
        messages: [
          { id: "msg_c1", role: "user", providerID: "deepseek", modelID: "deepseek-chat", texts: [`Our README says:\n${recoverable}`] },
          { id: "msg_c2", role: "assistant", providerID: "deepseek", modelID: "deepseek-chat", texts: ["The README shows:", recoverable], tools: [{ tool: "read", output: `notes\n${hermes}` }] },
          { id: "msg_c3", role: "assistant", providerID: "deepseek", modelID: "deepseek-chat", texts: ["The notes file holds:", hermes] },
          { id: "msg_c4", role: "assistant", providerID: "deepseek", modelID: "deepseek-chat", texts: ["Running it.", live(block("tool_calls", [["bash", [["command", "ls"]]]]))] },
        ],
      },
    ];
    addSessions(database, sessions);
    const snapshot = () => {
      const db = new Database(database, { readonly: true });
      try {
        return ["session", "message", "part"].map((table) => db.query(`SELECT * FROM ${table} ORDER BY id`).all());
      } finally {
        db.close();
      }
    };
    const before = snapshot();
    const r = spawnSync("node", [bin, "scan", "--sessions", "--json", "--db", database, "--opencode", opencodeBin], {
      encoding: "utf8",
      env: { PATH: process.env.PATH ?? "", HOME: path.join(root, "home"), XDG_DATA_HOME: path.join(root, "data"), XDG_CONFIG_HOME: path.join(root, "config"), XDG_CACHE_HOME: path.join(root, "cache") },
      timeout: 90_000,
    });
    expect(r.stderr).toBe("");
    expect(r.status).toBe(1);
    const report = JSON.parse(r.stdout);
    expect(report.database).toBe(database);
    expect(report.totals).toEqual({ sessions: 3, sessionsWithLeaks: 2, messages: 6, messagesWithLeaks: 5, calls: 2, broken: 3, stripped: 2, nearMisses: 0, untouched: 0 });
    expect(report.sessions[0].models[0].leaks).toEqual([
      { message: "msg_a2", calls: [{ tool: "bash", shape: "D02" }], broken: [], stripped: [] },
      { message: "msg_a3", calls: [], broken: [{ shape: "S02", reason: "truncated-call" }], stripped: [] },
    ]);
    expect(report.sessions[1].models[0].leaks).toEqual([
      { message: "msg_c2", calls: [], broken: [{ shape: "D02", reason: "echoed-markup" }], stripped: [{ kind: "echoed-markup" }] },
      { message: "msg_c3", calls: [], broken: [{ shape: "O01", reason: "echoed-markup" }], stripped: [{ kind: "echoed-markup" }] },
      { message: "msg_c4", calls: [{ tool: "bash", shape: "D02" }], broken: [], stripped: [] },
    ]);
    expect(snapshot()).toEqual(before);
  }, 120_000);

  test("a database in WAL mode with writes not yet checkpointed (OpenCode running): they are read, and the database and its -wal are left byte for byte", () => {
    const root = scratch();
    const database = path.join(root, "store.db");
    createStore(database, root);
    // A connection that keeps its writes in the -wal file, as a running OpenCode does.
    const open = new Database(database);
    try {
      open.run("PRAGMA journal_mode=WAL");
      open.run("PRAGMA wal_autocheckpoint=0");
      addSessions(open, [
        { id: "ses_wal", title: "Live", directory: "/work/app", messages: [{ id: "msg_w1", role: "assistant", providerID: "deepseek", modelID: "deepseek-chat", texts: [recoverable] }] },
      ]);
      expect(existsSync(`${database}-wal`)).toBe(true);
      const before = [readFileSync(database), readFileSync(`${database}-wal`)];
      const storeFiles = () => readdirSync(root).filter((name) => name.startsWith("store.db")).sort();
      const beside = storeFiles();
      const r = spawnSync("node", [bin, "scan", "--sessions", "--json", "--db", database, "--opencode", opencodeBin], {
        encoding: "utf8",
        env: { PATH: process.env.PATH ?? "", HOME: path.join(root, "home"), XDG_DATA_HOME: path.join(root, "data"), XDG_CONFIG_HOME: path.join(root, "config"), XDG_CACHE_HOME: path.join(root, "cache") },
        timeout: 90_000,
      });
      expect(r.stderr).toBe("");
      expect(r.status).toBe(1);
      expect(JSON.parse(r.stdout).sessions.map((s: { id: string }) => s.id)).toEqual(["ses_wal"]);
      expect([readFileSync(database), readFileSync(`${database}-wal`)]).toEqual(before);
      expect(storeFiles()).toEqual(beside);
    } finally {
      open.close();
    }
  }, 120_000);

  test("a session a real `opencode run` stored (a model leaking DSML, no plugin) is found where OpenCode keeps it by default", async () => {
    const { project, teardown } = await setup([{ content: `Let me look.\n${recoverable}` }]);
    try {
      const ran = await runOpencode(project, "list the files", { printLogs: false, timeoutMs: 90_000 });
      expect(ran.code).toBe(0);
      const r = spawnSync("node", [bin, "scan", "--sessions", "--json", "--dir", project.dir, "--opencode", opencodeBin], { encoding: "utf8", env: project.env, timeout: 90_000 });
      expect(r.stderr).toBe("");
      expect(r.status).toBe(1);
      const report = JSON.parse(r.stdout);
      expect(report.database).toBe(path.join(project.env.XDG_DATA_HOME!, "opencode", "opencode.db"));
      expect(report.sessions).toHaveLength(1);
      expect(report.sessions[0]).toMatchObject({ id: ran.sessionID, directory: project.dir });
      // The test provider's model is no leak-prone family: with default options the plugin leaves it
      // alone, so its leak is found and listed, never counted as a call that would be recovered.
      expect(report.sessions[0].models).toMatchObject([{ provider: "fake", model: "fake-model", messagesWithLeaks: 1, inScope: false, calls: 0, untouched: 1, shapes: { recovered: {}, broken: {} } }]);
      expect(report.sessions[0].models[0].leaks).toMatchObject([{ calls: [{ tool: "bash", shape: "D02" }], outOfScope: true }]);
    } finally {
      await teardown();
    }
  }, 180_000);
});
