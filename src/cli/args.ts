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

export type Command = { kind: "help" } | { kind: "version" } | { kind: "scan"; args: ScanArgs } | { kind: "doctor"; args: DoctorArgs };

export class UsageError extends Error {}

/** Exit statuses, so scripts and CI can act on a scan. */
export const EXIT = { clean: 0, broken: 1, usage: 2 } as const;

export const USAGE = `usage: dsml-fix scan [FILE|-] [--tools NAME,...] [--json]
       dsml-fix scan --export FILE [--tools NAME,...] [--json]
       dsml-fix scan --sessions [--dir DIR] [--opencode PATH] [--db FILE] [--tools NAME,...] [--json]
       dsml-fix doctor [DIR] [--json]
       dsml-fix --help | --version

Reads one assistant reply (a file, or standard input with - or no FILE) and reports which leaked
tool calls would be recovered. --export reads the JSON written by \`opencode export\` and reports the
leaks in each assistant message. --sessions reads every session OpenCode has stored (only those
of DIR and below with --dir), through \`opencode db\` (the binary on PATH, or --opencode PATH),
changes nothing, and reports the leaks per session and model. Without --tools, OpenCode's built-in
tools are assumed. Input must be UTF-8.

doctor reads the OpenCode config that applies in DIR (default: the current directory) and says
whether the plugin is listed and loadable, checks its options, and which models it would repair
and how (wire, fallback or off), with the reason and the fix.

Exit status: 0 nothing broken (recovered calls are fine), 1 broken tool-call markup found (with
--sessions: any leaked markup, recoverable or not), 2 bad usage or unreadable input. doctor: 0 no problems, 1 problems found, 2 bad usage or a config
file that cannot be read.

Without installing: npx -p opencode-plugin-dsml-fix dsml-fix scan reply.txt`;

const HELP = new Set(["--help", "-h"]);
const VERSION = new Set(["--version", "-v", "-V"]);

export function parseArgs(argv: readonly string[]): Command {
  if (argv[0] === "help" || argv.some((arg) => HELP.has(arg))) return { kind: "help" };
  if (argv.length === 1 && VERSION.has(argv[0]!)) return { kind: "version" };
  if (argv[0] === "doctor") return { kind: "doctor", args: parseDoctorArgs(argv.slice(1)) };
  return { kind: "scan", args: parseScanArgs(argv) };
}

function parseDoctorArgs(rest: readonly string[]): DoctorArgs {
  const args: DoctorArgs = { dir: ".", json: false };
  let sawDir = false;
  for (const arg of rest) {
    if (arg === "--json") args.json = true;
    else if (arg.startsWith("--")) throw new UsageError(`unknown option ${arg}`);
    else if (sawDir) throw new UsageError(`unexpected argument "${arg}"`);
    else {
      args.dir = arg;
      sawDir = true;
    }
  }
  return args;
}

const SESSION_OPTIONS = ["--dir", "--opencode", "--db"] as const;

export function parseScanArgs(argv: readonly string[]): ScanArgs {
  const [command, ...rest] = argv;
  if (command !== "scan") throw new UsageError(command ? `unknown command "${command}"` : "missing command");
  const args: ScanArgs = { source: "-", tools: null, json: false, exportFile: null, sessions: false, dir: null, opencode: null, db: null };
  let sawSource = false;
  const given = new Set<string>();
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i]!;
    const value = () => {
      const next = rest[++i];
      if (next === undefined || (next.startsWith("--") && next.length > 2)) throw new UsageError(`${arg} needs a value`);
      given.add(arg);
      return next;
    };
    if (arg === "--json") args.json = true;
    else if (arg === "--sessions") args.sessions = true;
    else if (arg === "--tools") args.tools = value().split(",").map((t) => t.trim()).filter(Boolean);
    else if (arg === "--export") args.exportFile = value();
    else if (arg === "--dir") args.dir = value();
    else if (arg === "--opencode") args.opencode = value();
    else if (arg === "--db") args.db = value();
    else if (arg.startsWith("--")) throw new UsageError(`unknown option ${arg}`);
    else if (sawSource) throw new UsageError(`unexpected argument "${arg}"`);
    else {
      args.source = arg;
      sawSource = true;
    }
  }
  const sources = [sawSource && "FILE", args.exportFile !== null && "--export FILE", args.sessions && "--sessions"].filter(Boolean);
  if (sources.length > 1) throw new UsageError(`give one of FILE, --export FILE and --sessions (got ${sources.join(" and ")})`);
  const stray = SESSION_OPTIONS.find((option) => given.has(option));
  if (stray && !args.sessions) throw new UsageError(`${stray} only goes with --sessions`);
  return args;
}
