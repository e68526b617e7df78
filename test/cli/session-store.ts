/**
 * A session store in OpenCode 1.18.33's format, for tests: the real binary creates the database
 * (its own migrations make the schema), and the sessions are written as OpenCode writes them
 * (verified against a store a real `opencode run` left: one row per session, message and part, the
 * details as JSON in `data`).
 */
import { Database } from "bun:sqlite";
import { spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdtempSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

export const opencodeBin = path.join(import.meta.dir, "..", "..", "node_modules", "opencode-linux-x64", "bin", "opencode");

export interface FixtureMessage {
  id: string;
  role: "user" | "assistant";
  providerID: string;
  modelID: string;
  /** Text parts, in order; each assistant message also gets a step-start part first, as OpenCode writes it. */
  texts: string[];
  /** Tool parts after the texts (an assistant message's calls, completed), each with the output the tool gave. */
  tools?: { tool: string; output: string }[];
}

export interface FixtureSession {
  id: string;
  title: string;
  directory: string;
  messages: FixtureMessage[];
}

/**
 * An empty store at `file`, made by the real binary: its migrations make the schema. The binary runs
 * once per test process (in a scratch HOME/XDG, never the real one); later stores are copies of that
 * first one, since every test starts from the same empty schema and a spawn costs seconds.
 */
export function createStore(file: string, _root?: string): void {
  templateStore ??= makeStore();
  copyFileSync(templateStore, file);
}

let templateStore: string | undefined;

function makeStore(): string {
  const root = mkdtempSync(path.join(tmpdir(), "dsml-store-"));
  const file = path.join(root, "empty.db");
  const env = {
    PATH: process.env.PATH ?? "",
    HOME: path.join(root, "home"),
    XDG_CONFIG_HOME: path.join(root, "config"),
    XDG_DATA_HOME: path.join(root, "data"),
    XDG_CACHE_HOME: path.join(root, "cache"),
    XDG_STATE_HOME: path.join(root, "state"),
    OPENCODE_DB: file,
    OPENCODE_DISABLE_AUTOUPDATE: "1",
    OPENCODE_DISABLE_MODELS_FETCH: "1",
  };
  const made = spawnSync(opencodeBin, ["db", "SELECT count(*) AS n FROM session", "--format", "json"], { env, encoding: "utf8", timeout: 60_000 });
  if (made.status !== 0) throw new Error(`opencode db failed (${made.status}): ${made.stderr}`);
  // The schema may still sit in the write-ahead log: fold it into the file, so a copy of the file alone is whole.
  const db = new Database(file);
  try {
    db.run("PRAGMA wal_checkpoint(TRUNCATE)");
  } finally {
    db.close();
  }
  if (existsSync(`${file}-wal`) && statSync(`${file}-wal`).size > 0) throw new Error("the empty store's write-ahead log did not fold into its file");
  return file;
}

/** Writes the sessions; given an open Database (not a file), writes through it and leaves it open. */
export function addSessions(file: string | Database, sessions: FixtureSession[]): void {
  const db = typeof file === "string" ? new Database(file) : file;
  try {
    let clock = 1_790_000_000_000;
    db.run(`INSERT OR IGNORE INTO project (id, worktree, time_created, time_updated, sandboxes) VALUES ('global', '/', ?, ?, '[]')`, [clock, clock]);
    for (const s of sessions) {
      db.run(
        `INSERT INTO session (id, project_id, slug, directory, title, version, time_created, time_updated) VALUES (?, 'global', 'fixture', ?, ?, '1.18.33', ?, ?)`,
        [s.id, s.directory, s.title, ++clock, clock],
      );
      for (const m of s.messages) {
        const data = m.role === "user"
          ? { role: "user", time: { created: ++clock }, agent: "build", model: { providerID: m.providerID, modelID: m.modelID } }
          : { role: "assistant", mode: "build", agent: "build", path: { cwd: s.directory, root: "/" }, modelID: m.modelID, providerID: m.providerID, time: { created: ++clock }, finish: "stop" };
        db.run(`INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?)`, [m.id, s.id, clock, clock, JSON.stringify(data)]);
        const parts: Record<string, unknown>[] = [...(m.role === "assistant" ? [{ type: "step-start" }] : []), ...m.texts.map((text) => ({ type: "text", text }))];
      for (const [i, { tool, output }] of (m.tools ?? []).entries()) {
        parts.push({ type: "tool", callID: `call_${m.id}_${i}`, tool, state: { status: "completed", input: {}, output, title: tool, metadata: {}, time: { start: clock, end: clock } } });
      }
        parts.forEach((part, i) => {
          db.run(`INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?, ?)`, [
            `prt_${m.id}_${i}`,
            m.id,
            s.id,
            ++clock,
            clock,
            JSON.stringify(part),
          ]);
        });
      }
    }
  } finally {
    if (typeof file === "string") db.close();
  }
}
