/**
 * Review 56 (hostile, tests only): `dsml-fix scan --sessions` (src/cli/sessions.ts,
 * session-store.ts) reading a hostile session store through a stand-in for the opencode binary
 * (what `opencode db` prints is what the store held): rows that are not what SESSION_QUERY
 * returns, values of the wrong type, titles and directories holding terminal escapes, output that
 * is not JSON or not UTF-8, a binary that fails. An answer every time (a number, no stack trace),
 * never an escape reaching the terminal, and the stand-in runs on a private copy of the store.
 * Every run is sandboxed in temporary folders.
 */
import { describe, expect, test } from "bun:test";
import { chmodSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { main } from "../../src/cli/main.ts";
import { block, live } from "../golden/notation.ts";

const LEAK = live(`Let me look.\n${block("tool_calls", [["bash", [["command", "ls"]]]])}`);

/** A stand-in for the opencode binary that prints `stdout` (bytes) and exits with `exitCode`. */
function fake(stdout: string | Uint8Array, exitCode = 0) {
  const dir = mkdtempSync(path.join(tmpdir(), "r56-sessions-"));
  const out = path.join(dir, "out.bin");
  writeFileSync(out, stdout);
  const script = path.join(dir, "opencode");
  writeFileSync(script, `#!/usr/bin/env node\nconst fs = require("fs");\nfs.writeFileSync(${JSON.stringify(path.join(dir, "db.txt"))}, process.env.OPENCODE_DB ?? "");\nprocess.stdout.write(fs.readFileSync(${JSON.stringify(out)}));\nprocess.exit(${exitCode});\n`);
  chmodSync(script, 0o755);
  const database = path.join(dir, "opencode.db");
  writeFileSync(database, "");
  return { script, database, dir, env: { PATH: process.env.PATH ?? "", HOME: dir, XDG_DATA_HOME: dir, XDG_CONFIG_HOME: dir } };
}

async function scan(f: ReturnType<typeof fake>, json: boolean) {
  let out = "";
  let err = "";
  let code: number | string;
  try {
    code = await main(["scan", "--sessions", ...(json ? ["--json"] : []), "--db", f.database, "--opencode", f.script], { readStdin: async () => new Uint8Array(), out: (t) => (out += t), err: (t) => (err += t), env: f.env, cwd: f.dir });
  } catch (error) {
    code = `threw ${(error as Error)?.message}`;
  }
  return { code, out, err };
}

const row = (more: Record<string, unknown>) => ({ sessionID: "ses_a", title: "t", directory: "/w", messageID: "msg_1", providerID: "deepseek", modelID: "deepseek-chat", text: LEAK, ...more });
const ESC = "\u001b]52;c;ZWNobyBwd25lZA==\u0007\u001b[2J\u202e";

describe("hostile stores: an answer every time, no stack trace, no raw escape", () => {
  const cases: [string, string | Uint8Array, number?][] = [
    ["not JSON", "Error: database is locked\n"],
    ["JSON, not a list", '{"rows": 1}'],
    ["a list of non-objects", "[1, null, \"x\", []]"],
    ["values of the wrong type", JSON.stringify([row({ text: 42 }), row({ title: null, directory: { a: 1 } }), row({ messageID: ["m"], modelID: 7 }), row({ sessionID: null })])],
    ["the text as an object holding markup", JSON.stringify([row({ text: { text: LEAK } })])],
    ["a key that pollutes a prototype", `[{"__proto__": {"polluted": true}, "sessionID": "ses_a", "title": "t", "directory": "/w", "messageID": "m", "providerID": "deepseek", "modelID": "deepseek-chat", "text": "hi"}]`],
    ["output that is not UTF-8", Buffer.concat([Buffer.from(`[${JSON.stringify(row({ text: "x" })).slice(0, -2)}`), Buffer.from([0xff, 0xfe]), Buffer.from('"}]')])],
    ["the binary fails", "boom", 3],
    ["an empty output", ""],
    ["20,000 rows of one session", JSON.stringify(Array.from({ length: 20_000 }, (_, i) => row({ messageID: `msg_${i}`, text: i % 2 ? LEAK : "plain" })))],
  ];
  for (const [name, stdout, exitCode] of cases) {
    test(name, async () => {
      const f = fake(stdout, exitCode);
      for (const json of [false, true]) {
        const r = await scan(f, json);
        expect({ json, code: typeof r.code, stack: /\n\s+at /.test(r.out + r.err), polluted: ({} as Record<string, unknown>).polluted }).toEqual({ json, code: "number", stack: false, polluted: undefined });
      }
      // The stand-in read a private copy, never the user's file.
      expect(readFileSync(path.join(f.dir, "db.txt"), "utf8")).not.toBe(f.database);
    });
  }

  test("a title, directory and model id holding terminal escapes: shown escaped, the leak still counted", async () => {
    const f = fake(JSON.stringify([row({ title: `t${ESC}`, directory: `/w${ESC}`, modelID: `deepseek-chat${ESC}` })]));
    const r = await scan(f, false);
    expect(r.code).toBe(1);
    expect(/[\u001b\u0007\u202e]/.test(r.out + r.err)).toBe(false);
    expect(r.out).toContain("\\x1b");
    const j = await scan(f, true);
    expect(/[\u001b\u0007\u202e]/.test(j.out)).toBe(false);
    expect(JSON.parse(j.out).totals.calls).toBe(1);
  });
});
