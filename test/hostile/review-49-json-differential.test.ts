// Review 49 (hostile, tests only): the JSON answer against the same reply streamed, on every wire
// and in the middleware, read by the AI SDK's own providers (@ai-sdk/openai-compatible,
// @ai-sdk/anthropic, @ai-sdk/openai `.responses()`) or through wrapLanguageModel's doGenerate and
// doStream. No finding here: every test is a hard negative that passes today, kept because the
// JSON paths had few reviews and nothing else compares them with the streams on random replies
// (prose, calls in four dialects, fences, inline code, quotes, list items, fabricated results,
// open and stray tags, split across blocks, parts and items at random places, with ended, cut and
// length-stopped replies). A native call after a leak is left out: the stream cannot withdraw a
// call it already sent ("parallel on keeps today's timing", docs/TEST-MATRIX.md), so there the two
// paths differ by design; so is a refused Anthropic reply with a thinking block after its last
// text (review-49-json-findings.test.ts). Seeded, bounded fast-check. No DSML marker bytes here.
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import type { LanguageModelV3CallOptions, LanguageModelV3Content, LanguageModelV3StreamPart, LanguageModelV3Usage } from "@ai-sdk/provider";
import { wrapLanguageModel } from "ai";
import { MockLanguageModelV3, convertArrayToReadableStream, convertReadableStreamToArray } from "ai/test";
import { repairMiddleware } from "../../src/adapters/middleware.ts";
import { block, live } from "../golden/notation.ts";
import { chatClient, chatGenerate, chatSse, completion, contentChunks } from "./review-47-chat-support.ts";
import { client, generate, messageEnd, messageStart, namedSse, responseObject, responsesEvents, textBlock, thinkingBlock } from "./review-48-wires-support.ts";

const HERMES = '<tool_call>{"name":"read","arguments":{"path":"a.ts"}}</tool_call>';
const DSML = live(block("tool_calls", [["read", [["path", "a.ts"]]]]));
const FRAGMENTS = [
  "Reading. ", HERMES, HERMES.replace("a.ts", "b.ts"), DSML, "```\n", "\n```\n", "`", "> ", "\n", "\n\n",
  "<tool_result>ok</tool_result>", "The file says hi.", "<tool_call>", "</tool_call>", '{"name":"read","arguments":{"path":"c.ts"}}',
  '<invoke name="read"><parameter name="path">d.ts</parameter></invoke>', '[TOOL_CALLS]read{"path":"e.ts"}', "- ", "    ", '[read(path="f.ts")]',
];
const fragments = (max: number) => fc.array(fc.integer({ min: 0, max: FRAGMENTS.length - 1 }), { minLength: 1, maxLength: max }).map((picked) => picked.map((i) => FRAGMENTS[i]).join(""));
const RUNS = { numRuns: 120 };

/** `text` cut at `cuts` (taken modulo its length), empty pieces left out. */
function pieces(text: string, cuts: number[]): string[] {
  const at = [...new Set(cuts.map((cut) => cut % (text.length + 1)))].sort((a, b) => a - b);
  const out: string[] = [];
  let from = 0;
  for (const cut of at) {
    out.push(text.slice(from, cut));
    from = cut;
  }
  out.push(text.slice(from));
  return out.filter((piece) => piece !== "");
}
const deltas = (text: string) => text.match(/[\s\S]{1,5}/g) ?? [];
const same = (v: { calls: unknown; text: string; reasoning?: string }) => ({ calls: v.calls, text: v.text, reasoning: v.reasoning ?? "" });

describe("chat-completions: the JSON answer reads as the stream", () => {
  test("random replies, stop, length and content_filter", async () => {
    await fc.assert(
      fc.asyncProperty(fragments(6), fc.constantFrom("stop", "length", "content_filter"), async (text, finish) => {
        const fromJson = await chatGenerate("compatible", completion({ content: text }, finish));
        const fromStream = await chatClient("compatible", chatSse(contentChunks(text, 5, finish)));
        expect(same(fromJson)).toEqual(same(fromStream));
        expect((fromJson.finishReason as { raw: string }).raw).toBe((fromStream.finish?.finishReason as { raw: string }).raw);
      }),
      { seed: 4901, ...RUNS },
    );
  });

  test("a DeepSeek reply whose reasoning ends in a block, with and without content", async () => {
    await fc.assert(
      fc.asyncProperty(fragments(3), fc.constantFrom("", "Done."), async (reasoning, content) => {
        const message = { content: content === "" ? null : content, reasoning_content: `${reasoning}\n\n${DSML}` };
        const fromJson = await chatGenerate("compatible", completion(message));
        const chunks = [
          { id: "chatcmpl-1", object: "chat.completion.chunk", created: 1, model: "m", choices: [{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null }] },
          ...deltas(message.reasoning_content).map((r) => ({ id: "chatcmpl-1", object: "chat.completion.chunk", created: 1, model: "m", choices: [{ index: 0, delta: { reasoning_content: r }, finish_reason: null }] })),
          ...contentChunks(content, 5).slice(1),
        ];
        const fromStream = await chatClient("compatible", chatSse(chunks));
        expect(same(fromJson)).toEqual(same(fromStream));
      }),
      { seed: 4902, numRuns: 60 },
    );
  });
});

describe("Anthropic Messages: the JSON answer reads as the stream", () => {
  test("random text split over text blocks, end_turn, max_tokens and refusal", async () => {
    await fc.assert(
      fc.asyncProperty(fragments(6), fc.array(fc.nat(), { maxLength: 2 }), fc.constantFrom("end_turn", "max_tokens", "refusal", "pause_turn"), async (text, cuts, stop) => {
        const blocks = pieces(text, cuts);
        const json = { id: "msg_1", type: "message", role: "assistant", model: "m", content: blocks.map((t) => ({ type: "text", text: t })), stop_reason: stop, stop_sequence: null, usage: { input_tokens: 1, output_tokens: 9 } };
        const sse = namedSse([messageStart(), ...blocks.flatMap((t, i) => textBlock(i, deltas(t))), ...messageEnd(stop)]);
        const fromJson = await generate("anthropic", json);
        const fromStream = await client("anthropic", sse);
        expect([same(fromJson), fromJson.finish]).toEqual([same(fromStream), fromStream.finish]);
      }),
      { seed: 4903, ...RUNS },
    );
  });

  test("thinking blocks between text blocks, replies that end", async () => {
    const part = fc.oneof(fragments(3).map((t) => ["text", t] as const), fc.constant(["thinking", "hmm"] as const));
    await fc.assert(
      fc.asyncProperty(fc.array(part, { minLength: 1, maxLength: 5 }), fc.constantFrom("end_turn", "max_tokens"), async (blocks, stop) => {
        const content = blocks.map(([kind, t]) => (kind === "text" ? { type: "text", text: t } : { type: "thinking", thinking: t, signature: "sig" }));
        const json = { id: "msg_1", type: "message", role: "assistant", model: "m", content, stop_reason: stop, stop_sequence: null, usage: { input_tokens: 1, output_tokens: 9 } };
        const sse = namedSse([messageStart(), ...blocks.flatMap(([kind, t], i) => (kind === "text" ? textBlock(i, deltas(t)) : thinkingBlock(i, [t]))), ...messageEnd(stop)]);
        const fromJson = await generate("anthropic", json);
        const fromStream = await client("anthropic", sse);
        expect([same(fromJson), fromJson.finish]).toEqual([same(fromStream), fromStream.finish]);
      }),
      { seed: 4904, ...RUNS },
    );
  });
});

describe("Responses: the JSON answer reads as the stream", () => {
  const outputText = fragments(3).map((text) => ({ type: "output_text", text, annotations: [] }));
  const item = fc.oneof(
    fc.array(fc.oneof(outputText, fc.constant({ type: "refusal", refusal: "no" })), { minLength: 1, maxLength: 3 }).map((content) => ({ kind: "message" as const, content })),
    fc.constant({ kind: "reasoning" as const, content: [] }),
  );
  test("message items with several parts, refusal parts and reasoning items; completed, incomplete and failed", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(item, { minLength: 1, maxLength: 4 }), fc.constantFrom("completed", "length", "filtered", "failed"), async (items, end) => {
        const output = items.map((it, i) =>
          it.kind === "message"
            ? { id: `msg_${i}`, type: "message", status: "completed", role: "assistant", content: it.content }
            : { id: `rs_${i}`, type: "reasoning", summary: [{ type: "summary_text", text: "thinking" }] },
        );
        const status = end === "length" || end === "filtered" ? "incomplete" : end;
        const extra = end === "length" ? { incomplete_details: { reason: "max_output_tokens" } } : end === "filtered" ? { incomplete_details: { reason: "content_filter" } } : {};
        const last = { type: `response.${status}`, response: responseObject(status, output, extra) };
        const fromJson = await generate("responses", responseObject(status, output, extra));
        const fromStream = await client("responses", namedSse(responsesEvents(output, 5, last)));
        // A failed reply: @ai-sdk/openai itself reports `response.failed` as "error" and the failed JSON otherwise.
        expect([same(fromJson), status === "failed" ? "" : fromJson.finish]).toEqual([same(fromStream), status === "failed" ? "" : fromStream.finish]);
      }),
      { seed: 4905, ...RUNS },
    );
  });
});

describe("middleware: wrapGenerate reads as wrapStream", () => {
  const usage: LanguageModelV3Usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };
  const params = {
    prompt: [{ role: "user", content: [{ type: "text", text: "read a.ts" }] }],
    tools: [{ type: "function", name: "read", inputSchema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] } }],
  } as LanguageModelV3CallOptions;
  const SOURCE = { type: "source", sourceType: "url", id: "s1", url: "https://x.test", title: "x" } as LanguageModelV3Content;
  const FILE = { type: "file", mediaType: "image/png", data: "AAAA" } as LanguageModelV3Content;
  const WEB = { type: "tool-call", toolCallId: "ws", toolName: "web_search", input: "{}", providerExecuted: true } as LanguageModelV3Content;

  function streamOf(content: LanguageModelV3Content[], finish: string): LanguageModelV3StreamPart[] {
    const parts: LanguageModelV3StreamPart[] = [{ type: "stream-start", warnings: [] }];
    content.forEach((part, i) => {
      if (part.type === "text") parts.push({ type: "text-start", id: `t${i}` }, ...deltas(part.text).map((delta) => ({ type: "text-delta" as const, id: `t${i}`, delta })), { type: "text-end", id: `t${i}` });
      else if (part.type === "reasoning") parts.push({ type: "reasoning-start", id: `r${i}` }, ...deltas(part.text).map((delta) => ({ type: "reasoning-delta" as const, id: `r${i}`, delta })), { type: "reasoning-end", id: `r${i}` });
      else parts.push(part as LanguageModelV3StreamPart);
    });
    parts.push({ type: "finish", usage, finishReason: { unified: finish as "stop", raw: finish } });
    return parts;
  }

  test("reasoning, text parts split at random, sources, files and provider-executed calls; stop, length, content-filter; parallel calls on and off", async () => {
    const extraPart = fc.constantFrom<LanguageModelV3Content | undefined>(undefined, SOURCE, FILE, WEB);
    await fc.assert(
      fc.asyncProperty(
        fc.option(fragments(3), { nil: undefined }),
        fragments(5),
        fc.array(fc.nat(), { maxLength: 2 }),
        extraPart,
        fc.constantFrom("stop", "length", "content-filter"),
        fc.boolean(),
        async (reasoning, text, cuts, extra, finish, oneCall) => {
          const texts = pieces(text, cuts).map((t): LanguageModelV3Content => ({ type: "text", text: t }));
          const content: LanguageModelV3Content[] = [...(reasoning ? [{ type: "reasoning", text: reasoning } as LanguageModelV3Content] : []), ...texts.slice(0, 1), ...(extra ? [extra] : []), ...texts.slice(1)];
          const mock = new MockLanguageModelV3({
            doGenerate: async () => ({ content: structuredClone(content), finishReason: { unified: finish as "stop", raw: finish }, usage, warnings: [] }),
            doStream: async () => ({ stream: convertArrayToReadableStream(streamOf(content, finish)) }),
          });
          const model = wrapLanguageModel({ model: mock, middleware: repairMiddleware({}) });
          const call = oneCall ? { ...params, providerOptions: { openai: { parallelToolCalls: false } } } : params;
          const generated = await model.doGenerate(call);
          const streamed = await convertReadableStreamToArray((await model.doStream(call)).stream);
          const fromGenerate = {
            calls: generated.content.flatMap((p) => (p.type === "tool-call" ? [`${p.toolName} ${p.input}`] : [])),
            text: generated.content.flatMap((p) => (p.type === "text" ? [p.text] : [])).join(""),
            reasoning: generated.content.flatMap((p) => (p.type === "reasoning" ? [p.text] : [])).join(""),
            others: generated.content.flatMap((p): string[] => (["source", "file"].includes(p.type) ? [p.type] : [])),
            finish: generated.finishReason.unified as string | undefined,
          };
          const fromStream = {
            calls: streamed.flatMap((p) => (p.type === "tool-call" ? [`${p.toolName} ${p.input}`] : [])),
            text: streamed.flatMap((p) => (p.type === "text-delta" ? [p.delta] : [])).join(""),
            reasoning: streamed.flatMap((p) => (p.type === "reasoning-delta" ? [p.delta] : [])).join(""),
            others: streamed.flatMap((p): string[] => (["source", "file"].includes(p.type) ? [p.type] : [])),
            finish: streamed.flatMap((p) => (p.type === "finish" ? [p.finishReason.unified] : []))[0],
          };
          expect(fromGenerate).toEqual(fromStream);
        },
      ),
      { seed: 4906, ...RUNS },
    );
  });
});
