// The one rule for what a line the proxy writes may show of a path: its own module, so the access
// log (routing.ts), the start-up lines (run.ts) and the usage errors (config.ts) share it without
// importing each other.

/**
 * A path as any line the proxy writes may show it (the access log, the start-up lines, a usage
 * error naming an upstream or a route): in each segment the `;` parameters (`;key=...`) and
 * anything before an `@` (userinfo, `/https://user:key@host/...` as a client that puts a whole URL
 * after the prefix writes it; `%40` too) replaced by "[redacted]": the parts of a path that are
 * made to carry a credential. The path's other segments are shown as given, so a user can check
 * which upstream path a route goes to. One rule for every line: a credential hidden from one is
 * hidden from all.
 */
export function redactedPath(path: string): string {
  return path
    .split("/")
    .map((segment) => {
      const semicolon = segment.indexOf(";");
      let head = semicolon < 0 ? segment : segment.slice(0, semicolon);
      const at = Math.max(head.lastIndexOf("@"), head.toLowerCase().lastIndexOf("%40"));
      if (at >= 0) head = `[redacted]${head.slice(at)}`;
      return semicolon < 0 ? head : `${head};[redacted]`;
    })
    .join("/");
}
