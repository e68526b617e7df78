import { describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { main } from "../../src/cli/main.ts";
import { block, live } from "../golden/notation.ts";

const repoRoot = path.join(import.meta.dir, "..", "..");
const canonical = live(block("tool_calls", [["bash", [["command", "ls -la"]]]]));
const fencedDoc = "Format:\n```\n" + live(block("tool_calls", [["bash", [["command", "rm -rf /"]]]])) + "\n```\n";

async function run(argv: string[], stdin = "") {
  let out = "";
  let err = "";
  const code = await main(argv, { readStdin: async () => stdin, out: (t) => (out += t), err: (t) => (err += t) });
  return { code, out, err };
}

describe("dsml-fix scan", () => {
  test("--json prints exactly one object: a canonical V4 bash call recovered, fenced documentation untouched", async () => {
    const r = await run(["scan", "--json"], `${fencedDoc}\nRunning it:\n\n${canonical}`);
    expect(r.code).toBe(0);
    expect(r.out.trim().split("\n")).toHaveLength(1);
    expect(JSON.parse(r.out)).toEqual({
      calls: [{ tool: "bash", input: { command: "ls -la" }, shape: "D02" }],
      text: `${fencedDoc}\nRunning it:\n\n`,
      nudge: null,
      broken: [],
    });
  });

  test("OpenCode's built-in tools are assumed: read with typed numbers", async () => {
    const reply = live(block("tool_calls", [["read", [["filePath", "/a"], ["limit", "5", "false"]]]]));
    expect(JSON.parse((await run(["scan", "--json"], reply)).out).calls).toEqual([{ tool: "read", input: { filePath: "/a", limit: 5 }, shape: "D05" }]);
  });

  test("--tools limits what may become a call", async () => {
    const r = JSON.parse((await run(["scan", "--json", "--tools", "read"], canonical)).out);
    expect(r.calls).toEqual([]);
    expect(r.nudge).toBe("undeclared-tool");
    expect(r.broken).toEqual([{ shape: "B06", reason: "undeclared-tool" }]);
  });

  test("a FILE argument is read; the human report names shapes, not argument values", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "dsml-cli-"));
    const file = path.join(dir, "reply.txt");
    writeFileSync(file, canonical);
    const r = await run(["scan", file]);
    expect(r.code).toBe(0);
    expect(r.out).toContain("recovered 1 call(s)");
    expect(r.out).toContain("call bash (D02)");
    expect(r.out).not.toContain("ls -la");
  });

  test("--export reports leaks message by message", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "dsml-cli-"));
    const file = path.join(dir, "export.json");
    const messages = [
      { info: { id: "msg_user", role: "user" }, parts: [{ type: "text", text: canonical }] },
      { info: { id: "msg_clean", role: "assistant" }, parts: [{ type: "text", text: "hello" }] },
      { info: { id: "msg_leak", role: "assistant" }, parts: [{ type: "text", text: `Let me see.\n${canonical}` }] },
    ];
    writeFileSync(file, JSON.stringify({ info: { id: "ses_1" }, messages }));
    const r = await run(["scan", "--export", file, "--json"]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out)).toEqual({
      messages: [{ id: "msg_leak", calls: [{ tool: "bash", input: { command: "ls -la" }, shape: "D02" }], nudge: null, broken: [] }],
    });
  });

  test("bad usage and unreadable input: one message on stderr, exit 2", async () => {
    for (const argv of [[], ["lint"], ["scan", "--wat"], ["scan", "--tools"], ["scan", "a", "b"], ["scan", "/nonexistent/reply"], ["scan", "--export", "/nonexistent.json"]]) {
      const r = await run(argv);
      expect(r.code).toBe(2);
      expect(r.out).toBe("");
      expect(r.err.startsWith("dsml-fix: ")).toBe(true);
    }
    const dir = mkdtempSync(path.join(tmpdir(), "dsml-cli-"));
    writeFileSync(path.join(dir, "x.json"), "{not json");
    expect((await run(["scan", "--export", path.join(dir, "x.json")])).code).toBe(2);
  });

  test("the bin runs under plain node: printf REPLY | npx dsml-fix scan --json", () => {
    const r = spawnSync("node", [path.join(repoRoot, "bin", "dsml-fix.js"), "scan", "--json"], { input: canonical, encoding: "utf8" });
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout).calls).toEqual([{ tool: "bash", input: { command: "ls -la" }, shape: "D02" }]);
    const bad = spawnSync("node", [path.join(repoRoot, "bin", "dsml-fix.js"), "nope"], { encoding: "utf8" });
    expect(bad.status).toBe(2);
  });
});
