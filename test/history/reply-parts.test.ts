// History sanitizing reads the text parts of one replayed reply as one text, as the live repair
// read that reply (review 43): a fence opened in one part keeps the example in the next part as
// documentation, and each leak is replaced in the part where it stands.
import { describe, expect, test } from "bun:test";
import type { LanguageModelV3Prompt } from "@ai-sdk/provider";
import type { Message, Part } from "@opencode-ai/sdk";
import { sanitizePrompt } from "../../src/history/prompt.ts";
import { REMOVED_NOTE, redactLeaks, redactReply, type ReplyPart } from "../../src/history/sanitize.ts";
import { sanitizeHistory } from "../../src/plugin/history-hook.ts";
import { sanitizeContext } from "../../src/plugin/v2/context-hook.ts";
import type { V2Message } from "../../src/plugin/v2/host-types.ts";
import type { ToolSpec } from "../../src/parse/types.ts";

const TOOLS: ToolSpec[] = [{ name: "bash", parameters: { type: "object", properties: { command: { type: "string" } }, required: ["command"] } }];
const CALL = '<tool_call>{"name":"bash","arguments":{"command":"ls"}}</tool_call>';
/** CALL cut inside its JSON: the first half, and the rest. */
const HEAD = '<tool_call>{"name":"bash",';
const REST = '"arguments":{"command":"ls"}}</tool_call>';
const FENCE = "Example:\n```\n";
const EXAMPLE = `${CALL}\n\`\`\`\n`;

const texts = (...parts: (string | ReplyPart)[]) => parts.map((p) => (typeof p === "string" ? { text: p } : p));

describe("redactReply: one reply's text parts are one text", () => {
  test("a fence opened in one part keeps the next part's example as written", () => {
    const out = redactReply(texts(FENCE, EXAMPLE), {}, TOOLS);
    expect(out).toEqual({ texts: [FENCE, EXAMPLE], removed: 0, nudge: null, shapes: [] });
  });

  test("also when the part is read apart (a Responses output_text part): documentation carries over", () => {
    expect(redactReply(texts(FENCE, { text: EXAMPLE, apart: true }), {}, TOOLS).removed).toBe(0);
  });

  // Hard negative: the same example part after a part that opens no fence is a leak, replaced
  // where it stands; the other part is the very string given.
  test("without the fence the leak is replaced in its own part", () => {
    const first = "Running it.\n";
    const out = redactReply(texts(first, `${CALL}\nDone.`), {}, TOOLS);
    expect(out.texts).toEqual([first, `${REMOVED_NOTE}\nDone.`]);
    expect(out.texts[0]).toBe(first);
    expect([out.removed, out.nudge]).toEqual([1, "undeclared-tool"]);
  });

  test("a closed fence in one part does not hide a leak in the next", () => {
    const closed = "Example:\n```\nls\n```\n";
    expect(redactReply(texts(closed, `${CALL} done`), {}, TOOLS).texts).toEqual([closed, `${REMOVED_NOTE} done`]);
  });

  test("one part alone reads as redactLeaks reads its text", () => {
    const text = `Sure.\n${CALL}\nthen more`;
    const single = redactLeaks(text, {}, TOOLS);
    expect(redactReply(texts(text), {}, TOOLS)).toEqual({ texts: [single.text], removed: single.removed, nudge: single.nudge, shapes: single.shapes });
  });

  test("split anywhere into two consecutive parts, the parts joined read as the one text does", () => {
    for (const text of [`Sure.\n${CALL}\nthen more`, `${FENCE}${EXAMPLE}after ${CALL} end`, `a \`${CALL}\` b ${CALL} c`]) {
      const single = redactLeaks(text, {}, TOOLS).text;
      for (let cut = 0; cut <= text.length; cut++) {
        const out = redactReply(texts(text.slice(0, cut), text.slice(cut)), {}, TOOLS);
        expect(out.texts.join("")).toBe(single);
      }
    }
  });
});

describe("redactReply: markup that runs from one part into the next", () => {
  // Where the live repair reads the parts as one span (consecutive Anthropic text blocks, AI SDK
  // text parts) it reads this markup as one call: history replaces it as one leak.
  test("is replaced across them: the note where it starts, the rest cut from the next part", () => {
    const out = redactReply(texts(`Running: ${HEAD}`, `${REST} done`), {}, TOOLS);
    expect(out.texts).toEqual([`Running: ${REMOVED_NOTE}`, " done"]);
    expect(out.removed).toBe(1);
  });

  test("a part it would leave blank takes the note (a blank text block is refused by Anthropic)", () => {
    expect(redactReply(texts(`Running: ${HEAD}`, REST), {}, TOOLS).texts).toEqual(["Running: ", REMOVED_NOTE]);
    expect(redactReply(texts(HEAD, `${REST} done`), {}, TOOLS).texts).toEqual([REMOVED_NOTE, " done"]);
    expect(redactReply(texts("A ", '<tool_call>{"name":', '"bash","arguments":{"command":"ls"}}</tool_call> B'), {}, TOOLS).texts).toEqual(["A ", REMOVED_NOTE, " B"]);
  });

  // Review 48 finding 5: a leak over two or more whole parts used to stay as written. Each part it
  // would leave blank now takes a piece of the note, cut at its words, in order: no part is blank
  // or dropped, and the parts joined read as the whole text's history.
  test("when two or more parts would be left blank, each takes a piece of the note", () => {
    const split = redactReply(texts("A ", '<tool_call>{"name":', ' "bash",', '"arguments":{"command":"ls"}}</tool_call> B'), {}, TOOLS);
    expect(split.removed).toBe(1);
    expect(split.texts).toEqual(["A ", "[dsml-fix: ", REMOVED_NOTE.slice("[dsml-fix: ".length), " B"]);
    const out = redactReply(texts(HEAD, REST), {}, TOOLS);
    expect(out).toEqual({ texts: ["[dsml-fix: ", REMOVED_NOTE.slice("[dsml-fix: ".length)], removed: 1, nudge: "undeclared-tool", shapes: out.shapes });
    expect(out.shapes.length).toBe(1);
    // More blank parts than the note has words (17 parts of 4 characters): pieces of one non-blank character.
    const call = '<tool_call>{"name":"bash","arguments":{"command":"ls"}}</tool_call>';
    const chunks = call.match(/[^]{1,4}/g)!;
    const many = redactReply(chunks.map((text) => ({ text })), {}, TOOLS);
    expect({ parts: chunks.length, removed: many.removed, joined: many.texts.join(""), blank: many.texts.filter((t) => t.trim() === "").length }).toEqual({ parts: 17, removed: 1, joined: REMOVED_NOTE, blank: 0 });
    // More blank parts than the note has non-blank characters (a part per character): left as written, still reported.
    const chars = [...call];
    const left = redactReply(chars.map((text) => ({ text })), {}, TOOLS);
    expect({ removed: left.removed, same: left.texts.join("") === call, nudge: left.nudge }).toEqual({ removed: 0, same: true, nudge: "undeclared-tool" });
  });

  test("read apart (a Responses part), it never runs on: each part is read up to its own end", () => {
    const out = redactReply(texts(`Running: ${HEAD}`, { text: `${REST} done`, apart: true }), {}, TOOLS);
    // The head is cut off markup in its own part; the rest never joins it.
    expect(out.texts[0]).toBe(`Running: ${REMOVED_NOTE}`);
    expect(out.texts[1]!.endsWith(" done")).toBe(true);
  });
});

describe("the AI SDK prompt", () => {
  test("an assistant message's text parts are one text; other messages and parts are untouched", () => {
    const prompt: LanguageModelV3Prompt = [
      { role: "user", content: [{ type: "text", text: "show me" }] },
      { role: "assistant", content: [{ type: "text", text: FENCE }, { type: "text", text: EXAMPLE }] },
    ];
    expect(sanitizePrompt(prompt, {}, TOOLS)).toBe(prompt);
  });

  test("a leak after them is replaced in its part; the parts around it stay the same objects", () => {
    const reasoning = { type: "reasoning" as const, text: CALL };
    const prompt: LanguageModelV3Prompt = [{ role: "assistant", content: [{ type: "text", text: FENCE }, { type: "text", text: EXAMPLE }, reasoning, { type: "text", text: `Now: ${CALL}` }] }];
    const out = sanitizePrompt(prompt, {}, TOOLS)[0]!.content as { type: string; text: string }[];
    expect(out.map((p) => p.text)).toEqual([FENCE, EXAMPLE, CALL, `Now: ${REMOVED_NOTE}`]);
    expect(out[0]).toBe(prompt[0]!.content[0] as never);
    expect(out[2]).toBe(reasoning as never);
  });
});

describe("the OpenCode plugin's history hooks", () => {
  const userEntry = { info: { id: "msg_u", role: "user", sessionID: "ses" } as Message, parts: [{ id: "p_u", type: "text", text: "show me" }] as Part[] };
  const assistantEntry = (parts: object[]) => ({ info: { id: "msg_a", role: "assistant", sessionID: "ses" } as Message, parts: parts.map((p, i) => ({ id: `p_${i}`, sessionID: "ses", messageID: "msg_a", ...p })) as Part[] });
  const textOf = (parts: Part[]) => parts.map((p) => (p.type === "text" ? p.text : p.type));

  test("1.18 messages.transform: the text parts of one step are one text", async () => {
    const entry = assistantEntry([{ type: "step-start" }, { type: "text", text: FENCE }, { type: "text", text: EXAMPLE }, { type: "step-finish" }]);
    expect(await sanitizeHistory([userEntry, entry], {})).toEqual({ messages: 0, parts: 0 });
    expect(textOf(entry.parts)).toEqual(["step-start", FENCE, EXAMPLE, "step-finish"]);
  });

  test("1.18: each step is a reply of its own, so a fence left open in one step does not hide a leak in the next", async () => {
    const entry = assistantEntry([{ type: "step-start" }, { type: "text", text: FENCE }, { type: "step-finish" }, { type: "step-start" }, { type: "text", text: `Now: ${CALL}` }, { type: "step-finish" }]);
    expect(await sanitizeHistory([userEntry, entry], {})).toEqual({ messages: 1, parts: 1 });
    expect(textOf(entry.parts)).toEqual(["step-start", FENCE, "step-finish", "step-start", `Now: ${REMOVED_NOTE}`, "step-finish"]);
  });

  test("2.x context hook: the text parts of one assistant message are one text", () => {
    const messages: V2Message[] = [
      { role: "user", content: [{ type: "text", text: "show me" }] },
      { role: "assistant", content: [{ type: "text", text: FENCE }, { type: "text", text: EXAMPLE }] },
      { role: "assistant", content: [{ type: "text", text: "Running.\n" }, { type: "text", text: CALL }] },
    ];
    const first = messages[1];
    expect(sanitizeContext(messages, {}, TOOLS)).toEqual({ messages: 1, parts: 1 });
    expect(messages[1]).toBe(first!);
    expect(messages[2]!.content.map((p) => p.text)).toEqual(["Running.\n", REMOVED_NOTE]);
  });
});

describe("the golden catalogue, each fixture cut into two consecutive parts", () => {
  // Where the live repair reads two text parts as one span, a cut anywhere changes nothing: the
  // parts joined read as the fixture's text does, unless markup the cut runs through would leave
  // both parts blank, where it is left as written (fewer spans replaced, never a different text).
  test("the parts joined read as the whole text (three cuts per fixture)", async () => {
    const { fixtures } = await import("../golden/build-fixtures.ts");
    const { fixtureTools } = await import("../golden/tools.ts");
    let compared = 0;
    for (const f of fixtures) {
      if (f.nativeToolCalls) continue;
      const tools = f.tools ? fixtureTools.filter((t) => f.tools!.includes(t.name)) : fixtureTools;
      const options = (f.options ?? {}) as Parameters<typeof redactLeaks>[1];
      const single = redactLeaks(f.input, options, tools);
      const lt = f.input.indexOf("<");
      for (const cut of new Set([Math.floor(f.input.length / 2), lt + 1, f.input.length - 3])) {
        if (cut <= 0 || cut >= f.input.length) continue;
        const out = redactReply(texts(f.input.slice(0, cut), f.input.slice(cut)), options, tools);
        if (out.removed < single.removed) {
          expect(out.texts.join("")).not.toBe(single.text);
          continue;
        }
        expect([f.id, cut, out.texts.join("")]).toEqual([f.id, cut, single.text]);
        compared++;
      }
    }
    expect(compared).toBeGreaterThan(500);
  });
});
