// fx48b (review 48b wires finding 2): on the Responses stream a native function_call item right
// after the message item whose part ended holding an open DSML block's calls: the held leak is the
// native call's duplicate and never runs (as chat, Anthropic and Responses JSON), whole = byte by
// byte = seeded cuts, parallel calls on or off. No DSML marker bytes here (live()).
import { describe, expect, test } from "bun:test";
import { live } from "../golden/notation.ts";
import { everySplitView, functionCall, message, namedSse, responsesEvents } from "./review-48-wires-support.ts";

const READ_DSML = `<{D}invoke name="read">\n<{D}parameter name="path" string="true">a.ts</{D}parameter>\n</{D}invoke>`;
const OPEN = live(`Reading.\n<{D}tool_calls>\n${READ_DSML}\nMore prose.`);
type Run = { calls: { input: string }[]; text: string };
const paths = (run: Json) => (run as unknown as Run).calls.map((c) => (JSON.parse(c.input) as { path: string }).path);
type Json = Record<string, unknown>;

async function same(body: string, extra: Json = {}): Promise<Run> {
  const runs = await everySplitView("responses", body, extra);
  for (const run of runs) expect(run).toEqual(runs[0]!);
  return runs[0] as unknown as Run;
}

describe("Responses stream: a native call after a message holding an open block's calls", () => {
  test("parallel calls off: only the native read runs, the prose stays, every way", async () => {
    const run = await same(namedSse(responsesEvents([message("msg_1", OPEN), functionCall("fc_1", { path: "b.ts" })], 5)), { providerOptions: { openai: { parallelToolCalls: false } } });
    expect(paths(run as unknown as Json)).toEqual(["b.ts"]);
    // Fix 54: with one call allowed the part's end is not told of the native item (its calls are
    // withdrawn later), and a block still open at a part's end is markup of unknown end: the held
    // leak is shown as written instead of stripped. It still never runs.
    expect(run.text).toBe(OPEN);
  }, 60_000);

  test("the same native read as the leak: it runs once, every way", async () => {
    const run = await same(namedSse(responsesEvents([message("msg_1", OPEN), functionCall("fc_1", { path: "a.ts" })], 5)));
    expect(paths(run as unknown as Json)).toEqual(["a.ts"]);
  }, 60_000);

  test("hard negative: no native call, the held call runs at the reply's end, every way", async () => {
    const run = await same(namedSse(responsesEvents([message("msg_1", OPEN)], 5)));
    expect(paths(run as unknown as Json)).toEqual(["a.ts"]);
  }, 60_000);

  test("another message item between (not a native call): the held call is settled at that item, shown as written (fix 54)", async () => {
    // Fix 54 (review 54, finding 1): a part's end is never the reply's end; the block is still open
    // there, and the next item might write a parameter outside every invoke of it (golden P47.4),
    // so its held call is markup of unknown end: shown as written, never run.
    const run = await same(namedSse(responsesEvents([message("msg_1", OPEN), message("msg_2", "Done.")], 5)));
    expect(paths(run as unknown as Json)).toEqual([]);
    expect(run.text).toBe(`${OPEN}Done.`);
  }, 60_000);
});
