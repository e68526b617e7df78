// Whether this OpenCode process is a one-shot `opencode run`, which exits as soon as the session is
// idle: a wake sent then would be stored but never answered, and the next `--session` run would
// replay it as a stray user turn. Both entries (src/plugin/index.ts, src/plugin/v2/setup.ts) ask here.

/**
 * OpenCode's global options, the ones yargs reads before the subcommand (`opencode --help` and
 * `opencode run --help`, 1.18.33: the same five in both), under their names and the camelCase
 * aliases yargs accepts for them. Only `--log-level` takes a value; a boolean takes a following
 * `true` or `false` as its value (yargs-parser does).
 */
const GLOBAL_BOOLEANS: ReadonlySet<string> = new Set(["help", "h", "version", "v", "print-logs", "printLogs", "pure"]);
const GLOBAL_VALUES: ReadonlySet<string> = new Set(["log-level", "logLevel"]);

/**
 * The compiled binary's argv is `bun`, the bundle, then OpenCode's own arguments; the subcommand
 * is the first of those that is not a flag or a flag's value: `opencode run ...`,
 * `opencode --print-logs run ...`, `opencode --log-level DEBUG run ...`. A flag this does not know
 * may or may not take the next word as its value; both readings are tried, so an unsure reading
 * errs towards a one-shot run: a wake left out costs the user one turn, a stray one is replayed.
 */
export function oneShotRun(argv: readonly string[] = process.argv): boolean {
  const args = argv.slice(2);
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === "--") return args[i + 1] === "run";
    if (!arg.startsWith("-") || arg === "-") return arg === "run";
    if (arg.includes("=")) continue; // --log-level=DEBUG: the value is in the same word
    const bare = arg.slice(arg.startsWith("--") ? 2 : 1);
    const name = bare.startsWith("no-") ? bare.slice(3) : bare;
    const next = args[i + 1];
    if (GLOBAL_VALUES.has(name)) i++;
    else if (GLOBAL_BOOLEANS.has(name)) {
      if (next === "true" || next === "false") i++;
    } else if (next === "run") return true;
    else if (next !== undefined && !next.startsWith("-")) i++;
  }
  return false;
}
