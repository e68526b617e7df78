/**
 * End-to-end harness: a scripted fake OpenAI-compatible model server, an isolated OpenCode project,
 * and helpers that drive the real `opencode` binary (opencode-ai 1.18.33) headless.
 *
 * Facts this relies on (verified against opencode 1.18.33):
 * - `@ai-sdk/openai-compatible` is built into the binary; a provider pointing at a local server is
 *   enough for a whole offline session.
 * - Every run also sends a title request to `small_model` (system prompt starts "You are a title
 *   generator", no `tools`); it must not consume a scripted reply.
 * - OpenCode runs `npm install @opencode-ai/plugin@<version>` in every config dir
 *   (`$XDG_CONFIG_HOME/opencode`, any `.opencode/`, `~/.opencode`) and waits for it before loading
 *   plugins (60-70 s offline). Pre-seeding each dir with `node_modules/`, a `package.json` and a
 *   `package-lock.json` naming that dependency makes it skip the install.
 * - `opencode run --format json` prints one JSON event per line on stdout; `--print-logs` sends the
 *   logs to stderr.
 * - `opencode serve --port N` prints "opencode server listening on http://..." on stdout when ready.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** Repository root (resolved from this file, never from the cwd). */
export const repoRoot = fileURLToPath(new URL("../..", import.meta.url));

/** The real opencode binary shipped by the `opencode-ai` dev dependency. */
export const opencodeBin = path.join(repoRoot, "node_modules", "opencode-linux-x64", "bin", "opencode");

/** Version of `@opencode-ai/plugin` OpenCode wants to install in config dirs. */
export const OPENCODE_VERSION = "1.18.33";

// ---------------------------------------------------------------------------------------------
// Fake model server
// ---------------------------------------------------------------------------------------------

export interface ScriptedToolCall {
  name: string;
  /** An object is sent as JSON; a string is sent verbatim (e.g. to send broken JSON). */
  arguments: Record<string, unknown> | string;
  /** Defaults to a unique `call_<n>`. */
  id?: string;
}

/** A plain (or reasoning + plain) text reply, streamed in `chunkSize`-character deltas. */
export interface ContentTurn {
  content: string;
  /** Streamed first as `delta.reasoning_content`. */
  reasoning?: string;
  /** Characters per SSE delta; default 7 so that markers get split across chunks. */
  chunkSize?: number;
  /** Defaults to "stop". Use "length" to simulate a truncated reply. */
  finishReason?: string;
  /** Pause between SSE chunks (ms); default 0. */
  chunkDelayMs?: number;
}

/** A native tool call (OpenAI `delta.tool_calls`), finish_reason "tool_calls". */
export interface ToolCallTurn {
  toolCalls: ScriptedToolCall[];
  /** Optional text streamed before the calls. */
  content?: string;
  reasoning?: string;
  chunkSize?: number;
  chunkDelayMs?: number;
}

/** An HTTP error answer (does not stream). */
export interface ErrorTurn {
  status: number;
  body?: unknown;
}

export type ScriptTurn = ContentTurn | ToolCallTurn | ErrorTurn;

/** A turn, or a function computing one from the request it answers. */
export type ScriptEntry = ScriptTurn | ((request: RecordedRequest) => ScriptTurn);

export interface RecordedRequest {
  /** Order of arrival, from 0. */
  index: number;
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  /** Parsed JSON body (undefined when the body was not JSON). */
  body: any;
  /** "title" for title-generator / tool-less requests, "main" otherwise. */
  kind: "title" | "main";
}

export interface FakeModel {
  /** Base URL ending in `/v1`, for the provider's `options.baseURL`. */
  url: string;
  port: number;
  /** Every chat-completions request in arrival order (title and main). */
  requests: RecordedRequest[];
  /** Only the main requests (the ones that carry `tools` and consume the script). */
  mainRequests(): RecordedRequest[];
  titleRequests(): RecordedRequest[];
  /** Scripted turns not yet consumed. */
  remaining(): number;
  /** Append more turns to the script. */
  push(...turns: ScriptEntry[]): void;
  close(): Promise<void>;
}

export const TITLE_ANSWER = "Fake session title";
export const EXHAUSTED_ANSWER = "done.";

function isTitleRequest(body: any): boolean {
  const messages: any[] = Array.isArray(body?.messages) ? body.messages : [];
  for (const m of messages) {
    if (m?.role !== "system") continue;
    const text =
      typeof m.content === "string"
        ? m.content
        : Array.isArray(m.content)
          ? m.content.map((p: any) => (typeof p?.text === "string" ? p.text : "")).join("")
          : "";
    if (text.trimStart().startsWith("You are a title generator")) return true;
  }
  return !Array.isArray(body?.tools) || body.tools.length === 0;
}

function chunks(text: string, size: number): string[] {
  const n = Math.max(1, Math.floor(size));
  const out: string[] = [];
  // Split on code points so surrogate pairs are never cut.
  const cps = Array.from(text);
  for (let i = 0; i < cps.length; i += n) out.push(cps.slice(i, i + n).join(""));
  return out;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Start a scripted fake OpenAI-compatible server on 127.0.0.1 (random port).
 * Main requests consume `script` in order; title requests get `TITLE_ANSWER`; once the script is
 * exhausted every main request is answered with `EXHAUSTED_ANSWER`.
 */
export async function startFakeModel(script: ScriptEntry[] = []): Promise<FakeModel> {
  const queue: ScriptEntry[] = [...script];
  const requests: RecordedRequest[] = [];
  let callCounter = 0;
  let completionCounter = 0;

  const server = http.createServer((req, res) => {
    const bodyParts: Buffer[] = [];
    req.on("data", (c: Buffer) => bodyParts.push(c));
    req.on("end", () => {
      void handle(req, res, Buffer.concat(bodyParts).toString("utf8")).catch((err) => {
        if (!res.headersSent) res.writeHead(500, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: { message: String(err) } }));
      });
    });
  });

  async function handle(req: http.IncomingMessage, res: http.ServerResponse, raw: string) {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    if (req.method !== "POST" || !url.pathname.endsWith("/chat/completions")) {
      res.writeHead(404, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: `not found: ${req.method} ${url.pathname}` } }));
      return;
    }
    let body: any;
    try {
      body = JSON.parse(raw);
    } catch {
      body = undefined;
    }
    const kind = isTitleRequest(body) ? "title" : "main";
    const record: RecordedRequest = {
      index: requests.length,
      method: req.method,
      path: url.pathname,
      headers: req.headers,
      body,
      kind,
    };
    requests.push(record);

    let turn: ScriptTurn;
    if (kind === "title") turn = { content: TITLE_ANSWER, chunkSize: 1000 };
    else {
      const entry = queue.shift();
      turn = entry === undefined ? { content: EXHAUSTED_ANSWER } : typeof entry === "function" ? entry(record) : entry;
    }

    if ("status" in turn) {
      res.writeHead(turn.status, { "content-type": "application/json" });
      res.end(JSON.stringify(turn.body ?? { error: { message: `scripted error ${turn.status}`, type: "server_error" } }));
      return;
    }

    const id = `chatcmpl-fake-${++completionCounter}`;
    const created = Math.floor(Date.now() / 1000);
    const model = typeof body?.model === "string" ? body.model : "fake-model";
    const toolCalls =
      "toolCalls" in turn
        ? turn.toolCalls.map((c) => ({
            id: c.id ?? `call_${++callCounter}`,
            name: c.name,
            arguments: typeof c.arguments === "string" ? c.arguments : JSON.stringify(c.arguments),
          }))
        : [];
    const content = turn.content ?? "";
    const reasoning = turn.reasoning ?? "";
    const finishReason = "toolCalls" in turn ? "tool_calls" : (turn.finishReason ?? "stop");
    const usage = {
      prompt_tokens: 10,
      completion_tokens: Math.max(1, Math.ceil((content.length + reasoning.length) / 4)),
      total_tokens: 0,
    };
    usage.total_tokens = usage.prompt_tokens + usage.completion_tokens;

    if (body?.stream !== true) {
      const message: Record<string, unknown> = { role: "assistant", content: content || (toolCalls.length ? null : "") };
      if (reasoning) message.reasoning_content = reasoning;
      if (toolCalls.length)
        message.tool_calls = toolCalls.map((c) => ({
          id: c.id,
          type: "function",
          function: { name: c.name, arguments: c.arguments },
        }));
      res.writeHead(200, { "content-type": "application/json" });
      res.end(
        JSON.stringify({
          id,
          object: "chat.completion",
          created,
          model,
          choices: [{ index: 0, message, finish_reason: finishReason }],
          usage,
        }),
      );
      return;
    }

    res.writeHead(200, {
      "content-type": "text/event-stream",
      "cache-control": "no-cache",
      connection: "keep-alive",
    });
    const size = turn.chunkSize ?? 7;
    const delay = turn.chunkDelayMs ?? 0;
    const send = async (choices: unknown[], extra: Record<string, unknown> = {}) => {
      res.write(`data: ${JSON.stringify({ id, object: "chat.completion.chunk", created, model, choices, ...extra })}\n\n`);
      if (delay > 0) await sleep(delay);
    };
    const delta = (d: Record<string, unknown>, finish: string | null = null) => [
      { index: 0, delta: d, finish_reason: finish },
    ];

    await send(delta({ role: "assistant", content: "" }));
    for (const piece of chunks(reasoning, size)) await send(delta({ reasoning_content: piece }));
    for (const piece of chunks(content, size)) await send(delta({ content: piece }));
    for (const [i, c] of toolCalls.entries()) {
      await send(
        delta({ tool_calls: [{ index: i, id: c.id, type: "function", function: { name: c.name, arguments: "" } }] }),
      );
      for (const piece of chunks(c.arguments, Math.max(size, 16)))
        await send(delta({ tool_calls: [{ index: i, function: { arguments: piece } }] }));
    }
    await send(delta({}, finishReason));
    if (body?.stream_options?.include_usage) await send([], { usage });
    res.write("data: [DONE]\n\n");
    res.end();
  }

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const port = (server.address() as net.AddressInfo).port;

  return {
    url: `http://127.0.0.1:${port}/v1`,
    port,
    requests,
    mainRequests: () => requests.filter((r) => r.kind === "main"),
    titleRequests: () => requests.filter((r) => r.kind === "title"),
    remaining: () => queue.length,
    push: (...turns) => void queue.push(...turns),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections?.();
        server.close(() => resolve());
      }),
  };
}

// ---------------------------------------------------------------------------------------------
// Isolated project
// ---------------------------------------------------------------------------------------------

export type PluginEntry = string | [string, Record<string, unknown>];

export interface ProjectOptions {
  /** Base URL of the fake model (`FakeModel.url`). */
  modelUrl: string;
  /** `plugin` entries of opencode.json. */
  plugin?: PluginEntry[];
  /** `permission` of opencode.json; default `{"*":"allow"}`. */
  permission?: unknown;
  /** Extra top-level keys merged (shallowly) into opencode.json. */
  config?: Record<string, unknown>;
  /** Files to create in the project dir (relative path -> contents). */
  files?: Record<string, string>;
  /** Extra environment variables (undefined deletes one). */
  env?: Record<string, string | undefined>;
}

export interface Project {
  /** The project directory (cwd of every opencode process). */
  dir: string;
  /** The temp root holding the project, HOME and XDG dirs; removed by cleanup(). */
  root: string;
  home: string;
  /** Full isolated environment for opencode processes. */
  env: Record<string, string>;
  /** The opencode.json written into `dir`. */
  config: Record<string, unknown>;
  cleanup(): void;
}

/** Env flags that keep OpenCode offline and quiet. */
export const OPENCODE_DISABLE_FLAGS = [
  "OPENCODE_DISABLE_AUTOUPDATE",
  "OPENCODE_DISABLE_MODELS_FETCH",
  "OPENCODE_DISABLE_SHARE",
  "OPENCODE_DISABLE_LSP_DOWNLOAD",
  "OPENCODE_DISABLE_CLAUDE_CODE",
  "OPENCODE_DISABLE_EXTERNAL_SKILLS",
  "OPENCODE_DISABLE_DEFAULT_PLUGINS",
  "OPENCODE_EXPERIMENTAL_DISABLE_FILEWATCHER",
] as const;

/** Make `dir` look like an already-installed OpenCode config dir so no npm install starts. */
export function seedConfigDir(dir: string): void {
  mkdirSync(path.join(dir, "node_modules"), { recursive: true });
  writeFileSync(
    path.join(dir, "package.json"),
    JSON.stringify({ dependencies: { "@opencode-ai/plugin": OPENCODE_VERSION } }, null, 2),
  );
  writeFileSync(
    path.join(dir, "package-lock.json"),
    JSON.stringify(
      { lockfileVersion: 3, packages: { "": { dependencies: { "@opencode-ai/plugin": OPENCODE_VERSION } } } },
      null,
      2,
    ),
  );
}

/** Build the opencode.json of a test project. */
export function projectConfig(opts: ProjectOptions): Record<string, unknown> {
  return {
    $schema: "https://opencode.ai/config.json",
    model: "fake/fake-model",
    small_model: "fake/fake-model",
    autoupdate: false,
    share: "disabled",
    permission: opts.permission ?? { "*": "allow" },
    plugin: opts.plugin ?? [],
    provider: {
      fake: {
        npm: "@ai-sdk/openai-compatible",
        name: "Fake",
        options: { baseURL: opts.modelUrl, apiKey: "sk-fake" },
        models: {
          "fake-model": {
            name: "Fake Model",
            tool_call: true,
            limit: { context: 100000, output: 4000 },
          },
        },
      },
    },
    ...(opts.config ?? {}),
  };
}

/** Create an isolated temp project (own HOME and XDG dirs, pre-seeded config dirs). */
export function makeProject(opts: ProjectOptions): Project {
  const root = mkdtempSync(path.join(os.tmpdir(), "dsml-e2e-"));
  const home = path.join(root, "home");
  const xdg = {
    XDG_CONFIG_HOME: path.join(root, "xdg", "config"),
    XDG_DATA_HOME: path.join(root, "xdg", "data"),
    XDG_CACHE_HOME: path.join(root, "xdg", "cache"),
    XDG_STATE_HOME: path.join(root, "xdg", "state"),
  };
  const dir = path.join(root, "project");
  for (const d of [home, dir, ...Object.values(xdg)]) mkdirSync(d, { recursive: true });

  seedConfigDir(path.join(xdg.XDG_CONFIG_HOME, "opencode"));
  seedConfigDir(path.join(dir, ".opencode"));

  const config = projectConfig(opts);
  writeFileSync(path.join(dir, "opencode.json"), JSON.stringify(config, null, 2));
  for (const [rel, text] of Object.entries(opts.files ?? {})) {
    const p = path.join(dir, rel);
    mkdirSync(path.dirname(p), { recursive: true });
    writeFileSync(p, text);
  }

  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    // Drop anything that could leak the developer's OpenCode / provider setup into the run.
    if (v === undefined) continue;
    if (k.startsWith("OPENCODE") || k.startsWith("XDG_")) continue;
    // BUN_BE_BUN=1 runs the suite on the Bun inside OpenCode; it would turn the OpenCode under test into that Bun.
    if (k === "BUN_BE_BUN") continue;
    if (/_API_KEY$/.test(k)) continue;
    env[k] = v;
  }
  env.HOME = home;
  // `opencode run` resolves its instance directory from $PWD, not from the process cwd: an inherited
  // PWD makes it open a second instance (and session) in the caller's directory.
  env.PWD = dir;
  env.USERPROFILE = home;
  Object.assign(env, xdg);
  for (const flag of OPENCODE_DISABLE_FLAGS) env[flag] = "1";
  delete env.OPENCODE_EXPERIMENTAL_NATIVE_LLM;
  env.NO_COLOR = "1";
  for (const [k, v] of Object.entries(opts.env ?? {})) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }

  return {
    dir,
    root,
    home,
    env,
    config,
    cleanup: () => rmSync(root, { recursive: true, force: true }),
  };
}

// ---------------------------------------------------------------------------------------------
// Running opencode
// ---------------------------------------------------------------------------------------------

export interface RunResult {
  /** Exit code (null when killed by a signal). */
  code: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  /** Parsed JSON lines of stdout (`--format json` events). */
  events: OpencodeEvent[];
  stdout: string;
  /** With `--print-logs` (default) OpenCode's log lines. */
  stderr: string;
  /** sessionID of the first event that carries one. */
  sessionID: string | undefined;
  durationMs: number;
}

/** One `opencode run --format json` event: `{ type, timestamp, sessionID, part? , error? }`. */
export interface OpencodeEvent {
  type: string;
  timestamp?: number;
  sessionID?: string;
  part?: any;
  error?: any;
  [key: string]: unknown;
}

export interface RunOptions {
  /** Kill the process (group) after this long; default 60 000 ms. */
  timeoutMs?: number;
  /** Keep OpenCode's logs on stderr (`--print-logs`); default true. */
  printLogs?: boolean;
  /** `--log-level`; default "INFO" when printLogs. */
  logLevel?: "DEBUG" | "INFO" | "WARN" | "ERROR";
  /** Extra CLI args (e.g. ["--session", id], ["--thinking"]). */
  args?: string[];
  /**
   * "stdin" (default): the message is written to stdin, which is then closed; it reaches the model
   * exactly. "argv": passed as one positional word, so OpenCode wraps it in double quotes if it
   * contains a space (what a user typing `opencode run "a b"` gets).
   */
  messageVia?: "stdin" | "argv";
}

interface Spawned {
  code: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  stdout: string;
  stderr: string;
  durationMs: number;
}

function runProcess(args: string[], project: Project, timeoutMs: number, input = ""): Promise<Spawned> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(opencodeBin, args, {
      cwd: project.dir,
      env: project.env,
      stdio: ["pipe", "pipe", "pipe"],
      detached: true,
    });
    child.stdin!.on("error", () => {}); // EPIPE if the process exits before reading
    child.stdin!.end(input);
    let stdout = "";
    let stderr = "";
    let timedOut = false;
    child.stdout!.setEncoding("utf8").on("data", (d: string) => (stdout += d));
    child.stderr!.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child, "SIGKILL");
    }, timeoutMs);
    child.on("error", (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, timedOut, stdout, stderr, durationMs: Date.now() - started });
    });
  });
}

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    try {
      child.kill(signal);
    } catch {
      /* already gone */
    }
  }
}

/** Parse JSON lines; non-JSON lines are skipped. */
export function parseJsonLines(text: string): OpencodeEvent[] {
  const out: OpencodeEvent[] = [];
  for (const line of text.split("\n")) {
    const t = line.trim();
    if (!t.startsWith("{")) continue;
    try {
      out.push(JSON.parse(t));
    } catch {
      /* not an event */
    }
  }
  return out;
}

/** `opencode run --format json [--print-logs]` in the project dir; the message goes in on stdin (then EOF). */
export async function runOpencode(project: Project, message: string, opts: RunOptions = {}): Promise<RunResult> {
  const printLogs = opts.printLogs ?? true;
  const args = ["run", "--format", "json"];
  if (printLogs) args.push("--print-logs", "--log-level", opts.logLevel ?? "INFO");
  else if (opts.logLevel) args.push("--log-level", opts.logLevel);
  args.push(...(opts.args ?? []));
  // `opencode run` joins its argv message words with " " and wraps every word that contains a space
  // in double quotes (one argv word "a b" reaches the model as "\"a b\""), and yargs turns numeric
  // words into numbers (which crashes it). When stdin is not a TTY it reads stdin to EOF and uses
  // it as the message (appended after a newline to any argv message), byte for byte. So by default
  // the message goes through stdin, which is then closed.
  let input = message;
  if (opts.messageVia === "argv") {
    args.push(message);
    input = "";
  }
  const r = await runProcess(args, project, opts.timeoutMs ?? 60_000, input);
  const events = parseJsonLines(r.stdout);
  const sessionID = events.find((e) => typeof e.sessionID === "string")?.sessionID;
  return { ...r, events, sessionID };
}

/** Text of all `text` events, concatenated. */
export function eventText(events: OpencodeEvent[]): string {
  return events
    .filter((e) => e.type === "text")
    .map((e) => String(e.part?.text ?? ""))
    .join("");
}

/** `tool_use` events' parts (`{ tool, callID, state: { status, input, output, ... } }`). */
export function toolUses(events: OpencodeEvent[]): any[] {
  return events.filter((e) => e.type === "tool_use").map((e) => e.part);
}

/** Find a free TCP port on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

export interface ServeHandle {
  /** e.g. http://127.0.0.1:PORT — pass as `baseUrl` to `createOpencodeClient`. */
  url: string;
  port: number;
  /** stdout+stderr collected so far (logs with `--print-logs`). */
  output(): string;
  stop(): Promise<void>;
}

/** `opencode serve --port <free port>` in the project dir; resolves when it listens. */
export async function startServe(
  project: Project,
  opts: { timeoutMs?: number; printLogs?: boolean } = {},
): Promise<ServeHandle> {
  const port = await freePort();
  const args = ["serve", "--port", String(port), "--hostname", "127.0.0.1"];
  if (opts.printLogs ?? true) args.push("--print-logs", "--log-level", "INFO");
  const child = spawn(opencodeBin, args, {
    cwd: project.dir,
    env: project.env,
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  let out = "";
  const exited = new Promise<void>((resolve) => child.once("close", () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      killGroup(child, "SIGKILL");
      reject(new Error(`opencode serve not ready after ${opts.timeoutMs ?? 30_000} ms\n${out}`));
    }, opts.timeoutMs ?? 30_000);
    const onData = (d: string) => {
      out += d;
      const m = out.match(/opencode server listening on (https?:\/\/\S+)/);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!.replace(/\/$/, ""));
      }
    };
    child.stdout!.setEncoding("utf8").on("data", onData);
    child.stderr!.setEncoding("utf8").on("data", onData);
    child.once("error", (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.once("close", (code) => {
      clearTimeout(timer);
      reject(new Error(`opencode serve exited (${code}) before listening\n${out}`));
    });
  });
  return {
    url,
    port,
    output: () => out,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      killGroup(child, "SIGTERM");
      const t = setTimeout(() => killGroup(child, "SIGKILL"), 5_000);
      await exited;
      clearTimeout(t);
    },
  };
}

/** A session as `opencode export <id>` prints it: `{ info, messages: [{ info, parts }] }`. */
export interface ExportedSession {
  info: any;
  messages: { info: any; parts: any[] }[];
  [key: string]: unknown;
}

/**
 * `opencode export <sessionID>` in the project dir; returns the parsed session JSON (stdout is pure
 * JSON; "Exporting session: <id>" goes to stderr). Always pass an id: without one OpenCode opens an
 * interactive picker and never returns. An unknown id exits 1 ("Session not found").
 */
export async function exportSession(
  project: Project,
  sessionID: string,
  opts: { timeoutMs?: number } = {},
): Promise<ExportedSession> {
  const r = await runProcess(["export", sessionID], project, opts.timeoutMs ?? 30_000);
  if (r.code !== 0) throw new Error(`opencode export failed (${r.code}): ${r.stderr}`);
  const start = r.stdout.indexOf("{");
  if (start < 0) throw new Error(`opencode export printed no JSON:\n${r.stdout}\n${r.stderr}`);
  return JSON.parse(r.stdout.slice(start));
}

export interface SessionSummary {
  id: string;
  title: string;
  updated: number;
  created: number;
  projectId: string;
  directory: string;
}

/** `opencode session list --format json` in the project dir (newest first). */
export async function listSessions(project: Project, opts: { timeoutMs?: number } = {}): Promise<SessionSummary[]> {
  const r = await runProcess(["session", "list", "--format", "json"], project, opts.timeoutMs ?? 30_000);
  if (r.code !== 0) throw new Error(`opencode session list failed (${r.code}): ${r.stderr}`);
  const start = r.stdout.indexOf("[");
  return start < 0 ? [] : JSON.parse(r.stdout.slice(start));
}

/** Convenience: a fake model plus a project pointing at it, torn down together. */
export async function setup(
  script: ScriptEntry[],
  opts: Omit<ProjectOptions, "modelUrl"> = {},
): Promise<{ model: FakeModel; project: Project; teardown(): Promise<void> }> {
  const model = await startFakeModel(script);
  const project = makeProject({ ...opts, modelUrl: model.url });
  return {
    model,
    project,
    teardown: async () => {
      await model.close();
      if (!process.env.DSML_E2E_KEEP) project.cleanup();
    },
  };
}
