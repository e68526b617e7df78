/**
 * The proxy's hand-written scanners that replaced regexes (regex audit): the scheme of a redacted
 * URL, its `?`/`#` cut, and the loopback check of routeToItself (trailing dot, 127.0.0.0/8, the
 * IPv4-mapped form URL writes). Each case pins the edge the old pattern drew.
 */
import { describe, expect, test } from "bun:test";
import { proxyConfig, routeToItself } from "../../src/proxy/config.ts";
import { redactedUrl } from "../../src/grammar/redact.ts";

describe("redactedUrl: scheme and query found by hand", () => {
  test.each([
    ["hTtP+x.-1://u:p@h/x?k=1", "hTtP+x.-1://***@h/x?<redacted>"],
    ["http://h/p#frag?x", "http://h/p?<redacted>"],
    ["http://h/p", "http://h/p"],
    // No scheme: a digit first, one slash, none at all: the whole text is the rest.
    ["1http://u@h?x", "***@h?<redacted>"],
    ["http:/u@h", "***@h"],
    ["", ""],
    ["h", "h"],
  ])("%p", (input, expected) => {
    expect(redactedUrl(input)).toBe(expected);
  });
});

describe("routeToItself: loopback read by hand", () => {
  const loops = (bind: string, upstreamHost: string): boolean => {
    const config = proxyConfig(["--upstream", `http://${upstreamHost}:8787/v1`, "--port", "8787"]);
    return routeToItself({ ...config, host: bind }) !== undefined;
  };
  test.each([
    ["127.0.0.1", true],
    ["127.1.22.254", true],
    ["127.0.0.1.", true],
    ["[::ffff:127.0.0.1]", true],
    ["[::ffff:7f01:203]", true],
    ["[::1]", true],
    ["localhost.", true],
    ["128.0.0.1", false],
    ["[::ffff:8000:1]", false],
    ["[::ffff:c0a8:1]", false],
    ["example.com", false],
  ])("upstream %p on a loopback bind: %p", (host, expected) => {
    expect(loops("0.0.0.0", host)).toBe(expected);
  });
  test("a host name that only starts like a loopback address is not one", () => {
    expect(loops("127.0.0.1", "127.0.0.1.example")).toBe(false);
  });
});
