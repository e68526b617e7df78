// What the CLI prints comes partly from text it scanned or stored data (tool and argument names,
// session titles and directories, model ids, config paths): a hostile one could carry escape
// sequences (clear the screen, OSC 52 set-clipboard, a forged line) or reorder what a person reads.
// Every line of text output goes through here; JSON output keeps its value and escapes the same
// characters. A hand-written scanner, not a regular expression (see the regex audit).

/**
 * Characters shown escaped: C0 (line ends included: a value never starts a new line), DEL, C1,
 * the bidirectional marks, embeddings, overrides and isolates, the zero-width characters and the
 * line and paragraph separators.
 */
export function isHiddenControl(c: number): boolean {
  if (c < 0x20 || (c >= 0x7f && c <= 0x9f)) return true;
  if (c < 0x061c) return false;
  return c === 0x061c || (c >= 0x200b && c <= 0x200f) || (c >= 0x2028 && c <= 0x202e) || (c >= 0x2060 && c <= 0x2069) || c === 0xfeff;
}

function hex(c: number): string {
  return c <= 0xff ? `\\x${c.toString(16).padStart(2, "0")}` : `\\u${c.toString(16).padStart(4, "0")}`;
}

/** One line as a terminal may show it: each hidden control character written as \xHH or \uHHHH. */
export function visibleLine(text: string): string {
  let out = "";
  let from = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (!isHiddenControl(c)) continue;
    out += text.slice(from, i) + hex(c);
    from = i + 1;
  }
  return from === 0 ? text : out + text.slice(from);
}

/** Lines of text output, each made visible, one per line. */
export function textOutput(lines: readonly string[]): string {
  let out = "";
  for (const line of lines) out += `${visibleLine(line)}\n`;
  return out;
}

/**
 * A value as one line of JSON. JSON.stringify escapes C0 only; the rest of the hidden controls
 * (they can only sit inside strings) become \u escapes, so the value read back is the same.
 */
export function jsonOutput(value: unknown): string {
  const json = JSON.stringify(value);
  let out = "";
  let from = 0;
  for (let i = 0; i < json.length; i++) {
    const c = json.charCodeAt(i);
    if (c < 0x7f || !isHiddenControl(c)) continue;
    out += `${json.slice(from, i)}\\u${c.toString(16).padStart(4, "0")}`;
    from = i + 1;
  }
  return `${from === 0 ? json : out + json.slice(from)}\n`;
}
