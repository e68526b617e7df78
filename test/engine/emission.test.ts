import { describe, expect, test } from "bun:test";
import { createRepairEngine } from "../../src/engine/engine.ts";
import type { EngineEvent } from "../../src/engine/types.ts";
import { block, live } from "../golden/notation.ts";
import { fixtureTools } from "../golden/tools.ts";

const legacy = (words: string) => live(`<{BAR}${words.split(" ").join("{SP}")}{BAR}>`);
const callsIn = (events: EngineEvent[]) => events.flatMap((e) => (e.type === "call" ? [e.call.tool] : []));

/** Feeds `text` in 3-character deltas and records after which input offset each call came out. */
function emissionPoints(text: string): { tool: string; at: number }[] {
  const engine = createRepairEngine({ tools: fixtureTools, idPrefix: "c_" });
  const points: { tool: string; at: number }[] = [];
  for (let at = 0; at < text.length; at += 3) {
    for (const tool of callsIn(engine.feed(text.slice(at, at + 3)))) points.push({ tool, at: Math.min(at + 3, text.length) });
  }
  for (const tool of callsIn(engine.flush())) points.push({ tool, at: Infinity });
  return points;
}

describe("a recovered call is emitted at its own boundary, not at the end of its block or the stream", () => {
  // Review 47b: a call read in a block still open is decided at the block's closer (a parameter outside every invoke,
  // anywhere before that closer, refuses every call of the block), so the first call waits for it, and goes out with the second.
  test("two invokes in one block: both calls are out at the block's closer, the first held until then", () => {
    const calls = live(block("tool_calls", [["bash", [["command", "ls"]]], ["write", [["filePath", "big.txt"], ["content", "x".repeat(2000)]]]]));
    const text = `${calls}\nDone.`;
    const points = emissionPoints(text);
    expect(points.map((p) => p.tool)).toEqual(["bash", "write"]);
    expect(points[0]!.at).toBeGreaterThan(text.indexOf("x".repeat(2000)));
    expect(points[0]!.at).toBe(points[1]!.at);
    // The last call is out at the first character after its block's closer (fx46: a parameter closer that closes nothing
    // there would refuse it), with the rest of the reply still unwritten.
    expect(points[1]!.at).toBeLessThanOrEqual(calls.length + 4);
  });

  test("the block's closer is the last thing written: the call is out when the reply ends (fx46: nothing after it to weigh)", () => {
    const text = live(block("tool_calls", [["bash", [["command", "ls"]]]]));
    expect(emissionPoints(text)).toEqual([{ tool: "bash", at: Infinity }]);
  });

  test("blocks one after another: each call is out once the run after it proves nothing (fx46: a stray value closer after the run would refuse them all)", () => {
    const one = live(block("tool_calls", [["bash", [["command", "ls"]]]]));
    const text = `${one}\n${one}\nDone. ${"z".repeat(300)}`;
    const points = emissionPoints(text);
    expect(points.map((p) => p.tool)).toEqual(["bash", "bash"]);
    for (const p of points) expect(p.at).toBeLessThanOrEqual(text.indexOf("Done.") + 3);
  });

  test("two calls in one legacy section: the first is out before the second is written", () => {
    const call = (name: string, args: string) => `${legacy("tool call begin")}${name}${legacy("tool sep")}${args}${legacy("tool call end")}`;
    const text = `${legacy("tool calls begin")}${call("bash", '{"command":"ls"}')}${call("read", `{"filePath":"${"a".repeat(2000)}"}`)}${legacy("tool calls end")}`;
    const points = emissionPoints(text);
    expect(points.map((p) => p.tool)).toEqual(["bash", "read"]);
    expect(points[0]!.at).toBeLessThan(text.indexOf("read") + 3);
  });

  test("an orphan invoke is out at its closer, with the rest of the reply still unwritten", () => {
    const invoke = live(`<{D}invoke name="bash">\n<{D}parameter name="command" string="true">ls</{D}parameter>\n</{D}invoke>`);
    const text = `${invoke}\n${"z".repeat(3000)}`;
    const points = emissionPoints(text);
    expect(points).toEqual([{ tool: "bash", at: expect.any(Number) as unknown as number }]);
    expect(points[0]!.at).toBeLessThanOrEqual(invoke.length + 3);
  });
});
