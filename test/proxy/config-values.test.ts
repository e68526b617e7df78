/**
 * The proxy's config file and settings, value by value (review 46, the config findings): the file
 * is read with the package's JSONC reader (src/options/jsonc.ts) and refused when a key is given
 * twice; each top-level value is type-checked before use; an empty flag is refused and an empty
 * environment variable is unset; plugin options the proxy cannot apply get one start-up line, and
 * `providers: []` stands the proxy aside.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { ProxyUsageError, proxyConfig } from "../../src/proxy/config.ts";

const dir = mkdtempSync(path.join(tmpdir(), "dsml-proxy-values-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
function configFile(text: string): string {
  const file = path.join(dir, `c-${files++}.jsonc`);
  writeFileSync(file, text);
  return file;
}
const UP = ["--upstream", "http://127.0.0.1:9/v1"];

/** The usage error's message for `argv` (with a file holding `text`), or "accepted". */
function refusal(text: string | undefined, argv: string[] = UP, env: NodeJS.ProcessEnv = {}): string {
  try {
    proxyConfig([...(text === undefined ? [] : ["--config", configFile(text)]), ...argv], env);
    return "accepted";
  } catch (error) {
    if (error instanceof ProxyUsageError) return error.message;
    throw error;
  }
}

describe("a key given twice is refused, naming it and where its second copy is", () => {
  test.each([
    [`{ "options": { "responseFix": { "denyTools": ["read"] } },\n  "options": {} }`, 'key "options" is given twice (again at line 2, column 3)'],
    [`{ "options": { "responseFix": { "denyTools": ["read"] }, "responseFix": {} } }`, 'key "options.responseFix" is given twice'],
    [`{ "routes": { "/ds": "http://127.0.0.1:1/a", "/ds": "http://127.0.0.1:1/b" } }`, 'key "routes./ds" is given twice'],
    [`{ "options": { "responseFix": { "denyTools": ["read"], "deny\\u0054ools": [] } } }`, 'key "options.responseFix.denyTools" is given twice'],
  ])("%s", (text, message) => {
    expect(refusal(text)).toContain(message);
  });

  test("hard negative: the same key in two different objects is no duplicate", () => {
    expect(refusal(`{ "routes": { "/a": "http://127.0.0.1:1/x" }, "options": { "parse": { "dialects": {} }, "history": { "sanitize": true } } }`)).toBe("accepted");
  });
});

describe("each top-level value is checked before it is used", () => {
  test.each([
    [`{ "host": 8787 }`, '"host" must be a non-empty string (got 8787)'],
    [`{ "host": "" }`, '"host" must be a non-empty string (got "")'],
    [`{ "upstream": ["http://127.0.0.1:1"] }`, '"upstream" must be a URL string'],
    [`{ "port": "8787" }`, '"port" must be a number (got "8787")'],
    [`{ "routes": { "/ds": 5 } }`, '"routes" must be an object of "/prefix": "URL" strings'],
    [`{ "routes": ["/ds=http://127.0.0.1:1"] }`, '"routes" must be an object'],
    [`{ "healthPath": 5 }`, '"healthPath" must be a path string (got 5)'],
    [`{ "healthPath": "healthz" }`, "--health-path must start with /"],
    [`{ "maxBodyBytes": "1" }`, '"maxBodyBytes" must be a number'],
    [`{ "upstreamTimeoutMs": null }`, '"upstreamTimeoutMs" must be a number (got null)'],
    [`{ "debug": "yes" }`, '"debug" must be true or false (got "yes")'],
    [`[{ "upstream": "http://127.0.0.1:1" }]`, "is not a JSON/JSONC object: it holds a list"],
  ])("%s", (text, message) => {
    expect(refusal(text)).toContain(message);
  });

  test("hard negative: every key of the right type is read", () => {
    const file = configFile(`{ "$schema": "x", "upstream": "http://127.0.0.1:1/v1", "port": 0, "host": "::1", "routes": { "/ds": "http://127.0.0.1:2" }, "healthPath": "/up", "maxBodyBytes": 10, "upstreamTimeoutMs": 20, "debug": true, "options": {} }`);
    const config = proxyConfig(["--config", file], {});
    expect([config.port, config.host, config.routes.length, config.healthPath, config.maxBodyBytes, config.headersTimeoutMs, config.debug, config.problems]).toEqual([0, "::1", 2, "/up", 10, 20, true, []]);
  });
});

describe("empty settings", () => {
  test("an empty flag is refused", () => {
    for (const flag of ["--host", "--config", "--upstream", "--port", "--health-path", "--max-body", "--upstream-timeout"]) {
      expect(refusal(undefined, [...UP, flag, ""])).toBe(`${flag} is empty; give it a value or leave it out`);
    }
  });

  test("an empty environment variable is unset: the default, or the next source", () => {
    const file = configFile(`{ "host": "::1", "port": 0, "upstream": "http://127.0.0.1:1/file" }`);
    const env = { DSML_FIX_HOST: "", DSML_FIX_PORT: "", DSML_FIX_UPSTREAM: "", DSML_FIX_CONFIG: "" };
    expect(proxyConfig(UP, env).host).toBe("127.0.0.1");
    expect(proxyConfig(UP, env).port).toBe(8787);
    const fromFile = proxyConfig(["--config", file], env);
    expect([fromFile.host, fromFile.port, fromFile.routes[0]!.upstream.href]).toEqual(["::1", 0, "http://127.0.0.1:1/file"]);
  });
});

describe("DSML_FIX_DEBUG", () => {
  test("1, true, yes, on turn debug on; 0, false, no, off and empty leave it off, in silence", () => {
    for (const value of ["1", "true", "TRUE", "yes", "on"]) expect([value, proxyConfig(UP, { DSML_FIX_DEBUG: value }).debug]).toEqual([value, true]);
    for (const value of ["0", "false", "no", "off", ""]) {
      const config = proxyConfig(UP, { DSML_FIX_DEBUG: value });
      expect([value, config.debug, config.problems]).toEqual([value, false, []]);
    }
  });
  test("anything else leaves it off with one problem line", () => {
    const config = proxyConfig(UP, { DSML_FIX_DEBUG: "verbose" });
    expect([config.debug, config.problems]).toEqual([false, ['[dsml] DSML_FIX_DEBUG="verbose" is none of 1, true, yes, on, 0, false, no, off; debug stays off']]);
  });
});

describe("plugin options the proxy does not apply", () => {
  const settled = (options: unknown) => proxyConfig(["--config", configFile(JSON.stringify({ options })), ...UP], {});

  test("providers, retry.channel and retry.enabled: one line naming what was given; the repair stays on", () => {
    const config = settled({ providers: ["deepseek"], retry: { channel: "user", enabled: false } });
    expect(config.problems).toHaveLength(1);
    expect(config.problems[0]).toStartWith('[dsml] options "providers" and "retry.channel" and "retry.enabled" do not apply to the proxy; ignored');
    expect([config.options.responseFix.enabled, config.options.history.sanitize, config.options.retry.nudge]).toEqual([true, true, true]);
  });

  test("providers: [] stands the proxy aside: no repair, no history edit, no correction", () => {
    const config = settled({ providers: [] });
    expect(config.problems).toHaveLength(1);
    expect(config.problems[0]).toContain('"providers": [] is read as "stand aside"');
    expect([config.options.responseFix.enabled, config.options.history.sanitize, config.options.retry.nudge]).toEqual([false, false, false]);
  });

  test("hard negative: the options the proxy uses get no line", () => {
    expect(settled({ parse: { standaloneJson: true }, history: { sanitize: false }, responseFix: { denyTools: ["bash"] }, retry: { nudge: false }, debug: false }).problems).toEqual([]);
  });
});
