/**
 * Review 57 (history finding 1): when the request pass puts the inline note into a replayed text,
 * annotations that point into that text by offsets move with it, through the live repair's mover
 * (src/wires/annotations.ts): each one whose words are still there cites the same words; one whose
 * words were replaced is removed; every other byte of the body goes up as sent. Responses
 * output_text parts (url_citation, container_file_citation), a chat message's annotations over its
 * string content; Anthropic citations carry no offsets into the block text and stay as sent.
 * Through the proxy's request pass (src/proxy/history.ts, over src/adapters/request-history.ts,
 * which repairFetch shares).
 */
import { describe, expect, test } from "bun:test";
import { REMOVED_NOTE } from "../../src/history/sanitize.ts";
import { sanitizeRequestBody } from "../../src/proxy/history.ts";

type Json = Record<string, any>;
const SCHEMA = { type: "object", properties: { command: { type: "string" } }, required: ["command"] };
const HERMES = '<tool_call>{"name":"bash","arguments":{"command":"rm -rf x"}}</tool_call>';

function pass(path: string, body: Json): { sent: Json; raw: string; removed: number } {
  const out = sanitizeRequestBody(path, new TextEncoder().encode(JSON.stringify(body)) as Uint8Array<ArrayBuffer>, { parse: {}, sanitize: true, correct: false });
  const raw = new TextDecoder().decode(out.body);
  return { sent: JSON.parse(raw), raw, removed: out.removed };
}

const url = (text: string, words: string, n = 0, extra: Json = {}) => {
  let at = -1;
  for (let i = 0; i <= n; i++) at = text.indexOf(words, at + 1);
  if (at < 0) throw new Error(`no "${words}" in the text`);
  return { type: "url_citation", start_index: at, end_index: at + words.length, url: `https://${words.replace(/\W/g, "")}.example`, title: words, ...extra };
};

/** A Responses request replaying one assistant message item with these output_text parts. */
const responses = (parts: Json[]) => ({
  model: "m",
  tools: [{ type: "function", name: "bash", parameters: SCHEMA }],
  input: [
    { role: "user", content: "go" },
    { type: "message", id: "msg_1", role: "assistant", status: "completed", content: parts },
    { role: "user", content: "?" },
  ],
});

/** Each annotation's cited words in `text`. */
const cited = (text: string, annotations: Json[]) => annotations.map((a) => text.slice(a.start_index, a.end_index));

describe("Responses output_text: annotations move with the note", () => {
  test("before, between and after two leaks: each still cites its words; ids, URLs and titles as sent", () => {
    const text = `See the docs.\n${HERMES}\nThe guide says so.\n${HERMES}\nAnd the FAQ.`;
    const annotations = [url(text, "docs"), url(text, "guide"), { ...url(text, "FAQ"), type: "container_file_citation", container_id: "cntr_1", file_id: "file_1", filename: "a.txt" }];
    const { sent, raw, removed } = pass("/v1/responses", responses([{ type: "output_text", text, annotations }]));
    expect(removed).toBe(2);
    const part = sent.input[1].content[0];
    expect(part.text).toBe(`See the docs.\n${REMOVED_NOTE}\nThe guide says so.\n${REMOVED_NOTE}\nAnd the FAQ.`);
    expect(cited(part.text, part.annotations)).toEqual(["docs", "guide", "FAQ"]);
    expect(part.annotations.map(({ start_index, end_index, ...rest }: Json) => rest)).toEqual(annotations.map(({ start_index, end_index, ...rest }: Json) => rest));
    expect(sent.input[1].id).toBe("msg_1");
    // The first one did not move: its element goes up byte for byte.
    expect(raw).toContain(JSON.stringify(annotations[0]));
  });

  test("one whose words lay inside the replaced markup is removed, the others kept in order", () => {
    const text = `Sure.\n${HERMES}\nSee the docs.`;
    const annotations = [url(text, "Sure"), url(text, "rm -rf x"), url(text, "docs")];
    const { sent } = pass("/v1/responses", responses([{ type: "output_text", text, annotations }]));
    const part = sent.input[1].content[0];
    expect(cited(part.text, part.annotations)).toEqual(["Sure", "docs"]);
    expect(part.annotations.map((a: Json) => a.title)).toEqual(["Sure", "docs"]);
  });

  test("one whose words lay inside the markup and stand in the note too is removed (it would cite the note)", () => {
    const text = `Sure.\n${HERMES}\nSee the docs.`;
    // "tool" of the closer `</tool_call>`: the note reads "... a malformed tool call ...", and its
    // "tool" stands before that closer's old place, where the mover looks for the words.
    expect(REMOVED_NOTE).toContain("tool");
    const { sent } = pass("/v1/responses", responses([{ type: "output_text", text, annotations: [url(text, "tool", 1), url(text, "docs")] }]));
    const part = sent.input[1].content[0];
    expect(cited(part.text, part.annotations)).toEqual(["docs"]);
  });

  test("a part that was all markup holds the note: its annotations into the markup are removed", () => {
    const parts = [{ type: "output_text", text: HERMES, annotations: [url(HERMES, "bash")] }];
    const { sent } = pass("/v1/responses", responses(parts));
    expect(sent.input[1].content).toEqual([{ type: "output_text", text: REMOVED_NOTE, annotations: [] }]);
  });

  test("hard negative: annotations without offsets (a file_citation's index), or with offsets that never fit the text, stay as sent", () => {
    const text = `Sure.\n${HERMES}\nSee the docs.`;
    const annotations = [{ type: "file_citation", file_id: "file_1", filename: "a.txt", index: 40 }, { type: "url_citation", start_index: 5, end_index: 9999, url: "https://x.example", title: "x" }];
    const { sent } = pass("/v1/responses", responses([{ type: "output_text", text, annotations }]));
    expect(sent.input[1].content[0].annotations).toEqual(annotations);
  });

  test("hard negative: a second part without a leak keeps its annotations (they point into its own text)", () => {
    const second = "More in the docs.";
    const parts = [
      { type: "output_text", text: `Sure.\n${HERMES}`, annotations: [] },
      { type: "output_text", text: second, annotations: [url(second, "docs")] },
    ];
    const { sent } = pass("/v1/responses", responses(parts));
    expect(sent.input[1].content).toEqual([{ type: "output_text", text: `Sure.\n${REMOVED_NOTE}`, annotations: [] }, parts[1]]);
  });

  test("hard negative: a leak inside a fence is documentation: text and annotations as sent, the body byte for byte", () => {
    const text = `Like this:\n\n\`\`\`\n${HERMES}\n\`\`\`\n\nSee the docs.`;
    const body = responses([{ type: "output_text", text, annotations: [url(text, "docs")] }]);
    const { raw, removed } = pass("/v1/responses", body);
    expect(removed).toBe(0);
    expect(raw).toBe(JSON.stringify(body));
  });
});

describe("chat: a message's annotations over its string content move with the note", () => {
  test("url_citation offsets under `url_citation` move; the rest as sent", () => {
    const content = `Sure.\n${HERMES}\nSee the docs.`;
    const flat = url(content, "docs");
    const annotations = [{ type: "url_citation", url_citation: { start_index: flat.start_index, end_index: flat.end_index, url: flat.url, title: flat.title } }];
    const body = {
      model: "m",
      tools: [{ type: "function", function: { name: "bash", parameters: SCHEMA } }],
      messages: [{ role: "user", content: "go" }, { role: "assistant", content, annotations }, { role: "user", content: "?" }],
    };
    const { sent } = pass("/v1/chat/completions", body);
    const message = sent.messages[1];
    expect(message.content).toBe(`Sure.\n${REMOVED_NOTE}\nSee the docs.`);
    const moved = message.annotations[0].url_citation;
    expect(message.content.slice(moved.start_index, moved.end_index)).toBe("docs");
    expect({ ...moved, start_index: 0, end_index: 0 }).toEqual({ ...annotations[0]!.url_citation, start_index: 0, end_index: 0 });
  });
});

describe("Anthropic: citations carry no offsets into the block text", () => {
  test("hard negative: a text block's citations go up as sent beside the note", () => {
    const citations = [{ type: "char_location", cited_text: "the docs", document_index: 0, document_title: "Guide", start_char_index: 3, end_char_index: 11 }];
    const body = {
      model: "m",
      max_tokens: 9,
      tools: [{ name: "bash", input_schema: SCHEMA }],
      messages: [{ role: "user", content: "go" }, { role: "assistant", content: [{ type: "text", text: `Sure.\n${HERMES}\nSee the docs.`, citations }] }, { role: "user", content: "?" }],
    };
    const { sent, raw } = pass("/v1/messages", body);
    expect(sent.messages[1].content).toEqual([{ type: "text", text: `Sure.\n${REMOVED_NOTE}\nSee the docs.`, citations }]);
    expect(raw).toContain(JSON.stringify(citations));
  });
});
