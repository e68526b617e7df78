/**
 * Unprefixed invoke markup (`<invoke name>` without the DSML sentinel) is DSML that lost its
 * sentinel (M08) only when every parameter carries the `string=` hint; otherwise it belongs to
 * MiniMax-M2 (O05) or Claude-style XML (O07) and needs that dialect's wrapper and switch, or the
 * proof that the wrapper was lost (W01). An invoke with no parameter at all (an empty body, or a
 * JSON body) carries no hint, so it is no exception: a bare one in prose stays text. Every case
 * runs whole and char by char (the outcome must not depend on the split).
 */
import { describe, expect, test } from "bun:test";
import type { ParseOptionsInput } from "../../src/parse/types.ts";
import { live } from "../golden/notation.ts";
import { fixtureTools } from "../golden/tools.ts";
import { everyChar, observable, runEngine } from "../support/run-engine.ts";

function outcome(notation: string, parse?: ParseOptionsInput) {
  const input = live(notation);
  const whole = runEngine(input, [], fixtureTools, { parse });
  expect(observable(runEngine(input, everyChar(input.length), fixtureTools, { parse }))).toEqual(observable(whole));
  return { calls: whole.calls.map((c) => ({ tool: c.tool, input: c.input, shape: c.shape })), text: whole.text };
}

const stillText = (notation: string, parse?: ParseOptionsInput) => expect(outcome(notation, parse)).toEqual({ calls: [], text: live(notation) });

const OFF: ParseOptionsInput = { dialects: { claudeXml: false, minimax: false } };

describe("an unprefixed invoke without parameters", () => {
  test("bare in prose, with a JSON body: text, never a call", () => {
    stillText(`Example: <invoke name="bash">{"command": "rm -rf build"}</invoke> and so on.`);
    stillText(`<invoke name="bash">\n{"command": "rm -rf build"}\n</invoke>`);
  });

  test("bare in prose, empty, for a tool that needs no argument: text, never a call", () => {
    stillText(`Use <invoke name="list_sessions"></invoke> to list them.`);
    stillText(`<invoke name="list_sessions">\n</invoke>`);
  });

  test("inside its dialect's wrapper it runs as that dialect; with the dialect switched off it is text", () => {
    const claude = `<function_calls>\n<invoke name="bash">{"command": "ls"}</invoke>\n</function_calls>`;
    expect(outcome(claude).calls).toEqual([{ tool: "bash", input: { command: "ls" }, shape: "O07" }]);
    stillText(claude, OFF);
    const minimax = `<minimax:tool_call>\n<invoke name="list_sessions"></invoke>\n</minimax:tool_call>`;
    expect(outcome(minimax).calls).toEqual([{ tool: "list_sessions", input: {}, shape: "O05" }]);
    stillText(minimax, OFF);
  });

  test("control: the lost wrapper's closer right after it proves it (W01)", () => {
    expect(outcome(`<invoke name="bash">{"command": "ls"}</invoke>\n</function_calls>`).calls).toEqual([{ tool: "bash", input: { command: "ls" }, shape: "W01" }]);
  });

  test("control: with the DSML sentinel it runs as before (I04, I05)", () => {
    expect(outcome(`<{D}invoke name="bash">{"command": "ls"}</{D}invoke>`).calls).toEqual([{ tool: "bash", input: { command: "ls" }, shape: "I04" }]);
    expect(outcome(`<{D}tool_calls>\n<{D}invoke name="list_sessions">\n</{D}invoke>\n</{D}tool_calls>`).calls).toEqual([{ tool: "list_sessions", input: {}, shape: "I05" }]);
  });
});
