import type { ParseResult, ToolSpec } from "../parse/types.ts";
import { declaredNames } from "../parse/declared-names.ts";
import { isObject } from "../grammar/plain-data.ts";

/** A message as `opencode export` writes it, and as the session store is read into. */
export interface ExportedMessage {
  info?: { id?: string; role?: string; providerID?: string; modelID?: string };
  parts?: { type?: string; text?: string }[];
}

/**
 * What a person saw of an assistant message: its text parts, in order. Reasoning and tool parts
 * are not scanned. The file is the user's, not OpenCode's word: anything not shaped like a message
 * (null, parts that are no list, a part that is no object) is read as no text, never a crash.
 */
export function assistantText(message: unknown): string | null {
  if (!isObject(message) || !isObject(message.info) || message.info.role !== "assistant") return null;
  const parts = Array.isArray(message.parts) ? message.parts : [];
  return parts.filter((p): p is { text: string } => isObject(p) && p.type === "text" && typeof p.text === "string").map((p) => p.text).join("\n");
}

/** A message's id for the report: a string as it is, anything else "?" (an object's toString is the file's to choose). */
export function messageId(message: unknown): string {
  return isObject(message) && isObject(message.info) && typeof message.info.id === "string" ? message.info.id : "?";
}

export function report(result: ParseResult) {
  return {
    calls: result.calls.map(({ tool, input, shape }) => ({ tool, input, shape })),
    text: result.text,
    nudge: result.nudge,
    broken: result.broken.map(({ shape, reason }) => ({ shape, reason })),
  };
}

/**
 * Lines of text output (written through terminal.ts, which makes every character visible). They
 * name only what the scanned tools declare: a tool name no tool has and an argument key its schema
 * does not declare are the model's own words, which may be anything it pasted (a token, a key id),
 * so they are counted, never printed. This output is meant to be pasted into an issue;
 * `--json` holds the reply's text and call arguments.
 */
export function describe(result: ParseResult, tools: readonly ToolSpec[]): string[] {
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  const lines = [`recovered ${result.calls.length} call(s), ${result.broken.length} broken span(s), nudge: ${result.nudge ?? "none"}`];
  // A recovered call's tool is always declared; the check is the same rule, not a case that occurs.
  for (const call of result.calls) lines.push(`  call ${byName.has(call.tool) ? call.tool : undeclaredTool(call.tool)} (${call.shape}) args: ${argumentsText(Object.keys(call.input), byName.get(call.tool))}`);
  for (const b of result.broken) lines.push(`  broken ${b.shape}: ${b.detail}${b.tool ? ` (${byName.has(b.tool) ? `tool ${b.tool}` : undeclaredTool(b.tool)})` : ""}`);
  return lines;
}

function undeclaredTool(name: string): string {
  return `undeclared tool, ${[...name].length} character(s)`;
}

function argumentsText(keys: string[], tool: ToolSpec | undefined): string {
  if (keys.length === 0) return "none";
  const declared = declaredNames(tool?.parameters);
  const named = keys.filter((key) => declared.has(key));
  const others = keys.length - named.length;
  return [...named, ...(others > 0 ? [`${others} undeclared`] : [])].join(", ");
}
