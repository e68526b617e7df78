import { describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { main } from "../../src/cli/main.ts";
import { block, live } from "../golden/notation.ts";

const repoRoot = path.join(import.meta.dir, "..", "..");
const canonical = live(block("tool_calls", [["bash", [["command", "ls -la"]]]]));
const fencedDoc = "Format:\n```\n" + live(block("tool_calls", [["bash", [["command", "rm -rf /"]]]])) + "\n```\n";

const bin = path.join(repoRoot, "bin", "dsml-fix.js");
const version = (JSON.parse(readFileSync(path.join(repoRoot, "package.json"), "utf8")) as { version: string }).version;
/** A leaked call whose command was saved as Latin-1 ("ls caf\xE9"): decoded leniently it would run `ls caf\uFFFD`. */
const [beforeCommand, afterCommand] = canonical.split("ls -la") as [string, string];
const latin1Leak = Buffer.concat([Buffer.from(`${beforeCommand}ls caf`), Buffer.from([0xe9]), Buffer.from(afterCommand)]);

async function run(argv: string[], stdin: string | Uint8Array = "", stdinIsTTY = false) {
  let out = "";
  let err = "";
  const bytes = typeof stdin === "string" ? new TextEncoder().encode(stdin) : stdin;
  const code = await main(argv, { readStdin: async () => bytes, stdinIsTTY, out: (t) => (out += t), err: (t) => (err += t) });
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

  test("review 44: the text report prints only declared names; a token the model wrote as a name is counted, never printed", async () => {
    const token = "ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8";
    const cases: [string, string][] = [
      // An extra key bash's schema does not declare: the call is refused (the host would drop the key; review 50), the key never named.
      [`<tool_call>{"name":"bash","arguments":{"command":"ls","${token}":"x"}}</tool_call>`, "broken O01: an argument is not a parameter of this tool (tool bash)"],
      // A tool no tool has: its name's length only.
      [`<tool_call>{"name":"${token}","arguments":{"command":"ls"}}</tool_call>`, "(undeclared tool, 40 character(s))"],
      // An opener attribute no body reads: named only when it is a declared parameter.
      [`<tool_call name="bash" ${token}="1">{"command":"ls"}</tool_call>`, "the opening tag carries an attribute no parameter reads (tool bash)"],
      [`<shell ${token}="1">ls</shell>`, "the opening tag carries an attribute no parameter reads"],
      // A tool-named element form with a child no parameter has.
      [`<bash>\n<command>ls</command>\n<${token}>x</${token}>\n</bash>`, "an element is not a parameter of bash (tool bash)"],
    ];
    for (const [reply, expected] of cases) {
      const r = await run(["scan"], reply);
      expect({ reply, out: r.out }).toEqual({ reply, out: expect.stringContaining(expected) });
      expect(r.out).not.toContain(token);
    }
    const declared = await run(["scan"], `<tool_call name="bash" timeout="5">{"command":"ls"}</tool_call>`);
    expect(declared.out).toContain("the opening tag carries timeout=, which no parameter reads (tool bash)");
  });

  test("--export reports leaks message by message", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "dsml-cli-"));
    const file = path.join(dir, "export.json");
    const messages = [
      { info: { id: "msg_user", role: "user" }, parts: [{ type: "text", text: "list the files" }] },
      { info: { id: "msg_clean", role: "assistant" }, parts: [{ type: "text", text: "hello" }] },
      { info: { id: "msg_leak", role: "assistant" }, parts: [{ type: "text", text: `Let me see.\n${canonical}` }] },
    ];
    writeFileSync(file, JSON.stringify({ info: { id: "ses_1" }, messages }));
    const r = await run(["scan", "--export", file, "--json"]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out)).toEqual({
      messages: [{ id: "msg_leak", calls: [{ tool: "bash", input: { command: "ls -la" }, shape: "D02" }], nudge: null, broken: [] }],
      // What the echo guard cannot judge from an export (review 48, finding 4).
      notJudged: ["system-prompt", "tool-declarations"],
    });
  });

  test("--export reads each reply as the plugin does: markup given to the model before it (a user message, an earlier tool result) is an echo, never a call", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "dsml-cli-"));
    const echoed = { shape: "D02", reason: "echoed-markup" };
    const scanOf = async (messages: unknown[]) => {
      const file = path.join(dir, `export-${Math.random().toString(36).slice(2)}.json`);
      writeFileSync(file, JSON.stringify({ info: { id: "ses_1" }, messages }));
      const r = await run(["scan", "--export", file, "--json"]);
      return { code: r.code, messages: JSON.parse(r.out).messages.map((m: { id: string; calls: unknown[]; broken: unknown[] }) => ({ id: m.id, calls: m.calls.length, broken: m.broken })) };
    };
    const reply = (id: string) => ({ info: { id, role: "assistant" }, parts: [{ type: "text", text: `Let me see.\n${canonical}` }] });
    // The user gave the markup: the reply quoting it is reported as the plugin reports it. A quote
    // is owed nothing (no correction), and is no broken markup of the model's own: exit 0.
    expect(await scanOf([{ info: { id: "msg_user", role: "user" }, parts: [{ type: "text", text: canonical }] }, reply("msg_a")])).toEqual({ code: 0, messages: [{ id: "msg_a", calls: 0, broken: [echoed] }] });
    // An earlier tool result held it (a file the model read).
    const read = { info: { id: "msg_read", role: "assistant" }, parts: [{ type: "tool", tool: "read", state: { status: "completed", input: { filePath: "README.md" }, output: `# Notes\n${canonical}` } }] };
    expect(await scanOf([{ info: { id: "msg_user", role: "user" }, parts: [{ type: "text", text: "read the README" }] }, read, reply("msg_a")])).toEqual({ code: 0, messages: [{ id: "msg_a", calls: 0, broken: [echoed] }] });
    // Given only after the reply (a later user message, the reply's own tool result): the reply's call stands.
    const own = { ...reply("msg_a"), parts: [...reply("msg_a").parts, { type: "tool", tool: "bash", state: { status: "completed", input: {}, output: canonical } }] };
    expect(await scanOf([own, { info: { id: "msg_user", role: "user" }, parts: [{ type: "text", text: canonical }] }])).toEqual({ code: 0, messages: [{ id: "msg_a", calls: 1, broken: [] }] });
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
    const r = spawnSync("node", [bin, "scan", "--json"], { input: canonical, encoding: "utf8" });
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout).calls).toEqual([{ tool: "bash", input: { command: "ls -la" }, shape: "D02" }]);
    const bad = spawnSync("node", [bin, "nope"], { encoding: "utf8" });
    expect(bad.status).toBe(2);
  });

  test("exit status: 0 when nothing is broken (recovered calls included), 1 when broken markup is found", async () => {
    expect((await run(["scan"], "just prose")).code).toBe(0);
    expect((await run(["scan", "--json"], canonical)).code).toBe(0);
    const broken = await run(["scan", "--tools", "read"], canonical);
    expect(broken.code).toBe(1);
    expect(broken.out).toContain("1 broken span(s)");
    expect((await run(["scan", "--json", "--tools", "read"], canonical)).code).toBe(1);
  });

  test("--export: exit 1 when any assistant message holds broken markup, 0 when all are clean or recovered", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "dsml-cli-"));
    const file = path.join(dir, "export.json");
    const exported = (text: string) => JSON.stringify({ messages: [{ info: { id: "msg_a", role: "assistant" }, parts: [{ type: "text", text }] }] });
    writeFileSync(file, exported(canonical));
    expect((await run(["scan", "--export", file])).code).toBe(0);
    expect((await run(["scan", "--export", file, "--tools", "read"])).code).toBe(1);
  });

  test("--help, -h, help and scan --help print the usage on stdout and exit 0", async () => {
    for (const argv of [["--help"], ["-h"], ["help"], ["scan", "--help"], ["scan", "-h"]]) {
      const r = await run(argv);
      expect(r.code).toBe(0);
      expect(r.err).toBe("");
      expect(r.out).toStartWith("usage: dsml-fix scan");
      expect(r.out).toContain("Exit status: 0");
    }
  });

  test("--version and -v print the package version on stdout and exit 0", async () => {
    for (const argv of [["--version"], ["-v"]]) {
      const r = await run(argv);
      expect(r).toEqual({ code: 0, out: `${version}\n`, err: "" });
    }
  });

  test("scan from a terminal says on stderr that it is reading standard input; from a pipe it says nothing", async () => {
    const typed = await run(["scan"], canonical, true);
    expect(typed.err).toContain("reading a reply from standard input");
    expect(typed.out).toContain("recovered 1 call(s)");
    const piped = await run(["scan"], canonical, false);
    expect(piped.err).toBe("");
    // A FILE argument never waits on the terminal.
    const dir = mkdtempSync(path.join(tmpdir(), "dsml-cli-"));
    writeFileSync(path.join(dir, "reply.txt"), canonical);
    expect((await run(["scan", path.join(dir, "reply.txt")], "", true)).err).toBe("");
  });

  test("input that is not UTF-8 is reported (exit 2), never recovered as a command holding U+FFFD", async () => {
    const piped = await run(["scan", "--json"], latin1Leak);
    expect(piped.code).toBe(2);
    expect(piped.out).toBe("");
    expect(piped.err).toContain("standard input is not valid UTF-8");
    const dir = mkdtempSync(path.join(tmpdir(), "dsml-cli-"));
    const file = path.join(dir, "latin1.txt");
    writeFileSync(file, latin1Leak);
    const fromFile = await run(["scan", "--json", file]);
    expect(fromFile.code).toBe(2);
    expect(fromFile.err).toContain(`${file} is not valid UTF-8`);
    const exportFile = path.join(dir, "export.json");
    writeFileSync(exportFile, Buffer.concat([Buffer.from('{"messages":[],"x":"'), Buffer.from([0xff]), Buffer.from('"}')]));
    expect((await run(["scan", "--export", exportFile])).code).toBe(2);
  });

  test("the bin, as a process: --help and --version on stdout with exit 0, exit 1 on broken markup, exit 2 on Latin-1 input", () => {
    const help = spawnSync("node", [bin, "--help"], { encoding: "utf8" });
    expect([help.status, help.stdout.startsWith("usage: dsml-fix"), help.stderr]).toEqual([0, true, ""]);
    const shown = spawnSync("node", [bin, "--version"], { encoding: "utf8" });
    expect([shown.status, shown.stdout]).toEqual([0, `${version}\n`]);
    const broken = spawnSync("node", [bin, "scan", "--tools", "read"], { input: canonical, encoding: "utf8" });
    expect(broken.status).toBe(1);
    const latin1 = spawnSync("node", [bin, "scan", "--json"], { input: latin1Leak, encoding: "utf8" });
    expect([latin1.status, latin1.stdout]).toEqual([2, ""]);
    expect(latin1.stderr).toContain("not valid UTF-8");
  }, 30_000); // a timeout, not a speed assertion: four node processes, over 5 s with other runs on the machine
});

describe("dsml-fix scan --export on a file that is not what `opencode export` writes", () => {
  const glmCut = '<tool_call>\n{"name": "bash", "arguments": {"command": "ls"}\n</tool_call>';
  const scanExport = async (doc: unknown, json = false) => {
    const file = path.join(mkdtempSync(path.join(tmpdir(), "dsml-export-")), "export.json");
    writeFileSync(file, JSON.stringify(doc));
    return run(["scan", "--export", file, ...(json ? ["--json"] : [])]);
  };

  test.each([
    ["a null message", { messages: [null] }, "message 1 is not an object"],
    ["a message without info", { messages: [{ parts: [] }] }, "message 1 has no info object"],
    ["parts that are a string", { messages: [{ info: { role: "assistant", id: "msg_1" }, parts: "text" }] }, "message 1 has parts that are not a list of objects"],
    ["a null part", { messages: [{ info: { role: "user" }, parts: [] }, { info: { role: "assistant", id: "msg_1" }, parts: [null] }] }, "message 2 has parts that are not a list of objects"],
  ])("%s: exit 2 with one clear line, never a throw or the 'broken markup found' status", async (_name, doc, why) => {
    const text = await scanExport(doc);
    expect([text.code, text.err.includes(why)]).toEqual([2, true]);
    const json = await scanExport(doc, true);
    expect([json.code, JSON.parse(json.err).error.includes(why)]).toEqual([2, true]);
  });

  test("an id that is no string is reported as ?, and the message is still scanned", async () => {
    const r = await scanExport({ messages: [{ info: { role: "assistant", id: { toString: 1 } }, parts: [{ type: "text", text: glmCut }] }] }, true);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.out).messages.map((m: { id: string }) => m.id)).toEqual(["?"]);
  });
});
