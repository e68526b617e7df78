/**
 * Review 50: documentation cut across text parts (Anthropic text blocks, Responses output_text
 * parts and message items) and across the reasoning and text channels, through the real
 * repairFetch and the AI SDK providers, whole, byte by byte and at seeded cuts
 * (review-48-wires-support.ts everySplitView). No finding: a fence, code span, block quote, comment
 * or `<pre>` opened in one part keeps a call in the next part documentation; one closed across the
 * boundary lets a real call after it run; reasoning and content keep their own contexts. Kept as
 * hard negatives.
 */
import { describe, expect, test } from "bun:test";
import { HERMES, type Api, type Json, everySplitView, message, messageEnd, messageStart, namedSse, responsesEvents, textBlock, thinkingBlock } from "./review-48-wires-support.ts";

const anthropic = (blocks: Json[][]) => namedSse([messageStart(), ...blocks.flat(), ...messageEnd()]);
const responses = (output: Json[]) => namedSse(responsesEvents(output, 5));
/** Two text parts of one reply on each wire: two Anthropic text blocks, two output_text parts of one message. */
const twoParts = (api: Api, a: string, b: string) => (api === "anthropic" ? anthropic([textBlock(0, [a]), textBlock(1, [b])]) : responses([message("m1", a, b)]));

async function agreed(api: Api, body: string): Promise<Json> {
  const runs = await everySplitView(api, body, {}, [1, 2, 3]);
  for (const r of runs.slice(1)) expect(r).toEqual(runs[0]!);
  return runs[0]!;
}

/** Documentation opened in the first part, the call in the second. */
const OPENED: [string, string][] = [
  ["Example:\n```\n", `${HERMES}\n\`\`\`\n`],
  ["Example:\n``", `\`\n${HERMES}\n\`\`\`\n`],
  ["Example:\n~", `~~\n${HERMES}\n`],
  ["Use `", `${HERMES}\` like so.\n`],
  ["Use ``", `\` x ${HERMES} \`\` ok\n`],
  ["> Example:\n>", ` ${HERMES}\n`],
  ["<!-", `-\n${HERMES}\n-->\n`],
  ["<pr", `e>\n${HERMES}\n</pre>\n`],
  ["para\n\n  ", `  ${HERMES}\n`],
  ["[a]: /u '", `${HERMES}'\n`],
  ["\\", `${HERMES}\n`],
  ["- ```\n  x\n", `  ${HERMES}\n`],
];

describe("review 50 hard negatives: documentation opened in one text part holds the call in the next", () => {
  for (const api of ["anthropic", "responses"] as const) {
    for (const [a, b] of OPENED) {
      test(`${api}: ${JSON.stringify(a)} | ${JSON.stringify(b.slice(0, 12))}…`, async () => {
        const v = await agreed(api, twoParts(api, a, b));
        expect(v.calls).toEqual([]);
        expect(v.text).toBe(a + b);
      });
    }
    test(`${api}: a fence closed across the boundary, then a real call runs`, async () => {
      const v = await agreed(api, twoParts(api, "```\nls\n``", `\`\n${HERMES}\n`));
      expect(v.calls).toEqual([{ name: "read", input: '{"path":"a.ts"}' }]);
      expect(v.text).toBe("```\nls\n```\n");
    });
  }

  test("responses: a fence opened in one message item holds the call in the next item", async () => {
    const v = await agreed("responses", responses([message("m1", "Example:\n```\n"), message("m2", `${HERMES}\n\`\`\`\n`)]));
    expect(v.calls).toEqual([]);
  });
});

describe("review 50 hard negatives: reasoning and text keep their own documentation contexts", () => {
  test("anthropic: a fence opened in thinking does not hold a call in the text", async () => {
    const v = await agreed("anthropic", anthropic([thinkingBlock(0, ["Plan:\n```\n"]), textBlock(1, [`${HERMES}\n`])]));
    expect(v.calls).toEqual([{ name: "read", input: '{"path":"a.ts"}' }]);
    expect(v.reasoning).toBe("Plan:\n```\n");
  });

  test("anthropic: a call after a fence opened in an earlier thinking block stays reasoning text", async () => {
    const v = await agreed("anthropic", anthropic([thinkingBlock(0, ["Plan:\n```\n"]), textBlock(1, ["\n"]), thinkingBlock(2, [`${HERMES}\n`])]));
    expect(v.calls).toEqual([]);
    expect(v.reasoning).toBe(`Plan:\n\`\`\`\n${HERMES}\n`);
  });

  test("responses: a fence in a reasoning summary does not hold the call in the message", async () => {
    const v = await agreed("responses", responses([{ id: "r1", type: "reasoning", summary: [{ type: "summary_text", text: "```\n" }] }, message("m1", `${HERMES}\n`)]));
    expect(v.calls).toEqual([{ name: "read", input: '{"path":"a.ts"}' }]);
  });
});
