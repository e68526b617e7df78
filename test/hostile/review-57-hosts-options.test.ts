/**
 * Hostile review 57 (hosts and options): what the plugin's reading (src/plugin/options.ts
 * resolveOptions, shared by the 1.18 plugin, the V2 setup and the proxy's config file) and the
 * library's settling (src/options/settle.ts) make of values that are valid JSON of the right type
 * but can name nothing: a tool list entry written as a regular expression, and a `providers` entry
 * that is a model reference or a mis-cased provider id / token. Each is accepted in silence today.
 */
import { describe, expect, test } from "bun:test";
import { resolveOptions } from "../../src/plugin/options.ts";
import { recoverableTools } from "../../src/options/engine.ts";
import { startupReport } from "../../src/plugin/startup.ts";
import { routeInScope, routeMode } from "../../src/plugin/scope.ts";
import { setup } from "../../src/plugin/v2/setup.ts";
import { StandInHost } from "../v2/stand-in-host.ts";
import { fixtureTools } from "../golden/tools.ts";
import { dsml } from "../security/echo-spellings.ts";
import { completion, openAiTools, throughFetch, type Json } from "../security/support.ts";

const USER: Json[] = [{ role: "user", content: "Clean the build folder." }];
const BASH_LEAK = `Cleaning up:\n${dsml({ tool: "bash", input: { command: "rm -rf build", description: "clean" } })}`;

/** The tools a leak recovered through repairFetch (chat completions, the fixture tools declared). */
async function libraryCalls(options: Json) {
  const { out } = await throughFetch({ messages: USER, tools: openAiTools(fixtureTools) }, { json: completion(BASH_LEAK) }, options);
  return out.calls.map((call) => call.name);
}

/** What the plugin's reading makes of `responseFix` for bash: recoverable or not, and how many problem lines. */
function pluginReads(responseFix: Json) {
  const { options, problems } = resolveOptions({ responseFix });
  const names = recoverableTools({ responseFix: options.responseFix }, [{ name: "bash" }, { name: "read" }]).map((tool) => tool.name);
  return { bashRecoverable: names.includes("bash"), problems: problems.length };
}

describe("a tool list entry written as a regular expression", () => {
  // FINDING (severity: wrong execution; a security option silently means something else). The
  // lists' only wildcards are `*` and `?` (spec.ts TOOL_NAMES, docs), but a user used to regular
  // expressions writes `"denyTools": ["^bash$"]` (or `"^bash"`, `"bash$"`, `"bash+"`). None of `^`,
  // `$`, `+` is in check.ts NO_TOOL_CHARACTER, so the entry passes as a valid NAME: compared whole it
  // names no tool, the deny list denies nothing, and `rm -rf build` runs as a recovered bash call,
  // with no problem line and no debug line. Review 54 closed exactly this class for `|`, quotes,
  // brackets, blanks and invisible characters ("a deny list holding it would deny nothing in
  // silence"); the regex anchors and quantifiers were left out, though no tool name can hold them
  // (OpenAI and Anthropic take [a-zA-Z0-9_-]; OpenCode sanitises MCP names to that set).
  // Minimal input: `{ responseFix: { denyTools: ["^bash$"] } }` and a DSML bash leak.
  // Suspected: src/options/check.ts NO_TOOL_CHARACTER / noToolName (the plugin's reading,
  // settle.ts and engine.ts toolNames all rest on it).
  // Expected: the list is refused like `["bash|read"]`: one problem / debug line naming
  // responseFix.denyTools and the character; denyTools fails closed to ["*"] (allowTools to []).
  // Fixed: check.ts refuses `^`, `$` and `+` in a tool list entry (REGEX_CHARACTER) as it refuses
  // "|": one problem line naming the option and the character, saying an entry is a whole name
  // with * and ? as its only wildcards; denyTools fails closed to ["*"], allowTools to []. The
  // engine's own reading (toolNames) refuses them too. `.`, `:`, `/`, `-`, `@` stay name characters.
  const REGEX_ENTRIES = ["^bash$", "^bash", "bash$", "bash+"];

  test("plugin: a regex-anchored deny entry leaves bash unrecoverable, with one problem line", () => {
    for (const entry of REGEX_ENTRIES) expect({ entry, ...pluginReads({ denyTools: [entry] }) }).toEqual({ entry, bashRecoverable: false, problems: 1 });
  });

  test('library: denyTools ["^bash$"] stops the bash leak', async () => {
    expect(await libraryCalls({ responseFix: { denyTools: ["^bash$"] } })).toEqual([]);
  });

  test("hard negatives: the documented wildcards and real names (dots, colons, slashes, dashes) stay names, silently", async () => {
    const names = ["bash", "b?sh", "ba*", "mcp__github__*", "my-tool.v2", "server:tool", "org/tool", "Bash"];
    const read = resolveOptions({ responseFix: { denyTools: names, allowTools: ["*"] } });
    expect({ deny: read.options.responseFix.denyTools, problems: read.problems }).toEqual({ deny: names, problems: [] });
    expect(pluginReads({ denyTools: ["ba*"] })).toEqual({ bashRecoverable: false, problems: 0 });
    expect(pluginReads({ denyTools: ["read"] })).toEqual({ bashRecoverable: true, problems: 0 });
    expect(await libraryCalls({ responseFix: { denyTools: ["b?sh"] } })).toEqual([]);
    expect(await libraryCalls({ responseFix: { denyTools: ["read"] } })).toEqual(["bash"]);
    // The character class review 54 refused still fails closed.
    expect(pluginReads({ denyTools: ["bash|read"] })).toEqual({ bashRecoverable: false, problems: 1 });
  });
});

describe("a providers entry that names no provider", () => {
  // FINDING (severity: a silently ignored option, with a start-up line that says the opposite).
  // `providers` is matched against the route's provider id, exactly and case-sensitively
  // (scope.ts listCovers). Two slips are read as provider ids in silence:
  //  - a model reference, `"providers": ["deepseek/deepseek-chat"]` (the form `--model` and the
  //    `model` key take): OpenCode splits a model reference at its first "/", so no provider id it
  //    serves holds one; the entry covers nothing;
  //  - a mis-cased id or token, `["DeepSeek"]` or `["AUTO"]`: OpenCode's ids are as configured
  //    ("deepseek"), and the token is "auto"; either covers nothing.
  // No problem line, no toast; worse, startup.ts credentials lookup upper-cases the id
  // (credentials.ts envKeys), so with DEEPSEEK_API_KEY set the INFO line reads
  // "wired deepseek/deepseek-chat; not wired: none" (or "wired DeepSeek") while every DeepSeek
  // route is `off`: the one line meant to make "is the plugin active?" never a guess says yes.
  // Minimal input: `{ providers: ["deepseek/deepseek-chat"] }`, env DEEPSEEK_API_KEY=x, no
  // provider block; route deepseek/deepseek-chat on @ai-sdk/openai-compatible.
  // Suspected: src/plugin/options.ts keepValid (providersIntent) and src/plugin/startup.ts.
  // Expected: one problem line naming `providers` and the entry (a model reference: "deepseek";
  // "AUTO": "auto"; a mis-cased id may be a custom provider's key, so the options alone cannot
  // refuse it), and, at the least, the start-up line never calls a route wired that no route
  // can match. Either reading the intent (as a bare string already is) or keeping it with a
  // warning satisfies this test; it never widens past what the user wrote.
  // Fixed: the plugin's reading (options.ts readProviders) gives one problem line for the list: a
  // model reference is DROPPED, never read as its provider (which would reach every model of it),
  // and the line says to write the provider id ("deepseek") for that; a scope token in another case
  // ("AUTO") is read as the token, saying so; "all" in any case is kept as written with a line
  // naming "*" and "auto"; an entry holding whitespace, a control or an invisible character is
  // dropped. A mis-cased provider id ("DeepSeek") is kept (a custom provider may have that key), and
  // the start-up line no longer calls it wired: an environment key counts only for an id in the
  // catalog's lower case (credentials.ts), and the line names the id differing only in case.
  // OpenCode 2: the dropped entry registers no hook filter; a named id not in lower case is
  // reported as acting only on a provider of exactly that id.
  const ENV = { DEEPSEEK_API_KEY: "x" };
  const DEEPSEEK = { providerID: "deepseek", modelID: "deepseek-chat", npm: "@ai-sdk/openai-compatible" };

  test("a model reference or a mis-cased token: one problem line each", () => {
    // "DeepSeek" is left out here: a custom provider may be configured under that key, which the
    // options alone cannot see (the start-up line below has the config).
    for (const entry of ["deepseek/deepseek-chat", "AUTO"]) {
      expect({ entry, problems: resolveOptions({ providers: [entry] }).problems.length }).toEqual({ entry, problems: 1 });
    }
  });

  test("the start-up line never says wired for an entry no DeepSeek route matches", () => {
    for (const entry of ["deepseek/deepseek-chat", "DeepSeek"]) {
      const { options } = resolveOptions({ providers: [entry] });
      const mode = routeMode({ providers: options.providers }, DEEPSEEK, false);
      const line = startupReport({ options, cfg: { provider: {} } as never, native: false, env: ENV }).line;
      // Either the route is repaired as the entry meant, or the line does not claim it is.
      expect({ entry, consistent: mode !== "off" || !/wired (?!nothing)/.test(line) }).toEqual({ entry, consistent: true });
    }
  });

  // The OpenCode 2 entry counts every named provider as wired (setup.ts: "each named provider
  // counts as wired") and registers its HTTP hooks under the host's providerID filter for the
  // entry as written: a filter "deepseek/deepseek-chat" that no DeepSeek request ever passes.
  async function v2Start(providers: string[]) {
    const lines: string[] = [];
    const host = new StandInHost();
    const cleanup = await setup(host.context({ providers }), (_level, line) => lines.push(line), {});
    const filters = (host.session.get("http.request") ?? []).map((registered) => (registered as { providerID?: string }).providerID);
    await cleanup?.();
    return { line: lines.find((line) => line.includes("loaded")) ?? "", problems: lines.filter((line) => !line.includes("loaded")).length, filters };
  }

  test("OpenCode 2: a model reference says one problem line, or the start-up line does not call it wired", async () => {
    const started = await v2Start(["deepseek/deepseek-chat"]);
    expect(started.problems === 1 || !/wired (?!nothing)/.test(started.line)).toBe(true);
  });

  test("hard negative, OpenCode 2: a real provider id registers its own filter, silently", async () => {
    const started = await v2Start(["deepseek"]);
    expect({ problems: started.problems, filters: started.filters, wired: started.line.includes("wired deepseek") }).toEqual({ problems: 0, filters: ["deepseek"], wired: true });
  });

  test("hard negatives: a real provider id is silent and in scope; auto covers DeepSeek; an unknown id is not widened", () => {
    const plain = resolveOptions({ providers: ["deepseek"] });
    expect(plain.problems).toEqual([]);
    expect(routeMode({ providers: plain.options.providers }, DEEPSEEK, false)).toBe("wire");
    expect(startupReport({ options: plain.options, cfg: { provider: {} } as never, native: false, env: ENV }).line).toContain("wired deepseek");
    expect(routeInScope({ providers: resolveOptions({ providers: ["auto"] }).options.providers }, DEEPSEEK)).toBe(true);
    // A custom provider's id (any case it was configured in) stays a provider id, silently.
    const custom = resolveOptions({ providers: ["my-vllm"] });
    expect(custom.problems).toEqual([]);
    expect(routeInScope({ providers: custom.options.providers }, { providerID: "my-vllm", modelID: "m" })).toBe(true);
    expect(routeInScope({ providers: custom.options.providers }, DEEPSEEK)).toBe(false);
    // A bare string is already read as its one-entry list, with one line (review 48): the model for the fix.
    const bare = resolveOptions({ providers: "deepseek" });
    expect({ providers: bare.options.providers, problems: bare.problems.length }).toEqual({ providers: ["deepseek"], problems: 1 });
  });
});
