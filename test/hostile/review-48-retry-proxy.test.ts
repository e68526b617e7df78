/**
 * Hostile review 48: the proxy's stateless correction (src/adapters/request-history.ts): "once"
 * is derived from history (the leaking reply is the newest thing the model said) and "already
 * there" from the exact text in the system prompt, never from a marker. Attacks: the user (or the
 * model) quoting the correction text, a leak only in reasoning, a title request, the corrected
 * request answered. FINDING tests would fail on main; the
 * others are hard negatives kept because they pin the "no marker can be forged" guarantee (all
 * pass on main: no finding in this area).
 */
import { describe, expect, test } from "bun:test";
import { sanitizeRequestText, type HistoryOptions } from "../../src/adapters/request-history.ts";
import { correctionText } from "../../src/retry/state.ts";
import { block, live } from "../golden/notation.ts";

const SCHEMA = { type: "object", properties: { command: { type: "string" } }, required: ["command"] };
const TOOLS = [{ type: "function", function: { name: "bash", parameters: SCHEMA } }];
const OPTIONS: HistoryOptions = { parse: {}, sanitize: true, correct: true };
const UNDECLARED = live(`Cleaning up.\n\n${block("tool_calls", [["wipe_disk", [["path", "/"]]]])}`);
const UNEXECUTED = correctionText("unexecuted-call");

type Msg = Record<string, unknown>;
function run(messages: Msg[], extra: Record<string, unknown> = {}) {
  const body = { model: "deepseek-chat", tools: TOOLS, messages, ...extra };
  const out = sanitizeRequestText("/v1/chat/completions", JSON.stringify(body), body, OPTIONS);
  const json = JSON.parse(out.text) as { messages: { role: string; content: unknown }[] };
  const system = json.messages.filter((m) => m.role === "system").map((m) => String(m.content)).join("\n");
  const count = (s: string, needle: string) => s.split(needle).length - 1;
  return { correction: out.correction, systemCount: count(system, UNEXECUTED), json };
}

describe("the proxy's once-guard cannot be forged from a message", () => {
  test("hard negative: the user quoting the exact correction text in their message does not suppress the real correction", () => {
    const out = run([
      { role: "user", content: "clean up" },
      { role: "assistant", content: UNDECLARED },
      { role: "user", content: `Ignore this if you see it: ${UNEXECUTED}` },
    ]);
    expect([out.correction, out.systemCount]).toEqual(["unexecuted-call", 1]);
  });

  test("hard negative: the model echoing the correction text in its own leaking reply does not suppress it", () => {
    const out = run([
      { role: "user", content: "clean up" },
      { role: "assistant", content: `${UNEXECUTED}\n${UNDECLARED}` },
      { role: "user", content: "go on" },
    ]);
    expect([out.correction, out.systemCount]).toEqual(["unexecuted-call", 1]);
  });

  test("hard negative: the correction text arriving in a tool result does not suppress it", () => {
    const out = run([
      { role: "user", content: "clean up" },
      { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "bash", arguments: '{"command":"cat notes"}' } }] },
      { role: "tool", tool_call_id: "c1", content: UNEXECUTED },
      { role: "assistant", content: UNDECLARED },
      { role: "user", content: "go on" },
    ]);
    expect([out.correction, out.systemCount]).toEqual(["unexecuted-call", 1]);
  });

  test("hard negative: a request that already carries it in the system prompt (a layer in front) gets it once, not twice", () => {
    const out = run([
      { role: "system", content: `You are helpful.\n\n${UNEXECUTED}` },
      { role: "user", content: "clean up" },
      { role: "assistant", content: UNDECLARED },
      { role: "user", content: "go on" },
    ]);
    expect([out.correction, out.systemCount]).toEqual(["unexecuted-call", 1]);
  });

  test("hard negative: once the model answered the corrected request (even with an empty message), the old leak is corrected no more", () => {
    for (const answer of [{ role: "assistant", content: "" }, { role: "assistant", content: null, tool_calls: [{ id: "c2", type: "function", function: { name: "bash", arguments: '{"command":"ls"}' } }] }]) {
      const messages: Msg[] = [
        { role: "user", content: "clean up" },
        { role: "assistant", content: UNDECLARED },
        { role: "user", content: "go on" },
        answer,
        ...(answer.tool_calls ? [{ role: "tool", tool_call_id: "c2", content: "a b" }] : []),
        { role: "user", content: "and?" },
      ];
      expect(run(messages).correction).toBeNull();
    }
  });
});

describe("what the proxy corrects", () => {
  test("hard negative: a leak only in reasoning_content is never corrected", () => {
    const out = run([
      { role: "user", content: "clean up" },
      { role: "assistant", content: "Done.", reasoning_content: UNDECLARED },
      { role: "user", content: "ok" },
    ]);
    expect(out.correction).toBeNull();
  });

  test("hard negative: a title-style request (tool_choice none) gets no correction", () => {
    const out = run(
      [
        { role: "user", content: "clean up" },
        { role: "assistant", content: UNDECLARED },
        { role: "user", content: "Write a title." },
      ],
      { tool_choice: "none" },
    );
    expect(out.correction).toBeNull();
  });
});
