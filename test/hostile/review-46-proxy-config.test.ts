/**
 * Review 46 (proxy config, src/proxy/config.ts): the config file is read with
 * `JSON.parse(stripJsonComments(text))`. Duplicate keys, JSONC that editors write (a comment after
 * a trailing comma), a byte order mark and values of the wrong type are read here.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { EventEmitter } from "node:events";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { ProxyUsageError, proxyConfig } from "../../src/proxy/config.ts";
import { runProxy } from "../../src/proxy/run.ts";
import { block, live } from "../golden/notation.ts";
import { chatSse, pieces, startUpstream, TOOLS, type Upstream } from "../proxy/support.ts";

const LEAK = live(`Reading.\n\n${block("tool_calls", [["read", [["path", "a.ts"]]]])}`);

let dir: string;
let upstream: Upstream;
beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "dsml-proxy-r46-"));
  upstream = await startUpstream();
  upstream.answer((_req, res) => res.writeHead(200, { "content-type": "text/event-stream" }).end(chatSse(pieces(LEAK))));
});
afterAll(async () => {
  await upstream.close();
  rmSync(dir, { recursive: true, force: true });
});

let files = 0;
/** A config file holding exactly `text` (not JSON.stringify: duplicate keys and comments are the point). */
function configText(text: string): string {
  const file = path.join(dir, `proxy-${files++}.jsonc`);
  writeFileSync(file, text);
  return file;
}

/** The proxy started as the CLI starts it: its stderr lines, and the calls it recovers from LEAK (a `read` call). */
async function run(text: string): Promise<{ err: string[]; calls: string[] }> {
  const out: string[] = [];
  const err: string[] = [];
  const signals = new EventEmitter();
  const argv = ["--config", configText(text), "--upstream", `${upstream.url}/v1`, "--port", "0", "--host", "127.0.0.1"];
  const running = runProxy(argv, { out: (lines) => out.push(...lines), err: (lines) => err.push(...lines), env: {} }, signals);
  try {
    for (let i = 0; i < 400 && !out.some((line) => line.includes("->")); i++) await new Promise((resolve) => setTimeout(resolve, 5));
    const port = /127\.0\.0\.1:(\d+)/.exec(out.join("\n"))![1];
    const body = { model: "deepseek-chat", stream: true, messages: [{ role: "user", content: "read a.ts" }], tools: TOOLS };
    const res = await fetch(`http://127.0.0.1:${port}/v1/chat/completions`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body), signal: AbortSignal.timeout(5000) });
    const sse = await res.text();
    const events = sse.split("\n").filter((line) => line.startsWith("data: {")).map((line) => JSON.parse(line.slice(6)));
    const calls = events.flatMap((event) => (event.choices?.[0]?.delta?.tool_calls ?? []).flatMap((call: { function?: { name?: string } }) => (call.function?.name ? [call.function.name] : [])));
    return { err, calls };
  } finally {
    signals.emit("SIGTERM");
    await running;
  }
}

/** proxyConfig on a file holding `text`: the settled config, or the usage error's message. */
function settle(text: string): ReturnType<typeof proxyConfig> | string {
  try {
    return proxyConfig(["--config", configText(text), "--upstream", "http://127.0.0.1:9/v1"], {});
  } catch (error) {
    if (error instanceof ProxyUsageError) return error.message;
    throw error;
  }
}

// FINDING (high: a security option dropped in silence). A key written twice keeps only its last
// value (JSON.parse), with no problem line: `"options"` given twice (two blocks pasted from the
// docs, one holding the deny list) loses `responseFix.denyTools` and the denied tool's leaked calls
// run. Expected: the file is refused (a usage error naming the key) or the proxy fails closed
// with one problem line, as it does for a misspelt security key (test/proxy/config-misspelt.test.ts);
// observed: stderr is empty and `read` is recovered. The same holds for `responseFix` twice inside
// `options`, and for a route prefix given twice in `routes` (the first URL dropped).
// Suspected: src/proxy/config.ts readConfigFile (JSON.parse keeps the last of duplicate keys).
describe("a key given twice in the config file", () => {
  test("`options` twice: the first one's denyTools still denies, or the file is refused", async () => {
    const text = `{\n  "options": { "responseFix": { "denyTools": ["read"] } },\n  "options": { "parse": {} }\n}\n`;
    const settled = settle(text);
    if (typeof settled === "string") return; // refused: fine
    const { err, calls } = await run(text);
    expect({ calls, warned: err.length > 0 }).toEqual({ calls: [], warned: true });
  });

  test("`responseFix` twice inside `options`: the first one's denyTools still denies, or the file is refused", async () => {
    const text = `{ "options": { "responseFix": { "denyTools": ["read"] }, "responseFix": { "echoGuard": true } } }`;
    const settled = settle(text);
    if (typeof settled === "string") return; // refused: fine
    const { err, calls } = await run(text);
    expect({ calls, warned: err.length > 0 }).toEqual({ calls: [], warned: true });
  });

  // Hard negative (passes today): written once, even with an escaped key, the deny list denies.
  test("hard negative: denyTools given once (its key written with an escape) denies", async () => {
    const { err, calls } = await run(`{ "options": { "responseFix": { "deny\\u0054ools": ["read"] } } }`);
    expect({ calls, err }).toEqual({ calls: [], err: [] });
  });
});

// FINDING (medium: a deny list that does not apply, in silence). A deny list entry with a blank
// around the name (`"read "`, `" read"`: a copy-paste or a YAML-to-JSON slip) is accepted as it is
// and matches no tool, since no tool name holds a blank (OpenAI and Anthropic allow only
// [A-Za-z0-9_-]): the `read` call is recovered and stderr is empty. The resolver already fails
// closed for `""` in the same list ("must be an array of non-empty tool name strings"). Expected:
// the entry is trimmed, or the list fails closed with one problem line; observed: `read` runs.
// Suspected: src/plugin/options.ts / src/options/spec.ts (the denyTools validation).
describe("a deny list entry with blanks around the name", () => {
  for (const name of ["read ", " read", "read\\n"]) {
    test(`denyTools [${JSON.stringify(name)}] denies read or is reported`, async () => {
      const { err, calls } = await run(`{ "options": { "responseFix": { "denyTools": ["${name}"] } } }`);
      expect(calls.length === 0 || err.length > 0).toBe(true);
    });
  }
});

// FINDING (low: a valid JSONC file refused). A trailing comma followed by a comment (`"port": 0, //
// ours` on the last line, the way VS Code writes JSONC) is kept, because closesNext looks at the
// raw text after the comma, where the comment still stands; JSON.parse then fails with "Property
// name must be a string literal". Same for `/* */` and for more than 64 blanks before the brace.
// Expected: read as JSONC. Suspected: src/proxy/config.ts stripJsonComments / closesNext.
describe("JSONC as editors write it", () => {
  for (const [name, text] of [
    ["a line comment after the trailing comma", `{\n  "upstream": "http://127.0.0.1:9/v1", // DeepSeek\n  "port": 0, // any free port\n}\n`],
    ["a block comment after the trailing comma", `{ "upstream": "http://127.0.0.1:9/v1", "port": 0, /* any free port */ }`],
    ["a trailing comma, then 80 blank characters", `{ "upstream": "http://127.0.0.1:9/v1", "port": 0,${" ".repeat(80)}}`],
  ] as const) {
    test(name, () => {
      const settled = settle(text);
      expect(typeof settled === "string" ? settled : settled.port).toBe(0);
    });
  }

  // Hard negative (passes today): a comment before the comma, and `//` inside strings, are fine.
  test("hard negative: a comment on a line whose comma comes first is read", () => {
    const settled = settle(`{\n  "healthPath": "/a//b", // a comment\n  "port": 0\n}`);
    expect(typeof settled === "string" ? settled : [settled.port, settled.healthPath]).toEqual([0, "/a//b"]);
  });
});

// FINDING (low: a file every editor reads is refused with an unclear message). A config file saved
// with a UTF-8 byte order mark (Windows Notepad) is refused: "is not a JSON/JSONC object: JSON
// Parse error: Unrecognized token" with the invisible BOM as the token. Expected: read (the
// history pass skips a BOM in request bodies: src/adapters/json-splice.ts withoutBom).
// Suspected: src/proxy/config.ts readConfigFile.
test("a config file that starts with a byte order mark is read", () => {
  const settled = settle(`\uFEFF{ "port": 0 }`);
  expect(typeof settled === "string" ? settled : settled.port).toBe(0);
});

// FINDING (medium: bad config crashes the host after binding every interface). `"host": 8787`
// (a number) is taken as the host. runProxy then calls `server.listen(port, 8787, cb)`, where a
// number in the host's place is Node's `backlog`: the proxy binds all interfaces, prints
// "listening on 8787, reachable from other machines", and then throws
// `TypeError: config.host.includes is not a function` (run.ts, building the origin), leaving the
// server bound. Expected: a usage error ("host must be a string"), exit 2, nothing bound. Also
// `"healthPath": 5` and `"debug": "yes"` are taken in silence (the health path never answers, debug
// stays off) with no problem line. Suspected: src/proxy/config.ts proxyConfig (file values are
// not type-checked; FileConfig is only a cast).
describe("config file values of the wrong type", () => {
  test("a numeric host is a usage error", () => {
    expect(typeof settle(`{ "host": 8787 }`)).toBe("string");
  });
  test("a numeric healthPath or a string debug is refused or reported", () => {
    for (const text of [`{ "healthPath": 5 }`, `{ "debug": "yes" }`]) {
      const settled = settle(text);
      expect(typeof settled === "string" || settled.problems.length > 0).toBe(true);
    }
  });
});

// FINDING (medium: loopback lost in silence for an empty setting). An environment variable set to
// the empty string is taken as a value (`values.host ?? env.DSML_FIX_HOST ?? ...` only skips
// undefined): `DSML_FIX_HOST=` (a compose file's `DSML_FIX_HOST: ${HOST}` with HOST unset, or an
// `env` line left blank) makes the host "", and `server.listen(port, "")` listens on the
// unspecified address, every interface, instead of the 127.0.0.1 default (run.ts then warns
// "listening on , reachable from other machines"). Likewise `--config ""` (a script's
// `--config "$CFG"` with CFG unset) reads no file and ignores DSML_FIX_CONFIG, so the file's deny
// list silently does not apply. Expected: an empty value is unset (the default) or a usage error.
// Suspected: src/proxy/config.ts proxyConfig (`??` chains).
describe("empty settings", () => {
  test("DSML_FIX_HOST set to the empty string keeps the loopback default (or is refused)", () => {
    let host: string | undefined;
    try {
      host = proxyConfig(["--upstream", "http://127.0.0.1:9/v1"], { DSML_FIX_HOST: "" }).host;
    } catch (error) {
      if (!(error instanceof ProxyUsageError)) throw error;
      return;
    }
    expect(host).toBe("127.0.0.1");
  });

  test("--config \"\" is a usage error, not a proxy without its config file", () => {
    const file = configText(`{ "options": { "responseFix": { "denyTools": ["read"] } } }`);
    let denied: readonly string[] | undefined;
    try {
      denied = proxyConfig(["--config", "", "--upstream", "http://127.0.0.1:9/v1"], { DSML_FIX_CONFIG: file }).options.responseFix.denyTools;
    } catch (error) {
      if (!(error instanceof ProxyUsageError)) throw error;
      return;
    }
    expect(denied).toEqual(["read"]);
  });

  // Hard negative (passes today): DSML_FIX_CONFIG alone is read, and a flag beats it.
  test("hard negative: DSML_FIX_CONFIG is read; --config beats it", () => {
    const denyRead = configText(`{ "options": { "responseFix": { "denyTools": ["read"] } } }`);
    const denyBash = configText(`{ "options": { "responseFix": { "denyTools": ["bash"] } } }`);
    const env = { DSML_FIX_CONFIG: denyRead };
    expect(proxyConfig(["--upstream", "http://127.0.0.1:9/v1"], env).options.responseFix.denyTools).toEqual(["read"]);
    expect(proxyConfig(["--config", denyBash, "--upstream", "http://127.0.0.1:9/v1"], env).options.responseFix.denyTools).toEqual(["bash"]);
  });
});

// FINDING (medium: a security option dropped in silence). The proxy settles `options` with the
// plugin's resolver, which accepts every plugin option, but uses only parse, history, responseFix
// and retry.nudge (docs/PROXY.md). `providers` is a security option ("Where the plugin acts ...
// [] disables the plugin", src/options/spec.ts): `"providers": []` (meant: stand aside) or
// `["deepseek"]` (meant: repair DeepSeek only) is accepted without a word, and the proxy recovers
// calls for every request all the same. `retry.channel: "user"` is dropped the same way (the
// correction always rides in the system prompt). Expected: the proxy honours them, or says once on
// start-up that they do not apply to it (and, for `providers: []`, recovers nothing until it is
// fixed, as for any security key it cannot apply). Suspected: src/proxy/config.ts proxyConfig
// (no check of which resolved options the proxy ignores).
describe("plugin options the proxy does not use", () => {
  test("`providers: []` stands the proxy aside, or is reported", async () => {
    const { err, calls } = await run(`{ "options": { "providers": [] } }`);
    expect(calls.length === 0 || err.length > 0).toBe(true);
  });
  test("`retry.channel` and `providers` given: a problem line says the proxy does not use them", () => {
    for (const text of [`{ "options": { "retry": { "channel": "user" } } }`, `{ "options": { "providers": ["deepseek"] } }`]) {
      const settled = settle(text);
      expect(typeof settled === "string" || settled.problems.length > 0).toBe(true);
    }
  });
});

// Hard negatives (pass today): a deny list placed in the wrong namespace inside `options`
// (parse, history, retry, or options itself) fails closed with one problem line naming where it
// belongs; a security value of the wrong type fails closed too.
describe("hard negatives: a deny list in the wrong namespace fails closed", () => {
  for (const where of ["parse", "history", "retry"]) {
    test(`options.${where}.denyTools`, async () => {
      const { err, calls } = await run(`{ "options": { "${where}": { "denyTools": ["read"] } } }`);
      expect(calls).toEqual([]);
      expect(err).toHaveLength(1);
      expect(err[0]).toContain("responseFix.denyTools");
    });
  }
  test("options.denyTools, and denyTools given as a string", async () => {
    for (const text of [`{ "options": { "denyTools": ["read"] } }`, `{ "options": { "responseFix": { "denyTools": "read" } } }`]) {
      const { err, calls } = await run(text);
      expect({ text, calls, lines: err.length }).toEqual({ text, calls: [], lines: 1 });
    }
  });
});
