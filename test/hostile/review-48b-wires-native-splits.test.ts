// Review 48b (hostile, tests only): native call wins, through the real AI SDK providers, whole,
// byte by byte and at seeded cuts: the client sees the same thing every way (the held DSML call
// never runs, the native call runs once, the prose stays). Hard negatives. No marker bytes (live()).
import { describe, expect, test } from "bun:test";
import { live } from "../golden/notation.ts";
import { everySplitView, functionCall, message, messageEnd, messageStart, namedSse, responsesEvents, textBlock, toolUseBlock } from "./review-48-wires-support.ts";

const READ_DSML = `<{D}invoke name="read">\n<{D}parameter name="path" string="true">a.ts</{D}parameter>\n</{D}invoke>`;
const OPEN = live(`Reading.\n<{D}tool_calls>\n${READ_DSML}\nMore prose.`);
const CLOSED_THEN_S03 = live(`Reading.\n<{D}tool_calls>\n${READ_DSML}\n</{D}tool_calls>\n<tool_response>contents</tool_response>\nDone.`);

describe("native call wins: split parity through the providers", () => {
  test("Anthropic: an open DSML block then a native read", async () => {
    const body = namedSse([messageStart(), ...textBlock(0, [OPEN]), ...toolUseBlock(1, "toolu_n", { path: "b.ts" }), ...messageEnd("tool_use")]);
    const runs = await everySplitView("anthropic", body);
    for (const run of runs) expect(run).toEqual(runs[0]!);
    expect((runs[0] as { calls: { input: string }[] }).calls.map((c) => JSON.parse(c.input))).toEqual([{ path: "b.ts" }]);
  }, 60_000);

  test("Responses: an open DSML block then a native read", async () => {
    const body = namedSse(responsesEvents([message("msg_1", OPEN), functionCall("fc_1", { path: "b.ts" })], 5));
    const runs = await everySplitView("responses", body);
    for (const run of runs) expect(run).toEqual(runs[0]!);
    // fx48b (finding in review-48b-wires-native-wires.test.ts, fixed): only the native read runs, every way.
    // Changed by fix 54b: the message item's end (a part's end) decides nothing, so the DSML block
    // still open there is shown as written (no longer stripped as the native call's duplicate).
    const first = runs[0] as { calls: { input: string }[]; text: string };
    expect(first.calls.map((c) => JSON.parse(c.input))).toEqual([{ path: "b.ts" }]);
    expect(first.text).toBe(OPEN);
  }, 60_000);

  test("Responses: a recovered call, its fabricated result held (S03), then a native read: both calls, same every way", async () => {
    const body = namedSse(responsesEvents([message("msg_1", CLOSED_THEN_S03), functionCall("fc_1", { path: "b.ts" })], 7));
    const runs = await everySplitView("responses", body);
    for (const run of runs) expect(run).toEqual(runs[0]!);
  }, 60_000);

  test("Anthropic: a recovered call, its fabricated result held (S03), then a native read: same every way", async () => {
    const body = namedSse([messageStart(), ...textBlock(0, [CLOSED_THEN_S03]), ...toolUseBlock(1, "toolu_n", { path: "b.ts" }), ...messageEnd("tool_use")]);
    const runs = await everySplitView("anthropic", body);
    for (const run of runs) expect(run).toEqual(runs[0]!);
  }, 60_000);
});
