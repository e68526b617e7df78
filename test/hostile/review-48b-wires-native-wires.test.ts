// Review 48b (hostile, tests only): "native call wins" read across the wires. The same model output
// (prose, a DSML block whose closer never comes holding read(a.ts), more prose, then a native
// read(b.ts)) through the real providers. The rule chosen in fx48 (test/hostile/fx48-native.test.ts
// header): the held leak is the native call's duplicate and never runs, "even when it reads
// another file"; the JSON path strips every leak beside a native call. No marker bytes (live()).
import { describe, expect, test } from "bun:test";
import { live } from "../golden/notation.ts";
import { client, functionCall, generate, message, messageEnd, messageStart, namedSse, responseObject, responsesEvents, textBlock, toolUseBlock } from "./review-48-wires-support.ts";
import { chatClient, chatSse, chunk } from "./review-47-chat-support.ts";

const READ_DSML = `<{D}invoke name="read">\n<{D}parameter name="path" string="true">a.ts</{D}parameter>\n</{D}invoke>`;
const OPEN = live(`Reading.\n<{D}tool_calls>\n${READ_DSML}\nMore prose.`);
const paths = (calls: { input: string }[]) => calls.map((c) => (JSON.parse(c.input) as { path: string }).path);

describe("native call wins: the same output on every wire", () => {
  test("chat (openai-compatible): only the native read runs", async () => {
    const body = chatSse([chunk({ role: "assistant", content: OPEN }), chunk({ tool_calls: [{ index: 0, id: "call_n", type: "function", function: { name: "read", arguments: '{"path":"b.ts"}' } }] }), chunk({}, "tool_calls")]);
    expect(paths((await chatClient("compatible", body)).calls)).toEqual(["b.ts"]);
  });

  test("Anthropic stream: only the native read runs", async () => {
    const body = namedSse([messageStart(), ...textBlock(0, [OPEN]), ...toolUseBlock(1, "toolu_n", { path: "b.ts" }), ...messageEnd("tool_use")]);
    expect(paths((await client("anthropic", body)).calls)).toEqual(["b.ts"]);
  });

  test("Responses JSON: only the native read runs", async () => {
    const v = await generate("responses", responseObject("completed", [message("msg_1", OPEN), functionCall("fc_1", { path: "b.ts" })]));
    expect(paths(v.calls)).toEqual(["b.ts"]);
  });

  // Context: with the block CLOSED (or a Hermes call) before a different native call, every streaming
  // wire runs both calls (a.ts, b.ts) and only the JSON paths run b.ts alone: calls already sent
  // cannot be taken back. This finding is the open-block case, which fx48 made "native wins".
  // FINDING (low-medium by the wire-parity standard: the same output executes differently per wire, and the
  // fx48 rule "the held leak never runs beside a native call" is void on Responses streaming;
  // src/wires/responses/stream.ts + text-parts.ts (the held block's calls are settled "run" at the
  // message item's end, before the function_call item, which on Responses always comes after the
  // message item is done)): the leaked read(a.ts) is sent as a function_call AND the native
  // read(b.ts) runs; chat, Anthropic and the Responses JSON path run only b.ts. With bash instead of
  // read both commands execute on Responses only. Expected: the Responses stream holds the block's
  // calls past the message item's end (as Anthropic holds them past content_block_stop) until the
  // next item shows whether a native call follows, and drops them then.
  test("fixed: Responses stream: only the native read runs", async () => {
    const body = namedSse(responsesEvents([message("msg_1", OPEN), functionCall("fc_1", { path: "b.ts" })], 7));
    expect(paths((await client("responses", body)).calls)).toEqual(["b.ts"]);
  });
});
