/**
 * Review 51, diff review (hostile, tests only): the round's source diff (09551a3..main) read for
 * what its new code paths got wrong: the hold after a Qwen3-Coder `</function>` inside its wrapper
 * (wrapper-hold.ts) and the string-valued quoted-call reader in documentation (quoted-strings.ts,
 * DocContext.advanceAt). Each finding is a `test.failing` with its comment block; the hard
 * negatives beside it pass and must keep passing. Every outcome runs whole, char by char and at
 * seeded random splits (test/support/outcome.ts).
 */
import { describe, expect, test } from "bun:test";
import { outcome } from "../support/outcome.ts";

const F = "```";
const QWEN = "<tool_call>\n<function=bash>\n<parameter=command>\nrm -rf build\n</parameter>\n</function>\n</tool_call>";
/** A Hermes-quoted write whose content (a page with its own fence line) breaks the fence around it by CommonMark's reading. */
const HERMES_WRITE = `<tool_call>\n{"name": "write", "arguments": {"filePath": "a.md", "content": "x\n${F}\ny"}}\n</tool_call>`;
const inFence = (body: string) => `Example:\n\n${F}\n${body}\n${F}\n`;

describe("string-valued quote (quoted-strings.ts): a further call quoted in the same block after the first", () => {
  // Finding (severity: WRONG EXECUTION). What is wrong: the new reader keeps a fence open through a
  // Hermes-quoted write whose string value holds a fence line, and after its `</tool_call>` its
  // After phase takes a further `<tool_call>` opener as the same quote: a second Hermes JSON call
  // there stays documentation (pinned below). But when that second wrapper holds a Qwen3-Coder
  // function (`<tool_call>` then `<function=bash>`), the prelude ends the string quote at the `<`
  // (no name, no `{`), and the Qwen3-Coder quote (quoted-dialects.ts) opens only where CommonMark
  // says block documentation holds, which it no longer does (the string's fence line closed the
  // fence). The hand-off that the `opaque` comment promises ("`<tool_call>` then `<function=…>` is
  // Qwen3-Coder's quote") never happens, and the example's bash call runs.
  // Minimal input: "Example:\n\n```\n<tool_call>\n{\"name\": \"write\", \"arguments\": {\"filePath\":
  //   \"a.md\", \"content\": \"x\n```\ny\"}}\n</tool_call>\n<tool_call>\n<function=bash>\n
  //   <parameter=command>\nrm -rf build\n</parameter>\n</function>\n</tool_call>\n```\n".
  // Today: bash {command: "rm -rf build"} runs. Expected: no call, text unchanged, as with a second
  // Hermes JSON call in the same place (or the two-list LFM2 and Kimi forms).
  // Suspected: src/engine/quoted-strings.ts prelude (a `<` after an opener with no name resets the
  // quote) together with src/engine/doc-context.ts (the Qwen3-Coder quote asks blockDocNow, which
  // ignores the string quote's After phase that was holding the block).
  // Note: the DSML analogue (a second invoke after a quoted write's value broke the fence) runs
  // too, but before this round as well; PATTERNS.md's N45 rule names only the quoted call's own
  // closers, further parameters and white space.
  // Fixed: right after a string-valued quoted call's end (white space between), a further opener
  // starts a quote too, whatever CommonMark says of the block the first quote held; and a tag right
  // after an opener that takes no name (`<tool_call>` then `<function=…>`) is held as documentation
  // and read as its own dialect's quote (quoted-strings.ts handsOver, DocContext.readsQuotedTags).
  // Leans to documentation: a real call right after such a quote, blank lines between, is text.
  test("a Qwen3-Coder call in a second <tool_call> after a fence-breaking Hermes write stays documentation", () => {
    const input = inFence(`${HERMES_WRITE}\n${QWEN}`);
    const o = outcome(input);
    expect(o.calls).toEqual([]);
    expect(o.text).toBe(input);
  });

  // Known gap (round 51): the call no longer runs and the text is whole, but the Qwen3-Coder
  // function's quote does not open (its opener is held as documentation, the quote's tail is not
  // set), so its `<parameter=…>` is read as a stray parameter outside any invoke (D08): refused, and
  // a correction goes to the model for a reply that only showed an example. Wanted: nothing said.
  // Fixed (fx52 cross quote): a string-valued quote's end leaves the DSML-side quote between calls
  // (DocContext.betweenCalls), where a `<tool_call>` is its own block opener and the function after
  // it opens a quoted invoke in the tail, so its parameters are the quote's values, not strays.
  test("no correction either: the example is documentation, not a stray parameter", () => {
    const o = outcome(inFence(`${HERMES_WRITE}\n${QWEN}`));
    expect(o.broken).toEqual([]);
  });

  // Hard negatives.
  test("a second Hermes JSON call in the same place stays documentation", () => {
    const input = inFence(`${HERMES_WRITE}\n<tool_call>\n{"name": "bash", "arguments": {"command": "rm -rf build"}}\n</tool_call>`);
    const o = outcome(input);
    expect(o.calls).toEqual([]);
    expect(o.text).toBe(input);
  });
  test("two LFM2 lists, the first breaking the fence, stay documentation", () => {
    const input = inFence(`<|tool_call_start|>[write(filePath="a.md", content="x\n${F}\ny")]<|tool_call_end|>\n<|tool_call_start|>[bash(command="rm -rf build")]<|tool_call_end|>`);
    const o = outcome(input);
    expect(o.calls).toEqual([]);
    expect(o.text).toBe(input);
  });
  test("two Kimi calls in one section, the first breaking the fence, stay documentation", () => {
    const input = inFence(`<|tool_calls_section_begin|>\n<|tool_call_begin|>functions.write:0<|tool_call_argument_begin|>{"filePath": "a.md", "content": "x\n${F}\ny"}<|tool_call_end|>\n<|tool_call_begin|>functions.bash:1<|tool_call_argument_begin|>{"command": "rm -rf build"}<|tool_call_end|>\n<|tool_calls_section_end|>`);
    const o = outcome(input);
    expect(o.calls).toEqual([]);
    expect(o.text).toBe(input);
  });
  test("a Qwen3-Coder call after a closed fence still runs", () => {
    const o = outcome(`Example:\n\n${F}\n${HERMES_WRITE.replace(`x\n${F}\ny`, "x")}\n${F}\n\n${QWEN}`);
    expect(o.calls).toEqual([{ tool: "bash", input: { command: "rm -rf build" } }]);
  });
});

describe("text held after a Qwen3-Coder </function> inside its wrapper (wrapper-hold.ts): hard negatives", () => {
  const q = (after: string) => `<tool_call>\n<function=bash>\n<parameter=command>\nrm -rf build\n</parameter>\n</function>\n${after}`;
  const refused = (after: string) => {
    const input = q(after);
    const o = outcome(input);
    expect(o.calls).toEqual([]);
    expect(o.broken).toContain("broken-markup");
    expect(o.text).toBe(input);
  };
  test("a workdir line then the closer refuses the wrapper", () => refused("workdir: /tmp/x\n</tool_call>"));
  test("closer spellings (case, spaces) refuse it too", () => {
    refused("workdir: /tmp/x\n</TOOL_CALL>");
    refused("workdir: /tmp/x\n</ tool_call>");
    refused("workdir: /tmp/x\n</tool_call >");
  });
  test("a JSON object, a second </function>, a fenced closer: refused", () => {
    refused('{"workdir": "/tmp/x"}\n</tool_call>');
    refused("workdir: /tmp/x\n</function>\n</tool_call>");
    refused(`${F}\n</tool_call>\n${F}\n`);
  });
  test("a stray parameter opener the grammar reads as no tag, first or after a line: refused", () => {
    refused("<param:workdir>/tmp/x</param>\n</tool_call>");
    refused("<param\nname=\"workdir\">/tmp/x</param>\n</tool_call>");
    refused("  <param:workdir>/tmp/x</param>\n</tool_call>");
    refused("ok\n<param:workdir>/tmp/x</param>\n</tool_call>");
  });
  test("the next wrapper without this one's closer: both calls run (golden O02.8)", () => {
    const o = outcome(q("workdir: /tmp/x\n<tool_call>\n<function=read>\n<parameter=filePath>\n/a\n</parameter>\n</function>\n</tool_call>"));
    expect(o.calls).toEqual([{ tool: "bash", input: { command: "rm -rf build" } }, { tool: "read", input: { filePath: "/a" } }]);
  });
  test("the reply ending without the closer: the call runs", () => {
    expect(outcome(q("workdir: /tmp/x")).calls).toEqual([{ tool: "bash", input: { command: "rm -rf build" } }]);
  });
});
