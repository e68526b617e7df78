/**
 * Names the CLI prints come from scanned text and stored data: tool and argument names, message
 * and session ids, titles, directories, provider and model ids, config paths and plugin specs. A
 * hostile one must never reach the terminal as a control sequence (ESC clear-screen, OSC 52
 * set-clipboard, C1 CSI, a bidi override, a forged line). Every text-printing command is driven
 * with such names; text output shows them escaped, --json output stays JSON with the same values.
 */
import { describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { main } from "../../src/cli/main.ts";
import { isHiddenControl, jsonOutput, textOutput, visibleLine } from "../../src/cli/terminal.ts";

const ESC = "\u001b";
const OSC52 = `${ESC}]52;c;ZXZpbA==\u0007`;
const CLEAR = `${ESC}[2J`;
const C1_CSI = "\u009b31m";
const BIDI = "\u202etxt.exe";
const LINE = "\u2028forged";
const HOSTILE = `${OSC52}${CLEAR}${C1_CSI}${BIDI}${LINE}\rnext\nline\u007f\u200b`;

async function run(argv: string[], options: { stdin?: string; env?: NodeJS.ProcessEnv; cwd?: string } = {}) {
  let out = "";
  let err = "";
  const bytes = new TextEncoder().encode(options.stdin ?? "");
  const code = await main(argv, { readStdin: async () => bytes, out: (t) => (out += t), err: (t) => (err += t), env: options.env, cwd: options.cwd });
  return { code, out, err };
}

/** Only line ends of our own; every other hidden control character escaped. */
function expectVisible(text: string): void {
  for (const line of text.split("\n")) {
    const hidden = [...line].filter((c) => isHiddenControl(c.charCodeAt(0)));
    expect({ line, hidden }).toEqual({ line, hidden: [] });
  }
}

const hermes = (name: string, args: Record<string, unknown>) => `<tool_call>\n${JSON.stringify({ name, arguments: args })}\n</tool_call>`;

describe("text output escapes every hidden control character", () => {
  test("visibleLine: C0, DEL, C1, bidi, zero-width and line separators as \\xHH / \\uHHHH; plain text untouched", () => {
    expect(visibleLine(`a${CLEAR}b\u0007\u007f\u009b\u202e\u2066\u200b\u2028\ufeff\n\r\t`)).toBe("a\\x1b[2Jb\\x07\\x7f\\x9b\\u202e\\u2066\\u200b\\u2028\\ufeff\\x0a\\x0d\\x09");
    expect(visibleLine("plain ä ü 漢字 {D} -> ok")).toBe("plain ä ü 漢字 {D} -> ok");
    expect(textOutput(["one", `two${ESC}`])).toBe("one\ntwo\\x1b\n");
  });

  test("jsonOutput: the same value, no hidden control character left raw (C1 and U+2028 included)", () => {
    const value = { name: HOSTILE, list: [C1_CSI, LINE, "\u0085"] };
    const json = jsonOutput(value);
    expect(JSON.parse(json)).toEqual(value);
    expect(json.endsWith("\n")).toBe(true);
    expectVisible(json.slice(0, -1));
  });

  test("scan: tool and argument names from the scanned text (undeclared, and declared through --tools)", async () => {
    const reply = hermes(`x${OSC52}`, { [`k${CLEAR}${BIDI}`]: 1 });
    const undeclared = await run(["scan"], { stdin: reply });
    expect(undeclared.code).toBe(1);
    // Review 44: a name no scanned tool declares is the model's own and is never printed, only counted.
    expect(undeclared.out).toContain("(undeclared tool, 17 character(s))");
    expect(undeclared.out).not.toContain("x\\x1b]52");
    expectVisible(undeclared.out);
    // Declared through --tools (no schema, so the key is undeclared): the tool name printed, escaped.
    const declared = await run(["scan", "--tools", `x${OSC52},read`], { stdin: reply });
    expect(declared.out).toContain("call x\\x1b]52;c;ZXZpbA==\\x07 (O01) args: 1 undeclared");
    expectVisible(declared.out);
    const json = await run(["scan", "--json", "--tools", `x${OSC52}`], { stdin: reply });
    expectVisible(json.out.slice(0, -1));
    expect(JSON.parse(json.out).calls[0].tool).toBe(`x${OSC52}`);
  });

  test("scan --export: message ids and names", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "dsml-term-"));
    const file = path.join(dir, "export.json");
    const messages = [{ info: { id: `msg${HOSTILE}`, role: "assistant" }, parts: [{ type: "text", text: hermes(`t${C1_CSI}`, {}) }] }];
    writeFileSync(file, JSON.stringify({ messages }));
    const r = await run(["scan", "--export", file]);
    expect(r.out).toStartWith("message msg\\x1b]52;c;");
    expectVisible(r.out);
    const json = await run(["scan", "--export", file, "--json"]);
    expectVisible(json.out.slice(0, -1));
    expect(JSON.parse(json.out).messages[0].id).toBe(`msg${HOSTILE}`);
  });

  test("scan --sessions: session ids, titles, directories, provider and model ids", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "dsml-term-"));
    const rows = [{ sessionID: `ses${CLEAR}`, title: `t${HOSTILE}`, directory: `/w${HOSTILE}`, messageID: `m${OSC52}`, providerID: `p${C1_CSI}`, modelID: `m${BIDI}`, text: hermes("bash", { command: "ls" }) }];
    writeFileSync(path.join(dir, "rows.json"), JSON.stringify(rows));
    const script = path.join(dir, "opencode");
    writeFileSync(script, `#!/usr/bin/env node\nprocess.stdout.write(require("fs").readFileSync(${JSON.stringify(path.join(dir, "rows.json"))}, "utf8"));\n`);
    chmodSync(script, 0o755);
    const database = path.join(dir, "opencode.db");
    writeFileSync(database, "");
    const env = { PATH: process.env.PATH ?? "" };
    const r = await run(["scan", "--sessions", "--db", database, "--opencode", script], { env });
    expect(r.err).toBe("");
    expect(r.out).toContain("session ses\\x1b[2J");
    expect(r.out).toContain("p\\x9b31m/m\\u202etxt.exe");
    expectVisible(r.out);
    const json = await run(["scan", "--sessions", "--json", "--db", database, "--opencode", script], { env });
    expectVisible(json.out.slice(0, -1));
    expect(JSON.parse(json.out).sessions[0].directory).toBe(`/w${HOSTILE}`);
  });

  test("doctor: plugin specs, provider and model ids from the config", async () => {
    const root = mkdtempSync(path.join(tmpdir(), "dsml-term-"));
    for (const d of ["home", "config/opencode", "cache/opencode", "project"]) mkdirSync(path.join(root, d), { recursive: true });
    const env = { PATH: process.env.PATH ?? "", HOME: path.join(root, "home"), XDG_CONFIG_HOME: path.join(root, "config"), XDG_CACHE_HOME: path.join(root, "cache") };
    const config = { plugin: [`./dsml-fix${HOSTILE}`], model: `deep${CLEAR}/deepseek${C1_CSI}`, provider: { [`p${OSC52}`]: { models: { [`m${BIDI}`]: {} } } } };
    writeFileSync(path.join(root, "project", "opencode.json"), JSON.stringify(config));
    const r = await run(["doctor"], { env, cwd: path.join(root, "project") });
    expect(r.code).toBe(1);
    expect(r.out).toContain("deep\\x1b[2J/deepseek\\x9b31m");
    expect(r.out).toContain("dsml-fix\\x1b]52;c;");
    expectVisible(r.out);
    const json = await run(["doctor", "--json"], { env, cwd: path.join(root, "project") });
    expectVisible(json.out.slice(0, -1));
    expect(JSON.parse(json.out).plugin.entries[0].spec).toBe(`./dsml-fix${HOSTILE}`);
  });

  test("error messages on stderr: an unreadable FILE and a bad option name", async () => {
    const missing = await run(["scan", `/nonexistent/${HOSTILE}`]);
    expect(missing.code).toBe(2);
    expect(missing.err).toStartWith("dsml-fix: cannot read /nonexistent/\\x1b]52;c;");
    expectVisible(missing.err);
    const usage = await run(["scan", `--${CLEAR}`]);
    expect(usage.code).toBe(2);
    expectVisible(usage.err);
  });
});
