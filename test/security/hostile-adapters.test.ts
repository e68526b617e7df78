/**
 * Threat 3, hostile text, at the adapters: test/hostile/bad-input.test.ts runs the nasty corpus
 * through parse() and the engine; this runs it through the fetch adapter (SSE framing, JSON
 * escapes, CRLF events) and the middleware with the real engine. For every input: no exception,
 * the stream completes, every character is visible, inside a recovered call, or in a stripped
 * span, and the engine never holds more than 2 * bufferLimit + 512 characters. Hostile request
 * bodies and a hostile echo-guard haystack are covered too; work is counted, never timed.
 */
import { describe, expect, test } from "bun:test";
import type { LanguageModelV3Prompt } from "@ai-sdk/provider";
import type { EngineFactory } from "../../src/adapters/options.ts";
import type { RecoveredCall } from "../../src/parse/types.ts";
import { createRepairEngine } from "../../src/engine/engine.ts";
import { DEFAULT_BUFFER_LIMIT } from "../../src/engine/limits.ts";
import type { EngineEvent, EngineSummary } from "../../src/engine/types.ts";
import { BAR, D, DVL, block, live } from "../golden/notation.ts";
import { accountsForEveryCharacter } from "../support/run-engine.ts";
import { middlewareShown } from "../support/anthropic-blank.ts";
import { countWorkAsync as countWork } from "../support/work.ts";
import { URL_CHAT, assemble, chatInit, deltas, fakeBase, sdkTools, sseReply, sseText, textStream, throughFetch, type Json } from "./support.ts";
import { repairFetch } from "../../src/adapters/fetch.ts";
import { repairMiddleware } from "../../src/adapters/middleware.ts";
import { wrapLanguageModel } from "ai";
import { MockLanguageModelV3, convertArrayToReadableStream, convertReadableStreamToArray } from "ai/test";

const MB = 1 << 20;
const HELD_BOUND = 2 * DEFAULT_BUFFER_LIMIT + 512;
const SLOW = 60_000;
const fill = (unit: string, length: number) => unit.repeat(Math.ceil(length / unit.length));

const canonical = live(block("tool_calls", [["bash", [["command", "ls -la"]]]]));
const PROSE = "The build passed on the second try, so I will look at the config next.\nEs gibt 3 Warnungen; 日本語、中文 and \uD83D\uDE00 too. a > b, x = y.\n    code line\n```ts\nconst a = 1;\n```\n";
const SENTINELS = [D, `${BAR}${BAR}DSML${BAR}${BAR}`, "|DSML|", "||DSML||", `${DVL}DSML${DVL}`, " | DSML | ", `${D} `];
const ENTITIES = [`<!ENTITY a "${"x".repeat(100)}">`, ...Array.from({ length: 9 }, (_, i) => `<!ENTITY a${i + 1} "${`&a${i === 0 ? "" : i};`.repeat(10)}">`)].join("");

interface Item {
  name: string;
  input: string;
  /** Characters per SSE event / text delta. */
  size: number;
  check?: (run: Observed) => void;
}

const CORPUS: Item[] = [
  { name: "10 MB of prose", input: fill(PROSE, 10 * MB), size: 4096, check: (r) => expect(r.calls.length).toBe(0) },
  {
    name: "100,000 unclosed DSML openers",
    input: `<${D}invoke name="bash">`.repeat(100_000),
    size: 4096,
    check: (r) => {
      expect(r.calls.length).toBe(0);
      // Each unclosed opener ends at the next one (SpanReader.restart): markup that ran nothing, a nudge.
      expect(r.summary.nudge).not.toBeNull();
    },
  },
  ...SENTINELS.map((sentinel, i) => ({
    name: `300 blocks with sentinel variant ${i + 1}`,
    input: `${canonical.replaceAll(D, sentinel)}\n`.repeat(300),
    size: 61,
    check: (r: Observed) => expect(r.calls.map((c) => c.input.command)).toEqual(Array(300).fill("ls -la")),
  })),
  { name: "every marker opener repeated", input: SENTINELS.map((s) => `<${s}tool_calls><${s}parameter name="command" string="true"></${s}invoke>${s}`).join("").repeat(2000), size: 997 },
  { name: "a quote flood in an attribute", input: `<${D}invoke name="${'"'.repeat(200_000)}`, size: 4096 },
  { name: "unterminated quotes on every line", input: `<${D}invoke name="bash\n`.repeat(5000), size: 7 },
  { name: "single and double quotes interleaved", input: `<${D}invoke name='bash" string='"'>`.repeat(5000), size: 113 },
  { name: "lone surrogates", input: fill("a\uD800b\uDC00c\uDC00\uD800 \uD83D", 300_000), size: 4096 },
  {
    name: "a lone surrogate inside a recovered value",
    input: `\uDC00${live(block("tool_calls", [["bash", [["command", "echo \uD800x\uDC00"]]]]))}`,
    size: 3,
    check: (r) => expect(r.calls.map((c) => c.input.command)).toEqual(["echo \uD800x\uDC00"]),
  },
  { name: "NUL bytes", input: fill("\0\0a\0<\0|\0", 300_000), size: 4096 },
  {
    name: "NUL inside a recovered value",
    input: `\0${live(block("tool_calls", [["bash", [["command", "printf 'a\0b'"]]]]))}\0`,
    size: 5,
    check: (r) => expect(r.calls.map((c) => c.input.command)).toEqual(["printf 'a\0b'"]),
  },
  {
    name: "CRLF blocks",
    input: `Look.\r\n${canonical.replaceAll("\n", "\r\n")}\r\n`.repeat(100),
    size: 7,
    check: (r) => expect(r.calls.length).toBe(100),
  },
  {
    name: "mixed scripts around a block",
    input: `${fill("English, Ελληνικά, русский, עברית\u200F, العربية\u200E, हिन्दी, 한국어, \u202Ertl\u202C\n", MB)}${live(block("tool_calls", [["bash", [["command", "echo '日本語 \uD83D\uDE80'"]]]]))}`,
    size: 4096,
    check: (r) => expect(r.calls.map((c) => c.input.command)).toEqual(["echo '日本語 \uD83D\uDE80'"]),
  },
  {
    name: "a DOCTYPE entity bomb before an XML costume is never expanded",
    input: `<!DOCTYPE tool_call [${ENTITIES}]>\n<tool_call><tool_name>execute</tool_name><tool_args><language>sh</language><code>echo &a9;</code></tool_args></tool_call>`,
    size: 7,
    // Review 52: a reference the costume's decoder does not know (`&a9;`) refuses the costume rather
    // than run `echo &` and `a9;` (bash's reading of it): no call, the text kept (expectSound).
    check: (r) => expect(r.calls).toEqual([]),
  },
];

interface Observed {
  text: string;
  calls: RecoveredCall[];
  summary: EngineSummary;
  maxHeld: number;
}

/** The real engine, with what it released and how much it held recorded. */
function recording(): { factory: EngineFactory; seen: Omit<Observed, "text">; events: EngineEvent[] } {
  const seen: Omit<Observed, "text"> = { calls: [], summary: { recovered: 0, nudge: null, broken: [], stripped: [], heldCandidateNoCall: 0 }, maxHeld: 0 };
  const events: EngineEvent[] = [];
  const factory: EngineFactory = (options) => {
    const engine = createRepairEngine(options);
    const take = (fed: EngineEvent[]) => {
      for (const e of fed) if (e.type === "call") seen.calls.push(e.call);
      events.push(...fed);
      return fed;
    };
    return {
      feed: (delta) => {
        const events = take(engine.feed(delta));
        seen.maxHeld = Math.max(seen.maxHeld, engine.held);
        return events;
      },
      flush: () => take(engine.flush()),
      noteNativeToolCall: () => engine.noteNativeToolCall(),
      get held() {
        return engine.held;
      },
      summary: () => (seen.summary = engine.summary()),
      heldText: (from, to) => engine.heldText(from, to),
    };
  };
  return { factory, seen, events };
}

function expectSound(input: string, run: Observed, item: Item): void {
  expect(run.maxHeld).toBeLessThanOrEqual(HELD_BOUND);
  // Compared as booleans: a failing 10 MB diff would bury the test output.
  expect(accountsForEveryCharacter(input, run)).toBe(true);
  if (run.calls.length === 0 && run.summary.stripped.length === 0) expect(run.text === input).toBe(true);
  item.check?.(run);
}

describe("the nasty corpus through the fetch adapter (SSE)", () => {
  for (const item of CORPUS) {
    test(item.name, async () => {
      const { factory, seen } = recording();
      const eol = item.name.includes("CRLF") ? "\r\n" : "\n";
      const { out } = await throughFetch({ messages: [{ role: "user", content: "go" }] }, { sse: sseText(deltas(item.input, item.size), { eol }) }, {}, { createEngine: factory });
      expect(out.done).toBe(true);
      expect(out.finish).toBe(seen.calls.length > 0 ? "tool_calls" : "stop");
      expectSound(item.input, { ...seen, text: out.content }, item);
      expect(out.calls.length).toBe(seen.calls.length);
    }, SLOW);
  }
});

describe("the nasty corpus through the middleware", () => {
  const prompt: LanguageModelV3Prompt = [{ role: "user", content: [{ type: "text", text: "go" }] }];
  for (const item of CORPUS) {
    test(item.name, async () => {
      const { factory, seen, events } = recording();
      const mock = new MockLanguageModelV3({ doStream: async () => ({ stream: convertArrayToReadableStream(textStream(item.input, item.size)) }) });
      const model = wrapLanguageModel({ model: mock, middleware: repairMiddleware({}, { createEngine: factory }) });
      const { stream } = await model.doStream({ prompt, tools: sdkTools() });
      const parts = await convertReadableStreamToArray(stream);
      const text = parts.map((p) => (p.type === "text-delta" ? p.delta : "")).join("");
      expect(parts.at(-1)?.type).toBe("finish");
      // Every character is accounted for in what the engine gave out; the middleware then shows that
      // text but whitespace left alone beside a call in its part (fix 57 diff B, middlewareShown).
      const engineText = events.map((e) => (e.type === "text" ? e.text : "")).join("");
      expectSound(item.input, { ...seen, text: engineText }, item);
      expect(text === middlewareShown(events)).toBe(true);
      expect(parts.filter((p) => p.type === "tool-call").length).toBe(seen.calls.length);
    }, SLOW);
  }
});

describe("hostile request bodies", () => {
  const leak = `Run:\n${canonical}`;
  const bodies: [string, string | undefined][] = [
    ["not JSON", "{ this is not json"],
    ["JSON null", "null"],
    ["tools of the wrong types", JSON.stringify({ messages: "x", tools: [null, 1, "bash", { type: "function" }, { type: "function", function: { name: 7 } }, { type: "function", function: { name: "" } }] })],
    ["messages of the wrong types", JSON.stringify({ messages: [null, 1, "x", { role: 5 }, { role: "tool", content: { deep: [[[{ text: 3 }]]] } }], tools: [{ type: "function", function: { name: "bash" } }] })],
    ["10,000-deep nesting in a tool result", `{"tools":[{"type":"function","function":{"name":"bash"}}],"messages":[{"role":"tool","content":${"[".repeat(10_000)}"x"${"]".repeat(10_000)}}]}`],
    ["100,000 content parts", JSON.stringify({ tools: [{ type: "function", function: { name: "bash" } }], messages: [{ role: "user", content: Array.from({ length: 100_000 }, (_, i) => ({ type: "text", text: `part ${i}` })) }] })],
    ["10,000 declared tools", JSON.stringify({ messages: [], tools: Array.from({ length: 10_000 }, (_, i) => ({ type: "function", function: { name: i === 9_999 ? "bash" : `t${i}` } })) })],
    ["no body", undefined],
  ];
  for (const [name, body] of bodies) {
    test(`${name}: the request goes through and the reply comes back whole`, async () => {
      const base = fakeBase(sseReply(sseText(deltas(leak, 7))));
      const repaired = repairFetch({}, base);
      const response = await repaired(URL_CHAT, { method: "POST", headers: { "content-type": "application/json" }, body });
      const out = assemble(await response.text());
      expect(base.calls).toBe(1);
      expect(out.done).toBe(true);
      // Either the reply was repaired (a bash tool was declared) or passed through untouched.
      if (out.calls.length > 0) expect(out.calls).toEqual([{ name: "bash", arguments: '{"command":"ls -la"}' }]);
      else expect(out.content).toBe(leak);
    });
  }

  test("a request body is only inspected as JSON for POST chat completions", async () => {
    const base = fakeBase(sseReply(sseText([`Run:\n${canonical}`])));
    const init = chatInit({ messages: [] }) as RequestInit;
    const out = assemble(await (await repairFetch({}, base)(URL_CHAT.replace("chat/completions", "completions"), init)).text());
    expect(out.calls).toEqual([]);
  });
});

describe("a hostile echo-guard haystack stays linear through the adapter", () => {
  /** A tool result of repeated `<shell>` lines and a reply that quotes it with one wrong character. */
  function request(n: number): { messages: Json[]; reply: string } {
    const lines = Math.floor(n / 8);
    return {
      messages: [{ role: "user", content: "go" }, { role: "tool", tool_call_id: "c1", content: "<shell>\n".repeat(lines) }],
      reply: `<shell>\n${"<shell>\n".repeat(Math.floor(lines / 4))}x\n</shell>`,
    };
  }

  test("4x the given content and reply cost at most 4.5x the work; the reply's own call (its `x` was never given) runs", async () => {
    const work = async (n: number) => {
      const { messages, reply } = request(n);
      let calls = 0;
      const units = await countWork(async () => {
        calls = (await throughFetch({ messages }, { sse: sseText(deltas(reply, 4096)) })).out.calls.length;
      });
      // The guard searches the given content for the call's value; no reader walks the unclosed
      // `<shell>` lines (the stateful reader this replaced ran out of budget here and stopped the call).
      expect(calls).toBe(1);
      return units;
    };
    const small = await work(50_000);
    const large = await work(200_000);
    expect(large / small).toBeLessThanOrEqual(4.5);
  }, SLOW);
});

describe("hostile adapter options", () => {
  test("negative, zero, non-finite, enormous and mistyped bufferLimits reach the engine as a sane limit or none", async () => {
    const seen: unknown[] = [];
    for (const bufferLimit of [-5, 0, Number.NaN, Number.POSITIVE_INFINITY, 1e300, 2.5, "4096", null]) {
      const factory: EngineFactory = (options) => {
        seen.push(options.bufferLimit);
        return createRepairEngine(options);
      };
      const responseFix = { bufferLimit } as unknown as { bufferLimit: number };
      const reply = `Run:\n${canonical}`;
      const { out } = await throughFetch({ messages: [{ role: "user", content: "go" }] }, { sse: sseText(deltas(reply, 7)) }, { responseFix }, { createEngine: factory });
      // A limit of 2 is what was asked for: the markup cannot be held, so it is released as text.
      if (seen.at(-1) === 2) expect(out).toMatchObject({ content: reply, calls: [] });
      else expect(out.calls).toEqual([{ name: "bash", arguments: '{"command":"ls -la"}' }]);
    }
    expect(seen).toEqual([undefined, undefined, undefined, 16_777_216, 16_777_216, 2, undefined, undefined]);
  });
});

describe("a parser bug on the engine's plain fast path (inside feed(), nothing held)", () => {
  const broken: EngineFactory = (options) => {
    const engine = createRepairEngine(options);
    const feed = engine.feed.bind(engine);
    // A delta with no character the engine stops at takes its fast path: break exactly that one.
    const fed = (delta: string) => {
      if (!/[<\n]/.test(delta)) throw new Error("fast path broke");
      return feed(delta);
    };
    return Object.assign(engine, { feed: fed });
  };
  const reply = `Plain prose first.\n${canonical}\nand after.`;

  test("fetch: the reply passes through whole, with exactly one debug line naming the fault", async () => {
    const lines: string[] = [];
    const { out } = await throughFetch({ messages: [{ role: "user", content: "go" }] }, { sse: sseText(deltas(reply, 7)) }, { debug: (l) => lines.push(l) }, { createEngine: broken });
    expect(out).toMatchObject({ content: reply, calls: [] });
    expect(lines.filter((l) => l.includes("fast path broke"))).toHaveLength(1);
  });

  test("middleware: the same", async () => {
    const lines: string[] = [];
    const middleware = repairMiddleware({ debug: (l) => lines.push(l) }, { createEngine: broken });
    const mock = new MockLanguageModelV3({ doStream: async () => ({ stream: convertArrayToReadableStream(textStream(reply)) }) });
    const { stream } = await wrapLanguageModel({ model: mock, middleware }).doStream({ prompt: [{ role: "user", content: [{ type: "text", text: "go" }] }], tools: sdkTools() });
    const parts = await convertReadableStreamToArray(stream);
    expect(parts.map((p) => (p.type === "text-delta" ? p.delta : "")).join("")).toBe(reply);
    expect(parts.filter((p) => p.type === "tool-call")).toEqual([]);
    expect(lines.filter((l) => l.includes("fast path broke"))).toHaveLength(1);
  });
});
