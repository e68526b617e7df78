/**
 * Review 44, rule 8: the proxy's climb check (src/proxy/server.ts upstreamTarget /
 * climbsThroughEncodedSeparators). `%2F`, `%5C` and `%2E` count as separators and dots; a
 * request whose dot segments would climb above the upstream's own path once an upstream decodes
 * them is refused. Checked on upstreamTarget directly (the raw-socket path is review-43-proxy's).
 */
import { describe, expect, test } from "bun:test";
import { upstreamTarget } from "../../src/proxy/routing.ts";

const UPSTREAM = new URL("https://gw.test/v1");

describe("a doubly encoded separator climbs for an upstream that decodes twice", () => {
  // Severity: low (path confusion, the same class review 43 closed for `%2F`: a front server that
  // decodes once then an upstream that decodes and resolves dot segments serves `/admin`, outside
  // the path the route gives the client; double decoding is rarer than single, so the lead may
  // rule it out of scope). Suspected: src/proxy/server.ts climbsThroughEncodedSeparators(): it
  // reads `%2f`, `%5c` and `%2e` once; `%252f` (`%25` is `%`) and `%252e` pass as ordinary
  // characters. Expected: refused (undefined), as `..%2F..%2Fadmin` is.
  test("/..%252F..%252Fadmin is refused", () => {
    expect(upstreamTarget(UPSTREAM, "/..%252F..%252Fadmin")).toBeUndefined();
  });

  test("/%252e%252e%252fadmin is refused", () => {
    expect(upstreamTarget(UPSTREAM, "/%252e%252e%252fadmin")).toBeUndefined();
  });
});

describe("hard negatives (pass today)", () => {
  test("single-encoded and mixed-case climbs are refused", () => {
    for (const rest of ["/..%2F..%2Fadmin", "/%2e%2E%2fadmin", "/%2e%2e/admin", "/.%2e/admin", "/chat/..%2f..%2f..%2fadmin", "/%2e%2e%5cadmin", "/..%5C..%5Cadmin", "/..\\admin", "/x/%2E%2E%2F%2E%2E%2Fadmin?q"]) {
      expect(upstreamTarget(UPSTREAM, rest)).toBeUndefined();
    }
  });
  test("an encoded slash that stays inside, three dots, and dots in the query go up as sent", () => {
    expect(upstreamTarget(UPSTREAM, "/models/org%2Fname")?.href).toBe("https://gw.test/v1/models/org%2Fname");
    expect(upstreamTarget(UPSTREAM, "/.../admin")?.href).toBe("https://gw.test/v1/.../admin");
    expect(upstreamTarget(UPSTREAM, "/x?a=/../..")?.href).toBe("https://gw.test/v1/x?a=/../..");
  });
});
