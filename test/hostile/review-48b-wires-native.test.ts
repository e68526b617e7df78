// Review 48b (hostile, tests only): "native call wins" (src/engine/output.ts nativeCame /
// settleHeldCalls("native"), src/wires/anthropic/stream.ts). A leaked call the engine still holds
// (a DSML block waiting for its closer) is dropped as the native call's duplicate whatever the
// native call is: even one naming a tool the request never declared, which the host can only
// refuse. Then nothing runs, the summary carries no nudge (no correction, no wake), and the only
// trace is a stripped span labelled "native-call-duplicate". No DSML marker bytes here (live()).
import { describe, expect, test } from "bun:test";
import { live } from "../golden/notation.ts";
import { MESSAGES_URL, dataEvents, messageEnd, messageStart, messagesRequest, namedSse, rawReply, textBlock, toolUseBlock } from "./review-48-wires-support.ts";

const READ_DSML = `<{D}invoke name="read">\n<{D}parameter name="path" string="true">a.ts</{D}parameter>\n</{D}invoke>`;
const OPEN = live(`Reading.\n<{D}tool_calls>\n${READ_DSML}\nMore prose.`);

async function reply(nativeName: string) {
  const body = namedSse([messageStart(), ...textBlock(0, [OPEN]), ...toolUseBlock(1, "toolu_n", { path: "b.ts" }, nativeName), ...messageEnd("tool_use")]);
  const { text, results } = await rawReply(MESSAGES_URL, messagesRequest(), body);
  const events = dataEvents(text);
  return {
    uses: events.filter((e) => e.type === "content_block_start" && e.content_block.type === "tool_use").map((e) => e.content_block.name as string),
    text: events.filter((e) => e.delta?.type === "text_delta").map((e) => e.delta.text as string).join(""),
    summary: (results[0] as { summary: { nudge: string | null; stripped: { kind: string }[] } }).summary,
  };
}

describe("native call wins: a native call the host must refuse", () => {
  // FINDING (low: a lost repair, no wrong execution; src/engine/output.ts nativeCame/settleHeldCalls):
  // the request declares only `read`; the model leaks read(a.ts) inside a DSML block and then makes a
  // native call to `ghost` (undeclared: OpenCode answers it with an unknown-tool error). The held
  // leak is stripped as "native-call-duplicate" of a call it does not repeat, with nudge null: read
  // never runs, no correction names it, no wake. Expected: only a native call to a declared tool
  // supersedes the held leak; otherwise the leak is settled as if no native call came (runs, or at
  // least refused with a nudge so the model is told).
  // known gap (fx48b): not fixed this round. Telling a native call to an undeclared tool apart needs
  // its name at RepairEngine.noteNativeToolCall on every wire (chat, Anthropic, Responses stream
  // and JSON, the middleware, parse()), an engine interface change beside the other fixers' engine
  // work. Today's behaviour is a lost repair, never a wrong execution: nothing runs, the host
  // answers the undeclared call with its unknown-tool error, so the model gets another turn. The
  // trust-first rule to build: only a native call to a declared tool drops the held leak; for any
  // other, refuse the held call with a nudge (the correction names it) rather than run it beside a
  // call the model meant to make natively. This test pins today's behaviour.
  // Changed by fix 54b: a part's end decides nothing. The text block ends (a part's end) with the
  // DSML block still open: its held call is markup of unknown end, shown as written there, before
  // the native call comes; so nothing is stripped as its duplicate, and nothing runs but the native call.
  test("a native call to an undeclared tool after a text block that ended with a DSML block open: the leak is shown as written, only the native call (fix 54b)", async () => {
    const r = await reply("ghost");
    expect(r.uses).toEqual(["ghost"]);
    expect(r.summary.stripped).toEqual([]);
    expect(r.text).toBe(live(`Reading.\n<{D}tool_calls>\n${READ_DSML}\nMore prose.`));
  });

  // Hard negative (the rule as chosen): a declared native call supersedes the held leak, prose kept.
  // Changed by fix 54b (as above): the text block's end shows the open block's held call as written.
  test("a native call to a declared tool after a text block that ended with a DSML block open: only the native call runs, the text as written (fix 54b)", async () => {
    const r = await reply("read");
    expect(r.uses).toEqual(["read"]);
    expect(r.text).toBe(live(`Reading.\n<{D}tool_calls>\n${READ_DSML}\nMore prose.`));
    expect(r.summary.stripped).toEqual([]);
  });
});
