// Text helpers the XML-like dialects share (Qwen3-Coder, GLM, the <tool_call> bodies); the call
// outcomes they build live one layer down in ../call.ts.

/** One newline on each side of a value is layout in these dialects. */
export function trimLayoutNewlines(value: string): string {
  return value.replace(/^\r?\n/, "").replace(/\r?\n$/, "");
}
