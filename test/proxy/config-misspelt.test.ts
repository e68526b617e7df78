/**
 * The proxy's config file: its repair options go through the plugin's reader (a misspelt key in
 * `options` fails closed there), and its own top-level keys follow the same rule (closedBecause):
 * `responseFix` written beside `options` instead of in it, or `"option": { ... }`, would otherwise
 * be dropped in silence while the operator believes bash is denied. Each gets one problem line on
 * start-up (stderr) and no recovered call until it is fixed.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { EventEmitter } from "node:events";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { proxyConfig } from "../../src/proxy/config.ts";
import { runProxy } from "../../src/proxy/run.ts";
import { block, live } from "../golden/notation.ts";
import { chatSse, pieces, startUpstream, TOOLS, type Upstream } from "./support.ts";

const LEAK = live(`Reading.\n\n${block("tool_calls", [["read", [["path", "a.ts"]]]])}`);

let dir: string;
let upstream: Upstream;
beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "dsml-proxy-misspelt-"));
  upstream = await startUpstream();
  upstream.answer((_req, res) => res.writeHead(200, { "content-type": "text/event-stream" }).end(chatSse(pieces(LEAK))));
});
afterAll(async () => {
  await upstream.close();
  rmSync(dir, { recursive: true, force: true });
});

let files = 0;
function configFile(content: unknown): string {
  const file = path.join(dir, `proxy-${files++}.json`);
  writeFileSync(file, JSON.stringify(content));
  return file;
}

/** The proxy started as the CLI starts it: its stderr lines, and the calls it recovers from LEAK. */
async function run(content: unknown): Promise<{ err: string[]; calls: string[] }> {
  const out: string[] = [];
  const err: string[] = [];
  const signals = new EventEmitter();
  const argv = ["--config", configFile(content), "--upstream", `${upstream.url}/v1`, "--port", "0"];
  const running = runProxy(argv, { out: (lines) => out.push(...lines), err: (lines) => err.push(...lines), env: {} }, signals);
  try {
    for (let i = 0; i < 400 && !out.some((line) => line.includes("->")); i++) await new Promise((resolve) => setTimeout(resolve, 5));
    const port = /127\.0\.0\.1:(\d+)/.exec(out.join("\n"))![1];
    const body = { model: "deepseek-chat", stream: true, messages: [{ role: "user", content: "read a.ts" }], tools: TOOLS };
    const res = await fetch(`http://127.0.0.1:${port}/v1/chat/completions`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body), signal: AbortSignal.timeout(5000) });
    const text = await res.text();
    const events = text.split("\n").filter((line) => line.startsWith("data: {")).map((line) => JSON.parse(line.slice(6)));
    const calls = events.flatMap((event) => (event.choices?.[0]?.delta?.tool_calls ?? []).flatMap((call: { function?: { name?: string } }) => (call.function?.name ? [call.function.name] : [])));
    return { err, calls };
  } finally {
    signals.emit("SIGTERM");
    await running;
  }
}

describe("a misspelt security key in the proxy's config file fails closed, with one line on start-up", () => {
  const cases: [string, unknown, string][] = [
    ["responseFix beside options, not in it", { responseFix: { denyTools: ["read"] } }, '"responseFix"'],
    ["options misspelt as option", { option: { responseFix: { denyTools: ["read"] } } }, '"option"'],
    ["denyTools at the file's top level", { denyTools: ["read"] }, '"denyTools"'],
    ["respFix inside options", { options: { respFix: { denyTools: ["read"] } } }, '"respFix"'],
    ["responseFix.denytools inside options", { options: { responseFix: { denytools: ["read"] } } }, '"responseFix.denytools"'],
  ];
  for (const [name, content, key] of cases) {
    test(name, async () => {
      const { err, calls } = await run(content);
      expect({ name, calls }).toEqual({ name, calls: [] });
      const lines = err.filter((line) => line.includes(key));
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain("no tool call is recovered until it is fixed");
      expect(err).toHaveLength(1);
    });
  }
});

describe("hard negatives", () => {
  test("correct keys: the call is recovered, nothing on stderr; a correct deny list denies", async () => {
    expect(await run({ options: { responseFix: { denyTools: ["bash"] } } })).toEqual({ err: [], calls: ["read"] });
    expect(await run({ $schema: "https://example.test/proxy.json", debug: false, options: {} })).toEqual({ err: [], calls: ["read"] });
    expect((await run({ options: { responseFix: { denyTools: ["read"] } } })).calls).toEqual([]);
  });

  test("an unrelated unknown key is reported and closes nothing", async () => {
    const { err, calls } = await run({ colour: "red" });
    expect(calls).toEqual(["read"]);
    expect(err).toHaveLength(1);
    expect(err[0]).toContain('unknown config file key "colour"; ignored');
    expect(err[0]).not.toContain("no tool call");
  });

  test("the settled options say so too (proxyConfig)", () => {
    const closed = proxyConfig(["--upstream", "http://127.0.0.1:1/v1", "--config", configFile({ responseFix: { denyTools: ["read"] }, options: { responseFix: { echoGuard: true, bufferLimit: 4096 } } })]);
    expect(closed.options.responseFix).toMatchObject({ allowTools: [], denyTools: ["*"], echoGuard: true, bufferLimit: 4096 });
    const open = proxyConfig(["--upstream", "http://127.0.0.1:1/v1", "--config", configFile({ colour: "red" })]);
    expect(open.options.responseFix).toMatchObject({ allowTools: ["*"], denyTools: [] });
  });
});
