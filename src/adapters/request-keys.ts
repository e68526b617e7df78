// A request body that writes a key twice in one object. JSON leaves duplicate member names to the
// parser (RFC 8259 4): JSON.parse keeps the last, a first-wins reader keeps the first, a strict
// one refuses the body. Which copy the upstream obeyed cannot be known, so the adapter stands
// aside (nothing recovered), as it does when `tool_choice` and `function_call` disagree. Every
// object is read, at any depth (review 55a): a message writing `content` twice shows a first-wins
// upstream one text and the echo guard another, a tool writing `function.name` twice offers the
// model one tool and the plan another; which nested key decides what may run is no list worth
// keeping, and no real client writes a key twice. One pass: a string's contents are skipped by a
// native search for its closing quote (grammar/json-syntax.ts jsonStringEnd), not read character
// by character; only a key (a string where an object expects one) is sliced, to compare it with
// the object's other keys.
import { jsonStringEnd } from "../grammar/json-syntax.ts";

/**
 * Keys a debug line may name: the request fields every wire documents. Any other key is request
 * content (a schema's property, a metadata entry), which a debug line never carries: it is then
 * "a key", and its place is told by the nearest field above it that may be named.
 */
const NAMEABLE: ReadonlySet<string> = new Set([
  // What the plan reads.
  "tools",
  "functions",
  "mcp_servers",
  "tool_choice",
  "function_call",
  "parallel_tool_calls",
  "messages",
  "input",
  "system",
  "instructions",
  "continue_final_message",
  // The rest of a request's top level.
  "model",
  "metadata",
  "stream",
  "stream_options",
  "max_tokens",
  "max_completion_tokens",
  "max_output_tokens",
  "temperature",
  "top_p",
  "stop",
  "stop_sequences",
  "response_format",
  "text",
  "reasoning",
  "thinking",
  "previous_response_id",
  "store",
  "user",
  // Inside a message, a content part or a tool.
  "role",
  "content",
  "type",
  "name",
  "id",
  "function",
  "custom",
  "arguments",
  "parameters",
  "input_schema",
  "description",
  "strict",
  "tool_calls",
  "tool_call_id",
  "call_id",
  "tool_use_id",
  "output",
  "allowed_tools",
  "tool_names",
  "server_label",
  "configs",
  "mode",
  "disable_parallel_tool_use",
]);

interface Frame {
  /** The keys seen so far in this object; none for an array. */
  keys?: Set<string>;
  /** An object's next string is a key (after `{` or `,`). */
  expectKey: boolean;
  /** The last key read in this object. */
  key?: string;
}

const QUOTE = 0x22;

/**
 * Where `text` (a JSON object, as JSON.parse accepted it; a byte order mark may lead) writes a
 * key twice in one object, at any depth: a short description naming the key and the field it is
 * inside (only NAMEABLE names, never request content), or undefined. A body that is no object is
 * no request on any wire (nothing is recovered for it anyway): undefined.
 */
export function keyWrittenTwice(text: string): string | undefined {
  const stack: Frame[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    const frame = stack[stack.length - 1];
    if (c === QUOTE) {
      const end = jsonStringEnd(text, i);
      if (frame?.keys && frame.expectKey) {
        frame.expectKey = false;
        const key = keyOf(text, i, end - 1);
        if (frame.keys.has(key)) return described(key, stack);
        frame.keys.add(key);
        frame.key = key;
      }
      i = end;
      continue;
    }
    if (c === 0x7b /* { */) stack.push({ keys: new Set<string>(), expectKey: true });
    else if (c === 0x5b /* [ */) {
      if (frame === undefined) return undefined;
      stack.push({ expectKey: false });
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      stack.pop();
      if (stack.length === 0) return undefined;
    } else if (c === 0x2c /* , */ && frame?.keys) frame.expectKey = true;
    i++;
  }
  return undefined;
}

/**
 * `key` (written twice in the innermost object of `stack`) as a debug line may say it: named when
 * NAMEABLE, with the nearest nameable field above it (`content` inside `messages`).
 */
function described(key: string, stack: readonly Frame[]): string {
  const own = NAMEABLE.has(key) ? `\`${key}\`` : "a key";
  if (stack.length === 1) return own;
  for (let k = stack.length - 2; k >= 0; k--) {
    const above = stack[k]!.key;
    if (above !== undefined && NAMEABLE.has(above)) return `${own} inside \`${above}\``;
  }
  return `${own} inside an object`;
}

/** A key as JSON.parse reads it: `tool\u005fchoice` is `tool_choice`. */
function keyOf(text: string, start: number, close: number): string {
  const raw = text.slice(start + 1, close);
  if (!raw.includes("\\")) return raw;
  try {
    return JSON.parse(`"${raw}"`) as string;
  } catch {
    return raw;
  }
}
