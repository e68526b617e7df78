// The proxy's request routing: which route a request target goes to, the upstream URL it becomes,
// and the checks that keep it inside that route (dot segments, plain, percent-encoded or with `;`
// parameters, that climb above the upstream's path or leave the route the path was sent to); and
// the path the access log names, with what may carry a credential redacted.
import type { Route } from "./config.ts";
import { redactedPath } from "../grammar/redact.ts";

/**
 * The request target without its fragment. Origin-form is a path and a query (RFC 9112 3.2.1); a
 * conforming client never sends a fragment, but Node's parser lets one through. It is cut here,
 * never forwarded (the URL would send it up as `%23...`) and never logged: whatever a client put
 * after "#" was meant for no server.
 */
export function withoutFragment(target: string): string {
  const at = target.indexOf("#");
  return at < 0 ? target : target.slice(0, at);
}

/** The target without its fragment and its query: the path routes, the health check and the access log read. */
export function pathOnly(target: string): string {
  const cut = withoutFragment(target);
  const at = cut.indexOf("?");
  return at < 0 ? cut : cut.slice(0, at);
}

/** The path the access log names: pathOnly, redacted (redactedPath). */
export function loggedPath(target: string): string {
  return redactedPath(pathOnly(target));
}

export function routeFor(routes: readonly Route[], path: string): { route: Route; rest: string } | undefined {
  for (const route of routes) {
    if (route.prefix === "") return { route, rest: path };
    if (path === route.prefix || path.startsWith(`${route.prefix}/`) || path.startsWith(`${route.prefix}?`)) return { route, rest: path.slice(route.prefix.length) || "/" };
  }
  return undefined;
}

/**
 * The upstream URL: its own path, then the client's path and query, never another origin, and never
 * above the upstream's own path (dot segments, plain or percent-encoded, that climb out of it give
 * undefined, also when an encoded slash or backslash joins them). The upstream's own query (Azure's
 * `api-version`) stays, but a name the client sends itself is the client's.
 */
export function upstreamTarget(upstream: URL, rest: string): URL | undefined {
  const target = new URL(upstream.href);
  const at = rest.indexOf("?");
  const path = at < 0 ? rest : rest.slice(0, at);
  let base = upstream.pathname;
  while (base.endsWith("/")) base = base.slice(0, -1);
  target.pathname = base + (path.startsWith("/") ? path : `/${path}`);
  if (base !== "" && target.pathname !== base && !target.pathname.startsWith(`${base}/`)) return undefined;
  if (base !== "" && climbsThroughEncodedSeparators(target.pathname.slice(base.length))) return undefined;
  const query = at < 0 ? "" : rest.slice(at + 1);
  const given = new Set(new URLSearchParams(query).keys());
  const kept = upstream.search.slice(1).split("&").filter((pair) => pair !== "" && !given.has(new URLSearchParams(pair).keys().next().value ?? ""));
  const search = [...kept, ...(query ? [query] : [])].join("&");
  target.search = search ? `?${search}` : "";
  return target;
}

/**
 * Whether `rest` (what follows the upstream's own path, already normalised by URL) climbs above its
 * start once `%2F` and `%5C` (any case) are read as separators and `%2E` as a dot, or once a
 * segment's `;` parameters are cut (`..;`, which URL keeps as a segment): climbsAbove. URL keeps
 * `..%2F..%2Fadmin` as one segment, but an upstream or a server in front of it that decodes the
 * encoded slash before it resolves dot segments serves `/admin` (a known path-confusion class). An
 * encoded slash that stays inside (a model id in `/models/org%2Fname`) goes up as sent. Empty
 * segments count for nothing here, so this never allows less than a resolver that keeps them.
 *
 * A dot, slash or backslash encoded more than once (`%25`, the encoded `%`, before `2E`, `2F` or
 * `5C`, as in `..%252F..%252Fadmin`) is a separator only for an upstream that decodes as many
 * times, and whether the path then climbs depends on how many that is (a segment `a%252Fb` counts
 * one level to a single decoder and two to a double one). So such a path is refused when, with
 * every encoding read, it holds a `..` segment at all: a `..` segment at any number of decodings is
 * one with all of them read. A doubly encoded slash without dot segments (`org%252Fname`) still goes
 * up as sent, and so does every other `%25`: a literal `%` decodes to itself, and only a dot, a
 * slash or a backslash can make or join a dot segment.
 */
function climbsThroughEncodedSeparators(rest: string): boolean {
  // URL has resolved every plain dot segment already; one with a `;` parameter it keeps.
  return (rest.includes("%") || rest.includes(";")) && climbsAbove(rest);
}

/**
 * Whether a path climbs above its start under any reading of it a server on the way may apply:
 * plain dot segments, `\` as a separator (URL reads it so), `%2E`, `%2F` and `%5C` decoded,
 * a segment whose `;` parameters are cut (`..;` and `..;jsessionid=x` are `..` to Tomcat, Jetty
 * and Spring: the well-known `/..;/` bypass), and, for a dot, slash or backslash encoded more than
 * once, any `..` segment at all (see climbsThroughEncodedSeparators).
 */
function climbsAbove(path: string): boolean {
  const lower = path.toLowerCase().replaceAll("\\", "/");
  if (climbs(lower.replaceAll("%2f", "/").replaceAll("%5c", "/").replaceAll("%2e", "."))) return true;
  if (!MULTIPLY_ENCODED.test(lower)) return false;
  return lower.replace(ENCODED_SEPARATOR, "/").replace(ENCODED_DOT, ".").split("/").map(withoutParameters).includes("..");
}

/** A path segment without its `;` parameters, as servers that take them read it. */
function withoutParameters(segment: string): string {
  const at = segment.indexOf(";");
  return at < 0 ? segment : segment.slice(0, at);
}

/**
 * Whether the request's path leaves the route chosen for it: a route is chosen on the path as
 * sent, and URL then resolves its dot segments, so `/deepseek/../other/x` would go to deepseek's
 * upstream as `/other/x`. A path after a route's prefix that climbs above it (by any reading,
 * climbsAbove) leaves its route; a path on the default route leaves it when, dot segments
 * resolved, a prefix would take it (`/x/../deepseek/y`).
 */
export function leavesRoute(routes: readonly Route[], matched: { route: Route; rest: string }, target: string): boolean {
  const path = pathOnly(target);
  if (matched.route.prefix !== "") return climbsAbove(pathOnly(matched.rest));
  let resolved: string;
  try {
    resolved = new URL(path, "http://proxy.invalid").pathname;
  } catch {
    return true;
  }
  return routeFor(routes, resolved)?.route !== matched.route;
}

/** A dot, slash or backslash encoded more than once (lower case): `%25`, any more `25`, then its code. */
const MULTIPLY_ENCODED = /%25(?:25)*(?:2e|2f|5c)/;
/** A slash or backslash, and a dot, encoded any number of times (lower case). */
const ENCODED_SEPARATOR = /%(?:25)*(?:2f|5c)/g;
const ENCODED_DOT = /%(?:25)*2e/g;

/** Whether `/`-separated `path` climbs above its start (a segment read without its `;` parameters). */
function climbs(path: string): boolean {
  let depth = 0;
  for (const segment of path.split("/").map(withoutParameters)) {
    if (segment === "..") {
      if (--depth < 0) return true;
    } else if (segment !== "" && segment !== ".") depth++;
  }
  return false;
}
