/**
 * Review 53 (parts): hard negatives for the engine across parts (no finding here). Empty parts, a
 * part holding only a BOM or a `\r` whose `\n` opens the next part, a 1 MiB part, flush twice,
 * feed and endSpan after flush, and bufferLimit at every size around a call cut into two parts:
 * a call runs only with its whole value, and text that runs nothing is shown as written. Both
 * readings of parts: one engine with endSpan() between them, and an engine per part continuing the
 * last (`continues: carryOver()`).
 */
import { describe, expect, test } from "bun:test";
import { createRepairEngine } from "../../src/engine/engine.ts";
import { live } from "../golden/notation.ts";
import { fixtureTools } from "../golden/tools.ts";
import { READINGS, readParts as read, type PartsRun } from "../support/read-parts.ts";

const HERMES = '<tool_call>{"name":"bash","arguments":{"command":"rm -rf build"}}</tool_call>';
const DSML = live(`<{D}tool_calls>\n<{D}invoke name="bash">\n<{D}parameter name="command" string="true">rm -rf build</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`);
const RM = { command: "rm -rf build" };

type Run = PartsRun;

describe("odd parts read as the one text", () => {
  const cases: [string, string[], Run][] = [
    ["empty parts around a call", ["", "", HERMES, ""], { text: "", calls: [RM] }],
    ["a BOM-only part before a call", ["\uFEFF", HERMES], { text: "\uFEFF", calls: [RM] }],
    ["a `\\r` part, its `\\n` opening the next, then a costume", ["Run:\r", "\n<bash>\nrm -rf build\n</bash>\n"], { text: "Run:\r\n", calls: [RM] }],
    ["a `\\r` part and a `\\n` part before a call", ["\r", "\n", HERMES], { text: "\r\n", calls: [RM] }],
    ["a CRLF split inside a costume's opener line: text (more cautious than one part, which runs it: a costume open at a part's end, the A40.19 rule)", ["Run:\r\n<bash>\r", "\nrm -rf build\r\n</bash>\r\n"], { text: "Run:\r\n<bash>\r\nrm -rf build\r\n</bash>\r\n", calls: [] }],
    ["a fence opened in one part, a call in the next", ["Example:\n```\n", `${DSML}\n\`\`\`\n`], { text: `Example:\n\`\`\`\n${DSML}\n\`\`\`\n`, calls: [] }],
    ["a 1 MiB part, then a call on its own line", ["x".repeat(1 << 20), `\n${HERMES}`], { text: `${"x".repeat(1 << 20)}\n`, calls: [RM] }],
  ];
  for (const [reading, chained] of READINGS) {
    for (const [name, parts, expected] of cases) {
      test(`${reading}: ${name}`, () => {
        expect(read(parts, chained)).toEqual(expected);
        // One part, the same text.
        if (!name.startsWith("a CRLF split")) expect(read([parts.join("")], false)).toEqual(expected);
        else expect(read([parts.join("")], false).calls).toEqual([RM]);
      });
    }
  }
});

describe("flush and the engine's end", () => {
  test("flush twice: the second gives nothing", () => {
    const engine = createRepairEngine({ tools: fixtureTools, idPrefix: "call_" });
    const first = [...engine.feed(HERMES.slice(0, 30)), ...engine.flush()];
    expect(first.map((e) => (e.type === "text" ? e.text : "call")).join("")).toBe(HERMES.slice(0, 30));
    expect(engine.flush()).toEqual([]);
  });

  test("feed and endSpan after flush throw (the guard turns that into passthrough), never a silent drop", () => {
    const engine = createRepairEngine({ tools: fixtureTools, idPrefix: "call_" });
    engine.flush();
    expect(() => engine.feed("x")).toThrow();
    expect(() => engine.endSpan!()).toThrow();
  });
});

describe("bufferLimit around a call cut into two parts: a call only with its whole value, the text otherwise", () => {
  for (const [reading, chained] of READINGS) {
    for (const [name, markup] of [
      ["Hermes", HERMES],
      ["DSML", DSML],
      ["costume", "<bash>\nrm -rf build\n</bash>"],
    ] as const) {
      test(`${reading}: ${name}, every limit, cut in its middle`, () => {
        const input = `Sure.\n${markup}\n`;
        const at = input.length >> 1;
        for (let limit = 1; limit <= input.length + 2; limit++) {
          const r = read([input.slice(0, at), input.slice(at)], chained, limit);
          for (const call of r.calls) expect(call).toEqual(RM);
          if (r.calls.length === 0) expect(r.text).toBe(input);
        }
      });
    }
  }
});
