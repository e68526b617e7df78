import { readFileSync, statSync } from "node:fs";
import path from "node:path";
import type { ToolSpec } from "../parse/types.ts";
import { opencodeBuiltinTools } from "../tools/opencode-builtins.ts";
import { EXIT, parseArgs, USAGE, UsageError, wantsJson, type Command, type DoctorArgs, type ScanArgs } from "./args.ts";
import { describeDoctor, doctor } from "./doctor.ts";
import { ConfigError } from "./opencode-config.ts";
import { assistantText, describe, messageId, report } from "./report.ts";
import { isObject } from "../grammar/plain-data.ts";
import { givenBefore } from "./given.ts";
import { CLEAR_PROGRESS, colourWanted, paintReportLine, progressLine, styledOutput } from "./style.ts";
import { jsonOutput } from "./terminal.ts";
import { locateStore, readGiven, readSessions, StoreError, withPrivateCopy } from "./session-store.ts";
import { ownBroken, pluginEchoGuard, readAsPlugin } from "./plugin-reading.ts";
import { historyGuards } from "./history-guard.ts";
import type { EchoGuard } from "../engine/types.ts";
import { describeSessions, scanSessions, underDirectory } from "./sessions.ts";

export interface Io {
  readStdin(): Promise<Uint8Array>;
  /** A person is typing into standard input: say that we are waiting for them. */
  stdinIsTTY?: boolean;
  /** Colour only on a terminal (and never with NO_COLOR); nothing extra when piped. */
  stdoutIsTTY?: boolean;
  /** A progress line only on a terminal. */
  stderrIsTTY?: boolean;
  out(text: string): void;
  err(text: string): void;
  /** Environment and working directory for --sessions (where OpenCode's data is); the process's own by default. */
  env?: NodeJS.ProcessEnv;
  cwd?: string;
}

/** Exit codes: 0 nothing broken, 1 broken markup found, 2 bad usage or unreadable input. */
export async function main(argv: readonly string[], given: Io): Promise<number> {
  if (argv[0] === "proxy") return (await import("../proxy/run.ts")).runProxy(argv.slice(1), { ...visible(given, wantsJson(argv.slice(1))), ...(given.env ? { env: given.env } : {}) });
  let command: Command;
  try {
    command = parseArgs(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    const io = visible(given, error.json);
    io.fail(error.message, USAGE.split("\n"));
    return EXIT.usage;
  }
  const io = visible(given, command.kind === "scan" || command.kind === "doctor" ? command.args.json : command.json);
  if (command.kind === "help") {
    if (command.json) io.json({ usage: USAGE });
    else io.out(USAGE.split("\n"));
    return EXIT.clean;
  }
  if (command.kind === "version") {
    if (command.json) io.json({ version: packageVersion() });
    else io.out([packageVersion()]);
    return EXIT.clean;
  }
  if (command.kind === "doctor") return runDoctor(command.args, io);
  const args = command.args;
  const tools = resolveTools(args.tools);
  if (args.sessions) return scanStoredSessions(args, tools, io);
  const fromStdin = args.exportFile === null && args.source === "-";
  const sourceName = args.exportFile ?? (fromStdin ? "standard input" : args.source);
  let input: string;
  try {
    if (fromStdin && io.stdinIsTTY) io.err(["dsml-fix: reading a reply from standard input; end it with Ctrl-D (dsml-fix --help for usage)"]);
    input = decodeUtf8(fromStdin ? await io.readStdin() : readFileSync(args.exportFile ?? args.source), sourceName);
  } catch (error) {
    const message = error instanceof NotUtf8Error ? error.message : `cannot read ${sourceName}: ${(error as Error).message}`;
    io.fail(message);
    return EXIT.usage;
  }
  if (args.exportFile !== null) return scanExport(input, tools, args, io);
  const result = readAsPlugin(input, tools);
  if (args.json) io.json(report(result));
  else io.out(describe(result, tools));
  return ownBroken(result).length > 0 ? EXIT.broken : EXIT.clean;
}

class NotUtf8Error extends Error {}

/** A replacement character inside a recovered command would run something the model never wrote. */
function decodeUtf8(bytes: Uint8Array, sourceName: string): string {
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new NotUtf8Error(`${sourceName} is not valid UTF-8; convert it first (e.g. iconv -t UTF-8)`);
  }
}

function packageVersion(): string {
  try {
    // ../../package.json from src/cli/ in a checkout and from dist/cli/ in an installed package.
    const manifest = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version?: unknown };
    return typeof manifest.version === "string" ? manifest.version : "unknown";
  } catch {
    return "unknown";
  }
}

/** The Io of a real process: what the `dsml-fix` bin passes to main. */
export function processIo(): Io {
  const out = closableWriter(process.stdout);
  const err = closableWriter(process.stderr);
  return {
    readStdin: async () => {
      const chunks: Uint8Array[] = [];
      for await (const chunk of process.stdin) chunks.push(chunk as Uint8Array);
      return Buffer.concat(chunks);
    },
    stdinIsTTY: process.stdin.isTTY === true,
    stdoutIsTTY: process.stdout.isTTY === true,
    stderrIsTTY: process.stderr.isTTY === true,
    out,
    err,
  };
}

/**
 * Writes to a stream that the reader may close early (`dsml-fix scan --json big.txt | head -c 10`):
 * a broken pipe (EPIPE, thrown by the write or emitted later) ends the writing quietly, and the
 * command goes on to exit with the status of its own answer; no error dump, never exit 1 for a
 * clean input. Any other write error is thrown as before.
 */
function closableWriter(stream: NodeJS.WriteStream): (text: string) => void {
  let closed = false;
  const brokenPipe = (error: unknown) => (error as NodeJS.ErrnoException | null)?.code === "EPIPE";
  stream.on("error", (error) => {
    if (!brokenPipe(error)) throw error;
    closed = true;
  });
  return (text) => {
    if (closed) return;
    try {
      stream.write(text);
    } catch (error) {
      if (!brokenPipe(error)) throw error;
      closed = true;
    }
  };
}

function resolveTools(names: string[] | null): ToolSpec[] {
  if (names === null) return opencodeBuiltinTools;
  return names.map((name) => opencodeBuiltinTools.find((t) => t.name === name) ?? { name });
}

/**
 * What the plugin's echo guard reads that a stored session does not hold:
 * the system prompt (AGENTS.md, instructions) and the declared tools (every MCP tool's
 * description and schema). A call the model quoted from them is refused by the plugin and
 * reported by scan as a call: scan cannot judge such an echo, and says so (`notJudged` in --json,
 * always present; a note line after the report when it holds a call).
 */
export const NOT_JUDGED = ["system-prompt", "tool-declarations"] as const;
export const NOT_JUDGED_NOTE =
  "note: a stored session holds neither the system prompt nor the tool declarations, which the plugin's echo guard also reads: a call the model only quoted from them (AGENTS.md, an MCP tool's description) was refused by the plugin, and is reported here as a call";

function scanExport(raw: string, tools: ToolSpec[], args: ScanArgs, io: VisibleIo): number {
  let messages: unknown[];
  try {
    const doc = JSON.parse(raw) as unknown;
    if (!isObject(doc) || !Array.isArray(doc.messages)) throw new Error("no messages array");
    messages = doc.messages;
    // What `opencode export` writes: each message an object with an `info` object, its `parts` a
    // list of objects. Anything else is some other file, said so rather than half read.
    messages.forEach((message, index) => {
      const fault = !isObject(message) ? "is not an object" : !isObject(message.info) ? "has no info object" : message.parts !== undefined && !(Array.isArray(message.parts) && message.parts.every(isObject)) ? "has parts that are not a list of objects" : null;
      if (fault) throw new Error(`message ${index + 1} ${fault}`);
    });
  } catch (error) {
    io.fail(`${args.exportFile} is not an \`opencode export\` file: ${(error as Error).message}`);
    return EXIT.usage;
  }
  // Each reply is read as the plugin reads it, its echo guard over what the model had been given
  // before it: what OpenCode sent of the earlier messages, besides the model's own words (given.ts).
  // One guard over the growing history, in order: each message's given content is read once.
  const guardAt = historyGuards(messages, givenBefore, pluginEchoGuard);
  const found = messages
    .map((m, index) => ({ id: messageId(m), text: assistantText(m), index }))
    .filter((m): m is { id: string; text: string; index: number } => m.text !== null)
    .map(({ id, text, index }) => ({ id, result: readAsPlugin(text, tools, { guard: guardAt(index) }) }))
    .filter(({ result }) => result.calls.length > 0 || result.broken.length > 0);
  if (args.json) {
    io.json({ messages: found.map(({ id, result }) => ({ id, ...report(result), text: undefined })), notJudged: NOT_JUDGED });
  } else if (found.length === 0) {
    io.out([`no leaked tool-call markup in ${messages.length} message(s)`]);
  } else {
    for (const { id, result } of found) {
      const [first, ...rest] = describe(result, tools);
      io.out([`message ${id}: ${first}`, ...rest]);
    }
    if (found.some(({ result }) => result.calls.length > 0)) io.out([NOT_JUDGED_NOTE]);
  }
  return found.some(({ result }) => ownBroken(result).length > 0) ? EXIT.broken : EXIT.clean;
}

async function scanStoredSessions(args: ScanArgs, tools: ToolSpec[], io: VisibleIo): Promise<number> {
  const env = io.env ?? process.env;
  const cwd = io.cwd ?? process.cwd();
  try {
    const location = locateStore({ opencode: args.opencode, db: args.db, env, cwd });
    io.progress(`reading stored sessions from ${location.database} ...`);
    const directory = args.dir === null ? null : path.resolve(cwd, args.dir);
    const found = await withPrivateCopy(location, async (copy) => {
      const stored = await readSessions(copy);
      const inScope = directory === null ? stored : underDirectory(stored, directory);
      // The echo guard reads what each reply was given only when a call is about to be
      // recovered: that content is read for the sessions where one would be, and no others.
      const suspects = inScope.filter((s) => s.messages.some((m) => readAsPlugin(assistantText(m) ?? "", tools).calls.length > 0)).map((s) => s.id);
      if (suspects.length > 0) io.progress(`reading what the model was given in ${suspects.length} session(s) ...`);
      const given = suspects.length > 0 ? await readGiven(copy, suspects) : new Map<string, (messageID: string) => { guard: EchoGuard | undefined }>();
      io.progress(`scanning ${inScope.length} session(s) ...`);
      return scanSessions(inScope, tools, location.database, directory, (session, message) => {
        const before = given.get(session.id);
        return before?.(message.info?.id ?? "");
      });
    });
    io.progress(null);
    // A stored session lacks the system prompt and the tool declarations as an export does: said the same way.
    if (args.json) io.json({ ...found, notJudged: NOT_JUDGED });
    else io.out([...describeSessions(found), ...(found.totals.calls > 0 ? [NOT_JUDGED_NOTE] : [])]);
    // Any leaked markup reached the user, recoverable or not; a reply that only quoted given content leaked none of its own.
    const leaked = found.sessions.some((s) => s.models.some((m) => m.leaks.some((leak) => leak.calls.length > 0 || ownBroken(leak).length > 0)));
    return leaked ? EXIT.broken : EXIT.clean;
  } catch (error) {
    io.progress(null);
    if (!(error instanceof StoreError)) throw error;
    io.fail(error.message);
    return EXIT.usage;
  }
}

function runDoctor(args: DoctorArgs, io: VisibleIo): number {
  const dir = path.resolve(io.cwd ?? process.cwd(), args.dir);
  try {
    if (!statSync(dir).isDirectory()) throw new Error("not a directory");
  } catch (error) {
    io.fail(`cannot read ${dir}: ${(error as Error).message}`);
    return EXIT.usage;
  }
  try {
    const report = doctor(dir, io.env ?? process.env);
    if (args.json) io.json(report);
    else io.out(describeDoctor(report));
    return report.problems.length > 0 ? EXIT.broken : EXIT.clean;
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    io.fail(error.message);
    return EXIT.usage;
  }
}

/** The one way main writes: lines of text (every hidden control character escaped) or one JSON value. */
interface VisibleIo extends Omit<Io, "out" | "err"> {
  out(lines: readonly string[]): void;
  err(lines: readonly string[]): void;
  json(value: unknown): void;
  /** An error on stderr, stdout left empty: `dsml-fix: MESSAGE` (then `more`), or with --json one {"error"} object. */
  fail(message: string, more?: readonly string[]): void;
  /** A progress line on a terminal's stderr (null clears it); nothing with --json or when stderr is piped. */
  progress(text: string | null): void;
}

function visible(io: Io, json: boolean): VisibleIo {
  const colour = colourWanted({ stdoutIsTTY: io.stdoutIsTTY, env: io.env ?? process.env });
  const showProgress = io.stderrIsTTY === true && !json;
  let progressShown = false;
  const view: VisibleIo = {
    ...io,
    out: (lines) => io.out(styledOutput(lines, colour, paintReportLine)),
    err: (lines) => io.err(styledOutput(lines, false, () => undefined)),
    json: (value) => io.out(jsonOutput(value)),
    fail: (message, more = []) => {
      view.progress(null);
      if (json) io.err(jsonOutput({ error: message }));
      else view.err([`dsml-fix: ${message}`, ...more]);
    },
    progress: (text) => {
      if (!showProgress || (text === null && !progressShown)) return;
      io.err(text === null ? CLEAR_PROGRESS : progressLine(`dsml-fix: ${text}`));
      progressShown = text !== null;
    },
  };
  return view;
}

if (import.meta.main) process.exitCode = await main(process.argv.slice(2), processIo());
