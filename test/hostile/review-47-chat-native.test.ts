// Review 47 (hostile, tests only): the chat-completions wire's native-call handling
// (src/wires/chat/native-repeats.ts, call-numbering.ts) read by the AI SDK chat providers. Each
// failing test says what is wrong, its severity and the suspected source file; the others are hard
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
  // FINDING (a call runs twice: high). Some OpenAI-compatible providers send a tool call's first
  // delta without `function.name` (@ai-sdk/openai-compatible buffers such deltas until the name
  // comes, for exactly those providers). The leak goes out as a call (parallel calls on); the
  // native repeat's first delta names no tool, so NativeRepeats.wants/filter never hold it (they
  // only hold an entry whose own delta names a tool a sent call has), and its arguments stream
  // past; the later delta naming `read` is held, compared on its own (empty) arguments, is no
  // repeat, and goes out: the client joins the two and runs read a.ts twice. Expected: the native
  // repeat is recognised and dropped, one call. Suspected: src/wires/chat/native-repeats.ts
  // (an index whose first delta has no name is marked passed / never held).
  test("arguments in the first delta, the name in the next: one call, not two", async () => {
    const client = await chatClient("compatible", nameLater([
      { index: 0, id: "call_n", type: "function", function: { arguments: '{"path":"a.ts"}' } },
      { index: 0, function: { name: "read" } },
    ]));
    expect(client.calls).toEqual([{ name: "read", input: '{"path":"a.ts"}' }]);
  });

  test("arguments split around the delta that names the tool: one call, not two", async () => {
    const client = await chatClient("compatible", nameLater([
      { index: 0, id: "call_n", type: "function", function: { arguments: '{"path":' } },
      { index: 0, function: { name: "read", arguments: '"a.ts"}' } },
    ]));
    expect(client.calls).toEqual([{ name: "read", input: '{"path":"a.ts"}' }]);
  });

  // FINDING (the client rejects the stream: medium). Same shape, the first delta carrying an empty
  // argument string: the repeat is dropped from the delta that names the tool on, but its first
  // delta (id, no name) already went out under index 1. @ai-sdk/openai-compatible keeps it pending,
  // and at the stream's end throws AI_InvalidResponseDataError ("Expected 'function.name' to be a
  // string"): the whole answer fails, where without the leak the same native call ran. Expected:
  // the repeat dropped whole (every delta of its index), the stream read without error, one call.
  // Suspected: src/wires/chat/native-repeats.ts (holding starts at the delta naming the tool, not
  // at the index's first delta).
  test("an empty first delta, the name next, the arguments last: the client reads the stream, one call", async () => {
    const outcome = await chatClient("compatible", nameLater([
      { index: 0, id: "call_n", type: "function", function: { arguments: "" } },
      { index: 0, function: { name: "read" } },
      { index: 0, function: { arguments: '{"path":"a.ts"}' } },
    ])).then((client) => client.calls, (error: unknown) => String(error));
    expect(outcome).toEqual([{ name: "read", input: '{"path":"a.ts"}' }]);
  });

  test("the raw stream: no delta of the dropped repeat goes out", async () => {
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
  // FINDING (a call runs twice: high). A tool_calls entry without `index` (some OpenAI-compatible
  // gateways stream whole calls so; @ai-sdk/openai-compatible accepts it and runs the call) is
  // never held by NativeRepeats.filter (`index === undefined`: neither held nor compared), so the
  // native repeat of the leak already sent goes out and the client runs read a.ts twice. Expected:
  // the repeat is compared like one with an index and dropped: one call. Suspected:
  // src/wires/chat/native-repeats.ts (filter, wants: entries without an index).
  test("the same call, whole in one entry without index: one call, not two", async () => {
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
  // FINDING (a call runs twice: medium; needs a provider that interleaves parallel calls' deltas,
  // which both AI SDK chat providers accept since they join deltas by index). NativeRepeats takes
  // an entry of another index as the end of the call it holds (filter: "An entry of another call:
  // the calls held are complete"): the repeat of the leak, held with half its arguments, is
  // compared then, is no repeat, and goes out; its second half streams past under the same index,
  // and the client runs read a.ts twice (plus z.ts). Expected: a held call is decided when its
  // arguments are complete (or at the finish), not when another index shows up: read a.ts once,
  // z.ts once. Suspected: src/wires/chat/native-repeats.ts (filter, decideAll on another index).
  for (const [name, split] of [["in two chunks", true], ["in one chunk", false]] as const) {
    test(`the repeat's arguments continue after another call's first delta (${name}): a.ts once, z.ts once`, async () => {
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
  // FINDING (a call runs twice: high). The native repeat of the leak already sent is held to
  // compare until another call, the finish or the end; a cut (error chunk, content_filter or
  // error finish) makes ChunkRewriter.stop() release it undecided (NativeRepeats.stop), though its
  // arguments are complete and equal the sent call's. Chat has no end-of-call event, and both AI
  // SDK chat providers finalize the tool calls they gathered when the stream ends, after an error
  // part too: read a.ts runs twice. (Anthropic drops a complete repeat before the error: its
  // block_stop tells it is complete; int46-wires-merge.test.ts.) Expected: at a cut, a held entry
  // whose gathered arguments already are the sent call's input is dropped as at the finish; one
  // call. Suspected: src/wires/chat/native-repeats.ts stop(), src/wires/chat/rewriter.ts stop().
  for (const provider of PROVIDERS) {
    for (const [name, cut] of cuts) {
      test(`${provider}: ${name} right after the complete repeat: read a.ts once`, async () => {
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
  // FINDING (a native call lost, a corrupt one run: medium). Some OpenAI-compatible servers number
  // every parallel call 0 and tell them apart by id; the AI SDK's tool-call tracker reads a delta
  // with a new id, a name and arguments opening a value as a new call under the same index. Here
  // the first call repeats the leak already sent and is held (native-repeats.ts); the next call's
  // delta (id call_2, read z.ts) has the same index, so filter() appends its arguments to the held
  // one: the repeat is released as read with `{"path":"a.ts"}{"path":"z.ts"}`, which the client
  // gets as one call with input that is no JSON, and read z.ts never runs. Expected: an entry with
  // another id (and a name) is another call: the repeat dropped, read z.ts run: a.ts once, z.ts
  // once. Suspected: src/wires/chat/native-repeats.ts (filter: a held index takes every entry of
  // that index, whatever its id).
  test("the repeat (call_1) and another call (call_2) both under index 0: a.ts once, z.ts once", async () => {
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
  // FINDING (a call runs twice: high; same root as the cut above). A chunk past the repair's
  // 4 MiB bound (here a reasoning delta) makes the repair stand aside: ChunkRewriter.stop(true)
  // releases the held native repeat undecided (NativeRepeats.stop), though its arguments are
  // complete and equal the sent call's, and the client runs read a.ts twice. Expected: a held
  // entry already complete and equal to a sent call is dropped before standing aside; one call.
  // Suspected: src/wires/chat/native-repeats.ts stop().
  test("a reasoning delta over 4 MiB right after the complete repeat: read a.ts once", async () => {
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
