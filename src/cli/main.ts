import { readFileSync } from "node:fs";
import { parse } from "../stream/parse-text.ts";
import type { ParseResult, ToolSpec } from "../parse/types.ts";
import { opencodeBuiltinTools } from "../tools/opencode-builtins.ts";
import { parseScanArgs, USAGE, UsageError, type ScanArgs } from "./args.ts";

export interface Io {
  readStdin(): Promise<string>;
  out(text: string): void;
  err(text: string): void;
}

/** Exit codes: 0 done, 2 bad usage or unreadable input. */
export async function main(argv: readonly string[], io: Io): Promise<number> {
  let args: ScanArgs;
  try {
    args = parseScanArgs(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    io.err(`dsml-fix: ${error.message}\n${USAGE}\n`);
    return 2;
  }
  const tools = resolveTools(args.tools);
  let input: string;
  try {
    input = args.exportFile !== null ? readFileSync(args.exportFile, "utf8") : args.source === "-" ? await io.readStdin() : readFileSync(args.source, "utf8");
  } catch (error) {
    io.err(`dsml-fix: cannot read ${args.exportFile ?? (args.source === "-" ? "standard input" : args.source)}: ${(error as Error).message}\n`);
    return 2;
  }
  if (args.exportFile !== null) return scanExport(input, tools, args, io);
  const result = parse(input, tools);
  io.out(args.json ? `${JSON.stringify(report(result))}\n` : describe(result));
  return 0;
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
    return 2;
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
  return 0;
}

if (import.meta.main) {
  const code = await main(process.argv.slice(2), {
    readStdin: async () => {
      const chunks: Buffer[] = [];
      for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
      return Buffer.concat(chunks).toString("utf8");
    },
    out: (text) => process.stdout.write(text),
    err: (text) => process.stderr.write(text),
  });
  process.exitCode = code;
}
