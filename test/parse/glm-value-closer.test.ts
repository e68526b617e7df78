/**
 * T02: GLM closing a zero-argument call with its value closer, `<tool_call>NAME</arg_value>`. The
 * span waits for a `</tool_call>` that may still come, taking the layout after the closer; without
 * it the call ends right after `</arg_value>` and that layout is text (review F4: a blank line and
 * the next line's indentation vanished, turning an indented code block into raw HTML).
 */
import { describe, expect, test } from "bun:test";
import { parse } from "../../src/engine/parse.ts";
import { fixtureTools } from "../golden/tools.ts";
import { accountsForEveryCharacter, everyChar, observable, randomCuts, runEngine } from "../support/run-engine.ts";

const hermes = '<tool_call>\n{"name":"bash","arguments":{"command":"ls"}}\n</tool_call>';

function agreed(input: string) {
  const run = (cuts: number[]) => observable(runEngine(input, cuts, fixtureTools));
  const whole = run([]);
  expect(run(everyChar(input.length))).toEqual(whole);
  for (let k = 1; k < input.length; k++) expect(run([k])).toEqual(whole);
  for (let seed = 1; seed <= 10; seed++) expect(run(randomCuts(input.length, seed))).toEqual(whole);
  expect(accountsForEveryCharacter(input, runEngine(input, [], fixtureTools))).toBe(true);
  return parse(input, fixtureTools);
}

describe("T02 `<tool_call>NAME</arg_value>`", () => {
  test("the indentation after it stays visible, as after `</tool_call>`", () => {
    const after = "\n\n    <b>x</b>\n\n" + hermes;
    const proper = agreed("<tool_call>list_sessions</tool_call>" + after);
    const glm = agreed("<tool_call>list_sessions</arg_value>" + after);
    expect(proper.text).toBe("\n\n    <b>x</b>\n\n");
    expect(glm.calls.map((c) => c.tool)).toEqual(["list_sessions", "bash"]);
    expect(glm.text).toBe(proper.text);
    expect(glm.calls[0]!.span).toEqual([0, "<tool_call>list_sessions</arg_value>".length]);
  });

  test("its own `</tool_call>` after it still joins the call", () => {
    for (const closer of ["</tool_call>", "\n</tool_call>"]) {
      const input = "<tool_call>list_sessions</arg_value>" + closer + "\n\nDone.";
      const r = agreed(input);
      expect(r.calls.map((c) => [c.tool, c.shape])).toEqual([["list_sessions", "T02"]]);
      expect(r.calls[0]!.span).toEqual([0, input.indexOf("</tool_call>") + "</tool_call>".length]);
    }
  });

  test("prose after it on the next line: the line break is the tail's, not the call's", () => {
    const r = agreed("Checking.\n<tool_call>list_sessions</arg_value>\nNext " + hermes);
    expect(r.calls.map((c) => c.tool)).toEqual(["list_sessions", "bash"]);
    expect(r.text).toBe("Checking.\n\nNext ");
  });
});
