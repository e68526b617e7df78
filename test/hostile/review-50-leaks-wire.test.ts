/**
 * Review 50 (leaks) through one wire: the 1.18 plugin's chat-completions route in process
 * (test/support/wire-leak.ts: the started plugin's fetch, tagged by chat.headers), fed a DeepSeek
 * SSE stream whose content or reasoning_content carries a leaked block in small deltas. What an
 * OpenAI client rebuilds (assemble()) is checked: the calls, the finish reason, the visible text.
 */
import { describe, expect, test } from "bun:test";
import { server } from "../../src/plugin/index.ts";
import { leakScope, type LeakScope } from "../support/wire-leak.ts";
import { assemble, chunk, deltas, openAiTools, type Json } from "../security/support.ts";
import { live } from "../golden/notation.ts";

const client = {
  app: { log: async () => undefined },
  session: { promptAsync: async () => undefined, get: async () => ({ data: {} }), message: async () => ({ data: { info: {}, parts: [] } }) },
};
type HeaderHook = (input: unknown, output: { headers: Record<string, string> }) => Promise<void>;

/** The wire-leak scope, answering with this SSE body instead of its default content-only leak. */
function scopeAnswering(body: string): LeakScope {
  const scope = leakScope();
  const upstream = async () => new Response(body, { status: 200, headers: { "content-type": "text/event-stream" } });
  scope.fetch = Object.assign(upstream, { preconnect: () => undefined }) as unknown as typeof fetch;
  return scope;
}

/** One streamed reply (reasoning then content, both in notation) through the plugin's fetch. */
async function throughWire(reasoning: string, content: string) {
  const events: Json[] = [chunk({ role: "assistant", content: "" })];
  for (const d of deltas(live(reasoning), 5)) events.push(chunk({ reasoning_content: d }));
  for (const d of deltas(live(content), 7)) events.push(chunk({ content: d }));
  events.push(chunk({}, "stop"));
  const scope = scopeAnswering([...events.map((e) => JSON.stringify(e)), "[DONE]"].map((d) => `data: ${d}\n\n`).join(""));
  const hooks = await server(client as never, { providers: ["*"] }, scope);
  const output = { headers: {} as Record<string, string> };
  const model = { id: "deepseek-chat", providerID: "deepseek", api: { id: "deepseek-chat", npm: "@ai-sdk/openai-compatible" } };
  await (hooks["chat.headers"] as HeaderHook)({ sessionID: "ses_r50", agent: "build", provider: { id: "deepseek" }, model, message: { id: "msg_r50" } }, output);
  const request: Json = { model: "deepseek-chat", stream: true, messages: [{ role: "user", content: "list the files" }], tools: openAiTools() };
  const response = await scope.fetch("https://api.deepseek.com/v1/chat/completions", { method: "POST", headers: { "content-type": "application/json", ...output.headers }, body: JSON.stringify(request) });
  const text = await response.text();
  let thought = "";
  for (const block of text.split("\n\n")) {
    const data = block.replace(/^data: /, "");
    if (!data.startsWith("{")) continue;
    const delta = ((JSON.parse(data) as Json).choices as Json[] | undefined)?.[0]?.delta as Json | undefined;
    if (typeof delta?.reasoning_content === "string") thought += delta.reasoning_content;
  }
  const out = assemble(text);
  return { calls: out.calls.map((c) => ({ name: c.name, input: JSON.parse(c.arguments) as unknown })), finish: out.finish, content: out.content, reasoning: thought };
}

const BLOCK = `<{D}tool_calls>\n<{D}invoke name="bash">\n<{D}parameter name="command" string="true">ls -la</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`;
const EOS = "<{BAR}end{SP}of{SP}sentence{BAR}>";
const LS = [{ name: "bash", input: { command: "ls -la" } }];

describe("finding: a reasoning-channel block (D06) with the end-of-sentence token glued on never runs", () => {
  // Severity: missed call (low-medium: the reply is empty, finish "stop", no correction, the agent
  // stalls). D06 runs the trailing block of a reasoning that was the whole answer; D07 strips the
  // literal end-of-sentence token after a block in content. Both together (a server that missed
  // the end of thinking AND decoded the special token as text, the D07 situation) is not run: the
  // token is not whitespace, so the block is no longer "trailing".
  // Minimal input: reasoning_content "Let me list.\n\n" + V4 block + `<{BAR}end{SP}of{SP}sentence{BAR}>`,
  // empty content.
  // Suspected: src/engine/reasoning-channel.ts (Trailing: only whitespace may follow the block).
  // Expected: as D07 in content, the token after the trailing block is stripped and the block runs.
  // Fixed: at the end of the reasoning, whitespace around one end-of-sentence token (and nothing
  // else) may follow the trailing block (src/engine/reasoning-channel.ts onlyEndOfSentence); the
  // engine drops the token as in content. A block that does not run shows it as written.
  test("reasoning: block then the token glued on", async () => {
    const r = await throughWire(`Let me list.\n\n${BLOCK}${EOS}`, "");
    expect(r.calls).toEqual(LS);
    expect(r.finish).toBe("tool_calls");
  });
  test("reasoning: block, a newline, then the token", async () => {
    expect((await throughWire(`Let me list.\n\n${BLOCK}\n${EOS}`, "")).calls).toEqual(LS);
  });
});

describe("finding (same as review-50-leaks-garbled-closer) through the wire: a garbled closer's head reaches the client's arguments", () => {
  // Severity: wrong execution. See review-50-leaks-garbled-closer.test.ts for the rule and source.
  // Fixed: the closer is cut at its `<` (src/parse/dialects/dsml/garbled-closer.ts), in either channel.
  test("content: `</{BAR}DSL{BAR}parameter>` closing the command", async () => {
    const r = await throughWire("", `Listing.\n\n${BLOCK.replace("</{D}parameter>", "</{BAR}DSL{BAR}parameter>")}`);
    expect(r.calls.every((c) => JSON.stringify(c.input) === JSON.stringify({ command: "ls -la" }))).toBe(true);
  });
  test("reasoning: the same block as the whole answer", async () => {
    const r = await throughWire(`Let me list.\n\n${BLOCK.replace("</{D}parameter>", "</{BAR}DSL{BAR}parameter>")}`, "");
    expect(r.calls.every((c) => JSON.stringify(c.input) === JSON.stringify({ command: "ls -la" }))).toBe(true);
  });
});

describe("hard negatives (pass today)", () => {
  test("content: block with the token glued on, CRLF line ends: one call, the token stripped", async () => {
    const r = await throughWire("", `Listing.\n\n${BLOCK}${EOS}`.replaceAll("\n", "\r\n"));
    expect(r.calls).toEqual(LS);
    expect(r.finish).toBe("tool_calls");
    expect(r.content).toBe("Listing.\r\n\r\n");
  });
  test("reasoning: the trailing block runs (also CRLF, doubled bars, legacy tokens, Hermes)", async () => {
    for (const block of [
      BLOCK,
      BLOCK.replaceAll("\n", "\r\n"),
      BLOCK.replaceAll("{D}", "{BAR}{BAR}DSML{BAR}{BAR}"),
      `<{BAR}tool{SP}calls{SP}begin{BAR}><{BAR}tool{SP}call{SP}begin{BAR}>bash<{BAR}tool{SP}sep{BAR}>{"command":"ls -la"}<{BAR}tool{SP}call{SP}end{BAR}><{BAR}tool{SP}calls{SP}end{BAR}>`,
      `<tool_call>\n{"name": "bash", "arguments": {"command": "ls -la"}}\n</tool_call>`,
    ]) {
      const r = await throughWire(`Let me list.\n\n${block}`, "");
      expect(r.calls).toEqual(LS);
      expect(r.reasoning.trim()).toBe("Let me list.");
    }
  });
  test("reasoning: a truncated block never runs and stays in the reasoning as written", async () => {
    const cut = `Let me list.\n\n${BLOCK}`.slice(0, 100);
    const r = await throughWire(cut, "");
    expect(r.calls).toEqual([]);
    expect(r.reasoning).toBe(live(cut));
  });
  test("reasoning: a block repeated runs once (only the trailing one), the first stays text", async () => {
    const r = await throughWire(`Let me list.\n\n${BLOCK}\n${BLOCK}`, "");
    expect(r.calls).toEqual(LS);
    expect(r.reasoning).toBe(live(`Let me list.\n\n${BLOCK}\n`));
  });
  test("reasoning block when the content also answered: never runs", async () => {
    const r = await throughWire(`Let me list.\n\n${BLOCK}`, "Here are the files you asked about.");
    expect(r.calls).toEqual([]);
  });
});

describe("hard negatives (fix): only the end-of-sentence token, once, may follow the reasoning's trailing block", () => {
  // The engine strips special tokens after a call it read and then showed (D07, as on main); the
  // reasoning shows the block and every other character as written.
  test("text after the token: the block is no end, never runs, and stays in the reasoning as written", async () => {
    const r = await throughWire(`Let me list.\n\n${BLOCK}${EOS}\nActually, no.`, "");
    expect(r.calls).toEqual([]);
    expect(r.reasoning).toBe(live(`Let me list.\n\n${BLOCK}\nActually, no.`));
  });
  test("the token twice, or another special token: never runs, the block shown", async () => {
    for (const tail of [`${EOS}${EOS}`, "<{BAR}User{BAR}>", `${EOS}<{BAR}User{BAR}>`]) {
      const r = await throughWire(`Let me list.\n\n${BLOCK}${tail}`, "");
      expect(r.calls).toEqual([]);
      expect(r.reasoning).toBe(live(`Let me list.\n\n${BLOCK}`));
    }
  });
  test("the content answered: the held block goes back into the reasoning", async () => {
    const r = await throughWire(`Let me list.\n\n${BLOCK}${EOS}`, "Here are the files you asked about.");
    expect(r.calls).toEqual([]);
    // Held with the block, the token goes back with it (before the fix the engine's strip lost it here too).
    expect(r.reasoning).toBe(live(`Let me list.\n\n${BLOCK}${EOS}`));
    expect(r.content).toBe("Here are the files you asked about.");
  });
  test("a mid-line block followed by the token still never runs", async () => {
    const r = await throughWire(`Let me list: ${BLOCK}${EOS}`, "");
    expect(r.calls).toEqual([]);
  });
});
