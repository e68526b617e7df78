/**
 * Review 47 (src/proxy/config.ts, run.ts): credentials in what `dsml-fix proxy` writes at start.
 * The proxy "never logs or stores credentials"; a usage error goes to stderr, which a service
 * manager keeps in its journal just as it keeps the access log.
 */
import { describe, expect, test } from "bun:test";
import { EventEmitter } from "node:events";
import { runProxy } from "../../src/proxy/run.ts";

const SECRET = "sk-Q7SECRETz9";

async function start(argv: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number | "running"; written: string }> {
  const lines: string[] = [];
  const signals = new EventEmitter();
  const io = { out: (l: string[]) => void lines.push(...l), err: (l: string[]) => void lines.push(...l), env };
  const running = runProxy([...argv, "--port", "0"], io, signals);
  // A usage error returns at once; a proxy that started names its routes (bounded rounds).
  let code: number | "running" = "running";
  void running.then((c) => (code = c));
  for (let i = 0; i < 300 && code === "running" && !lines.some((l) => l.includes("->")); i++) await new Promise((r) => setTimeout(r, 5));
  if (code === "running") {
    signals.emit("SIGTERM");
    await running;
  }
  return { code, written: lines.join("\n") };
}

describe("a malformed upstream URL that carries a key", () => {
  // fixed: the rule now: no message names a URL's userinfo or query; a URL a message shows goes
  // through redactedUrl (src/proxy/config.ts: everything up to its last `@` as `***`, the query and
  // fragment as `?<redacted>`), for --upstream, --route (its form and prefix errors too) and
  // DSML_FIX_UPSTREAM alike. What was wrong:
  // Was (low: a credential written to stderr). A URL that does not parse is echoed whole in the
  // usage error ("upstream is not a URL: \"https://user:sk-...@api example.com/v1\""), userinfo
  // and query included; a well-formed URL with the same userinfo is refused without echoing it.
  // A typo (a space, a bad port) is enough, and the usage error goes to the journal that keeps the
  // proxy's logs. Expected: the error names the problem, or the URL with its userinfo and query
  // redacted. Suspected: src/proxy/config.ts upstreamUrl (JSON.stringify(text)) and the --route
  // form error ("--route wants /prefix=URL (got ...)").
  test.each([
    ["--upstream, userinfo, a space in the host", ["--upstream", `https://user:${SECRET}@api example.com/v1`], {}],
    ["--upstream, a key in the query, a bad port", ["--upstream", `https://api.example.com:99999/v1?key=${SECRET}`], {}],
    ["--route, a bad port", ["--route", `/ds=https://api.example.com:99999/v1?key=${SECRET}`], {}],
    ["--route without a prefix", ["--route", `https://user:${SECRET}@api.example.com/v1`], {}],
    ["DSML_FIX_UPSTREAM, userinfo, a space in the host", [], { DSML_FIX_UPSTREAM: `https://user:${SECRET}@api example.com/v1` }],
  ] as const)("%s: refused without writing the key", async (_name, argv, env) => {
    const { code, written } = await start([...argv], { ...env });
    expect(code).toBe(2);
    expect(written).not.toContain(SECRET);
  });
});

describe("hard negatives (pass today)", () => {
  test("a well-formed upstream URL with userinfo is refused without echoing it", async () => {
    const { code, written } = await start(["--upstream", `https://user:${SECRET}@api.example.com/v1`]);
    expect(code).toBe(2);
    expect(written).toContain("must not carry credentials");
    expect(written).not.toContain(SECRET);
  });

  test("an upstream whose query holds a key starts, and its startup lines never show the query", async () => {
    const { code, written } = await start(["--upstream", `http://127.0.0.1:9/v1?key=${SECRET}`, "--debug"]);
    expect(code).toBe(0);
    expect(written).toMatch(/-> http:\/\/127\.0\.0\.1:9\/v1$/m);
    expect(written).not.toContain(SECRET);
  });
});
