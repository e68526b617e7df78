// The one rule for what a log line may show of a path or a URL: the proxy's access log
// (proxy/routing.ts), its start-up lines (proxy/run.ts) and usage errors (proxy/config.ts), and the
// plugin's start-up and route lines (plugin/startup.ts, plugin/scope.ts) naming a provider's
// package, which may be a URL with a credential in it (review 57). Pure text, so it sits at the
// bottom layer, where each of them can import it.
import { COLON, DOT, HASH, PLUS, DASH, QUESTION, SLASH, isAsciiDigit, isAsciiLetter } from "./chars.ts";

/**
 * A path as any line the proxy writes may show it (the access log, the start-up lines, a usage
 * error naming an upstream or a route): in each segment the `;` parameters (`;key=...`, and
 * `%3B`, the same `;` encoded) and anything before an `@` (userinfo, `/https://user:key@host/...`
 * as a client that puts a whole URL after the prefix writes it; `%40` too) replaced by
 * "[redacted]": the parts of a path that are made to carry a credential. A URL inside the path
 * (after `scheme://`) has its userinfo hidden however its password is written: up to the last
 * `@` of the path, over as many segments as a raw `/` in the password makes; with no `@`, an
 * authority written `user:password` (its `@` lost after a raw `?` or `#`) is hidden whole. The
 * path's other segments are shown as given, so a user can check which upstream path a route goes
 * to. One rule for every line: a credential hidden from one is hidden from all.
 */
export function redactedPath(path: string): string {
  const segments = path.split("/");
  // The last segment with an `@` or `%40` before its parameters, found once: the path is read in one pass.
  let lastAt = -1;
  for (let j = segments.length - 1; j >= 0 && lastAt < 0; j--) if (atIn(segments[j]!.slice(0, parametersAt(segments[j]!))) >= 0) lastAt = j;
  const out: string[] = [];
  for (let i = 0; i < segments.length; i++) {
    // An authority inside the path: what follows `scheme://`.
    if (i >= 2 && segments[i - 1] === "" && segments[i - 2]!.endsWith(":")) {
      if (lastAt >= i) {
        out.push(redactedSegment(segments[lastAt]!));
        i = lastAt;
        continue;
      }
      if (looksLikeUserinfo(segments[i]!.slice(0, parametersAt(segments[i]!)))) {
        out.push("[redacted]");
        continue;
      }
    }
    out.push(redactedSegment(segments[i]!));
  }
  return out.join("/");
}

/** One segment: its parameters, and what stands before its last `@` or `%40`, redacted. */
function redactedSegment(segment: string): string {
  const end = parametersAt(segment);
  let head = segment.slice(0, end);
  const at = atIn(head);
  if (at >= 0) head = `[redacted]${head.slice(at)}`;
  if (end === segment.length) return head;
  const separator = segment.startsWith(";", end) ? ";" : segment.slice(end, end + 3);
  return `${head}${separator}[redacted]`;
}

/** Where a segment's parameters start: its first `;` or `%3B` (either case); its length when it has none. */
function parametersAt(segment: string): number {
  const semicolon = segment.indexOf(";");
  const encoded = segment.toLowerCase().indexOf("%3b");
  return Math.min(semicolon < 0 ? segment.length : semicolon, encoded < 0 ? segment.length : encoded);
}

/** Where the last `@` or `%40` (either case) stands, -1 when none. */
export function atIn(text: string): number {
  return Math.max(text.lastIndexOf("@"), text.toLowerCase().lastIndexOf("%40"));
}

/**
 * An authority that holds no `@` but reads as `user:password`: a `:` followed by anything but a
 * port (an IPv6 address in brackets is left out). A port is at most 5 digits and at most 65535, so
 * `user:12345678` is a password of digits, not a port (and `host:99999`, no port either, is hidden:
 * which of the two it is cannot be told, and a credential shown costs more than a host hidden). So a credential whose raw `?`, `#` or `/` cut
 * it from its `@` reads; so does a host with a bad port, which is hidden with it.
 */
export function looksLikeUserinfo(authority: string): boolean {
  const bracket = authority.startsWith("[") ? authority.indexOf("]") : -1;
  const rest = bracket >= 0 ? authority.slice(bracket + 1) : authority;
  const colon = rest.lastIndexOf(":");
  if (colon < 0) return false;
  for (let i = colon + 1; i < rest.length; i++) if (!isAsciiDigit(rest.charCodeAt(i))) return true;
  // Digits after an IPv6 address in brackets are its port, however bad: no user name is written so.
  if (bracket >= 0) return false;
  return rest.length - colon - 1 > 5 || Number(rest.slice(colon + 1)) > MAX_PORT;
}

const MAX_PORT = 65535;

/**
 * A URL as a message may show it. The query and fragment, from the first `?` or `#`, are
 * `?<redacted>`, wherever an `@` stands: an e-mail address in the query (`?to=a@b&key=...`) never
 * shows what follows it. Before them, everything up to the last `@` is userinfo (`***@`), however
 * the password is written: a raw `/` in it ends the authority for a parser, and the last `@`
 * hides it all (a path's own `@` is hidden too, which costs a message nothing). A raw `?` or `#`
 * in a password puts its `@` after the cut: then an authority that reads as `user:password`
 * (looksLikeUserinfo) is `***` too. Found by characters alone, so a URL that does not parse (a
 * space in the host, a bad port) is redacted as well as one that does. The path keeps its
 * segments but not the parts the access log redacts (redactedPath: `;` and `%3B` parameters,
 * what stands before an `@` or `%40`). Any of these may hold a key; the message says what is
 * wrong without it.
 */
export function redactedUrl(text: string): string {
  const scheme = text.slice(0, schemeLength(text));
  let query = scheme.length;
  while (query < text.length && text.charCodeAt(query) !== QUESTION && text.charCodeAt(query) !== HASH) query++;
  const head = text.slice(scheme.length, query);
  const tail = query === text.length ? "" : "?<redacted>";
  const at = head.lastIndexOf("@");
  if (at >= 0) return `${scheme}***@${redactedPath(head.slice(at + 1))}${tail}`;
  const slash = head.indexOf("/");
  const authority = slash < 0 ? head : head.slice(0, slash);
  if (atIn(text.slice(query)) >= 0 && looksLikeUserinfo(authority)) return `${scheme}***${tail}`;
  return `${scheme}${redactedPath(head)}${tail}`;
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
