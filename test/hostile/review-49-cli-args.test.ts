/**
 * Hostile review 49: argument parsing of `dsml-fix` (src/cli/args.ts, main.ts; the proxy's
 * src/proxy/config.ts and run.ts) against the usage it prints. Tests named FINDING fail on main when
 * written; the others are hard negatives. No test here starts a server: every proxy argv given is
 * refused before listening, whether the finding is fixed or not.
 */
import { describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { main } from "../../src/cli/main.ts";
import { attack } from "../security/tool-result-files.ts";

async function run(argv: string[], cwd: string) {
  let out = "";
  let err = "";
  const env = { PATH: process.env.PATH ?? "", HOME: path.join(cwd, "home"), XDG_CONFIG_HOME: path.join(cwd, "config"), XDG_DATA_HOME: path.join(cwd, "data"), XDG_CACHE_HOME: path.join(cwd, "cache") };
  const code = await main(argv, { readStdin: async () => new Uint8Array(), out: (t) => (out += t), err: (t) => (err += t), env, cwd });
  return { code, out, err };
}

const bin = path.join(import.meta.dir, "..", "..", "bin", "dsml-fix.js");

/** The bin as a user runs it, in `cwd` (a relative FILE is read from the process's own directory). */
function runBin(argv: string[], cwd: string) {
  const env = { PATH: process.env.PATH ?? "", HOME: path.join(cwd, "home"), XDG_CONFIG_HOME: path.join(cwd, "config"), XDG_DATA_HOME: path.join(cwd, "data"), XDG_CACHE_HOME: path.join(cwd, "cache") };
  const r = spawnSync("node", [bin, ...argv], { cwd, env, encoding: "utf8", input: "", timeout: 60_000 });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

describe("`--` ends the options", () => {
  // Fixed (was FINDING 1; host broken, low: a usage error for a valid command). The usage promises "`--`
  // before a file name that starts with a dash" (args.ts header). args.ts read() looks for a string
  // option's missing value over the WHOLE argv, `--` and what follows it included, so a file named
  // `--tools` (or `--export`, `--dir`, ...) after `--` is refused: "dsml-fix: --tools needs a value",
  // exit 2. node:util parseArgs itself reads it as the positional it is.
  // Suspected source: src/cli/args.ts read() (the findIndex does not stop at "--").
  test("after `--` nothing is an option: `scan -- --tools` reads the file named --tools", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "r49-args-"));
    writeFileSync(path.join(dir, "--tools"), `Running it:\n${attack("ls")}`);
    const r = runBin(["scan", "--json", "--", "--tools"], dir);
    expect(r.err).toBe("");
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out).calls).toEqual([expect.objectContaining({ tool: "bash", input: { command: "ls" } })]);
  });

  // Hard negative (passes on main): a file named like a short flag after `--` is read.
  test("hard negative: `scan -- -j` reads the file named -j, as text (no --json)", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "r49-args-"));
    writeFileSync(path.join(dir, "-j"), "plain text");
    const r = runBin(["scan", "--", "-j"], dir);
    expect(r).toEqual({ code: 0, out: "recovered 0 call(s), 0 broken span(s), nudge: none\n", err: "" });
  });
});

describe("proxy usage errors read like the other commands'", () => {
  // Fixed (was FINDING 2; host broken, low: a usage message). `dsml-fix proxy --port -1` prints node:util's raw
  // three-sentence advice, its line breaks escaped into one line: "dsml-fix: Option '--port'
  // argument is ambiguous.\x0aDid you forget to specify the option argument for '--port'?\x0aTo
  // specify an option argument starting with a dash use '--port=-XYZ'." scan and doctor turn the same
  // node:util errors into one plain sentence (args.ts plainMessage). Expected: one sentence naming
  // --port, no escaped line break.
  // Suspected source: src/proxy/config.ts (ProxyUsageError((error as Error).message) as thrown).
  test("`proxy --port -1 --upstream URL`: one plain sentence naming --port, no escaped line breaks", async () => {
    const r = await run(["proxy", "--port", "-1", "--upstream", "http://127.0.0.1:9"], mkdtempSync(path.join(tmpdir(), "r49-args-")));
    expect(r.code).toBe(2);
    const first = r.err.split("\n")[0]!;
    expect(first).toContain("--port");
    expect(first).not.toContain("\\x0a");
  });

  // Fixed (was FINDING 3; host broken, low: the usage contradicts itself). `dsml-fix --help` says "--json prints
  // one JSON value on stdout for every command; an error is then one {"error": ...} object on
  // stderr", and the README "--json on each"; `dsml-fix proxy --json ...` is refused as
  // "Unknown option '--json'" in plain text. Expected: with --json, a proxy usage error is one
  // {"error"} object on stderr (here the upstream is refused before anything listens).
  // Suspected source: src/proxy/config.ts (no json option), src/cli/main.ts (proxy bypasses visible(json)).
  test("`proxy --json` is accepted as for every command: `--upstream ftp://x` is refused as one JSON object on stderr", async () => {
    const r = await run(["proxy", "--json", "--upstream", "ftp://x"], mkdtempSync(path.join(tmpdir(), "r49-args-")));
    expect(r.code).toBe(2);
    expect(r.out).toBe("");
    expect(JSON.parse(r.err)).toEqual({ error: expect.stringContaining("upstream") });
  });
});

describe("user error never prints a stack trace; hidden controls in names are escaped", () => {
  // Hard negative (passes on main): a file name carrying OSC 52 (set clipboard) and a clear-screen
  // sequence, in text and --json: one line on stderr, escaped, exit 2, stdout empty.
  test("hard negative: a missing file named with escape sequences", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "r49-args-"));
    const name = "\x1b]52;c;aGk=\x07\x1b[2J\u202Ex";
    const plain = await run(["scan", name], dir);
    expect(plain.code).toBe(2);
    expect(plain.out).toBe("");
    expect(plain.err).not.toMatch(/[\x00-\x09\x0b-\x1f\u202e]/);
    expect(plain.err).toContain("\\x1b]52;c;aGk=\\x07\\x1b[2J\\u202ex");
    expect(plain.err).not.toContain("    at ");
    const json = await run(["scan", "--json", name], dir);
    expect(json.code).toBe(2);
    expect(json.err).not.toMatch(/[\x00-\x09\x0b-\x1f\u202e]/);
    expect(JSON.parse(json.err).error).toContain(name);
  });
});
