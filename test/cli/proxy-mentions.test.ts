// Where the CLI points at the proxy: the top-level usage, `proxy --help`, and doctor when OpenCode
// does not list the plugin (someone running another agent).
import { describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { main } from "../../src/cli/main.ts";

async function run(argv: string[], env: NodeJS.ProcessEnv = {}, cwd?: string) {
  let out = "";
  let err = "";
  const code = await main(argv, { readStdin: async () => new Uint8Array(), out: (t) => (out += t), err: (t) => (err += t), env, ...(cwd ? { cwd } : {}) });
  return { code, out, err };
}

function withHome(configs: Record<string, unknown>, body: (env: NodeJS.ProcessEnv, project: string) => Promise<void>): Promise<void> {
  const root = mkdtempSync(path.join(tmpdir(), "dsml-proxy-cli-"));
  for (const d of ["home", "config/opencode", "cache/opencode", "project"]) mkdirSync(path.join(root, d), { recursive: true });
  for (const [rel, value] of Object.entries(configs)) writeFileSync(path.join(root, rel), JSON.stringify(value));
  const env = { PATH: process.env.PATH ?? "", HOME: path.join(root, "home"), XDG_CONFIG_HOME: path.join(root, "config"), XDG_CACHE_HOME: path.join(root, "cache") };
  return body(env, path.join(root, "project")).finally(() => rmSync(root, { recursive: true, force: true }));
}

describe("the CLI points at the proxy", () => {
  test("`dsml-fix --help` has a proxy line in its usage", async () => {
    const { code, out } = await run(["--help"]);
    expect(code).toBe(0);
    expect(out.split("\n").some((l) => /^\s+dsml-fix proxy --upstream URL \[--port N\] \[--host 127\.0\.0\.1\]/.test(l))).toBe(true);
  });

  test("`dsml-fix proxy --help` prints the proxy's usage on stdout and exits 0", async () => {
    const { code, out, err } = await run(["proxy", "--help"]);
    expect([code, err]).toEqual([0, ""]);
    expect(out).toContain("usage: dsml-fix proxy --upstream URL");
    expect(out).toContain("DSML_FIX_UPSTREAM");
  });

  test("doctor with no OpenCode config at all mentions the proxy in one line (text and --json)", async () => {
    await withHome({}, async (env, project) => {
      const text = await run(["doctor", project], env);
      const mentions = text.out.split("\n").filter((l) => l.includes("dsml-fix proxy"));
      expect(mentions).toEqual([expect.stringContaining("not using OpenCode? `dsml-fix proxy --upstream URL`")]);
      const json = JSON.parse((await run(["doctor", project, "--json"], env)).out);
      expect(json.proxyHint).toContain("dsml-fix proxy --upstream URL");
    });
  });

  test("doctor where OpenCode lists the plugin says nothing about the proxy", async () => {
    await withHome({ "project/opencode.json": { plugin: ["opencode-plugin-dsml-fix"], model: "deepseek/deepseek-chat" } }, async (env, project) => {
      const text = await run(["doctor", project], env);
      expect(text.out).toContain('plugin: "opencode-plugin-dsml-fix"');
      expect(text.out).not.toContain("dsml-fix proxy");
      expect(JSON.parse((await run(["doctor", project, "--json"], env)).out).proxyHint).toBeUndefined();
    });
  });
});
