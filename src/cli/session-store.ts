// Reads OpenCode's stored sessions. OpenCode 1.18 keeps them in an SQLite database (not JSON files),
// which plain Node 20 cannot open, so the OpenCode binary reads it for us: `opencode db QUERY
// --format json` runs one SELECT without starting a project instance, in about the time of one
// `opencode export` (which would cost one process per session).
//
// The binary opens its database read-write (it creates the schema of an empty file, switches a
// database to WAL mode and leaves -wal/-shm files beside it), and has no read-only switch. So it
// never gets the file the user named: it reads a private copy in a fresh temporary directory
// (the database and its -wal or -journal file), removed afterwards. A file that is not an SQLite
// database is refused before anything runs.
import { spawn } from "node:child_process";
import { accessSync, closeSync, constants, copyFileSync, existsSync, mkdtempSync, openSync, readSync, rmSync, statSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import path from "node:path";
import type { ExportedMessage } from "./report.ts";
import { givenBefore } from "./given.ts";
import { historyGuards } from "./history-guard.ts";
import { pluginEchoGuard } from "./plugin-reading.ts";
import type { EchoGuard } from "../engine/types.ts";

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

interface StoreLocation {
  /** The OpenCode binary to run. */
  opencode: string;
  /** The database file it will open (checked to exist first: opening a missing one would create it). */
  database: string;
  /** Environment for the binary; withPrivateCopy sets OPENCODE_DB to the copy it reads. */
  env: NodeJS.ProcessEnv;
}

export function locateStore(options: { opencode: string | null; db: string | null; env: NodeJS.ProcessEnv; cwd: string }): StoreLocation {
  const env = { ...options.env };
  let database: string;
  if (options.db !== null) {
    database = path.resolve(options.cwd, options.db);
  } else {
    database = defaultDatabasePath(env);
  }
  if (!existsSync(database) || !statSync(database).isFile()) {
    const hint = options.db === null ? "; if OpenCode keeps it elsewhere, `opencode db path` prints it: pass that as --db FILE" : "";
    throw new StoreError(`no OpenCode session database at ${database}${hint}`);
  }
  if (!isSqliteFile(database)) throw new StoreError(`could not read the sessions from ${database}: it is not an SQLite database (it does not start with "SQLite format 3"); it was left as it is`);
  const opencode = options.opencode ?? findOnPath("opencode", env);
  if (opencode === null) throw new StoreError("cannot find the opencode binary on PATH; pass --opencode PATH");
  return { opencode, database, env };
}

const SQLITE_HEADER = "SQLite format 3\0";

/** An SQLite database: its 16-byte header, or an empty file (which SQLite opens as an empty database). */
function isSqliteFile(file: string): boolean {
  let fd: number | undefined;
  try {
    fd = openSync(file, "r");
    const head = Buffer.alloc(SQLITE_HEADER.length);
    const read = readSync(fd, head, 0, head.length, 0);
    return read === 0 || (read === head.length && head.toString("latin1") === SQLITE_HEADER);
  } catch (error) {
    throw new StoreError(`cannot read ${file}: ${(error as Error).message}`);
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/**
 * Runs `use` on a private copy of the database (and of its -wal or -journal file, so what is not
 * checkpointed yet is read too) in a fresh temporary directory, removed afterwards: whatever the
 * binary writes (schema, WAL mode, -wal/-shm files) lands in the copy, never beside the user's file.
 * The copy's location carries OPENCODE_DB; its `database` stays the user's file, for the report.
 */
export async function withPrivateCopy<T>(location: StoreLocation, use: (copy: StoreLocation) => Promise<T>): Promise<T> {
  let dir: string;
  try {
    dir = mkdtempSync(path.join(tmpdir(), "dsml-fix-scan-"));
  } catch (error) {
    throw new StoreError(`cannot make a temporary directory to read ${location.database} from: ${(error as Error).message}`);
  }
  try {
    const file = path.join(dir, "opencode.db");
    try {
      copyFileSync(location.database, file, constants.COPYFILE_FICLONE);
      for (const suffix of ["-wal", "-journal"]) if (existsSync(location.database + suffix)) copyFileSync(location.database + suffix, file + suffix, constants.COPYFILE_FICLONE);
    } catch (error) {
      throw new StoreError(`cannot copy ${location.database} to read it: ${(error as Error).message}`);
    }
    return await use({ ...location, env: { ...location.env, OPENCODE_DB: file } });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Where OpenCode 1.18 (a release build) keeps its database: OPENCODE_DB, else opencode.db in its data directory. */
function defaultDatabasePath(env: NodeJS.ProcessEnv): string {
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

/** Runs the one SELECT through the OpenCode binary (on withPrivateCopy's copy: nothing is written to the sessions). */
export async function readSessions(location: StoreLocation): Promise<StoredSession[]> {
  const rows = await query(location, SESSION_QUERY);
  if (!rows.every(isRow)) throw new StoreError("opencode db printed rows of an unexpected shape; this scan knows OpenCode 1.18's database");
  return groupRows(rows);
}

async function query(location: StoreLocation, sql: string): Promise<unknown[]> {
  const { code, stdout, stderr, error } = await run(location.opencode, ["db", sql, "--format", "json"], location.env);
  if (error) throw new StoreError(`cannot run ${location.opencode}: ${error.message}`);
  if (code !== 0) {
    throw new StoreError(
      `${location.opencode} db could not read the sessions (exit ${code}): ${lastLine(stderr) || "no message"}. ` +
        "This scan knows OpenCode 1.18's database; with another version, `opencode export SESSION > s.json` " +
        "and `dsml-fix scan --export s.json` work one session at a time",
    );
  }
  return parseRows(stdout);
}

function parseRows(stdout: string): unknown[] {
  const start = stdout.indexOf("[");
  let rows: unknown;
  try {
    rows = start < 0 ? [] : JSON.parse(stdout.slice(start));
  } catch (error) {
    throw new StoreError(`opencode db printed something that is not JSON: ${(error as Error).message}`);
  }
  if (!Array.isArray(rows)) throw new StoreError("opencode db printed rows of an unexpected shape; this scan knows OpenCode 1.18's database");
  return rows;
}

/**
 * Each given text is read up to this many characters: OpenCode cuts a tool's output far shorter
 * (about 50 KB), so only a pasted text longer than this is read in part. A quote from past it is
 * then reported as a call the echo guard would not run (the scan errs towards reporting).
 */
const GIVEN_PART_LIMIT = 262_144;
/** Sessions per GIVEN_QUERY: the query is one argument of the binary, and the rows of a batch are held at once. */
const GIVEN_BATCH = 16;

/** A JSON value at `path` of a `data` column, as JavaScript would test it (true, non-zero, non-empty, an object). */
const truthy = (column: string, path: string) =>
  `CASE json_type(${column}, '${path}') WHEN 'true' THEN 1 WHEN 'object' THEN 1 WHEN 'array' THEN 1 WHEN 'integer' THEN json_extract(${column}, '${path}') <> 0 WHEN 'real' THEN json_extract(${column}, '${path}') <> 0 WHEN 'text' THEN json_extract(${column}, '${path}') <> '' ELSE 0 END`;
const given = (path: string) => `substr(json_extract(p.data, '${path}'), 1, ${GIVEN_PART_LIMIT})`;
/**
 * A user's file part, or a tool result's attachments, as JSON: read whole as given.ts reads them
 * (a `data:` URL decoded like the plugin's echo guard decodes it), up to GIVEN_JSON_LIMIT
 * characters (base64 is a third longer than the text); a longer one gives `otherwise` (a file part:
 * its type, media type and name), and a quote from it is reported as a call (the scan errs
 * towards reporting).
 */
const GIVEN_JSON_LIMIT = 2 * GIVEN_PART_LIMIT;
const whole = (when: string, json: string, otherwise: string) => `CASE WHEN ${when} THEN CASE WHEN length(${json}) <= ${GIVEN_JSON_LIMIT} THEN ${json} ELSE ${otherwise} END END`;

/**
 * What the model may have been given in these sessions, message by message in the order
 * SESSION_QUERY reads them: the fields of each message and part that given.ts reads to tell what
 * OpenCode 1.18 sent (role, summary, finish, error, parent; a part's type, `ignored`, compaction
 * tail, a tool's status, `compacted` and `interrupted` marks), with the texts that may be sent: the
 * text and file parts of every message but the assistant's (user messages, with the files OpenCode
 * inlines as synthetic text), and the output, attachments, error or interrupted output of every
 * tool part. Every
 * message comes back, with null part fields when it has none of these parts, so the place of each
 * assistant message among them is known.
 */
function givenQuery(sessionIDs: readonly string[]): string {
  const ids = sessionIDs.map((id) => `'${id.replaceAll("'", "''")}'`).join(", ");
  return `SELECT m.session_id AS sessionID, m.id AS messageID, json_extract(m.data, '$.role') AS role,
  json_extract(m.data, '$.parentID') AS parentID, ${truthy("m.data", "$.summary")} AS summary, ${truthy("m.data", "$.finish")} AS finish,
  ${truthy("m.data", "$.error")} AS failed, json_extract(m.data, '$.error.name') AS errorName,
  json_extract(p.data, '$.type') AS type, ${truthy("p.data", "$.ignored")} AS ignored, json_extract(p.data, '$.tail_start_id') AS tailStartID,
  json_extract(p.data, '$.state.status') AS status, ${truthy("p.data", "$.state.time.compacted")} AS compacted,
  ${given("$.text")} AS text, ${given("$.state.output")} AS output, ${given("$.state.error")} AS error,
  CASE WHEN json_type(p.data, '$.state.metadata.interrupted') = 'true' AND json_type(p.data, '$.state.metadata.output') = 'text' THEN ${given("$.state.metadata.output")} END AS interruptedOutput,
  ${whole("json_extract(p.data, '$.type') = 'file'", "p.data", "json_object('type', 'file', 'mime', json_extract(p.data, '$.mime'), 'filename', json_extract(p.data, '$.filename'))")} AS file,
  ${whole("json_type(p.data, '$.state.attachments') = 'array'", "json_extract(p.data, '$.state.attachments')", "NULL")} AS attachments
FROM message m
LEFT JOIN part p ON p.message_id = m.id AND (json_extract(p.data, '$.type') IN ('tool', 'compaction', 'subtask') OR (json_extract(p.data, '$.type') IN ('text', 'file') AND json_extract(m.data, '$.role') <> 'assistant'))
WHERE m.session_id IN (${ids})
ORDER BY m.session_id, m.time_created, m.id, p.id`;
}

interface GivenRow {
  sessionID: string;
  messageID: string;
  role: string | null;
  parentID: string | null;
  summary: number;
  finish: number;
  failed: number;
  errorName: string | null;
  type: string | null;
  ignored: number | null;
  tailStartID: string | null;
  status: string | null;
  compacted: number | null;
  text: string | null;
  output: string | null;
  error: string | null;
  interruptedOutput: string | null;
  /** A user message's file part, as JSON. */
  file: string | null;
  /** A tool part's `state.attachments`, as JSON. */
  attachments: string | null;
}

/**
 * For each session, a function giving what the model had been given before one of its messages
 * (given.ts givenBefore, over the messages as givenQuery reads them). Read through the binary, a
 * few sessions per query; only the sessions asked for (those where a call would be recovered: the
 * echo guard reads nothing otherwise).
 */
export async function readGiven(location: StoreLocation, sessionIDs: readonly string[]): Promise<Map<string, (messageID: string) => { guard: EchoGuard | undefined }>> {
  const out = new Map<string, (messageID: string) => { guard: EchoGuard | undefined }>();
  for (let i = 0; i < sessionIDs.length; i += GIVEN_BATCH) {
    const batch = sessionIDs.slice(i, i + GIVEN_BATCH);
    const rows = await query(location, givenQuery(batch));
    const bySession = new Map<string, StoredMessage[]>();
    for (const row of rows) {
      if (!isGivenRow(row)) throw new StoreError("opencode db printed rows of an unexpected shape; this scan knows OpenCode 1.18's database");
      let messages = bySession.get(row.sessionID);
      if (!messages) bySession.set(row.sessionID, (messages = []));
      let last = messages.at(-1);
      if (last?.info.id !== row.messageID) messages.push((last = storedMessage(row)));
      if (row.type !== null) last.parts.push(storedPart(row));
    }
    for (const [sessionID, messages] of bySession) {
      // One guard per session over its growing history (history-guard.ts), asked in message order.
      const index = new Map(messages.map((m, i) => [m.info.id, i] as const));
      const guardAt = historyGuards(messages, givenBefore, pluginEchoGuard);
      out.set(sessionID, (messageID) => ({ guard: guardAt(index.get(messageID) ?? messages.length) }));
    }
  }
  return out;
}

interface StoredMessage {
  info: Record<string, unknown>;
  parts: Record<string, unknown>[];
}

/** A message as `opencode export` writes it, with the fields given.ts reads. */
function storedMessage(row: GivenRow): StoredMessage {
  const error = row.failed ? { name: row.errorName ?? undefined } : undefined;
  return { info: { id: row.messageID, role: row.role, parentID: row.parentID, summary: Boolean(row.summary), finish: Boolean(row.finish), error }, parts: [] };
}

function storedPart(row: GivenRow): Record<string, unknown> {
  if (row.type === "file") return { ...objectOf(row.file), type: "file" };
  return {
    type: row.type,
    text: row.text ?? undefined,
    ignored: Boolean(row.ignored),
    tail_start_id: row.tailStartID ?? undefined,
    state: {
      status: row.status,
      output: row.output ?? undefined,
      error: row.error ?? undefined,
      time: { compacted: Boolean(row.compacted) },
      metadata: row.interruptedOutput === null ? {} : { interrupted: true, output: row.interruptedOutput },
      attachments: row.attachments === null ? undefined : parsedJson(row.attachments),
    },
  };
}

/** JSON the database printed from its own column; anything unreadable gives nothing (never a crash). */
function parsedJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function objectOf(text: string | null): Record<string, unknown> {
  const value = text === null ? undefined : parsedJson(text);
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

function isGivenRow(value: unknown): value is GivenRow {
  if (typeof value !== "object" || value === null) return false;
  const row = value as Record<string, unknown>;
  for (const key of ["role", "parentID", "errorName", "type", "tailStartID", "status", "text", "output", "error", "interruptedOutput", "file", "attachments"]) {
    if (row[key] === undefined) row[key] = null;
    else if (row[key] !== null && typeof row[key] !== "string") return false;
  }
  for (const key of ["summary", "finish", "failed", "ignored", "compacted"]) {
    if (row[key] === undefined) row[key] = null;
    else if (row[key] !== null && typeof row[key] !== "number") return false;
  }
  return typeof row.sessionID === "string" && typeof row.messageID === "string";
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
