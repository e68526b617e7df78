// JSON answers: fields that restate or point into the repaired text follow the repair. A
// Responses `output_text` is the repaired parts joined (left out when the server sent none); a
// chat message's url_citation offsets move with their words or go with them.
import { describe, expect, test } from "bun:test";
import { HERMES, RESPONSES_URL, SCHEMA, message, rawReply, responseObject } from "../hostile/review-48-wires-support.ts";
import { READ, rawReply as chatRaw } from "../hostile/review-47-chat-support.ts";

const responsesRequest = { model: "g", input: "read a.ts", tools: [{ type: "function", name: "read", parameters: SCHEMA }] };

async function responses(body: object) {
  return JSON.parse((await rawReply(RESPONSES_URL, responsesRequest, JSON.stringify(body), "application/json")).text);
}

describe("Responses output_text", () => {
  test("two message items: the repaired text of every part, joined", async () => {
    const output = [message("msg_0", "First, ", "then: "), message("msg_1", `Reading. ${HERMES}`)];
    const body = await responses(responseObject("completed", output, { output_text: `First, then: Reading. ${HERMES}` }));
    expect(body.output.map((i: { type: string }) => i.type)).toEqual(["message", "message", "function_call"]);
    expect(body.output_text).toBe("First, then: Reading. ");
  });

  test("a server that sent no output_text gets none added", async () => {
    const body = await responses(responseObject("completed", [message("msg_1", `Reading. ${HERMES}`)]));
    expect(body.output.map((i: { type: string }) => i.type)).toEqual(["message", "function_call"]);
    expect("output_text" in body).toBe(false);
  });
});

describe("chat message annotations", () => {
  async function chat(content: string, words: string[]) {
    const annotations = words.map((w) => {
      const start = content.indexOf(w);
      return { type: "url_citation", url_citation: { start_index: start, end_index: start + w.length, url: `https://x.test/${w.length}`, title: w } };
    });
    const body = { id: "c", object: "chat.completion", created: 1, model: "m", choices: [{ index: 0, message: { role: "assistant", content, annotations }, finish_reason: "stop" }] };
    const { text } = await chatRaw({ model: "m", messages: [{ role: "user", content: "read a.ts" }], tools: [READ] }, JSON.stringify(body), "application/json");
    return JSON.parse(text).choices[0].message as { content: string | null; tool_calls?: unknown[]; annotations: { url_citation: { start_index: number; end_index: number; title: string } }[] };
  }

  test("a citation before the call keeps its offsets, one inside the call goes", async () => {
    const m = await chat(`Per the spec: ${HERMES}`, ["the spec", "a.ts"]);
    expect(m.tool_calls?.length).toBe(1);
    expect(m.content).toBe("Per the spec: ");
    expect(m.annotations.map((a) => [a.url_citation.title, m.content!.slice(a.url_citation.start_index, a.url_citation.end_index)])).toEqual([["the spec", "the spec"]]);
  });

  test("no repair, no change: the annotations stay as they came", async () => {
    const m = await chat("Per the spec, nothing to run.", ["the spec"]);
    expect(m.tool_calls).toBeUndefined();
    expect(m.annotations).toEqual([{ type: "url_citation", url_citation: { start_index: 4, end_index: 12, url: "https://x.test/8", title: "the spec" } }] as never);
  });
});
