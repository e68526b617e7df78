import { readFileSync } from "node:fs";
import { parse } from "../stream/parse-text.ts";
import type { ParseResult, ToolSpec } from "../parse/types.ts";
import { opencodeBuiltinTools } from "../tools/opencode-builtins.ts";
import { EXIT, parseArgs, USAGE, UsageError, type Command, type ScanArgs } from "./args.ts";

export interface Io {
  readStdin(): Promise<Uint8Array>;
  /** A person is typing into standard input: say that we are waiting for them. */
  stdinIsTTY?: boolean;
  out(text: string): void;
  err(text: string): void;
}

/** Exit codes: 0 nothing broken, 1 broken markup found, 2 bad usage or unreadable input. */
export async function main(argv: readonly string[], io: Io): Promise<number> {
  let command: Command;
  try {
    command = parseArgs(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    io.err(`dsml-fix: ${error.message}\n${USAGE}\n`);
    return EXIT.usage;
  }
  if (command.kind === "help") {
    io.out(`${USAGE}\n`);
    return EXIT.clean;
  }
  if (command.kind === "version") {
    io.out(`${packageVersion()}\n`);
    return EXIT.clean;
  }
  const args = command.args;
  const tools = resolveTools(args.tools);
  const fromStdin = args.exportFile === null && args.source === "-";
  const sourceName = args.exportFile ?? (fromStdin ? "standard input" : args.source);
  let input: string;
  try {
    if (fromStdin && io.stdinIsTTY) io.err("dsml-fix: reading a reply from standard input; end it with Ctrl-D (dsml-fix --help for usage)\n");
    input = decodeUtf8(fromStdin ? await io.readStdin() : readFileSync(args.exportFile ?? args.source), sourceName);
  } catch (error) {
    const message = error instanceof NotUtf8Error ? error.message : `cannot read ${sourceName}: ${(error as Error).message}`;
    io.err(`dsml-fix: ${message}\n`);
    return EXIT.usage;
  }
  if (args.exportFile !== null) return scanExport(input, tools, args, io);
  const result = parse(input, tools);
  io.out(args.json ? `${JSON.stringify(report(result))}\n` : describe(result));
  return result.broken.length > 0 ? EXIT.broken : EXIT.clean;
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
  return {
    readStdin: async () => {
      const chunks: Uint8Array[] = [];
      for await (const chunk of process.stdin) chunks.push(chunk as Uint8Array);
      return Buffer.concat(chunks);
    },
    stdinIsTTY: process.stdin.isTTY === true,
    out: (text) => process.stdout.write(text),
    err: (text) => process.stderr.write(text),
  };
}

function resolveTools(names: string[] | null): ToolSpec[] {
  if (names === null) return opencodeBuiltinTools;
  return names.map((name) => opencodeBuiltinTools.find((t) => t.name === name) ?? { name });
}

function report(result: ParseResult) {
  return {
    calls: result.calls.map(({ tool, input, shape }) => ({ tool, input, shape })),
    text: result.text,
    nudge: result.nudge,
    broken: result.broken.map(({ shape, reason }) => ({ shape, reason })),
  };
}

function describe(result: ParseResult): string {
  const lines = [`recovered ${result.calls.length} call(s), ${result.broken.length} broken span(s), nudge: ${result.nudge ?? "none"}`];
  for (const call of result.calls) lines.push(`  call ${call.tool} (${call.shape}) args: ${Object.keys(call.input).join(", ") || "none"}`);
  for (const b of result.broken) lines.push(`  broken ${b.shape}: ${b.detail}${b.tool ? ` (tool ${b.tool})` : ""}`);
  return `${lines.join("\n")}\n`;
}

interface ExportedMessage {
  info?: { id?: string; role?: string };
  parts?: { type?: string; text?: string }[];
}

function scanExport(raw: string, tools: ToolSpec[], args: ScanArgs, io: Io): number {
  let messages: ExportedMessage[];
  try {
    const doc = JSON.parse(raw) as { messages?: unknown };
    if (!Array.isArray(doc.messages)) throw new Error("no messages array");
    messages = doc.messages as ExportedMessage[];
  } catch (error) {
    io.err(`dsml-fix: ${args.exportFile} is not an \`opencode export\` file: ${(error as Error).message}\n`);
    return EXIT.usage;
  }
  const found = messages
    .filter((m) => m.info?.role === "assistant")
    .map((m) => {
      const text = (m.parts ?? []).filter((p) => p.type === "text" && typeof p.text === "string").map((p) => p.text).join("\n");
      return { id: m.info?.id ?? "?", result: parse(text, tools) };
    })
    .filter(({ result }) => result.calls.length > 0 || result.broken.length > 0);
  if (args.json) {
    io.out(`${JSON.stringify({ messages: found.map(({ id, result }) => ({ id, ...report(result), text: undefined })) })}\n`);
  } else if (found.length === 0) {
    io.out(`no leaked tool-call markup in ${messages.length} message(s)\n`);
  } else {
    for (const { id, result } of found) io.out(`message ${id}: ${describe(result)}`);
  }
  return found.some(({ result }) => result.broken.length > 0) ? EXIT.broken : EXIT.clean;
}

if (import.meta.main) process.exitCode = await main(process.argv.slice(2), processIo());
