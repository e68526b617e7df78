/** JSON with comments and trailing commas, as OpenCode reads opencode.json(c). */
export function parseJsonc(text: string): unknown {
  return JSON.parse(withoutTrailingCommas(withoutComments(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text)));
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
    return { length: stop - at, with: blank(text.slice(at, stop)) };
  });
}

function withoutTrailingCommas(text: string): string {
  return rewrite(text, (at) => (text[at] === "," && closesNext(text, at + 1) ? { length: 1, with: " " } : undefined));
}

function blank(comment: string): string {
  let out = "";
  for (let i = 0; i < comment.length; i++) out += comment[i] === "\n" ? "\n" : " ";
  return out;
}

/** The next character after blanks closes an object or array. */
function closesNext(text: string, from: number): boolean {
  let i = from;
  while (i < text.length && (text[i] === " " || text[i] === "\t" || text[i] === "\n" || text[i] === "\r")) i++;
  return text[i] === "}" || text[i] === "]";
}
