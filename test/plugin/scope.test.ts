import { describe, expect, test } from "bun:test";
import { DIALECTS } from "../../src/grammar/dialects.ts";
import { resolveOptions } from "../../src/plugin/options.ts";
import { formatRouteLine, isLeakProne, routeInScope, routeMode, type Route, type RouteMode } from "../../src/plugin/scope.ts";

const scope = (providers?: unknown) => resolveOptions(providers === undefined ? {} : { providers }).options;
const route = (providerID: string, modelID: string, npm = "@ai-sdk/openai-compatible", extra: Partial<Route> = {}): Route => ({ providerID, modelID, npm, ...extra });

describe("leak-prone families, by model id", () => {
  test.each([
    "deepseek-chat",
    "accounts/fireworks/models/deepseek-v3p2",
    "deepseek-ai/DeepSeek-V3.2",
    "qwen/qwen3-coder",
    "Qwen/Qwen2.5-72B-Instruct",
    "qwq-32b",
    "zai-org/glm-4.7-maas",
    "THUDM/GLM-4.5",
    "moonshotai/kimi-k2-thinking-maas",
    "kimi-k3",
    "MiniMaxAI/MiniMax-M2",
    "mistral-large-latest",
    "devstral-small-2507",
    "codestral-latest",
    "NousResearch/Hermes-4-70B",
    "liquid/lfm-2-24b",
  ])("%s", (modelID) => {
    expect(isLeakProne({ modelID })).toBe(true);
  });

  test.each(["gpt-5.4", "claude-sonnet-4.6", "gemini-3.5-flash", "llama-3.3-70b", "grok-4.5", "fake-model"])("%s is not", (modelID) => {
    expect(isLeakProne({ modelID })).toBe(false);
  });

  test("every model family a dialect is written for is leak-prone (Claude-style XML is a format, not a family)", () => {
    const families = Object.entries(DIALECTS).filter(([id]) => id !== "claudeXml");
    expect(families.length).toBeGreaterThan(5);
    for (const [id, dialect] of families) expect({ id, leakProne: isLeakProne({ modelID: dialect.models }) }).toEqual({ id, leakProne: true });
  });

  test("the upstream id or the catalog family count when OpenCode's own id says nothing", () => {
    expect(isLeakProne({ modelID: "my-alias", apiID: "deepseek-ai/DeepSeek-V3.2" })).toBe(true);
    expect(isLeakProne({ modelID: "big-model", family: "kimi-k2" })).toBe(true);
    expect(isLeakProne({ modelID: "big-model", family: "" })).toBe(false);
  });
});

describe("scope decisions", () => {
  test("default (auto): leak-prone models on every provider, nothing else", () => {
    const options = scope();
    expect(options.providers).toEqual(["auto"]);
    expect(routeInScope(options, route("fireworks-ai", "accounts/fireworks/models/deepseek-v3p2"))).toBe(true);
    expect(routeInScope(options, route("my-vllm", "Qwen/Qwen3-Coder-480B"))).toBe(true);
    expect(routeInScope(options, route("deepseek", "deepseek-flash"))).toBe(true);
    expect(routeInScope(options, route("opencode", "gpt-5.4"))).toBe(false);
    expect(routeInScope(options, route("fake", "fake-model"))).toBe(false);
  });

  test("an explicit list: exactly those providers, every model", () => {
    const options = scope(["fake", "deepseek"]);
    expect(routeInScope(options, route("fake", "fake-model"))).toBe(true);
    expect(routeInScope(options, route("deepseek", "anything"))).toBe(true);
    expect(routeInScope(options, route("fireworks-ai", "deepseek-v3p2"))).toBe(false);
    expect(routeInScope(options, route("Fake", "fake-model"))).toBe(false);
  });

  test('"auto" plus ids: leak-prone models everywhere and every model of the named providers', () => {
    const options = scope(["auto", "my-vllm"]);
    expect(routeInScope(options, route("my-vllm", "llama-3.3-70b"))).toBe(true);
    expect(routeInScope(options, route("groq", "qwen/qwen3-32b"))).toBe(true);
    expect(routeInScope(options, route("groq", "llama-3.3-70b"))).toBe(false);
  });

  test('"*": every provider and every model, including ones configured only by a key or a login', () => {
    const options = scope(["*"]);
    expect(routeInScope(options, route("anthropic", "claude-sonnet-4.6"))).toBe(true);
    expect(routeInScope(options, route("anything", "gpt-5.4"))).toBe(true);
  });

  test("[] disables everything", () => {
    const options = scope([]);
    expect(routeInScope(options, route("deepseek", "deepseek-chat"))).toBe(false);
    expect(routeMode(options, route("deepseek", "deepseek-chat"), false)).toBe("off");
  });
});

describe("route mode", () => {
  const options = scope();
  test.each([
    ["@ai-sdk/openai-compatible", "wire"],
    ["@ai-sdk/anthropic", "wire"],
    ["@ai-sdk/openai", "wire"],
    ["@ai-sdk/azure", "wire"],
    ["@ai-sdk/github-copilot", "wire"],
    ["@openrouter/ai-sdk-provider", "wire"],
    ["@ai-sdk/amazon-bedrock", "fallback"],
    ["@ai-sdk/amazon-bedrock/mantle", "fallback"],
    ["@ai-sdk/gateway", "fallback"],
    ["@ai-sdk/google-vertex", "fallback"],
    ["@ai-sdk/google-vertex/anthropic", "fallback"],
    ["@ai-sdk/mistral", "fallback"],
    ["some-unknown-provider", "fallback"],
  ] as [string, RouteMode][])("%s: %s", (npm, mode) => {
    expect(routeMode(options, route("p", "deepseek-v3.2", npm), false)).toBe(mode);
  });

  test("the native runtime takes openai, anthropic and opencode* routes on its packages; every other route keeps its wire", () => {
    expect(routeMode(options, route("opencode-go", "deepseek-v4"), true)).toBe("fallback");
    expect(routeMode(options, route("opencode", "qwen3.6-plus", "@ai-sdk/anthropic"), true)).toBe("fallback");
    expect(routeMode(options, route("anthropic", "x", "@ai-sdk/anthropic"), true)).toBe("off");
    expect(routeMode(scope(["*"]), route("anthropic", "claude-sonnet-4.6", "@ai-sdk/anthropic"), true)).toBe("fallback");
    expect(routeMode(options, route("fireworks-ai", "deepseek-v3p2"), true)).toBe("wire");
    expect(routeMode(options, route("openrouter", "deepseek/deepseek-v3.2", "@openrouter/ai-sdk-provider"), true)).toBe("wire");
    expect(routeMode(options, route("opencode-go", "deepseek-v4"), false)).toBe("wire");
  });

  test("a route line never carries what could break the log line", () => {
    expect(formatRouteLine(route("fireworks-ai", "accounts/fireworks/models/deepseek-v3p2"), "wire")).toBe(
      "[dsml] route fireworks-ai/accounts/fireworks/models/deepseek-v3p2 package=@ai-sdk/openai-compatible mode=wire",
    );
    expect(formatRouteLine({ providerID: "p\nx", modelID: "m [dsml] fake" }, "off")).toBe("[dsml] route p?x/m??dsml??fake package=? mode=off");
  });
});
