/**
 * Hostile review 54 (options), the tool lists once more: `responseFix.denyTools` entries that can
 * name no tool, and OpenCode's own "tool off" spelling inside `responseFix`. Read through the
 * plugin (src/plugin/options.ts resolveOptions, which the V2 setup and the proxy's config file use
 * too) and the library (src/options/settle.ts -> src/options/engine.ts, end to end through
 * repairFetch). Review 51 made `["bash,read"]` split; this is what is left beside it.
 */
import { describe, expect, test } from "bun:test";
import { resolveOptions } from "../../src/plugin/options.ts";
import { recoverableTools } from "../../src/options/engine.ts";
import { fixtureTools } from "../golden/tools.ts";
import { dsml } from "../security/echo-spellings.ts";
import { completion, openAiTools, throughFetch, type Json } from "../security/support.ts";

const USER: Json[] = [{ role: "user", content: "Clean the build folder." }];
const BASH_LEAK = `Cleaning up:\n${dsml({ tool: "bash", input: { command: "rm -rf build", description: "clean" } })}`;

/** The tools a leak recovered through repairFetch (chat completions, declared: the fixture tools), and its debug lines. */
async function recovered(reply: string, options: Json) {
  const debug: string[] = [];
  const { out } = await throughFetch({ messages: USER, tools: openAiTools(fixtureTools) }, { json: completion(reply) }, { ...options, debug: (line) => debug.push(line) });
  return { calls: out.calls.map((call) => call.name), debug };
}

/** What the plugin's reading makes of `responseFix` for bash and read. */
function pluginReads(responseFix: Json) {
  const { options, problems } = resolveOptions({ responseFix });
  const names = recoverableTools({ responseFix: options.responseFix }, [{ name: "bash" }, { name: "read" }]).map((tool) => tool.name);
  return { bashRecoverable: names.includes("bash"), problems: problems.length };
}

describe("a denyTools entry that can name no tool", () => {
  // FINDING (severity: a security option silently ignored, leading to a wrong execution). A deny
  // list taken from the environment the shell way, `"denyTools": ["{env:DSML_DENY}"]` with
  // DSML_DENY="bash read" (blank-separated, as most shell lists are) or DSML_DENY='["bash","read"]'
  // (JSON, since the option is a JSON list), reaches the plugin as ONE entry "bash read" /
  // '["bash","read"]'. check.ts splits only on "," and ";", and isNameEntry refuses only blanks
  // AROUND a name (its own comment: "No tool name ... holds a blank, so `read ` would name nothing:
  // a deny list holding it would deny nothing in silence"), so a blank INSIDE, quotes, brackets, a
  // "|" or an invisible U+200B pass as a valid name. engine.ts compares it whole, it matches no
  // declared tool, and `rm -rf build` runs as a recovered bash call: no problem line, no debug line,
  // and doctor says "options: valid", exit 0 (review-54-config-doctor).
  // No tool name can hold any of these characters (OpenAI and Anthropic take [a-zA-Z0-9_-]{1,64};
  // OpenCode sanitises MCP names to that set; the lists' own wildcards are * and ?).
  // Minimal input: `{ responseFix: { denyTools: ["bash read"] } }` and a DSML bash leak.
  // Suspected: src/options/check.ts isNameEntry / checkAsWritten (the plugin's reading, settle.ts
  // and engine.ts toolNames all rest on them). Expected: such an entry is read as the list it
  // spells (blank-separated, or JSON) with one line saying so, or refused as a bad entry (one
  // problem / debug line naming responseFix.denyTools; denyTools fails closed to ["*"]); either
  // way no bash call.
  // Fixed: a tool list entry holding a character no tool name holds (any whitespace, a control or
  // invisible character, a quote, a bracket or brace, "|", a backslash; check.ts noToolName) refuses
  // the list, with one problem / debug line naming the option and the character: denyTools fails
  // closed to ["*"], allowTools to []. The engine's own reading (engine.ts toolNames) refuses it too.
  const NO_TOOL_NAMES = ["bash read", '["bash","read"]', "bash|read", "bash\u200b"];

  test("plugin: each such entry leaves bash unrecoverable, with one problem line", () => {
    for (const entry of NO_TOOL_NAMES) expect({ entry, ...pluginReads({ denyTools: [entry] }) }).toEqual({ entry, bashRecoverable: false, problems: 1 });
  });

  test('library: denyTools ["bash read"] stops the bash leak', async () => {
    expect((await recovered(BASH_LEAK, { responseFix: { denyTools: ["bash read"] } })).calls).toEqual([]);
  });

  test("library: denyTools with a JSON list as one string, or an invisible U+200B, stops the bash leak", async () => {
    for (const entry of ['["bash","read"]', "bash\u200b"]) expect({ entry, calls: (await recovered(BASH_LEAK, { responseFix: { denyTools: [entry] } })).calls }).toEqual({ entry, calls: [] });
  });

  test("hard negatives: real tool names and patterns stay names, silently; the split of review 51 still holds", async () => {
    const names = ["bash", "mcp__github__create_issue", "mcp__github__*", "read?", "my-tool.v2", "Bash", "server:tool"];
    const read = resolveOptions({ responseFix: { denyTools: names, allowTools: ["*"] } });
    expect({ deny: read.options.responseFix.denyTools, problems: read.problems }).toEqual({ deny: names, problems: [] });
    expect(pluginReads({ denyTools: ["read"] })).toEqual({ bashRecoverable: true, problems: 0 });
    expect(pluginReads({ denyTools: ["bash,read"] })).toEqual({ bashRecoverable: false, problems: 1 });
    // A deny list naming another tool leaves the bash call to run, in silence.
    const other = await recovered(BASH_LEAK, { responseFix: { denyTools: ["read", "mcp__github__*"] } });
    expect(other).toEqual({ calls: ["bash"], debug: [] });
    // An allow list with a blank inside restricts (it allows nothing the user meant): never wider.
    expect(pluginReads({ allowTools: ["read bash"] }).bashRecoverable).toBe(false);
  });
});

describe("OpenCode's own 'tool off' spelling inside responseFix", () => {
  // FINDING (severity: a security option ignored, leading to a wrong execution; reported, but the
  // call runs). OpenCode switches a tool off with `"tools": { "bash": false }` (and
  // `"permission": { "bash": "deny" }`). The same map written in the plugin's responseFix, where
  // the user wants recovered bash calls stopped, is an unknown key: the plugin logs one "unknown
  // option" line and recovers the bash call anyway; the library does not even say so. Review 51
  // made a list of names under any unknown responseFix key close recovered calls (Claude Code's
  // `disallowedTools`: "reads as a restriction to whoever wrote it"); a map of tool names to
  // false / "deny" reads as one just as plainly, in OpenCode's own words.
  // Minimal input: `{ responseFix: { tools: { bash: false } } }` and a DSML bash leak.
  // Suspected: src/options/security-search.ts namesListIn / closedBecause (lists only).
  // Expected: as for `disallowedTools: ["bash"]`: recovered calls closed, the line naming the
  // key and responseFix.denyTools; no bash call.
  // Fixed: an unknown key directly in responseFix holding a map of tool names to false or "deny"
  // (or a pattern map holding "deny") closes recovered calls, as a list of names there does
  // (security-search.ts toolsOffIn): one line naming the key, the tools and responseFix.denyTools.
  // A key naming one of the plugin's own options (`dialects: { hermes: false }`) is no tool.
  test('plugin: responseFix.tools { bash: false } and permission { bash: "deny" } leave bash unrecoverable', () => {
    for (const responseFix of [{ tools: { bash: false } }, { permission: { bash: "deny" } }]) {
      expect({ responseFix, bashRecoverable: pluginReads(responseFix).bashRecoverable }).toEqual({ responseFix, bashRecoverable: false });
    }
  });

  test("library: responseFix.tools { bash: false } stops the bash leak", async () => {
    expect((await recovered(BASH_LEAK, { responseFix: { tools: { bash: false } } })).calls).toEqual([]);
  });

  test("hard negatives: the same map outside responseFix, or a map turning tools on, is only reported", async () => {
    // OpenCode's own top-level `tools` is no key of the plugin's entry: reported, not closing.
    expect(pluginReads({ note: { a: 1 } })).toEqual({ bashRecoverable: true, problems: 1 });
    expect(pluginReads({ tools: { bash: true } })).toEqual({ bashRecoverable: true, problems: 1 });
    const top = resolveOptions({ retry: { tools: { bash: false } } });
    expect({ problems: top.problems.length, closed: top.failedClosed === true }).toEqual({ problems: 1, closed: false });
    expect((await recovered(BASH_LEAK, { responseFix: { denyTools: [] } })).calls).toEqual(["bash"]);
    // A namespace put in the wrong place switches options, not tools: reported, not closing.
    expect(pluginReads({ dialects: { hermes: false } })).toEqual({ bashRecoverable: true, problems: 1 });
    expect(pluginReads({ permission: { bash: "allow", read: "ask" } })).toEqual({ bashRecoverable: true, problems: 1 });
    expect((await recovered(BASH_LEAK, { responseFix: { tools: { bash: true } } })).calls).toEqual(["bash"]);
  });

  test("the closing line names the key, the tool and responseFix.denyTools; a pattern map closes too", async () => {
    const { problems, failedClosed } = resolveOptions({ responseFix: { tools: { bash: false } } });
    expect({ failedClosed, lines: problems.length }).toEqual({ failedClosed: true, lines: 1 });
    expect(problems[0]).toContain('"responseFix.tools"');
    expect(problems[0]).toContain('"bash"');
    expect(problems[0]).toContain('"responseFix.denyTools"');
    expect(pluginReads({ permission: { bash: { "rm *": "deny", "*": "allow" } } }).bashRecoverable).toBe(false);
    const library = await recovered(BASH_LEAK, { responseFix: { permission: { bash: "deny" } } });
    expect({ calls: library.calls, named: library.debug.some((line) => line.includes("responseFix.permission") && line.includes("responseFix.denyTools")) }).toEqual({ calls: [], named: true });
  });
});

describe("review 54 fix: what the refusal says, and where it does not reach", () => {
  test("one line naming the option and the character, never the value; the library says so once in debug", async () => {
    const { problems } = resolveOptions({ responseFix: { denyTools: ["bash\u200b"] } });
    expect(problems.length).toBe(1);
    expect(problems[0]).toContain('"responseFix.denyTools"');
    expect(problems[0]).toContain("U+200B");
    expect(problems[0]).toContain('["*"]');
    const library = await recovered(BASH_LEAK, { responseFix: { denyTools: ["bash read"] } });
    expect(library.debug.filter((line) => line.includes("responseFix.denyTools") && line.includes("no tool"))).toHaveLength(1);
  });

  test("an entry split at \",\" is judged part by part; entry numbers count the list as written", () => {
    const { options, problems } = resolveOptions({ responseFix: { denyTools: ["read", "bash, git status"] } });
    expect(options.responseFix.denyTools).toEqual(["*"]);
    expect(problems.length).toBe(1);
    expect(problems[0]).toContain("entry 2 holds a blank");
  });

  test("providers is no tool list: a provider id is read as before", () => {
    expect(resolveOptions({ providers: ["my-vllm", "auto"] }).problems).toEqual([]);
  });
});
