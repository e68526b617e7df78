/**
 * fx-47b-stray: a call read in a block still open is decided at the block's closer (or the reply's
 * end, or the limit), so a parameter outside every invoke anywhere before that closer refuses
 * every call of the block (review 47b findings 2, 2b, 3, 4; the known gap of review 47 closed).
 * Here: what the rule must not refuse (a closed block, S03 after it), what it refuses through the
 * AI SDK middleware, the reports, and where the held calls go out.
 */
import { describe, expect, test } from "bun:test";
import type { LanguageModelV3CallOptions, LanguageModelV3FunctionTool, LanguageModelV3StreamPart, LanguageModelV3Usage } from "@ai-sdk/provider";
import { wrapLanguageModel } from "ai";
import { MockLanguageModelV3, convertArrayToReadableStream, convertReadableStreamToArray } from "ai/test";
import { repairMiddleware } from "../../src/adapters/middleware.ts";
import { createRepairEngine } from "../../src/engine/engine.ts";
import { parse } from "../../src/engine/parse.ts";
import { live } from "../golden/notation.ts";
import { fixtureTools } from "../golden/tools.ts";
import { accountsForEveryCharacter, randomCuts, runAtEverySplit, runEngine } from "../support/run-engine.ts";
import { countWork } from "../support/work.ts";

const RM = `<{D}invoke name="bash">\n<{D}parameter name="command" string="true">rm -rf ./*</{D}parameter>\n</{D}invoke>`;
const LS = RM.replace("rm -rf ./*", "ls");
const WORKDIR = `<{D}parameter name="workdir" string="true">/tmp/scratch</{D}parameter>`;

function run(notation: string) {
  const input = live(notation);
  const r = runAtEverySplit(input, fixtureTools);
  expect(accountsForEveryCharacter(input, r)).toBe(true);
  expect(parse(input, fixtureTools).calls.map((c) => c.input)).toEqual(r.calls.map((c) => c.input));
  return r;
}

describe("what the rule does not refuse", () => {
  test("the block closed, then prose, then a parameter: the call runs (the parameter is a loose value)", () => {
    const r = run(`Cleaning.\n<{D}tool_calls>\n${RM}\n</{D}tool_calls>\nNote:\n${WORKDIR}`);
    expect(r.calls.map((c) => c.input)).toEqual([{ command: "rm -rf ./*" }]);
  });

  test("the block's closer taken by a call read after prose ends the block too: a parameter after it refuses nothing", () => {
    const r = run(`Cleaning.\n<{D}tool_calls>\n${LS}\nThen:\n${RM}\n</{D}tool_calls>\nDone.\n${WORKDIR}`);
    expect(r.calls.map((c) => c.input)).toEqual([{ command: "ls" }, { command: "rm -rf ./*" }]);
  });

  test("two calls in one block, prose between them, no stray: both run", () => {
    const r = run(`Cleaning.\n<{D}tool_calls>\n${LS}\nThen:\n${RM}\n</{D}tool_calls>`);
    expect(r.calls.map((c) => c.input)).toEqual([{ command: "ls" }, { command: "rm -rf ./*" }]);
  });

  test("a block never closed: its calls run at the reply's end, as before", () => {
    expect(run(`Cleaning.\n<{D}tool_calls>\n${LS}\n${RM}`).calls.map((c) => c.input)).toEqual([{ command: "ls" }, { command: "rm -rf ./*" }]);
  });

  test("a new block opened while the first never closed: the first's call runs, the second's too", () => {
    const r = run(`<{D}tool_calls>\n${LS}\nAnd:\n<{D}tool_calls>\n${RM}\n</{D}tool_calls>`);
    expect(r.calls.map((c) => c.input)).toEqual([{ command: "ls" }, { command: "rm -rf ./*" }]);
  });

  test("S03 still strips a fabricated result after the block's closer", () => {
    const notation = `<{D}tool_calls>\n${LS}\n</{D}tool_calls>\nThe output was: a.txt b.txt`;
    expect(run(notation).calls.map((c) => c.input)).toEqual([{ command: "ls" }]);
    const r = parse(live(notation), fixtureTools);
    expect(r.stripped.some((s) => s.kind === "fabricated-result")).toBe(true);
    expect(r.text).not.toContain("a.txt");
  });

  test("Qwen3-Coder: a parameter after `</tool_call>` and prose leaves the call alone", () => {
    const qwen = `<tool_call>\n<function=bash>\n<parameter=command>\nls\n</parameter>\n</function>\n</tool_call>\nNote:\n<parameter=workdir>\n/tmp/scratch\n</parameter>`;
    expect(run(qwen).calls.map((c) => c.input)).toEqual([{ command: "ls" }]);
  });

  test("Qwen3-Coder: a complete call without a stray runs at `</tool_call>`, after a line between", () => {
    const qwen = `<tool_call>\n<function=bash>\n<parameter=command>\nls\n</parameter>\n</function>\n\n</tool_call>`;
    expect(run(qwen).calls.map((c) => c.input)).toEqual([{ command: "ls" }]);
  });

  test("a one-bar `<{BAR}parameterx` or a one-bar word after the block's closer refuses nothing", () => {
    expect(run(`<{D}tool_calls>\n${LS}\n<{BAR}parameters are listed below\n</{D}tool_calls>`).calls.map((c) => c.input)).toEqual([{ command: "ls" }]);
    expect(run(`<{D}tool_calls>\n${LS}\n</{D}tool_calls>\n<{BAR}parameter name="workdir">/tmp</{BAR}parameter>`).calls.map((c) => c.input)).toEqual([{ command: "ls" }]);
  });
});

describe("what it refuses, and how it is reported", () => {
  test("every call held for the block's closer is reported I02 with its tool, its text kept", () => {
    const input = live(`Cleaning.\n<{D}tool_calls>\n${LS}\n${RM}\nNote:\n${WORKDIR}\n</{D}tool_calls>`);
    expect(run(`Cleaning.\n<{D}tool_calls>\n${LS}\n${RM}\nNote:\n${WORKDIR}\n</{D}tool_calls>`).calls).toEqual([]);
    const r = parse(input, fixtureTools);
    const refused = r.broken.filter((b) => b.shape === "I02");
    expect(refused.map((b) => b.tool)).toEqual(["bash", "bash"]);
    expect(refused.every((b) => b.reason === "broken-markup")).toBe(true);
    expect(r.text).toContain(input.slice(input.indexOf("<"), input.indexOf("Note:")).trim());
  });

  test("a call after the stray and after the block's own closer is a new matter: a later block runs", () => {
    const r = run(`<{D}tool_calls>\n${RM}\nNote:\n${WORKDIR}\n</{D}tool_calls>\nNext:\n<{D}tool_calls>\n${LS}\n</{D}tool_calls>`);
    expect(r.calls.map((c) => c.input)).toEqual([{ command: "ls" }]);
  });

  test("the held calls go out at the block's closer, not before", () => {
    const input = live(`<{D}tool_calls>\n${LS}\nThen:\n${RM}\n</{D}tool_calls>\nDone.`);
    const engine = createRepairEngine({ tools: fixtureTools });
    const closer = input.indexOf("</", input.lastIndexOf("</") - 1);
    const at: number[] = [];
    for (let i = 0; i < input.length; i++) for (const e of engine.feed(input[i]!)) if (e.type === "call") at.push(i);
    for (const e of engine.flush()) if (e.type === "call") at.push(input.length);
    expect(at.length).toBe(2);
    for (const i of at) expect(i).toBeGreaterThanOrEqual(closer);
  });
});

describe("the limit and other spellings", () => {
  test("held past bufferLimit the calls run, as at the reply's end; the engine holds no more than the limit allows", () => {
    const input = live(`<{D}tool_calls>\n${LS}\n${"Some prose. ".repeat(40)}\n${WORKDIR}\n</{D}tool_calls>`);
    for (const cuts of [[], randomCuts(input.length, 3), [...Array(input.length).keys()].slice(1)]) {
      const r = runEngine(input, cuts, fixtureTools, { bufferLimit: 300 });
      expect(r.calls.map((c) => c.input)).toEqual([{ command: "ls" }]);
      expect(r.maxHeld).toBeLessThanOrEqual(300 + 200);
    }
  });

  test("a self-closing stray parameter after prose refuses the call", () => {
    expect(run(`<{D}tool_calls>\n${RM}\nNote:\n<{D}parameter name="workdir" string="true" value="/tmp/scratch"/>\n</{D}tool_calls>`).calls).toEqual([]);
  });

  test("Claude-style: a later invoke after prose and a stray parameter is refused", () => {
    const claude = `<function_calls>\n<invoke name="bash">\n<parameter name="command">ls</parameter>\n</invoke>\n<parameter name="workdir">/tmp/scratch</parameter>\nThen:\n<invoke name="bash">\n<parameter name="command">rm -rf ./*</parameter>\n</invoke>\n</function_calls>`;
    expect(run(claude).calls).toEqual([]);
  });

  test("a parameter named after a declared tool (a wrapped call, I02) is no stray: it does not refuse the block", () => {
    const r = run(`<{D}tool_calls>\n${LS}\nNote:\n<{D}parameter name="read">x</{D}parameter>\n</{D}tool_calls>`);
    expect(r.calls.map((c) => c.input)).toContainEqual({ command: "ls" });
  });
});

describe("holding a block's calls costs linear work (counted, never timed)", () => {
  const work = (n: number, prose: boolean) => {
    const input = live(`<{D}tool_calls>\n${Array.from({ length: n }, (_, i) => LS.replace("ls", `ls ${i}`) + (prose ? "\nThen:\n" : "\n")).join("")}</{D}tool_calls>\nDone.`);
    let calls = 0;
    const steps = countWork(() => {
      const engine = createRepairEngine({ tools: fixtureTools });
      for (let i = 0; i < input.length; i += 5) calls += engine.feed(input.slice(i, i + 5)).filter((e) => e.type === "call").length;
      calls += engine.flush().filter((e) => e.type === "call").length;
    });
    expect(calls).toBe(n);
    return steps / input.length;
  };
  for (const prose of [false, true]) {
    test(`many calls in one block${prose ? ", prose between them" : ""}: work per character does not grow with the number of calls`, () => {
      const small = work(50, prose);
      const large = work(400, prose);
      expect(large).toBeLessThan(small * 1.5);
    });
  }
});

describe("through the AI SDK middleware", () => {
  type Part = LanguageModelV3StreamPart;
  const usage: LanguageModelV3Usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };
  const finish: Part = { type: "finish", usage, finishReason: { unified: "stop", raw: "stop" } };
  const bash: LanguageModelV3FunctionTool = { type: "function", name: "bash", inputSchema: { type: "object", properties: { command: { type: "string" }, workdir: { type: "string" } }, required: ["command"] } };
  const params = { prompt: [{ role: "user", content: [{ type: "text", text: "clean up" }] }], tools: [bash] } as LanguageModelV3CallOptions;

  async function streamed(text: string, size: number): Promise<Part[]> {
    const deltas: Part[] = [];
    for (let i = 0; i < text.length; i += size) deltas.push({ type: "text-delta", id: "t", delta: text.slice(i, i + size) });
    const mock = new MockLanguageModelV3({ doStream: async () => ({ stream: convertArrayToReadableStream<Part>([{ type: "stream-start", warnings: [] }, { type: "text-start", id: "t" }, ...deltas, { type: "text-end", id: "t" }, finish]) }) });
    const { stream } = await wrapLanguageModel({ model: mock, middleware: repairMiddleware({}) }).doStream(params);
    return convertReadableStreamToArray(stream);
  }

  for (const [name, notation] of [
    ["prose before the stray", `Cleaning.\n<{D}tool_calls>\n${RM}\nNote:\n${WORKDIR}\n</{D}tool_calls>`],
    ["prose after the stray, a later call", `Cleaning.\n<{D}tool_calls>\n${LS}\n${WORKDIR}\nThen:\n${RM}\n</{D}tool_calls>`],
    ["an earlier call of the block", `Cleaning.\n<{D}tool_calls>\n${LS}\n${RM}\n${WORKDIR}\n</{D}tool_calls>`],
    ["Qwen3-Coder's wrapper", `Cleaning.\n<tool_call>\n<function=bash>\n<parameter=command>\nrm -rf ./*\n</parameter>\n</function>\n<parameter=workdir>\n/tmp/scratch\n</parameter>\n</tool_call>`],
  ] as const) {
    for (const size of [1, 7, 100000]) {
      test(`${name}: no call, the text whole (deltas of ${size})`, async () => {
        const input = live(notation);
        const out = await streamed(input, size);
        expect(out.filter((p) => p.type === "tool-call")).toEqual([]);
        expect(out.flatMap((p) => (p.type === "text-delta" ? [p.delta] : [])).join("")).toBe(input);
      });
    }
  }

  test("control: with no stray the block's calls are made", async () => {
    const out = await streamed(live(`Cleaning.\n<{D}tool_calls>\n${LS}\nThen:\n${RM}\n</{D}tool_calls>`), 5);
    expect(out.filter((p) => p.type === "tool-call").map((p) => (p.type === "tool-call" ? JSON.parse(p.input) : null))).toEqual([{ command: "ls" }, { command: "rm -rf ./*" }]);
  });
});
