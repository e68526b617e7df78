/**
 * Review 57 (hostile, tests only): what `dsml-fix doctor` and `dsml-fix proxy` print of a
 * credential, on the round-56 redaction (src/cli/as-written.ts, src/proxy/redact.ts,
 * src/proxy/config.ts redactedUrl). Doctor's rule: a config value (or key) that `{env:}` or
 * `{file:}` substitution changed is never printed. The proxy's rule: a start-up line or a usage
 * error never shows userinfo, a `;key=` parameter, a query or a fragment of an upstream URL.
 * Every doctor run is sandboxed (HOME and the XDG dirs are temporary folders).
 */
import { describe, expect, test } from "bun:test";
import path from "node:path";
import { main } from "../../src/cli/main.ts";
import { proxyConfig, shownUpstream } from "../../src/proxy/config.ts";
import { redactedUrl } from "../../src/grammar/redact.ts";
import { loggedPath } from "../../src/proxy/routing.ts";
import { doctorSandbox } from "./doctor-sandbox.ts";

const NAME = "opencode-plugin-dsml-fix";
const SECRET = "sk-r57-SECRETKEY0123456789";

function sandbox() {
  return doctorSandbox("r57-wires-doctor-", SECRET);
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
// Fixed: src/cli/keys-twice.ts finds the keys given twice in the substituted text (what OpenCode
// reads) but reads the text as written beside it, node by node: each key of the path is printed
// as the file writes it at the same place (`{env:SECRET_VAR}`), or by its shape in angle brackets,
// and "again at line L, column C" is counted in the file as written (left out where the later
// copy has no place there), so it never moves with a substituted value's length. The same for an
// OpenCode 2 `plugins` entry (v2-config.ts). The plugin's own lines that name a key inside a
// dotted path (`unknown option "responseFix.KEY"`) or cut a long key short (`"KEY-START..."`) go
// through the same rule (as-written.ts asWrittenLine): a substituted key there is shown by its shape.
// ---------------------------------------------------------------------------------------------
describe("D1: doctor's key-given-twice line and a key substitution wrote", () => {
  test("FINDING: an option key from {env:} given twice: the 'gives ... twice' line never prints the substituted key (text and --json)", async () => {
    const box = sandbox();
    box.write("project/opencode.json", `{ "plugin": [["./node_modules/${NAME}", { "{env:SECRET_VAR}": 1, "{env:SECRET_VAR}": 2 }]] }`);
    const r = await doctorBoth(box);
    expect(r.text).toContain("twice in its options");
    expect(r.text.includes(SECRET)).toBe(false);
    expect(r.json.includes(SECRET)).toBe(false);
  });

  test("FINDING: a key given twice under a key from {file:}: its dotted path never prints the substituted part", async () => {
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

  test("the key is named as the file writes it, and its place is counted in the file as written", async () => {
    const box = sandbox();
    const written = `{ "plugin": [["./node_modules/${NAME}", { "{env:SECRET_VAR}": 1, "{env:SECRET_VAR}": 2 }]] }`;
    box.write("project/opencode.json", written);
    const column = written.lastIndexOf('"{env:SECRET_VAR}"') + 1;
    const r = await doctorBoth(box);
    expect(r.text).toContain(`gives "{env:SECRET_VAR}" twice in its options (again at line 1, column ${column})`);
    expect(r.json).toContain(`gives \\"{env:SECRET_VAR}\\" twice in its options (again at line 1, column ${column})`);
  });

  test("the place never moves with a substituted value: the same line whatever the values' lengths and line breaks", async () => {
    const written = `{ "plugin": [["./node_modules/${NAME}", { "providers": ["{env:P}"], "responseFix": { "bufferLimit": {env:N} },\n  "debug": true, "debug": false }]] }`;
    const column = written.slice(written.lastIndexOf("\n") + 1).lastIndexOf('"debug"') + 1;
    const lines: string[] = [];
    for (const [P, N] of [["deepseek", "65536"], [`deepseek-${"x".repeat(40)}`, "\n\n\n      65536"]] as const) {
      const box = sandbox();
      box.env.P = P;
      box.env.N = N;
      box.write("project/opencode.json", written);
      lines.push(...(await run(["doctor"], box)).text.split("\n").filter((line) => line.includes("twice in its options")).map((line) => line.slice(line.indexOf("gives"))));
    }
    expect(lines).toEqual(new Array(4).fill(`gives "debug" twice in its options (again at line 2, column ${column}): OpenCode keeps only the last copy, so what the earlier one holds (a denyTools or allowTools too) never reaches the plugin; give it once`));
  });

  test("an OpenCode 2 `plugins` entry: a key from {env:} given twice is named as written", async () => {
    const box = sandbox();
    box.write("project/opencode.json", `{ "plugins": [{ "package": "${NAME}", "options": { "responseFix": { "{env:SECRET_VAR}": 1, "{env:SECRET_VAR}": 2 } } }] }`);
    const r = await doctorBoth(box);
    expect(r.text).toContain('gives "responseFix.{env:SECRET_VAR}" twice in its options');
    expect(r.text.includes(SECRET) || r.json.includes(SECRET)).toBe(false);
  });

  test("a reference that writes JSON syntax into the options: the keys it wrote are shown by their shape, with no place", async () => {
    const box = sandbox();
    box.env.INJECT = `x", "${SECRET}": 1, "${SECRET}": 2, "z": "y`;
    box.write("project/opencode.json", `{ "plugin": [["./node_modules/${NAME}", { "responseFix": { "prompt": "{env:INJECT}" } }]] }`);
    const r = await doctorBoth(box);
    expect(r.text).toContain('gives "responseFix.<a substituted string of 26 character(s)>" twice in its options: OpenCode keeps only the last copy');
    expect(r.text.includes(SECRET) || r.json.includes(SECRET)).toBe(false);
  });

  // Found while fixing D1, the same hole in the plugin's own lines: asWrittenLine replaced a
  // changed key quoted whole, or one of 8 characters or more anywhere; a shorter key inside a
  // quoted dotted path (`unknown option "responseFix.sk-1234"`) and the start of a long key the
  // plugin cuts short (`got an object with key "sk-...(32 characters)..."`, `it holds
  // "respFix.sk-...(60 characters)...`) were printed as substituted (1.18 and OpenCode 2 entries).
  const SHORT = "sk-1234";
  test("the plugin's lines: a short key from {env:} inside a dotted path, and a long one cut short, are shown by their shape", async () => {
    const cases: [string, string][] = [
      [`{ "plugin": [["./node_modules/${NAME}", { "responseFix": { "{env:SHORT_VAR}": 1 } }]] }`, 'unknown option "responseFix.<a substituted string of 7 character(s)>"; ignored'],
      [`{ "plugins": [{ "package": "${NAME}", "options": { "responseFix": { "{env:SHORT_VAR}": 1 } } }] }`, 'unknown option "responseFix.<a substituted string of 7 character(s)>"; ignored'],
      [`{ "plugin": [["./node_modules/${NAME}", { "responseFix": { "denyTools": { "{env:LONG_VAR}": 1 } } }]] }`, '(got an object with key "<a substituted string of 60 character(s)>...")'],
      [`{ "plugin": [["./node_modules/${NAME}", { "respFix": { "{env:LONG_VAR}": { "denyTools": [] } } }]] }`, '(it holds "respFix.<a substituted string of 60 character(s)>..., which is close to a security option)'],
      [`{ "plugin": [["./node_modules/${NAME}", { "respFix": { "{env:SHORT_VAR}": { "denyTools": [] } } }]] }`, '(it holds "respFix.<a substituted string of 7 character(s)>.<a substituted string of 9 character(s)>", which is close to a security option)'],
    ];
    for (const [config, shown] of cases) {
      const box = sandbox();
      box.env.SHORT_VAR = SHORT;
      box.env.LONG_VAR = `${SECRET}${"y".repeat(60 - SECRET.length)}`;
      box.write("project/opencode.json", config);
      const r = await doctorBoth(box);
      expect({ config, shown: r.text.includes(shown), leaked: [SHORT, SECRET.slice(0, 12)].filter((s) => r.text.includes(s) || r.json.includes(s)) }).toEqual({ config, shown: true, leaked: [] });
    }
  });

  // Not hard negatives alone: on the reviewer's branch the place was counted in the substituted
  // text (here `{env:...}` is shorter or longer than what it becomes), and the short key leaked.
  test("a plain key given twice beside substituted values: named by its path, placed in the file as written; the plugin's suggestions stay whole", async () => {
    const box = sandbox();
    box.env.SHORT_VAR = SHORT;
    const written = `{ "plugin": [["./node_modules/${NAME}", { "providers": ["{env:SECRET_VAR}"], "responseFix": { "{env:SHORT_VAR}": ["bash"], "denyTools": ["bash"], "denyTools": ["write"] } }]] }`;
    box.write("project/opencode.json", written);
    const r = await doctorBoth(box);
    expect(r.text).toContain(`gives "responseFix.denyTools" twice in its options (again at line 1, column ${written.lastIndexOf('"denyTools"') + 1})`);
    expect(r.text).toContain('did you mean "responseFix.denyTools" or "responseFix.allowTools"?');
    expect(r.text.includes(SECRET) || r.text.includes(SHORT) || r.json.includes(SECRET) || r.json.includes(SHORT)).toBe(false);
  });

  test("a key given twice where a reference stands outside a string (the file as written is no JSON): still named, and placed in the file as written", async () => {
    const box = sandbox();
    box.env.N = "65536";
    const written = `{ "plugin": [["./node_modules/${NAME}", { "responseFix": { "bufferLimit": {env:N} }, "debug": true, "debug": false }]] }`;
    box.write("project/opencode.json", written);
    expect((await run(["doctor"], box)).text).toContain(`gives "debug" twice in its options (again at line 1, column ${written.lastIndexOf('"debug"') + 1})`);
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
// Fixed: redactedUrl finds the query first: everything from the first `?` or `#` is
// `?<redacted>`, wherever an `@` stands. Userinfo is what stands before the last `@` BEFORE it (a
// raw `/` in a password still hides the whole password). A raw `?` or `#` in a password puts its
// `@` after the cut: an authority that then reads as `user:password` (a `:` and no port's digits
// after it) is `***` too, so neither reading of such a text shows a key. The same round (the
// reviewer's suspicion 5): redactedPath (the access log, the start-up lines, these errors) takes
// `%3B` for the `;` it encodes, and a URL inside a path (`/ds/https://user:pa/ss@host/...`) has
// its userinfo hidden up to the path's last `@` over every segment a raw `/` made.
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

  test("FINDING: an unparseable --upstream with an e-mail in its query: the key after it is never printed", () => {
    const message = usageError(["--upstream", `https://api.example.test:99999/v1?email=a@b.test&key=${SECRET}`]);
    expect(message).toStartWith("upstream is not a URL");
    expect(message.includes(SECRET)).toBe(false);
  });

  test("FINDING: DSML_FIX_UPSTREAM and a --route URL, `@` in the query or fragment: the key is never printed", () => {
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

  test("the host and path before a query holding an `@` stay readable; a password cut by a raw `?`, `#` or `/` is hidden whole", () => {
    expect(redactedUrl(`https://api.example.test:8443/v1?email=a@b.test&key=${SECRET}`)).toBe("https://api.example.test:8443/v1?<redacted>");
    // A "port" over 65535 before an `@` after the cut may be a password of digits (`user:99999#x@host`):
    // hidden whole since fix 57 diff B (PX1), as a credential shown costs more than a host hidden.
    expect(redactedUrl(`https://api.example.test:99999/v1?email=a@b.test&key=${SECRET}`)).toBe("https://***?<redacted>");
    expect(redactedUrl(`https://bad host/v1#a@b&key=${SECRET}`)).toBe("https://bad host/v1?<redacted>");
    expect(redactedUrl(`http://[::1]:99999/v1?to=a@b&key=${SECRET}`)).toBe("http://[::1]:99999/v1?<redacted>");
    // Not even the password's start (`pa`) before its raw `?`, `#` or `/`.
    expect(redactedUrl(`https://user:pa?ss${SECRET}@bad host/v1`)).toBe("https://***?<redacted>");
    expect(redactedUrl(`https://user:pa/x#ss${SECRET}@bad host/v1`)).toBe("https://***?<redacted>");
    expect(redactedUrl(`https://user:pa/ss${SECRET}@bad host/v1`)).toBe("https://***@bad host/v1");
    expect(redactedUrl(`user:pa?ss${SECRET}@bad host/v1`)).toBe("***?<redacted>");
  });

  test("suspicion 5: `%3B` (an encoded `;`) starts a path parameter, in every line that shows a path", () => {
    expect(redactedUrl(`https://api.example.test:99999/v1%3Bkey=${SECRET}/x`)).toBe("https://api.example.test:99999/v1%3B[redacted]/x");
    expect(redactedUrl(`https://api.example.test:99999/v1%3bkey=${SECRET}`)).toBe("https://api.example.test:99999/v1%3b[redacted]");
    expect(shownUpstream(new URL(`http://127.0.0.1:9/v1%3Bkey=${SECRET}/chat`))).toBe("http://127.0.0.1:9/v1%3B[redacted]/chat");
    expect(loggedPath(`/chat/completions%3Bkey=${SECRET}?x=1`)).toBe("/chat/completions%3B[redacted]");
    // The earlier of `;` and `%3B` starts the parameters.
    expect(loggedPath(`/v1%3Ba;key=${SECRET}/chat`)).toBe("/v1%3B[redacted]/chat");
    expect(loggedPath(`/v1;a%3Bkey=${SECRET}/chat`)).toBe("/v1;[redacted]/chat");
  });

  test("suspicion 5: a URL inside a path whose password holds a raw `/` (or lost its `@` to a raw `?`) shows none of it", () => {
    expect(loggedPath(`/deepseek/https://user:pa/ss${SECRET}@api.example.com/v1/chat`)).toBe("/deepseek/https://[redacted]@api.example.com/v1/chat");
    expect(loggedPath(`/deepseek/https://user:pa/s/s${SECRET}%40api.example.com/v1`)).toBe("/deepseek/https://[redacted]%40api.example.com/v1");
    // The client's `?` ends the path: what is left of the password is `user:pa`, an authority no host reads as.
    expect(loggedPath(`/deepseek/https://user:pa?ss${SECRET}@api.example.com/v1`)).toBe("/deepseek/https://[redacted]");
  });

  test("hard negative: paths without a credential are shown as given", () => {
    for (const path of ["/deepseek/https://api.example.com:443/v1/chat", "/deepseek/https://api.example.com/v1", "/v1beta/models/m:generateContent", "/v1//chat/completions", "/deepseek/http://[::1]:8080/v1", "/v1/a%3Cb"]) expect(loggedPath(path)).toBe(path);
    expect(redactedUrl("https://api.example.com/v1beta/models/m:generateContent")).toBe("https://api.example.com/v1beta/models/m:generateContent");
    expect(redactedUrl("https://host:80a/v1")).toBe("https://host:80a/v1");
  });
});
