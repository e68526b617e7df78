/** JSON with comments and trailing commas, as OpenCode reads opencode.json(c). */
export function parseJsonc(text: string): unknown {
  return JSON.parse(withoutTrailingCommas(withoutComments(text.replace(/^\uFEFF/, ""))));
}

/** Walks the text outside strings; `visit` returns how much of it to replace with what. */
function rewrite(text: string, visit: (at: number) => { length: number; with: string } | undefined): string {
  let out = "";
  let i = 0;
  while (i < text.length) {
    if (text[i] === '"') {
      const start = i++;
      while (i < text.length && text[i] !== '"') i += text[i] === "\\" ? 2 : 1;
      out += text.slice(start, ++i);
      continue;
    }
    const change = visit(i);
    if (change) {
      out += change.with;
      i += change.length;
    } else {
      out += text[i++];
    }
  }
  return out;
}

/** Comments become blanks of the same shape, so JSON.parse's positions still point into the file. */
function withoutComments(text: string): string {
  return rewrite(text, (at) => {
    if (text[at] !== "/" || (text[at + 1] !== "/" && text[at + 1] !== "*")) return undefined;
    const line = text[at + 1] === "/";
    const end = line ? text.indexOf("\n", at) : text.indexOf("*/", at + 2);
    const stop = end < 0 ? text.length : line ? end : end + 2;
    return { length: stop - at, with: text.slice(at, stop).replace(/[^\n]/g, " ") };
  });
}

function withoutTrailingCommas(text: string): string {
  return rewrite(text, (at) => (text[at] === "," && /^\s*[}\]]/.test(text.slice(at + 1, at + 1 + 4096)) ? { length: 1, with: " " } : undefined));
}
