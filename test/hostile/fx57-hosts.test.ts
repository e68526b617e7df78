/**
 * Fix 57 (hosts, options): the rules behind review 57's host findings, with the hard negatives
 * where each rule could over-refuse.
 *  - A tool list entry holding `^`, `$` or `+` (regular-expression syntax no tool name holds) refuses
 *    its list (src/options/check.ts REGEX_CHARACTER); names with `.`, `:`, `/`, `@`, `-` stay names.
 *  - A `providers` entry that cannot name a provider is read the one way that never reaches past what
 *    was written (src/plugin/options.ts readProviders), and the start-up line never calls an id
 *    wired that the host cannot match (src/plugin/startup.ts, credentials.ts).
 *  - A provider's package printed by the start-up line or the route line has a URL's userinfo and
 *    query redacted as the proxy redacts them (src/grammar/redact.ts); an id or key holding a
 *    control character is printed escaped, so no log line is forged.
 */
import { describe, expect, test } from "bun:test";
import { checkAsWritten, noToolName } from "../../src/options/check.ts";
import { recoverableTools } from "../../src/options/engine.ts";
import { OPTIONS, type NamesSpec } from "../../src/options/spec.ts";
import { resolveOptions } from "../../src/plugin/options.ts";
import { formatRouteLine, routeInScope, routeMode } from "../../src/plugin/scope.ts";
import { startupReport } from "../../src/plugin/startup.ts";
import { setup } from "../../src/plugin/v2/setup.ts";
import { StandInHost } from "../v2/stand-in-host.ts";
import { fixtureTools } from "../golden/tools.ts";
import { dsml } from "../security/echo-spellings.ts";
import { completion, openAiTools, throughFetch, type Json } from "../security/support.ts";

const USER: Json[] = [{ role: "user", content: "Clean the build folder." }];
const BASH_LEAK = `Cleaning up:\n${dsml({ tool: "bash", input: { command: "rm -rf build", description: "clean" } })}`;
const DENY: NamesSpec = OPTIONS.fields.responseFix.fields.denyTools;
const DEEPSEEK = { providerID: "deepseek", modelID: "deepseek-chat", npm: "@ai-sdk/openai-compatible" };
/** No auth.json is read from the machine running the tests. */
const NO_AUTH = { XDG_DATA_HOME: "/nonexistent/f57" };

async function libraryRun(options: Json) {
  const debug: string[] = [];
  const { out } = await throughFetch({ messages: USER, tools: openAiTools(fixtureTools) }, { json: completion(BASH_LEAK) }, { ...options, debug: (line: string) => debug.push(line) });
  return { calls: out.calls.map((call) => call.name), debug };
}

function line(providers: unknown, cfg: Json = { provider: {} }, env: Json = NO_AUTH, unlisted = false) {
  const { options } = resolveOptions({ providers });
  return startupReport({ options, cfg: cfg as never, native: false, env: env as NodeJS.ProcessEnv, unlisted }).line;
}

describe("tool lists: regular-expression syntax", () => {
  test("each of ^ $ + refuses the list in both lists, with a line saying how the lists match", () => {
    for (const entry of ["^bash$", "bash+", "$bash", "mcp__github__^", "ba^sh", "^secret_tool$"]) {
      const deny = resolveOptions({ responseFix: { denyTools: [entry] } });
      const allow = resolveOptions({ responseFix: { allowTools: ["read", entry] } });
      expect({ entry, deny: deny.options.responseFix.denyTools, allow: allow.options.responseFix.allowTools }).toEqual({ entry, deny: ["*"], allow: [] });
      expect(deny.problems).toHaveLength(1);
      expect(deny.problems[0]).toContain('"responseFix.denyTools"');
      expect(deny.problems[0]).toContain("a regular expression is no list entry");
    }
    // The value is never quoted in the line: only the character that shows the slip.
    expect(resolveOptions({ responseFix: { denyTools: ["^secret_tool$"] } }).problems[0]).not.toContain("secret_tool");
  });

  test("the engine's own reading refuses them too (a list handed straight to recoverableTools)", () => {
    const names = (denyTools: string[]) => recoverableTools({ responseFix: { denyTools } }, [{ name: "bash" }, { name: "read" }]).map((tool) => tool.name);
    expect(names(["^bash$"])).toEqual([]);
    expect(names(["read+"])).toEqual([]);
    expect(names(["read"])).toEqual(["bash"]);
  });

  test("library: the debug line names the list, and the leak stays a correction", async () => {
    const run = await libraryRun({ responseFix: { denyTools: ["bash$"] } });
    expect(run.calls).toEqual([]);
    expect(run.debug.some((entry) => entry.includes("denyTools"))).toBe(true);
  });

  test("hard negatives: MCP and API names, patterns and joined lists are read as before", async () => {
    for (const name of ["mcp__github__create_issue", "server.tool", "server:tool", "org/tool", "@scope/tool", "my-tool_v2", "mcp__fs__*", "read?", "工具_搜索", "café"]) {
      expect({ name, why: noToolName(name) }).toEqual({ name, why: undefined });
    }
    expect(checkAsWritten(DENY, ["bash,read"])).toEqual({ ok: true, value: ["bash", "read"], joined: ["bash,read"] });
    // The characters refused before keep their own message.
    const bar = resolveOptions({ responseFix: { denyTools: ["bash|read"] } });
    expect(bar.problems[0]).toContain("a list written as one string is no list of names");
    expect((await libraryRun({ responseFix: { denyTools: ["read"] } })).calls).toEqual(["bash"]);
    expect((await libraryRun({ responseFix: { allowTools: ["ba*"] } })).calls).toEqual(["bash"]);
  });
});

describe("providers: entries that cannot name a provider", () => {
  test("a model reference is dropped, never widened to its provider; the line says what to write", () => {
    const read = resolveOptions({ providers: ["my-vllm", "deepseek/deepseek-chat"] });
    expect(read.options.providers).toEqual(["my-vllm"]);
    expect(read.problems).toHaveLength(1);
    expect(read.problems[0]).toContain('option "providers" entry 2 is a model reference');
    expect(read.problems[0]).toContain('write "deepseek" to act on every model of that provider');
    expect(routeInScope({ providers: read.options.providers }, DEEPSEEK)).toBe(false);
    // A provider part too long to quote (a pasted value) is described, never quoted.
    const long = resolveOptions({ providers: ["sk-0123456789abcdefghij/x"] });
    expect(long.problems[0]).not.toContain("sk-0123456789");
    expect(long.problems[0]).toContain("the part before the first");
  });

  test("a model reference written alone: the plugin is off, with the line, and the start-up line says disabled", () => {
    const read = resolveOptions({ providers: ["deepseek/deepseek-chat"] });
    expect(read.options.providers).toEqual([]);
    expect(line(["deepseek/deepseek-chat"], { provider: {} }, { ...NO_AUTH, DEEPSEEK_API_KEY: "x" })).toContain("disabled (providers is [])");
    // Written as a bare string: read as a list (one line), then dropped (one more).
    expect(resolveOptions({ providers: "deepseek/deepseek-chat" })).toMatchObject({ options: { providers: [] }, problems: [expect.any(String), expect.any(String)] });
  });

  test('a scope token in another case is read as the token, saying so; "all" is kept as written, with a line', () => {
    for (const entry of ["AUTO", "Auto", "aUTO"]) {
      const read = resolveOptions({ providers: [entry] });
      expect({ entry, providers: read.options.providers, problems: read.problems.length }).toEqual({ entry, providers: ["auto"], problems: 1 });
      expect(routeInScope({ providers: read.options.providers }, DEEPSEEK)).toBe(true);
    }
    for (const entry of ["all", "All", "ALL"]) {
      const read = resolveOptions({ providers: [entry] });
      expect({ entry, providers: read.options.providers, problems: read.problems.length }).toEqual({ entry, providers: [entry], problems: 1 });
      expect(read.problems[0]).toContain('write "*" for every provider and every model');
      expect(routeInScope({ providers: read.options.providers }, DEEPSEEK)).toBe(false);
    }
  });

  test("an entry holding a control, blank or invisible character is dropped; the line quotes no raw character", () => {
    for (const entry of ["deep\nseek", "deep seek", "deep\u200bseek", "deepseek\u202e"]) {
      const read = resolveOptions({ providers: ["my-vllm", entry] });
      expect({ entry, providers: read.options.providers, problems: read.problems.length }).toEqual({ entry, providers: ["my-vllm"], problems: 1 });
      expect(read.problems[0]).not.toContain(entry);
      expect(read.problems[0]).not.toContain("\n");
    }
  });

  test("many slips: one line, three described, the rest counted", () => {
    const read = resolveOptions({ providers: Array.from({ length: 50 }, (_, i) => `p${i}/m`) });
    expect(read.options.providers).toEqual([]);
    expect(read.problems).toHaveLength(1);
    expect(read.problems[0]).toContain("and 47 more entries like these");
  });

  test("hard negatives: provider ids and tokens as written are silent and unchanged", () => {
    for (const providers of [["deepseek"], ["auto"], ["*"], [], ["auto", "my-vllm"], ["fireworks-ai", "opencode-go"], ["My_Vllm"], ["DeepSeek"], ["autopilot", "all-models", "allure"], ["azure.openai", "vendor:east"]]) {
      const read = resolveOptions({ providers });
      expect({ providers, read: read.options.providers, problems: read.problems }).toEqual({ providers, read: providers, problems: [] });
    }
  });
});

describe("the start-up line names only what the host can match", () => {
  test("a mis-cased id is not configured, and the line names the id that is", () => {
    expect(line(["DeepSeek"], { provider: {} }, { ...NO_AUTH, DEEPSEEK_API_KEY: "x" })).toContain("wired nothing; not wired: DeepSeek (not configured; provider ids are case-sensitive: deepseek is)");
    expect(line(["MyVllm"], { provider: { myvllm: {} } })).toContain("MyVllm (not configured; provider ids are case-sensitive: myvllm is)");
    expect(routeMode({ providers: ["DeepSeek"] }, DEEPSEEK, false)).toBe("off");
  });

  test("hard negatives: a real id with its key, a configured custom id in any case, auth by exact id", () => {
    expect(line(["deepseek"], { provider: {} }, { ...NO_AUTH, DEEPSEEK_API_KEY: "x" })).toContain("wired deepseek; not wired: none");
    expect(line(["fireworks-ai"], { provider: {} }, { ...NO_AUTH, FIREWORKS_API_KEY: "x" })).toContain("wired fireworks-ai;");
    expect(line(["MyVllm"], { provider: { MyVllm: {} } })).toContain("wired MyVllm;");
    expect(line(["DeepSeek"], { provider: {} })).toContain("not wired: DeepSeek (not configured)");
  });

  test("OpenCode 2: a named id not in lower case is wired only under exactly that id, and says so", async () => {
    const lines: string[] = [];
    const host = new StandInHost();
    const cleanup = await setup(host.context({ providers: ["DeepSeek", "deepseek"] }), (_level, entry) => lines.push(entry), {});
    await cleanup?.();
    const loaded = lines.find((entry) => entry.includes("loaded")) ?? "";
    expect(loaded).toContain("wired DeepSeek (only a provider whose id is exactly that");
    expect(loaded).toContain(", deepseek;");
    expect(lines.filter((entry) => !entry.includes("loaded"))).toEqual([]);
  });
});

describe("a provider's package and ids as the lines print them", () => {
  const GIT = "git+https://user:TOKEN123@git.example.com/org/provider.git";

  test("a package URL's userinfo and query are redacted in the start-up line, named or not", () => {
    const named = line(["my-vllm"], { provider: { "my-vllm": { npm: GIT } } });
    expect(named).not.toContain("TOKEN123");
    expect(named).toContain("my-vllm (fallback: git+https://***@git.example.com/org/provider.git)");
    const auto = line(["auto"], { provider: { other: { npm: "https://registry.example/pkg.tgz?token=TOKEN123" } } });
    expect(auto).not.toContain("TOKEN123");
    expect(auto).toContain("other (fallback: https://registry.example/pkg.tgz?<redacted>)");
  });

  test("the debug route line redacts it too", () => {
    const route = formatRouteLine({ providerID: "my-vllm", modelID: "m", npm: GIT }, "fallback");
    expect(route).not.toContain("TOKEN123");
    expect(route).toContain("package=git+https://???@git.example.com/org/provider.git");
  });

  test("a configured key or an npm value holding a control character is printed escaped, on one line", () => {
    const shown = line(["auto"], { provider: { "evil\n[dsml] loaded v9: wired everything": { npm: "pkg\nx" } } });
    expect(shown).not.toContain("\n");
    expect(shown).toContain('"evil\\u{A}[dsml]\\u{20}loaded');
    expect(shown).toContain('"pkg\\u{A}x"');
  });

  test("hard negatives: npm names (scoped, versioned) and plain ids print as before", () => {
    expect(line(["auto"], { provider: { bedrock: { npm: "@ai-sdk/amazon-bedrock" } } })).toContain("not wired: bedrock (fallback: @ai-sdk/amazon-bedrock)");
    expect(line(["my-vllm"], { provider: { "my-vllm": { npm: "some-pkg@1.2.3" } } })).toContain("my-vllm (fallback: some-pkg@1.2.3)");
    expect(formatRouteLine(DEEPSEEK, "wire")).toBe("[dsml] route deepseek/deepseek-chat package=@ai-sdk/openai-compatible mode=wire");
  });
});
