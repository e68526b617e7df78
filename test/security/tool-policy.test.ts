/**
 * Threat 2, never more power than the model had: a recovered call names only a tool the same
 * request offered (declared, and allowed by tool_choice), narrowed further by
 * responseFix.allowTools / denyTools. Native tool calls are never touched.
 */
import { describe, expect, test } from "bun:test";
import type { LanguageModelV3Prompt } from "@ai-sdk/provider";
import { recoverableTools, wildcardMatch } from "../../src/options/engine.ts";
import type { ResponseFixOptions } from "../../src/adapters/options.ts";
import { chatToolChoice, offeredToolNames, sdkToolChoice, type ToolChoice } from "../../src/wires/tool-choice.ts";
import { fixtureTools } from "../golden/tools.ts";
import { block, live } from "../golden/notation.ts";
import { wrapLanguageModel } from "ai";
import { MockLanguageModelV3, convertArrayToReadableStream, convertReadableStreamToArray } from "ai/test";
import { repairFetch } from "../../src/adapters/fetch.ts";
import { repairMiddleware } from "../../src/adapters/middleware.ts";
import { URL_CHAT, assemble, chatInit, chunk, deltas, fakeBase, openAiTools, sdkTools, sseReply, sseText, textStream, throughFetch, throughMiddleware } from "./support.ts";

const BASH = live(block("tool_calls", [["bash", [["command", "rm -rf build"]]]]));
const READ = live(block("tool_calls", [["read", [["filePath", "/p/a.ts"]]]]));
const REPLY = `First:\n${BASH}\nThen:\n${READ}`;
const messages = [{ role: "user", content: "clean and read" }];
const prompt: LanguageModelV3Prompt = [{ role: "user", content: [{ type: "text", text: "clean and read" }] }];

const names = (responseFix: ResponseFixOptions) => recoverableTools({ responseFix }, fixtureTools).map((t) => t.name);

describe("recoverableTools", () => {
  const all = fixtureTools.map((t) => t.name);
  test("default, and \"*\": every declared tool", () => {
    expect(names({})).toEqual(all);
    expect(names({ allowTools: ["*"] })).toEqual(all);
  });

  test("allowTools narrows, denyTools removes, deny wins over allow, and neither adds an undeclared tool", () => {
    expect(names({ allowTools: ["read", "glob", "not_declared"] })).toEqual(["read", "glob"]);
    expect(names({ denyTools: ["bash", "write"] })).toEqual(all.filter((n) => n !== "bash" && n !== "write"));
    expect(names({ allowTools: ["bash", "read"], denyTools: ["bash"] })).toEqual(["read"]);
    expect(names({ allowTools: [] })).toEqual([]);
    expect(names({ denyTools: ["*"] })).toEqual([]);
  });

  test("a name with * or ? is a pattern, as in OpenCode's permission config: * any run, ? any one character; exact names stay exact", () => {
    const mcp = [{ name: "mcp__github__delete_repo" }, { name: "mcp__github__list" }, { name: "mcp__slack__post" }, { name: "bash" }, { name: "bash2" }];
    const kept = (responseFix: ResponseFixOptions) => recoverableTools({ responseFix }, mcp).map((t) => t.name);
    expect(kept({ denyTools: ["mcp__github__*"] })).toEqual(["mcp__slack__post", "bash", "bash2"]);
    expect(kept({ denyTools: ["mcp__*__delete*"] })).toEqual(["mcp__github__list", "mcp__slack__post", "bash", "bash2"]);
    expect(kept({ denyTools: ["bash?"] })).toEqual(["mcp__github__delete_repo", "mcp__github__list", "mcp__slack__post", "bash"]);
    expect(kept({ allowTools: ["mcp__*"], denyTools: ["*__post"] })).toEqual(["mcp__github__delete_repo", "mcp__github__list"]);
    expect(kept({ denyTools: ["bash"] })).toEqual(["mcp__github__delete_repo", "mcp__github__list", "mcp__slack__post", "bash2"]);
    // A pattern matches the whole name, not a part of it.
    expect(kept({ allowTools: ["github*"] })).toEqual([]);
  });

  test("wildcard matching agrees with a regular-expression oracle (seeded)", () => {
    const alphabet = ["a", "b", "_", "*", "?"];
    let seed = 20261206;
    const next = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
    const word = (max: number, chars: string[]) => Array.from({ length: next(max + 1) }, () => chars[next(chars.length)]!).join("");
    for (let i = 0; i < 3000; i++) {
      const pattern = word(6, alphabet);
      const name = word(8, ["a", "b", "_"]);
      const oracle = new RegExp(`^${pattern.replace(/\*/g, ".*").replace(/\?/g, ".")}$`).test(name);
      expect([pattern, name, wildcardMatch(pattern, name)]).toEqual([pattern, name, oracle]);
    }
  });

  test("lists that are not arrays of strings fail closed", () => {
    expect(names({ allowTools: "read" as unknown as string[] })).toEqual([]);
    expect(names({ allowTools: ["read", 1] as unknown as string[] })).toEqual([]);
    expect(names({ denyTools: "bash" as unknown as string[] })).toEqual([]);
    expect(names({ denyTools: [null] as unknown as string[] })).toEqual([]);
  });
});

describe("fetch adapter", () => {
  test("denyTools: the denied tool's markup stays text with an undeclared-tool nudge; the allowed one runs", async () => {
    const { out, results } = await throughFetch({ messages }, { sse: sseText(deltas(REPLY, 7)) }, { responseFix: { denyTools: ["bash"] } });
    expect(out.calls).toEqual([{ name: "read", arguments: '{"filePath":"/p/a.ts"}' }]);
    expect(out.content).toBe(`First:\n${BASH}\nThen:\n`);
    expect(results[0]!.summary.broken.map((b) => [b.reason, b.tool])).toEqual([["undeclared-tool", "bash"]]);
  });

  test("denyTools with a pattern: a leaked call to a tool it matches stays text with an undeclared-tool nudge", async () => {
    const tools = [{ type: "function", function: { name: "mcp__github__delete_repo", parameters: { type: "object", properties: { repo: { type: "string" } }, required: ["repo"] } } }];
    const leak = live(block("tool_calls", [["mcp__github__delete_repo", [["repo", "me/prod"]]]]));
    const denied = await throughFetch({ messages, tools }, { sse: sseText(deltas(leak, 9)) }, { responseFix: { denyTools: ["mcp__github__*"] } });
    expect([denied.out.calls, denied.results[0]!.summary.broken.map((b) => b.reason)]).toEqual([[], ["undeclared-tool"]]);
    const other = await throughFetch({ messages, tools }, { sse: sseText(deltas(leak, 9)) }, { responseFix: { denyTools: ["mcp__slack__*"] } });
    expect(other.out.calls.map((c) => c.name)).toEqual(["mcp__github__delete_repo"]);
  });

  test("allowTools: only the listed tool is recovered", async () => {
    const { out } = await throughFetch({ messages }, { sse: sseText(deltas(REPLY, 7)) }, { responseFix: { allowTools: ["read"] } });
    expect(out.calls.map((c) => c.name)).toEqual(["read"]);
  });

  test("without either option both calls run (so the tests above can fail)", async () => {
    const { out } = await throughFetch({ messages }, { sse: sseText(deltas(REPLY, 7)) });
    expect(out.calls.map((c) => c.name)).toEqual(["bash", "read"]);
  });

  test("a native call to a denied tool passes through untouched", async () => {
    const native = chunk({ tool_calls: [{ index: 0, id: "call_native", type: "function", function: { name: "bash", arguments: '{"command":"ls"}' } }] });
    const { out } = await throughFetch({ messages }, { sse: sseText([], { before: [native] }) }, { responseFix: { denyTools: ["*"] } });
    expect(out.calls).toEqual([{ name: "bash", arguments: '{"command":"ls"}' }]);
  });

  test("a tool the request did not declare is never recovered, whatever allowTools says", async () => {
    const readOnly = openAiTools(fixtureTools.filter((t) => t.name === "read"));
    const { out, results } = await throughFetch({ messages, tools: readOnly }, { sse: sseText(deltas(REPLY, 7)) }, { responseFix: { allowTools: ["bash", "read"] } });
    expect(out.calls.map((c) => c.name)).toEqual(["read"]);
    expect(results[0]!.summary.nudge).toBe("undeclared-tool");
  });

  test('tool_choice "none" recovers nothing; a forced function recovers only that one', async () => {
    const none = await throughFetch({ messages, tool_choice: "none" }, { sse: sseText(deltas(REPLY, 7)) });
    expect(none.out.calls).toEqual([]);
    expect(none.results[0]!.summary.nudge).toBe("undeclared-tool");
    const forced = await throughFetch({ messages, tool_choice: { type: "function", function: { name: "read" } } }, { sse: sseText(deltas(REPLY, 7)) });
    expect(forced.out.calls.map((c) => c.name)).toEqual(["read"]);
  });
});

describe("tool_choice, every chat-completions form (fetch adapter)", () => {
  const fn = (name: string) => ({ type: "function", function: { name } });
  const reply = () => ({ sse: sseText(deltas(REPLY, 7)) });
  const recovered = async (tool_choice: unknown) => {
    const lines: string[] = [];
    const { out } = await throughFetch({ messages, tool_choice }, reply(), { debug: (l) => lines.push(l) });
    return { names: out.calls.map((c) => c.name), lines };
  };

  test("allowed_tools with only read: the leaked bash stays text, in both modes", async () => {
    for (const mode of ["auto", "required"]) {
      expect((await recovered({ type: "allowed_tools", allowed_tools: { mode, tools: [fn("read")] } })).names).toEqual(["read"]);
    }
    expect((await recovered({ type: "allowed_tools", allowed_tools: { mode: "auto", tools: [] } })).names).toEqual([]);
    expect((await recovered({ type: "allowed_tools", allowed_tools: { mode: "auto", tools: [fn("read"), fn("bash")] } })).names).toEqual(["bash", "read"]);
  });

  test('"auto", "required", absent and null offer every declared tool', async () => {
    for (const choice of ["auto", "required", undefined, null]) expect((await recovered(choice)).names).toEqual(["bash", "read"]);
  });

  test("a forced or allowed custom tool offers no function tool", async () => {
    expect((await recovered({ type: "custom", custom: { name: "bash" } })).names).toEqual([]);
    const custom = { type: "allowed_tools", allowed_tools: { mode: "auto", tools: [{ type: "custom", custom: { name: "bash" } }, fn("read")] } };
    expect((await recovered(custom)).names).toEqual(["read"]);
  });

  test("a form not understood fails closed: no call, one debug line that names no value", async () => {
    const forms: unknown[] = [
      "any",
      42,
      [],
      { type: "function" },
      { type: "function", function: { name: "" } },
      { type: "tool", name: "bash" },
      { type: "allowed_tools" },
      { type: "allowed_tools", allowed_tools: { mode: "sometimes", tools: [fn("bash")] } },
      { type: "allowed_tools", allowed_tools: { mode: "auto", tools: [fn("bash"), { type: "mcp", server: "x" }] } },
      { type: "allowed_tools", allowed_tools: { mode: "auto", tools: fn("bash") } },
    ];
    for (const form of forms) {
      const { names, lines } = await recovered(form);
      expect(names).toEqual([]);
      expect(lines.filter((l) => l.includes("no call is recovered"))).toHaveLength(1);
      expect(lines.join()).not.toContain("bash");
    }
  });
});

describe("the deprecated chat function_call beside tools (fetch adapter)", () => {
  // A client may still send the old `function_call` with `tools`; a server that honours it forbids
  // or forces a tool, so a leak must not run a call that request did not allow.
  const recovered = async (extra: Record<string, unknown>) => {
    const lines: string[] = [];
    const { out } = await throughFetch({ messages, ...extra }, { sse: sseText(deltas(REPLY, 7)) }, { debug: (l) => lines.push(l) });
    return { names: out.calls.map((c) => c.name), lines };
  };

  test('function_call "none" recovers nothing; a named one only that tool; "auto" every declared tool', async () => {
    expect((await recovered({ function_call: "none" })).names).toEqual([]);
    expect((await recovered({ function_call: { name: "read" } })).names).toEqual(["read"]);
    expect((await recovered({ function_call: { name: "write" } })).names).toEqual([]);
    expect((await recovered({ function_call: "auto" })).names).toEqual(["bash", "read"]);
    expect((await recovered({ function_call: null })).names).toEqual(["bash", "read"]);
  });

  test("beside tool_choice: the same choice stands; choices that disagree, or a form not understood, recover nothing", async () => {
    expect((await recovered({ tool_choice: "auto", function_call: "auto" })).names).toEqual(["bash", "read"]);
    expect((await recovered({ tool_choice: { type: "function", function: { name: "read" } }, function_call: { name: "read" } })).names).toEqual(["read"]);
    expect((await recovered({ tool_choice: "auto", function_call: "none" })).names).toEqual([]);
    expect((await recovered({ tool_choice: "none", function_call: "auto" })).names).toEqual([]);
    expect((await recovered({ tool_choice: { type: "function", function: { name: "read" } }, function_call: { name: "bash" } })).names).toEqual([]);
    for (const form of ["required", 1, [], { name: "" }, {}]) {
      const { names, lines } = await recovered({ function_call: form });
      expect(names).toEqual([]);
      expect(lines.filter((l) => l.includes("no call is recovered"))).toHaveLength(1);
    }
  });
});

describe("middleware", () => {
  test("denyTools and allowTools narrow recovered calls", async () => {
    expect((await throughMiddleware(prompt, textStream(REPLY), { responseFix: { denyTools: ["bash"] } })).calls.map((c) => c.toolName)).toEqual(["read"]);
    expect((await throughMiddleware(prompt, textStream(REPLY), { responseFix: { allowTools: ["bash"] } })).calls.map((c) => c.toolName)).toEqual(["bash"]);
    expect((await throughMiddleware(prompt, textStream(REPLY))).calls.map((c) => c.toolName)).toEqual(["bash", "read"]);
  });

  test("a denied tool's markup stays visible and is nudged as undeclared-tool", async () => {
    const run = await throughMiddleware(prompt, textStream(REPLY), { responseFix: { denyTools: ["bash", "read"] } });
    expect(run.calls).toEqual([]);
    expect(run.text).toBe(REPLY);
    expect(run.results[0]!.summary.nudge).toBe("undeclared-tool");
  });

  test("a native call to a denied tool passes through untouched", async () => {
    const native = { type: "tool-call" as const, toolCallId: "call_n", toolName: "bash", input: '{"command":"ls"}' };
    const run = await throughMiddleware(prompt, textStream("ok", 7, [native]), { responseFix: { denyTools: ["*"] } });
    expect(run.calls).toEqual([{ toolName: "bash", input: '{"command":"ls"}' }]);
  });

  test('toolChoice "none" recovers nothing; a forced tool recovers only that one', async () => {
    const none = await throughMiddleware(prompt, textStream(REPLY), {}, { toolChoice: { type: "none" } });
    expect(none.calls).toEqual([]);
    expect(none.results[0]!.summary.nudge).toBe("undeclared-tool");
    const forced = await throughMiddleware(prompt, textStream(REPLY), {}, { toolChoice: { type: "tool", toolName: "read" } });
    expect(forced.calls.map((c) => c.toolName)).toEqual(["read"]);
  });
});

describe("toolChoice, every AI SDK form (middleware)", () => {
  const recovered = async (toolChoice: unknown) => {
    const lines: string[] = [];
    const run = await throughMiddleware(prompt, textStream(REPLY), { debug: (l) => lines.push(l) }, { toolChoice } as object);
    return { names: run.calls.map((c) => c.toolName), lines };
  };

  test('"auto", "required" and absent offer every declared tool', async () => {
    for (const choice of [{ type: "auto" }, { type: "required" }, undefined]) expect((await recovered(choice)).names).toEqual(["bash", "read"]);
  });

  test("a form not understood fails closed with one debug line", async () => {
    for (const form of [{ type: "tool" }, { type: "tool", toolName: "" }, { type: "any" }, "auto", null]) {
      const { names, lines } = await recovered(form);
      expect(names).toEqual([]);
      expect(lines.filter((l) => l.includes("no call is recovered"))).toHaveLength(1);
    }
  });
});

describe("offeredToolNames: one rule for every wire format", () => {
  const declared = ["bash", "read", "glob"];
  const names = (choice: ToolChoice) => [...offeredToolNames(declared, choice)].sort();
  test.each<[string, ToolChoice, string[]]>([
    ["auto", { type: "auto" }, ["bash", "glob", "read"]],
    ["required", { type: "required" }, ["bash", "glob", "read"]],
    ["none", { type: "none" }, []],
    ["a declared tool", { type: "tool", name: "read" }, ["read"]],
    ["an undeclared tool", { type: "tool", name: "write" }, []],
    ["allowed, auto", { type: "allowed", names: ["read", "write"], mode: "auto" }, ["read"]],
    ["allowed, required", { type: "allowed", names: ["glob", "read"], mode: "required" }, ["glob", "read"]],
    ["invalid", { type: "invalid", why: "x" }, []],
  ])("%s", (_, choice, expected) => {
    expect(names(choice)).toEqual(expected);
  });

  test("the wire readers translate into it", () => {
    expect(chatToolChoice({ type: "allowed_tools", allowed_tools: { mode: "required", tools: [{ type: "function", function: { name: "read" } }] } })).toEqual({
      type: "allowed",
      names: ["read"],
      mode: "required",
    });
    expect(chatToolChoice({ type: "function", function: { name: "read" } })).toEqual({ type: "tool", name: "read" });
    expect(sdkToolChoice({ type: "tool", toolName: "read" })).toEqual({ type: "tool", name: "read" });
    expect(sdkToolChoice(undefined)).toEqual({ type: "auto" });
    // A proxy or a throwing getter is not a form: it reads as invalid, never as "auto", and never throws.
    expect(chatToolChoice(new Proxy({}, { get: () => "allowed_tools" })).type).toBe("invalid");
    const throwing = Object.defineProperty({}, "type", { get: () => { throw new Error("no"); }, enumerable: true });
    expect(sdkToolChoice(throwing).type).toBe("invalid");
    expect(chatToolChoice(throwing).type).toBe("invalid");
  });
});

describe("adapter options are read key by key (a throwing getter, a Proxy)", () => {
  const throwing = <T extends object>(target: T, key: string): T =>
    Object.defineProperty(target, key, {
      enumerable: true,
      get() {
        throw new Error("hostile getter");
      },
    });
  const reply = () => ({ sse: sseText(deltas(REPLY, 7)) });

  test("fetch: an unreadable bufferLimit costs only itself; the deny list still holds and read still runs", async () => {
    const lines: string[] = [];
    const responseFix = throwing({ denyTools: ["bash"] }, "bufferLimit") as ResponseFixOptions;
    const { out } = await throughFetch({ messages }, reply(), { responseFix, debug: (l) => lines.push(l) });
    expect(out.calls.map((c) => c.name)).toEqual(["read"]);
    expect(lines.filter((l) => l.includes("could not be read"))).toEqual(["[dsml-fix] option responseFix.bufferLimit could not be read; using its default"]);
  });

  test("fetch: an unreadable denyTools denies every tool, an unreadable allowTools allows none, with one line naming it", async () => {
    for (const key of ["denyTools", "allowTools"]) {
      const lines: string[] = [];
      const responseFix = throwing({ echoGuard: true }, key) as ResponseFixOptions;
      const { out, results } = await throughFetch({ messages }, reply(), { responseFix, debug: (l) => lines.push(l) });
      expect(out.calls).toEqual([]);
      expect(results[0]!.summary.nudge).toBe("undeclared-tool");
      expect(lines.filter((l) => l.includes(`responseFix.${key} could not be read`))).toHaveLength(1);
    }
  });

  test("fetch: a Proxy tool list whose element throws fails closed; an unreadable responseFix closes both lists", async () => {
    const list = new Proxy(["read"], { get: (t, k) => (k === "0" ? (() => { throw new Error("trap"); })() : Reflect.get(t, k)) });
    const proxied = await throughFetch({ messages }, reply(), { responseFix: { allowTools: list } });
    expect(proxied.out.calls).toEqual([]);
    // Straight to repairFetch: the test helper's own spread would trip the getter first.
    const lines: string[] = [];
    const repaired = repairFetch(throwing({ debug: (l: string) => lines.push(l) }, "responseFix"), fakeBase(sseReply(reply().sse)));
    const whole = assemble(await (await repaired(URL_CHAT, chatInit({ messages, stream: true }))).text());
    expect(whole.calls).toEqual([]);
    expect(lines.filter((l) => l.includes("could not be read"))).toHaveLength(1);
  });

  test("middleware: the same rule, and an unreadable history option leaves the sanitizer on instead of throwing", async () => {
    const responseFix = throwing({ denyTools: ["bash"] }, "bufferLimit") as ResponseFixOptions;
    expect((await throughMiddleware(prompt, textStream(REPLY), { responseFix })).calls.map((c) => c.toolName)).toEqual(["read"]);
    const closed = await throughMiddleware(prompt, textStream(REPLY), { responseFix: throwing({}, "denyTools") as ResponseFixOptions });
    expect(closed.calls).toEqual([]);
    const lines: string[] = [];
    const middleware = repairMiddleware(throwing({ debug: (l: string) => lines.push(l) }, "history"));
    const mock = new MockLanguageModelV3({ doStream: async () => ({ stream: convertArrayToReadableStream(textStream(REPLY)) }) });
    const { stream } = await wrapLanguageModel({ model: mock, middleware }).doStream({ prompt, tools: sdkTools() });
    const parts = await convertReadableStreamToArray(stream);
    expect(parts.flatMap((p) => (p.type === "tool-call" ? [p.toolName] : []))).toEqual(["bash", "read"]);
    expect(lines).toContain("[dsml-fix] option history.sanitize could not be read; using true");
  });
});
