// Fix 50 (chat, n = 2): another choice's delta riding in a chunk whose choice-0 text the engine
// holds was lost. The chat wire learns a chunk's "shape" (the text around choices[0].delta.content)
// to read the next chunks without parsing them; learned from a two-choice chunk, the shape holds
// choice 1's delta in its suffix, and matches every later chunk whose choice 1 carries the same
// text ("ML" of each DSML marker, a repeated token). Such a chunk, its choice-0 text held on an
// undecided `<`, waited as a deferred event; when the deferral was given up (the `<` opened a
// candidate, a call was recovered, the buffer limit released it), only choice 0's released text
// went out in the deferred events' place, and choice 1's delta in them was gone.
// Fixed: a chunk waits only when its shape carries choice 0's content and nothing else (the rule
// the parsed path already had); choice 1 stays passed through, unrepaired (policy).
// Built by hand and deterministic: every buffer limit, several delta sizes, choice 0 leaking or not.
import { describe, expect, test } from "bun:test";
import { BUFFER_LIMITS, type Json, URLS, cutAt, deltas, encode, readSse, reference, repaired, show } from "./review-50-streams-support.ts";
import { fixtureTools } from "../golden/tools.ts";
import { live } from "../golden/notation.ts";

const TOOLS = fixtureTools.map((t) => ({ type: "function", function: { name: t.name, parameters: t.parameters } }));
const ENVELOPE = { id: "chatcmpl-1", object: "chat.completion.chunk", created: 1, model: "deepseek-chat" };
const REQUEST = { model: "deepseek-chat", stream: true, n: 2, messages: [{ role: "user", content: "hi" }], tools: TOOLS };

/** Choice 0: a recovered Hermes call then a costume in a sentence (N49.5), a costume alone, `<` that is no tag, plain prose. */
const ZERO = {
  leak: 'Let me check.\n\n<tool_call>\n{"name": "bash", "arguments": {"command": "ls"}}\n</tool_call> The agent wraps commands like\n<bash>\nrm -rf build\n</bash>\nin its replies.',
  costume: "The agent wraps commands like\n<bash>\nrm -rf build\n</bash>\nin its replies.",
  angles: "If a < b and c<d then <b>x</b> holds; <i> too.",
  plain: "Sure, the build is done and every test passes.",
};
/** Choice 1: golden P49.3 (a broken DSML block, passed through as written), and one token repeated, so every chunk's choice 1 is the same. */
const ONE = {
  dsml: live(
    '<{D}tool_calls>\n<{D}invoke name="bash">\n<{D}parameter name="command" string="true">rm -rf ./*</{D}parameter>\n</{D}invoke>\n<{D}tool_calls>\n<{D}parameter name="workdir" string="true">/tmp/scratch</{D}parameter>\n</{D}tool_calls>',
  ),
  repeated: "ML".repeat(90),
};

const chunk = (choices: Json[]): Json => ({ ...ENVELOPE, choices });
const delta = (index: number, content: string): Json => ({ index, delta: { content }, finish_reason: null });

/** mix 1: both choices in one chunk, choice 0 first; 2: choice 1 first; 0: each its own chunk. */
function body(zero: string, one: string, size0: number, size1: number, mix: number): Uint8Array {
  const out: Json[] = [chunk([{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null }])];
  const a = deltas(zero, size0);
  const b = deltas(one, size1);
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const x = a[i] !== undefined ? delta(0, a[i]!) : undefined;
    const y = b[i] !== undefined ? delta(1, b[i]!) : undefined;
    if (mix === 0 || !x || !y) {
      if (x) out.push(chunk([x]));
      if (y) out.push(chunk([y]));
    } else out.push(chunk(mix === 1 ? [x, y] : [y, x]));
  }
  out.push(chunk([{ index: 0, delta: {}, finish_reason: "stop" }, { index: 1, delta: {}, finish_reason: "stop" }]));
  return encode([...out.map((j) => JSON.stringify(j)), "[DONE]"].map((d) => `data: ${d}\n\n`).join(""));
}

/** Per choice, the text and calls an OpenAI client rebuilds. */
function read(raw: string): Record<number, { text: string; calls: { tool: string; input: unknown }[] }> {
  const { events, problem } = readSse(raw);
  if (problem) throw new Error(`framing: ${problem}`);
  const out: Record<number, { text: string; calls: { tool: string; input: unknown }[] }> = {};
  const slots = new Map<string, { index: number; name: string; args: string }>();
  for (const e of events) {
    if (e.data === "[DONE]") continue;
    for (const ch of (JSON.parse(e.data) as Json).choices as Json[]) {
      const view = (out[ch.index] ??= { text: "", calls: [] });
      if (typeof ch.delta?.content === "string") view.text += ch.delta.content;
      for (const t of ch.delta?.tool_calls ?? []) {
        const slot = slots.get(`${ch.index}/${t.index}`) ?? { index: ch.index, name: "", args: "" };
        slot.name += t.function?.name ?? "";
        slot.args += t.function?.arguments ?? "";
        slots.set(`${ch.index}/${t.index}`, slot);
      }
    }
  }
  for (const slot of slots.values()) (out[slot.index] ??= { text: "", calls: [] }).calls.push({ tool: slot.name, input: JSON.parse(slot.args) });
  return out;
}

/** Whole, and cut every 7 bytes (the rewrite must not depend on where the network cut). */
const WAYS = (bytes: Uint8Array) => [[bytes], cutAt(bytes, Array.from({ length: Math.floor(bytes.length / 7) }, (_, i) => 7 * (i + 1)))];

async function check(zero: string, one: string, size0: number, size1: number, mix: number, bufferLimit: number | undefined): Promise<string[]> {
  const wrong: string[] = [];
  const bytes = body(zero, one, size0, size1, mix);
  const ref = reference(zero, { bufferLimit });
  for (const pieces of WAYS(bytes)) {
    const got = read(await repaired(URLS.chat, REQUEST, pieces, bufferLimit));
    const where = `size ${size0}/${size1}, mix ${mix}, bufferLimit ${bufferLimit}, ${pieces.length} pieces`;
    // Choice 1: exactly what was sent, no call made of it (passed through, unrepaired).
    if (show(got[1]) !== show({ text: one, calls: [] })) wrong.push(`${where}: choice 1 read ${show(got[1]?.text)}`);
    // Choice 0: still repaired as the engine reads it alone.
    if (show(got[0]) !== show(ref)) wrong.push(`${where}: choice 0 read ${show(got[0])}, want ${show(ref)}`);
  }
  return wrong;
}

describe("chat, n = 2: choice 1's delta in a chunk whose choice-0 text is held is never lost", () => {
  for (const [zeroName, zero] of Object.entries(ZERO)) {
    for (const [oneName, one] of Object.entries(ONE)) {
      test(`choice 0 ${zeroName}, choice 1 ${oneName}, one chunk, choice 0 first`, async () => {
        const wrong: string[] = [];
        for (const bufferLimit of BUFFER_LIMITS) for (const size0 of [1, 2, 3]) for (const size1 of [1, 2, 4]) wrong.push(...(await check(zero, one, size0, size1, 1, bufferLimit)));
        expect(wrong).toEqual([]);
      });
    }
  }

  // Hard negatives: the layouts that never shared a learned shape with choice 1 keep working.
  for (const mix of [0, 2]) {
    test(`mix ${mix}: ${mix === 0 ? "each choice in its own chunk" : "one chunk, choice 1 first"}`, async () => {
      const wrong: string[] = [];
      for (const zero of [ZERO.leak, ZERO.angles]) for (const bufferLimit of BUFFER_LIMITS) for (const size0 of [1, 3]) wrong.push(...(await check(zero, ONE.dsml, size0, 2, mix, bufferLimit)));
      expect(wrong).toEqual([]);
    });
  }

  // The counterexample the review's property found, as it was: N49.5 after "Let me check.\n\n" in
  // deltas of 1, P49.3 in deltas of 2, bufferLimit 8: two characters of the last closer were lost.
  test("the review 50 counterexample: P49.3's last closer reads whole", async () => {
    const got = read(await repaired(URLS.chat, REQUEST, [body(ZERO.leak, ONE.dsml, 1, 2, 1)], 8));
    expect(show(got[1]?.text)).toBe(show(ONE.dsml));
    expect(show(got[0])).toBe(show(reference(ZERO.leak, { bufferLimit: 8 })));
  });
});
