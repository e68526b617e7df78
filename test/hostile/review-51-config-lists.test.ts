/**
 * Hostile review 51 (options), the tool lists: `responseFix.denyTools` / `allowTools` written in a
 * way that reads as a restriction to the user but restricts nothing, through the plugin's reading
 * (src/plugin/options.ts resolveOptions) and the library's (src/options/settle.ts settleOptions ->
 * src/options/engine.ts recoverableTools, driven end to end through repairFetch).
 */
import { describe, expect, test } from "bun:test";
import { resolveOptions } from "../../src/plugin/options.ts";
import { recoverableTools } from "../../src/options/engine.ts";
import { fixtureTools } from "../golden/tools.ts";
import { dsml } from "../security/echo-spellings.ts";
import { completion, openAiTools, throughFetch, type Json } from "../security/support.ts";

const USER: Json[] = [{ role: "user", content: "Clean the build folder." }];
const BASH_LEAK = `Cleaning up:\n${dsml({ tool: "bash", input: { command: "rm -rf build", description: "clean" } })}`;
const READ_LEAK = `Reading it:\n${dsml({ tool: "read", input: { filePath: "/repo/README.md" } })}`;

/** The tools a leak recovered through repairFetch (chat completions, declared: the fixture tools), and its debug lines. */
async function recovered(reply: string, options: Json) {
  const debug: string[] = [];
  const { out } = await throughFetch({ messages: USER, tools: openAiTools(fixtureTools) }, { json: completion(reply) }, { ...options, debug: (line) => debug.push(line) });
  return { calls: out.calls.map((call) => call.name), debug };
}

/** What the plugin's reading makes of `responseFix` for the two tools. */
function pluginReads(responseFix: Json) {
  const { options, problems, failedClosed } = resolveOptions({ responseFix });
  const names = recoverableTools({ responseFix: options.responseFix }, [{ name: "bash" }, { name: "read" }]).map((tool) => tool.name);
  return { recoverable: names, problems: problems.length, failedClosed: failedClosed === true };
}

describe("a deny list written as one comma-joined entry", () => {
  // FINDING (severity: a security option silently ignored, leading to a wrong execution). The
  // package's own CLI takes tool lists comma-joined (`dsml-fix scan --tools bash,read`), and a
  // config that takes its list from the environment (`"denyTools": ["{env:DSML_DENY}"]`, which
  // OpenCode substitutes as text before parsing) gets one entry `"bash,read"` the same way. That
  // entry is a valid name by check.ts isNameEntry (non-empty, no blank around it), so the plugin
  // keeps it with no problem line, and engine.ts recoverableTools compares it whole against each
  // declared name: it matches no tool, and `rm -rf build` runs as a recovered bash call. No tool
  // name can hold a comma (OpenAI and Anthropic allow [a-zA-Z0-9_-]; OpenCode sanitises MCP names
  // to the same set), so such an entry can only be a list written as one string.
  // Minimal input: `{ responseFix: { denyTools: ["bash,read"] } }` and a DSML bash leak.
  // Suspected: src/options/check.ts isNameEntry (and from it the plugin's reading, settle.ts and
  // engine.ts toolNames). Expected: the entry is refused like `" bash"` (one problem / debug line
  // naming responseFix.denyTools, fail closed to ["*"]) or read as the list it spells with a
  // warning; either way no bash call.
  // Fixed: in allowTools and denyTools an entry holding "," or ";" is split into its names, each
  // trimmed (check.ts checkAsWritten), with one line saying so (plugin: a problem line; library: a
  // debug line; doctor: that problem, exit 1). A part that is empty or no valid name refuses the
  // list as any bad entry does (denyTools fails closed to ["*"]).
  test('library: denyTools ["bash,read"] stops the bash leak', async () => {
    const { calls } = await recovered(BASH_LEAK, { responseFix: { denyTools: ["bash,read"] } });
    expect(calls).not.toContain("bash");
  });

  test('plugin: denyTools ["bash,read"] (or ["bash;read"]) leaves bash unrecoverable, with one problem line', () => {
    for (const entry of ["bash,read", "bash, read", "bash;read"]) {
      const read = pluginReads({ denyTools: [entry] });
      expect({ entry, bashRecoverable: read.recoverable.includes("bash"), problems: read.problems }).toEqual({ entry, bashRecoverable: false, problems: 1 });
    }
  });

  // Same root cause on the allow side: the list allows nothing (safe), but with no line at all, so
  // every leak silently stays text. Severity: wrong message (low).
  // Fixed: split the same way (["bash", "read"]), with the one problem line.
  test('plugin: allowTools ["bash,read"] gets one problem line', () => {
    expect(pluginReads({ allowTools: ["bash,read"] }).problems).toBe(1);
  });

  test("hard negative: a deny list written as a list denies exactly its entries; patterns and [-_.] names stay names", async () => {
    expect((await recovered(BASH_LEAK, { responseFix: { denyTools: ["bash", "read"] } })).calls).toEqual([]);
    expect((await recovered(READ_LEAK, { responseFix: { denyTools: ["bash"] } })).calls).toEqual(["read"]);
    expect((await recovered(BASH_LEAK, { responseFix: { denyTools: ["ba*"] } })).calls).toEqual([]);
    for (const entry of ["mcp__github__*", "my-tool", "server_tool.v2", "r?ad"]) {
      expect({ entry, ...pluginReads({ denyTools: [entry] }) }).toEqual({ entry, recoverable: entry === "r?ad" ? ["bash"] : ["bash", "read"], problems: 0, failedClosed: false });
    }
    expect(pluginReads({ allowTools: ["read"] })).toEqual({ recoverable: ["read"], problems: 0, failedClosed: false });
  });

  test("hard negatives: a split list reads exactly its parts; an empty part fails closed; a valid list is silent in the library", async () => {
    const split = resolveOptions({ responseFix: { denyTools: ["bash ; read", "mcp__github__*"], allowTools: ["bash,read"] } });
    expect({ deny: split.options.responseFix.denyTools, allow: split.options.responseFix.allowTools, problems: split.problems.length, failedClosed: split.failedClosed === true }).toEqual({
      deny: ["bash", "read", "mcp__github__*"],
      allow: ["bash", "read"],
      problems: 2,
      failedClosed: false,
    });
    expect(split.problems[0]).toContain('"responseFix.denyTools"');
    expect(split.problems[0]).toContain("split");
    // A joined entry with an empty part is a bad entry: denyTools fails closed, allowTools too.
    for (const entry of ["bash,", ",bash", "bash,,read", ";"]) {
      expect({ entry, ...pluginReads({ denyTools: [entry] }) }).toEqual({ entry, recoverable: [], problems: 1, failedClosed: false });
      expect({ entry, ...pluginReads({ allowTools: [entry] }) }).toEqual({ entry, recoverable: [], problems: 1, failedClosed: false });
    }
    expect((await recovered(READ_LEAK, { responseFix: { denyTools: ["bash,"] } })).calls).toEqual([]);
    // The allow side splits too: "read,bash" allows both, in the library as in the plugin.
    const allowed = await recovered(READ_LEAK, { responseFix: { allowTools: ["bash,read"] } });
    expect({ calls: allowed.calls, lines: allowed.debug.filter((line) => line.includes("responseFix.allowTools")).length }).toEqual({ calls: ["read"], lines: 1 });
    // A valid list is read as written, with no line at all.
    expect(await recovered(READ_LEAK, { responseFix: { denyTools: ["bash"], allowTools: ["read", "ba*"] } })).toEqual({ calls: ["read"], debug: [] });
    // Only the tool lists split: a provider id is no tool name, and is read as written.
    expect(resolveOptions({ providers: ["my,vllm"] }).options.providers).toEqual(["my,vllm"]);
  });
});

describe("a deny list under another tool's name for it", () => {
  // FINDING (severity: a security option ignored, leading to a wrong execution; one warning line,
  // not silent, in the plugin; no line at all in the library). A key within one edit per four
  // letters of a security option closes recovered calls (security-search.ts close), so Claude
  // Code's `allowedTools` closes. Its partner `disallowedTools` (Claude Code's deny list, which a
  // user moving a settings block over writes as is) is too far from `denyTools` and from
  // `allowTools`, and so are `deniedTools`, `blockedTools`, `excludeTools`: each is "ignored", the
  // default deny list [] stands, and the bash leak runs. In the library (settle.ts
  // misspeltSecurity) an unknown key that does not close is ignored in silence (LIBRARY.md), so
  // nothing at all tells a JavaScript caller. The asymmetry is the point: the allow-list spelling
  // fails closed, the deny-list spelling fails open.
  // Minimal input: `{ responseFix: { disallowedTools: ["bash"] } }` and a DSML bash leak.
  // Suspected: src/options/security-search.ts closedBecause / nearSecurityOption (edit distance
  // only). Expected: an unknown key inside `responseFix` (the namespace that holds the security
  // options) whose value is a list of names closes recovered calls, as a near miss does, with the
  // line saying so.
  // Fixed: an unknown key directly in `responseFix` whose value is a non-empty list of strings
  // closes recovered calls (security-search.ts closedBecause), with the one line naming the key and
  // the list it likely meant ("did you mean responseFix.denyTools?"). Other unknown keys there (a
  // string, a number, a list of non-strings, an empty list) are only reported, as before.
  test("library: responseFix.disallowedTools / deniedTools / blockedTools / excludeTools stop the bash leak", async () => {
    for (const key of ["disallowedTools", "deniedTools", "blockedTools", "excludeTools"]) {
      const { calls } = await recovered(BASH_LEAK, { responseFix: { [key]: ["bash"] } });
      expect({ key, calls }).toEqual({ key, calls: [] });
    }
  });

  test("plugin: responseFix.disallowedTools closes recovered calls, as responseFix.allowedTools does", () => {
    expect(pluginReads({ disallowedTools: ["bash"] })).toEqual(pluginReads({ allowedTools: ["read"] }));
  });

  test("hard negatives: the near misses close; an unrelated unknown key elsewhere is only reported", async () => {
    expect(pluginReads({ allowedTools: ["read"] })).toEqual({ recoverable: [], problems: 1, failedClosed: true });
    expect(pluginReads({ denyTool: ["bash"] })).toEqual({ recoverable: [], problems: 1, failedClosed: true });
    expect((await recovered(BASH_LEAK, { responseFix: { deny_tools: ["bash"] } })).calls).toEqual([]);
    const colour = resolveOptions({ colour: "red", retry: { chanel: "user" } });
    expect({ problems: colour.problems.length, failedClosed: colour.failedClosed === true, allow: colour.options.responseFix.allowTools }).toEqual({ problems: 2, failedClosed: false, allow: ["*"] });
    expect((await recovered(BASH_LEAK, { colour: "red" })).calls).toEqual(["bash"]);
  });

  test("hard negatives: an unknown responseFix key that is no list of names closes nothing; the line names the list meant", async () => {
    for (const value of ["keep bash out", 3, true, [], [1, 2], { a: 1 }]) {
      expect({ value, ...pluginReads({ note: value }) }).toEqual({ value, recoverable: ["bash", "read"], problems: 1, failedClosed: false });
      expect({ value, calls: (await recovered(BASH_LEAK, { responseFix: { note: value } })).calls }).toEqual({ value, calls: ["bash"] });
    }
    // A list of names outside responseFix is judged as before (no security option is near it).
    expect(resolveOptions({ retry: { tags: ["a"] } }).failedClosed === true).toBe(false);
    const [deny] = resolveOptions({ responseFix: { disallowedTools: ["bash"] } }).problems;
    expect(deny).toContain('"responseFix.disallowedTools"');
    expect(deny).toContain('"responseFix.denyTools"');
    const [allow] = resolveOptions({ responseFix: { permittedTools: ["read"] } }).problems;
    expect(allow).toContain('"responseFix.allowTools"');
    const { debug } = await recovered(BASH_LEAK, { responseFix: { blockedTools: ["bash"] } });
    expect(debug).toEqual([expect.stringContaining('"responseFix.blockedTools"')]);
  });
});
