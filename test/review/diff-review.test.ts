/**
 * Review findings (differential): each test is one root cause, found by the properties in
 * diff-paths.property.test.ts and diff-parts.property.test.ts and shrunk by hand. Each one fails
 * on the code as reviewed.
 */
import { describe, expect, test } from "bun:test";
import { parse } from "../../src/engine/parse.ts";
import { fixtureTools } from "../golden/tools.ts";
import { live } from "../golden/notation.ts";
import { anthropicJson, anthropicStream, responsesJson, responsesStream, show } from "./diff-harness.ts";

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
    test(`${name}, JSON: the prose after the first call stays visible`, async () => {
      const r = await responsesJson({ text: parts.join("") }, items as string[][]);
      expect(show({ calls: r.calls, text: r.text })).toBe(show(expected));
    });
    test(`${name}, stream: the prose after the first call stays visible`, async () => {
      const r = await responsesStream({ text: parts.join("") }, 5, items as string[][]);
      expect(show({ calls: r.calls, text: r.text })).toBe(show(expected));
    });
  }
});

describe("F2: a fenced example runs when an unclosed call before it swallowed the fence's opener", () => {
  // A call cut off mid-parameter, then the model shows a complete block inside a ```xml fence.
  // Split into two Anthropic text blocks at the fence, nothing runs; as one text, the fenced
  // example's `rm -rf x` is recovered as a call (documentation must never execute).
  const blk = live(`<{D}tool_calls>\n<{D}invoke name="bash">\n<{D}parameter name="command" string="true">rm -rf x</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`);
  const truncated = live(`<{D}tool_calls>\n<{D}invoke name="bash">\n<{D}parameter name="command" string="true">cut off\n\n`);
  const fenced = "```xml\n" + blk + "\n```\n";

  test("parse(): no call comes from inside the fence", () => {
    const result = parse(truncated + fenced, fixtureTools);
    expect(show(result.calls.map((c) => c.input))).toBe("[]");
  });

  test("the same reply split at the fence (two Anthropic text blocks) runs nothing: the paths agree only if the whole text runs nothing", async () => {
    const split = await anthropicJson({ text: truncated + fenced }, [truncated, fenced], true);
    expect(split.calls).toEqual([]);
    const whole = await anthropicJson({ text: truncated + fenced });
    expect(show(whole.calls)).toBe(show(split.calls));
  });
});

describe("F3: Anthropic stream, a text block whose start is still held lets its markup run on past a thinking block", () => {
  // The first text block is all candidate, so its start is held and never opened downstream;
  // at its stop AnthropicStreamRewriter.#stop sees no open block and never ends the span, so the
  // engine reads the next text block (after a thinking block) as the same markup. The JSON path
  // (endSpan there) and the wire's own rule ("markup never spans a text block and a block of
  // another kind after it") give a truncated call; the stream runs `rm -rf tmp`.
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
    });
  }

  test("stream: prose before the markup in its own block does not change it (the held-start case only)", async () => {
    // Control: with prose first the block opens downstream, #ending is set and endSpan runs.
    const withProse = ["Running it.\n\n" + parts[0], parts[1]!];
    const json = await anthropicJson({ text: withProse.join("") }, withProse, true);
    const sse = await anthropicStream({ text: withProse.join("") }, 4, withProse, true);
    expect(show({ calls: sse.calls, text: sse.text, nudge: sse.nudge })).toBe(show(json));
  });
});

describe("F4: a call closed by </arg_value> takes the next line's indentation into its span", () => {
  // `<tool_call>list_sessions</arg_value>` (GLM's value closer for the wrapper's) ends its call
  // span at the next content, so the blank line and the indentation of an indented code block
  // after it vanish: "    <b>x</b>" (code) comes out as "<b>x</b>" (HTML), with no stripped
  // report. With `</tool_call>`, or split into two Anthropic text blocks, the text is kept.
  const hermes = '<tool_call>\n{"name":"bash","arguments":{"command":"ls"}}\n</tool_call>';
  const after = "\n\n    <b>x</b>\n\n" + hermes;

  test("parse(): the indentation stays visible, as with </tool_call>", () => {
    const proper = parse("<tool_call>list_sessions</tool_call>" + after, fixtureTools);
    expect(proper.text).toBe("\n\n    <b>x</b>\n\n");
    const glm = parse("<tool_call>list_sessions</arg_value>" + after, fixtureTools);
    expect(glm.calls.map((c) => c.tool)).toEqual(["list_sessions", "bash"]);
    expect(glm.text).toContain("    <b>x</b>");
  });

  test("the whole text and the text split after the call (two Anthropic blocks) show the same indented block", async () => {
    const parts = ["<tool_call>list_sessions</arg_value>", after];
    const split = await anthropicJson({ text: parts.join("") }, parts, true);
    const whole = await anthropicJson({ text: parts.join("") });
    expect(split.text).toContain("    <b>x</b>");
    expect(whole.text).toBe(split.text);
  });
});
