/**
 * Review 53 (hostile, tests only), the non-DSML dialects. Three findings, each beside the hard
 * negatives that must keep working. Every case runs whole, char by char and at seeded random
 * splits (test/support/outcome.ts); the runs agree today, so each failing test fails on the call
 * or the nudge, not on split dependence.
 */
import { describe, expect, test } from "bun:test";
import { outcome, type Outcome } from "../support/outcome.ts";

/** The C01 XML execute costume around `code` in `language`. */
const xmlExec = (code: string, language = "sh") =>
  `<tool_call><tool_name>execute</tool_name><tool_args><language>${language}</language><code>${code}</code></tool_args></tool_call>`;

/** Whether the reply either ran exactly `command` or refused with every character kept. */
const ranAsWrittenOrRefused = (o: Outcome, input: string, command: string) =>
  o.calls.length === 0 ? o.text === input : o.calls.length === 1 && o.calls[0]!.input.command === command;

// Finding 1 (severity: WRONG EXECUTION). What is wrong: the C01 XML execute costume
// (`<tool_call><tool_name>execute</tool_name>...<code>CODE</code>...`) runs CODE with its `<!-- ... -->`
// removed and its `<![CDATA[...]]>` unwrapped, but only when the whole span happens to be well-formed
// XML. src/parse/costume-xml.ts reads a well-formed span with fast-xml-parser (strictFields), which drops
// comments and unwraps CDATA as XML does; any raw `<` elsewhere in the code (`test 1 < 2`, `<<'EOF'`)
// makes the span invalid XML, and the tolerant reader then keeps the very same characters verbatim. The
// model writes this costume's code raw (C01b: `test 1 < 2` unescaped), so the same quoted fragment means
// two different commands depending on an unrelated character elsewhere, and the strict reading is not the
// code the model wrote. The `<shell>` costume runs these exact lines verbatim (review 52's hard
// negatives in test/hostile/diff-review-52.test.ts: `sed -i 's/<!--.*-->//g' index.html`, `echo "<!-- x -->" > f.html`).
// Minimal input:
//   <tool_call><tool_name>execute</tool_name><tool_args><language>sh</language><code>echo '<!-- note -->' > a.html</code></tool_args></tool_call>
// Today: bash {command: "echo '' > a.html"} runs (a.html overwritten with an empty line); with
// ` && test 1 < 2` appended the comment is kept. `sed -i 's/<!--.*-->//g' index.html` runs as
// `sed -i 's///g' index.html`; Python `print('<!-- x -->')` runs as `print('')`;
// `echo '<![CDATA[x]]>' > a.xml` writes `x`.
// Expected: the code runs exactly as written (the tolerant reader's reading), or the call is refused
// (broken-markup, text kept) when the code holds a comment or CDATA section; never a third command.
// Note: review 52 pinned "the XML execute costume drops an XML comment as XML does (runs `ls` only)" for
// a comment on its own lines (test/hostile/review-52-costume-code.test.ts); a refusal would change that
// control from "runs ls" to "refused", which is the safer side of the same rule (every other code costume
// refuses an unquoted `<!--`).
// Suspected: src/parse/costume-xml.ts strictFields (fast-xml-parser's comment/CDATA handling) versus tolerantFields.
describe("the XML execute costume runs its code as written, never with a comment or CDATA read away", () => {
  const cases: Array<[string, string, string?]> = [
    ["a quoted HTML comment echoed into a file", "echo '<!-- note -->' > a.html"],
    ["a sed expression matching comments", "sed -i 's/<!--.*-->//g' index.html"],
    ["a Python string holding a comment", "print('<!-- x -->')", "python"],
    ["a quoted CDATA section echoed into a file", "echo '<![CDATA[x]]>' > a.xml"],
    ["an unquoted comment after the command", "ls <!-- ; rm -rf build -->"],
  ];
  for (const [name, code, language] of cases) {
    test.failing(`${name}: run as written or refused`, () => {
      const input = xmlExec(code, language);
      const o = outcome(input);
      // Python goes out wrapped in a heredoc (costume.ts codeCall); compare the code inside it.
      const ran = o.calls.map((c) => String(c.input.command));
      if (language === "python") expect(ran.every((c) => c.includes(code))).toBe(true);
      else expect(ranAsWrittenOrRefused(o, input, code)).toBe(true);
    });
  }
  // Hard negatives: the same fragments with a raw `<` elsewhere run verbatim today, and must keep doing so.
  test("control: the quoted comment with a raw `<` elsewhere runs verbatim", () => {
    const code = "echo '<!-- note -->' > a.html && test 1 < 2";
    expect(outcome(xmlExec(code)).calls).toEqual([{ tool: "bash", input: { command: code } }]);
  });
  test("control: a heredoc writing an HTML comment runs verbatim", () => {
    const code = "cat > a.html <<'EOF'\n<!-- header -->\nhello\nEOF";
    expect(outcome(xmlExec(code)).calls).toEqual([{ tool: "bash", input: { command: code } }]);
  });
  test("control: the same quoted comment in a <shell> costume runs verbatim", () => {
    expect(outcome("<shell>\necho '<!-- note -->' > a.html\n</shell>").calls).toEqual([{ tool: "bash", input: { command: "echo '<!-- note -->' > a.html" } }]);
  });
  test("control: plain code and decoded entities still run (C01)", () => {
    expect(outcome(xmlExec("ls -la")).calls).toEqual([{ tool: "bash", input: { command: "ls -la" } }]);
    expect(outcome(xmlExec("ls &amp;&amp; pwd")).calls).toEqual([{ tool: "bash", input: { command: "ls && pwd" } }]);
  });
  test("control: every other dialect keeps a CDATA section as the value's text", () => {
    const o = outcome("<tool_call>\n<function=bash>\n<parameter=command>\n<![CDATA[ls]]>\n</parameter>\n</function>\n</tool_call>");
    expect(o.calls).toEqual([{ tool: "bash", input: { command: "<![CDATA[ls]]>" } }]);
  });
});

// Finding 2 (severity: WRONG EXECUTION, arguable; else lost text). What is wrong: a Mistral call whose
// `[ARGS]` (or the token-less `NAME{json}` form) is followed by a second JSON object runs the first
// object, and the second (another argument set for the same call) is stripped as a fabricated result.
// Every other JSON dialect refuses one call holding two argument objects: Kimi
// (`<|tool_call_argument_begin|>{a}{b}`), Hermes (`<tool_call>{a}\n{b}</tool_call>`), LFM2's JSON list
// (`[..][..]`) are all broken-markup with the text kept. Which of the two sets the model meant is
// unknowable; running one of them is a guess (the trust rule: arguments that cannot be read completely
// refuse the call). Mistral's own server-side parser `json.loads` the text after `[ARGS]` and fails on the
// extra data.
// Minimal input: [TOOL_CALLS]bash[ARGS]{"command":"ls"}{"command":"rm -rf build"}
// Today: bash {command: "ls"} runs; `{"command":"rm -rf build"}` is stripped.
// Expected: no call, text kept, nudge broken-markup (O06), as Kimi's reader does.
// Suspected: src/parse/dialects/mistral.ts (MISTRAL's char form ends the span at the first balanced
// object; parseMistralSpan never sees what follows).
describe("a Mistral call with two argument objects is refused like Kimi's", () => {
  for (const input of [
    '[TOOL_CALLS]bash[ARGS]{"command":"ls"}{"command":"rm -rf build"}',
    '[TOOL_CALLS]bash[ARGS]{"command":"ls"}\n{"command":"rm -rf build"}',
    '[TOOL_CALLS]bash{"command":"ls"}{"command":"rm -rf build"}',
  ]) {
    test.failing(JSON.stringify(input), () => {
      expect(outcome(input)).toEqual({ calls: [], broken: ["broken-markup"], text: input });
    });
  }
  test("control: Kimi refuses the same shape", () => {
    const input = '<|tool_calls_section_begin|><|tool_call_begin|>functions.bash:0<|tool_call_argument_begin|>{"command":"ls"}{"command":"rm -rf build"}<|tool_call_end|><|tool_calls_section_end|>';
    expect(outcome(input)).toEqual({ calls: [], broken: ["broken-markup"], text: input });
  });
  test("control: one Mistral call runs (O06, O06.3)", () => {
    expect(outcome('[TOOL_CALLS]bash[ARGS]{"command":"ls -la"}').calls).toEqual([{ tool: "bash", input: { command: "ls -la" } }]);
    expect(outcome('[TOOL_CALLS]bash{"command":"ls -la"}').calls).toEqual([{ tool: "bash", input: { command: "ls -la" } }]);
  });
  test("control: two Mistral calls, each with its token, both run (O06.4)", () => {
    expect(outcome('Checking both.[TOOL_CALLS]bash{"command": "ls"}[TOOL_CALLS]read{"filePath": "/a"}').calls).toEqual([
      { tool: "bash", input: { command: "ls" } },
      { tool: "read", input: { filePath: "/a" } },
    ]);
  });
  test("control: a Mistral call followed by prose still runs", () => {
    expect(outcome('[TOOL_CALLS]bash[ARGS]{"command":"ls"}\nDone.').calls).toEqual([{ tool: "bash", input: { command: "ls" } }]);
  });
});

// Finding 3 (severity: MISSED NUDGE). What is wrong: MiniMax's bracket call in its JSON form
// (`[TOOL_CALL] {"tool": NAME, "args": {...}} [/TOOL_CALL]`) whose JSON is valid but refused by
// parseJson (a key written twice, a number out of range, a prototype-member key, `tool` twice) is
// silent text: no call (right) but no broken-markup either, so the model is never told. The same
// refusal is broken-markup in the arrow form (`--command "ls" --command "..."`), in Hermes (O01e, O01f),
// Kimi, the Mistral `[ARGS]` form and, after golden O47.1/O47.2, Mistral's list ("as the `[ARGS]` form and
// every other dialect report it", src/parse/dialects/mistral.ts refusedList).
// Minimal input: [TOOL_CALL] {"tool": "bash", "args": {"command":"ls","command":"rm -rf build"}} [/TOOL_CALL]
// Today: no call, no nudge. Expected: no call, text kept, nudge broken-markup (O05) naming bash.
// Suspected: src/parse/dialects/minimax-bracket.ts bracketCall (a parseJson refusal falls through to the
// arrow reader, which names no tool, so the span is text).
describe("MiniMax's JSON bracket form reports refused JSON as broken markup", () => {
  for (const [name, input] of [
    ["a key written twice", '[TOOL_CALL] {"tool": "bash", "args": {"command":"ls","command":"rm -rf build"}} [/TOOL_CALL]'],
    ["a number out of range", '[TOOL_CALL] {"tool": "read", "args": {"filePath":"/a","limit":1e999}} [/TOOL_CALL]'],
    ["a prototype-member key", '[TOOL_CALL] {"tool": "bash", "args": {"command":"ls","__proto__":{}}} [/TOOL_CALL]'],
  ] as const) {
    test.failing(name, () => {
      expect(outcome(input)).toEqual({ calls: [], broken: ["broken-markup"], text: input });
    });
  }
  test("control: the arrow form with a key twice is broken-markup", () => {
    const input = '[TOOL_CALL] {tool => "bash", args => { --command "ls" --command "rm -rf build" }} [/TOOL_CALL]';
    expect(outcome(input)).toEqual({ calls: [], broken: ["broken-markup"], text: input });
  });
  test("control: the JSON form runs (O05 bracket)", () => {
    expect(outcome('[TOOL_CALL] {"tool": "bash", "args": {"command":"ls"}} [/TOOL_CALL]').calls).toEqual([{ tool: "bash", input: { command: "ls" } }]);
  });
  test("control: prose that only mentions the tokens stays silent text", () => {
    const input = "MiniMax wraps calls in [TOOL_CALL] and [/TOOL_CALL] tokens.";
    expect(outcome(input)).toEqual({ calls: [], broken: [], text: input });
  });
});
