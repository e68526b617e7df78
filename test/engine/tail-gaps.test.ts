/**
 * Text held after a recovered call (the tail, S03) with markup stripped inside it: an echoed call,
 * or a native call's duplicate. The stripped span keeps its place in the tail, so what the engine
 * holds stays one run of the last characters fed. Before, the store kept only the tail's pieces'
 * total and lost the start of the first piece, and flush() threw (found by the stop 40 differential
 * review at DIFF_SEED=5). Checked whole, char by char and at every two-chunk split.
 */
import { describe, expect, test } from "bun:test";
import { createRepairEngine } from "../../src/engine/engine.ts";
import type { EngineEvent, EngineOptions } from "../../src/engine/types.ts";
import { fixtureTools } from "../golden/tools.ts";

const KIMI_BASH = '|tool_call_begin|>functions.bash:0|tool_call_argument_begin|>{"command":"ls"}|tool_call_end|>';
const GLM_LIST = "<tool_call>list_sessions</arg_value>";
const REPLY = `${KIMI_BASH}\n\n${GLM_LIST}\n\nLet me check.\n\n`;

interface Run {
  calls: string[];
  text: string;
  stripped: string[];
}

function run(text: string, cuts: number[], options: Partial<EngineOptions>, native?: number): Run {
  const engine = createRepairEngine({ tools: fixtureTools, idPrefix: "c_", ...options });
  const out: EngineEvent[] = [];
  let at = 0;
  for (const cut of [...cuts, text.length]) {
    if (native !== undefined && native >= at && native < cut) {
      out.push(...engine.feed(text.slice(at, native)));
      engine.noteNativeToolCall();
      at = native;
    }
    out.push(...engine.feed(text.slice(at, cut)));
    at = cut;
  }
  out.push(...engine.flush());
  return {
    calls: out.flatMap((e) => (e.type === "call" ? [`${e.call.tool} ${JSON.stringify(e.call.input)}`] : [])),
    text: out.map((e) => (e.type === "text" ? e.text : "")).join(""),
    stripped: engine.summary().stripped.map((s) => `${s.kind} ${text.slice(...s.span).trim().slice(0, 20)}`),
  };
}

function everySplit(text: string, options: Partial<EngineOptions>, native?: number): Run {
  const whole = run(text, [], options, native);
  for (let cut = 1; cut < text.length; cut++) expect(run(text, [cut], options, native)).toEqual(whole);
  expect(run(text, Array.from({ length: text.length - 1 }, (_, i) => i + 1), options, native)).toEqual(whole);
  return whole;
}

describe("markup stripped inside the text held after a call", () => {
  test("an echoed call after a recovered one: no throw; the call runs, the quote and the tail are stripped", () => {
    const isEchoed = ({ tool }: { tool: string }) => tool === "list_sessions";
    expect(everySplit(REPLY, { isEchoed })).toEqual({
      calls: ['bash {"command":"ls"}'],
      text: "",
      stripped: ["echoed-markup <tool_call>list_sess", "noise ", "fabricated-result Let me check."],
    });
  });

  test("a native call's duplicate after a recovered one: no throw; the duplicate and the tail are stripped", () => {
    const native = REPLY.indexOf(GLM_LIST);
    const whole = everySplit(REPLY, {}, native);
    expect(whole.calls).toEqual(['bash {"command":"ls"}']);
    expect(whole.stripped).toContain("native-call-duplicate <tool_call>list_sess");
  });

  test("a second call after the stripped quote releases the text between, without the quote", () => {
    const isEchoed = ({ tool }: { tool: string }) => tool === "list_sessions";
    const reply = `${KIMI_BASH}\nFirst.\n${GLM_LIST}\nThen.\n<tool_call>{"name": "read", "arguments": {"filePath": "/a"}}</tool_call>`;
    const whole = everySplit(reply, { isEchoed });
    expect(whole.calls).toEqual(['bash {"command":"ls"}', 'read {"filePath":"/a"}']);
    expect(whole.text).toBe("\nFirst.\n\nThen.\n");
  });

  test("stripped markup counts against the limit: past it the tail is released, never over-read", () => {
    const isEchoed = ({ tool }: { tool: string }) => tool === "list_sessions";
    const prose = `\n${"A".repeat(70)}\n`;
    const reply = `${KIMI_BASH}${prose}${GLM_LIST}\nB.\n`;
    const whole = everySplit(reply, { isEchoed, bufferLimit: 100 });
    expect(whole.calls).toEqual(['bash {"command":"ls"}']);
    expect(whole.text).toBe(`${prose}\nB.\n`);
    expect(whole.stripped).toEqual(["echoed-markup <tool_call>list_sess"]);
  });
});
