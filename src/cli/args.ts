export interface ScanArgs {
  source: string;
  tools: string[] | null;
  json: boolean;
  exportFile: string | null;
}

export class UsageError extends Error {}

export const USAGE = `usage: dsml-fix scan [FILE|-] [--tools NAME,...] [--json]
       dsml-fix scan --export FILE [--tools NAME,...] [--json]

Reads one assistant reply (a file, or standard input with - or no FILE) and reports which leaked
tool calls would be recovered. --export reads the JSON written by \`opencode export\` and reports the
leaks in each assistant message. Without --tools, OpenCode's built-in tools are assumed.`;

export function parseScanArgs(argv: readonly string[]): ScanArgs {
  const [command, ...rest] = argv;
  if (command !== "scan") throw new UsageError(command ? `unknown command "${command}"` : "missing command");
  const args: ScanArgs = { source: "-", tools: null, json: false, exportFile: null };
  let sawSource = false;
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i]!;
    const value = () => {
      const next = rest[++i];
      if (next === undefined || (next.startsWith("--") && next.length > 2)) throw new UsageError(`${arg} needs a value`);
      return next;
    };
    if (arg === "--json") args.json = true;
    else if (arg === "--tools") args.tools = value().split(",").map((t) => t.trim()).filter(Boolean);
    else if (arg === "--export") args.exportFile = value();
    else if (arg.startsWith("--")) throw new UsageError(`unknown option ${arg}`);
    else if (sawSource) throw new UsageError(`unexpected argument "${arg}"`);
    else {
      args.source = arg;
      sawSource = true;
    }
  }
  if (args.exportFile !== null && sawSource) throw new UsageError("give either FILE or --export FILE, not both");
  return args;
}
