/**
 * Hostile review 55 (retry): the proxy's stateless correction (src/adapters/request-history.ts
 * historyEdits, through src/proxy/history.ts) against a request that ends in a prefill.
 *
 * FINDING 1 (a correction about a reply that has not ended, and so a second correction for the same
 *   reply; severity: a second correction). A request whose last turn is the assistant's text asks the
 *   model to go on writing that turn (src/wires/prefill.ts: Anthropic Messages always, DeepSeek's
 *   `prefix: true`, vLLM's `continue_final_message`). That is how a client resumes a reply cut by
 *   max_tokens: the cut text goes up as the prefill. The live repair reads the reply after that
 *   prefill as ONE reply (review 44), but the history pass takes the prefill for the newest FINISHED
 *   reply: a call cut off in it reads "truncated-call" and the correction ("Your last reply ... was
 *   cut off ... call it again") joins the system prompt of the very request that continues it. Once
 *   the continuation is stored (a second assistant message, or merged into the first), the same
 *   reply, now whole, is the newest reply before the user's next message and is corrected again.
 *   Minimal input: chat `{ messages: [user "go", { role: "assistant", content: "Calling: <tool_call>
 *   {\"name\":\"bash\",\"arguments\":{\"command\":\"l", prefix: true }], tools: [bash] }`.
 *   Suspected source: src/adapters/request-history.ts historyEdits (`newest` counts a certain
 *   prefill as a reply; the rule "only about a reply that ended" needs the prefill left out, as
 *   the live repair reads it: src/wires/prefill.ts chatPrefill/messagesPrefill `certain`).
 *   Expected: no correction on the continuing request; the one correction on the user's next
 *   request, if the finished reply still ran nothing.
 *   Fixed: historyEdits asks the wire for the request's prefill (Wire.prefill); when the server
 *   surely continues it (`certain`), the trailing reply is the one being written and owes no
 *   correction on that request (sanitizing it is unchanged). A trailing assistant turn the server
 *   may answer with a fresh message (chat without those flags, Responses) is still a finished reply.
 */
import { describe, expect, test } from "bun:test";
import { sanitizeRequestBody } from "../../src/proxy/history.ts";
import { correctionText } from "../../src/retry/state.ts";

const SCHEMA = { type: "object", properties: { command: { type: "string" } }, required: ["command"] };
const CHAT_TOOLS = [{ type: "function", function: { name: "bash", parameters: SCHEMA } }];
const MESSAGES_TOOLS = [{ name: "bash", input_schema: SCHEMA }];
/** A reply cut by max_tokens inside its call, and the rest the continuation wrote. */
const CUT = 'Calling: <tool_call>{"name":"bash","arguments":{"command":"l';
const REST = 's"}}</tool_call>';
const OPTIONS = { parse: {}, sanitize: true, correct: true };
const CORRECTIONS = (["truncated-call", "unexecuted-call", "broken-markup", "invalid-arguments"] as const).map((r) => correctionText(r));

function pass(path: string, body: unknown) {
  const raw = JSON.stringify(body);
  const out = sanitizeRequestBody(path, new TextEncoder().encode(raw) as Uint8Array<ArrayBuffer>, OPTIONS);
  const text = new TextDecoder().decode(out.body);
  const count = CORRECTIONS.reduce((n, c) => n + text.split(JSON.stringify(c).slice(1, -1)).length - 1, 0);
  return { correction: out.correction, count };
}
const chat = (messages: unknown[]) => ({ model: "deepseek-chat", tools: CHAT_TOOLS, messages });
const anthropic = (messages: unknown[]) => ({ model: "m", max_tokens: 64, tools: MESSAGES_TOOLS, messages });

describe("finding 1: a certain prefill is the reply being written, not the last one", () => {
  test("chat `prefix: true` continuing a cut call: no correction on the continuing request", () => {
    expect(pass("/beta/chat/completions", chat([{ role: "user", content: "list files" }, { role: "assistant", content: CUT, prefix: true }])).count).toBe(0);
  });

  test("Messages trailing assistant turn continuing a cut call: no correction on the continuing request", () => {
    expect(pass("/v1/messages", anthropic([{ role: "user", content: "list files" }, { role: "assistant", content: CUT }])).count).toBe(0);
  });

  test("the same reply over its continuation and the user's next request: one correction in all, not two", () => {
    const continuing = pass("/beta/chat/completions", chat([{ role: "user", content: "list files" }, { role: "assistant", content: CUT, prefix: true }]));
    // The client stores the continuation as a second assistant message (one reply: repliesOf).
    const next = pass("/beta/chat/completions", chat([{ role: "user", content: "list files" }, { role: "assistant", content: CUT }, { role: "assistant", content: REST }, { role: "user", content: "and?" }]));
    expect(continuing.count + next.count).toBe(1);
  });

  test("vLLM `continue_final_message` continuing a cut call: no correction on the continuing request", () => {
    const body = { ...chat([{ role: "user", content: "list files" }, { role: "assistant", content: CUT }]), continue_final_message: true };
    expect(pass("/v1/chat/completions", body).count).toBe(0);
  });

  test("hard negative: a trailing assistant turn the server may answer afresh (chat, no prefix flag) is a finished reply: one correction", () => {
    const out = pass("/v1/chat/completions", chat([{ role: "user", content: "list files" }, { role: "assistant", content: CUT }]));
    expect([out.correction, out.count]).toEqual(["truncated-call", 1]);
  });

  test("hard negative: the cut reply before the user's next message (it ended): one truncated-call correction", () => {
    const out = pass("/v1/chat/completions", chat([{ role: "user", content: "list files" }, { role: "assistant", content: CUT }, { role: "user", content: "and?" }]));
    expect([out.correction, out.count]).toEqual(["truncated-call", 1]);
    const messages = pass("/v1/messages", anthropic([{ role: "user", content: "list files" }, { role: "assistant", content: CUT }, { role: "user", content: "and?" }]));
    expect([messages.correction, messages.count]).toEqual(["truncated-call", 1]);
  });

  test("hard negative: the whole reply (cut + continuation) before the user's next message: one correction", () => {
    const next = pass("/v1/chat/completions", chat([{ role: "user", content: "list files" }, { role: "assistant", content: CUT }, { role: "assistant", content: REST }, { role: "user", content: "and?" }]));
    expect([next.correction, next.count]).toEqual(["unexecuted-call", 1]);
  });

  test("hard negative: the same request read twice (a proxy restart, a client retry) gives the same answer", () => {
    const body = chat([{ role: "user", content: "list files" }, { role: "assistant", content: CUT }, { role: "user", content: "and?" }]);
    expect(pass("/v1/chat/completions", body)).toEqual(pass("/v1/chat/completions", body));
  });
});
