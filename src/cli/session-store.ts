// Reads OpenCode's stored sessions. OpenCode 1.18 keeps them in an SQLite database (not JSON files),
// which plain Node 20 cannot open, so the OpenCode binary reads it for us: `opencode db QUERY
// --format json` runs one SELECT without starting a project instance, in about the time of one
// `opencode export` (which would cost one process per session).
import { spawn } from "node:child_process";
import { accessSync, constants, existsSync, statSync } from "node:fs";
import { homedir } from "node:os";
import path from "node:path";
import type { ExportedMessage } from "./report.ts";

/** Verified against OpenCode 1.18.33: tables session, message and part, each row's details in a JSON `data` column. */
export const SESSION_QUERY = `SELECT s.id AS sessionID, s.title AS title, s.directory AS directory,
  m.id AS messageID, json_extract(m.data, '$.providerID') AS providerID, json_extract(m.data, '$.modelID') AS modelID,
  json_extract(p.data, '$.text') AS text
FROM session s
JOIN message m ON m.session_id = s.id
LEFT JOIN part p ON p.message_id = m.id AND json_extract(p.data, '$.type') = 'text'
WHERE json_extract(m.data, '$.role') = 'assistant'
ORDER BY s.time_created, s.id, m.time_created, m.id, p.id`;

export interface StoredSession {
  id: string;
  title: string;
  directory: string;
  messages: ExportedMessage[];
}

export class StoreError extends Error {}

export interface StoreLocation {
  /** The OpenCode binary to run. */
  opencode: string;
  /** The database file it will open (checked to exist first: opening a missing one would create it). */
  database: string;
  /** Environment for the binary; OPENCODE_DB is set when --db was given. */
  env: NodeJS.ProcessEnv;
}

export function locateStore(options: { opencode: string | null; db: string | null; env: NodeJS.ProcessEnv; cwd: string }): StoreLocation {
  const env = { ...options.env };
  let database: string;
  if (options.db !== null) {
    database = path.resolve(options.cwd, options.db);
    env.OPENCODE_DB = database;
  } else {
    database = defaultDatabasePath(env);
  }
  if (!existsSync(database) || !statSync(database).isFile()) {
    const hint = options.db === null ? "; if OpenCode keeps it elsewhere, `opencode db path` prints it: pass that as --db FILE" : "";
    throw new StoreError(`no OpenCode session database at ${database}${hint}`);
  }
  const opencode = options.opencode ?? findOnPath("opencode", env);
  if (opencode === null) throw new StoreError("cannot find the opencode binary on PATH; pass --opencode PATH");
  return { opencode, database, env };
}

/** Where OpenCode 1.18 (a release build) keeps its database: OPENCODE_DB, else opencode.db in its data directory. */
export function defaultDatabasePath(env: NodeJS.ProcessEnv): string {
  const dataDir = path.join(env.XDG_DATA_HOME || path.join(env.HOME || homedir(), ".local", "share"), "opencode");
  const override = env.OPENCODE_DB;
  if (override) return path.isAbsolute(override) ? override : path.join(dataDir, override);
  return path.join(dataDir, "opencode.db");
}

function findOnPath(name: string, env: NodeJS.ProcessEnv): string | null {
  const names = process.platform === "win32" ? [`${name}.exe`, `${name}.cmd`, name] : [name];
  for (const dir of (env.PATH ?? "").split(path.delimiter).filter(Boolean)) {
    for (const candidate of names.map((n) => path.join(dir, n))) {
      try {
        accessSync(candidate, constants.X_OK);
        if (statSync(candidate).isFile()) return candidate;
      } catch {
        // not here
      }
    }
  }
  return null;
}

interface Row {
  sessionID: string;
  title: string | null;
  directory: string | null;
  messageID: string;
  providerID: string | null;
  modelID: string | null;
  text: string | null;
}

/** Runs the one SELECT through the OpenCode binary; nothing is written to the sessions. */
export async function readSessions(location: StoreLocation): Promise<StoredSession[]> {
  const { code, stdout, stderr, error } = await run(location.opencode, ["db", SESSION_QUERY, "--format", "json"], location.env);
  if (error) throw new StoreError(`cannot run ${location.opencode}: ${error.message}`);
  if (code !== 0) {
    throw new StoreError(
      `${location.opencode} db could not read the sessions (exit ${code}): ${lastLine(stderr) || "no message"}. ` +
        "This scan knows OpenCode 1.18's database; with another version, `opencode export SESSION > s.json` " +
        "and `dsml-fix scan --export s.json` work one session at a time",
    );
  }
  return groupRows(parseRows(stdout));
}

function parseRows(stdout: string): Row[] {
  const start = stdout.indexOf("[");
  let rows: unknown;
  try {
    rows = start < 0 ? [] : JSON.parse(stdout.slice(start));
  } catch (error) {
    throw new StoreError(`opencode db printed something that is not JSON: ${(error as Error).message}`);
  }
  if (!Array.isArray(rows) || !rows.every(isRow)) throw new StoreError("opencode db printed rows of an unexpected shape; this scan knows OpenCode 1.18's database");
  return rows;
}

function isRow(value: unknown): value is Row {
  if (typeof value !== "object" || value === null) return false;
  const row = value as Record<string, unknown>;
  const optionalText = (key: string) => row[key] === null || row[key] === undefined || typeof row[key] === "string";
  return typeof row.sessionID === "string" && typeof row.messageID === "string" && ["title", "directory", "providerID", "modelID", "text"].every(optionalText);
}

/** Rows arrive ordered by session, then message, then part: one pass builds each message's parts. */
function groupRows(rows: Row[]): StoredSession[] {
  const sessions: StoredSession[] = [];
  let session: StoredSession | undefined;
  let message: ExportedMessage | undefined;
  for (const row of rows) {
    if (session?.id !== row.sessionID) {
      session = { id: row.sessionID, title: row.title ?? "", directory: row.directory ?? "", messages: [] };
      sessions.push(session);
      message = undefined;
    }
    if (message?.info?.id !== row.messageID) {
      message = { info: { id: row.messageID, role: "assistant", providerID: row.providerID ?? "?", modelID: row.modelID ?? "?" }, parts: [] };
      session.messages.push(message);
    }
    if (typeof row.text === "string") message.parts!.push({ type: "text", text: row.text });
  }
  return sessions;
}

function run(command: string, args: string[], env: NodeJS.ProcessEnv) {
  return new Promise<{ code: number | null; stdout: string; stderr: string; error?: Error }>((resolve) => {
    let stdout = "";
    let stderr = "";
    const child = spawn(command, args, { env, stdio: ["ignore", "pipe", "pipe"] });
    child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    child.on("error", (error) => resolve({ code: null, stdout, stderr, error }));
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

function lastLine(text: string): string {
  // OpenCode colours its errors even into a pipe.
  const lines = withoutColours(text).split("\n").map((l) => l.trim()).filter(Boolean);
  return lines.at(-1) ?? "";
}

/** Drops ESC [ ... m sequences. */
function withoutColours(text: string): string {
  let out = "";
  for (let i = 0; i < text.length; i++) {
    if (text[i] === "\x1b" && text[i + 1] === "[") {
      const end = text.indexOf("m", i + 2);
      if (end >= 0) {
        i = end;
        continue;
      }
    }
    out += text[i];
  }
  return out;
}
