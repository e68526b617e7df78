// What `dsml-fix` says about a bad command line, shared by scan, doctor (src/cli/args.ts) and the
// proxy (config.ts), so every command words the same mistake the same way: one plain sentence.
import { parseArgs } from "node:util";

type Option = { type: "string" | "boolean"; short?: string; multiple?: boolean };

/**
 * node:util parseArgs, plus two refusals it does not make: a value option given twice (parseArgs
 * silently keeps the last, and which one was meant is only the author's call), unless it is a list
 * option (`multiple`); and a value option before `--` with no value after it (`--tools --json`:
 * parseArgs would read `--json` as the tools), or with an empty one (worded by `empty`). Anything
 * after `--` is a positional, never looked at.
 */
export function readArgs<T extends Record<string, Option>>(args: readonly string[], options: T, allowPositionals: boolean, fail: (message: string) => Error, empty: (name: string) => string) {
  const end = args.indexOf("--");
  const flags = end < 0 ? args : args.slice(0, end);
  for (const [name, option] of Object.entries(options)) {
    if (option.type !== "string") continue;
    const at = flags.findIndex((arg) => arg === `--${name}` || (option.short !== undefined && arg === `-${option.short}`));
    const next = at < 0 ? undefined : args[at + 1];
    if (at < 0 || (next !== undefined && !(next.startsWith("-") && next.length > 1))) continue;
    // `--port -1`: a value that starts with a dash is only read in the form --port=-1.
    const another = next === undefined || next === "--" || isOption(next, options);
    throw fail(`--${name} needs a value${another ? "" : ` (write --${name}=VALUE for one that starts with a dash)`}`);
  }
  let parsed;
  try {
    parsed = parseArgs({ args: [...args], options, allowPositionals, strict: true, tokens: true });
  } catch (error) {
    throw fail(plainMessage(error));
  }
  // An empty value (`--host "$HOST"` with HOST unset) is a mistake only its author can settle.
  const tokens = parsed.tokens ?? [];
  const blank = tokens.find((token) => token.kind === "option" && typeof token.value === "string" && token.value.trim() === "");
  if (blank?.kind === "option") throw fail(empty(blank.name));
  const seen = new Set<string>();
  for (const token of tokens) {
    if (token.kind !== "option" || options[token.name]?.type !== "string" || options[token.name]?.multiple) continue;
    if (seen.has(token.name)) throw fail(`--${token.name} is given twice; give it once`);
    seen.add(token.name);
  }
  return parsed;
}

function isOption(arg: string, options: Record<string, Option>): boolean {
  const name = arg.startsWith("--") ? arg.slice(2).split("=")[0]! : null;
  return Object.entries(options).some(([long, option]) => long === name || (name === null && option.short !== undefined && arg.slice(1, 2) === option.short));
}

/** parseArgs' own messages run to several sentences of advice for script authors: one plain sentence instead. */
export function plainMessage(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const unknown = /^Unknown option '([^']+)'/.exec(message);
  if (unknown) return `unknown option ${unknown[1]}`;
  const needsValue = /^Option '(?:-\w, )?(--[\w-]+)(?: [^']*)?' argument missing/.exec(message);
  if (needsValue) return `${needsValue[1]} needs a value`;
  const notValue = /^Option '(?:-\w, )?(--[\w-]+)' does not take an argument/.exec(message);
  if (notValue) return `${notValue[1]} takes no value`;
  // `--port -1` (when not caught before parsing): a dash-led value is only read as --port=-1.
  const ambiguous = optionSaid(message, " argument is ambiguous");
  if (ambiguous) return `${ambiguous} needs a value (write ${ambiguous}=VALUE for one that starts with a dash)`;
  return firstSentence(message);
}

/** "Option '-p, --port <value>' TAIL...": the --name, when the message goes on with `tail`. */
function optionSaid(message: string, tail: string): string | null {
  const open = "Option '";
  if (!message.startsWith(open)) return null;
  const close = message.indexOf("'", open.length);
  if (close < 0 || !message.startsWith(tail, close + 1)) return null;
  return message.slice(open.length, close).split(" ").find((word) => word.startsWith("--")) ?? null;
}

/** Up to the first sentence end (". ", ".\n", "?\n"), the stop left out; the line breaks node puts in its advice never reach the user. */
function firstSentence(message: string): string {
  for (let i = 0; i + 1 < message.length; i++) {
    if ((message[i] === "." || message[i] === "?") && (message[i + 1] === " " || message[i + 1] === "\n")) return message.slice(0, i);
  }
  return message.split("\n")[0]!;
}
