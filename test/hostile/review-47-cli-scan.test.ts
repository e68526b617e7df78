/**
 * Hostile review 47: the `dsml-fix scan` command (src/cli/main.ts, sessions.ts, session-store.ts)
 * against what the plugin does and what the usage promises. Every test named fixed was a FINDING
 * that failed on main when written (fixed on fx-47-cli); the others are hard negatives (they pass, and guard a line that is easy
 * to break).
 */
import { describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { main } from "../../src/cli/main.ts";
import { underDirectory } from "../../src/cli/sessions.ts";
import { block, live } from "../golden/notation.ts";
import { textStream, throughMiddleware } from "../security/support.ts";
import { COMMAND, ECHO, OTHER, readme } from "../security/tool-result-files.ts";

const repoRoot = path.join(import.meta.dir, "..", "..");
const bin = path.join(repoRoot, "bin", "dsml-fix.js");

function scratch(): string {
  return mkdtempSync(path.join(tmpdir(), "r47-scan-"));
}

async function run(argv: string[], options: { stdin?: string; env?: NodeJS.ProcessEnv; cwd?: string } = {}) {
  let out = "";
  let err = "";
  const bytes = new TextEncoder().encode(options.stdin ?? "");
  const root = scratch();
  // HOME and XDG dirs of a scratch folder: nothing here may read or write the real ones.
  const env = options.env ?? { PATH: process.env.PATH ?? "", HOME: path.join(root, "home"), XDG_CONFIG_HOME: path.join(root, "config"), XDG_DATA_HOME: path.join(root, "data"), XDG_CACHE_HOME: path.join(root, "cache") };
  const code = await main(argv, { readStdin: async () => bytes, out: (t) => (out += t), err: (t) => (err += t), env, cwd: options.cwd ?? root });
  return { code, out, err };
}

/** An `opencode export` file: one user message (its text given to the model), then the assistant's reply. */
function exportFile(userText: string, assistantText: string): string {
  const file = path.join(scratch(), "session.json");
  writeFileSync(
    file,
    JSON.stringify({
      info: { id: "ses_1" },
      messages: [
        { info: { id: "msg_u1", role: "user" }, parts: [{ type: "text", text: userText }] },
        { info: { id: "msg_a1", role: "assistant", providerID: "deepseek", modelID: "deepseek-chat" }, parts: [{ type: "text", text: assistantText }] },
      ],
    }),
  );
  return file;
}

describe("scan agrees with the plugin's reading: echoed markup", () => {
  // Fixed (was: wrong answer, medium; src/cli/main.ts scanExport and src/cli/session-store.ts
  // SESSION_QUERY). Rule now: scan reads a transcript as the plugin does (src/cli/plugin-reading.ts):
  // what the model was given before an assistant message (user messages, earlier tool results)
  // feeds the echo guard for that message, so a quote is reported as the plugin reports it (broken
  // "echoed-markup"), never as a call; --sessions reads that content for the sessions where a call
  // would be recovered (session-store.ts readGiven). It was: the plugin's echo guard (responseFix.echoGuard, on by
  // default) never runs a call the model only quoted from content it was given (README: "never run
  // markup the model only quoted from a file, tool result or message"). `scan --export` reads each
  // assistant message alone (parse() with no echo guard; the user messages and tool results in the
  // same export are ignored), so a README attack the model merely quoted back is reported as
  // "call bash (D02)", a call "that would be recovered", which the plugin would never run. The
  // usage says scan "reports which leaked tool calls would be recovered". --sessions has the same
  // gap (its SELECT reads assistant messages only). Expected: the echoed call is not reported as a
  // recovered call (or is reported apart, as echoed), as the plugin reads it.
  test("fixed: --export reports a call the echo guard would never run (the model quoted the user's README)", async () => {
    // The plugin's reading of the same turn: the user's README holds the attack; the reply quotes it.
    const prompt = [{ role: "user" as const, content: [{ type: "text" as const, text: readme(COMMAND) }] }];
    expect((await throughMiddleware(prompt, textStream(ECHO))).calls).toEqual([]);
    // Control: a command the README does not hold is a real leak, and recovered.
    expect((await throughMiddleware(prompt, textStream(ECHO.replace(COMMAND, OTHER)))).calls).toHaveLength(1);

    const file = exportFile(readme(COMMAND), ECHO);
    const json = await run(["scan", "--export", file, "--json"]);
    expect(JSON.parse(json.out).messages.flatMap((m: { calls: unknown[] }) => m.calls)).toEqual([]);
    const text = await run(["scan", "--export", file]);
    expect(text.out).not.toContain("call bash");
  });

  test("hard negative: a leak the user never gave is reported from an export, as the plugin would recover it", async () => {
    const file = exportFile(readme(COMMAND), ECHO.replace(COMMAND, OTHER));
    const r = await run(["scan", "--export", file, "--json"]);
    expect(JSON.parse(r.out).messages).toEqual([expect.objectContaining({ id: "msg_a1", calls: [{ tool: "bash", input: { command: OTHER }, shape: "D02" }] })]);
  });
});

describe("--sessions --dir: which sessions lie under DIR", () => {
  // Fixed (was: wrong answer, low; src/cli/sessions.ts underDirectory). Rule now: only ".." itself,
  // "../..." or a path on another drive is outside DIR. It was: a
  // session whose directory is a folder of DIR whose name starts with two dots (`..cache`,
  // `..build`: valid names, not the parent) is dropped: path.relative gives "..cache", which
  // `relative.startsWith("..")` takes for "outside". Its leaks are not counted, and the scan
  // exits 0 ("no leaked tool-call markup"). Expected: kept (only ".." itself or "../..." is outside).
  test("fixed: a session in DIR/..cache is under DIR", () => {
    const session = (directory: string) => ({ id: directory, title: "", directory, messages: [] });
    const kept = underDirectory([session("/work/app/..cache"), session("/work/app/src"), session("/work/other"), session("/work")], "/work/app");
    expect(kept.map((s) => s.directory)).toEqual(["/work/app/..cache", "/work/app/src"]);
  });

  test("fixed: end to end, a leak in a session of DIR/..build makes --sessions --dir DIR exit 1", async () => {
    const dir = scratch();
    const leak = live(block("tool_calls", [["bash", [["command", "ls"]]]]));
    const rows = [{ sessionID: "ses_a", title: "t", directory: "/work/app/..build", messageID: "msg_1", providerID: "deepseek", modelID: "deepseek-chat", text: leak }];
    const rowsFile = path.join(dir, "rows.json");
    writeFileSync(rowsFile, JSON.stringify(rows));
    const script = path.join(dir, "opencode");
    writeFileSync(script, `#!/usr/bin/env node\nprocess.stdout.write(require("fs").readFileSync(${JSON.stringify(rowsFile)}, "utf8"));\n`);
    chmodSync(script, 0o755);
    const database = path.join(dir, "opencode.db");
    writeFileSync(database, "");
    const r = await run(["scan", "--sessions", "--json", "--db", database, "--opencode", script, "--dir", "/work/app"]);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.out).totals.messagesWithLeaks).toBe(1);
  });
});

describe("--sessions --dir through a symlink", () => {
  // Fixed (was: wrong answer, a missed leak, low; src/cli/sessions.ts underDirectory, path.resolve
  // without realpath). Rule now: DIR and each stored directory are compared by their real paths
  // too (where they exist). It was:
  // OpenCode stores a session's directory as its working directory, the physical path (getcwd).
  // `--dir ~/proj` where ~/proj is a symlink to /data/proj compares the link's path with the
  // stored physical one, keeps no session, and says "no stored sessions" with exit 0 although a
  // session of that very project leaked. Expected: DIR is resolved to its real path first (the
  // stored directories are real paths), so the leak is found (exit 1).
  test("fixed: --dir given as a symlink to the project finds the project's sessions", async () => {
    const dir = scratch();
    const real = path.join(dir, "data", "proj");
    mkdirSync(real, { recursive: true });
    symlinkSync(real, path.join(dir, "proj"));
    const leak = live(block("tool_calls", [["bash", [["command", "ls"]]]]));
    const rows = [{ sessionID: "ses_a", title: "t", directory: real, messageID: "msg_1", providerID: "deepseek", modelID: "deepseek-chat", text: leak }];
    const rowsFile = path.join(dir, "rows.json");
    writeFileSync(rowsFile, JSON.stringify(rows));
    const script = path.join(dir, "opencode");
    writeFileSync(script, `#!/usr/bin/env node\nprocess.stdout.write(require("fs").readFileSync(${JSON.stringify(rowsFile)}, "utf8"));\n`);
    chmodSync(script, 0o755);
    const database = path.join(dir, "opencode.db");
    writeFileSync(database, "");
    const viaLink = await run(["scan", "--sessions", "--json", "--db", database, "--opencode", script, "--dir", path.join(dir, "proj")]);
    // Control: the real path finds it.
    const viaReal = await run(["scan", "--sessions", "--json", "--db", database, "--opencode", script, "--dir", real]);
    expect(viaReal.code).toBe(1);
    expect(viaLink.code).toBe(1);
    expect(JSON.parse(viaLink.out).totals.messagesWithLeaks).toBe(1);
  });
});

describe("the bin in a pipeline", () => {
  // Fixed (was: crash instead of a clear exit, medium; src/cli/main.ts processIo `out`, no 'error'
  // handler on process.stdout). Rule now: a closed stdout or stderr (EPIPE, thrown or emitted)
  // ends the writing quietly and the command exits with its own status. It was: `dsml-fix scan --json FILE | head -c 10` (the
  // reader closes the pipe early) makes the CLI die of EPIPE: a Bun error dump ("EPIPE: broken
  // pipe, write ... errno: -32 ... Bun v1.x") on stderr and exit status 1, the status the usage
  // reserves for "broken tool-call markup found", on a reply that holds no markup at all. A script
  // piping into head reads "broken markup". Expected: a closed stdout ends the command quietly (no
  // dump on stderr), and never with 1 for a clean input.
  test("fixed: scan --json of a large clean reply piped into head -c 10: no error dump, not exit 1", () => {
    const dir = scratch();
    const file = path.join(dir, "big.txt");
    writeFileSync(file, "hello world ".repeat(200_000));
    const errFile = path.join(dir, "stderr.txt");
    const shell = `node ${JSON.stringify(bin)} scan --json ${JSON.stringify(file)} 2>${JSON.stringify(errFile)} | head -c 10 >/dev/null; echo "status=\${PIPESTATUS[0]}"; cat ${JSON.stringify(errFile)}`;
    const r = spawnSync("bash", ["-c", shell], { encoding: "utf8", env: { PATH: process.env.PATH ?? "", HOME: path.join(dir, "home") }, timeout: 120_000 });
    const [statusLine = "", ...stderr] = r.stdout.split("\n");
    expect(stderr.join("\n")).not.toContain("EPIPE");
    expect(statusLine).not.toBe("status=1");
  });

  test("hard negative: the same reply, read whole, is clean: exit 0", async () => {
    const r = await run(["scan", "--json"], { stdin: "hello world ".repeat(1000) });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out).calls).toEqual([]);
  });
});

describe("scan agrees with the plugin's reading: a call longer than responseFix.bufferLimit", () => {
  // Fixed (was: wrong answer, medium; src/cli/main.ts, parse() called with no bufferLimit,
  // unlimited for a complete reply). Rule now: scan reads with the plugin's default options
  // (src/cli/plugin-reading.ts: resolveOptions(undefined) through engineOptions, the adapters'
  // path), so its limits are the plugin's. It was: the plugin reads a streamed reply with
  // responseFix.bufferLimit, 65536 characters by default (docs/CONFIGURATION.md: "characters a
  // candidate span may hold before it is released verbatim"). A `write` call whose content is
  // 70,000 characters is released verbatim by the plugin (broken D08 spans, nudge broken-markup:
  // no call runs), while `dsml-fix scan` says "recovered 1 call(s), 0 broken span(s)" and exits 0
  // ("nothing broken"). Expected: scan reads with the plugin's default limit (or says the call is
  // over it), so its report and exit status match what the user's session would do.
  test("fixed: a 70,000-character write call: the plugin's limit breaks it, scan reports it recovered (exit 0)", async () => {
    const reply = live(block("tool_calls", [["write", [["filePath", "/tmp/a.txt"], ["content", "x".repeat(70_000)]]]]));
    // The plugin's reading: the default options' limit.
    const { parse } = await import("../../src/engine/parse.ts");
    const { opencodeBuiltinTools } = await import("../../src/tools/opencode-builtins.ts");
    const { resolveOptions } = await import("../../src/plugin/options.ts");
    const limit = resolveOptions(undefined).options.responseFix.bufferLimit;
    const plugin = parse(reply, opencodeBuiltinTools, { bufferLimit: limit });
    expect(plugin.calls).toEqual([]);
    expect(plugin.broken.length).toBeGreaterThan(0);

    const r = await run(["scan", "--json"], { stdin: reply });
    expect(JSON.parse(r.out).calls).toEqual([]);
    expect(r.code).toBe(1);
  });

  test("hard negative: a write call under the limit is recovered by both", async () => {
    const reply = live(block("tool_calls", [["write", [["filePath", "/tmp/a.txt"], ["content", "x".repeat(60_000)]]]]));
    const r = await run(["scan", "--json"], { stdin: reply });
    expect(JSON.parse(r.out).calls).toEqual([{ tool: "write", input: { filePath: "/tmp/a.txt", content: "x".repeat(60_000) }, shape: expect.any(String) }]);
    expect(r.code).toBe(0);
  });
});

describe("--sessions --db FILE changes nothing (the usage: 'changes nothing')", () => {
  // Fixed (was: writes a file the user did not ask to change, high; src/cli/session-store.ts
  // locateStore/readSessions). Rule now: a file that does not start with the SQLite header (an
  // empty file aside) is refused before anything runs (exit 2), and the binary only ever opens a
  // private copy in a fresh temporary directory (with the -wal or -journal file), removed
  // afterwards; the user's file is never opened for writing and nothing appears beside it. It was: locateStore only checks that FILE exists
  // and is a file, then the OpenCode binary opens it read-write through OPENCODE_DB. With the real
  // OpenCode 1.18.33 binary:
  //  - an existing empty file (what `touch`, a failed copy or a wrong path completion leaves) is
  //    made an OpenCode database: its schema is created (0 -> 4096 bytes) and FILE-wal / FILE-shm
  //    (about 280 KB) appear beside it; scan then says "no stored sessions" and exits 0;
  //  - another program's SQLite database has its bytes changed (switched to WAL mode) before
  //    OpenCode refuses it ("Database is not empty and has no session table", exit 2).
  // Expected: FILE is left byte for byte as it was and nothing is created beside it (check the
  // SQLite header and open it read-only, or refuse a file that is not an OpenCode database).
  const realBin = path.join(repoRoot, "node_modules", "opencode-linux-x64", "bin", "opencode");
  const scanDb = async (database: string, root: string) =>
    run(["scan", "--sessions", "--json", "--db", database, "--opencode", realBin], {
      env: { PATH: process.env.PATH ?? "", HOME: path.join(root, "home"), XDG_CONFIG_HOME: path.join(root, "config"), XDG_DATA_HOME: path.join(root, "data"), XDG_CACHE_HOME: path.join(root, "cache"), XDG_STATE_HOME: path.join(root, "state"), OPENCODE_DISABLE_AUTOUPDATE: "1", OPENCODE_DISABLE_MODELS_FETCH: "1" },
    });

  test("fixed: an empty file given as --db is not turned into an OpenCode database", async () => {
    const root = scratch();
    const database = path.join(root, "empty.db");
    writeFileSync(database, "");
    await scanDb(database, root);
    expect(readdirSync(root).filter((name) => name.startsWith("empty.db"))).toEqual(["empty.db"]);
    expect(readFileSync(database).length).toBe(0);
  }, 120_000);

  test("fixed: another program's SQLite database given as --db is left byte for byte", async () => {
    const root = scratch();
    const database = path.join(root, "notes.db");
    const { Database } = await import("bun:sqlite");
    const db = new Database(database);
    db.run("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)");
    db.run("INSERT INTO notes (body) VALUES ('keep me')");
    db.close();
    const before = readFileSync(database);
    const r = await scanDb(database, root);
    expect(r.code).toBe(2);
    expect(readdirSync(root).filter((name) => name.startsWith("notes.db"))).toEqual(["notes.db"]);
    expect(readFileSync(database).equals(before)).toBe(true);
  }, 120_000);

  test("hard negative: a text file given as --db is refused (exit 2, one message) and left as it was", async () => {
    const root = scratch();
    const database = path.join(root, "notes.txt");
    writeFileSync(database, "some notes\n");
    const r = await scanDb(database, root);
    expect(r.code).toBe(2);
    expect(r.out).toBe("");
    expect(JSON.parse(r.err).error).toContain("could not read the sessions");
    expect(readFileSync(database, "utf8")).toBe("some notes\n");
  }, 120_000);
});
