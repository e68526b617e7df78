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
import { parse } from "../../src/engine/parse.ts";
import { fixtureTools } from "../golden/tools.ts";
import { randomCuts, runEngine } from "../support/run-engine.ts";
import { countWork } from "../support/work.ts";

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
  // Fixed: the call's JSON arguments are read for their string state from its separator token on
  // (src/parse/legacy-args.ts, the linear way: a quote opens or closes a string, a backslash
  // escapes), by the parser (parseLegacySpan) and the stream's boundary rules (LEGACY_CALL,
  // LEGACY_SECTION) alike. Inside a string a begin token opens an example and an end token closes
  // the innermost one: both are the value's text, so the call ends only at its own end token
  // outside strings. An end token in a string with no example open is still the call's end (a
  // value cut and closed, R11.8; the real call after it runs). With raw quotes the quotes pair up
  // across the example, its end token falls in a string, and the write reaches its own end token
  // with malformed JSON: refused whole (broken-markup), text kept. A call cut mid-string with a new
  // call after it no longer restarts there: everything to the next end token outside a string is
  // the cut call's, refused (nothing runs rather than a guess).
  test("Kimi: a write whose content holds a Kimi example does not run the example", () => {
    const content = `Call it like this:\n${KIMI_EXAMPLE}\n`;
    const input = kimiSection(kimiCall("write", writeArgs(content)));
    const o = outcome(input);
    expect(o.calls.map((c) => c.tool)).not.toContain("list_sessions");
    expectOnlyTheWrite(o, input, content);
  });

  test("Kimi: the same with a whole section as the example, and with no section around the write", () => {
    const content = kimiSection(KIMI_EXAMPLE);
    for (const input of [kimiSection(kimiCall("write", writeArgs(content))), kimiCall("write", writeArgs(content))]) {
      const o = outcome(input);
      expect(o.calls.map((c) => c.tool)).not.toContain("list_sessions");
      expectOnlyTheWrite(o, input, content);
    }
  });

  test("DeepSeek V3.1 legacy tokens: a write whose content holds a legacy example does not run the example", () => {
    const content = live(`Call it like this:\n${LEGACY_EXAMPLE}\n`);
    const input = live(legacySection(legacyCall("write", writeArgs(content))));
    const o = outcome(input);
    expect(o.calls.map((c) => c.tool)).not.toContain("list_sessions");
    expectOnlyTheWrite(o, input, content);
  });

  test("DeepSeek legacy orphan call (no section): the same", () => {
    const content = live(LEGACY_EXAMPLE);
    const input = live(legacyCall("write", writeArgs(content)));
    const o = outcome(input);
    expect(o.calls.map((c) => c.tool)).not.toContain("list_sessions");
    expectOnlyTheWrite(o, input, content);
  });

  test("the two token families quote each other: a Kimi example in a legacy write, a legacy example in a Kimi write", () => {
    const inLegacy = live(legacySection(legacyCall("write", writeArgs(KIMI_EXAMPLE))));
    expect(outcome(inLegacy).calls.map((c) => c.tool)).not.toContain("list_sessions");
    const inKimi = live(kimiSection(kimiCall("write", writeArgs(live(LEGACY_EXAMPLE)))));
    expect(outcome(inKimi).calls.map((c) => c.tool)).not.toContain("list_sessions");
  });

  test("raw quotes: a malformed write whose content holds `rm -rf ~` as a call runs nothing, its text kept", () => {
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

describe("fix 57: a token in a JSON string is the value's text; what must keep working around that rule", () => {
  const write = (content: string) => ({ tool: "write", input: { filePath: "docs/calls.md", content } });

  test("an example whose own arguments hold quoted strings (escaped in the write's JSON) is the content too", () => {
    const example = kimiCall("bash", '{"command": "rm -rf ~"}');
    const content = `Run:\n${example}\nand then "${example}" again.`;
    for (const input of [kimiSection(kimiCall("write", writeArgs(content))), live(legacySection(legacyCall("write", writeArgs(content))))]) {
      expect(outcome(input).calls).toEqual([write(content)]);
    }
  });

  test("a string ending in a backslash ends where JSON says: the next call of the section still runs", () => {
    const input = kimiSection(kimiCall("write", writeArgs("C:\\dir\\")) + kimiCall("bash", '{"command": "ls"}'));
    expect(outcome(input).calls).toEqual([write("C:\\dir\\"), { tool: "bash", input: { command: "ls" } }]);
  });

  test("a section of three calls, the first documenting a whole section: the three run, the example never", () => {
    const content = kimiSection(KIMI_EXAMPLE + kimiCall("bash", '{"command": "rm -rf ~"}'));
    const input = kimiSection(kimiCall("write", writeArgs(content)) + kimiCall("read", '{"filePath": "/a"}') + kimiCall("bash", '{"command": "ls"}'));
    expect(outcome(input).calls).toEqual([write(content), { tool: "read", input: { filePath: "/a" } }, { tool: "bash", input: { command: "ls" } }]);
  });

  test("double-encoded arguments (one JSON string holding the object) with an example inside run as the write", () => {
    const content = `See ${KIMI_EXAMPLE}`;
    const input = kimiSection(kimiCall("write", JSON.stringify(writeArgs(content))));
    expect(outcome(input).calls).toEqual([write(content)]);
  });

  test("DeepSeek V3 fenced form (L01): an example in the content is the content", () => {
    const content = live(LEGACY_EXAMPLE);
    const input = live(legacySection(`<{BAR}tool{SP}call{SP}begin{BAR}>function<{BAR}tool{SP}sep{BAR}>write\n\`\`\`json\n${writeArgs(content)}\n\`\`\`<{BAR}tool{SP}call{SP}end{BAR}>`));
    expect(outcome(input).calls).toEqual([write(content)]);
  });

  test("DeepSeek legacy: a call cut mid-string and closed by its own end token, then a real call: the real call runs", () => {
    const input = live(`${legacySection(legacyCall("write", '{"filePath": "a.md", "content": "abc'))}\n${legacySection(legacyCall("bash", '{"command": "ls"}'))}`);
    const o = outcome(input);
    expect(o.calls).toEqual([{ tool: "bash", input: { command: "ls" } }]);
    expect(o.broken).toEqual(["broken-markup"]);
  });

  test("Kimi: a value cut and closed by the section's end (R11.8) is still refused there, the prose after it kept", () => {
    const input = `${kimiCall("bash", '{"command": "l').replace("<|tool_call_end|>", "")}<|tool_calls_section_end|>\nDone.`;
    const o = outcome(input);
    expect(o.calls).toEqual([]);
    expect(o.broken).toEqual(["broken-markup"]);
    expect(o.text).toBe(input);
  });

  test("a value cut with an example then the reply's end: no call, a truncated-call nudge, text kept", () => {
    const input = kimiSection(kimiCall("write", '{"filePath": "a.md", "content": "see ')).replace(/<\|tool_call_end\|><\|tool_calls_section_end\|>$/, "") + KIMI_EXAMPLE;
    const o = outcome(input);
    expect(o.calls).toEqual([]);
    expect(o.broken).toEqual(["truncated-call"]);
    expect(o.text).toBe(input);
  });

  test("a cut write followed by a new call inside its open string no longer restarts: nothing runs, text kept, one nudge", () => {
    const input = `${kimiSection(kimiCall("write", '{"filePath": "a.md", "content": "abc ' + kimiCall("bash", '{"command": "rm -rf ~"}')))}\nDone.`;
    const o = outcome(input);
    expect(o.calls).toEqual([]);
    expect(o.broken).toEqual(["broken-markup"]);
    expect(o.text).toBe(input);
  });

  test("LFM2's call list is no JSON-argument call: Kimi tokens in its string leave it ending at its first end token, as before", () => {
    const list = `<|tool_call_start|>[write(filePath='a.md', content='<|tool_call_begin|>x<|tool_call_argument_begin|>{"a": "<|tool_call_begin|>')]<|tool_call_end|>`;
    const o = outcome(`${list}\n\nDone.`);
    expect(o.calls).toEqual([{ tool: "write", input: { filePath: "a.md", content: '<|tool_call_begin|>x<|tool_call_argument_begin|>{"a": "<|tool_call_begin|>' } }]);
    expect(o.broken).toEqual([]);
  });

  test("linear work on examples opened in a string and never closed, and on closed examples repeated", () => {
    const makers = [
      (n: number) => kimiSection(kimiCall("write", `{"content": "${"<|tool_call_begin|>".repeat(n)}`)),
      (n: number) => kimiSection(kimiCall("write", `{"content": "${KIMI_EXAMPLE.repeat(n)}"}`)),
      (n: number) => live(legacySection(legacyCall("write", `{"content": "${LEGACY_EXAMPLE.repeat(n)}"}`))),
    ];
    for (const make of makers) {
      for (const n of [400, 1600]) {
        const text = make(n);
        const cap = 2_000 + 128 * text.length;
        const everyChar = Array.from({ length: text.length - 1 }, (_, i) => i + 1);
        expect(countWork(() => parse(text, fixtureTools), cap)).toBeLessThanOrEqual(cap);
        expect(countWork(() => runEngine(text, randomCuts(text.length, 57), fixtureTools), cap)).toBeLessThanOrEqual(cap);
        expect(countWork(() => runEngine(text, everyChar, fixtureTools), cap)).toBeLessThanOrEqual(cap);
      }
    }
  }, 60_000); // a hang guard only: the work is counted, never timed
});
