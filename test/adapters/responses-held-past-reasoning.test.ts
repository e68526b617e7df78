// Responses: a message's last part that ended holding text, followed by reasoning items only, is
// decided when the reply goes on (text, a call, a server tool's item) or ends with its status
// known. A reply cut there (response.failed, a content filter's response.incomplete) decides
// nothing held at its end: the markup is shown as written, no call, in the JSON answer and the
// stream alike (whole, byte by byte, seeded cuts). A reply that ends normally runs the call, which
// goes after the reasoning items in both (the stream decided it there).
import { describe, expect, test } from "bun:test";
import { block, live } from "../golden/notation.ts";
import { RESPONSES_URL, type Json, everySplitView, generate, message, namedSse, rawReply, responseObject, responsesEvents, responsesProblems, responsesRequest } from "../hostile/review-48-wires-support.ts";

const DSML = live(block("tool_calls", [["read", [["path", "a.ts"]]]]));
const UNCLOSED = '<tool_call>{"name":"read","arguments":{"path":"a.ts"}}';
const CALL = { name: "read", input: '{"path":"a.ts"}' };
const reasoning = (id: string, text: string): Json => ({ id, type: "reasoning", summary: [{ type: "summary_text", text }] });

/** The reply as one JSON object and as its event stream (deltas of 7 characters), ending with this status. */
function reply(output: Json[], status: string, reason?: string) {
  const extra = reason ? { incomplete_details: { reason } } : {};
  const json = responseObject(status, output, extra);
  const sse = namedSse(responsesEvents(output, 7, { type: `response.${status}`, response: responseObject(status, output, extra) }));
  return { json, sse };
}

const seen = (v: Json) => ({ calls: v.calls, text: v.text, reasoning: v.reasoning });

describe("held markup before reasoning items, the reply cut", () => {
  for (const [name, markup] of [["a complete DSML block", DSML], ["an unclosed Hermes call", UNCLOSED]] as const) {
    for (const [status, reason] of [["failed", undefined], ["incomplete", "content_filter"]] as const) {
      test(`${name}, response.${status}${reason ? ` (${reason})` : ""}: shown as written, no call, JSON and stream alike`, async () => {
        const { json, sse } = reply([message("msg_1", `Reading. ${markup}`), reasoning("rs_1", "hmm"), reasoning("rs_2", "more")], status, reason);
        const expected = { calls: [], text: `Reading. ${markup}`, reasoning: "hmmmore" };
        expect(seen(await generate("responses", json))).toEqual(expected);
        for (const view of await everySplitView("responses", sse, {}, [1, 2, 3])) expect(seen(view)).toEqual(expected);
        expect(responsesProblems((await rawReply(RESPONSES_URL, responsesRequest(), sse)).text)).toEqual([]);
      });
    }
  }
});

describe("held markup before reasoning items, the reply going on or ending (hard negatives)", () => {
  for (const [status, reason] of [["completed", undefined], ["incomplete", "max_output_tokens"]] as const) {
    test(`response.${status}${reason ? ` (${reason})` : ""}: the call, after the reasoning items, JSON and stream alike`, async () => {
      const { json, sse } = reply([message("msg_1", `Reading. ${DSML}`), reasoning("rs_1", "hmm")], status, reason);
      const fromJson = await generate("responses", json);
      expect(seen(fromJson)).toEqual({ calls: [CALL], text: "Reading. ", reasoning: "hmm" });
      expect((fromJson.content as Json[]).map((p) => p.type)).toEqual(["text", "reasoning", "tool-call"]);
      const { text: raw } = await rawReply(RESPONSES_URL, { ...responsesRequest(), stream: false }, JSON.stringify(json), "application/json");
      expect((JSON.parse(raw).output as Json[]).map((i) => i.type)).toEqual(["message", "reasoning", "function_call"]);
      for (const view of await everySplitView("responses", sse, {}, [1, 2, 3])) {
        expect(seen(view)).toEqual(seen(fromJson));
        expect((view.parts as string[]).filter((type) => type === "reasoning-start" || type === "tool-call")).toEqual(["reasoning-start", "tool-call"]);
      }
      expect(responsesProblems((await rawReply(RESPONSES_URL, responsesRequest(), sse)).text)).toEqual([]);
    });
  }

  // Changed by fix 54b: a part's end decides nothing. With the block's closer ending its line inside
  // the message item the call is decided there and runs; with the closer ending the item, it is
  // shown as written (its line end unseen) and nothing runs.
  // Changed by fix 55: with the block's closer line ending the item too (the run after its call
  // reads on past the closer for a write's stray closer, A46.6); a prose line after it decides it.
  test("a message after the reasoning item: the reply went on in text, the call decided there even when it is then cut", async () => {
    const { json, sse } = reply([message("msg_1", `Reading. ${DSML}\nOK.\n`), reasoning("rs_1", "hmm"), message("msg_2", "Done.")], "failed");
    const fromJson = seen(await generate("responses", json));
    expect(fromJson.calls).toEqual([CALL]);
    for (const view of await everySplitView("responses", sse, {}, [1, 2, 3])) expect(seen(view)).toEqual(fromJson);
    for (const first of [`Reading. ${DSML}`, `Reading. ${DSML}\n`]) {
      const cut = reply([message("msg_1", first), reasoning("rs_1", "hmm"), message("msg_2", "Done.")], "failed");
      const undecided = seen(await generate("responses", cut.json));
      expect(undecided.calls).toEqual([]);
      for (const view of await everySplitView("responses", cut.sse, {}, [1, 2, 3])) expect(seen(view)).toEqual(undecided);
    }
  });
});
