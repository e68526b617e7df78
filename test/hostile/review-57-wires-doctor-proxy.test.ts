/**
 * Review 57 (hostile, tests only): what `dsml-fix doctor` and `dsml-fix proxy` print of a
 * credential, on the round-56 redaction (src/cli/as-written.ts, src/proxy/redact.ts,
 * src/proxy/config.ts redactedUrl). Doctor's rule: a config value (or key) that `{env:}` or
 * `{file:}` substitution changed is never printed. The proxy's rule: a start-up line or a usage
 * error never shows userinfo, a `;key=` parameter, a query or a fragment of an upstream URL.
 * Every doctor run is sandboxed (HOME and the XDG dirs are temporary folders).
 */
import { describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { main } from "../../src/cli/main.ts";
import { proxyConfig, redactedUrl } from "../../src/proxy/config.ts";
import { seedConfigDir } from "../e2e/harness.ts";

const NAME = "opencode-plugin-dsml-fix";
const SECRET = "sk-r57-SECRETKEY0123456789";

function sandbox() {
  const root = mkdtempSync(path.join(tmpdir(), "r57-wires-doctor-"));
  const project = path.join(root, "project");
  for (const d of ["home", "config/opencode", "cache/opencode", "data", "state", "project/.git"]) mkdirSync(path.join(root, d), { recursive: true });
  seedConfigDir(path.join(root, "config/opencode"));
  const folder = path.join(project, "node_modules", NAME);
  mkdirSync(folder, { recursive: true });
  writeFileSync(path.join(folder, "package.json"), JSON.stringify({ name: NAME, version: "0.1.0", exports: { "./server": { import: "./server.js" } } }));
  writeFileSync(path.join(folder, "server.js"), "export default {};\n");
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH ?? "", HOME: path.join(root, "home"), XDG_CONFIG_HOME: path.join(root, "config"), XDG_CACHE_HOME: path.join(root, "cache"), XDG_DATA_HOME: path.join(root, "data"), XDG_STATE_HOME: path.join(root, "state"), SECRET_VAR: SECRET };
  const write = (rel: string, text: string) => writeFileSync(path.join(root, rel), text);
  return { root, project, env, write };
}

async function run(argv: string[], box: ReturnType<typeof sandbox>) {
  let out = "";
  let err = "";
  let code: number | string;
  try {
    code = await main(argv, { readStdin: async () => new Uint8Array(), out: (t) => (out += t), err: (t) => (err += t), env: box.env, cwd: box.project });
  } catch (error) {
    code = `threw ${(error as Error)?.name}: ${(error as Error)?.message}`;
  }
  return { code, text: out + err };
}

/** doctor and doctor --json: both outputs, joined. */
async function doctorBoth(box: ReturnType<typeof sandbox>): Promise<{ text: string; json: string }> {
  return { text: (await run(["doctor"], box)).text, json: (await run(["doctor", "--json"], box)).text };
}

// ---------------------------------------------------------------------------------------------
// FINDING D1 (a leaked credential, from a key substitution wrote): doctor names a key given twice
// in the plugin entry's options by its dotted path read from the SUBSTITUTED text
// (src/options/jsonc.ts keysGivenTwice, called on `substituted` in src/cli/opencode-config.ts
// loadConfig), and src/cli/dropped-options.ts keysTwiceProblems prints `JSON.stringify(path)`
// as it is: doctor.ts passes the plugin's own problem lines through asWrittenLine(entry.changes)
// but not these. So a key `{env:SECRET_VAR}` written twice prints the key's value in the text
// report and in --json (plugin.entries[].optionProblems and problems[]). The unknown-option line
// for the very same key is shown by its shape (review 56), so the two lines of one report
// disagree.
// Minimal input: plugin entry options `{ "{env:SECRET_VAR}": 1, "{env:SECRET_VAR}": 2 }`.
// Suspected source: src/cli/dropped-options.ts keysTwiceProblems / src/cli/doctor.ts (the line is
// built outside the as-written rule).
// Expected: the key path shown by the rule (as written, `{env:SECRET_VAR}`, or by its shape),
// never the substituted key.
// ---------------------------------------------------------------------------------------------
describe("D1: doctor's key-given-twice line and a key substitution wrote", () => {
  test.failing("FINDING: an option key from {env:} given twice: the 'gives ... twice' line never prints the substituted key (text and --json)", async () => {
    const box = sandbox();
    box.write("project/opencode.json", `{ "plugin": [["./node_modules/${NAME}", { "{env:SECRET_VAR}": 1, "{env:SECRET_VAR}": 2 }]] }`);
    const r = await doctorBoth(box);
    expect(r.text).toContain("twice in its options");
    expect(r.text.includes(SECRET)).toBe(false);
    expect(r.json.includes(SECRET)).toBe(false);
  });

  test.failing("FINDING: a key given twice under a key from {file:}: its dotted path never prints the substituted part", async () => {
    const box = sandbox();
    box.write("home/key.txt", SECRET);
    box.write("project/opencode.json", `{ "plugin": [["./node_modules/${NAME}", { "responseFix": { "{file:~/key.txt}": { "a": 1, "a": 2 } } }]] }`);
    const r = await doctorBoth(box);
    expect(r.text).toContain("twice in its options");
    expect(r.text.includes(SECRET)).toBe(false);
    expect(r.json.includes(SECRET)).toBe(false);
  });

  test("hard negative: a plain key given twice is named by its path (text and --json)", async () => {
    const box = sandbox();
    box.write("project/opencode.json", `{ "plugin": [["./node_modules/${NAME}", { "responseFix": { "denyTools": ["bash"], "denyTools": ["write"] } }]] }`);
    const r = await doctorBoth(box);
    expect(r.text).toContain(`gives "responseFix.denyTools" twice in its options`);
    expect(r.json).toContain(`gives \\"responseFix.denyTools\\" twice in its options`);
  });

  test("hard negative: the unknown-option line for a key from {env:} names it by its shape (review 56's rule, still holding)", async () => {
    const box = sandbox();
    box.write("project/opencode.json", `{ "plugin": [["./node_modules/${NAME}", { "{env:SECRET_VAR}": 1 }]] }`);
    const r = await doctorBoth(box);
    expect(r.text).toContain("unknown option a substituted string of 26 character(s); ignored");
    expect(r.text.includes(SECRET) || r.json.includes(SECRET)).toBe(false);
  });
});

// ---------------------------------------------------------------------------------------------
// FINDING P1 (a leaked credential in a usage error): redactedUrl (src/proxy/config.ts) cuts the
// text at its LAST `@` as userinfo, then looks for the query only in what follows. An `@` inside
// the query or the fragment (an e-mail address, `?user=me@x.test&key=...`) is taken for the end
// of userinfo: the `?` before it is hidden under `***`, and the rest of the query, the key with
// it, is printed as if it were the host and path. The path is reached for an upstream that does
// not parse (a port out of range, a space in the host): `--upstream`, `DSML_FIX_UPSTREAM`, a
// `--route` URL and the config file's `upstream` all print `upstream is not a URL: "..."`.
// Minimal input: `--upstream "https://api.example.test:99999/v1?email=a@b.test&key=sk-..."`
// prints `upstream is not a URL: "https://***@b.test&key=sk-..."`.
// Suspected source: src/proxy/config.ts redactedUrl (the query is looked for after the cut only).
// Expected: a `?` or `#` anywhere after the scheme's authority start redacts everything after it,
// wherever the last `@` stands (e.g. `https://***@...?<redacted>`, or the query found first).
// ---------------------------------------------------------------------------------------------
describe("P1: redactedUrl and an `@` in the query or fragment", () => {
  const usageError = (argv: string[], env: NodeJS.ProcessEnv = {}): string => {
    try {
      proxyConfig(argv, env);
    } catch (error) {
      return (error as Error).message;
    }
    return "(no error)";
  };

  test.failing("FINDING: an unparseable --upstream with an e-mail in its query: the key after it is never printed", () => {
    const message = usageError(["--upstream", `https://api.example.test:99999/v1?email=a@b.test&key=${SECRET}`]);
    expect(message).toStartWith("upstream is not a URL");
    expect(message.includes(SECRET)).toBe(false);
  });

  test.failing("FINDING: DSML_FIX_UPSTREAM and a --route URL, `@` in the query or fragment: the key is never printed", () => {
    for (const url of [`https://api.example.test:99999/v1?to=x@y&api_key=${SECRET}`, `https://bad host/v1?u=a@b&token=${SECRET}`, `https://bad host/v1#a@b&key=${SECRET}`]) {
      expect(usageError([], { DSML_FIX_UPSTREAM: url }).includes(SECRET)).toBe(false);
      expect(usageError(["--route", `/ds=${url}`]).includes(SECRET)).toBe(false);
      expect(redactedUrl(url).includes(SECRET)).toBe(false);
    }
  });

  test("hard negative: userinfo, a query and a fragment without an `@` in them are redacted; host and path stay readable", () => {
    expect(redactedUrl(`https://user:${SECRET}@api.example.test:99999/v1`)).toBe("https://***@api.example.test:99999/v1");
    expect(redactedUrl(`https://api.example.test:99999/v1?key=${SECRET}`)).toBe("https://api.example.test:99999/v1?<redacted>");
    expect(redactedUrl(`https://api.example.test:99999/v1;key=${SECRET}/x`)).toBe("https://api.example.test:99999/v1;[redacted]/x");
    expect(redactedUrl(`http://[::1:zz]/v1?api_key=${SECRET}`)).toBe("http://[::1:zz]/v1?<redacted>");
    expect(usageError(["--upstream", `https://api.example.test:99999/v1?key=${SECRET}`])).toBe('upstream is not a URL: "https://api.example.test:99999/v1?<redacted>"');
  });

  test("hard negative: a password holding `?` or `#` (the reason the LAST `@` is the cut) stays hidden", () => {
    for (const url of [`https://u:pa?ss${SECRET}@bad host/v1`, `https://u:pa#ss${SECRET}@bad host/v1`]) expect(redactedUrl(url).includes(SECRET)).toBe(false);
  });
});
