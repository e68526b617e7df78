// Review 46 (hostile, tests only): the AI SDK middleware's options, read as the plugin reads them.
// A flag given a value that is no boolean must get one clear message and the flag's default (the
// plugin's checker, src/options/check.ts: "flag: typeof value === 'boolean'"). Each failing test
// says what is wrong, its severity and the suspected source file.
import { describe, expect, test } from "bun:test";
import type { LanguageModelV3CallOptions, LanguageModelV3FunctionTool, LanguageModelV3StreamPart, LanguageModelV3Usage } from "@ai-sdk/provider";
import { wrapLanguageModel } from "ai";
import { MockLanguageModelV3, convertArrayToReadableStream, convertReadableStreamToArray } from "ai/test";
import { repairMiddleware, type MiddlewareOptions } from "../../src/adapters/middleware.ts";
import { checkOption } from "../../src/options/check.ts";
import { OPTIONS } from "../../src/options/spec.ts";

type Part = LanguageModelV3StreamPart;

const usage: LanguageModelV3Usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };
const bash: LanguageModelV3FunctionTool = { type: "function", name: "bash", inputSchema: { type: "object", properties: { command: { type: "string" } }, required: ["command"] } };
/** A JSON reply the user asked for that is exactly a call-shaped object (J01's documented false positive). */
const JSON_REPLY = 'Here is the request body you asked for:\n\n{"name":"bash","arguments":{"command":"rm -rf build"}}\n\nSend it to the API.';
const COSTUME = "<shell>\nrm -rf build\n</shell>";

async function run(text: string, options: Record<string, unknown>): Promise<{ calls: string[]; debug: string[] }> {
  const debug: string[] = [];
  const mock = new MockLanguageModelV3({
    doStream: async () => ({
      stream: convertArrayToReadableStream<Part>([
        { type: "text-start", id: "t" },
        { type: "text-delta", id: "t", delta: text },
        { type: "text-end", id: "t" },
        { type: "finish", usage, finishReason: { unified: "stop", raw: "stop" } },
      ]),
    }),
  });
  const middleware = repairMiddleware({ ...options, debug: (line: string) => debug.push(line) } as MiddlewareOptions);
  const params = { prompt: [{ role: "user", content: [{ type: "text", text: "Write me the JSON request body for that." }] }], tools: [bash] } as LanguageModelV3CallOptions;
  const out = await convertReadableStreamToArray((await wrapLanguageModel({ model: mock, middleware }).doStream(params)).stream);
  return { calls: out.flatMap((p) => (p.type === "tool-call" ? [p.toolName] : [])), debug };
}

describe("an option value of the wrong type", () => {
  // FINDING (wrong execution, high). parse.standaloneJson is off by default because a JSON reply
  // the user asked for looks exactly like a call (docs/PATTERNS.md J01). A caller that writes it
  // as the string "false" (an environment variable, a YAML/JSON config read as text) gets it ON:
  // the options are copied as given (src/options/settle.ts plainCopy) and the engine tests the
  // flag for truthiness (src/engine/text-mode.ts `this.standalone = options.standaloneJson`), so
  // `bash rm -rf build` runs from a JSON example, with no debug line at all. The plugin's reading
  // rejects the value with a message and keeps the default (off). Expected: no call, one debug
  // line naming parse.standaloneJson.
  // Suspected: src/options/settle.ts (no type check of flag values), src/parse/types.ts resolveParseOptions.
  test('parse.standaloneJson: "false" keeps the risky J01 shape off, with one line naming it', async () => {
    const { calls, debug } = await run(JSON_REPLY, { parse: { standaloneJson: "false" } });
    expect(calls).toEqual([]);
    expect(debug.filter((line) => line.includes("parse.standaloneJson"))).toHaveLength(1);
  });

  // FINDING (silent bad config, medium). responseFix.enabled "false" leaves the repair on with no
  // message: the caller believes no call is recovered, and `bash rm -rf build` runs from a costume.
  // The plugin's checker rejects the value (one message, then the default). Expected here: one
  // debug line naming responseFix.enabled (the default, repair on, may stand, as in the plugin).
  // Suspected: src/options/settle.ts (settleResponseFix copies any value).
  test('responseFix.enabled: "false" gets one line naming it', async () => {
    const { debug } = await run(COSTUME, { responseFix: { enabled: "false" } });
    expect(debug.filter((line) => line.includes("responseFix.enabled"))).toHaveLength(1);
  });

  // FINDING (silent bad config, medium). The same for parse.codeCostumes "false": the costume
  // runs, no message.
  // Suspected: src/options/settle.ts (plainCopy).
  test('parse.codeCostumes: "false" gets one line naming it', async () => {
    const { debug } = await run(COSTUME, { parse: { codeCostumes: "false" } });
    expect(debug.filter((line) => line.includes("parse.codeCostumes"))).toHaveLength(1);
  });

  // FINDING (silent bad config, low). history.sanitize "no": the sanitizer stays on (the default,
  // safe) but nothing says the value was ignored (settle.ts reads only a boolean and drops any
  // other value without a line). Expected: one debug line naming history.sanitize.
  // Suspected: src/options/settle.ts (settleOptions, history).
  test('history.sanitize: "no" gets one line naming it', async () => {
    const { debug } = await run(COSTUME, { history: { sanitize: "no" } });
    expect(debug.filter((line) => line.includes("history.sanitize"))).toHaveLength(1);
  });

  // FINDING (silent bad config, low-medium). A security list written as a string
  // (`allowTools: "bash"`, `denyTools: "bash"`) or null fails closed, rightly (no recovered
  // call), but with no line at all: every leak now stays text and nothing tells the caller why.
  // A throwing getter on the same key gets one line naming it (test/security/tool-policy.test.ts);
  // a mistyped value should too, as the plugin's checker gives one. Expected: no call, and one
  // debug line naming the option. The same for responseFix.bufferLimit "x" (default used, no line).
  // Suspected: src/options/settle.ts (settleResponseFix), src/options/engine.ts (recoverableTools).
  for (const [path, responseFix] of [
    ["responseFix.allowTools", { allowTools: "bash" }],
    ["responseFix.denyTools", { denyTools: "bash" }],
    ["responseFix.allowTools", { allowTools: null }],
    ["responseFix.bufferLimit", { bufferLimit: "x" }],
  ] as const) {
    test(`${path}: ${JSON.stringify(Object.values(responseFix)[0])} gets one line naming it`, async () => {
      const { calls, debug } = await run(COSTUME, { responseFix });
      if (path !== "responseFix.bufferLimit") expect(calls).toEqual([]);
      expect(debug.filter((line) => line.includes(path))).toHaveLength(1);
    });
  }

  // Hard negatives (pass today): the plugin's checker refuses the string, the booleans work, and
  // the JSON reply is no call by default, so the first test can fail for the right reason only.
  test("control: the plugin refuses the string; false and the default give no call; true gives the call", async () => {
    expect(checkOption(OPTIONS.fields.parse.fields.standaloneJson, "false").ok).toBe(false);
    expect((await run(JSON_REPLY, {})).calls).toEqual([]);
    expect((await run(JSON_REPLY, { parse: { standaloneJson: false } })).calls).toEqual([]);
    expect((await run(JSON_REPLY, { parse: { standaloneJson: true } })).calls).toEqual(["bash"]);
    expect((await run(COSTUME, { responseFix: { enabled: false } })).calls).toEqual([]);
  });
});
