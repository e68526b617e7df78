// Review 48b (hostile, tests only): the echo guard's seam rule (src/echo/search.ts acrossSeam) and
// rendered forms (src/echo/given-content.ts) in ordinary use: the model's own call, whose value
// merely happens to be made of a word ending one tool result and a word beginning the next, with a
// tool-call example somewhere near the end of the first (the plugin's own README, any agent doc).
// No DSML marker bytes here (dsml() builds them).
import { describe, expect, test } from "bun:test";
import { dsml } from "../security/echo-spellings.ts";
import { recoveredInputs } from "../security/echo-run.ts";

const bash = (command: string) => ({ tool: "bash", input: { command } });
const own = (command: string) => `Now I run the tests.\n${dsml(bash(command))}`;

/** A doc read as a tool result: a tool-call example, then a sentence whose last word ends the text. */
const DOC = 'Example of a call:\n<tool_call>{"name":"read","arguments":{"path":"a.ts"}}</tool_call>\nTo check a change, run the suite with npm';
/** The next tool result: a grep listing (a `[` in it, as most code has). */
const LS = "test/a.test.ts:3:  expect(x).toEqual([1]);\nsrc/a.ts:1: export const x = [1];\n";

describe("seam rule: a value made of two unrelated given texts' edge words", () => {
  // FINDING (low: false refusal of the model's own ordinary call, no wrong execution; src/echo/search.ts
  // acrossSeam): "npm test" is "npm" (the doc's last word, ending its last line) + " " + "test" (the
  // ls listing's first line). The seam rule needs only markup within reach of the seam on one side,
  // not the halves inside or next to that markup, so the doc's example 100 characters earlier is
  // enough: the model's own `npm test` is refused as a quote. Expected: the seam halves count only
  // where a whole-text occurrence would (the half in A inside the markup's window as an opener's
  // content, or the seam itself inside an open quote), so this call runs.
  test("fixed: npm test runs after a doc with an example that ends in 'npm' and a grep listing that starts with 'test/'", () => {
    expect(recoveredInputs(own("npm test"), [DOC, LS])).toEqual([{ command: "npm test" }]);
  });

  // Same, the cut with no space: "make" + "check" never meant "makecheck"; a path cut at a line end.
  test("fixed: cat src/index.ts runs: 'cat' ends the doc, 'src/index.ts' begins the next grep listing", () => {
    const doc = 'Example:\n<tool_call>{"name":"read","arguments":{"path":"a.ts"}}</tool_call>\nTo print a file use cat';
    expect(recoveredInputs(own("cat src/index.ts"), [doc, "src/index.ts:1: export const a = [1];\n"])).toEqual([{ command: "cat src/index.ts" }]);
  });

  // Hard negatives: the same texts without markup near the seam, and in the other order, run.
  test("no markup near the seam: npm test runs", () => {
    expect(recoveredInputs(own("npm test"), ["To check a change, run the suite with npm", LS])).toEqual([{ command: "npm test" }]);
  });
  test("the texts in the other order: npm test runs", () => {
    expect(recoveredInputs(own("npm test"), [LS, DOC])).toEqual([{ command: "npm test" }]);
  });
});
