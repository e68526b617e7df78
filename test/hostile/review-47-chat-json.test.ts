// Review 47 (hostile, tests only): the chat-completions JSON reply (src/wires/chat/wire.ts
// repairChatJson) read by the AI SDK chat providers' doGenerate. No finding here: every test is a
// hard negative that passes today, kept because it checks what the client parses.
import { describe, expect, test } from "bun:test";
import { block, live } from "../golden/notation.ts";
import { HERMES, PROVIDERS, READ, chatGenerate, completion, rawReply } from "./review-47-chat-support.ts";

const DSML = live(block("tool_calls", [["read", [["path", "a.ts"]]]]));
const READ_A = [{ name: "read", input: '{"path":"a.ts"}' }];
const REQUEST = { model: "m", messages: [{ role: "user", content: "read a.ts" }], tools: [READ] };

describe("JSON replies through doGenerate (hard negatives)", () => {
  for (const provider of PROVIDERS) {
    test(`${provider}: a leak beside a native call with other input: the native call only, the markup stripped`, async () => {
      const native = [{ id: "call_n", type: "function", function: { name: "read", arguments: '{"path":"b.ts"}' } }];
      const client = await chatGenerate(provider, completion({ content: `Reading. ${HERMES}`, tool_calls: native }, "tool_calls"));
      expect([client.calls, client.text]).toEqual([[{ name: "read", input: '{"path":"b.ts"}' }], "Reading. "]);
    });

    test(`${provider}: an empty tool_calls array is no native call: the leak runs, finish tool_calls`, async () => {
      const client = await chatGenerate(provider, completion({ content: `Reading. ${HERMES}`, tool_calls: [] }));
      expect([client.calls, (client.finishReason as { raw: string }).raw]).toEqual([READ_A, "tool_calls"]);
    });

    test(`${provider}: no tools in the request: nothing recovered, the markup shown`, async () => {
      const client = await chatGenerate(provider, completion({ content: `Reading. ${HERMES}` }), { tools: undefined });
      expect([client.calls, client.text]).toEqual([[], `Reading. ${HERMES}`]);
    });
  }

  test("compatible: DeepSeek reasoning that ends in a DSML block, no content: the block runs, the reasoning before it stays", async () => {
    const client = await chatGenerate("compatible", completion({ content: null, reasoning_content: `I will read it.\n\n${DSML}` }));
    expect([client.calls, client.reasoning, (client.finishReason as { raw: string }).raw]).toEqual([READ_A, "I will read it.\n\n", "tool_calls"]);
  });

  test("compatible: the same reasoning with an answer in content: nothing runs, the reasoning whole", async () => {
    const client = await chatGenerate("compatible", completion({ content: "Done.", reasoning_content: `I will read it.\n\n${DSML}` }));
    expect([client.calls, client.reasoning]).toEqual([[], `I will read it.\n\n${DSML}`]);
  });

  test("bodies the wire cannot read go to the client byte for byte: cut JSON, content as parts", async () => {
    const cut = JSON.stringify(completion({ content: `Reading. ${HERMES}` })).slice(0, -3);
    const parts = JSON.stringify(completion({ content: [{ type: "text", text: `Reading. ${HERMES}` }] }));
    for (const body of [cut, parts]) expect((await rawReply(REQUEST, body, "application/json")).text).toBe(body);
  });
});
