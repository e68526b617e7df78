/**
 * Review 57 (hostile, tests only): the token dialects read by src/parse/legacy.ts (DeepSeek
 * V3/V3.1 legacy tokens L01-L07, Kimi K2 O04) when a call's JSON argument holds, inside a string,
 * the begin token of a further call. Every outcome runs whole, char by char and at seeded random
 * splits (test/support/outcome.ts). Legacy DeepSeek markers are written in the notation
 * (`{BAR}`, `{SP}`) and made live with live().
 */
import { describe, expect, test } from "bun:test";
import { live } from "../golden/notation.ts";
import { type Outcome, outcome } from "../support/outcome.ts";

/** Kimi K2: one call `functions.NAME:0` with `args` as written. */
const kimiCall = (name: string, args: string) => `<|tool_call_begin|>functions.${name}:0<|tool_call_argument_begin|>${args}<|tool_call_end|>`;
const kimiSection = (calls: string) => `<|tool_calls_section_begin|>${calls}<|tool_calls_section_end|>`;

/** DeepSeek V3.1 legacy (L02): `NAME<sep>{json}` between the call tokens, in notation. */
const legacyCall = (name: string, args: string) => `<{BAR}tool{SP}call{SP}begin{BAR}>${name}<{BAR}tool{SP}sep{BAR}>${args}<{BAR}tool{SP}call{SP}end{BAR}>`;
const legacySection = (calls: string) => `<{BAR}tool{SP}calls{SP}begin{BAR}>${calls}<{BAR}tool{SP}calls{SP}end{BAR}>`;

/** A page documenting a call: an example whose arguments hold no quote, so it sits in a JSON string as written. */
const KIMI_EXAMPLE = kimiCall("list_sessions", "{}");
const LEGACY_EXAMPLE = legacyCall("list_sessions", "{}");

/** A write of `content` as valid JSON (JSON.stringify escapes what a string needs; the tokens need nothing). */
const writeArgs = (content: string) => JSON.stringify({ filePath: "docs/calls.md", content });

/** The quoted call never runs: either the write runs with its content exactly as written, or nothing runs and the text is kept. */
function expectOnlyTheWrite(o: Outcome, input: string, content: string): void {
  if (o.calls.length === 0) {
    expect(o.text).toBe(input);
    return;
  }
  expect(o.calls).toEqual([{ tool: "write", input: { filePath: "docs/calls.md", content } }]);
}

describe("a call begin token inside an open JSON string of a token dialect's call restarts the call there", () => {
  // FINDING (wrong execution). The legacy reader (parseLegacySpan, `case "call-begin"`) ends the
  // open call as unclosed at ANY further call begin token and starts a new call there, even when
  // that token stands inside a JSON string of the open call's arguments. A write (or edit) whose
  // content documents the model's own call format (a page, a test fixture, a parser: exactly
  // what a model works on in this repository) then runs the documented example as a call of its
  // own; the real write is reported cut (truncated-call), and the rest of its arguments after the
  // example (`", "filePath": ...}<call end>`) is stripped as a made-up result. The arguments are
  // valid JSON throughout (the example holds no quote); every other string-valued dialect reads
  // the same content as the write's (Hermes, Mistral: controls below), and PATTERNS.md's policy is
  // that "a complete example of any dialect inside a ... value that then reaches its own closer is
  // the value's text, not a restart ... the example never runs": here the value reaches its
  // closing quote, the object its brace and the call its end token.
  // With the quotes of the example left raw (the model forgot to escape them, so the write's JSON
  // is malformed) any example runs, `rm -rf ~` included, where Hermes, Mistral, named and LFM2
  // refuse the malformed write whole (broken-markup, text kept).
  // Minimal input (Kimi): `<|tool_calls_section_begin|><|tool_call_begin|>functions.write:0
  //   <|tool_call_argument_begin|>{"filePath": "docs/calls.md", "content": "<|tool_call_begin|>
  //   functions.list_sessions:0<|tool_call_argument_begin|>{}<|tool_call_end|>"}<|tool_call_end|>
  //   <|tool_calls_section_end|>` runs list_sessions({}).
  // Suspected: src/parse/legacy.ts parseLegacySpan (a call-begin tag closes the open call whatever
  // its position), and the LEGACY_CALL / LEGACY_SECTION span kinds, which end the span at the
  // inner call's end token without knowing a JSON string is open.
  // Expected: a begin token inside an open JSON string of the arguments is the string's text: the
  // write runs with its content as written (or, at the least, nothing runs and the text is kept);
  // with the example's quotes raw, the write is refused whole (broken-markup), text kept, and the
  // example never runs. A call cut before its value closes and followed by a new call (no closer
  // of the value after the example) may keep the restart rule, as DSML's does.
  test.failing("Kimi: a write whose content holds a Kimi example does not run the example", () => {
    const content = `Call it like this:\n${KIMI_EXAMPLE}\n`;
    const input = kimiSection(kimiCall("write", writeArgs(content)));
    const o = outcome(input);
    expect(o.calls.map((c) => c.tool)).not.toContain("list_sessions");
    expectOnlyTheWrite(o, input, content);
  });

  test.failing("Kimi: the same with a whole section as the example, and with no section around the write", () => {
    const content = kimiSection(KIMI_EXAMPLE);
    for (const input of [kimiSection(kimiCall("write", writeArgs(content))), kimiCall("write", writeArgs(content))]) {
      const o = outcome(input);
      expect(o.calls.map((c) => c.tool)).not.toContain("list_sessions");
      expectOnlyTheWrite(o, input, content);
    }
  });

  test.failing("DeepSeek V3.1 legacy tokens: a write whose content holds a legacy example does not run the example", () => {
    const content = live(`Call it like this:\n${LEGACY_EXAMPLE}\n`);
    const input = live(legacySection(legacyCall("write", writeArgs(content))));
    const o = outcome(input);
    expect(o.calls.map((c) => c.tool)).not.toContain("list_sessions");
    expectOnlyTheWrite(o, input, content);
  });

  test.failing("DeepSeek legacy orphan call (no section): the same", () => {
    const content = live(LEGACY_EXAMPLE);
    const input = live(legacyCall("write", writeArgs(content)));
    const o = outcome(input);
    expect(o.calls.map((c) => c.tool)).not.toContain("list_sessions");
    expectOnlyTheWrite(o, input, content);
  });

  test.failing("the two token families quote each other: a Kimi example in a legacy write, a legacy example in a Kimi write", () => {
    const inLegacy = live(legacySection(legacyCall("write", writeArgs(KIMI_EXAMPLE))));
    expect(outcome(inLegacy).calls.map((c) => c.tool)).not.toContain("list_sessions");
    const inKimi = live(kimiSection(kimiCall("write", writeArgs(live(LEGACY_EXAMPLE)))));
    expect(outcome(inKimi).calls.map((c) => c.tool)).not.toContain("list_sessions");
  });

  test.failing("raw quotes: a malformed write whose content holds `rm -rf ~` as a call runs nothing, its text kept", () => {
    const example = kimiCall("bash", '{"command": "rm -rf ~"}');
    const kimi = kimiSection(kimiCall("write", `{"filePath": "a.md", "content": "${example}"}`));
    const legacy = live(legacySection(legacyCall("write", `{"filePath": "a.md", "content": "${legacyCall("bash", '{"command": "rm -rf ~"}')}"}`)));
    for (const input of [kimi, legacy]) {
      const o = outcome(input);
      expect(o.calls).toEqual([]);
      expect(o.text).toBe(input);
    }
  });

  // Hard negatives (pass on main): what must keep working.
  test("control: the same writes with plain content run", () => {
    const kimi = kimiSection(kimiCall("write", writeArgs("plain text")));
    expect(outcome(kimi).calls).toEqual([{ tool: "write", input: { filePath: "docs/calls.md", content: "plain text" } }]);
    const legacy = live(legacySection(legacyCall("write", writeArgs("plain text"))));
    expect(outcome(legacy).calls).toEqual([{ tool: "write", input: { filePath: "docs/calls.md", content: "plain text" } }]);
  });

  test("control: Hermes and Mistral writes holding the same Kimi and legacy examples run as the write, content intact", () => {
    for (const content of [`Call it like this:\n${KIMI_EXAMPLE}\n`, live(LEGACY_EXAMPLE)]) {
      const hermes = `<tool_call>\n${JSON.stringify({ name: "write", arguments: { filePath: "docs/calls.md", content } })}\n</tool_call>`;
      const mistral = `[TOOL_CALLS]write[ARGS]${writeArgs(content)}`;
      for (const input of [hermes, mistral]) {
        expect(outcome(input).calls).toEqual([{ tool: "write", input: { filePath: "docs/calls.md", content } }]);
      }
    }
  });

  test("control: Hermes refuses the raw-quote write whole, text kept", () => {
    const input = `<tool_call>{"name": "write", "arguments": {"filePath": "a.md", "content": "<tool_call>{"name": "bash", "arguments": {"command": "rm -rf ~"}}</tool_call>"}}</tool_call>`;
    const o = outcome(input);
    expect(o.calls).toEqual([]);
    expect(o.text).toBe(input);
  });

  test("hard negative: two Kimi calls in one section, and two legacy calls, each run", () => {
    const kimi = kimiSection(kimiCall("read", '{"filePath": "/a"}') + kimiCall("bash", '{"command": "ls"}'));
    expect(outcome(kimi).calls).toEqual([{ tool: "read", input: { filePath: "/a" } }, { tool: "bash", input: { command: "ls" } }]);
    const legacy = live(legacySection(legacyCall("read", '{"filePath": "/a"}') + legacyCall("bash", '{"command": "ls"}')));
    expect(outcome(legacy).calls).toEqual([{ tool: "read", input: { filePath: "/a" } }, { tool: "bash", input: { command: "ls" } }]);
  });

  test("hard negative: a Kimi call its own end token closed (malformed), then a real call: the real call runs", () => {
    const input = `${kimiSection(kimiCall("write", '{"content": "abc'))}\n${kimiSection(kimiCall("bash", '{"command": "ls"}'))}`;
    expect(outcome(input).calls).toEqual([{ tool: "bash", input: { command: "ls" } }]);
  });
});
