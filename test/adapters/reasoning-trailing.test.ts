/**
 * D06, which calls in the reasoning may run: only the trailing block (it starts a line, nothing but
 * whitespace follows it until the reasoning ends, no later stretch), and only when the reasoning
 * was the answer. Every other call (rejected in the same thought, a draft and its correction, one
 * mid-line, the thinking before a missed end of thinking) stays in the reasoning exactly as
 * written. Checked against an oracle over generated reasonings, whole, char by char and at seeded
 * random splits, through the channel and through both adapters.
 */
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import type { LanguageModelV3Prompt, LanguageModelV3StreamPart } from "@ai-sdk/provider";
import { wrapLanguageModel } from "ai";
import { MockLanguageModelV3, convertArrayToReadableStream, convertReadableStreamToArray } from "ai/test";
import { GuardedEngine } from "../../src/engine/guarded.ts";
import { repairFetch } from "../../src/adapters/fetch.ts";
import { repairMiddleware } from "../../src/adapters/middleware.ts";
import { ReasoningChannel } from "../../src/engine/reasoning-channel.ts";
import { createRepairEngine } from "../../src/engine/engine.ts";
import type { ToolSpec } from "../../src/parse/types.ts";
import { block, live } from "../golden/notation.ts";
import { URL_CHAT, chatInit, chunk, fakeBase, jsonReply, sdkTools, type Json } from "../security/support.ts";
import { everyChar, randomCuts } from "../support/run-engine.ts";

const TOOLS: ToolSpec[] = [
  { name: "bash", parameters: { type: "object", properties: { command: { type: "string" } }, required: ["command"] } },
  { name: "read", parameters: { type: "object", properties: { filePath: { type: "string" } }, required: ["filePath"] } },
];

const hermes = (command: string) => `<tool_call>{"name":"bash","arguments":{"command":"${command}"}}</tool_call>`;
const dsml = (command: string, path: string) => live(block("tool_calls", [["bash", [["command", command]]], ["read", [["filePath", path]]]]));
const RM = hermes("rm -rf ~");
const LS = hermes("ls -la");

interface ChannelRun {
  /** The reasoning text each stretch showed, in order. */
  shown: string[];
  calls: string[];
}

/** Stretches of reasoning (each cut as given), then content, through one channel with the real engine. */
function runChannel(stretches: string[][], content = ""): ChannelRun {
  const channel = new ReasoningChannel((continues) => new GuardedEngine(createRepairEngine({ tools: TOOLS, channel: "reasoning", idPrefix: "c_", ...(continues ? { continues } : {}) }), () => undefined));
  const shown: string[] = [];
  let holder = -1;
  const payBack = () => {
    const owed = channel.take();
    if (owed) shown[holder] += owed;
  };
  for (const [i, deltas] of stretches.entries()) {
    shown.push("");
    for (const delta of deltas) {
      const released = channel.feed(delta);
      payBack();
      shown[i] += released;
    }
    shown[i] += channel.close();
    if (channel.holding) holder = i;
  }
  channel.noteContent(content);
  payBack();
  const calls = channel.settle(0).map((call) => `${call.tool} ${JSON.stringify(call.input)}`);
  payBack();
  return { shown, calls };
}

const cut = (text: string, cuts: readonly number[]) => {
  const out: string[] = [];
  let prev = 0;
  for (const at of [...cuts, text.length]) {
    out.push(text.slice(prev, at));
    prev = at;
  }
  return out;
};

/** The same result whole, char by char and at a few seeded random splits. */
function expectEverySplit(text: string, expected: ChannelRun, seeds = [1, 2, 3]): void {
  const splits = [[], everyChar(text.length), ...seeds.map((seed) => randomCuts(text.length, seed, 9))];
  for (const cuts of splits) {
    const got = runChannel([cut(text, cuts)]);
    if (got.shown.join("") !== expected.shown.join("") || got.calls.join("\n") !== expected.calls.join("\n")) {
      expect({ cuts, ...got }).toEqual({ cuts, ...expected });
    }
  }
}

const BASH_LS = 'bash {"command":"ls -la"}';

describe("the reasoning channel: only the trailing block runs", () => {
  test("a call rejected in the same thought never runs and stays in the reasoning as written", () => {
    const text = `Should I call ${RM}? No, that deletes everything.\nI will answer in words.\n`;
    expectEverySplit(text, { shown: [text], calls: [] });
  });

  test("the rejected call at line start, followed by the rejection: still nothing runs", () => {
    const text = `Maybe:\n${RM}\nNo, never that.`;
    expectEverySplit(text, { shown: [text], calls: [] });
  });

  test("a draft and its correction: only the correction, the trailing block, runs", () => {
    const draft = `First try:\n${hermes("ls /wrong")}\nWrong path. Again:\n`;
    expectEverySplit(`${draft}${LS}\n`, { shown: [draft], calls: [BASH_LS] });
  });

  test("the thinking before a missed end of thinking: a block followed by more thinking runs nothing", () => {
    const text = `I will list them.\n${LS}\nThen I will summarize the output for the user.`;
    expectEverySplit(text, { shown: [text], calls: [] });
  });

  test("a trailing block written mid-line never runs", () => {
    const text = `Now I run it: ${LS}\n\n`;
    expectEverySplit(text, { shown: [text], calls: [] });
  });

  test("every call of the trailing block runs (one function_calls block, two invokes), indentation aside", () => {
    const text = `Both at once:\n  ${dsml("ls -la", "/a")}\n`;
    expectEverySplit(text, { shown: ["Both at once:\n  "], calls: [BASH_LS, 'read {"filePath":"/a"}'] });
  });

  test("of two blocks at the end, only the last is the trailing block", () => {
    const first = `Two:\n${hermes("pwd")}\n`;
    expectEverySplit(`${first}${LS}`, { shown: [first], calls: [BASH_LS] });
  });

  test("a held block goes back where it was when content answers, whitespace after it included", () => {
    const text = `Thinking.\n${LS}\n \n`;
    for (const cuts of [[], everyChar(text.length)]) {
      expect(runChannel([cut(text, cuts)], "The answer is 4.")).toEqual({ shown: [text], calls: [] });
      expect(runChannel([cut(text, cuts)], "\n")).toEqual({ shown: ["Thinking.\n"], calls: [BASH_LS] });
    }
  });

  test("a later stretch of reasoning means the block was not the end: it goes back into its own stretch", () => {
    const one = `Plan:\n${LS}\n`;
    expect(runChannel([[one], ["Hmm, first check the path."]])).toEqual({ shown: [one, "Hmm, first check the path."], calls: [] });
    expect(runChannel([[...one], ["\n"]])).toEqual({ shown: [one, "\n"], calls: [] });
    expect(runChannel([[one]])).toEqual({ shown: ["Plan:\n"], calls: [BASH_LS] });
  });

  test("memory stays bounded: a block with more than 64 KiB of whitespace after it is shown, never held, and never runs", () => {
    const text = `Plan:\n${LS}${" ".repeat(70_000)}`;
    expect(runChannel([[text]])).toEqual({ shown: [text], calls: [] });
    expect(runChannel([[`Plan:\n${LS}`, ...Array.from({ length: 700 }, () => " ".repeat(100))]])).toEqual({ shown: [text], calls: [] });
    expect(runChannel([[`Plan:\n${LS}`, " ".repeat(1000)]]).calls).toEqual([BASH_LS]);
  });

  test("an engine failing while a block is held hands the block back in order, and nothing runs", () => {
    let feeds = 0;
    const failing = () => {
      const engine = createRepairEngine({ tools: TOOLS, channel: "reasoning" });
      const feed = engine.feed.bind(engine);
      // The third delta fed (the whitespace after the held block) throws.
      engine.feed = (delta: string) => {
        if (++feeds === 3) throw new Error("boom");
        return feed(delta);
      };
      return new GuardedEngine(engine, () => undefined);
    };
    const channel = new ReasoningChannel(failing);
    const parts = [`Plan:\n`, LS, "\n", "more"];
    let shown = "";
    for (const part of parts) shown += channel.feed(part);
    shown += channel.close();
    expect(channel.settle(0)).toEqual([]);
    expect(shown + channel.take()).toBe(parts.join(""));
  });

  // Generated reasonings against the definition: prose (mid-line or ending a line), blocks, whitespace.
  type Piece = { kind: "prose" | "space"; text: string } | { kind: "block"; text: string; calls: string[] };
  const prose = fc.constantFrom("Should I call ", "No, wrong path.\n", "Let me think.\n", "Maybe ", "Or this: ", "Fine.");
  const space = fc.constantFrom("\n", "\n\n", " \n");
  const command = fc.constantFrom("ls -la", "rm -rf ~", "pwd", "cat a.txt");
  const piece: fc.Arbitrary<Piece> = fc.oneof(
    prose.map((text) => ({ kind: "prose" as const, text })),
    space.map((text) => ({ kind: "space" as const, text })),
    command.map((c) => ({ kind: "block" as const, text: hermes(c), calls: [`bash ${JSON.stringify({ command: c })}`] })),
    fc.tuple(command, fc.constantFrom("/a", "/b")).map(([c, p]) => ({ kind: "block" as const, text: dsml(c, p), calls: [`bash ${JSON.stringify({ command: c })}`, `read ${JSON.stringify({ filePath: p })}`] })),
  );

  /** The oracle: the last run of blocks, at a line start, with only whitespace after it. */
  function oracle(pieces: Piece[]): ChannelRun {
    const text = pieces.map((p) => p.text).join("");
    let last = pieces.length - 1;
    while (last >= 0 && pieces[last]!.kind === "space") last--;
    if (last < 0 || pieces[last]!.kind !== "block") return { shown: [text], calls: [] };
    let first = last;
    while (first > 0 && pieces[first - 1]!.kind === "block") first--;
    const before = pieces.slice(0, first).map((p) => p.text).join("");
    const line = before.slice(Math.max(before.lastIndexOf("\n"), before.lastIndexOf("\r")) + 1);
    if (line.trim() !== "") return { shown: [text], calls: [] };
    return { shown: [before], calls: pieces.slice(first, last + 1).flatMap((p) => (p.kind === "block" ? p.calls : [])) };
  }

  test("generated reasonings: the channel agrees with the definition, whole, char by char and at random splits", () => {
    fc.assert(
      fc.property(fc.array(piece, { minLength: 1, maxLength: 8 }), fc.integer({ min: 1, max: 1_000_000 }), (pieces, seed) => {
        const text = pieces.map((p) => p.text).join("");
        expectEverySplit(text, oracle(pieces), [seed]);
      }),
      { seed: 27, numRuns: 300 },
    );
  });
});

// ---------------------------------------------------------------- adapters

const REJECTED = `Should I call ${RM}? No, that deletes everything.\n`;

function sse(events: Json[]): string {
  return [...events.map((e) => JSON.stringify(e)), "[DONE]"].map((data) => `data: ${data}\n\n`).join("");
}

async function viaFetch(body: string, cuts: readonly number[]): Promise<{ reasoning: string; content: string; calls: string[] }> {
  const bytes = new TextEncoder().encode(body);
  const parts: Uint8Array[] = [];
  let prev = 0;
  for (const at of [...cuts, bytes.length]) {
    parts.push(bytes.subarray(prev, at));
    prev = at;
  }
  const base = fakeBase(
    () =>
      new Response(
        new ReadableStream<Uint8Array>({
          start(controller) {
            for (const part of parts) controller.enqueue(part);
            controller.close();
          },
        }),
        { status: 200, headers: { "content-type": "text/event-stream" } },
      ),
  );
  const response = await repairFetch({}, base)(URL_CHAT, chatInit({ messages: [{ role: "user", content: "go" }] }));
  const out = { reasoning: "", content: "", calls: [] as string[] };
  for (const frame of (await response.text()).split("\n\n")) {
    const data = frame.startsWith("data: ") ? frame.slice(6) : "";
    if (data === "" || data === "[DONE]") continue;
    const delta = (((JSON.parse(data) as Json).choices as Json[])[0]!.delta ?? {}) as Json;
    if (typeof delta.reasoning_content === "string") out.reasoning += delta.reasoning_content;
    if (typeof delta.content === "string") out.content += delta.content;
    for (const call of (delta.tool_calls ?? []) as Json[]) out.calls.push(`${(call.function as Json).name} ${(call.function as Json).arguments}`);
  }
  return out;
}

function chatReply(reasoning: string, content: string[] = []): string {
  return sse([
    chunk({ role: "assistant", content: "" }),
    ...[...reasoning].map((r) => chunk({ reasoning_content: r, content: null })),
    ...content.map((c) => chunk({ content: c })),
    chunk({}, "stop"),
  ]);
}

describe("fetch adapter (chat completions)", () => {
  test("streamed: the rejected call never runs and is shown, at every split of the reasoning chunks", async () => {
    const body = chatReply(REJECTED);
    const seen = [[], ...[1, 2, 3, 4, 5].map((seed) => randomCuts(body.length, seed, 40))];
    for (const cuts of seen) expect(await viaFetch(body, cuts)).toEqual({ reasoning: REJECTED, content: "", calls: [] });
  });

  test("streamed: a draft and its correction run only the correction; content prose after whitespace gives the block back", async () => {
    const draft = `Draft:\n${RM}\nNo. Instead:\n`;
    expect(await viaFetch(chatReply(`${draft}${LS}\n`), [])).toEqual({ reasoning: draft, content: "", calls: ['bash {"command":"ls -la"}'] });
    const answered = await viaFetch(chatReply(`${draft}${LS}\n`, ["\n", "It is done."]), []);
    expect(answered).toEqual({ reasoning: `${draft}${LS}\n`, content: "\nIt is done.", calls: [] });
  });

  test("JSON: a rejected call in reasoning_content never runs", async () => {
    const reply = { id: "c1", object: "chat.completion", created: 1, model: "m", choices: [{ index: 0, message: { role: "assistant", content: null, reasoning_content: REJECTED }, finish_reason: "stop" }] };
    const response = await repairFetch({}, fakeBase(jsonReply(reply)))(URL_CHAT, chatInit({ stream: false, messages: [{ role: "user", content: "go" }] }));
    const message = (((await response.json()) as Json).choices as Json[])[0]!.message as Json;
    expect(message.tool_calls).toBeUndefined();
    expect(message.reasoning_content).toBe(REJECTED);
  });
});

type Part = LanguageModelV3StreamPart;
const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 1 } };
const prompt: LanguageModelV3Prompt = [{ role: "user", content: [{ type: "text", text: "go" }] }];

async function viaMiddleware(stream: Part[]): Promise<Part[]> {
  const mock = new MockLanguageModelV3({ doStream: async () => ({ stream: convertArrayToReadableStream(stream) }) });
  const model = wrapLanguageModel({ model: mock, middleware: repairMiddleware({}) });
  return convertReadableStreamToArray((await model.doStream({ prompt, tools: sdkTools() })).stream);
}

function thought(id: string, deltas: string[]): Part[] {
  return [{ type: "reasoning-start", id }, ...deltas.map((delta): Part => ({ type: "reasoning-delta", id, delta })), { type: "reasoning-end", id }];
}

const finish: Part = { type: "finish", usage, finishReason: { unified: "stop", raw: "stop" } };

/** Each part's reasoning, and every reasoning delta inside its own open part. */
function reasoningOf(out: Part[]): Record<string, string> {
  const open = new Set<string>();
  const text: Record<string, string> = {};
  for (const p of out) {
    if (p.type === "reasoning-start") open.add(p.id);
    if (p.type === "reasoning-end") open.delete(p.id);
    if (p.type === "reasoning-delta") {
      expect(open.has(p.id)).toBe(true);
      text[p.id] = (text[p.id] ?? "") + p.delta;
    }
  }
  return text;
}

const callsOf = (out: Part[]) => out.flatMap((p) => (p.type === "tool-call" ? [`${p.toolName} ${p.input}`] : []));

describe("middleware", () => {
  test("streamed: the rejected call never runs, char by char", async () => {
    const out = await viaMiddleware([{ type: "stream-start", warnings: [] }, ...thought("r", [...REJECTED]), finish]);
    expect(callsOf(out)).toEqual([]);
    expect(reasoningOf(out)).toEqual({ r: REJECTED });
  });

  test("streamed: a block followed by a second stretch goes back into its own part, before that part ends", async () => {
    const one = `Plan:\n${LS}\n`;
    for (const cuts of [[], everyChar(one.length), randomCuts(one.length, 7, 9)]) {
      const out = await viaMiddleware([{ type: "stream-start", warnings: [] }, ...thought("r1", cut(one, cuts)), ...thought("r2", ["Check first."]), finish]);
      expect(callsOf(out)).toEqual([]);
      expect(reasoningOf(out)).toEqual({ r1: one, r2: "Check first." });
    }
  });

  test("streamed: a trailing block then content prose: shown in its part, whose end waits for it", async () => {
    const one = `Plan:\n${LS}\n`;
    const text: Part[] = [{ type: "text-start", id: "t" }, { type: "text-delta", id: "t", delta: "\n" }, { type: "text-delta", id: "t", delta: "Done." }, { type: "text-end", id: "t" }];
    const out = await viaMiddleware([{ type: "stream-start", warnings: [] }, ...thought("r", [...one]), ...text, finish]);
    expect(callsOf(out)).toEqual([]);
    expect(reasoningOf(out)).toEqual({ r: one });
    const ran = await viaMiddleware([{ type: "stream-start", warnings: [] }, ...thought("r", [...one]), finish]);
    expect(callsOf(ran)).toEqual([`bash {"command":"ls -la"}`]);
    expect(reasoningOf(ran)).toEqual({ r: "Plan:\n" });
    expect(ran.filter((p) => p.type === "reasoning-end")).toHaveLength(1);
  });

  test("generate: a rejected call never runs; the trailing block does", async () => {
    const generate = async (text: string) => {
      const mock = new MockLanguageModelV3({ doGenerate: async () => ({ content: [{ type: "reasoning", text }], finishReason: { unified: "stop", raw: "stop" }, usage, warnings: [] }) });
      return wrapLanguageModel({ model: mock, middleware: repairMiddleware({}) }).doGenerate({ prompt, tools: sdkTools() });
    };
    const rejected = await generate(REJECTED);
    expect(rejected.content).toEqual([{ type: "reasoning", text: REJECTED }]);
    const trailing = await generate(`${REJECTED}${LS}`);
    expect(trailing.content).toEqual([
      { type: "reasoning", text: REJECTED },
      { type: "tool-call", toolCallId: expect.any(String), toolName: "bash", input: '{"command":"ls -la"}' },
    ]);
  });
});

// ---------------------------------------------------------------- one documentation context per reasoning

/**
 * The stretches of one reply's reasoning are one text: a fence opened in one stretch still holds in
 * the next (whatever content came between), and a block written inside it is documentation, never
 * the trailing block. The content keeps a context of its own: a fence in either channel never
 * reaches the other. Each test pairs its case with a hard negative (a fence closed in its own
 * stretch leaves the next stretch's block free, as before) or the other channel's view.
 */
const FENCE_OPEN = "Example of what never to do:\n```\n";
const FENCE_CLOSED = "Example:\n```\nsh run.sh\n```\n";
/** Closes the fence FENCE_OPEN left open, then writes the trailing block. */
const CLOSE_THEN_LS = `rm -rf ~\n\`\`\`\nInstead:\n${LS}\n`;
const DSML_CALLS = ['bash {"command":"rm -rf ~"}', 'read {"filePath":"/a"}'];

/** Every stretch cut the same way: whole, char by char, and at seeded random splits. */
function expectEveryStretchSplit(stretches: string[], expected: ChannelRun, seeds = [1, 2, 3]): void {
  const ways: ((length: number) => number[])[] = [() => [], everyChar, ...seeds.map((seed) => (length: number) => randomCuts(length, seed, 9))];
  for (const way of ways) {
    const cuts = stretches.map((s) => way(s.length));
    const got = runChannel(stretches.map((s, i) => cut(s, cuts[i]!)));
    if (got.shown.join("\u0000") !== expected.shown.join("\u0000") || got.calls.join("\n") !== expected.calls.join("\n")) {
      expect({ cuts, ...got }).toEqual({ cuts, ...expected });
    }
  }
}

describe("the reasoning channel: one documentation context across stretches", () => {
  test("a fence opened in one stretch still holds in the next: the block inside it never runs", () => {
    expectEveryStretchSplit([FENCE_OPEN, `${RM}\n`], { shown: [FENCE_OPEN, `${RM}\n`], calls: [] });
    const block = dsml("rm -rf ~", "/a");
    expectEveryStretchSplit([FENCE_OPEN, `${block}\n`], { shown: [FENCE_OPEN, `${block}\n`], calls: [] });
    // Still open two stretches on.
    expectEveryStretchSplit([FENCE_OPEN, "rm -rf ~\n", `${RM}\n`], { shown: [FENCE_OPEN, "rm -rf ~\n", `${RM}\n`], calls: [] });
    // Hard negative: a fence closed in its own stretch leaves the next stretch's block free to run.
    expectEveryStretchSplit([FENCE_CLOSED, `${LS}\n`], { shown: [FENCE_CLOSED, ""], calls: [BASH_LS] });
    expectEveryStretchSplit([FENCE_CLOSED, `Now:\n${block}`], { shown: [FENCE_CLOSED, "Now:\n"], calls: DSML_CALLS });
  });

  test("a fence opened in one stretch is closed by the next: a block after the closer is the trailing block", () => {
    // Read alone, the later stretch's closer would open a fence and hold the block in it.
    expectEveryStretchSplit([FENCE_OPEN, CLOSE_THEN_LS], { shown: [FENCE_OPEN, "rm -rf ~\n```\nInstead:\n"], calls: [BASH_LS] });
  });

  test("a stretch whose engine failed loses the context: the later stretches pass through and nothing runs", () => {
    let engines = 0;
    const channel = new ReasoningChannel((continues) => {
      engines++;
      const engine = createRepairEngine({ tools: TOOLS, channel: "reasoning", ...(continues ? { continues } : {}) });
      engine.feed = () => {
        throw new Error("boom");
      };
      return new GuardedEngine(engine, () => undefined);
    });
    let shown = channel.feed(FENCE_OPEN) + channel.close();
    shown += channel.feed(`${LS}\n`) + channel.close();
    expect(channel.settle(0)).toEqual([]);
    expect(shown + channel.take()).toBe(`${FENCE_OPEN}${LS}\n`);
    expect(engines).toBe(1);
  });
});

/** A chat stream: `["r", text]` a reasoning stretch, one chunk per character; `["c", text]` one content chunk. */
function chatInterleaved(pieces: ["r" | "c", string][]): string {
  return sse([
    chunk({ role: "assistant", content: "" }),
    ...pieces.flatMap(([kind, text]) => (kind === "c" ? [chunk({ content: text })] : [...text].map((r) => chunk({ reasoning_content: r, content: null })))),
    chunk({}, "stop"),
  ]);
}

/** The same reply, and the same result, whole and at seeded random byte splits of the body. */
async function expectEveryByteSplit(body: string, expected: { reasoning: string; content: string; calls: string[] }): Promise<void> {
  for (const cuts of [[], ...[1, 2, 3].map((seed) => randomCuts(body.length, seed, 40))]) {
    const got = await viaFetch(body, cuts);
    if (JSON.stringify(got) !== JSON.stringify(expected)) expect({ cuts, ...got }).toEqual({ cuts, ...expected });
  }
}

describe("fetch adapter (chat completions): one documentation context for the reasoning", () => {
  test("streamed: a fence opened in reasoning still holds after a blank content delta; the block in it never runs", async () => {
    const second = `${RM}\n`;
    await expectEveryByteSplit(chatInterleaved([["r", FENCE_OPEN], ["c", "\n"], ["r", second]]), { reasoning: FENCE_OPEN + second, content: "\n", calls: [] });
    // Each stretch in one chunk.
    const whole = sse([chunk({ role: "assistant", content: "" }), chunk({ reasoning_content: FENCE_OPEN }), chunk({ content: "\n" }), chunk({ reasoning_content: second }), chunk({}, "stop")]);
    expect(await viaFetch(whole, [])).toEqual({ reasoning: FENCE_OPEN + second, content: "\n", calls: [] });
    // Hard negative: a fence closed in its own stretch leaves the next stretch's block to run, as before.
    await expectEveryByteSplit(chatInterleaved([["r", FENCE_CLOSED], ["c", "\n"], ["r", `${LS}\n`]]), { reasoning: FENCE_CLOSED, content: "\n", calls: [BASH_LS] });
    // The content's own context: the fence open in the reasoning never reaches it, its block runs.
    const content = await viaFetch(chatInterleaved([["r", FENCE_OPEN], ["c", "\n"], ["c", `${LS}\n`]]), []);
    expect({ reasoning: content.reasoning, calls: content.calls }).toEqual({ reasoning: FENCE_OPEN, calls: [BASH_LS] });
  });

  test("streamed: the later stretch closes the earlier stretch's fence; the block after it runs", async () => {
    const closed = `${FENCE_OPEN}rm -rf ~\n\`\`\`\nInstead:\n`;
    await expectEveryByteSplit(chatInterleaved([["r", FENCE_OPEN], ["c", "\n"], ["r", CLOSE_THEN_LS]]), { reasoning: closed, content: "\n", calls: [BASH_LS] });
    // The reasoning's closer is its own: a fence open in the content stays open, the content's block after it never runs.
    await expectEveryByteSplit(chatInterleaved([["c", "Never:\n```\n"], ["r", "```\n"], ["c", `${LS}\n`]]), { reasoning: "```\n", content: `Never:\n\`\`\`\n${LS}\n`, calls: [] });
  });
});

describe("middleware: one documentation context for the reasoning", () => {
  const start: Part = { type: "stream-start", warnings: [] };
  /** Every reasoning part cut the same way: whole, char by char, at seeded random splits. */
  const everyCut = (texts: string[]) => [() => [], everyChar, (n: number) => randomCuts(n, 7, 9), (n: number) => randomCuts(n, 8, 9)].map((way) => texts.map((t) => cut(t, way(t.length))));

  test("streamed: a fence opened in one reasoning part still holds in the next; the block in it never runs", async () => {
    const second = `${RM}\n`;
    for (const [one, two] of everyCut([FENCE_OPEN, second])) {
      const out = await viaMiddleware([start, ...thought("r1", one!), ...thought("r2", two!), finish]);
      expect(callsOf(out)).toEqual([]);
      expect(reasoningOf(out)).toEqual({ r1: FENCE_OPEN, r2: second });
    }
    // Hard negative: a fence closed in its own part leaves the next part's block to run.
    for (const [one, two] of everyCut([FENCE_CLOSED, `Now:\n${LS}\n`])) {
      const out = await viaMiddleware([start, ...thought("r1", one!), ...thought("r2", two!), finish]);
      expect(callsOf(out)).toEqual([BASH_LS]);
      expect(reasoningOf(out)).toEqual({ r1: FENCE_CLOSED, r2: "Now:\n" });
    }
  });

  test("streamed: the later part closes the earlier part's fence; the block after it runs", async () => {
    for (const [one, two] of everyCut([FENCE_OPEN, CLOSE_THEN_LS])) {
      const out = await viaMiddleware([start, ...thought("r1", one!), ...thought("r2", two!), finish]);
      expect(callsOf(out)).toEqual([BASH_LS]);
      expect(reasoningOf(out)).toEqual({ r1: FENCE_OPEN, r2: "rm -rf ~\n```\nInstead:\n" });
    }
    // The text's own context: a fence open in the reasoning never reaches it, its block runs.
    const text: Part[] = [{ type: "text-start", id: "t" }, { type: "text-delta", id: "t", delta: `${LS}\n` }, { type: "text-end", id: "t" }];
    const out = await viaMiddleware([start, ...thought("r1", [FENCE_OPEN]), ...text, finish]);
    expect(callsOf(out)).toEqual([BASH_LS]);
    expect(reasoningOf(out)).toEqual({ r1: FENCE_OPEN });
  });

  test("generate: a fence opened in one reasoning part holds in the next; one closed in its own part does not", async () => {
    const generate = async (texts: string[]) => {
      const content = texts.map((text) => ({ type: "reasoning" as const, text }));
      const mock = new MockLanguageModelV3({ doGenerate: async () => ({ content, finishReason: { unified: "stop", raw: "stop" }, usage, warnings: [] }) });
      return wrapLanguageModel({ model: mock, middleware: repairMiddleware({}) }).doGenerate({ prompt, tools: sdkTools() });
    };
    const held = await generate([FENCE_OPEN, `${RM}\n`]);
    expect(held.content).toEqual([
      { type: "reasoning", text: FENCE_OPEN },
      { type: "reasoning", text: `${RM}\n` },
    ]);
    const ran = await generate([FENCE_CLOSED, `Now:\n${RM}\n`]);
    expect(ran.content).toEqual([
      { type: "reasoning", text: FENCE_CLOSED },
      { type: "reasoning", text: "Now:\n" },
      { type: "tool-call", toolCallId: expect.any(String), toolName: "bash", input: '{"command":"rm -rf ~"}' },
    ]);
  });
});
