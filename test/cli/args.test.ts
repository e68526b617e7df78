import { describe, expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { parseArgs, UsageError } from "../../src/cli/args.ts";
import { main, type Io } from "../../src/cli/main.ts";
import { block, live } from "../golden/notation.ts";
import { createStore, opencodeBin } from "./session-store.ts";

const canonical = live(block("tool_calls", [["bash", [["command", "ls -la"]]]]));

async function run(argv: string[], io: Partial<Io> = {}, stdin = "") {
  let out = "";
  let err = "";
  const code = await main(argv, { readStdin: async () => new TextEncoder().encode(stdin), out: (t) => (out += t), err: (t) => (err += t), ...io });
  return { code, out, err };
}

function usageError(argv: string[]): string {
  try {
    parseArgs(argv);
  } catch (error) {
    if (error instanceof UsageError) return error.message;
    throw error;
  }
  throw new Error(`accepted: ${JSON.stringify(argv)}`);
}

describe("arguments read the way other commands read them (node:util parseArgs)", () => {
  test("--tools=bash and --tools bash are the same; -t is --tools", () => {
    for (const argv of [["scan", "--tools=bash,read"], ["scan", "--tools", "bash,read"], ["scan", "-t", "bash,read"]]) {
      const command = parseArgs(argv);
      expect(command.kind === "scan" && command.args.tools).toEqual(["bash", "read"]);
    }
  });

  test("-j is --json, never a file name; a file named -j comes after --", () => {
    for (const argv of [["scan", "-j"], ["scan", "--json"], ["scan", "reply.txt", "-j"]]) {
      const command = parseArgs(argv);
      expect(command.kind === "scan" && command.args.json).toBe(true);
      expect(command.kind === "scan" && command.args.source).toBe(argv[1] === "reply.txt" ? "reply.txt" : "-");
    }
    const dashed = parseArgs(["scan", "--", "-j"]);
    expect(dashed.kind === "scan" && [dashed.args.source, dashed.args.json]).toEqual(["-j", false]);
    const doctor = parseArgs(["doctor", "-j", "some/dir"]);
    expect(doctor).toEqual({ kind: "doctor", args: { dir: "some/dir", json: true } });
  });

  test("--export=FILE and --sessions --dir=DIR take the = form too", () => {
    const exported = parseArgs(["scan", "--export=s.json"]);
    expect(exported.kind === "scan" && exported.args.exportFile).toBe("s.json");
    const sessions = parseArgs(["scan", "--sessions", "--dir=/p", "--db=x.db", "--opencode=/bin/oc"]);
    expect(sessions.kind === "scan" && [sessions.args.dir, sessions.args.db, sessions.args.opencode]).toEqual(["/p", "x.db", "/bin/oc"]);
  });

  test("--json works on every command, help and version included", async () => {
    const help = await run(["--help", "--json"]);
    expect(help.code).toBe(0);
    expect(JSON.parse(help.out).usage).toStartWith("usage: dsml-fix scan");
    const version = await run(["-v", "-j"]);
    expect(version.code).toBe(0);
    expect(JSON.parse(version.out).version).toBeString();
    const bad = await run(["scan", "--wat", "--json"]);
    expect([bad.code, bad.out]).toEqual([2, ""]);
    expect(JSON.parse(bad.err)).toEqual({ error: "unknown option --wat" });
  });

  test("bad usage says what is wrong in one short sentence", () => {
    expect(usageError(["scan", "--wat"])).toBe("unknown option --wat");
    expect(usageError(["scan", "--tools"])).toBe("--tools needs a value");
    expect(usageError(["scan", "--tools", "--json"])).toBe("--tools needs a value");
    expect(usageError(["scan", "--json=yes"])).toBe("--json takes no value");
    expect(usageError(["scan", "a", "b"])).toBe('unexpected argument "b"');
    expect(usageError(["scan", "--dir=x"])).toBe("--dir only goes with --sessions");
    expect(usageError(["lint"])).toBe('unknown command "lint"');
    expect(usageError(["doctor", "a", "b"])).toBe('unexpected argument "b"');
  });

  test("a value option given twice is refused (which one was meant is the author's call), not the last kept", () => {
    expect(usageError(["scan", "--tools", "bash", "--tools", "read", "f"])).toBe("--tools is given twice; give it once");
    expect(usageError(["scan", "-t", "bash", "--tools=read", "f"])).toBe("--tools is given twice; give it once");
    expect(usageError(["scan", "--sessions", "--db", "a", "--db", "b"])).toBe("--db is given twice; give it once");
    // A flag without a value says the same thing twice: harmless, accepted.
    expect(parseArgs(["scan", "--json", "-j", "f"])).toMatchObject({ kind: "scan", args: { json: true, source: "f" } });
  });

  test("an empty value is a missing one (`--tools \"$TOOLS\"` with TOOLS unset would declare no tool)", () => {
    expect(usageError(["scan", "--tools", "", "f"])).toBe("--tools needs a value");
    expect(usageError(["scan", "--tools=", "f"])).toBe("--tools needs a value");
    expect(usageError(["scan", "--tools", " , ", "f"])).toBe("--tools needs a value");
    expect(usageError(["scan", "--export", ""])).toBe("--export needs a value");
  });

  test("after `--` nothing is an option: a file may be named --tools; a dash-led value says how to give it", () => {
    expect(parseArgs(["scan", "--", "--tools"])).toMatchObject({ kind: "scan", args: { source: "--tools", tools: null } });
    expect(usageError(["scan", "--tools", "-x", "f"])).toBe("--tools needs a value (write --tools=VALUE for one that starts with a dash)");
    expect(parseArgs(["scan", "--tools=-x", "f"])).toMatchObject({ args: { tools: ["-x"] } });
  });
});

describe("a terminal gets colour and a progress line; a pipe gets plain text and nothing extra", () => {
  const broken = ["scan", "--tools", "read"];

  test("colour only when stdout is a terminal and NO_COLOR is unset", async () => {
    const tty = await run(broken, { stdoutIsTTY: true, env: {} }, canonical);
    expect(tty.out).toContain("\x1b[31mrecovered 0 call(s), 1 broken span(s)");
    const piped = await run(broken, { stdoutIsTTY: false, env: {} }, canonical);
    expect(piped.out).not.toContain("\x1b");
    const noColor = await run(broken, { stdoutIsTTY: true, env: { NO_COLOR: "1" } }, canonical);
    expect(noColor.out).toBe(piped.out);
    const json = await run([...broken, "--json"], { stdoutIsTTY: true, env: {} }, canonical);
    expect(json.out).not.toContain("\x1b");
  });

  test("colour never lets the scanned text carry its own escapes", async () => {
    const hostile = live(block("tool_calls", [["no\x1b[2Jpe", [["command", "x"]]]]));
    const tty = await run(["scan"], { stdoutIsTTY: true, env: {} }, hostile);
    expect(tty.out).not.toContain("\x1b[2J");
  });

  test("--sessions shows a progress line on a terminal's stderr, and clears it; nothing when piped or with --json", async () => {
    const root = mkdtempSync(path.join(tmpdir(), "dsml-progress-"));
    const db = path.join(root, "opencode.db");
    createStore(db, root);
    const argv = ["scan", "--sessions", "--opencode", opencodeBin, "--db", db];
    const io = { env: { PATH: process.env.PATH ?? "", HOME: path.join(root, "home") }, cwd: root };
    const tty = await run(argv, { ...io, stderrIsTTY: true });
    const piped = await run(argv, { ...io, stderrIsTTY: false });
    expect([tty.code, piped.code]).toEqual([0, 0]);
    expect(piped.err).toBe("");
    expect(tty.out).toBe(piped.out);
    expect(tty.err).toStartWith("\r\x1b[2Kdsml-fix: reading stored sessions from ");
    expect(tty.err).toContain("\r\x1b[2Kdsml-fix: scanning 0 session(s) ...");
    expect(tty.err).toEndWith("\r\x1b[2K");
    const json = await run([...argv, "--json"], { ...io, stderrIsTTY: true });
    expect([json.code, json.err]).toEqual([0, ""]);
  }, 90_000);
});
