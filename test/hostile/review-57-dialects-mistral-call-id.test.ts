/**
 * Review 57 (hostile, tests only): Mistral's `[TOOL_CALLS]` calls (O06, src/parse/dialects/mistral.ts)
 * with the `[CALL_ID]` token the v11+ tokenizers put between the name and `[ARGS]`, and the
 * arguments forms the brief asked about. Every outcome runs whole, char by char and at seeded
 * random splits (test/support/outcome.ts).
 */
import { describe, expect, test } from "bun:test";
import { outcome } from "../support/outcome.ts";

describe("Mistral `[TOOL_CALLS]NAME[CALL_ID]ID[ARGS]{json}`", () => {
  // FINDING (missed call, lowest). Mistral's tokenizers from v11 on (Mistral Small 3.1+, Ministral,
  // Devstral; vLLM's v11+ tool parser reads the three special tokens `[TOOL_CALLS]`, `[ARGS]`,
  // `[CALL_ID]`) write a call as `[TOOL_CALLS]NAME[CALL_ID]ID[ARGS]{json}` where the chat template
  // replays call ids. Leaked as text, this form is neither a call nor a nudge: the name read is
  // `bash[CALL_ID]a1b2c3d4e`, and the reply passes as written with no correction, so the model is
  // never told. Nothing wrong runs.
  // Minimal input: `[TOOL_CALLS]bash[CALL_ID]a1b2c3d4e[ARGS]{"command": "ls -la"}`.
  // Suspected: src/parse/dialects/mistral.ts parseMistralSpan (the name is everything before
  // `[ARGS]`) and MistralState (the stream reader's name characters).
  // Expected: the id token and its id (a short run of letters and digits) between the name and
  // `[ARGS]` are read as the call's noise: the declared call runs under the same gates as the form
  // without it; an undeclared name or a malformed id stays text or a nudge, never a call.
  // Fixed: mistral-common's InstructTokenizerV11 writes `[TOOL_CALLS]NAME[CALL_ID]ID[ARGS]JSON`
  // (the order checked there). After the real token (never in the residue) MistralState reads
  // `[CALL_ID]` right after the name, then an id of letters, digits, `_` or `-` (at most 64), then
  // `[ARGS]` only; anything else proves the span no call (text). parseMistralSpan drops the id: the
  // engine gives every recovered call its own id, so the model's is no argument and goes nowhere.
  // The documentation context's string-valued quote (src/engine/quoted-strings.ts) reads the id
  // form too, so a fenced write of this form whose content breaks the fence stays documentation
  // (before, the example after the broken fence ran: test below).
  test("a declared call carrying its call id is recovered", () => {
    expect(outcome('[TOOL_CALLS]bash[CALL_ID]a1b2c3d4e[ARGS]{"command": "ls -la"}').calls).toEqual([{ tool: "bash", input: { command: "ls -la" } }]);
  });

  test("two calls each with an id are two calls", () => {
    const input = '[TOOL_CALLS]read[CALL_ID]a1b2c3d4e[ARGS]{"filePath": "/a"}[TOOL_CALLS]bash[CALL_ID]f5g6h7i8j[ARGS]{"command": "ls"}';
    expect(outcome(input).calls).toEqual([{ tool: "read", input: { filePath: "/a" } }, { tool: "bash", input: { command: "ls" } }]);
  });

  // Hard negatives (pass on main): what must keep working.
  test("the form without the id runs", () => {
    expect(outcome('[TOOL_CALLS]bash[ARGS]{"command": "ls -la"}').calls).toEqual([{ tool: "bash", input: { command: "ls -la" } }]);
  });

  test("with the id: an undeclared tool, inline code, a fence: no call, text kept", () => {
    for (const input of [
      '[TOOL_CALLS]wipe_disk[CALL_ID]a1b2c3d4e[ARGS]{"path": "/"}',
      'Mistral writes `[TOOL_CALLS]bash[CALL_ID]a1b2c3d4e[ARGS]{"command": "ls"}` for a call.',
      '```\n[TOOL_CALLS]bash[CALL_ID]a1b2c3d4e[ARGS]{"command": "rm -rf ~"}\n```',
    ]) {
      const o = outcome(input);
      expect(o.calls).toEqual([]);
      expect(o.text).toBe(input);
    }
  });

  test("an id that is itself JSON never becomes the arguments", () => {
    const input = '[TOOL_CALLS]bash[CALL_ID]{"command": "rm -rf ~"}[ARGS]{"command": "ls"}';
    expect(outcome(input).calls.map((c) => c.input)).not.toContainEqual({ command: "rm -rf ~" });
  });
});

describe("fix 57: the call id's form is read exactly; what must keep working", () => {
  test("ids of other hosts' spelling (`_`, `-`) run; the id is dropped, never an argument", () => {
    for (const id of ["call_0_a1b2", "toolu-01AbC", "A1B2C3D4E"]) {
      expect(outcome(`[TOOL_CALLS]read[CALL_ID]${id}[ARGS]{"filePath": "/a"}`).calls).toEqual([{ tool: "read", input: { filePath: "/a" } }]);
    }
  });

  test("an id that is empty, spaced, markup, too long, given twice, or not followed by [ARGS]: no call, text kept", () => {
    for (const input of [
      '[TOOL_CALLS]bash[CALL_ID][ARGS]{"command": "ls"}',
      '[TOOL_CALLS]bash[CALL_ID]a1 b2[ARGS]{"command": "ls"}',
      '[TOOL_CALLS]bash[CALL_ID]<b>x</b>[ARGS]{"command": "ls"}',
      `[TOOL_CALLS]bash[CALL_ID]${"a".repeat(65)}[ARGS]{"command": "ls"}`,
      '[TOOL_CALLS]bash[CALL_ID]a1[CALL_ID]b2[ARGS]{"command": "ls"}',
      '[TOOL_CALLS]bash[CALL_ID]a1b2c3d4e{"command": "ls"}',
      '[TOOL_CALLS]bash[ARGS][CALL_ID]a1b2c3d4e{"command": "ls"}',
      '[TOOL_CALLS][CALL_ID]a1b2c3d4e[ARGS]{"command": "ls"}',
    ]) {
      const o = outcome(input);
      expect(o.calls).toEqual([]);
      expect(o.text).toBe(input);
    }
  });

  test("with the id: two argument objects are refused, a `[TOOL_CALLS]` in a value is its text, a cut value is a truncated call", () => {
    const two = '[TOOL_CALLS]bash[CALL_ID]a1b2c3d4e[ARGS]{"command": "ls"} {"command": "rm -rf ~"}';
    expect(outcome(two)).toEqual({ calls: [], broken: ["broken-markup"], text: two });
    expect(outcome('[TOOL_CALLS]write[CALL_ID]a1b2c3d4e[ARGS]{"filePath": "a.md", "content": "[TOOL_CALLS]bash[CALL_ID]x[ARGS]{}"}').calls).toEqual([
      { tool: "write", input: { filePath: "a.md", content: "[TOOL_CALLS]bash[CALL_ID]x[ARGS]{}" } },
    ]);
    for (const cut of ['[TOOL_CALLS]bash[CALL_ID]a1b2', '[TOOL_CALLS]bash[CALL_ID]a1b2c3d4e[ARGS]{"command": "rm -rf /tmp/x']) {
      expect(outcome(cut)).toEqual({ calls: [], broken: ["truncated-call"], text: cut });
    }
  });

  // Found while fixing (wrong execution, fails on main): a write of this form shown in a fence,
  // its content (raw lines, as a page is) holding a fence line and then a call, broke the fence by
  // CommonMark's reading, and the documentation context's string-valued quote stopped at
  // `[CALL_ID]`, so the example after the broken fence ran. Without the id it was documentation.
  test("a fenced write with its call id whose content breaks the fence: nothing runs, as without the id", () => {
    const pages = [
      (head: string) => "```\n" + head + '{"filePath": "a.md", "content": "Example:\n```\n"}\n[TOOL_CALLS]bash[ARGS]{"command": "rm -rf ~"}\n```\nDone.',
      (head: string) => "```\n" + head + '{"filePath": "a.md", "content": "Example:\n```\n[TOOL_CALLS]bash[ARGS]{"command": "rm -rf ~"}\n```\n"}\n```\nDone.',
    ];
    for (const page of pages) {
      for (const head of ["[TOOL_CALLS]write[ARGS]", "[TOOL_CALLS]write[CALL_ID]a1b2c3d4e[ARGS]"]) {
        const input = page(head);
        expect(outcome(input)).toEqual({ calls: [], broken: [], text: input });
      }
    }
  });
});

describe("Mistral arguments the JSON reader must not read leniently (hard negatives, pass on main)", () => {
  const refused: [string, string][] = [
    ["a trailing comma", '[TOOL_CALLS]bash[ARGS]{"command": "ls",}'],
    ["single quotes", "[TOOL_CALLS]bash[ARGS]{'command': 'ls'}"],
    ["a comment", '[TOOL_CALLS]bash[ARGS]{"command": "ls" /* rm -rf ~ */}'],
    ["a key written twice", '[TOOL_CALLS]bash[ARGS]{"command": "ls", "command": "rm -rf ~"}'],
    ["two objects", '[TOOL_CALLS]bash[ARGS]{"command": "ls"} {"command": "rm -rf ~"}'],
    ["NaN", '[TOOL_CALLS]read[ARGS]{"filePath": "a", "limit": NaN}'],
    ["a list entry with a trailing comma", '[TOOL_CALLS][{"name": "bash", "arguments": {"command": "ls"}},]'],
  ];
  for (const [label, input] of refused) {
    test(`${label}: no call, text kept`, () => {
      const o = outcome(input);
      expect(o.calls).toEqual([]);
      expect(o.text).toBe(input);
    });
  }

  test("the arguments as a JSON string holding the object are read once, as the object", () => {
    expect(outcome('[TOOL_CALLS]bash[ARGS]"{\\"command\\": \\"ls\\"}"').calls).toEqual([{ tool: "bash", input: { command: "ls" } }]);
  });

  test("a `[TOOL_CALLS]` inside a string value is the value's text", () => {
    expect(outcome('[TOOL_CALLS]write[ARGS]{"filePath": "a.md", "content": "[TOOL_CALLS]bash[ARGS]{}"}').calls).toEqual([
      { tool: "write", input: { filePath: "a.md", content: "[TOOL_CALLS]bash[ARGS]{}" } },
    ]);
  });

  test("cut inside a value: no call, a truncated-call nudge, text kept", () => {
    const input = '[TOOL_CALLS]bash[ARGS]{"command": "rm -rf /tmp/x';
    const o = outcome(input);
    expect(o.calls).toEqual([]);
    expect(o.broken).toEqual(["truncated-call"]);
    expect(o.text).toBe(input);
  });
});
