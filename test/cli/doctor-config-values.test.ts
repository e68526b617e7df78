/**
 * doctor reads a config as OpenCode 1.18.33 does before it starts: `{file:PATH}` substituted (its
 * ConfigVariable.substitute), and a `plugin` value OpenCode's schema refuses reported as such
 * (checked with `opencode debug config --pure`: "Expected array | undefined", "Expected string |
 * array", "Missing key plugin.0.1", "Unexpected key ... plugin.0.2").
 */
import { describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { main } from "../../src/cli/main.ts";
import { ConfigError, loadConfig } from "../../src/cli/opencode-config.ts";
import { MAX_REFERENCED_BYTES } from "../../src/cli/config-vars.ts";

function box() {
  const root = mkdtempSync(path.join(tmpdir(), "dsml-config-values-"));
  const project = path.join(root, "project");
  for (const d of ["home", "config/opencode", "project/.git"]) mkdirSync(path.join(root, d), { recursive: true });
  const env = { HOME: path.join(root, "home"), XDG_CONFIG_HOME: path.join(root, "config") };
  const write = (rel: string, text: string | Buffer) => {
    const file = path.join(root, rel);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, text);
    return file;
  };
  return { root, project, env, write, load: () => loadConfig(project, env) };
}

function configError(load: () => unknown): string {
  try {
    load();
  } catch (error) {
    if (error instanceof ConfigError) return error.message;
    throw error;
  }
  throw new Error("loaded");
}

describe("{file:PATH} is substituted as OpenCode substitutes it", () => {
  test("relative to the config file's own directory; ~/ from HOME; trimmed; quotes and line breaks kept as the file holds them", () => {
    const b = box();
    b.write("project/.opencode/model.txt", "deepseek/deepseek-chat\n");
    b.write("home/prompt.txt", '  say "hi"\nthen stop \n');
    b.write("project/.opencode/opencode.json", JSON.stringify({ model: "{file:./model.txt}", agent: { build: { prompt: "{file:~/prompt.txt}" } } }));
    const { config } = b.load();
    expect(config.model).toBe("deepseek/deepseek-chat");
    expect((config.agent as { build: { prompt: string } }).build.prompt).toBe('say "hi"\nthen stop');
  });

  test("a reference on a // comment line stays as written (and is not read); an empty {file:} is text", () => {
    const b = box();
    b.write("project/opencode.jsonc", `{\n  // "model": "{file:./missing.txt}",\n  "model": "{file:}x"\n}`);
    expect(b.load().config.model).toBe("{file:}x");
  });

  test("{env:} is substituted first: an {env:} naming a file reference is followed", () => {
    const b = box();
    b.write("project/m.txt", "deepseek/deepseek-reasoner");
    b.write("project/opencode.json", JSON.stringify({ model: "{env:M}" }));
    expect(loadConfig(b.project, { ...b.env, M: "{file:m.txt}" }).config.model).toBe("deepseek/deepseek-reasoner");
  });

  test("a missing file is the config error OpenCode gives (naming the reference and the path)", () => {
    const b = box();
    b.write("project/opencode.json", JSON.stringify({ model: "{file:./nope.txt}" }));
    expect(configError(b.load)).toBe(`${path.join(b.project, "opencode.json")}: bad file reference {file:./nope.txt}: ${path.join(b.project, "nope.txt")} does not exist`);
  });

  test("safe on any config: a file over the size bound, a directory and a FIFO are refused without reading them, and no message quotes a file's text", () => {
    const b = box();
    const secret = "sk-never-printed";
    b.write("project/big.txt", Buffer.alloc(MAX_REFERENCED_BYTES + 1, secret));
    b.write("project/opencode.json", JSON.stringify({ provider: { deepseek: { options: { apiKey: "{file:./big.txt}" } } } }));
    const big = configError(b.load);
    expect(big).toContain("larger than");
    expect(big).not.toContain(secret);
    b.write("project/opencode.json", JSON.stringify({ model: "{file:.}" }));
    expect(configError(b.load)).toContain("is not a regular file");
    if (spawnSync("mkfifo", [path.join(b.project, "fifo")]).status !== 0) return;
    // Opening a FIFO with no writer would block a plain read for ever: refused at once.
    b.write("project/opencode.json", JSON.stringify({ model: "{file:./fifo}" }));
    expect(configError(b.load)).toContain("is not a regular file");
  });
});

describe("a `plugin` value OpenCode 1.18 refuses (it does not start) is reported, never dropped in silence", () => {
  test.each([
    ['"opencode-plugin-dsml-fix"', 'not "opencode-plugin-dsml-fix"; write ["opencode-plugin-dsml-fix"]'],
    ["null", "not null"],
    ['[{ "package": "opencode-plugin-dsml-fix" }]', 'entry 1 is an object with key(s) "package" (package "opencode-plugin-dsml-fix"); { package, options } is OpenCode 2\'s form, and belongs under "plugins"'],
    ['["a", ["b"]]', 'entry 2 is a list of 1 item(s) starting "b"'],
    ['[["b", {}, 1]]', 'entry 1 is a list of 3 item(s) starting "b"'],
    ['[["b", []]]', 'entry 1 is a list of 2 item(s) starting "b"'],
    ['[{ "package": "x", "options": { "token": "{file:./key.txt}" } }]', 'entry 1 is an object with key(s) "package", "options" (package "x"); { package, options } is OpenCode 2\'s form, and belongs under "plugins"'],
    ["[5]", "entry 1 is 5"],
  ])("plugin: %s", (value, said) => {
    const b = box();
    b.write("project/key.txt", "sk-never-printed");
    const file = b.write("project/opencode.json", `{ "plugin": ${value} }`);
    expect(b.load().refused.map((r) => r.problem)).toEqual([`${file}: OpenCode 1.18 refuses this file and does not start: "plugin" must be a list of strings or ["name", { options }] pairs${said.startsWith("not") ? ", " : "; "}${said}`]);
  });

  test("through doctor: the refusal is a problem (exit 1), and a config with a `plugin` key gets no 'not using OpenCode?' hint", async () => {
    const b = box();
    b.write("project/opencode.json", JSON.stringify({ plugin: "some-other-plugin" }));
    let out = "";
    const code = await main(["doctor", "--json"], { readStdin: async () => new Uint8Array(), out: (t) => (out += t), err: () => {}, env: b.env, cwd: b.project });
    const report = JSON.parse(out);
    expect(code).toBe(1);
    expect(report.problems).toContain(`${path.join(b.project, "opencode.json")}: OpenCode 1.18 refuses this file and does not start: "plugin" must be a list of strings or ["name", { options }] pairs, not "some-other-plugin"; write ["some-other-plugin"]`);
    expect(report.proxyHint).toBeUndefined();
  });

  test("hard negative: names and [name, options] pairs, and no `plugin` at all, are accepted", () => {
    const b = box();
    b.write("project/opencode.json", JSON.stringify({ plugin: ["a", ["b", {}], ["./c", { providers: ["deepseek"] }]] }));
    const { refused, plugins } = b.load();
    expect([refused, plugins.map((p) => p.spec)]).toEqual([[], ["a", "b", "./c"]]);
    b.write("project/opencode.json", "{}");
    expect(b.load().refused).toEqual([]);
  });
});
