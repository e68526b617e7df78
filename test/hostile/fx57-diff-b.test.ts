/**
 * Fix 57 diff B: the rules the diff-review-57b findings now keep, checked beside what must keep
 * working. Whitespace beside recovered calls through the AI SDK middleware (stream whole, char by
 * char and at seeded random splits; generate), what counts as whitespace, annotations moved
 * through the history's edits, and a password of digits in an authority.
 */
import { describe, expect, test } from "bun:test";
import type { LanguageModelV3CallOptions, LanguageModelV3Content, LanguageModelV3StreamPart, LanguageModelV3Usage } from "@ai-sdk/provider";
import { wrapLanguageModel } from "ai";
import { MockLanguageModelV3, convertArrayToReadableStream, convertReadableStreamToArray } from "ai/test";
import { repairMiddleware } from "../../src/adapters/middleware.ts";
import { isBlank } from "../../src/grammar/blank.ts";
import { looksLikeUserinfo } from "../../src/grammar/redact.ts";
import { sanitizeRequestBody } from "../../src/proxy/history.ts";
import { REMOVED_NOTE } from "../../src/history/sanitize.ts";
import { everyChar, randomCuts } from "../support/run-engine.ts";
import { type Json, hermes } from "./review-51-wires-support.ts";

type Part = LanguageModelV3StreamPart;
const READ = hermes("read", { path: "a.ts" });
const BASH = hermes("bash", { command: "ls" });
const usage: LanguageModelV3Usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };
const schema = (key: string) => ({ type: "object" as const, properties: { [key]: { type: "string" } }, required: [key] });
const options: LanguageModelV3CallOptions = {
  prompt: [{ role: "user", content: [{ type: "text", text: "go" }] }],
  tools: [
    { type: "function", name: "read", inputSchema: schema("path") },
    { type: "function", name: "bash", inputSchema: schema("command") },
  ],
};

function model(parts: Part[], content: LanguageModelV3Content[]) {
  const mock = new MockLanguageModelV3({
    doStream: async () => ({ stream: convertArrayToReadableStream(parts) }),
    doGenerate: async () => ({ content, finishReason: { unified: "stop", raw: "stop" }, usage, warnings: [] }),
  });
  return wrapLanguageModel({ model: mock, middleware: repairMiddleware({}) });
}

/** The text parts as the AI SDK collects them (one per text-start id, deltas joined), and the calls' tool names. */
function collected(parts: Part[]): { texts: string[]; calls: string[] } {
  const texts = new Map<string, string>();
  const calls: string[] = [];
  for (const p of parts) {
    if (p.type === "text-start") texts.set(p.id, texts.get(p.id) ?? "");
    if (p.type === "text-delta") texts.set(p.id, (texts.get(p.id) ?? "") + p.delta);
    if (p.type === "tool-call") calls.push(p.toolName);
  }
  // The AI SDK keeps a text part unless it is empty.
  return { texts: [...texts.values()].filter((t) => t !== ""), calls };
}

async function streamed(text: string, cuts: number[]): Promise<{ texts: string[]; calls: string[] }> {
  const bounds = [0, ...cuts, text.length];
  const deltas = bounds.slice(1).map((end, i) => text.slice(bounds[i], end)).filter((d) => d !== "");
  const parts: Part[] = [
    { type: "stream-start", warnings: [] },
    { type: "text-start", id: "t" },
    ...deltas.map((delta): Part => ({ type: "text-delta", id: "t", delta })),
    { type: "text-end", id: "t" },
    { type: "finish", usage, finishReason: { unified: "stop", raw: "stop" } },
  ];
  const { stream } = await model(parts, []).doStream(options);
  return collected(await convertReadableStreamToArray(stream));
}

/** The stream whole, char by char and at seeded random splits (each must agree), and doGenerate. */
async function middlewareOutcome(text: string): Promise<{ texts: string[]; calls: string[] }> {
  const whole = await streamed(text, []);
  for (const cuts of [everyChar(text.length), randomCuts(text.length, 57), randomCuts(text.length, 5701, 3)]) expect(await streamed(text, cuts)).toEqual(whole);
  const result = await model([], [{ type: "text", text }]).doGenerate(options);
  const generated = {
    texts: result.content.flatMap((p) => (p.type === "text" && p.text !== "" ? [p.text] : [])),
    calls: result.content.flatMap((p) => (p.type === "tool-call" ? [p.toolName] : [])),
  };
  expect(generated).toEqual(whole);
  return whole;
}

describe("middleware: whitespace beside recovered calls (stream and generate agree)", () => {
  test("between two calls, before the only call, after the last call: no text part of whitespace alone", async () => {
    expect(await middlewareOutcome(`${READ}\n${BASH}`)).toEqual({ texts: [], calls: ["read", "bash"] });
    expect(await middlewareOutcome(`\n\n${READ}`)).toEqual({ texts: [], calls: ["read"] });
    expect(await middlewareOutcome(`${READ}\n`)).toEqual({ texts: [], calls: ["read"] });
    expect(await middlewareOutcome(` \u3000\n${READ}\n\n${BASH}\t\n`)).toEqual({ texts: [], calls: ["read", "bash"] });
  });

  // Hard negatives: words keep the whitespace beside them; a reply with no markup passes as written.
  test("words beside the calls keep their whitespace", async () => {
    expect(await middlewareOutcome(`Hi ${READ}\n${BASH}`)).toEqual({ texts: ["Hi \n"], calls: ["read", "bash"] });
    expect(await middlewareOutcome(`\n\nSure.\n${READ}`)).toEqual({ texts: ["\n\nSure.\n"], calls: ["read"] });
    expect(await middlewareOutcome(`\n Reading:\n\n${READ}\n${BASH}\n`)).toEqual({ texts: ["\n Reading:\n\n\n"], calls: ["read", "bash"] });
  });

  test("a reply with no markup passes as written, even whitespace alone", async () => {
    for (const text of ["\n\n", " ", "Hello\n", "\n\nHello <b>x</b>\n"]) expect(await middlewareOutcome(text)).toEqual({ texts: [text], calls: [] });
  });

  test("a byte-order mark or a zero-width space before a call is text, shown", async () => {
    expect(await middlewareOutcome(`\uFEFF${READ}`)).toEqual({ texts: ["\uFEFF"], calls: ["read"] });
    expect(await middlewareOutcome(`\u200B\n${READ}`)).toEqual({ texts: ["\u200B\n"], calls: ["read"] });
  });

  test("a whitespace-only delta of a plain reply goes on as it came, providerMetadata and all", async () => {
    const meta = { p: { k: 1 } };
    const parts: Part[] = [
      { type: "stream-start", warnings: [] },
      { type: "text-start", id: "t" },
      { type: "text-delta", id: "t", delta: "\n", providerMetadata: meta },
      { type: "text-delta", id: "t", delta: "Hi" },
      { type: "text-end", id: "t" },
      { type: "finish", usage, finishReason: { unified: "stop", raw: "stop" } },
    ];
    const { stream } = await model(parts, []).doStream(options);
    const out = await convertReadableStreamToArray(stream);
    const deltas = out.filter((p) => p.type === "text-delta");
    expect(deltas.map((p) => p.delta).join("")).toBe("\nHi");
    expect(deltas.some((p) => p.providerMetadata !== undefined && JSON.stringify(p.providerMetadata) === JSON.stringify(meta))).toBe(true);
  });
});

describe("what counts as whitespace", () => {
  test("Unicode White_Space, not trim()", () => {
    for (const blank of ["", " ", "\t\n\v\f\r", "\u0085", "\u00A0", "\u1680", "\u2000\u200A", "\u2028\u2029", "\u202F\u205F\u3000"]) expect(isBlank(blank)).toBe(true);
    for (const word of ["\uFEFF", "\u200B", "\u180E", "\u2060", "a", " x "]) expect(isBlank(word)).toBe(false);
  });
});

describe("history annotations move through the edits", () => {
  const SCHEMA = { type: "object", properties: { command: { type: "string" } }, required: ["command"] };
  const call = (command: string) => `<tool_call>{"name":"bash","arguments":{"command":"${command}"}}</tool_call>`;
  function sent(text: string, annotations: Json[]): { text: string; annotations: Json[] } {
    const body = { model: "m", tools: [{ type: "function", name: "bash", parameters: SCHEMA }], input: [{ role: "user", content: "go" }, { type: "message", id: "m1", role: "assistant", status: "completed", content: [{ type: "output_text", text, annotations }] }, { role: "user", content: "?" }] };
    const out = sanitizeRequestBody("/v1/responses", new TextEncoder().encode(JSON.stringify(body)) as Uint8Array<ArrayBuffer>, { parse: {}, sanitize: true, correct: false });
    return JSON.parse(new TextDecoder().decode(out.body)).input[1].content[0];
  }
  const at = (text: string, words: string, title: string, from = 0) => {
    const start = text.indexOf(words, from);
    return { type: "url_citation", start_index: start, end_index: start + words.length, url: "https://example.test/", title };
  };

  test("the same words inside the markup and after it: the one after is kept on its own words", () => {
    // The cited words also stand in the call's arguments: a search would find those first.
    const text = `${call("docs")} docs ${call("ls")} end`;
    const after = at(text, " docs ", "after", text.indexOf("</tool_call>"));
    const out = sent(text, [after]);
    expect(out.text).toBe(`${REMOVED_NOTE} docs ${REMOVED_NOTE} end`);
    expect(out.annotations.map((a) => [a.title, out.text.slice(a.start_index as number, a.end_index as number)])).toEqual([["after", " docs "]]);
  });

  // Hard negatives: one over the markup goes; one over words that touch the markup stays.
  test("over the markup: removed; right beside it: kept", () => {
    const text = `A${call("ls")}B`;
    const out = sent(text, [at(text, "ls", "inside"), at(text, "A", "before"), at(text, "B", "after"), at(text, `A${call("ls")}`, "across")]);
    expect(out.annotations.map((a) => [a.title, out.text.slice(a.start_index as number, a.end_index as number)])).toEqual([["before", "A"], ["after", "B"]]);
  });

  test("an annotation with no offsets stays as it came", () => {
    const text = `Hi ${call("ls")} bye`;
    const out = sent(text, [{ type: "file_citation", file_id: "f1", index: 2 }]);
    expect(out.annotations).toEqual([{ type: "file_citation", file_id: "f1", index: 2 }]);
  });
});

describe("an authority's port", () => {
  test("more than 5 digits, or above 65535: a password, not a port", () => {
    expect(looksLikeUserinfo("user:12345678")).toBe(true);
    expect(looksLikeUserinfo("user:65536")).toBe(true);
    expect(looksLikeUserinfo("host:000080")).toBe(true);
  });

  // Hard negatives: a real port reads as a port; letters after the colon read as a password (as before).
  test("a port, an IPv6 address with a port, none, letters", () => {
    expect(looksLikeUserinfo("host:8080")).toBe(false);
    expect(looksLikeUserinfo("host:65535")).toBe(false);
    expect(looksLikeUserinfo("host:")).toBe(false);
    expect(looksLikeUserinfo("[::1]:443")).toBe(false);
    expect(looksLikeUserinfo("[::1]")).toBe(false);
    expect(looksLikeUserinfo("[::1]:99999")).toBe(false);
    expect(looksLikeUserinfo("host")).toBe(false);
    expect(looksLikeUserinfo("host:80a")).toBe(true);
    expect(looksLikeUserinfo("user:pass")).toBe(true);
  });
});
