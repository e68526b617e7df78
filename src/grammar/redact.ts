// The one rule for what a log line may show of a path or a URL: the proxy's access log
// (proxy/routing.ts), its start-up lines (proxy/run.ts) and usage errors (proxy/config.ts), and the
// plugin's start-up and route lines (plugin/startup.ts, plugin/scope.ts) naming a provider's
// package, which may be a URL with a credential in it (review 57). Pure text, so it sits at the
// bottom layer, where each of them can import it.
import { COLON, DOT, HASH, PLUS, DASH, QUESTION, SLASH, isAsciiDigit, isAsciiLetter } from "./chars.ts";

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

/**
 * A URL as a message may show it: everything up to its last `@` (userinfo, however the password is
 * written: a `/`, `?` or `#` in it would end the authority for a parser) as `***`, then the query
 * and fragment as `?<redacted>`. Found by characters alone, so a URL that does not parse (a space
 * in the host, a bad port) is redacted as well as one that does; a path's own `@` is hidden too,
 * which costs a message nothing. The path keeps its segments but not the parts the access log
 * redacts (redactedPath: `;` parameters, what stands before a `%40`). Any of these may hold a key;
 * the message says what is wrong without it.
 */
export function redactedUrl(text: string): string {
  const scheme = text.slice(0, schemeLength(text));
  let rest = text.slice(scheme.length);
  const at = rest.lastIndexOf("@");
  const userinfo = at >= 0 ? "***@" : "";
  if (at >= 0) rest = rest.slice(at + 1);
  let query = 0;
  while (query < rest.length && rest.charCodeAt(query) !== QUESTION && rest.charCodeAt(query) !== HASH) query++;
  // What is left, host and path, as the access log shows a path (redactedPath): a `;` parameter
  // and what stands before a `%40` redacted too, in whichever part a text that is no URL has them.
  const head = `${scheme}${userinfo}${redactedPath(rest.slice(0, query))}`;
  return query === rest.length ? head : `${head}?<redacted>`;
}

/** The length of a leading `scheme://` (an ASCII letter, then letters, digits, `+`, `.`, `-`), 0 when there is none. */
function schemeLength(text: string): number {
  if (!isAsciiLetter(text.charCodeAt(0))) return 0;
  let i = 1;
  while (isAsciiLetter(text.charCodeAt(i)) || isAsciiDigit(text.charCodeAt(i)) || text.charCodeAt(i) === PLUS || text.charCodeAt(i) === DOT || text.charCodeAt(i) === DASH) i++;
  return text.charCodeAt(i) === COLON && text.charCodeAt(i + 1) === SLASH && text.charCodeAt(i + 2) === SLASH ? i + 3 : 0;
}

/**
 * A package as a log line may show it (the `npm` of an OpenCode provider entry, which the plugin's
 * start-up and route lines name): an npm name (`@ai-sdk/amazon-bedrock`, `pkg@1.2.3`) as given,
 * since its `@` is no userinfo; a value holding `://` (a git or tarball URL, as npm and bun take:
 * `git+https://user:TOKEN@host/org/pkg.git`) as redactedUrl shows a URL, so the token never
 * reaches OpenCode's log.
 */
export function redactedPackage(text: string): string {
  return text.includes("://") ? redactedUrl(text) : text;
}
