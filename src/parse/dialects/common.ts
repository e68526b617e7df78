// Text helpers the XML-like dialects share (Qwen3-Coder, GLM, the <tool_call> bodies); the call
// outcomes they build live one layer down in ../call.ts.

/** The text between `<name>` and the matching `</name>` after `from`, with the closer's end. */
export function element(text: string, name: string, from: number, lastCloser = false): { value: string; end: number; start: number } | null {
  const open = text.indexOf(`<${name}>`, from);
  if (open < 0) return null;
  const valueStart = open + name.length + 2;
  const close = lastCloser ? text.lastIndexOf(`</${name}>`) : text.indexOf(`</${name}>`, valueStart);
  if (close < valueStart) return null;
  return { value: text.slice(valueStart, close), end: close + name.length + 3, start: open };
}

/** One newline on each side of a value is layout in these dialects. */
export function trimLayoutNewlines(value: string): string {
  return value.replace(/^\r?\n/, "").replace(/\r?\n$/, "");
}
