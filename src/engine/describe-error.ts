// Debug lines that never quote argument text.

/**
 * Error messages can quote the text that failed (JSON.parse does), and that text may be a tool
 * argument: debug lines keep the error's name and wording but never quoted spans.
 */
export function describeError(error: unknown): string {
  try {
    const name = error instanceof Error ? error.name : typeof error;
    const message = error instanceof Error ? error.message : String(error);
    return `${name}: ${withoutQuotes(message)}`;
  } catch {
    return "an error that could not be described";
  }
}

const MESSAGE_LIMIT = 160;

function withoutQuotes(message: string): string {
  let out = "";
  let quote = 0;
  for (let i = 0; i < message.length && out.length < MESSAGE_LIMIT; i++) {
    const c = message.charCodeAt(i);
    if (quote !== 0) {
      if (c === quote) {
        quote = 0;
        out += `...${message[i]}`;
      }
      continue;
    }
    if (c === 0x22 || c === 0x27 || c === 0x60) quote = c;
    if (c === 0x0a || c === 0x0d) out += " ";
    else out += message[i];
  }
  if (quote !== 0) out += "...";
  return out.length > MESSAGE_LIMIT ? `${out.slice(0, MESSAGE_LIMIT)}...` : out;
}

