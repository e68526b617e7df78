/**
 * One reply, its text in several parts, through the wires (review, differential: each case one
 * root cause found by test/property/diff-*.property.test.ts and shrunk by hand). A reply split
 * into Anthropic text blocks (a thinking block between) or Responses parts must come out as the
 * one text does, streamed and as JSON.
 */
import { describe, expect, test } from "bun:test";
import { parse } from "../../src/engine/parse.ts";
import { fixtureTools } from "../golden/tools.ts";
import { live } from "../golden/notation.ts";
import { anthropicJson, anthropicStream, responsesJson, responsesStream, show } from "../property/diff-harness.ts";

const BASH = '<tool_call>\n{"name":"bash","arguments":{"command":"ls"}}\n</tool_call>';
const READ = '<tool_call>\n{"name":"read","arguments":{"filePath":"/a"}}\n</tool_call>';

describe("F1: Responses parts end the post-call tail as if the reply ended", () => {
  // Prose between two leaked calls, the second call in the next output_text part (or message item).
  const parts = [`Let me check.\n\n${BASH}\n\nNow the file:\n\n`, READ];
  const whole = parse(parts.join(""), fixtureTools);
  const expected = { calls: whole.calls.map((c) => ({ tool: c.tool, input: c.input })), text: whole.text };

  test("the whole text keeps the prose between the calls (and Anthropic blocks do too)", async () => {
    expect(whole.text).toBe("Let me check.\n\n\n\nNow the file:\n\n");
    const s = { text: parts.join("") };
    const a = await anthropicJson(s, parts, true);
    expect(show({ calls: a.calls, text: a.text })).toBe(show(expected));
    const b = await anthropicStream(s, 3, parts, true);
    expect(show({ calls: b.calls, text: b.text })).toBe(show(expected));
  });

  for (const [name, items] of [["two output_text parts", [parts]], ["two message items", parts.map((p) => [p])]] as const) {
    // F1: Responses part ends — fixed on branch fix-held-calls
    test.todo(`${name}, JSON: the prose after the first call stays visible`, async () => {
      const r = await responsesJson({ text: parts.join("") }, items as string[][]);
      expect(show({ calls: r.calls, text: r.text })).toBe(show(expected));
    });
    // F1: Responses part ends — fixed on branch fix-held-calls
    test.todo(`${name}, stream: the prose after the first call stays visible`, async () => {
      const r = await responsesStream({ text: parts.join("") }, 5, items as string[][]);
      expect(show({ calls: r.calls, text: r.text })).toBe(show(expected));
    });
  }
});

describe("F2: a fenced example after an unclosed call never runs, whole or split at the fence", () => {
  // A call cut off mid-parameter, then the model shows a complete block inside a ```xml fence.
  const blk = live(`<{D}tool_calls>\n<{D}invoke name="bash">\n<{D}parameter name="command" string="true">rm -rf x</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`);
  const truncated = live(`<{D}tool_calls>\n<{D}invoke name="bash">\n<{D}parameter name="command" string="true">cut off\n\n`);
  const fenced = "```xml\n" + blk + "\n```\n";

  test("two Anthropic text blocks and the one text: no call, the same text, a truncated-call nudge", async () => {
    const s = { text: truncated + fenced };
    const split = await anthropicJson(s, [truncated, fenced], true);
    expect(split.calls).toEqual([]);
    expect(split.nudge).toBe("truncated-call");
    expect(show(await anthropicJson(s))).toBe(show(split));
    for (const seed of [0, 4, 8]) {
      const sse = await anthropicStream(s, seed);
      expect(show({ calls: sse.calls, text: sse.text, nudge: sse.nudge })).toBe(show(split));
    }
  });
});

describe("F3: Anthropic stream, a text block whose start is still held ends its markup at the block's end", () => {
  // The first text block is all candidate, so its start is held and never opened downstream; its
  // end must still end the span, as the JSON path (endSpan) and the wire's rule ("markup never
  // spans a text block and a block of another kind after it") do: a truncated call, never `rm -rf tmp`.
  const parts = [live(`<{D}tool_calls>\n<{D}invoke name="bash">\n<{D}parameter name="command" string="true">rm -rf `), live(`tmp</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`)];
  const s = { text: parts.join("") };

  test("JSON: no call, a truncated-call nudge", async () => {
    const json = await anthropicJson(s, parts, true);
    expect({ calls: json.calls, nudge: json.nudge }).toEqual({ calls: [], nudge: "truncated-call" });
  });

  for (const seed of [0, 4, 8]) {
    test(`stream (seed ${seed}): the same as JSON`, async () => {
      const json = await anthropicJson(s, parts, true);
      const sse = await anthropicStream(s, seed, parts, true);
      expect(show({ calls: sse.calls, text: sse.text, nudge: sse.nudge })).toBe(show(json));
      expect(sse.blocks).toEqual(["text", "thinking", "text"]);
    });
  }

  test("prose before the markup in its own block (the block opened downstream) gives the same", async () => {
    const withProse = ["Running it.\n\n" + parts[0], parts[1]!];
    const json = await anthropicJson({ text: withProse.join("") }, withProse, true);
    const sse = await anthropicStream({ text: withProse.join("") }, 4, withProse, true);
    expect(show({ calls: sse.calls, text: sse.text, nudge: sse.nudge })).toBe(show(json));
  });

  test("a block that is all one call before a thinking block: the call, no empty text block", async () => {
    const call = live(`<{D}tool_calls>\n<{D}invoke name="bash">\n<{D}parameter name="command" string="true">ls</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`);
    const blocks = [call + "\n\n", "Done."];
    const json = await anthropicJson({ text: blocks.join("") }, blocks, true);
    for (const seed of [0, 3, 7]) {
      const sse = await anthropicStream({ text: blocks.join("") }, seed, blocks, true);
      expect(show({ calls: sse.calls, text: sse.text, nudge: sse.nudge })).toBe(show(json));
      expect(sse.blocks).toEqual(["tool_use", "thinking"]);
    }
  });
});

describe("F4: a call closed by </arg_value> keeps the next line's indentation visible, whole or split", () => {
  const hermes = '<tool_call>\n{"name":"bash","arguments":{"command":"ls"}}\n</tool_call>';
  const after = "\n\n    <b>x</b>\n\n" + hermes;

  test("the whole text and the text split after the call (two Anthropic blocks) show the same indented block", async () => {
    const parts = ["<tool_call>list_sessions</arg_value>", after];
    const split = await anthropicJson({ text: parts.join("") }, parts, true);
    const whole = await anthropicJson({ text: parts.join("") });
    expect(split.text).toContain("    <b>x</b>");
    expect(whole.text).toBe(split.text);
  });
});
