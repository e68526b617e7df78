// Review 47 (hostile, tests only): the chat-completions wire's native-call handling
// (src/wires/chat/native-repeats.ts, call-numbering.ts) read by the AI SDK chat providers. Each
// test marked fixed says what was wrong and the rule now (fx-47-native); the others are hard
// negatives.
import { describe, expect, test } from "bun:test";
import { ENVELOPE, HERMES, PROVIDERS, READ, chatClient, chatSse, chunk, dataEvents, rawReply } from "./review-47-chat-support.ts";

const tc = (entry: Record<string, unknown>) => chunk({ tool_calls: [entry] });
const REQUEST = { model: "m", stream: true, messages: [{ role: "user", content: "read a.ts" }], tools: [READ] };

/** A leak the repair sends as a call, then the same call natively, its name in a later delta than its first. */
function nameLater(entries: Record<string, unknown>[]): string {
  return chatSse([chunk({ role: "assistant", content: `Reading. ${HERMES}` }), ...entries.map(tc), chunk({}, "tool_calls")]);
}

describe("a leaked call sent, then the same native call whose first delta carries no function.name", () => {
  // fixed: (was a call running twice: high) some OpenAI-compatible providers send a tool call's
  // first delta without `function.name` (@ai-sdk/openai-compatible buffers such deltas until the
  // name comes); NativeRepeats held a call only from the delta naming a sent call's tool, so the
  // first delta's arguments streamed past, the rest was compared alone, and the client joined
  // them and ran read a.ts twice. The rule now: a call is held from its first entry (by index, or
  // id) when it may still repeat a sent call (its name not known yet while a sent call is
  // unmatched), bounded as ever; once named and its arguments closed it is compared whole.
  test("fixed: arguments in the first delta, the name in the next: one call, not two", async () => {
    const client = await chatClient("compatible", nameLater([
      { index: 0, id: "call_n", type: "function", function: { arguments: '{"path":"a.ts"}' } },
      { index: 0, function: { name: "read" } },
    ]));
    expect(client.calls).toEqual([{ name: "read", input: '{"path":"a.ts"}' }]);
  });

  test("fixed: arguments split around the delta that names the tool: one call, not two", async () => {
    const client = await chatClient("compatible", nameLater([
      { index: 0, id: "call_n", type: "function", function: { arguments: '{"path":' } },
      { index: 0, function: { name: "read", arguments: '"a.ts"}' } },
    ]));
    expect(client.calls).toEqual([{ name: "read", input: '{"path":"a.ts"}' }]);
  });

  // fixed: (was the client rejecting the stream: medium) same shape, the first delta carrying an
  // empty argument string: the repeat was dropped from its naming delta on, but its first delta
  // (id, no name) had gone out under index 1, and @ai-sdk/openai-compatible threw
  // AI_InvalidResponseDataError ("Expected 'function.name' to be a string") at the end. The rule
  // now: held from its first entry, no entry of a dropped repeat ever goes out (nor any later one
  // of the same call).
  test("fixed: an empty first delta, the name next, the arguments last: the client reads the stream, one call", async () => {
    const outcome = await chatClient("compatible", nameLater([
      { index: 0, id: "call_n", type: "function", function: { arguments: "" } },
      { index: 0, function: { name: "read" } },
      { index: 0, function: { arguments: '{"path":"a.ts"}' } },
    ])).then((client) => client.calls, (error: unknown) => String(error));
    expect(outcome).toEqual([{ name: "read", input: '{"path":"a.ts"}' }]);
  });

  test("fixed: the raw stream: no delta of the dropped repeat goes out", async () => {
    const { text } = await rawReply(REQUEST, nameLater([
      { index: 0, id: "call_n", type: "function", function: { arguments: "" } },
      { index: 0, function: { name: "read" } },
      { index: 0, function: { arguments: '{"path":"a.ts"}' } },
    ]));
    const entries = dataEvents(text).flatMap((c) => c.choices?.[0]?.delta?.tool_calls ?? []);
    expect(entries.map((e: { index: number }) => e.index)).toEqual([0]);
  });

  // Hard negative (passes today): the name in the first delta, as OpenAI and DeepSeek send it.
  test("hard negative: the name in the first delta: the repeat is dropped, one call", async () => {
    const client = await chatClient("compatible", nameLater([
      { index: 0, id: "call_n", type: "function", function: { name: "read", arguments: "" } },
      { index: 0, function: { arguments: '{"path":"a.ts"}' } },
    ]));
    expect(client.calls).toEqual([{ name: "read", input: '{"path":"a.ts"}' }]);
  });

  // Hard negative (passes today): without the leak the provider's name-later call runs once.
  test("hard negative: no leak, the name-later native call runs once", async () => {
    const body = chatSse([chunk({ role: "assistant", content: "Reading. " }), tc({ index: 0, id: "call_n", type: "function", function: { arguments: '{"path":"a.ts"}' } }), tc({ index: 0, function: { name: "read" } }), chunk({}, "tool_calls")]);
    const client = await chatClient("compatible", body);
    expect(client.calls).toEqual([{ name: "read", input: '{"path":"a.ts"}' }]);
  });
});

describe("a leaked call sent, then the same native call with no index (as some OpenAI-compatible gateways stream it)", () => {
  // fixed: (was a call running twice: high) a tool_calls entry without `index` (some
  // OpenAI-compatible gateways stream whole calls so; @ai-sdk/openai-compatible runs it) was
  // neither held nor compared, so the repeat of the leak ran twice. The rule now: an entry without
  // index is read as the client reads it (by its id; without one, a named entry starts a call and
  // an unnamed one continues the last) and held and compared like any other.
  test("fixed: the same call, whole in one entry without index: one call, not two", async () => {
    const body = chatSse([chunk({ role: "assistant", content: `Reading. ${HERMES}` }), tc({ id: "call_n", type: "function", function: { name: "read", arguments: '{"path":"a.ts"}' } }), chunk({}, "tool_calls")]);
    const client = await chatClient("compatible", body);
    expect(client.calls).toEqual([{ name: "read", input: '{"path":"a.ts"}' }]);
  });

  // Hard negative (passes today): other input, no index: both calls run.
  test("hard negative: other input without index: both calls run", async () => {
    const body = chatSse([chunk({ role: "assistant", content: `Reading. ${HERMES}` }), tc({ id: "call_n", type: "function", function: { name: "read", arguments: '{"path":"c.ts"}' } }), chunk({}, "tool_calls")]);
    const client = await chatClient("compatible", body);
    expect(client.calls).toEqual([{ name: "read", input: '{"path":"a.ts"}' }, { name: "read", input: '{"path":"c.ts"}' }]);
  });
});

describe("a leaked call sent, then native calls whose deltas interleave by index", () => {
  const body = (split: boolean) => {
    const first = { index: 0, id: "call_n0", type: "function", function: { name: "read", arguments: '{"path":' } };
    const other = { index: 1, id: "call_n1", type: "function", function: { name: "read", arguments: '{"path":"z.ts"}' } };
    const rest = { index: 0, function: { arguments: '"a.ts"}' } };
    const calls = split ? [chunk({ tool_calls: [first] }), chunk({ tool_calls: [other] })] : [chunk({ tool_calls: [first, other] })];
    return chatSse([chunk({ role: "assistant", content: `Reading. ${HERMES}` }), ...calls, chunk({ tool_calls: [rest] }), chunk({}, "tool_calls")]);
  };
  // fixed: (was a call running twice: medium) NativeRepeats took an entry of another index as the
  // end of the call it held: the repeat, half read, was compared, was no repeat, went out, and its
  // second half streamed past under the same index: read a.ts twice. The rule now: a held call is
  // complete only when its arguments close as JSON (or at the finish, the end, a cut); another
  // index's entry ends nothing, and calls whose entries interleave are held side by side, within
  // the bounds (counted over every call held).
  for (const [name, split] of [["in two chunks", true], ["in one chunk", false]] as const) {
    test(`fixed: the repeat's arguments continue after another call's first delta (${name}): a.ts once, z.ts once`, async () => {
      const client = await chatClient("compatible", body(split));
      expect(client.calls.map((c) => c.input).sort()).toEqual(['{"path":"a.ts"}', '{"path":"z.ts"}']);
    });
  }

  // Hard negative (passes today): the repeat complete before the other call starts is dropped.
  test("hard negative: the repeat complete before the other call: dropped, a.ts once, z.ts once", async () => {
    const sequential = chatSse([
      chunk({ role: "assistant", content: `Reading. ${HERMES}` }),
      chunk({ tool_calls: [{ index: 0, id: "call_n0", type: "function", function: { name: "read", arguments: '{"path":' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: '"a.ts"}' } }] }),
      chunk({ tool_calls: [{ index: 1, id: "call_n1", type: "function", function: { name: "read", arguments: '{"path":"z.ts"}' } }] }),
      chunk({}, "tool_calls"),
    ]);
    const client = await chatClient("compatible", sequential);
    expect(client.calls.map((c) => c.input).sort()).toEqual(['{"path":"a.ts"}', '{"path":"z.ts"}']);
  });
});

describe("a leaked call sent, the same native call complete, then the reply is cut (an error chunk, a content filter)", () => {
  const NATIVE = { index: 0, id: "call_n", type: "function", function: { name: "read", arguments: '{"path":"a.ts"}' } };
  const cuts: [string, Record<string, unknown>][] = [
    ["an error chunk", { error: { message: "The server had an error", code: 500 } }],
    ["an error chunk with a choice finishing for error (OpenRouter)", { ...ENVELOPE, choices: [{ index: 0, delta: {}, finish_reason: "error" }], error: { message: "boom" } }],
    ["finish_reason content_filter", chunk({}, "content_filter")],
  ];
  // fixed: (was a call running twice: high) the repeat was held until another call, the finish or
  // the end; a cut (error chunk, content_filter or error finish) released it undecided through
  // NativeRepeats.stop(), though its arguments were complete, and both AI SDK chat providers
  // finish the calls they have at the stream's end, after an error part too. The rule now: a held
  // call is decided as soon as its arguments close as JSON; whenever the hold ends early (cut,
  // stand-aside, end) a call whose arguments are complete JSON repeating a sent call is dropped
  // (HeldNative.settle); only an incomplete or unnamed one goes out as it came.
  for (const provider of PROVIDERS) {
    for (const [name, cut] of cuts) {
      test(`fixed: ${provider}: ${name} right after the complete repeat: read a.ts once`, async () => {
        const client = await chatClient(provider, chatSse([chunk({ role: "assistant", content: `Reading. ${HERMES}` }), chunk({ tool_calls: [NATIVE] }), cut]));
        expect(client.calls).toEqual([{ name: "read", input: '{"path":"a.ts"}' }]);
      });
    }
  }

  // Hard negative (passes today): the stream's end without a finish decides the held repeat: dropped.
  test("hard negative: [DONE] with no finish right after the complete repeat: read a.ts once", async () => {
    const client = await chatClient("openai", chatSse([chunk({ role: "assistant", content: `Reading. ${HERMES}` }), chunk({ tool_calls: [NATIVE] })]));
    expect(client.calls).toEqual([{ name: "read", input: '{"path":"a.ts"}' }]);
  });
});

describe("a leaked call sent, then native calls that each reuse index 0 under a new id", () => {
  // fixed: (was a native call lost and a corrupt one run: medium) with every parallel call
  // numbered 0 and told apart by id, the next call's entry (id call_2) was appended to the held
  // repeat: one call with `{"path":"a.ts"}{"path":"z.ts"}`, z.ts never run. The rule now: under an
  // index already seen, an entry with another id and a name is another call, as the client reads
  // it; the call held there is decided first.
  test("fixed: the repeat (call_1) and another call (call_2) both under index 0: a.ts once, z.ts once", async () => {
    const body = chatSse([
      chunk({ role: "assistant", content: `Reading. ${HERMES}` }),
      chunk({ tool_calls: [{ index: 0, id: "call_1", type: "function", function: { name: "read", arguments: '{"path":"a.ts"}' } }] }),
      chunk({ tool_calls: [{ index: 0, id: "call_2", type: "function", function: { name: "read", arguments: '{"path":"z.ts"}' } }] }),
      chunk({}, "tool_calls"),
    ]);
    const client = await chatClient("compatible", body);
    expect(client.calls.map((c) => c.input).sort()).toEqual(['{"path":"a.ts"}', '{"path":"z.ts"}']);
  });

  // Hard negative (passes today): without the leak the client reads the two calls apart.
  test("hard negative: no leak, the same two native calls under index 0: both run", async () => {
    const body = chatSse([
      chunk({ role: "assistant", content: "Reading. " }),
      chunk({ tool_calls: [{ index: 0, id: "call_1", type: "function", function: { name: "read", arguments: '{"path":"a.ts"}' } }] }),
      chunk({ tool_calls: [{ index: 0, id: "call_2", type: "function", function: { name: "read", arguments: '{"path":"z.ts"}' } }] }),
      chunk({}, "tool_calls"),
    ]);
    const client = await chatClient("compatible", body);
    expect(client.calls.map((c) => c.input).sort()).toEqual(['{"path":"a.ts"}', '{"path":"z.ts"}']);
  });
});

describe("a leaked call sent, the same native call complete, then the repair stands aside (a chunk over 4 MiB)", () => {
  // fixed: (was a call running twice: high; same root as the cut above) a chunk past the repair's
  // 4 MiB bound made the repair stand aside and release the complete held repeat undecided. The
  // rule now: decided when its arguments close; at the stand-aside a held call with complete JSON
  // arguments repeating a sent call is dropped (HeldNative.stopAll, as settle).
  test("fixed: a reasoning delta over 4 MiB right after the complete repeat: read a.ts once", async () => {
    const body = chatSse([
      chunk({ role: "assistant", content: `Reading. ${HERMES}` }),
      chunk({ tool_calls: [{ index: 0, id: "call_n", type: "function", function: { name: "read", arguments: '{"path":"a.ts"}' } }] }),
      chunk({ reasoning_content: "y".repeat(4 * 1024 * 1024 + 16) }),
      chunk({}, "tool_calls"),
    ]);
    const client = await chatClient("compatible", body);
    expect(client.calls).toEqual([{ name: "read", input: '{"path":"a.ts"}' }]);
  });
});
