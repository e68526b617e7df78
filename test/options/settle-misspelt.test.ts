/**
 * The library's options (settleOptions, read by repairFetch and the middleware) apply the plugin's
 * rule to unknown keys (closedBecause in src/options/security-search.ts): a key close to a
 * security option (`denyTool`, `deny_tools`) or to responseFix (`respFix`, `response_fix`), or
 * holding a security option inside, closes recovered calls with one debug line naming the key and
 * why, never its value. A JS caller (or an `as any` object) who misspells a deny list believes the
 * tool is denied: the leak must not run.
 */
import { describe, expect, test } from "bun:test";
import { repairMiddleware } from "../../src/adapters/middleware.ts";
import type { MiddlewareOptions } from "../../src/adapters/middleware.ts";
import type { AdapterOptions } from "../../src/adapters/options.ts";
import { settleOptions } from "../../src/options/settle.ts";
import { block, live } from "../golden/notation.ts";
import { deltas, openAiTools, sseText, textStream, throughFetch, throughMiddleware } from "../security/support.ts";

const LEAK = live(`Cleaning.\n\n${block("tool_calls", [["bash", [["command", "rm -rf build-secret-arg"]]]])}`);
const PROMPT = [{ role: "user" as const, content: [{ type: "text" as const, text: "clean the build" }] }];
const BODY = { model: "deepseek-chat", messages: [{ role: "user", content: "clean the build" }], tools: openAiTools() };

/** The calls repairFetch recovers from LEAK under `options`, and its debug lines. */
async function fetchRun(options: unknown): Promise<{ calls: string[]; lines: string[]; text: string }> {
  const lines: string[] = [];
  const given = { ...(options as object), debug: (line: string) => lines.push(line) } as AdapterOptions;
  const { out } = await throughFetch(BODY, { sse: sseText(deltas(LEAK, 9)) }, given);
  return { calls: out.calls.map((call) => call.name ?? "?"), lines: lines.filter((line) => line.includes("option")), text: out.content };
}

const MISSPELT: [string, unknown, string][] = [
  ["respFix holding denyTools", { respFix: { denyTools: ["bash"] } }, '"respFix"'],
  ["responseFix.denytools", { responseFix: { denytools: ["bash"] } }, '"responseFix.denytools"'],
  ["denyTool at the top level", { denyTool: ["bash"] }, '"denyTool"'],
  ["deny_tools at the top level", { deny_tools: ["bash"] }, '"deny_tools"'],
  ["response_fix", { response_fix: { denyTools: ["bash"] } }, '"response_fix"'],
  ["responsefix holding nothing recognisable", { responsefix: { x: 1 } }, '"responsefix"'],
  ["responseFix.deny_tools", { responseFix: { deny_tools: ["bash"] } }, '"responseFix.deny_tools"'],
  ["responseFix.allowtool", { responseFix: { allowtool: ["read"] } }, '"responseFix.allowtool"'],
  ["a security option under an unrelated key", { settings: { responseFix: { denyTools: ["bash"] } } }, '"settings"'],
  ["a security option under another namespace", { history: { denyTools: ["bash"] } }, '"history.denyTools"'],
];

describe("repairFetch: a misspelt security key fails closed, with one debug line", () => {
  for (const [name, options, key] of MISSPELT) {
    test(name, async () => {
      const run = await fetchRun(options);
      expect({ name, calls: run.calls }).toEqual({ name, calls: [] });
      expect(run.lines).toHaveLength(1);
      expect(run.lines[0]).toContain(`unknown option ${key}`);
      expect(run.lines[0]).toContain("no recovered calls");
      // The key and why, never the value.
      expect(run.lines[0]).not.toContain("bash");
      expect(run.lines[0]).not.toContain("read\"");
      // The refused leak is not lost: it stays visible (or becomes the correction's subject).
      expect(run.text.length).toBeGreaterThan(0);
    });
  }
});

describe("the middleware reads its options the same way", () => {
  test("respFix holding denyTools: no recovered call; correct keys: the call is recovered", async () => {
    const lines: string[] = [];
    const closed = await throughMiddleware(PROMPT, textStream(LEAK), { respFix: { denyTools: ["bash"] }, debug: (line: string) => lines.push(line) } as MiddlewareOptions);
    expect(closed.calls).toHaveLength(0);
    expect(lines.filter((line) => line.includes('unknown option "respFix"'))).toHaveLength(1);
    const open = await throughMiddleware(PROMPT, textStream(LEAK), { sanitizeHistory: (prompt) => prompt });
    expect(open.calls.map((call) => call.toolName)).toEqual(["bash"]);
  });
});

describe("hard negatives: nothing closes", () => {
  test("no options, correct keys, an unrelated unknown key: the leak is recovered, no option line", async () => {
    for (const options of [{}, { responseFix: { denyTools: ["read"] } }, { colour: "red" }, { responseFix: { colour: "red" } }, { parse: { dialects: { hermes: true } } }, { history: { sanitize: false } }]) {
      const run = await fetchRun(options);
      expect({ options, calls: run.calls, lines: run.lines }).toEqual({ options, calls: ["bash"], lines: [] });
    }
  });

  test("a correct denyTools denies only what it names", async () => {
    expect((await fetchRun({ responseFix: { denyTools: ["bash"] } })).calls).toEqual([]);
    expect((await fetchRun({ responseFix: { allowTools: ["bash"] } })).calls).toEqual(["bash"]);
  });

  test("the adapters' own keys beyond the option spec are not unknown, nor the plugin's other options", () => {
    const lines: string[] = [];
    const settled = settleOptions({
      debug: (line: string) => lines.push(line),
      onResult: () => undefined,
      onRepairing: () => undefined,
      sanitizeHistory: (prompt: unknown) => prompt,
      providers: ["deepseek"],
      retry: { nudge: true },
    } as AdapterOptions);
    expect(settled.responseFix).toBeUndefined();
    expect(lines).toEqual([]);
  });
});

describe("keys that cannot be listed may hide a misspelt one", () => {
  test("a Proxy whose keys throw fails closed, with one line", () => {
    const lines: string[] = [];
    const options = new Proxy({ debug: (line: string) => lines.push(line) }, { ownKeys: () => { throw new Error("secret-value"); } });
    const settled = settleOptions(options as AdapterOptions);
    expect(settled.responseFix).toMatchObject({ allowTools: [], denyTools: ["*"] });
    expect(lines).toHaveLength(1);
    expect(lines[0]).not.toContain("secret-value");
  });

  test("repairMiddleware never throws on it", () => {
    expect(() => repairMiddleware(new Proxy({}, { ownKeys: () => { throw new Error("x"); } }) as AdapterOptions)).not.toThrow();
  });
});
