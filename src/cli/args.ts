// Arguments are read with node:util's parseArgs (Node 20 and Bun), so they take the forms users
// expect of any command: `--tools=bash` and `--tools bash`, `-j` for --json, `--` before a file
// name that starts with a dash.
import { plainMessage, readArgs } from "../proxy/arg-words.ts";

export interface ScanArgs {
  source: string;
  tools: string[] | null;
  json: boolean;
  exportFile: string | null;
  /** Scan OpenCode's stored sessions instead of one reply or one export. */
  sessions: boolean;
  /** With --sessions: only sessions whose directory is DIR or lies under it. */
  dir: string | null;
  /** With --sessions: the OpenCode binary that reads its own database (default: `opencode` on PATH). */
  opencode: string | null;
  /** With --sessions: OpenCode's database file, when it is not the default one. */
  db: string | null;
}

export interface DoctorArgs {
  dir: string;
  json: boolean;
}

export type Command =
  | { kind: "help"; json: boolean }
  | { kind: "version"; json: boolean }
  | { kind: "scan"; args: ScanArgs }
  | { kind: "doctor"; args: DoctorArgs };

export class UsageError extends Error {
  /** --json was given: the error is reported as JSON too. */
  json = false;
}

/** Exit statuses, so scripts and CI can act on a scan. */
export const EXIT = { clean: 0, broken: 1, usage: 2 } as const;

export const USAGE = `usage: dsml-fix scan [FILE|-] [--tools NAME,...] [--json]
       dsml-fix scan --export FILE [--tools NAME,...] [--json]
       dsml-fix scan --sessions [--dir DIR] [--opencode PATH] [--db FILE] [--tools NAME,...] [--json]
       dsml-fix doctor [DIR] [--json]
       dsml-fix proxy --upstream URL [--port N] [--host 127.0.0.1] [--route /prefix=URL ...]
       dsml-fix --help | --version [--json]

Reads one assistant reply (a file, or standard input with - or no FILE) and reports which leaked
tool calls would be recovered, read as the plugin with its default options reads it (its limits,
its echo guard). --export reads the JSON written by \`opencode export\` and reports the leaks in
each assistant message; markup the model only quoted from what it was given before (a user
message, a tool result) is reported as echoed, never as a call. --sessions reads every session
OpenCode has stored (only those of DIR and below with --dir), through \`opencode db\` (the binary
on PATH, or --opencode PATH) run on a private copy of the database (--db FILE: another one; a file
that is not an SQLite database is refused), changes nothing, and reports the leaks per session and
model. Without --tools, OpenCode's built-in tools are assumed. Input must be UTF-8.

doctor reads the OpenCode config that applies in DIR (default: the current directory) and says
whether the plugin is listed and loadable, checks its options, and which models it would repair
and how (wire, fallback or off), with the reason and the fix.

proxy is a local HTTP server for agents other than OpenCode (Claude Code, Codex, Cline, any
OpenAI-compatible client): it forwards every request to the upstream and repairs leaked calls on
chat-completions, Anthropic Messages and Responses; \`dsml-fix proxy --help\` lists its settings.

Options take either form, --tools bash or --tools=bash (once each, never empty); -j is --json,
-t is --tools, -h is --help, -v is --version; after -- every argument is a FILE. --json prints
one JSON value on stdout for every command; an error is then one {"error": ...} object on stderr. On a terminal the report is coloured (NO_COLOR turns that off) and a
long read shows a progress line on stderr; piped output is plain text with nothing extra.

Exit status: 0 nothing broken (recovered calls are fine, and so is markup the model only quoted
from what it was given), 1 broken tool-call markup found (with --sessions: any leaked markup,
recoverable or not), 2 bad usage or unreadable input. doctor: 0 no problems, 1 problems found, 2 bad usage or a config
file that cannot be read.

Run it: npx dsml-fix ... in a project that installed the package, or npx -p
/path/to/opencode-plugin-dsml-fix-0.1.0.tgz dsml-fix ... from a packed tarball; once the package
is published, npx -p opencode-plugin-dsml-fix dsml-fix ... anywhere.`;

const COMMON = {
  json: { type: "boolean", short: "j" },
  help: { type: "boolean", short: "h" },
  version: { type: "boolean", short: "v" },
} as const;

const SCAN = {
  ...COMMON,
  tools: { type: "string", short: "t" },
  export: { type: "string" },
  sessions: { type: "boolean" },
  dir: { type: "string" },
  opencode: { type: "string" },
  db: { type: "string" },
} as const;

const COMMANDS = new Set(["scan", "doctor", "help"]);
const SESSION_OPTIONS = ["dir", "opencode", "db"] as const;

export function parseArgs(argv: readonly string[]): Command {
  // -V is an old spelling of --version that parseArgs cannot alias (one short letter per option).
  const args = argv.map((arg) => (arg === "-V" ? "-v" : arg));
  const json = wantsJson(args);
  try {
    return parseCommand(args, json);
  } catch (error) {
    const usage = error instanceof UsageError ? error : new UsageError(plainMessage(error));
    usage.json = json;
    throw usage;
  }
}

function parseCommand(args: string[], json: boolean): Command {
  const [first, ...rest] = args;
  if (first === "help") return { kind: "help", json };
  if (first === undefined || !COMMANDS.has(first)) {
    // No command: only --help and --version stand alone.
    const { values, positionals } = read(args, COMMON);
    if (values.help) return { kind: "help", json };
    if (values.version) return { kind: "version", json };
    throw new UsageError(positionals[0] !== undefined ? `unknown command "${positionals[0]}"` : "missing command");
  }
  if (first === "doctor") {
    const { values, positionals } = read(rest, COMMON);
    if (values.help) return { kind: "help", json };
    if (values.version) throw new UsageError("--version takes no command");
    if (positionals.length > 1) throw new UsageError(`unexpected argument "${positionals[1]}"`);
    return { kind: "doctor", args: { dir: positionals[0] ?? ".", json } };
  }
  const { values, positionals } = read(rest, SCAN);
  if (values.help) return { kind: "help", json };
  if (values.version) throw new UsageError("--version takes no command");
  if (positionals.length > 1) throw new UsageError(`unexpected argument "${positionals[1]}"`);
  const scan: ScanArgs = {
    source: positionals[0] ?? "-",
    tools: values.tools === undefined ? null : toolNames(values.tools),
    json,
    exportFile: values.export ?? null,
    sessions: values.sessions === true,
    dir: values.dir ?? null,
    opencode: values.opencode ?? null,
    db: values.db ?? null,
  };
  const sources = [positionals.length > 0 && "FILE", scan.exportFile !== null && "--export FILE", scan.sessions && "--sessions"].filter(Boolean);
  if (sources.length > 1) throw new UsageError(`give one of FILE, --export FILE and --sessions (got ${sources.join(" and ")})`);
  const stray = SESSION_OPTIONS.find((option) => values[option] !== undefined);
  if (stray && !scan.sessions) throw new UsageError(`--${stray} only goes with --sessions`);
  return { kind: "scan", args: scan };
}

/** `--tools bash,read`: the names; a value naming none (`--tools ,`) is a missing one. */
function toolNames(value: string): string[] {
  const names = value.split(",").map((t) => t.trim()).filter(Boolean);
  if (names.length === 0) throw new UsageError("--tools needs a value");
  return names;
}

type Options = typeof COMMON | typeof SCAN;

function read<T extends Options>(args: string[], options: T) {
  // `--tools "$TOOLS"` with TOOLS unset: read as given, `--tools ""` would declare no tool at all.
  return readArgs(args, options, true, (message) => new UsageError(message), (name) => `--${name} needs a value`);
}

/** --json anywhere (before parsing, so a usage error can itself be reported as JSON). */
export function wantsJson(args: readonly string[]): boolean {
  for (const arg of args) {
    if (arg === "--") return false;
    if (arg === "--json") return true;
    // A short group: -j counts until a letter that takes the rest as its value (-tj is --tools j).
    if (/^-[a-zA-Z]+$/.test(arg) && arg.slice(1).split("t")[0]!.includes("j")) return true;
  }
  return false;
}
