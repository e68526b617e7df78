import type { ParseResult } from "../parse/types.ts";

/** A message as `opencode export` writes it, and as the session store is read into. */
export interface ExportedMessage {
  info?: { id?: string; role?: string; providerID?: string; modelID?: string };
  parts?: { type?: string; text?: string }[];
}

/** What a person saw of an assistant message: its text parts, in order. Reasoning and tool parts are not scanned. */
export function assistantText(message: ExportedMessage): string | null {
  if (message.info?.role !== "assistant") return null;
  return (message.parts ?? []).filter((p) => p.type === "text" && typeof p.text === "string").map((p) => p.text).join("\n");
}

export function report(result: ParseResult) {
  return {
    calls: result.calls.map(({ tool, input, shape }) => ({ tool, input, shape })),
    text: result.text,
    nudge: result.nudge,
    broken: result.broken.map(({ shape, reason }) => ({ shape, reason })),
  };
}

/** Lines of text output (written through terminal.ts, which makes every character visible). */
export function describe(result: ParseResult): string[] {
  const lines = [`recovered ${result.calls.length} call(s), ${result.broken.length} broken span(s), nudge: ${result.nudge ?? "none"}`];
  for (const call of result.calls) lines.push(`  call ${call.tool} (${call.shape}) args: ${Object.keys(call.input).join(", ") || "none"}`);
  for (const b of result.broken) lines.push(`  broken ${b.shape}: ${b.detail}${b.tool ? ` (tool ${b.tool})` : ""}`);
  return lines;
}
