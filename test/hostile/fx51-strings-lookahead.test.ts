/**
 * The string-valued quote's opener read with the text in view (DocContext.advanceAt,
 * quoted-strings.ts openerMayStartAt): a `<` or `[` of code in block documentation whose next
 * characters start none of the openers leaves the quote idle, so the engine's hot path goes on right
 * after it instead of reading the next character alone (bench row 1b: 1 MB of code in an HTML
 * block). The reading must be the one the character-by-character token phase gives, whatever the
 * split: a near miss right before a real opener, an opener cut at a part's end after any of its
 * characters, a `<` or `[` as a part's last character.
 *
 * Every outcome runs whole, char by char and at seeded random splits (test/support/outcome.ts), and
 * here also cut after each character of each opener's first characters.
 */
import { describe, expect, test } from "bun:test";
import { DocContext } from "../../src/engine/doc-context.ts";
import { fixtureTools } from "../golden/tools.ts";
import { outcome } from "../support/outcome.ts";
import { observable, runEngine } from "../support/run-engine.ts";

const EXAMPLE = "<tool_call>\n<function=bash>\n<parameter=command>rm -rf build</parameter>\n</function>\n</tool_call>";
const REAL = "<|tool_call_start|>[bash(command='ls')]<|tool_call_end|>";

/** A quoted write whose content (a page with its own fence and a call example) breaks the fence around it. */
const WRITES: Record<string, string> = {
  LFM2: `<|tool_call_start|>[write(filePath='docs/calls.md', content='# Calls\n\`\`\`\n${EXAMPLE}\n\`\`\`')]<|tool_call_end|>`,
  "Hermes JSON": `<tool_call>\n{"name": "write", "arguments": {"filePath": "docs/calls.md", "content": "# Calls\n\`\`\`\n${EXAMPLE}\n\`\`\`"}}\n</tool_call>`,
  Mistral: `[TOOL_CALLS]write[ARGS]{"filePath": "docs/calls.md", "content": "# Calls\n\`\`\`\n${EXAMPLE}\n\`\`\`"}`,
  "MiniMax bracket": `[TOOL_CALL] {"tool": "write", "args": {"filePath": "docs/calls.md", "content": "# Calls\n\`\`\`\n${EXAMPLE}\n\`\`\`"}} [/TOOL_CALL]`,
};

/** What may stand right before the opener on its line: near misses that share its first characters, code. */
const BEFORE = ["", "<", "[", "<|", "<t", "[T", "<|tool_call_sta", "<tool_cal", "[TOOL_CALL", "[TOOL_CALLS", "a<b[i] ", "<div>[x]"];

/** The whole run equals the run cut after each of the first `span` characters from `at` (every cut on its own). */
function sameAtCuts(input: string, at: number, span: number): void {
  const whole = observable(runEngine(input, [], fixtureTools));
  for (let cut = at; cut <= Math.min(input.length - 1, at + span); cut++) {
    if (cut > 0) expect(observable(runEngine(input, [cut], fixtureTools))).toEqual(whole);
  }
}

describe("fx51 strings: a near miss before a quoted write does not hide its opener", () => {
  for (const [dialect, write] of Object.entries(WRITES)) {
    for (const before of BEFORE) {
      test(`${dialect} after ${JSON.stringify(before)} in a fence: no call, the text unchanged`, () => {
        const input = `Here is the page:\n\`\`\`\n${before}${write}\n\`\`\`\nThat is all.`;
        const o = outcome(input);
        expect(o.calls).toEqual([]);
        expect(o.text).toBe(input);
        const at = input.indexOf(before + write);
        sameAtCuts(input, at, before.length + 24);
      });
    }
  }
});

describe("fx51 strings hard negatives: code full of `<` and `[` quotes nothing", () => {
  const CODE = 'if (i < n && xs[i] !== undefined) {\n  <div className="row"><span>{label}</span></div>\n  <Row<Item> items={rows} />\n  const t = <T,>(x: T[]) => x[0];\n  <td>[TOOL</td><tr>[T]</tr><|x|>\n}\n';

  test("an HTML block of code, then a real call after a blank line: the call runs and every character is kept", () => {
    const input = `<div>\n${CODE.repeat(3)}</div>\n\nNow for real:\n\n${REAL}`;
    const o = outcome(input);
    expect(o.calls).toEqual([{ tool: "bash", input: { command: "ls" } }]);
    expect(o.text).toContain(CODE.repeat(3));
  });

  test("a fence of code, cut after every `<` and `[` and the character after it: the same text", () => {
    const input = `\`\`\`tsx\n${CODE}\`\`\`\nDone.`;
    const whole = observable(runEngine(input, [], fixtureTools));
    expect(whole.text).toBe(input);
    for (let i = 0; i < input.length; i++) {
      const c = input[i];
      if (c !== "<" && c !== "[") continue;
      expect(observable(runEngine(input, [i + 1], fixtureTools))).toEqual(whole);
      if (i + 2 < input.length) expect(observable(runEngine(input, [i + 2], fixtureTools))).toEqual(whole);
    }
  });

  test("a quoted write after code in the same fence still holds its page", () => {
    const input = `\`\`\`\n${CODE}${WRITES.LFM2}\n\`\`\`\nThat is all.`;
    const o = outcome(input);
    expect(o.calls).toEqual([]);
    expect(o.text).toBe(input);
  });
});

describe("fx51 strings: advanceAt leaves the context quiet after a `<` of code", () => {
  /** A context inside a fence, then `s` read with advanceAt up to and including `s[to]`. */
  function afterFence(s: string, to: number): DocContext {
    const doc = new DocContext();
    doc.advanceText("```\n");
    for (let j = 0; j <= to; j++) doc.advanceAt(s, j);
    return doc;
  }

  test("`a<b` and `<div>`: quiet mid-line right after the `<` (the hot path resumes)", () => {
    expect(afterFence("a<b", 1).midLine).toBe(true);
    expect(afterFence("<div>", 0).midLine).toBe(true);
    expect(afterFence("[x]", 0).midLine).toBe(true);
  });

  test("`<t`, `<|`, `[T` and a `<` at the text's end: the next characters are read one by one (they may be an opener's)", () => {
    expect(afterFence("<tool_call>", 0).midLine).toBe(false);
    expect(afterFence("<|tool_call_start|>", 0).midLine).toBe(false);
    expect(afterFence("[TOOL_CALLS]", 0).midLine).toBe(false);
    expect(afterFence("a<", 1).midLine).toBe(false);
    expect(afterFence("[", 0).midLine).toBe(false);
  });

  test("advance without the text in view still reads the token (a `<` then its next characters one by one)", () => {
    const doc = new DocContext();
    doc.advanceText("```\n<");
    expect(doc.midLine).toBe(false);
    doc.advance("d".charCodeAt(0));
    expect(doc.midLine).toBe(true);
  });
});
