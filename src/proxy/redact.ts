// The one rule for what a line the proxy writes may show of a path: its own module, so the access
// log (routing.ts), the start-up lines (run.ts) and the usage errors (config.ts) share it without
// importing each other.
import { isAsciiDigit } from "../grammar/chars.ts";

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
 * port's digits (an IPv6 address in brackets is left out). So a credential whose raw `?`, `#` or
 * `/` cut it from its `@` reads; so does a host with a bad port, which is hidden with it.
 */
export function looksLikeUserinfo(authority: string): boolean {
  const bracket = authority.startsWith("[") ? authority.indexOf("]") : -1;
  const rest = bracket >= 0 ? authority.slice(bracket + 1) : authority;
  const colon = rest.lastIndexOf(":");
  if (colon < 0) return false;
  for (let i = colon + 1; i < rest.length; i++) if (!isAsciiDigit(rest.charCodeAt(i))) return true;
  return false;
}
