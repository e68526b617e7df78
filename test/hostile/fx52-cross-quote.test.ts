/**
 * Fixer 52, cross quote: a call of one quote reader's dialects written right after a quote of the
 * other reader's ended, in a holder (fence, `<details>`, comment, `<pre>`) the first quote's value
 * broke by CommonMark's reading. Round 51 made a string-valued quote (Hermes JSON, LFM2, Kimi,
 * Mistral, MiniMax bracket; src/engine/quoted-strings.ts) hand over to a further opener of its own
 * dialects right after its end; round 52 (fx52-dsml-quoted) made a quoted DSML, Claude-style or
 * tool-named call keep a further invoke, its block's closer and a further block opener quoted
 * (src/engine/doc-context.ts takesInTail). Neither handed over to the other. Every outcome runs
 * whole, char by char and at seeded random splits (test/support/outcome.ts).
 */
import { describe, expect, test } from "bun:test";
import { live } from "../golden/notation.ts";
import { minimaxBracket, outcome } from "../support/outcome.ts";

const F = "```";
const P = (k: string, v: string) => `<{D}parameter name="${k}" string="true">${v}</{D}parameter>`;
const block = (...invokes: string[]) => `<{D}tool_calls>\n${invokes.join("\n")}\n</{D}tool_calls>`;

/** Writes whose page (`c`) breaks the holder around them by CommonMark's reading, one per dialect. */
const WRITES: Record<string, (c: string) => string> = {
  DSML: (c) => block(`<{D}invoke name="write">\n${P("filePath", "a.md")}\n${P("content", c)}\n</{D}invoke>`),
  "Claude-style": (c) => `<function_calls>\n<invoke name="write">\n<parameter name="filePath">a.md</parameter>\n<parameter name="content">${c}</parameter>\n</invoke>\n</function_calls>`,
  "tool-named (I11)": (c) => `<{D}write>\n<{D}filePath>a.md</{D}filePath>\n<{D}content>${c}</{D}content>\n</{D}write>`,
  "Qwen3-Coder": (c) => `<tool_call>\n<function=write>\n<parameter=filePath>\na.md\n</parameter>\n<parameter=content>\n${c}\n</parameter>\n</function>\n</tool_call>`,
  Hermes: (c) => `<tool_call>\n{"name": "write", "arguments": {"filePath": "a.md", "content": "${c}"}}\n</tool_call>`,
  LFM2: (c) => `<|tool_call_start|>[write(filePath="a.md", content="${c}")]<|tool_call_end|>`,
  Kimi: (c) => `<|tool_calls_section_begin|>\n<|tool_call_begin|>functions.write:0<|tool_call_argument_begin|>{"filePath": "a.md", "content": "${c}"}<|tool_call_end|>\n<|tool_calls_section_end|>`,
  Mistral: (c) => `[TOOL_CALLS]write[ARGS]{"filePath": "a.md", "content": "${c}"}`,
  MiniMax: (c) => minimaxBracket("write", `--filePath "a.md" --content "${c}"`),
};
/** The same `bash rm -rf build`, one per dialect either reader knows. */
const BASHES: Record<string, string> = {
  DSML: block(`<{D}invoke name="bash">\n${P("command", "rm -rf build")}\n</{D}invoke>`),
  "Claude-style": `<function_calls>\n<invoke name="bash">\n<parameter name="command">rm -rf build</parameter>\n</invoke>\n</function_calls>`,
  "tool-named (I11)": `<{D}bash>\n<{D}command>rm -rf build</{D}command>\n</{D}bash>`,
  "Qwen3-Coder": "<tool_call>\n<function=bash>\n<parameter=command>\nrm -rf build\n</parameter>\n</function>\n</tool_call>",
  GLM: "<tool_call>bash\n<arg_key>command</arg_key>\n<arg_value>rm -rf build</arg_value>\n</tool_call>",
  O09: "<bash>\n<command>rm -rf build</command>\n</bash>",
  Hermes: `<tool_call>\n{"name": "bash", "arguments": {"command": "rm -rf build"}}\n</tool_call>`,
  LFM2: `<|tool_call_start|>[bash(command="rm -rf build")]<|tool_call_end|>`,
  Kimi: `<|tool_calls_section_begin|>\n<|tool_call_begin|>functions.bash:0<|tool_call_argument_begin|>{"command": "rm -rf build"}<|tool_call_end|>\n<|tool_calls_section_end|>`,
  Mistral: `[TOOL_CALLS]bash[ARGS]{"command": "rm -rf build"}`,
  MiniMax: minimaxBracket("bash", `--command "rm -rf build"`),
};
/** The dialects the DSML-side quote reads (doc-context.ts, quoted-dialects.ts) and the string-valued quote reads (quoted-strings.ts). */
const TAG_SIDE = ["DSML", "Claude-style", "tool-named (I11)", "Qwen3-Coder", "GLM", "O09"];
const STRING_SIDE = ["Hermes", "LFM2", "Kimi", "Mistral", "MiniMax"];
const PAGE = `x\n${F}\ny`;
const inFence = (body: string) => `Example:\n\n${F}\n${body}\n${F}\n`;
const BASH = [{ tool: "bash", input: { command: "rm -rf build" } }];

/** Documentation only: nothing runs, nothing is reported and the text is shown exactly as written. */
function staysDocumentation(notation: string) {
  const input = live(notation);
  const o = outcome(input);
  expect(o.calls).toEqual([]);
  expect(o.broken).toEqual([]);
  expect(o.text).toBe(input);
}
function runs(notation: string) {
  expect(outcome(live(notation)).calls).toEqual(BASH);
}

// Finding A (severity: WRONG EXECUTION). What is wrong: a DSML write quoted in a fence whose
// `content` holds the page's own fence line keeps the fence open to its value's closer and its own
// closers after it (N45.5-N45.8, review 52), and a further DSML call right after is quoted too; but
// a Hermes `<tool_call>{"name":"bash",...}</tool_call>` or a Qwen3-Coder `<tool_call><function=bash>`
// call right after it is read where CommonMark says the fence has closed (the string quote opens
// only in block documentation, and a `<tool_call>` opener is taken by no DSML-side tail), and it
// runs. The same after a tool-named (I11) write, and for LFM2, Mistral, MiniMax and GLM calls.
// Minimal input:
//   Example:⏎⏎```⏎<{D}tool_calls>⏎<{D}invoke name="write">⏎<{D}parameter name="filePath"
//   string="true">a.md</{D}parameter>⏎<{D}parameter name="content" string="true">x⏎```⏎y
//   </{D}parameter>⏎</{D}invoke>⏎</{D}tool_calls>⏎<tool_call>⏎{"name": "bash", "arguments":
//   {"command": "rm -rf build"}}⏎</tool_call>⏎```⏎
// Was: bash {command: "rm -rf build"} ran. Expected: no call, nothing reported, the text unchanged.
// Suspected: src/engine/doc-context.ts (the DSML quote's tail between calls hands nothing over to
// the string quote of quoted-strings.ts, whose opener is read only where blockDocNow holds).
// Fixed: a closer that leaves a DSML-side quote between calls puts the string quote where it is
// after its own end (DocContext.readQuotedTag, QuotedStrings.follow), so a further string-valued
// opener (white space between) opens a quote whatever CommonMark says of the holder; a `<tool_call>`
// there is the tail's own block opener, so a Qwen3-Coder function after it is read in the tail.
describe("finding A: a string-valued or Qwen3-Coder call right after a holder-breaking quoted DSML write", () => {
  test("a Hermes JSON bash call: never runs", () => staysDocumentation(inFence(`${WRITES.DSML!(PAGE)}\n${BASHES.Hermes}`)));
  test("a Qwen3-Coder bash call: never runs", () => staysDocumentation(inFence(`${WRITES.DSML!(PAGE)}\n${BASHES["Qwen3-Coder"]}`)));
  for (const w of ["DSML", "tool-named (I11)"]) {
    for (const b of [...STRING_SIDE.filter((n) => n !== "Kimi"), "GLM"]) {
      test(`a ${w} write, then a ${b} bash call, in a broken fence: never runs`, () => staysDocumentation(inFence(`${WRITES[w]!(PAGE)}\n${BASHES[b]}`)));
    }
  }
});

// Finding B (severity: WRONG EXECUTION). The mirror: a Hermes-quoted write whose string value holds
// the fence line keeps the fence open to the string's closing quote and its `</tool_call>`, and a
// further string-valued opener right after is quoted too (round 51); a DSML block (or a
// Claude-style one) right after it is read where CommonMark says the fence has closed, and it runs.
// The same after an LFM2, Kimi, Mistral or MiniMax write. A Qwen3-Coder call there no longer ran
// (round 51) but was reported as a stray parameter (D08): a correction for a reply that only
// showed an example (diff-review-51's known gap).
// Minimal input:
//   Example:⏎⏎```⏎<tool_call>⏎{"name": "write", "arguments": {"filePath": "a.md", "content":
//   "x⏎```⏎y"}}⏎</tool_call>⏎<{D}tool_calls>⏎<{D}invoke name="bash">⏎<{D}parameter name="command"
//   string="true">rm -rf build</{D}parameter>⏎</{D}invoke>⏎</{D}tool_calls>⏎```⏎
// Was: bash ran. Expected: no call, nothing reported, the text unchanged.
// Suspected: src/engine/quoted-strings.ts (its After phase holds the `<` but nothing on the DSML
// side reads on: the block opener is noted, its invoke is then read where the fence has closed).
// Fixed: a string-valued quote's end leaves the DSML-side quote between calls
// (DocContext.readStrings, betweenCalls), so a further block opener, invoke, tool-named element,
// GLM key or O09 element (white space between) is quoted in the tail, whatever CommonMark says.
describe("finding B: a DSML-side call right after a holder-breaking string-valued quoted write", () => {
  test("a DSML bash block after a Hermes write: never runs", () => staysDocumentation(inFence(`${WRITES.Hermes!(PAGE)}\n${BASHES.DSML}`)));
  test("a Qwen3-Coder call after a Hermes write: never runs, and no correction", () => staysDocumentation(inFence(`${WRITES.Hermes!(PAGE)}\n${BASHES["Qwen3-Coder"]}`)));
  for (const w of STRING_SIDE) {
    for (const b of ["DSML", "Claude-style", "tool-named (I11)", "Qwen3-Coder"]) {
      test(`a ${w} write, then a ${b} bash call, in a broken fence: never runs`, () => staysDocumentation(inFence(`${WRITES[w]!(PAGE)}\n${BASHES[b]}`)));
    }
  }
});

// Finding C (severity: WRONG EXECUTION; found with A and B). A Claude-style write quoted in a fence
// whose page breaks it, in its `<function_calls>` block, then any call right after the block's
// `</function_calls>` (a second Claude-style block, a DSML block, Hermes, ...) runs: before a call
// is quoted only an invoke opener is read (quoted-tags.ts), so the block was never noted, and its
// closer in the tail was not the quote's own (takesInTail asked quotedBlock): it ended the quote.
// Minimal input: Example:⏎⏎```⏎<function_calls>⏎<invoke name="write">⏎<parameter name="filePath">
//   a.md</parameter>⏎<parameter name="content">x⏎```⏎y</parameter>⏎</invoke>⏎</function_calls>⏎
//   <function_calls>⏎<invoke name="bash">⏎<parameter name="command">rm -rf build</parameter>⏎
//   </invoke>⏎</function_calls>⏎```⏎
// Was: bash ran. Expected: no call. Suspected: src/engine/doc-context.ts takesInTail.
// Fixed: between calls a Claude-style block closer is the quote's own even where its opener was
// not noted; the quote stays between calls after it.
describe("finding C: a call right after a holder-breaking quoted Claude-style block", () => {
  for (const b of Object.keys(BASHES)) {
    test(`a ${b} bash call: never runs`, () => staysDocumentation(inFence(`${WRITES["Claude-style"]!(PAGE)}\n${BASHES[b]}`)));
  }
});

// Finding D (severity: WRONG EXECUTION; found with A and B). A second Kimi section
// (`<|tool_calls_section_begin|>` then its calls) right after any holder-breaking quoted write
// runs, a Kimi write's too: the section opener was no token of the string quote's, so it ended the
// quote after its end, and its `<|tool_call_begin|>` was read where the fence had closed.
// Minimal input: Example:⏎⏎```⏎<{D}tool_calls>…(the DSML write of finding A)…</{D}tool_calls>⏎
//   <|tool_calls_section_begin|>⏎<|tool_call_begin|>functions.bash:0<|tool_call_argument_begin|>
//   {"command": "rm -rf build"}<|tool_call_end|>⏎<|tool_calls_section_end|>⏎```⏎
// Was: bash ran. Expected: no call. Suspected: src/engine/quoted-strings.ts TOKENS.
// Fixed: Kimi's section opener is a token of the string quote: where an opener may start (or right
// after a quote's end) it leaves the quote as after an end, so the section's calls are quoted.
describe("finding D: a Kimi section right after a holder-breaking quoted write", () => {
  for (const w of Object.keys(WRITES)) {
    test(`after a ${w} write: never runs`, () => staysDocumentation(inFence(`${WRITES[w]!(PAGE)}\n${BASHES.Kimi}`)));
  }
});

describe("every pair, other holders, blank lines (after the fix)", () => {
  test("every write dialect, then every call dialect, in a broken fence: none runs", () => {
    for (const w of Object.keys(WRITES)) for (const b of Object.keys(BASHES)) staysDocumentation(inFence(`${WRITES[w]!(PAGE)}\n${BASHES[b]}`));
  });
  test("a blank line between the write and the call: none runs", () => {
    for (const w of Object.keys(WRITES)) for (const b of Object.keys(BASHES)) staysDocumentation(inFence(`${WRITES[w]!(PAGE)}\n\n${BASHES[b]}`));
  });
  const holders: Record<string, [string, string, string]> = {
    "<details>, the page has a blank line": ["<details>\n", "x\n\ny", "\n</details>\n"],
    "a comment, the page has -->": ["<!--\n", "x --> y", "\n-->\n"],
    "<pre>, the page closes pre": ["Intro:\n<pre>\n", "x\n</pre>\ny", "\n</pre>\n"],
    "a tilde fence": ["Example:\n\n~~~\n", "x\n~~~\ny", "\n~~~\n"],
  };
  for (const [name, [open, page, close]] of Object.entries(holders)) {
    test(`${name}: DSML then Hermes, DSML then Qwen3-Coder, Hermes then DSML, Hermes then Qwen3-Coder: none runs`, () => {
      staysDocumentation(`${open}${WRITES.DSML!(page)}\n${BASHES.Hermes}${close}`);
      staysDocumentation(`${open}${WRITES.DSML!(page)}\n${BASHES["Qwen3-Coder"]}${close}`);
      staysDocumentation(`${open}${WRITES.Hermes!(page)}\n${BASHES.DSML}${close}`);
      staysDocumentation(`${open}${WRITES.Hermes!(page)}\n${BASHES["Qwen3-Coder"]}${close}`);
    });
  }
});

describe("hard negatives: a real call still runs", () => {
  test("each dialect alone, outside documentation (the control)", () => {
    for (const b of Object.keys(BASHES)) runs(`Run it:\n\n${BASHES[b]}`);
  });
  test("every write dialect breaking the fence, then prose, then a real call of every dialect: it runs", () => {
    for (const w of Object.keys(WRITES)) for (const b of Object.keys(BASHES)) runs(inFence(`${WRITES[w]!(PAGE)}\nNow for real:\n\n${BASHES[b]}`));
  });
  test("every write dialect in an intact fence, then a real call of every dialect right after the fence line: it runs", () => {
    for (const w of Object.keys(WRITES)) for (const b of Object.keys(BASHES)) runs(`Example:\n\n${F}\n${WRITES[w]!("x")}\n${F}\n${BASHES[b]}`);
  });
  test("a DSML write quoted in an intact <details>, the element closed, then a real Hermes call: it runs", () => {
    runs(`<details>\n${WRITES.DSML!("x")}\n</details>\n\n${BASHES.Hermes}`);
  });
  test("a Hermes write quoted in an intact comment, the comment closed, then a real DSML block: it runs", () => {
    runs(`<!--\n${WRITES.Hermes!("x")}\n-->\n${BASHES.DSML}`);
  });
  test("a section opener with no call after it, then prose, then a real Kimi section: it runs", () => {
    runs(`Example:\n\n${F}\n<|tool_calls_section_begin|>\n${F}\nNow:\n\n${BASHES.Kimi}`);
  });
  test("a Claude-style block closer mentioned in a fence, then the fence closed, then a real Claude-style call: it runs", () => {
    runs(`Example:\n\n${F}\n</function_calls>\n${F}\n${BASHES["Claude-style"]}`);
  });
  test("two real calls of different dialects, no documentation: both run", () => {
    const o = outcome(live(`${BASHES.DSML}\n${BASHES.Hermes}`));
    expect(o.calls).toEqual([...BASH, ...BASH]);
  });
});

describe("the wait after a quote's end holds only a further call's tokens", () => {
  // A `<` right after a quote's end is held only where a string-valued token (an opener, a closer)
  // is spelled there (DocContext.settleTailAt): a block closer the quote did not open is stray
  // markup, reported as after a DSML invoke quoted alone (test/engine/quoted-call-closers.test.ts).
  test("a DSML block closer right after a holder-breaking Hermes quote is reported, the text whole", () => {
    const input = live(`<details>\n${WRITES.Hermes!("x\n\ny")}\n</{D}tool_calls>\n</details>`);
    const o = outcome(input);
    expect(o.calls).toEqual([]);
    expect(o.broken).toEqual(["broken-markup"]);
    expect(o.text).toBe(input);
  });
  test("an HTML tag right after it is no call and nothing is reported", () => {
    staysDocumentation(`<details>\n${WRITES.Hermes!("x\n\ny")}\n<div>hi</div>\n</details>`);
  });
  test("the string quote's own closer after its arguments (Hermes `}` then `</tool_call>`) stays its own", () => {
    staysDocumentation(inFence(`${WRITES.Hermes!(PAGE)}\n${BASHES.Hermes}\n${BASHES.DSML}`));
  });
});
