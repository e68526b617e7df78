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
  test.failing("a declared call carrying its call id is recovered", () => {
    expect(outcome('[TOOL_CALLS]bash[CALL_ID]a1b2c3d4e[ARGS]{"command": "ls -la"}').calls).toEqual([{ tool: "bash", input: { command: "ls -la" } }]);
  });

  test.failing("two calls each with an id are two calls", () => {
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
