// A request body that writes a key the plan reads twice. JSON leaves duplicate member names to the
// parser (RFC 8259 4): JSON.parse keeps the last, a first-wins reader keeps the first, a strict
// one refuses the body. Which copy the upstream obeyed cannot be known, so when a key that decides
// what a recovered call may be is written twice the adapter stands aside (nothing recovered), as
// it does when `tool_choice` and `function_call` disagree. Only the body's top level is read, and
// every object inside `tool_choice` and `function_call`; one pass. A string's contents are skipped
// by a native search for its closing quote, not read character by character: a request is mostly
// strings (a conversation, base64 attachments), and a reply that runs nothing never reads them
// (the echo guard's given content is read only when a call is about to be recovered).

/**
 * Top-level keys the plan reads to decide what may run: the tools declared and reserved, the
 * choice and parallel-call switch, the content the echo guard compares a call with (every place
 * the model reads a conversation from), and the prefill switch. A duplicate of any other key
 * (`metadata`) changes nothing here.
 */
const PLAN_KEYS: ReadonlySet<string> = new Set([
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
]);

/** Top-level keys whose whole value is read for duplicates: any key written twice in any object inside. */
const WHOLE_VALUE: ReadonlySet<string> = new Set(["tool_choice", "function_call"]);

interface Frame {
  object: boolean;
  /** The keys seen so far, in an object read for duplicates. */
  keys?: Set<string>;
  /** Inside `tool_choice` or `function_call`: every object is read for duplicates. */
  whole: boolean;
  /** An object's next string is a key (after `{` or `,`). */
  expectKey: boolean;
  /** The last key read in this object (top level only). */
  key?: string;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * Where `text` (a JSON object, as JSON.parse accepted it; a byte order mark may lead) writes a
 * plan key twice: a short description naming the key (never request content: only the fixed
 * names above), or undefined. A body that is no object has no keys to read.
 */
export function keyWrittenTwice(text: string): string | undefined {
  const stack: Frame[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    const frame = stack[stack.length - 1];
    if (c === QUOTE) {
      const end = stringEnd(text, i);
      if (frame?.object && frame.expectKey) {
        frame.expectKey = false;
        if (frame.keys) {
          const key = keyOf(text, i, end);
          const top = stack.length === 1;
          if (top) frame.key = key;
          if (!top || PLAN_KEYS.has(key)) {
            if (frame.keys.has(key)) return top ? `\`${key}\`` : `a key inside \`${stack[0]!.key}\``;
            frame.keys.add(key);
          }
        }
      }
      i = end.next;
      continue;
    }
    if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      const whole = frame === undefined ? false : frame.whole || (stack.length === 1 && WHOLE_VALUE.has(frame.key ?? ""));
      const object = c === 0x7b;
      const read = frame === undefined || (whole && object);
      stack.push({ object, whole, expectKey: object, ...(read ? { keys: new Set<string>() } : {}) });
      // A body that is no object (an array at the top) has no keys the plan reads.
      if (frame === undefined && !object) return undefined;
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      stack.pop();
      if (stack.length === 0) return undefined;
    } else if (c === 0x2c /* , */ && frame?.object) {
      frame.expectKey = true;
    }
    i++;
  }
  return undefined;
}

/**
 * The end of the string token opening at `start` (its closing quote). A quote is the string's end
 * when an even number of backslashes comes right before it; each backslash is counted once, for
 * the one quote right after its run, so the whole body costs one pass.
 */
function stringEnd(text: string, start: number): { close: number; next: number } {
  let from = start + 1;
  for (;;) {
    const quote = text.indexOf('"', from);
    if (quote === -1) return { close: text.length, next: text.length };
    let slashes = 0;
    for (let k = quote - 1; k >= from && text.charCodeAt(k) === BACKSLASH; k--) slashes++;
    if (slashes % 2 === 0) return { close: quote, next: quote + 1 };
    from = quote + 1;
  }
}

/** A key as JSON.parse reads it: `tool\u005fchoice` is `tool_choice`. */
function keyOf(text: string, start: number, end: { close: number }): string {
  const raw = text.slice(start + 1, end.close);
  if (!raw.includes("\\")) return raw;
  try {
    return JSON.parse(`"${raw}"`) as string;
  } catch {
    return raw;
  }
}
