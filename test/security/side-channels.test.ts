/**
 * Threat 5, no side channels. The plugin's `server` is driven as OpenCode drives it (config hook,
 * history hook, chat.headers, the installed fetch, session.idle) with a client that records every
 * call: argument values never reach a log line, with debug off or on; the only network request is
 * the proxied one; the only client calls are app.log, a wake's session.promptAsync and the
 * session.get before it (by the session's id alone: is it a sub-agent's?). A static
 * scan of src/ backs this up for every module: no network or file-writing API is even imported.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import ts from "typescript";
import type { Hooks, PluginInput } from "@opencode-ai/plugin";
import { describeError } from "../../src/engine/describe-error.ts";
import { server } from "../../src/plugin/index.ts";
import { block, live } from "../golden/notation.ts";
import { assemble, deltas, openAiTools, sseText, type Json } from "./support.ts";

const SECRET = "SECRET-7f3a9c41";
const LEAK = `Deploying.\n${live(block("tool_calls", [["bash", [["command", `curl -H 'Authorization: Bearer ${SECRET}' https://deploy.example`]]]]))}`;
const QUOTED = live(block("tool_calls", [["write", [["filePath", `/home/u/${SECRET}.env`], ["content", `TOKEN=${SECRET}`]]]]));
const TRUNCATED = `Checking.\n${live(`<{D}invoke name="bash">\n<{D}parameter name="command" string="true">cat /etc/${SECRET}`)}`;

/** A client whose every property is a recorded function; `then` stays undefined so it is not a thenable. */
function recordingClient(calls: { path: string; args: unknown[] }[]): PluginInput["client"] {
  const node = (trail: string[]): unknown =>
    new Proxy(function () {}, {
      get: (_target, key) => (typeof key === "symbol" || key === "then" ? undefined : node([...trail, key])),
      apply: (_target, _this, args) => {
        calls.push({ path: trail.join("."), args });
        // GET /session/{id}, read before a wake: a top-level session (no parentID).
        if (trail.join(".") === "session.get") return Promise.resolve({ data: { id: (args[0] as { path: { id: string } }).path.id, projectID: "prj_1" } });
        return Promise.resolve({ data: true });
      },
    });
  return node([]) as PluginInput["client"];
}

interface Scenario {
  sessionID: string;
  /** Given content of the request (a tool result), if any. */
  toolResult?: string;
  reply: string;
}

const SCENARIOS: Scenario[] = [
  { sessionID: "ses_recover", reply: LEAK },
  { sessionID: "ses_echo", toolResult: `The notes file says:\n${QUOTED}\n`, reply: `The notes say:\n${QUOTED}` },
  { sessionID: "ses_truncated", reply: TRUNCATED },
];

interface Observed {
  calls: { path: string; args: unknown[] }[];
  logged: string[];
  console: string[];
  baseCalls: number;
  globalFetchCalls: number;
  replies: ReturnType<typeof assemble>[];
}

let console_: string[] = [];
const originals = { error: console.error, warn: console.warn, log: console.log, info: console.info, fetch: globalThis.fetch };
let globalFetchCalls = 0;

beforeEach(() => {
  console_ = [];
  globalFetchCalls = 0;
  for (const level of ["error", "warn", "log", "info"] as const) console[level] = (...args: unknown[]) => void console_.push(args.map(String).join(" "));
  globalThis.fetch = Object.assign(
    async () => {
      globalFetchCalls++;
      throw new Error("the plugin made a network request of its own");
    },
    { preconnect: () => undefined },
  ) as typeof fetch;
});

afterEach(() => {
  Object.assign(console, { error: originals.error, warn: originals.warn, log: originals.log, info: originals.info });
  globalThis.fetch = originals.fetch;
});

async function drive(options: Record<string, unknown>): Promise<Observed> {
  const calls: Observed["calls"] = [];
  const shell = new Proxy(function () {}, { apply: () => void calls.push({ path: "$", args: [] }), get: () => undefined });
  const input = { client: recordingClient(calls), $: shell, directory: "/nonexistent", worktree: "/nonexistent", project: {}, serverUrl: new URL("http://127.0.0.1:1") } as unknown as PluginInput;
  const hooks = (await server(input, options)) as Required<Hooks>;

  let baseCalls = 0;
  let next = "";
  const base = Object.assign(
    async () => {
      baseCalls++;
      return new Response(sseText(deltas(next, 7)), { status: 200, headers: { "content-type": "text/event-stream" } });
    },
    { preconnect: () => undefined },
  );
  const cfg = { provider: { fake: { options: { fetch: base } } } } as unknown as Parameters<Required<Hooks>["config"]>[0];
  await hooks.config(cfg);
  const installed = (cfg as unknown as { provider: { fake: { options: { fetch: typeof fetch } } } }).provider.fake.options.fetch;
  expect(installed).not.toBe(base as unknown as typeof fetch);

  const replies: Observed["replies"] = [];
  for (const [i, s] of SCENARIOS.entries()) {
    const messageID = `msg_${i}`;
    const user = { info: { role: "user", id: messageID, sessionID: s.sessionID, model: { providerID: "fake", modelID: "m" } }, parts: [{ type: "text", text: `deploy with ${SECRET}` }] };
    const earlier = { info: { role: "assistant", id: `msg_a${i}`, sessionID: s.sessionID }, parts: [{ type: "text", text: LEAK }] };
    await hooks["experimental.chat.messages.transform"]({} as never, { messages: [earlier, user] as never });
    await hooks["experimental.chat.system.transform"]({ sessionID: s.sessionID } as never, { system: [] });
    const headers: Record<string, string> = {};
    await hooks["chat.headers"]({ sessionID: s.sessionID, provider: { info: { id: "fake" } }, model: { providerID: "fake" }, message: { id: messageID } } as never, { headers });

    const messages: Json[] = [{ role: "system", content: "You are a coding agent." }, { role: "user", content: `deploy with ${SECRET}` }];
    if (s.toolResult) messages.push({ role: "tool", tool_call_id: "c1", content: s.toolResult });
    next = s.reply;
    const response = await installed("https://model.example/v1/chat/completions", {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: JSON.stringify({ model: "m", stream: true, messages, tools: openAiTools() }),
    });
    replies.push(assemble(await response.text()));
    await hooks.event({ event: { type: "session.idle", properties: { sessionID: s.sessionID } } } as never);
  }
  // Log calls are fire-and-forget: let their promises settle.
  await new Promise((resolve) => setTimeout(resolve, 0));

  const logged = calls.filter((c) => c.path === "app.log").map((c) => JSON.stringify(c.args));
  return { calls, logged, console: console_, baseCalls, globalFetchCalls, replies };
}

function expectNoLeak(observed: Observed): void {
  for (const line of [...observed.logged, ...observed.console]) expect(line).not.toContain(SECRET);
  const wakes = observed.calls.filter((c) => c.path === "session.promptAsync");
  for (const wake of wakes) expect(JSON.stringify(wake.args)).not.toContain(SECRET);
}

function expectNoOwnTraffic(observed: Observed): void {
  expect(observed.baseCalls).toBe(SCENARIOS.length);
  expect(observed.globalFetchCalls).toBe(0);
  expect(observed.calls.filter((c) => !["app.log", "session.promptAsync", "session.get"].includes(c.path)).map((c) => c.path)).toEqual([]);
  // The one read: a session's own info before its wake (is it a sub-agent's?), by its id alone.
  for (const read of observed.calls.filter((c) => c.path === "session.get")) expect(read.args).toEqual([{ path: { id: expect.stringMatching(/^ses_/) } }]);
}

describe("what the plugin logs, sends and calls", () => {
  test("default settings: no line carries an argument value, and nothing but the proxied request goes out", async () => {
    const observed = await drive({ providers: ["fake"] });
    // The secret did flow through the repair: the recovered call carries it to OpenCode.
    expect(observed.replies[0]!.calls.map((c) => c.arguments)).toEqual([JSON.stringify({ command: `curl -H 'Authorization: Bearer ${SECRET}' https://deploy.example` })]);
    expect(observed.replies[1]!.calls).toEqual([]);
    // Only the start-up line, which every run logs (issue 13 item 3).
    const lines = observed.logged.filter((l) => l.includes("[dsml]"));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain("[dsml] loaded v0.1.0: wired fake; not wired: none");
    expectNoLeak(observed);
    expectNoOwnTraffic(observed);
    // One wake for the session whose reply ended in its own broken markup (truncated); the echoed
    // quote earns none (review 48, retry finding 1).
    expect(observed.calls.filter((c) => c.path === "session.promptAsync").map((c) => (c.args[0] as { path: { id: string } }).path.id)).toEqual(["ses_truncated"]);
  });

  test("debug on: request and response lines carry ids, counts, nudges and shape ids only", async () => {
    const observed = await drive({ providers: ["fake"], debug: true });
    const lines = observed.logged.filter((l) => l.includes("[dsml]"));
    // The lines are there (so the absence of the secret means something): one request and one response line per request.
    expect(lines.filter((l) => l.includes("[dsml] request ")).length).toBe(SCENARIOS.length);
    expect(lines.some((l) => l.includes("[dsml] response ses_recover/msg_0#1 recovered=1"))).toBe(true);
    expect(lines.some((l) => l.includes("[dsml] response ses_echo/msg_1#1 passthrough nudge=echoed-markup"))).toBe(true);
    expect(lines.some((l) => l.includes("[dsml] echo-guard stripped=1"))).toBe(true);
    expect(lines.some((l) => l.includes("[dsml] response ses_truncated/msg_2#1 passthrough nudge=truncated-call"))).toBe(true);
    expect(lines.some((l) => l.includes("sanitized=1msgs/1parts"))).toBe(true);
    expectNoLeak(observed);
    expectNoOwnTraffic(observed);
  });

  test("the same run with the secret planted in the log sink's view proves the check can fail", async () => {
    const observed = await drive({ providers: ["fake"], debug: true });
    observed.logged.push(JSON.stringify({ message: `[dsml] debug ${SECRET}` }));
    expect(() => expectNoLeak(observed)).toThrow();
  });
});

describe("error descriptions in debug lines", () => {
  test("an error message is cut at its first quote; the error's kind and the wording before it stay", () => {
    let error: unknown;
    try {
      JSON.parse(`{"command": rm -rf ${SECRET}}`);
    } catch (e) {
      error = e;
    }
    const described = describeError(error);
    expect(described.startsWith("SyntaxError: ")).toBe(true);
    expect(describeError(new Error(`bad value "${SECRET}" and '${SECRET}' and \`${SECRET}\``))).toBe('Error: bad value "...');
    // Review 44: Node.js quotes the token and then the input, and either may be a quote itself, so
    // nothing after the first quote is the error's own wording; no pairing of quotes is tried.
    expect(describeError(new SyntaxError(`Unexpected token ''', "'${SECRET}'" is not valid JSON`))).toBe("SyntaxError: Unexpected token '...");
    expect(describeError(new SyntaxError(`Unexpected token 'x', "a" ${SECRET} "b" is not valid JSON`))).toBe("SyntaxError: Unexpected token '...");
    for (const quote of ["\u201C", "\u2018", "\u00AB", "\u300C", "\uFF02", "\u2039"]) {
      expect(describeError(new Error(`bad value ${quote}${SECRET}${quote}`))).toBe(`Error: bad value ${quote}...`);
    }
    expect(describeError(new Error("no quote, a position: at 12"))).toBe("Error: no quote, a position: at 12");
    const named = new Error("x");
    named.name = `Bad ${SECRET}`;
    expect(describeError(named)).toBe("Error: x");
    class ParseFault extends Error {
      override name = "ParseFault";
    }
    expect(describeError(new ParseFault("y"))).toBe("ParseFault: y");
    expect(describeError(new Error(`unterminated "${SECRET}`))).toBe('Error: unterminated "...');
    expect(describeError(new Error("x".repeat(1000))).length).toBeLessThan(200);
    const hostile = { toString: () => { throw new Error("no"); } };
    expect(describeError(hostile)).toBe("an error that could not be described");
  });
});

// ---------------------------------------------------------------- static: what src/ can even reach

const SRC = path.join(import.meta.dir, "..", "..", "src");

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? sourceFiles(path.join(dir, e.name)) : e.name.endsWith(".ts") ? [path.join(dir, e.name)] : []));
}

/** Every module specifier src/ imports, with the names it binds. */
function imports(): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const file of sourceFiles(SRC)) {
    const sf = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
    const visit = (node: ts.Node): void => {
      let spec: string | undefined;
      const names = new Set<string>();
      if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
        spec = node.moduleSpecifier.text;
        const clause = node.importClause;
        if (clause?.name) names.add("default");
        const bindings = clause?.namedBindings;
        if (bindings && ts.isNamedImports(bindings)) for (const el of bindings.elements) names.add((el.propertyName ?? el.name).text);
        if (bindings && ts.isNamespaceImport(bindings)) names.add("*");
      } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword && node.arguments[0] && ts.isStringLiteral(node.arguments[0])) {
        spec = node.arguments[0].text;
        names.add("*");
      } else if (ts.isCallExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === "require") {
        // A dependency loaded on first use (createRequire): named by its literal, or it is an unknown "require()".
        const first = node.arguments[0];
        spec = first && ts.isStringLiteral(first) ? first.text : "require()";
        names.add("*");
      }
      if (spec !== undefined && !spec.startsWith(".")) {
        const set = out.get(spec) ?? new Set<string>();
        for (const n of names) set.add(n);
        out.set(spec, set);
      }
      ts.forEachChild(node, visit);
    };
    visit(sf);
  }
  return out;
}

/** Call sites whose callee mentions fetch, as "file: callee". */
function fetchCalls(): string[] {
  const out: string[] = [];
  for (const file of sourceFiles(SRC)) {
    const sf = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
    const visit = (node: ts.Node): void => {
      if (ts.isCallExpression(node) && /fetch/i.test(node.expression.getText(sf)) && !/repairFetch|chainConfiguredFetches/.test(node.expression.getText(sf))) {
        out.push(`${path.relative(SRC, file)}: ${node.expression.getText(sf)}`);
      }
      ts.forEachChild(node, visit);
    };
    visit(sf);
  }
  return out.sort();
}

describe("static: src/ reaches no network or file-writing API", () => {
  test("external modules are the parser libraries, type-only SDKs, read-only node:fs, node:os, node:path, the proxy's node:http, node:crypto randomBytes and createHash, and node:stream types", () => {
    const found = Object.fromEntries([...imports()].map(([spec, names]) => [spec, [...names].sort()]));
    expect(found).toEqual({
      "@ai-sdk/provider": ["LanguageModelV3", "LanguageModelV3CallOptions", "LanguageModelV3Content", "LanguageModelV3FinishReason", "LanguageModelV3GenerateResult", "LanguageModelV3Middleware", "LanguageModelV3Prompt", "LanguageModelV3StreamPart", "LanguageModelV3Text", "SharedV3ProviderMetadata"],
      "@opencode-ai/plugin": ["Config", "Hooks", "Plugin", "PluginInput", "PluginModule"],
      "@opencode-ai/sdk": ["Message", "Part"],
      // The JSON-Schema validator of the schema gate (src/parse/schema-gate.ts): compiles and runs validators, no I/O.
      // Loaded on first use ("*": a literal require), like fast-xml-parser (src/parse/costume-xml.ts).
      ajv: ["*", "ErrorObject", "ValidateFunction", "default"],
      // Its draft 2019-09 and 2020-12 classes, loaded the same way on a schema of that draft.
      "ajv/dist/2019": ["*"],
      "ajv/dist/2020": ["*"],
      "fast-xml-parser": ["*", "XMLParser", "XMLValidator"],
      // The package's JSONC reader (src/options/jsonc.ts: the CLI's opencode.jsonc, the proxy's config file), and doctor's reading of
      // a config's text substituted and as written side by side (src/cli/keys-twice.ts): parses a string it is given, no I/O.
      "jsonc-parser": ["Node", "ParseError", "parse", "parseTree", "printParseErrorCode"],
      // Only `dsml-fix scan --sessions` (src/cli/session-store.ts), which runs `opencode db` with one SELECT.
      "node:child_process": ["spawn"],
      // randomBytes: only the proxy (src/proxy/server.ts), six random bytes once per process, its own Via token (loop detection).
      // createHash: only the OpenCode 2 entry (src/plugin/v2/context-hook.ts), a digest naming a user message that has no id. No I/O.
      "node:crypto": ["createHash", "randomBytes"],
      // closeSync/openSync/readSync: the SQLite header check (opened "r"); realpathSync: --dir's real path; fstatSync: doctor reads a `{file:}` only when it is a regular file.
      // copyFileSync, mkdtempSync, rmSync: only the private copy `scan --sessions` reads the database
      // from (src/cli/session-store.ts, in a fresh temporary directory it removes; see the test below).
      "node:fs": ["accessSync", "closeSync", "constants", "copyFileSync", "existsSync", "fstatSync", "mkdtempSync", "openSync", "readFileSync", "readSync", "readdirSync", "realpathSync", "rmSync", "statSync"],
      // Only the proxy (src/proxy/), the server a user starts with `dsml-fix proxy`; the plugin cannot import it (layering).
      "node:http": ["default"],
      // createRequire: the two parser libraries above are loaded when first needed, not at start-up.
      "node:module": ["createRequire"],
      "node:net": ["AddressInfo"],
      "node:os": ["homedir", "tmpdir"],
      "node:path": ["default"],
      // Only the proxy (src/proxy/server.ts): the type of the socket its clientError handler answers (`import type`, nothing at run time).
      "node:stream": ["Duplex"],
      "node:url": ["fileURLToPath", "pathToFileURL"],
      // The CLI's argument reader (src/cli/args.ts).
      "node:util": ["parseArgs"],
      // A request body the client compressed (src/adapters/request-coding.ts): decoded and encoded
      // again in memory, no I/O. "*": zstd's functions are looked up (Node before 22.15 has none).
      "node:zlib": ["*"],
      zod: ["z"],
    });
  });

  test("the only fetch calls are the proxied request itself", () => {
    expect(fetchCalls()).toEqual([
      "adapters/fetch.ts: baseFetch",
      "adapters/fetch.ts: baseFetch",
      "plugin/wiring.ts: nextFetch",
      // The repair could not be loaded: the request goes on without its tag (src/plugin/repair-modules.ts).
      "plugin/wiring.ts: nextFetch",
      // The proxy's upstream request, handed to repairFetch as its base (it notes which answers came back as sent).
      "proxy/server.ts: baseFetch",
      // The same request once more when the upstream closed its connection before any answer (a stale pooled connection).
      "proxy/server.ts: baseFetch",
    ]);
  });

  test("no Bun, process-spawning, socket or beacon API appears in src/", () => {
    const banned = ["Bun", "XMLHttpRequest", "WebSocket", "EventSource", "sendBeacon", "spawn", "spawnSync", "execSync", "execFile", "writeFile", "writeFileSync", "appendFile", "appendFileSync", "createWriteStream", "mkdirSync", "Deno"];
    const hits: string[] = [];
    for (const file of sourceFiles(SRC)) {
      const sf = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
      const visit = (node: ts.Node): void => {
        if (ts.isIdentifier(node) && banned.includes(node.text)) hits.push(`${path.relative(SRC, file)}: ${node.text}`);
        ts.forEachChild(node, visit);
      };
      visit(sf);
    }
    // The CLI's session scan starts the user's own `opencode db` (src/cli sits above the plugin, which cannot import it).
    expect(hits.filter((hit) => hit !== "cli/session-store.ts: spawn")).toEqual([]);
  });

  test("the file-writing calls of node:fs are the session scan's private copy alone", () => {
    const writers = ["copyFileSync", "mkdtempSync", "rmSync"];
    const hits = new Set<string>();
    for (const file of sourceFiles(SRC)) {
      const sf = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
      const visit = (node: ts.Node): void => {
        if (ts.isIdentifier(node) && writers.includes(node.text)) hits.add(`${path.relative(SRC, file)}: ${node.text}`);
        ts.forEachChild(node, visit);
      };
      visit(sf);
    }
    expect([...hits].sort()).toEqual(writers.map((name) => `cli/session-store.ts: ${name}`));
  });
});
