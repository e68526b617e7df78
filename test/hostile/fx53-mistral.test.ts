/**
 * Fix 53 follow-up (Mistral, O06): the two forms fix 53 left open. A call's value (the
 * double-encoded `[ARGS]"..."` string, or the older `[TOOL_CALLS][...]` list) followed at once
 * (whitespace between) by a second value ran the first and stripped the second as a fabricated
 * result. Every case runs whole, char by char and at seeded random splits (test/support/outcome.ts).
 */
import { describe, expect, test } from "bun:test";
import { outcome } from "../support/outcome.ts";
import { runAtEverySplit } from "../support/run-engine.ts";
import { fixtureTools } from "../golden/tools.ts";

const refusedNaming = (input: string, tool: string | undefined) => {
  expect(outcome(input)).toEqual({ calls: [], broken: ["broken-markup"], text: input });
  expect(runAtEverySplit(input, fixtureTools).summary.broken.map((b) => b.tool)).toEqual([tool]);
};

const ls = { tool: "bash", input: { command: "ls" } };
const lsList = '[{"name":"bash","arguments":{"command":"ls"}}]';
const lsString = String.raw`"{\"command\":\"ls\"}"`;

// Finding a (severity: WRONG EXECUTION). What is wrong: the double-encoded `[ARGS]` form followed by
// a second argument set (an object or another string) ran the first and stripped the second.
// Minimal input: [TOOL_CALLS]bash[ARGS]"{\"command\":\"ls\"}"{"command":"rm -rf build"}
// Suspected: src/parse/dialects/mistral.ts (MistralState's string phase completes at the closing quote).
// Expected: no call, text kept, broken-markup (O06) naming the declared tool, as the object form (fix 53).
// Fixed: after an `[ARGS]` value (object or string) the char form reads on over whitespace; another
// object or string joins the span and parseMistralSpan refuses a span holding two values.
describe("a double-encoded Mistral call with a second argument set is refused", () => {
  for (const input of [
    `[TOOL_CALLS]bash[ARGS]${lsString}{"command":"rm -rf build"}`,
    `[TOOL_CALLS]bash[ARGS]${lsString}\n{"command":"rm -rf build"}`,
    String.raw`[TOOL_CALLS]bash[ARGS]"{\"command\":\"ls\"}""{\"command\":\"rm -rf build\"}"`,
    String.raw`[TOOL_CALLS]bash[ARGS]"{\"command\":\"ls\"}" "{\"command\":\"rm -rf build\"}"`,
  ]) {
    test(JSON.stringify(input), () => refusedNaming(input, "bash"));
  }
  // Diff review 53a (lead's decision): after an arguments OBJECT only a further `{` is a second value
  // (PATTERNS O06); a `"` there is prose (`"ls" lists the files.`), so the call ends at the object
  // and runs, and what follows is the reply's tail after a call (not shown), as after any call. This
  // input was pinned as refused here before; only a string after a double-encoded string stays refused.
  test("an object then a quoted string: the object's call runs, the string is the tail after it", () => {
    const o = outcome(String.raw`[TOOL_CALLS]bash[ARGS]{"command":"ls"} "{\"command\":\"rm -rf build\"}"`);
    expect(o.calls).toEqual([ls]);
    expect(o.broken).toEqual([]);
  });
  test("an undeclared tool is refused without naming it", () => {
    refusedNaming(String.raw`[TOOL_CALLS]web.search[ARGS]"{\"q\":\"a\"}"{"q":"b"}`, undefined);
  });
});

// Finding b (severity: WRONG EXECUTION). What is wrong: the list form followed by an object or a
// second list ran the first list's calls and stripped what followed.
// Minimal input: [TOOL_CALLS][{"name":"bash","arguments":{"command":"ls"}}]{"command":"rm -rf build"}
// Suspected: src/parse/dialects/mistral.ts (MistralState completes the span at the list's `]`).
// Expected: no call, text kept, broken-markup (O06) naming the tool when the first list holds one
// declared call.
// Fixed: after the list the char form reads on over whitespace; an object, or a `[` whose next other
// character opens JSON (`{`, `[`, `]`, `"`), joins the span and parseMistralSpan refuses two values.
// `[TOOL_CALLS]` (or `[x]` prose) after the list still ends the span at the list.
describe("a Mistral call list with a second value after it is refused", () => {
  for (const input of [
    `[TOOL_CALLS]${lsList}{"command":"rm -rf build"}`,
    `[TOOL_CALLS]${lsList}\n\n{"command":"rm -rf build"}`,
    `[TOOL_CALLS]${lsList}[{"name":"bash","arguments":{"command":"rm -rf build"}}]`,
    `[TOOL_CALLS]${lsList}\n[ {"name":"bash","arguments":{"command":"rm -rf build"}}]`,
  ]) {
    test(JSON.stringify(input), () => refusedNaming(input, "bash"));
  }
  test("a two-call list then an object is refused without naming a tool", () => {
    refusedNaming(`[TOOL_CALLS][{"name":"bash","arguments":{"command":"ls"}},{"name":"read","arguments":{"filePath":"/a"}}]{"command":"rm -rf build"}`, undefined);
  });
});

describe("hard negatives: single calls, separate tokens, prose and whitespace after keep running", () => {
  test("one call of each form runs", () => {
    expect(outcome(`[TOOL_CALLS]bash[ARGS]${lsString}`).calls).toEqual([ls]);
    expect(outcome(`[TOOL_CALLS]${lsList}`).calls).toEqual([ls]);
    expect(outcome('[TOOL_CALLS]bash[ARGS]{"command":"ls"}').calls).toEqual([ls]);
    expect(outcome('[TOOL_CALLS]bash{"command":"ls"}').calls).toEqual([ls]);
  });
  test("two calls each with its own token run (O06.4, and the list and string forms)", () => {
    expect(outcome('Checking both.[TOOL_CALLS]bash{"command": "ls"}[TOOL_CALLS]read{"filePath": "/a"}').calls).toEqual([
      ls,
      { tool: "read", input: { filePath: "/a" } },
    ]);
    expect(outcome(`[TOOL_CALLS]${lsList}[TOOL_CALLS][{"name":"read","arguments":{"filePath":"/a"}}]`).calls).toEqual([
      ls,
      { tool: "read", input: { filePath: "/a" } },
    ]);
    expect(outcome(`[TOOL_CALLS]${lsList} [TOOL_CALLS]read{"filePath":"/a"}`).calls).toEqual([ls, { tool: "read", input: { filePath: "/a" } }]);
    expect(outcome(String.raw`[TOOL_CALLS]bash[ARGS]"{\"command\":\"ls\"}"[TOOL_CALLS]read[ARGS]"{\"filePath\":\"/a\"}"`).calls).toEqual([
      ls,
      { tool: "read", input: { filePath: "/a" } },
    ]);
  });
  test("a call then prose runs", () => {
    for (const input of [
      `[TOOL_CALLS]bash[ARGS]${lsString}\nDone.`,
      `[TOOL_CALLS]bash[ARGS]${lsString} and "quoted" words`,
      `[TOOL_CALLS]${lsList}\nDone {x}.`,
      `[TOOL_CALLS]${lsList} [x] done`,
      `[TOOL_CALLS]${lsList}\n[link](http://a)`,
      '[TOOL_CALLS]bash{"command":"ls"} "quoted" after',
    ]) {
      expect(outcome(input).calls).toEqual([ls]);
    }
  });
  test("a call then whitespace and the reply's end runs", () => {
    for (const input of [`[TOOL_CALLS]bash[ARGS]${lsString}  \n`, `[TOOL_CALLS]${lsList}\n\n`, `[TOOL_CALLS]${lsList} [ `]) {
      expect(outcome(input).calls).toEqual([ls]);
    }
  });
  test("strings holding `}{`, `]{` or `\"\"` are one value and run", () => {
    expect(outcome(String.raw`[TOOL_CALLS]bash[ARGS]"{\"command\":\"echo '}{' \\\"\\\"\"}"`).calls).toEqual([
      { tool: "bash", input: { command: `echo '}{' ""` } },
    ]);
    expect(outcome(`[TOOL_CALLS][{"name":"bash","arguments":{"command":"echo ']{' '][' '}{'"}}]`).calls).toEqual([
      { tool: "bash", input: { command: "echo ']{' '][' '}{'" } },
    ]);
  });
});
