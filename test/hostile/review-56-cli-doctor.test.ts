/**
 * Review 56 (hostile, tests only): `dsml-fix doctor` (src/cli/doctor.ts, opencode-config.ts,
 * config-vars.ts, v2-config.ts) on broken and hostile config files, and `dsml-fix parse` on hostile
 * standard input. Doctor answers with a report or one usage line, never a stack trace, and never
 * prints a secret the config holds (a provider's `apiKey`, its `headers`, a `{file:}` or `{env:}`
 * that resolves to a key). `dsml-fix scan -` (the CLI's parse; there is no `parse` command) reads
 * standard input. Text after the reply's last recovered call is stripped by policy (docs/PATTERNS.md
 * S03), so "never loses text" is checked on the text before it and on the report. Every run is sandboxed: HOME and the XDG dirs are temporary folders,
 * the project has its own .git.
 */
import { describe, expect, test } from "bun:test";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { main } from "../../src/cli/main.ts";
import { block, live } from "../golden/notation.ts";
import { doctorSandbox } from "./doctor-sandbox.ts";

const NAME = "opencode-plugin-dsml-fix";
const SECRET = "sk-r56-SECRETKEY0123456789";

function sandbox() {
  return doctorSandbox("r56-cli-doctor-", SECRET);
}

async function run(argv: string[], box: ReturnType<typeof sandbox>, stdin: Uint8Array = new Uint8Array()) {
  let out = "";
  let err = "";
  let code: number | string;
  try {
    code = await main(argv, { readStdin: async () => stdin, out: (t) => (out += t), err: (t) => (err += t), env: box.env, cwd: box.project });
  } catch (error) {
    code = `threw ${(error as Error)?.name}: ${(error as Error)?.message}`;
  }
  return { code, out, err };
}

const ENTRY = `["./node_modules/${NAME}", {}]`;
/** A provider block holding the key, its headers and a base URL with the key in its query. */
const PROVIDER = `"provider": { "deepseek": { "options": { "apiKey": "${SECRET}", "baseURL": "https://api.example/v1?key=${SECRET}", "headers": { "Authorization": "Bearer ${SECRET}" } } } }`;

/** Every answer: a number, no stack trace, no secret. */
function sane(r: { code: number | string; out: string; err: string }): { code: string; stack: boolean; secret: boolean } {
  return { code: typeof r.code, stack: /\n\s+at /.test(r.out + r.err), secret: (r.out + r.err).includes(SECRET) };
}
const SANE = { code: "number", stack: false, secret: false };

describe("doctor on hostile config files: a report or a usage line, never a stack trace, never a secret", () => {
  const cases: [string, (box: ReturnType<typeof sandbox>) => void][] = [
    ["JSONC with comments, a BOM and trailing commas", (b) => b.write("project/opencode.jsonc", `\uFEFF// c\n{ /* x */ "plugin": [${ENTRY},], ${PROVIDER}, }\n`)],
    ["a syntax error on the apiKey's own line", (b) => b.write("project/opencode.json", `{ "plugin": [${ENTRY}],\n "provider": { "deepseek": { "options": { "apiKey": "${SECRET}" "headers": {} } } } }`)],
    ["an unclosed string holding the key", (b) => b.write("project/opencode.json", `{ "plugin": [${ENTRY}], "provider": { "x": { "options": { "apiKey": "${SECRET}`)],
    ["the key given twice", (b) => b.write("project/opencode.json", `{ "plugin": [${ENTRY}], "provider": { "x": { "options": { "apiKey": "${SECRET}", "apiKey": "${SECRET}" } } } }`)],
    ["a header name given twice", (b) => b.write("project/opencode.json", `{ "plugin": [${ENTRY}], "provider": { "x": { "options": { "headers": { "Authorization": "Bearer ${SECRET}", "Authorization": "Bearer ${SECRET}" } } } } }`)],
    ["the key as a {file:} reference, the file a secret", (b) => {
      b.write("home/key.txt", SECRET);
      b.write("project/opencode.json", `{ "plugin": [${ENTRY}], "provider": { "x": { "options": { "apiKey": "{file:~/key.txt}" } } } }`);
    }],
    ["a {file:} reference to a secret in a plugin option doctor refuses", (b) => {
      b.write("home/key.txt", SECRET);
      b.write("project/opencode.json", `{ "plugin": [["./node_modules/${NAME}", { "responseFix": { "denyTools": "{file:~/key.txt}" }, "apiKey": "{file:~/key.txt}" }]] }`);
    }],
    ["an {env:} key as a plugin spec", (b) => b.write("project/opencode.json", `{ "plugin": ["{env:SECRET_VAR}"] }`)],
    ["the key in the plugin's options under an unknown name", (b) => b.write("project/opencode.json", `{ "plugin": [["./node_modules/${NAME}", { "apiKey": "${SECRET}", "responseFix": { "apiKey": "${SECRET}" } }]] }`)],
    ["the key where doctor wants a list", (b) => b.write("project/opencode.json", `{ "plugin": [["./node_modules/${NAME}", { "responseFix": { "denyTools": "${SECRET}" }, "retry": { "nudge": "${SECRET}" } }]] }`)],
    ["a NUL byte and invalid UTF-8 in the file", (b) => b.write("project/opencode.json", Buffer.concat([Buffer.from(`{ "plugin": [${ENTRY}], "x": "`), Buffer.from([0x00, 0xff, 0xfe, 0xc0]), Buffer.from(`" }`)]))],
    ["a file of 8 MiB of nested arrays", (b) => b.write("project/opencode.json", `{ "plugin": [${ENTRY}], "x": ${"[".repeat(4 * 1024 * 1024)}${"]".repeat(4 * 1024 * 1024)} }`)],
    ["a symlink loop as the project config", (b) => {
      symlinkSync(path.join(b.project, "loop-b.json"), path.join(b.project, "loop-a.json"));
      symlinkSync(path.join(b.project, "loop-a.json"), path.join(b.project, "loop-b.json"));
      symlinkSync(path.join(b.project, "loop-a.json"), path.join(b.project, "opencode.json"));
    }],
    ["a directory named opencode.json and a .opencode that is a file", (b) => {
      mkdirSync(path.join(b.project, "opencode.json"));
      b.write("project/.opencode", "not a dir");
    }],
    ["a symlink loop as a .opencode plugin folder", (b) => {
      mkdirSync(path.join(b.project, ".opencode"), { recursive: true });
      symlinkSync(path.join(b.project, ".opencode", "plugins"), path.join(b.project, ".opencode", "plugins"));
      b.write("project/opencode.json", `{ "plugin": [${ENTRY}] }`);
    }],
  ];
  for (const [name, make] of cases) {
    test(name, async () => {
      const box = sandbox();
      make(box);
      expect(sane(await run(["doctor"], box))).toEqual(SANE);
      expect(sane(await run(["doctor", "--json"], box))).toEqual(SANE);
    });
  }

  /*
   * FINDING (a secret from a `{file:}` or `{env:}` printed; severity: credential leak, from a
   * misused config). Doctor substitutes `{env:}` and `{file:}` before it judges `plugin`, and a
   * `plugin` value OpenCode 1.18 refuses is named by its substituted value
   * (src/cli/opencode-config.ts refusedPlugin, `shown`): a string `plugin` in full (up to 80
   * characters, twice: "not ..." and "write [...]"), and a list entry by its first string.
   * `shown`'s own rule is that a value that may come from a `{file:}` (a key) is never printed;
   * here it is. Minimal input: `{ "plugin": "{file:~/key.txt}" }` with the key in ~/key.txt prints
   * `"plugin" must be a list ..., not "sk-..."; write ["sk-..."]`. Expected: the value as written
   * in the file (`"{file:~/key.txt}"`), or its shape only, whenever substitution changed it.
   *
   * Fixed: doctor reads each config file twice, substituted (what it judges) and as written, and
   * prints every config value through one rule (src/cli/as-written.ts shownValue): the value
   * itself when it equals what the file writes at the same place; else the string the file writes
   * there when that holds the reference; else its shape ("a substituted string of N
   * character(s)"). The other places doctor prints a config value are tested below.
   */
  test("FINDING: a refused `plugin` value from {file:} or {env:} is printed substituted", async () => {
    for (const text of [`{ "plugin": "{file:~/key.txt}" }`, `{ "plugin": "{env:SECRET_VAR}" }`, `{ "plugin": [["{env:SECRET_VAR}", "x"]] }`]) {
      const box = sandbox();
      box.write("home/key.txt", SECRET);
      box.write("project/opencode.json", text);
      const r = await run(["doctor"], box);
      // Doctor names the refusal (exit 1) ...
      expect({ text, code: r.code, named: r.out.includes("OpenCode 1.18 refuses this file") }).toEqual({ text, code: 1, named: true });
      // ... without the key, by the reference as written.
      expect({ text, ...sane(r) }).toEqual({ text, ...SANE });
      expect(r.out).toContain(text.includes("file:") ? 'not "{file:~/key.txt}"; write ["{file:~/key.txt}"]' : '"{env:SECRET_VAR}"');
    }
  });

  test("fixed: a value a substitution split off a string is named by its shape, never its text", async () => {
    // SPLIT closes the string and opens the next entry: the key stands where the file writes no string.
    const box = sandbox();
    box.env.SPLIT = `x", ["${SECRET}`;
    box.write("project/opencode.json", `{ "plugin": ["{env:SPLIT}", "y"]] }`);
    const r = await run(["doctor"], box);
    expect(sane(r)).toEqual(SANE);
    expect(r.out).toContain("entry 2 is a list of 2 item(s) starting a substituted string of 26 character(s)");
  });

  test("hard negative: a refused `plugin` value written plainly is named by its value", async () => {
    const box = sandbox();
    box.write("project/opencode.json", `{ "plugin": "./node_modules/${NAME}" }`);
    const r = await run(["doctor"], box);
    expect(r.code).toBe(1);
    expect(r.out).toContain(`write ["./node_modules/${NAME}"]`);
  });

  test("OPENCODE_CONFIG_CONTENT holding the key with a syntax error next to it", async () => {
    const box = sandbox();
    box.env.OPENCODE_CONFIG_CONTENT = `{ "plugin": [${ENTRY}], "provider": { "x": { "options": { "apiKey": "${SECRET}" ,, } } } }`;
    expect(sane(await run(["doctor"], box))).toEqual(SANE);
  });

  test("hard negative: a clean config with the key in its provider block is reported clean (exit 0)", async () => {
    const box = sandbox();
    box.write("project/opencode.json", `{ "plugin": [${ENTRY}], ${PROVIDER} }`);
    const r = await run(["doctor", "--json"], box);
    expect(sane(r)).toEqual(SANE);
    expect(JSON.parse(r.out).problems).toEqual([]);
  });
});

describe("dsml-fix scan - (the CLI's parse) on hostile standard input: never hangs, never loses text", () => {
  const LEAK = live(`Text before.\n${block("tool_calls", [["bash", [["command", "ls"]]]])}\nText after.`);

  test("invalid UTF-8 is refused with one line (a replacement character could land in a command), no stack trace", async () => {
    const r = await run(["scan", "-"], sandbox(), Buffer.concat([Buffer.from(LEAK), Buffer.from([0xff, 0xc0, 0x80])]));
    expect([r.code, r.out, r.err.trim().split("\n").length, /\n\s+at /.test(r.err)]).toEqual([2, "", 1, false]);
    expect(r.err).toContain("not valid UTF-8");
  });

  test("binary noise with NULs around a leak: the call is read, every other character reported", async () => {
    // Control characters and NULs only (printable ASCII could open a code span, which rightly holds the call as text).
    const noise = String.fromCharCode(...Array.from({ length: 256 }, (_, i) => [0, 1, 2, 3, 4, 5, 6, 7, 8, 14, 15, 16, 27, 31, 127][i % 15]!));
    const r = await run(["scan", "--json", "-"], sandbox(), Buffer.from(`${noise}${LEAK}${noise}`));
    expect(typeof r.code).toBe("number");
    const report = JSON.parse(r.out);
    expect(report.calls.map((c: { tool: string }) => c.tool)).toEqual(["bash"]);
    expect(report.text).toBe(`${noise}Text before.\n`);
  });

  test("2 MiB of one unclosed tag opener: an answer, the text kept", async () => {
    const big = live(`<{D}tool_calls>\n<{D}invoke name="bash">\n<{D}parameter name="command" string="true">`) + "x".repeat(2 * 1024 * 1024);
    const r = await run(["scan", "--json", "-"], sandbox(), Buffer.from(big));
    expect(typeof r.code).toBe("number");
    expect(JSON.parse(r.out).text).toBe(big);
  });
});

describe("fixed: every other place doctor prints a config value prints it as written, never substituted (src/cli/as-written.ts)", () => {
  /** Doctor in text and in --json: neither holds `secret`; the text output is returned. */
  async function doctorBoth(box: ReturnType<typeof sandbox>, secret = SECRET): Promise<{ text: string; json: Record<string, unknown>; code: number | string }> {
    const text = await run(["doctor"], box);
    const json = await run(["doctor", "--json"], box);
    for (const r of [text, json]) expect({ stack: /\n\s+at /.test(r.out + r.err), secret: (r.out + r.err).includes(secret) }).toEqual({ stack: false, secret: false });
    return { text: text.out + text.err, json: json.out ? JSON.parse(json.out) : {}, code: text.code };
  }
  /** A copy of the installed package in a folder whose path holds the key. */
  function secretFolder(box: ReturnType<typeof sandbox>): string {
    const folder = path.join(box.project, "node_modules", SECRET, NAME);
    mkdirSync(folder, { recursive: true });
    writeFileSync(path.join(folder, "package.json"), JSON.stringify({ name: NAME, version: "0.1.0", exports: { "./server": { import: "./server.js" } } }));
    writeFileSync(path.join(folder, "server.js"), "export default {};\n");
    return folder;
  }

  test("a plugin entry's spec, and the folder it names: the spec as written, the folder as 'the path ... names'", async () => {
    const box = sandbox();
    box.env.DSML_DIR = secretFolder(box);
    box.write("project/opencode.json", `{ "plugin": ["{env:DSML_DIR}"] }`);
    const r = await doctorBoth(box);
    expect(r.text).toContain(`plugin: "{env:DSML_DIR}" in ${path.join(box.project, "opencode.json")}`);
    expect(r.text).toContain(`  the path "{env:DSML_DIR}" names: loadable`);
    expect((r.json.plugin as { entries: unknown[] }).entries).toEqual([expect.objectContaining({ spec: "{env:DSML_DIR}", folder: 'the path "{env:DSML_DIR}" names', loadable: true })]);
  });

  test("a plugin entry's problems: a path that does not exist, a package version, the entry listed twice", async () => {
    const box = sandbox();
    box.env.MISSING = `./node_modules/dsml-fix-${SECRET}`;
    box.write("project/opencode.json", `{ "plugin": ["{env:MISSING}", "${NAME}@{env:SECRET_VAR}"] }`);
    const r = await doctorBoth(box);
    expect(r.code).toBe(1);
    expect(r.text).toContain('{env:MISSING}: the path "{env:MISSING}" names does not exist');
    expect(r.text).toContain(`${NAME}@{env:SECRET_VAR}: not in OpenCode's package cache (the path "${NAME}@{env:SECRET_VAR}" names)`);
    expect(r.text).toContain(`the plugin is listed 2 times ({env:MISSING}, ${NAME}@{env:SECRET_VAR})`);
  });

  test("a plugin entry whose file: URL names no local file: the usage error names the entry as written (exit 2)", async () => {
    const box = sandbox();
    box.write("project/opencode.json", `{ "plugin": ["file://{env:SECRET_VAR}/${NAME}"] }`);
    const r = await doctorBoth(box);
    expect(r.code).toBe(2);
    expect(r.text).toContain(`the plugin entry "file://{env:SECRET_VAR}/${NAME}" names no local file`);
  });

  test("an OpenCode 2 `plugins` entry: its spec as written (text and --json)", async () => {
    const box = sandbox();
    box.write("project/opencode.json", `{ "plugins": ["${NAME}@{env:SECRET_VAR}"] }`);
    const r = await doctorBoth(box);
    expect(r.text).toContain(`plugin (OpenCode 2): "${NAME}@{env:SECRET_VAR}"`);
    expect((r.json.v2 as { entries: { spec: string }[] }).entries.map((e) => e.spec)).toEqual([`${NAME}@{env:SECRET_VAR}`]);
  });

  test("`$schema`: the missing schema is named as written, without the path it resolves to", async () => {
    const box = sandbox();
    box.env.SCHEMA = `./node_modules/${NAME}/${SECRET}/opencode.schema.json`;
    box.write("project/opencode.json", `{ "$schema": "{env:SCHEMA}", "plugin": ["./node_modules/${NAME}"] }`);
    const r = await doctorBoth(box);
    expect(r.text).toContain(`"$schema" "{env:SCHEMA}" names a missing file (it is resolved from the file's own folder); write`);
    expect((r.json.files as { schema?: string }[]).map((f) => f.schema)).toEqual(["{env:SCHEMA}"]);
  });

  test("a model named by {env:} and a provider package from {file:}: routes, their reasons and the start-up line", async () => {
    const box = sandbox();
    box.env.MODEL = `deepseek/${SECRET}`;
    box.write("home/key.txt", SECRET);
    box.write("project/opencode.json", `{ "plugin": ["./node_modules/${NAME}"], "model": "{env:MODEL}", "provider": { "gw": { "npm": "{file:~/key.txt}", "models": { "deepseek-chat": {} } } } }`);
    const r = await doctorBoth(box);
    // Judged as the model it names (its id names no leak-prone family: off), named as written.
    expect(r.text).toContain("  {env:MODEL} (model; package not named): off");
    expect(r.text).toContain("why: the provider of {env:MODEL} is not in providers");
    expect(r.text).toContain("add the provider id of {env:MODEL} to providers");
    expect(r.text).toContain("  gw/deepseek-chat (provider; package {file:~/key.txt}): fallback");
    expect(r.text).toContain("its package {file:~/key.txt} is not one the fetch can rewrite");
    expect(r.text).toContain("gw (fallback: {file:~/key.txt})");
  });

  test("the providers option from {env:}: the providers line, a route's reason, the start-up line and its warning", async () => {
    const box = sandbox();
    box.write("project/opencode.json", `{ "plugin": [["./node_modules/${NAME}", { "providers": ["{env:SECRET_VAR}"] }]], "model": "deepseek/deepseek-chat" }`);
    const r = await doctorBoth(box);
    expect(r.text).toContain('providers: ["{env:SECRET_VAR}"]');
    expect(r.text).toContain('provider "deepseek" is not in providers ["{env:SECRET_VAR}"]');
    expect(r.text).toContain("not wired: {env:SECRET_VAR} (not configured)");
    expect(r.json.providers).toEqual(["{env:SECRET_VAR}"]);
  });

  test("the plugin's option problems quote a short value whole: one from {env:} is quoted as written", async () => {
    const SHORT = "pw-hunter2,x";
    const box = sandbox();
    box.env.SHORT = SHORT;
    box.write("project/opencode.json", `{ "plugin": [["./node_modules/${NAME}", { "responseFix": { "denyTools": ["{env:SHORT}"] }, "retry": { "nudge": "{env:SHORT}" } }]] }`);
    const r = await doctorBoth(box, SHORT);
    expect(r.code).toBe(1);
    expect(r.text).toContain('option "responseFix.denyTools" has an entry holding "," or ";" ("{env:SHORT}")');
    expect(r.text).toContain('option "retry.nudge" must be true or false (got "{env:SHORT}")');
  });

  test("an option key a substitution wrote, at the top and nested: the unknown-option lines name it by its shape", async () => {
    const box = sandbox();
    box.write("project/opencode.json", `{ "plugin": [["./node_modules/${NAME}", { "{env:SECRET_VAR}": 1, "responseFix": { "{env:SECRET_VAR}": true } }]] }`);
    const r = await doctorBoth(box);
    expect(r.code).toBe(1);
    expect(r.text).toContain("unknown option a substituted string of 26 character(s); ignored");
    // Inside a dotted path the shape stands in angle brackets, however long the key (review 57: a
    // short one there was printed as substituted).
    expect(r.text).toContain('unknown option "responseFix.<a substituted string of 26 character(s)>"; ignored');
  });

  test("a {file:} reference whose path an {env:} wrote: the error names neither (exit 2)", async () => {
    const box = sandbox();
    box.write("project/opencode.json", `{ "plugin": ["./node_modules/${NAME}"], "model": "{file:~/{env:SECRET_VAR}.txt}" }`);
    const r = await doctorBoth(box);
    expect(r.code).toBe(2);
    expect(r.text).toContain("bad file reference that an {env:} substitution wrote: its file does not exist");
  });

  test("hard negative: values written plainly beside a substituted key are printed as they are (spec, folder, model, providers, package, start-up line)", async () => {
    const box = sandbox();
    box.write("home/key.txt", SECRET);
    box.write("project/opencode.json", `{ "plugin": [["./node_modules/${NAME}", { "providers": ["deepseek", "gw"] }]], "model": "deepseek/deepseek-chat", "provider": { "deepseek": { "options": { "apiKey": "{file:~/key.txt}" } }, "gw": { "npm": "@ai-sdk/gw-x", "models": { "m": {} } } } }`);
    const r = await doctorBoth(box);
    expect(r.text).toContain(`plugin: "./node_modules/${NAME}" in ${path.join(box.project, "opencode.json")}`);
    expect(r.text).toContain(`  ${path.join(box.project, "node_modules", NAME)}: loadable`);
    expect(r.text).toContain('providers: ["deepseek","gw"]');
    expect(r.text).toContain("  deepseek/deepseek-chat (model; package not named): wire");
    expect(r.text).toContain('    why: provider "deepseek" is in providers');
    expect(r.text).toContain("  gw/m (provider; package @ai-sdk/gw-x): fallback");
    expect(r.text).toContain("wired deepseek; not wired: gw (fallback: @ai-sdk/gw-x)");
  });

  test("hard negative: a route the file also writes plainly (small_model) is named by that text though model comes from {env:}; a plain $schema is named with where it resolves", async () => {
    const box = sandbox();
    box.env.M = "deepseek/deepseek-chat";
    box.write("project/opencode.json", `{ "$schema": "./node_modules/${NAME}/missing.json", "plugin": ["./node_modules/${NAME}"], "model": "{env:M}", "small_model": "deepseek/deepseek-chat" }`);
    const r = await doctorBoth(box);
    // Written plainly as small_model too: the route is named by the file's own text.
    expect(r.text).toContain("  deepseek/deepseek-chat (model, small_model; package not named): wire");
    expect(r.text).toContain(`names a missing file (it is resolved from the file's own folder: ${path.join(box.project, "node_modules", NAME, "missing.json")})`);
  });
});
