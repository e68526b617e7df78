/**
 * Review 53 diff review (b), tests only: the round's src/engine and src/adapters changes
 * (middleware text spans, wrapGenerate's span ends, the reasoning channel's #inkAfter, the engine's
 * endUnknown at a part's end). Each failing test (test.failing) says what is wrong, its severity,
 * a minimal input, the suspected file and what is expected; hard negatives beside each pass.
 */
import { describe, expect, test } from "bun:test";
import { createAnthropic } from "@ai-sdk/anthropic";
import { createOpenAI } from "@ai-sdk/openai";
import type { LanguageModelV3CallOptions, LanguageModelV3FunctionTool, LanguageModelV3StreamPart, LanguageModelV3Usage } from "@ai-sdk/provider";
import { wrapLanguageModel } from "ai";
import { MockLanguageModelV3, convertArrayToReadableStream, convertReadableStreamToArray } from "ai/test";
import { repairMiddleware } from "../../src/adapters/middleware.ts";
import { block, live } from "../golden/notation.ts";
import { type Json, SDK_TOOLS, client, generate, message, messageEnd, messageStart, namedSse, responseObject, textBlock, thinkingBlock } from "./review-48-wires-support.ts";

const PROMPT = [{ role: "user", content: [{ type: "text", text: "read a.ts" }] }];
const HEAD = '<tool_call>{"name":"read","arguments":{"path":"/etc/';
const REST = 'passwd"}}</tool_call>';
const WHOLE = HEAD + REST;
const PASSWD = [{ name: "read", input: '{"path":"/etc/passwd"}' }];

/** The same JSON body read by the real provider wrapped in the middleware (wrapGenerate). */
async function middlewareGenerate(api: "anthropic" | "responses", body: Json) {
  const fetch = (async () => new Response(JSON.stringify(body), { headers: { "content-type": "application/json" } })) as unknown as typeof globalThis.fetch;
  const base = api === "anthropic" ? createAnthropic({ baseURL: "http://model.test/v1", apiKey: "k", fetch }).messages("claude-x") : createOpenAI({ baseURL: "http://model.test/v1", apiKey: "k", fetch }).responses("gpt-x");
  const model = wrapLanguageModel({ model: base, middleware: repairMiddleware({}) });
  const r = await model.doGenerate({ prompt: PROMPT, tools: SDK_TOOLS } as never);
  const content = r.content as Json[];
  return { calls: content.filter((p) => p.type === "tool-call").map((p) => ({ name: p.toolName, input: p.input })), text: content.filter((p) => p.type === "text").map((p) => p.text).join("") };
}

/** The same SSE body read by the real provider wrapped in the middleware (wrapStream). */
async function middlewareStream(api: "anthropic" | "responses", body: string) {
  const fetch = (async () => new Response(body, { headers: { "content-type": "text/event-stream" } })) as unknown as typeof globalThis.fetch;
  const base = api === "anthropic" ? createAnthropic({ baseURL: "http://model.test/v1", apiKey: "k", fetch }).messages("claude-x") : createOpenAI({ baseURL: "http://model.test/v1", apiKey: "k", fetch }).responses("gpt-x");
  const model = wrapLanguageModel({ model: base, middleware: repairMiddleware({}) });
  const { stream } = await model.doStream({ prompt: PROMPT, tools: SDK_TOOLS } as never);
  const parts = (await convertReadableStreamToArray(stream as ReadableStream<Json>)) as Json[];
  return { calls: parts.filter((p) => p.type === "tool-call").map((p) => ({ name: p.toolName, input: p.input })), text: parts.filter((p) => p.type === "text-delta").map((p) => p.delta).join("") };
}

const anthropicSse = (blocks: Json[][]) => namedSse([messageStart(), ...blocks.flat(), ...messageEnd()]);
const anthropicJson = (content: Json[]) => ({ id: "msg_1", type: "message", role: "assistant", model: "claude-x", content, stop_reason: "end_turn", stop_sequence: null, usage: { input_tokens: 1, output_tokens: 1 } });

describe("finding: wrapGenerate joins the output_text parts of one Responses message item", () => {
  // Severity: medium-low, wrong execution by the parts rule (a call's text never spans two parts
  // into a call with arguments from both unless the wire really continues the text). The fetch
  // route reads every Responses output_text part as a span of its own (src/wires/responses/
  // text-parts.ts) and shows a call cut across two parts of one message item as text. wrapGenerate
  // gets the same parts as two text content parts (@ai-sdk/openai pushes one per output_text, each
  // with providerMetadata.openai.itemId = the message's id), but the new span rule ends a span only
  // for a part of another kind between them or another itemId (generate.ts `apart ||
  // otherItems(...)`, text-spans.ts): two parts of one item read as one text and `read /etc/passwd`
  // runs, its path built from both parts. Same JSON bytes, same provider, two answers. (In the
  // stream the provider merges the parts into one text part, so wrapStream cannot see this
  // boundary: review-53-parts-middleware.test.ts "Not pinned"; in wrapGenerate it can.)
  // Minimal input: Responses JSON output [message m1 with output_text `<tool_call>{..."path":"/etc/`
  // and output_text `passwd"}}</tool_call>`]. Suspected: src/adapters/middleware/generate.ts (the
  // span condition), text-spans.ts. Expected: as the fetch route: no call, the text as written.
  // Fixed: in wrapGenerate two text content parts that each name an output item (only
  // @ai-sdk/openai's Responses parts do, one per output_text, nothing merged) are two spans
  // (text-spans.ts ownParts); parts naming none (Anthropic's adjacent text blocks) stay one text.
  const body = responseObject("completed", [message("m1", HEAD, REST)]);
  test("responses JSON, one item, two output_text parts: the middleware runs no call (the fetch route runs none)", async () => {
    const mw = await middlewareGenerate("responses", body);
    expect(mw.calls).toEqual([]);
    expect(mw.text).toBe(WHOLE);
  });

  test("hard negative: the fetch route reads the same JSON as text", async () => {
    const f = await generate("responses", body);
    expect(f.calls).toEqual([]);
    expect(f.text).toBe(WHOLE);
  });
  test("hard negative: two message items: no call on both routes", async () => {
    const two = responseObject("completed", [message("m1", HEAD), message("m2", REST)]);
    for (const v of [await generate("responses", two), await middlewareGenerate("responses", two)]) {
      expect(v.calls).toEqual([]);
      expect(v.text).toBe(WHOLE);
    }
  });
  test("hard negative: a whole call in one output_text part runs on both routes", async () => {
    const one = responseObject("completed", [message("m1", "Reading.\n", WHOLE)]);
    for (const v of [await generate("responses", one), await middlewareGenerate("responses", one)]) expect(v.calls).toEqual(PASSWD);
  });
  test("hard negative: Anthropic JSON, two adjacent text blocks are one text: the call runs on both routes", async () => {
    const adj = anthropicJson([{ type: "text", text: HEAD }, { type: "text", text: REST }]);
    for (const v of [await generate("anthropic", adj), await middlewareGenerate("anthropic", adj)]) expect(v.calls).toEqual(PASSWD);
  });
  test("hard negative: Anthropic JSON, a thinking block between: text on both routes", async () => {
    const apart = anthropicJson([{ type: "text", text: HEAD }, { type: "thinking", thinking: "hmm", signature: "s" }, { type: "text", text: REST }]);
    for (const v of [await generate("anthropic", apart), await middlewareGenerate("anthropic", apart)]) {
      expect(v.calls).toEqual([]);
      expect(v.text).toBe(WHOLE);
    }
  });
});

describe("pinned (pass): part ends that keep holding, and the safe side of a cut call, alike on both routes", () => {
  const D = live(block("tool_calls", [["read", [["path", "/etc/passwd"]]]]));
  const cut = D.indexOf(live("</{D}parameter>")) + live("</{D}parameter>").length;
  const cases: [string, string][] = [
    // A clean DSML invoke cut between `</parameter>` and `</invoke>` by a thinking block, a real
    // call after it: the cut call stops every later call (engine finish, truncated-call at a part's
    // end: endUnknown). Over-refusal of a real shape, but the safe way: where the cut markup ends is unknown.
    ["a DSML invoke cut after </parameter>, thinking, a real call: nothing runs", anthropicSse([textBlock(0, [D.slice(0, cut)]), thinkingBlock(1, ["hmm"]), textBlock(2, [`\n${WHOLE}`])])],
    ["a heredoc costume open across thinking past an inner </shell>: nothing runs", anthropicSse([textBlock(0, ["<shell>\ncat <<EOF\n"]), thinkingBlock(1, ["hmm"]), textBlock(2, [`</shell>\n${WHOLE}\nEOF\n</shell>\n`])])],
    ["a fence opener cut across thinking: the call in it stays documentation", anthropicSse([textBlock(0, ["Example:\n``"]), thinkingBlock(1, ["hmm"]), textBlock(2, [`\`\n${WHOLE}\n\`\`\`\n`])])],
    ["an inline code span open across thinking: the call in it stays documentation", anthropicSse([textBlock(0, ["Run `"]), thinkingBlock(1, ["hmm"]), textBlock(2, [`${WHOLE}\` later`])])],
    ["a costume mention before thinking, a call after a blank line in the next block: nothing runs (part end read cautiously)", anthropicSse([textBlock(0, ["I will use the <python> tool."]), thinkingBlock(1, ["hmm"]), textBlock(2, [`\n\n${WHOLE}`])])],
  ];
  for (const [name, body] of cases) {
    test(name, async () => {
      const f = await client("anthropic", body);
      const mw = await middlewareStream("anthropic", body);
      expect(f.calls).toEqual([]);
      expect(mw.calls).toEqual([]);
      expect(mw.text).toBe(f.text);
    });
  }
});

// ---------------------------------------------------------------- the reasoning channel (#inkAfter)

type Part = LanguageModelV3StreamPart;
const DSML = live(block("tool_calls", [["read", [["path", "a.ts"]]]]));
const HERMES = '<tool_call>{"name":"read","arguments":{"path":"b"}}</tool_call>';
const EOS = live("<{BAR}end{SP}of{SP}sentence{BAR}>");
const usage: LanguageModelV3Usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };
const readTool: LanguageModelV3FunctionTool = { type: "function", name: "read", inputSchema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] } };
const params = { prompt: PROMPT, tools: [readTool] } as LanguageModelV3CallOptions;

/** Reasoning deltas `pieces`, then content `content` (if any), through the middleware. */
async function reasoningRun(content: string, pieces: string[]) {
  const parts: Part[] = [{ type: "reasoning-start", id: "r" }, ...pieces.map((delta): Part => ({ type: "reasoning-delta", id: "r", delta })), { type: "reasoning-end", id: "r" }];
  if (content) parts.push({ type: "text-start", id: "t" }, { type: "text-delta", id: "t", delta: content }, { type: "text-end", id: "t" });
  const mock = new MockLanguageModelV3({ doStream: async () => ({ stream: convertArrayToReadableStream<Part>([{ type: "stream-start", warnings: [] }, ...parts, { type: "finish", usage, finishReason: { unified: "stop", raw: "stop" } }]) }) });
  const { stream } = await wrapLanguageModel({ model: mock, middleware: repairMiddleware({}) }).doStream(params);
  const out = await convertReadableStreamToArray(stream);
  return { calls: out.filter((p) => p.type === "tool-call").length, reasoning: out.filter((p) => p.type === "reasoning-delta").map((p) => p.delta).join("") };
}

/** Whole, char by char, and cut in two at every position. */
function everySplit(text: string): string[][] {
  const cuts: string[][] = [[text], [...text]];
  for (let i = 1; i < text.length; i++) cuts.push([text.slice(0, i), text.slice(i)]);
  return cuts;
}

async function reasoningAtEverySplit(reasoning: string, content: string) {
  const seen = new Set<string>();
  for (const pieces of everySplit(reasoning)) {
    const v = await reasoningRun(content, pieces);
    seen.add(`${v.calls}|${v.reasoning}`);
  }
  return [...seen];
}

describe("finding: whole and split readings of the reasoning disagree on a cut tag after a call (one loses it)", () => {
  // Severity: medium-low, lost text and whole vs char-by-char disagreement (D06: a call that does
  // not run stays in the reasoning exactly as written). Reasoning: a Hermes call, a cut-off DSML
  // invoke opener, a cut-off Hermes opener, a cut DSML closer, a second Hermes call; content "ok",
  // so nothing runs. Char by char the reasoning comes back whole (the new #inkAfter puts the
  // dropped `<{D}inv` back); read whole, `<{D}inv` is gone (it was lost on main both ways). The
  // channel's #inkAfter only restores what was dropped when the released text is the step's last
  // event after the trailing block; read whole, the step ends in the second call, so the first
  // block's dropped fragment is never given back. Minimal input: reasoning
  // `Plan:\n<tool_call>{..}</tool_call><{D}inv<tool_c</{D}t<tool_call>{..}</tool_call>`, content
  // "ok". Suspected: src/engine/reasoning-channel.ts (#read: `i === events.length - 1`, #inkAfter).
  // Expected: the reasoning as written at every split, no call.
  // Fixed: #read holds the text released after the trailing block until the next call or the
  // step's end, and #inkAfter puts back what was dropped up to there (the next call's start bounds
  // it), so every cut of the reasoning gives the same text.
  const reasoning = `Plan:\n${HERMES}${live("<{D}inv")}<tool_c${live("</{D}t")}${HERMES}`;
  test("whole, char by char and at every cut in two: one answer, the reasoning as written", async () => {
    expect(await reasoningAtEverySplit(reasoning, "ok")).toEqual([`0|${reasoning}`]);
  });
  test("hard negative: the same fragments with no second call come back whole at every split", async () => {
    const r = `Plan:\n${HERMES}${live("<{D}inv")}<tool_c`;
    expect(await reasoningAtEverySplit(r, "ok")).toEqual([`0|${r}`]);
  });
});

describe("finding: a cut-off tag between two call blocks is lost from the reasoning", () => {
  // Severity: medium-low, lost text (D06). #inkAfter restores what the engine dropped after a call
  // block only for the block the reasoning ends with (or the step's last text); a cut-off opener
  // between two blocks (taken as the first call's noise, S03) never comes back, whatever follows.
  // Neither block runs (content follows, or prose after the second), so every character must stay.
  // Also lost on main: the new code's stated rule ("dropped cut-off tags mid-reasoning go back as
  // written") does not reach it. Minimal input: reasoning `Plan:\n<{D}tool_calls>..</{D}tool_calls>
  // \n<{D}inv\n<{D}tool_calls>..</{D}tool_calls>\nMore.`. Suspected: src/engine/reasoning-channel.ts
  // (#read: a call event after a dropped run shows the earlier block by #show only).
  // Expected: the reasoning as written, no call.
  // Fixed: a call that does not continue the trailing block shows it through #inkAfter with the
  // call's start as the bound (also when the engine held the second block in the same delta), so
  // what was dropped between the blocks goes back as written.
  const cases: [string, string][] = [
    ["DSML, a cut invoke opener on its own line, DSML, prose", `Plan:\n${DSML}${live("\n<{D}inv\n")}${DSML}\nMore.`],
    ["DSML, a cut invoke opener, DSML", `Plan:\n${DSML}${live("<{D}inv")}${DSML}`],
    ["Hermes, a cut DSML closer, DSML", `Plan:\n${HERMES}${live("</{D}t")}${DSML}`],
  ];
  for (const [name, reasoning] of cases) {
    test(`${name}: kept as written (whole and char by char)`, async () => {
      for (const pieces of [[reasoning], [...reasoning]]) expect(await reasoningRun("ok", pieces)).toEqual({ calls: 0, reasoning });
    });
  }
  test("hard negative: prose between two blocks stays", async () => {
    const r = `Plan:\n${DSML}\nthen\n${DSML}\nMore.`;
    for (const pieces of [[r], [...r]]) expect(await reasoningRun("ok", pieces)).toEqual({ calls: 0, reasoning: r });
  });
  test("hard negative: a cut opener after the last block, then prose, comes back (the fix)", async () => {
    const r = `Plan:\n${DSML}${live("\n<{D}inv")}\nMore.`;
    for (const pieces of [[r], [...r]]) expect(await reasoningRun("ok", pieces)).toEqual({ calls: 0, reasoning: r });
  });
});

describe("finding: a special token right beside a cut-off tag after a block goes back into the reasoning", () => {
  // Severity: low (D07 policy, not lost text: the token is the model's own output, but the package
  // strips it after a call in the reasoning, the block shown or not, review 50; the fixers' own
  // test "the token stripped, the tag kept" passes only because a line break stands between
  // them). rewritten()/putBack() drop a run only when it is special tokens and nothing else; a
  // token and a cut tag the engine dropped as one run (`<eos><{D}inv`, or `<{D}inv<eos>`) are put
  // back together, the end-of-sentence token with them. Minimal input: reasoning
  // `Plan:\n<{D}tool_calls>..</{D}tool_calls><{BAR}end{SP}of{SP}sentence{BAR}><{D}inv\nMore thinking.`,
  // content "ok". Suspected: src/engine/reasoning-channel.ts (putBack). Expected: the token
  // stripped, the cut tag kept: `Plan:\n<block><{D}inv\nMore thinking.`.
  // Fixed: putBack strips each special token within a dropped run and puts back the rest (every
  // other tag it reads copied whole).
  for (const [name, reasoning, expected] of [
    ["token then cut tag", `Plan:\n${DSML}${EOS}${live("<{D}inv")}\nMore thinking.`, `Plan:\n${DSML}${live("<{D}inv")}\nMore thinking.`],
    ["cut tag then token", `Plan:\n${DSML}${live("<{D}inv")}${EOS}\nMore thinking.`, `Plan:\n${DSML}${live("<{D}inv")}\nMore thinking.`],
  ] as const) {
    test(`${name}: the token stripped, the tag kept`, async () => {
      for (const pieces of [[reasoning], [...reasoning]]) expect(await reasoningRun("ok", pieces)).toEqual({ calls: 0, reasoning: expected });
    });
  }
  test("hard negative: a line break between them: the token stripped, the tag kept", async () => {
    const r = `Plan:\n${DSML}${EOS}${live("\n<{D}inv")}\nMore thinking.`;
    for (const pieces of [[r], [...r]]) expect(await reasoningRun("ok", pieces)).toEqual({ calls: 0, reasoning: `Plan:\n${DSML}${live("\n<{D}inv")}\nMore thinking.` });
  });
  test("hard negative: a token alone after the trailing block, nothing after: the call runs (D06, D07)", async () => {
    const v = await reasoningRun("", [`Plan:\n${DSML}${EOS}`]);
    expect(v.calls).toBe(1);
    expect(v.reasoning).toBe("Plan:\n");
  });
});
