/**
 * Review 53 (hostile, tests only), the non-DSML dialects. Three findings, each beside the hard
 * negatives that must keep working. Every case runs whole, char by char and at seeded random
 * splits (test/support/outcome.ts); the runs agree today, so each failing test fails on the call
 * or the nudge, not on split dependence.
 */
import { describe, expect, test } from "bun:test";
import { outcome, type Outcome } from "../support/outcome.ts";
import { runAtEverySplit } from "../support/run-engine.ts";
import { fixtureTools } from "../golden/tools.ts";

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
// Fixed: a C01 span holding an XML comment (`<!--`), a CDATA section (`<![CDATA[`) or a processing
// instruction (`<?` then a name) is refused (broken-markup, text kept) before either reader reads it
// (src/parse/costume-xml.ts XML_MARKUP_DECLARATION), so its code never runs with characters read away;
// the lead chose refusal over the tolerant reading, since which text the model meant is unknowable.
// The same code with a raw `<` elsewhere (read tolerantly, verbatim, before) is refused too now.
describe("the XML execute costume runs its code as written, never with a comment or CDATA read away", () => {
  const cases: Array<[string, string, string?]> = [
    ["a quoted HTML comment echoed into a file", "echo '<!-- note -->' > a.html"],
    ["a sed expression matching comments", "sed -i 's/<!--.*-->//g' index.html"],
    ["a Python string holding a comment", "print('<!-- x -->')", "python"],
    ["a quoted CDATA section echoed into a file", "echo '<![CDATA[x]]>' > a.xml"],
    ["an unquoted comment after the command", "ls <!-- ; rm -rf build -->"],
  ];
  for (const [name, code, language] of cases) {
    test(`${name}: run as written or refused`, () => {
      const input = xmlExec(code, language);
      const o = outcome(input);
      // Python goes out wrapped in a heredoc (costume.ts codeCall); compare the code inside it.
      const ran = o.calls.map((c) => String(c.input.command));
      if (language === "python") expect(ran.every((c) => c.includes(code))).toBe(true);
      else expect(ranAsWrittenOrRefused(o, input, code)).toBe(true);
      // The rule now: refused, the model told.
      expect(o).toEqual({ calls: [], broken: ["broken-markup"], text: input });
    });
  }
  // These two ran verbatim when the review was written (a raw `<` elsewhere sent the span to the
  // tolerant reader). The lead's rule refuses a comment whichever reader would read the span: which
  // reader reads it turns on an unrelated character, so the same comment is refused either way.
  test("control (now refused): the quoted comment with a raw `<` elsewhere", () => {
    const input = xmlExec("echo '<!-- note -->' > a.html && test 1 < 2");
    expect(outcome(input)).toEqual({ calls: [], broken: ["broken-markup"], text: input });
  });
  test("control (now refused): a heredoc writing an HTML comment", () => {
    const input = xmlExec("cat > a.html <<'EOF'\n<!-- header -->\nhello\nEOF");
    expect(outcome(input)).toEqual({ calls: [], broken: ["broken-markup"], text: input });
  });
  test("a processing instruction in well-formed code is refused, and a CDATA section spelled in lower case", () => {
    for (const code of ["php -r '<?php echo 1; ?>'", "echo '<![cdata[x]]>'"]) {
      const input = xmlExec(code);
      expect(outcome(input)).toEqual({ calls: [], broken: ["broken-markup"], text: input });
    }
  });
  // Hard negatives: clean code with a raw `<` (no comment, CDATA or instruction) still runs as written.
  test("control: clean code with a raw `<`, tags or a DOCTYPE in a heredoc runs as written", () => {
    for (const code of [
      "test 1 < 2 && echo ok",
      "grep '<div>' a.html",
      "cat > a.html <<'EOF'\n<p>hi</p>\nEOF",
      "cat > a.html <<'EOF'\n<!DOCTYPE html>\n<p>hi</p>\nEOF",
      "echo '<?' | wc -c",
    ]) {
      expect(outcome(xmlExec(code)).calls).toEqual([{ tool: "bash", input: { command: code } }]);
    }
  });
  test("control: the JSON form of <tool_args> keeps a comment inside a JSON string (C48.3)", () => {
    const input = '<tool_call><tool_name>bash</tool_name><tool_args>{"command":"echo \'<!-- x -->\' > a.html"}</tool_args></tool_call>';
    expect(outcome(input).calls).toEqual([{ tool: "bash", input: { command: "echo '<!-- x -->' > a.html" } }]);
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
// Fixed: after an arguments object the char form reads on over whitespace; another `{` joins the
// span, and parseMistralSpan refuses a span holding two objects (broken-markup naming the declared
// tool, text kept). Any other character (prose, the next `[TOOL_CALLS]`) or the reply's end ends the
// span at the object as before (src/parse/dialects/mistral.ts MistralState after-object, objectsIn).
describe("a Mistral call with two argument objects is refused like Kimi's", () => {
  for (const input of [
    '[TOOL_CALLS]bash[ARGS]{"command":"ls"}{"command":"rm -rf build"}',
    '[TOOL_CALLS]bash[ARGS]{"command":"ls"}\n{"command":"rm -rf build"}',
    '[TOOL_CALLS]bash{"command":"ls"}{"command":"rm -rf build"}',
  ]) {
    test(JSON.stringify(input), () => {
      expect(outcome(input)).toEqual({ calls: [], broken: ["broken-markup"], text: input });
      expect(runAtEverySplit(input, fixtureTools).summary.broken.map((b) => b.tool)).toEqual(["bash"]);
    });
  }
  test("three objects, and an object after a blank line, are refused too (which one was meant is unknowable)", () => {
    for (const input of [
      '[TOOL_CALLS]bash{"command":"ls"} {"command":"pwd"} {"command":"rm -rf build"}',
      '[TOOL_CALLS]bash[ARGS]{"command":"ls"}\n\n{"command":"rm -rf build"}',
    ]) {
      expect(outcome(input)).toEqual({ calls: [], broken: ["broken-markup"], text: input });
    }
  });
  test("control: an undeclared tool with two objects is refused without naming it", () => {
    const input = '[TOOL_CALLS]web.search{"q":"a"}{"q":"b"}';
    const run = runAtEverySplit(input, fixtureTools);
    expect(run.calls).toEqual([]);
    expect(run.summary.broken.map((b) => [b.reason, b.tool])).toEqual([["broken-markup", undefined]]);
  });
  test("control: a call with whitespace after it, then the reply's end, runs; the whitespace stays text", () => {
    const o = outcome('[TOOL_CALLS]bash[ARGS]{"command":"ls"}  \n');
    expect(o.calls).toEqual([{ tool: "bash", input: { command: "ls" } }]);
  });
  test("control: a call followed by a blank line and prose with braces runs", () => {
    const o = outcome('[TOOL_CALLS]bash[ARGS]{"command":"ls"}\n\nThat lists {all} files.');
    expect(o.calls).toEqual([{ tool: "bash", input: { command: "ls" } }]);
  });
  test("control: an object whose string holds `}{` is one object and runs", () => {
    expect(outcome('[TOOL_CALLS]bash{"command":"echo \'}{\'"}').calls).toEqual([{ tool: "bash", input: { command: "echo '}{'" } }]);
  });
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
// Fixed: bracketCall reads JSON that parseJson refused but JSON.parse accepts as a call object (a
// string `tool`, no `name`) as broken-markup, naming the tool when it is declared (the prototype-key
// detail for a prototype-member key), as Mistral's refusedList does (src/parse/dialects/minimax-bracket.ts refusedJson).
describe("MiniMax's JSON bracket form reports refused JSON as broken markup", () => {
  for (const [name, input] of [
    ["a key written twice", '[TOOL_CALL] {"tool": "bash", "args": {"command":"ls","command":"rm -rf build"}} [/TOOL_CALL]'],
    ["a number out of range", '[TOOL_CALL] {"tool": "read", "args": {"filePath":"/a","limit":1e999}} [/TOOL_CALL]'],
    ["a prototype-member key", '[TOOL_CALL] {"tool": "bash", "args": {"command":"ls","__proto__":{}}} [/TOOL_CALL]'],
  ] as const) {
    test(name, () => {
      expect(outcome(input)).toEqual({ calls: [], broken: ["broken-markup"], text: input });
      expect(runAtEverySplit(input, fixtureTools).summary.broken.map((b) => b.tool)).toEqual([input.includes('"read"') ? "read" : "bash"]);
    });
  }
  test("control: invalid JSON that is no arrow call stays silent text", () => {
    const input = '[TOOL_CALL] {"tool": "bash", "args": {"command": "ls",}} [/TOOL_CALL]';
    expect(outcome(input)).toEqual({ calls: [], broken: [], text: input });
  });
  test("control: refused JSON that is no call object (a `name` key, no `tool`) stays silent text", () => {
    for (const input of [
      '[TOOL_CALL] {"name": "bash", "tool": "bash", "args": {"a":1,"a":2}} [/TOOL_CALL]',
      '[TOOL_CALL] {"cmd": "ls", "cmd": "pwd"} [/TOOL_CALL]',
    ]) {
      expect(outcome(input)).toEqual({ calls: [], broken: [], text: input });
    }
  });
  test("control: a clean JSON call with a number and nested object runs", () => {
    expect(outcome('[TOOL_CALL] {"tool": "read", "args": {"filePath":"/a","limit":20}} [/TOOL_CALL]').calls).toEqual([{ tool: "read", input: { filePath: "/a", limit: 20 } }]);
  });
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
