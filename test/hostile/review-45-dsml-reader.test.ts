/**
 * Review 45, area 1: the DSML reader (src/parse/dialects/dsml/*) on degraded and hostile shapes.
 * Every case runs whole, char by char and at five seeded random splits (outcome() asserts they
 * agree); a failing test here fails on its expectation, not on the split check.
 */
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { escaped, live } from "../golden/notation.ts";
import { fixtureTools } from "../golden/tools.ts";
import { EXAMPLE_BLOCK } from "../support/cut-off-examples.ts";
import { outcome } from "../support/outcome.ts";
import { accountsForEveryCharacter, runAtEverySplit } from "../support/run-engine.ts";

const block = (body: string) => live(`<{D}tool_calls>\n${body}\n</{D}tool_calls>`);
const invoke = (name: string, params: string) => `<{D}invoke name="${name}">\n${params}\n</{D}invoke>`;
const param = (k: string, v: string, s = "true") => `<{D}parameter name="${k}" string="${s}">${v}</{D}parameter>`;

describe("I11 (tool-named DSML element): the tool's own closer, or the invoke closer, inside a value", () => {
  // Severity: wrong execution (a file written truncated, a command cut mid-quote), plus lost text
  // (everything after the inner closer, the value's rest and the element's real closers, is
  // stripped as a "fabricated result" after the call, S03).
  // Suspected: src/parse/dialects/dsml/walk.ts onToolNamed (a closing tag while a value is open:
  // `</{D}TOOL>` calls closeInvoke("closer") and any other DSML closer, `</{D}invoke>` included,
  // calls closeParam, with no closer rule), and the stream side that ends the I11 span at that tag
  // (src/engine/candidate.ts: its plainInValue marks no value open after a child opener such as
  // `<{D}content>`, role "other", so the closer rule is never asked). Generic DSML applies
  // the closer rule (closer-in-value.ts, golden A40.n3-A40.n5: text after the closer on its line
  // makes it the value's text) and the plain O09 form reads the same input whole (control below);
  // the tool-named DSML form does not, so a file that documents the form is cut at its first
  // mention of the closer.
  const write = (content: string) => live(`<{D}write>\n<{D}filePath>a.md</{D}filePath>\n<{D}content>${content}</{D}content>\n</{D}write>`);
  const whole = "Close it with </{D}write> on its own line.\nDone.";

  test("`</{D}write>` mid-line in the content: the write never runs with the content cut at it", () => {
    const o = outcome(write(whole));
    // Observed: write {filePath: "a.md", content: "Close it with "}.
    expect(o.calls.every((c) => c.input.content !== "Close it with ")).toBe(true);
    expect(o.calls).toEqual(o.calls.length === 0 ? [] : [{ tool: "write", input: { filePath: "a.md", content: live(whole) } }]);
  });

  test("the same inside a `<{D}tool_calls>` block", () => {
    const input = block(`<{D}write>\n<{D}filePath>a.md</{D}filePath>\n<{D}content>${whole}</{D}content>\n</{D}write>`);
    expect(outcome(input).calls.every((c) => c.input.content !== "Close it with ")).toBe(true);
  });

  test("`</{D}invoke>` mid-line in an I11 value is the value's text (as in an invoke's value), not its end", () => {
    const o = outcome(write("Each call ends with </{D}invoke> and a newline.\nDone."));
    // Observed: write {content: "Each call ends with "}.
    expect(o.calls.every((c) => c.input.content !== "Each call ends with ")).toBe(true);
  });

  test("bash: `</{D}bash>` inside a quoted argument does not run the command cut at the quote", () => {
    const input = live(`<{D}bash>\n<{D}command>grep -c "</{D}bash>" log.txt || rm -rf build</{D}command>\n</{D}bash>`);
    const o = outcome(input);
    // Observed: bash {command: 'grep -c "'}.
    expect(o.calls.every((c) => c.input.command !== 'grep -c "')).toBe(true);
  });

  test("no character is lost: what follows the inner closer is visible or inside the call", () => {
    const input = write(whole) + "\nI wrote the file.";
    const r = runAtEverySplit(input, fixtureTools);
    // Observed: the call's span ends at the inner `</{D}write>`; ` on its own line.\nDone.` and the
    // element's own closers are stripped as a fabricated result.
    const call = r.calls.find((c) => c.tool === "write");
    if (call) expect(call.span[1]).toBeGreaterThanOrEqual(input.indexOf(live("</{D}content>")));
  });

  test("control (passes today): the plain O09 element reads the same shape whole", () => {
    const input = "<write>\n<filePath>a.md</filePath>\n<content>Close it with </write> on its own line.\nDone.</content>\n</write>";
    expect(outcome(input).calls).toEqual([{ tool: "write", input: { filePath: "a.md", content: "Close it with </write> on its own line.\nDone." } }]);
  });

  test("control (passes today): an invoke's value holding `</{D}invoke>` mid-line is written whole", () => {
    const input = block(invoke("write", param("filePath", "a.md") + "\n" + param("content", "Each call ends with </{D}invoke> and a newline.\nDone.")));
    expect(outcome(input).calls).toEqual([{ tool: "write", input: { filePath: "a.md", content: live("Each call ends with </{D}invoke> and a newline.\nDone.") } }]);
  });
});

describe("a DSML value that mentions a prefix-less `</parameter>`, then holds a call example, then reaches its own closer", () => {
  // Severity: wrong execution (high: the example's `rm -rf x` runs; in the M07.5 shapes the write
  // runs too, its file cut at the mention). A Markdown page about tool-call formats is exactly
  // the file that says `</parameter>` (in prose, even in inline code) and then shows an example.
  // The write's own `</{D}parameter>` after the example proves both were its text: without the
  // mention the same write is written whole (control). Expected: the write runs with the whole
  // content, or nothing runs; never the example.
  // Suspected: src/parse/dialects/dsml/value-ends.ts plainMarkupValueEnds (its scan stops at the
  // first sentinel tag, here the example's `<{D}tool_calls>`, so the value's own sentinel closer
  // is never reached and the plain `</parameter>` ends the value, M07), then value-examples.ts exampleAt is
  // never asked (no value is open any more), the rest of the value becomes body text (I04) and the
  // example is read again as a fresh call (restart rule); the stream's PlainRunInValue /
  // ExampleInValue in src/engine/candidate.ts agree. In the M07.5 shapes a plain invoke after the
  // unmatched plain closer is taken for the model's next call, though a sentinel parameter closer
  // that closes nothing follows it.
  const head = live(`<{D}tool_calls>\n<{D}invoke name="write">\n<{D}parameter name="filePath" string="true">notes.md</{D}parameter>\n<{D}parameter name="content" string="true">`);
  const tail = live(`</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`);
  const ran = (o: ReturnType<typeof outcome>) => o.calls.some((c) => c.tool === "bash" && c.input.command === "rm -rf x");
  const cut = (o: ReturnType<typeof outcome>) => o.calls.some((c) => c.tool === "write" && c.input.content !== undefined && !String(c.input.content).includes("rm -rf x"));

  test("mentioned mid-line with text after it, then a DSML example: the example runs", () => {
    const o = outcome(`${head}# Formats\nClaude-style values end with </parameter> tags.\nDeepSeek writes:\n${EXAMPLE_BLOCK}\n${tail}`);
    // Observed: bash {command: "rm -rf x"} runs, the write is refused (I04).
    expect(ran(o)).toBe(false);
  });

  test("mentioned in inline code: the same", () => {
    const o = outcome(`${head}# Formats\nClaude-style values end with \`</parameter>\`.\nDeepSeek writes:\n${EXAMPLE_BLOCK}\n${tail}`);
    expect(ran(o)).toBe(false);
  });

  test("mentioned at a line end, then a Claude-style example block: the write runs cut AND the example runs", () => {
    const example = `<function_calls>\n<invoke name="bash">\n<parameter name="command">rm -rf x</parameter>\n</invoke>\n</function_calls>`;
    const o = outcome(`${head}Close a value with </parameter>\n${example}\n${tail}`);
    // Observed: write {content: "Close a value with "} (M07) and bash {command: "rm -rf x"} (O07).
    expect(ran(o)).toBe(false);
    expect(cut(o)).toBe(false);
  });

  test("mentioned at a line end, then a plain invoke: the same (M07.5 read despite the sentinel closer after it)", () => {
    const o = outcome(`${head}Close a value with </parameter>\n<invoke name="bash">\n<parameter name="command">rm -rf x</parameter>\n</invoke>\n${tail}`);
    expect(ran(o)).toBe(false);
    expect(cut(o)).toBe(false);
  });

  test("control (passes today): without the mention the write runs whole and the example stays its text", () => {
    const content = `# Formats\nDeepSeek writes:\n${EXAMPLE_BLOCK}\n`;
    expect(outcome(`${head}${content}${tail}`).calls).toEqual([{ tool: "write", input: { filePath: "notes.md", content } }]);
  });

  test("control (passes today): the mention with no example after it is the content's text", () => {
    expect(outcome(`${head}Values end with </parameter>\nThat is all.\n${tail}`).calls).toEqual([
      { tool: "write", input: { filePath: "notes.md", content: "Values end with </parameter>\nThat is all.\n" } },
    ]);
  });
});

describe("other Claude/Qwen markup mentioned in a DSML value before a call example (same root as above)", () => {
  // Severity: wrong execution (high: the example's `rm -rf x` runs; with `</invoke>` the write runs
  // cut at the mention too). Each mention alone, with prose after it instead of the example, is
  // the content's text and the write runs whole today (plainMarkupValueEnds reaches the value's
  // own closer); only a sentinel example between the mention and that closer breaks it.
  // Suspected: src/parse/dialects/dsml/value-ends.ts plainMarkupValueEnds (the scan stops at the
  // example's first sentinel tag), walk.ts (the plain tag is then read as structure: it ends the
  // value (P01 for `</invoke>`), opens a plain parameter or invoke, and the example is read as a
  // fresh call by the restart rule), and the stream's candidate (src/engine/candidate.ts).
  const head = live(`<{D}tool_calls>\n<{D}invoke name="write">\n<{D}parameter name="filePath" string="true">notes.md</{D}parameter>\n<{D}parameter name="content" string="true">`);
  const tail = live(`</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`);
  const mentions: [string, string][] = [
    ["a plain invoke closer mid-line, text after it", "Claude calls end with </invoke> tags."],
    ["a Qwen function closer", "Qwen ends with </function>."],
    ["a plain parameter opener", 'Claude writes <parameter name="x"> for values.'],
    ["a plain invoke opener", 'Claude opens with <invoke name="bash"> and so on.'],
    ["a balanced plain parameter element", 'A value: <parameter name="x">v</parameter> like so.'],
  ];
  for (const [name, mention] of mentions) {
    test(`${name}: the example never runs, the write is never cut`, () => {
      const o = outcome(`${head}${mention}\n${EXAMPLE_BLOCK}\n${tail}`);
      // Observed: bash {command: "rm -rf x"} runs (and, for `</invoke>`, write {content: "Claude calls end with "}).
      expect(o.calls.some((c) => c.tool === "bash")).toBe(false);
      expect(o.calls.every((c) => c.tool !== "write" || c.input.content === `${mention}\n${EXAMPLE_BLOCK}\n`)).toBe(true);
    });
  }

  // Severity: wrong execution, arguable (medium). The value's own sentinel closer written mid-line
  // with text after it ends the value by the grammar, and the write is refused (I04) as it is with
  // prose instead of the example (control); but the example after it then runs as a fresh call,
  // though the sentinel `</{D}parameter>`, `</{D}invoke>` and `</{D}tool_calls>` after it close
  // nothing the example opened: they prove it sat in the write's value. Suspected: walk.ts restart
  // rule (restartAt / "next") with parse-span.ts, candidate.ts.
  test("a sentinel parameter closer mid-line with text after it, then the example: the example never runs", () => {
    const o = outcome(`${head}Values end with ${live("</{D}parameter>")} tags.\n${EXAMPLE_BLOCK}\n${tail}`);
    expect(o.calls).toEqual([]);
  });

  test("controls (pass today): the same mentions with prose instead of the example write the file whole", () => {
    for (const [, mention] of mentions) {
      const content = `${mention}\nThat is all.\n`;
      expect(outcome(`${head}${content}${tail}`).calls).toEqual([{ tool: "write", input: { filePath: "notes.md", content } }]);
    }
    expect(outcome(`${head}Values end with ${live("</{D}parameter>")} tags.\nThat is all.\n${tail}`).calls).toEqual([]);
  });

  test("hard negatives (pass today): `<tool_call>`, `<function_calls>`, a Cline element, a DSML invoke or block closer mid-line before the example", () => {
    for (const mention of ["Hermes opens with <tool_call> and so on.", "Claude blocks open with <function_calls>.", "Cline: <bash><command>ls</command></bash> like so.", live("End a call with </{D}invoke> then a newline."), live("Blocks end with </{D}tool_calls> tags.")]) {
      const content = `${mention}\n${EXAMPLE_BLOCK}\n`;
      expect(outcome(`${head}${content}${tail}`).calls).toEqual([{ tool: "write", input: { filePath: "notes.md", content } }]);
    }
  });
});

describe("a call example inside a DSML value that the example rule does not recognise", () => {
  const head = live(`<{D}tool_calls>\n<{D}invoke name="write">\n<{D}parameter name="filePath" string="true">notes.md</{D}parameter>\n<{D}parameter name="content" string="true">`);
  const tail = live(`</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`);

  // Severity: wrong execution (medium-high: a file written cut inside its example) plus lost text
  // (the write's own closers after the example are stripped as a recovered call's noise, D07).
  // The example is the tool-named form as models really write it (golden E29.1: `<{D}bash>`,
  // `<{D}command>`, closed by `</{D}parameter>` and `</{D}invoke>`). Its closers are taken for the
  // write's: the content ends inside the example and the write runs. The write's own
  // `</{D}parameter>`, `</{D}invoke>` and `</{D}tool_calls>` right after show the example was its
  // text; the same example closed by `</{D}bash>` (hard negative below) or a DSML invoke example is
  // written whole. Suspected: src/parse/example-in-value.ts exampleOpener (no I11 opener: a DSML
  // tag named after a declared tool), used by value-examples.ts exampleAt and src/engine/candidate.ts.
  test("an I11 example closed by `</{D}parameter>` and `</{D}invoke>`: the write is not cut inside it", () => {
    const example = live(`<{D}bash>\n<{D}command>rm -rf x</{D}parameter>\n</{D}invoke>`);
    const o = outcome(`${head}# Doc\n${example}\n${tail}`);
    // Observed: write {content: "# Doc\n<{D}bash>\n<{D}command>rm -rf x"}.
    expect(o.calls.every((c) => c.tool !== "write" || c.input.content === `# Doc\n${example}\n`)).toBe(true);
    expect(o.calls.some((c) => c.tool === "bash")).toBe(false);
  });

  // Severity: wrong execution, arguable (medium-low: it follows the documented P01 rule, a lone
  // invoke or block closer on its line ends the value; but the write's own three closers after
  // the example close nothing it opened and are discarded as noise). Observed: the write runs cut
  // ("# Doc\nCalls end with") and the example's `rm -rf x` runs. Expected: at least never the
  // example. Suspected: closer-ends-call.ts closerEndsCall (only a parameter closer right after the
  // lone closer counts against it), walk.ts closerInValue, candidate.ts.
  for (const [name, closer] of [["invoke", "</{D}invoke>"], ["block", "</{D}tool_calls>"]] as const) {
    test(`a lone ${name} closer on its line in the content, then a DSML example, then the write's own closers: the example never runs`, () => {
      const o = outcome(`${head}# Doc\nCalls end with\n${live(closer)}\n${EXAMPLE_BLOCK}\n${tail}`);
      expect(o.calls.some((c) => c.tool === "bash")).toBe(false);
    });
  }

  test("hard negatives (pass today): examples of other dialects inside the value are written whole", () => {
    const examples = [
      live(`<{D}bash>\n<{D}command>rm -rf x</{D}command>\n</{D}bash>`),
      "<bash>\n<command>rm -rf x</command>\n</bash>",
      "<tool_call>\n<function=bash>\n<parameter=command>\nrm -rf x\n</parameter>\n</function>\n</tool_call>",
      '<tool_call>\n{"name": "bash", "arguments": {"command": "rm -rf x"}}\n</tool_call>',
      '[TOOL_CALL] {tool => "bash", args => { --command "rm -rf x" }} [/TOOL_CALL]',
      '[TOOL_CALLS][{"name": "bash", "arguments": {"command": "rm -rf x"}}]',
      "[bash(command='rm -rf x')]",
      "<shell>rm -rf x</shell>",
      live('<{BAR}tool{SP}calls{SP}begin{BAR}><{BAR}tool{SP}call{SP}begin{BAR}>function<{BAR}tool{SP}sep{BAR}>bash\n```json\n{"command": "rm -rf x"}\n```<{BAR}tool{SP}call{SP}end{BAR}><{BAR}tool{SP}calls{SP}end{BAR}>'),
      '<|tool_calls_section_begin|><|tool_call_begin|>functions.bash:0<|tool_call_argument_begin|>{"command": "rm -rf x"}<|tool_call_end|><|tool_calls_section_end|>',
      "<tool_call><tool_name>execute</tool_name><tool_args><language>bash</language><code>rm -rf x</code></tool_args></tool_call>",
    ];
    for (const example of examples) {
      const content = `# Doc\n${example}\n`;
      expect(outcome(`${head}${content}${tail}`).calls).toEqual([{ tool: "write", input: { filePath: "notes.md", content } }]);
    }
  });
});

describe("a sentinel tag that is no structure of the call, mentioned in a DSML value before a call example", () => {
  // Severity: wrong execution (high: the example's `rm -rf x` runs). The mention alone (prose
  // instead of the example, control) is the content's text and the write runs whole; and the
  // span walk alone reads the whole input right (parseDsmlSpan gives one call, the write, for
  // `<{D}thinking>` and `<{D}bash>`), so the stream decides differently from its own parser.
  // Cause (read in the source): src/engine/candidate.ts SpanReader.plainInValue sets
  // `this.inValue = tag.role === "parameter" && !tag.closing` for EVERY sentinel tag, so a DSML tag
  // that is no structure (`<{D}thinking>`, `<{D}bash>`, `</{D}bash>`) inside an open value marks the
  // value closed; exampleFamily() then returns null, the example's opener is not taken for an
  // example but for the model starting over (restart), the write is cut off there and refused as
  // truncated, and the example is read as a fresh call. The walk (dialects/dsml/walk.ts) ignores
  // such a tag inside a value, hence the disagreement.
  const head = live(`<{D}tool_calls>\n<{D}invoke name="write">\n<{D}parameter name="filePath" string="true">notes.md</{D}parameter>\n<{D}parameter name="content" string="true">`);
  const tail = live(`</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`);
  const mentions: [string, string][] = [
    ["an unknown sentinel element", "Tag: <{D}thinking> x"],
    ["a tool-named sentinel opener (I11)", "Element: <{D}bash> opens I11."],
    ["a tool-named sentinel closer (I11)", "Closer: </{D}bash> ends I11."],
  ].map(([n, m]) => [n!, live(m!)]);
  for (const [name, mention] of mentions) {
    test(`${name}: the example never runs, the write runs whole`, () => {
      const content = `${mention}\n${EXAMPLE_BLOCK}\n`;
      const o = outcome(`${head}${content}${tail}`);
      // Observed: bash {command: "rm -rf x"} runs; the write is refused as truncated (S02).
      expect(o.calls).toEqual([{ tool: "write", input: { filePath: "notes.md", content } }]);
    });
  }

  // Severity: wrong execution, arguable (medium: the write is refused either way, as in the
  // control, but the example after the mention then runs though the write's own closers follow it).
  for (const [name, mention] of [["a self-closing invoke", 'A short invoke: <{D}invoke name="bash" /> works too.'], ["a whole sentinel parameter element", 'Typed: <{D}parameter name="x" string="false">1</{D}parameter> like so.']]) {
    test(`the write refused by ${name} mid-line: its example never runs`, () => {
      const o = outcome(`${head}${live(mention!)}\n${EXAMPLE_BLOCK}\n${tail}`);
      expect(o.calls.some((c) => c.tool === "bash")).toBe(false);
    });
  }

  // Same cause, worse shape (wrong execution, high: a truncated command or file runs, no example
  // needed): once inValue is reset, the closer rule (text after an invoke or block closer on its
  // line makes it the value's text, A40.n3-A40.n8) no longer protects the value, so a mid-line
  // `</{D}invoke>` or `</{D}tool_calls>` after such a tag ends the call (P01) and the rest of the
  // value and the call's own closers are stripped as noise and a fabricated result.
  test("bash: `<{D}bash>` then `</{D}invoke>` mid-line in the command: never run cut at the closer", () => {
    const command = live("grep -c '<{D}bash>' log || echo '</{D}invoke>' ; rm -rf build");
    const o = outcome(live(`<{D}tool_calls>\n<{D}invoke name="bash">\n<{D}parameter name="command" string="true">`) + command + tail);
    // Observed: bash {command: "grep -c '<{D}bash>' log || echo '"} (P01).
    expect(o.calls).toEqual([{ tool: "bash", input: { command } }]);
  });

  for (const closer of ["</{D}invoke>", "</{D}tool_calls>"]) {
    test(`write: \`<{D}thinking>\` then \`${closer}\` mid-line: the file is written whole`, () => {
      const content = live(`Tag <{D}thinking> then ${closer} in text.\nmore\n`);
      // Observed: write {content: "Tag <{D}thinking> then "} (P01).
      expect(outcome(`${head}${content}${tail}`).calls).toEqual([{ tool: "write", input: { filePath: "notes.md", content } }]);
    });
  }

  test("controls (pass today): each mention with prose instead of the example", () => {
    for (const [, mention] of mentions) {
      const content = `${mention}\nThat is all.\n`;
      expect(outcome(`${head}${content}${tail}`).calls).toEqual([{ tool: "write", input: { filePath: "notes.md", content } }]);
    }
  });
});

describe("the stream forgets an open DSML value after a prefix-less closer that is not `</parameter>`", () => {
  // Severity: wrong execution (high, realistic: a grep for both closers, a page about call
  // formats). A plain `</invoke>` (or an unmatched `</name>`) written mid-line in a DSML value with
  // text after it is the value's text (closer rule), and alone it is read so (control). But a
  // sentinel `</{D}invoke>` written mid-line later in the same value then ends the call: the
  // command runs as `grep -c '`, the file is written cut at the first closer, the rest stripped.
  // Cause (read in the source): src/engine/candidate.ts SpanReader.plainInValue treats every
  // prefix-less closer at plain depth 0 as the value's M07 closer (`this.inValue = false`), though
  // only `</parameter>` is one; with no value open the later `</{D}invoke>` is never weighed by the
  // closer rule (no `tentatively(DSML_VALUE)`), so the stream ends the span there and the walk reads
  // the cut span (P01). The walk over the whole input reads the whole value (compare the control).
  const head = live(`<{D}tool_calls>\n<{D}invoke name="write">\n<{D}parameter name="filePath" string="true">notes.md</{D}parameter>\n<{D}parameter name="content" string="true">`);
  const tail = live(`</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`);

  test("bash: `grep -c '</invoke>' a.xml && grep -c '</{D}invoke>' b.xml` runs whole, never as `grep -c '`", () => {
    const command = live("grep -c '</invoke>' a.xml && grep -c '</{D}invoke>' b.xml");
    const o = outcome(live(`<{D}tool_calls>\n<{D}invoke name="bash">\n<{D}parameter name="command" string="true">`) + command + tail);
    // Observed: bash {command: "grep -c '"} (P01).
    expect(o.calls).toEqual([{ tool: "bash", input: { command } }]);
  });

  for (const plain of ["</invoke>", "</name>"]) {
    test(`write: \`${plain}\` then \`</{D}invoke>\`, both mid-line: the page is written whole`, () => {
      const content = live(`Claude: ${plain} mid-line.\nDeepSeek: </{D}invoke> mid-line.\n`);
      // Observed: write {content: "Claude: "} (P01).
      expect(outcome(`${head}${content}${tail}`).calls).toEqual([{ tool: "write", input: { filePath: "notes.md", content } }]);
    });
  }

  test("controls (pass today): either closer alone mid-line is the page's text", () => {
    for (const line of ["Claude: </invoke> mid-line.\n", live("DeepSeek: </{D}invoke> mid-line.\n")]) {
      expect(outcome(`${head}${line}${tail}`).calls).toEqual([{ tool: "write", input: { filePath: "notes.md", content: line } }]);
    }
  });
});

describe("metamorphic: a call example appended to content the write writes whole never runs", () => {
  // Severity: wrong execution (high). The findings above, as one property: if a DSML write runs
  // with content C exactly as written, the same write with C + a complete DSML example + "\n" as
  // its content (closed by its own `</{D}parameter>`) must run with that content, or run nothing;
  // the example must never run. C is "v" and one or two fragments (a closer or opener of some
  // dialect, a non-structural sentinel tag, a fence, a comment) each followed by text on its line,
  // so no closer ends a line (the documented P01 shape is left out). Observed: the example runs
  // for ~40% of the contents that are written whole alone (fast-check prints a shrunk C, escaped).
  // Suspected: value-ends.ts plainMarkupValueEnds, value-examples.ts exampleAt, walk.ts restart, candidate.ts
  // plainInValue (see the describes above).
  const head = live(`<{D}tool_calls>\n<{D}invoke name="write">\n<{D}parameter name="filePath" string="true">a.md</{D}parameter>\n<{D}parameter name="content" string="true">`);
  const tail = live(`</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`);
  const FRAGMENTS = [
    "<{D}thinking>", "<{D}bash>", "</{D}bash>", "</{D}invoke>", "</{D}tool_calls>", "</parameter>", "</invoke>", "</function_calls>", "</function>", "</tool_call>", "<tool_call>",
    "<a>", "</a>", '<parameter name="x">', '<invoke name="bash">', "<function=bash>", "<function_calls>", "<name>", "</name>", "`", "<!--", "-->", "<br/>",
  ];
  const content = fc
    .array(fc.tuple(fc.constantFrom(...FRAGMENTS), fc.constantFrom(" text ", " ; y ", " text\n")), { minLength: 1, maxLength: 2 })
    .map((parts) => `v${parts.map(([f, t]) => f + t).join("")}\n`);

  test("write(C) runs whole => write(C + example) never runs the example", () => {
    fc.assert(
      fc.property(content, (notation) => {
        const c = live(notation);
        const alone = runAtEverySplit(head + c + tail, fixtureTools).calls;
        if (!(alone.length === 1 && alone[0]!.input.content === c)) return;
        const calls = runAtEverySplit(`${head}${c}${EXAMPLE_BLOCK}\n${tail}`, fixtureTools).calls;
        expect({ content: escaped(c), calls: calls.map((x) => x.tool) }).toEqual({ content: escaped(c), calls: calls.length === 0 ? [] : ["write"] });
      }),
      { seed: 45_2026, numRuns: 150 },
    );
    // A hang guard only (150 runs at every split take seconds on a loaded machine); nothing here is timed.
  }, 60_000);
});

describe("prose between a block opener and its invoke, after a stray DSML tag", () => {
  // Severity: lost text (medium-low: the prose vanishes, neither visible, nor an argument, nor a
  // reported stripped span; it could be anything, the model's explanation or what it meant as a
  // value). Without the stray closer the same prose stays visible and the invoke runs as B05
  // (control below).
  // Suspected: src/parse/dialects/dsml/walk.ts onText (text while no invoke is open is dropped,
  // never weighed by the verdict) together with the engine's candidate (src/engine/candidate.ts),
  // which after a stray `</{D}parameter>` (or `</parameter>`, or any other DSML element) keeps the prose inside the block's span
  // instead of releasing it as it does when the prose comes first.
  const rest = live(`<{D}invoke name="bash">\n<{D}parameter name="command" string="true">ls -la</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`);
  const prose = "I will delete the build folder now.";

  test("`</{D}parameter>` right after the block opener: the prose after it is not lost", () => {
    const input = live(`<{D}tool_calls>\n</{D}parameter>\n${prose}\n`) + rest;
    const r = runAtEverySplit(input, fixtureTools);
    // Observed: bash {command: "ls -la"} runs, text "" and nothing stripped: the prose is gone.
    expect(accountsForEveryCharacter(input, r)).toBe(true);
    expect(r.text + r.calls.map((c) => JSON.stringify(c.input)).join("")).toContain(prose);
  });

  for (const stray of ["</parameter>", "<{D}description>", "</{D}command>", "<{D}thinking>"]) {
    test(`the same after a stray \`${stray}\``, () => {
      const input = live(`<{D}tool_calls>\n${stray}\n${prose}\n`) + rest;
      expect(runAtEverySplit(input, fixtureTools).text).toContain(prose);
    });
  }

  test("control (passes today): without the stray closer the prose stays visible", () => {
    const input = live(`<{D}tool_calls>\n${prose}\n`) + rest;
    const r = runAtEverySplit(input, fixtureTools);
    expect(r.text).toContain(prose);
    expect(r.calls.map((c) => c.input)).toEqual([{ command: "ls -la" }]);
  });
});

describe("hard negatives (pass today)", () => {
  test("a parameter named twice refuses the call (P10), text kept", () => {
    const input = block(invoke("bash", param("command", "ls") + "\n" + param("command", "rm -rf x")));
    expect(outcome(input)).toEqual({ calls: [], broken: ["broken-markup"], text: input });
  });

  test("a block with a good and an undeclared invoke: the good one runs, the other is reported and stays visible", () => {
    const input = block(invoke("nope", param("x", "y")) + "\n" + invoke("bash", param("command", "ls")));
    const o = outcome(input);
    expect(o.calls).toEqual([{ tool: "bash", input: { command: "ls" } }]);
    expect(o.broken).toEqual(["undeclared-tool"]);
    expect(o.text).toContain(live(`<{D}invoke name="nope">`));
  });

  test("string=\"false\" that is not JSON for a number parameter refuses the call", () => {
    const input = block(invoke("read", param("filePath", "a") + param("offset", "1O", "false")));
    expect(outcome(input).calls).toEqual([]);
  });

  test("string=\"yes\" (no type hint) and a repeated string= attribute refuse the call", () => {
    expect(outcome(block(invoke("bash", param("command", "ls", "yes")))).calls).toEqual([]);
    expect(outcome(block(invoke("bash", `<{D}parameter name="command" string="true" string="false">ls</{D}parameter>`))).calls).toEqual([]);
  });

  test("a parameter opener naming another parameter inside a value, then closers: refused, never the inner value", () => {
    const input = block(invoke("write", `<{D}parameter name="content" string="true">doc:\n<{D}parameter name="filePath" string="true">/etc/passwd</{D}parameter>\n</{D}parameter>`));
    expect(outcome(input).calls).toEqual([]);
  });

  test("a value that is a whole DSML block is written, never executed; a CDATA section holding a closer is refused", () => {
    const input = block(invoke("write", param("filePath", "doc.md") + "\n" + param("content", `Example:\n${EXAMPLE_BLOCK}\nEnd.`)));
    const o = outcome(input);
    expect(o.calls).toEqual([{ tool: "write", input: { filePath: "doc.md", content: `Example:\n${EXAMPLE_BLOCK}\nEnd.` } }]);
    expect(outcome(block(invoke("bash", param("command", "<![CDATA[ls </{D}parameter> x]]>")))).calls).toEqual([]);
  });

  test("degraded sentinels (ASCII bars, U+2016, spaced, doubled) and CRLF still read the canonical call", () => {
    const canonical = `<{D}tool_calls>\n<{D}invoke name="bash">\n<{D}parameter name="command" string="true">ls</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`;
    for (const sentinel of ["|DSML|", "{DVL}DSML{DVL}", "{BAR}{BAR}DSML{BAR}{BAR}"]) {
      expect(outcome(live(canonical.replaceAll("{D}", sentinel))).calls).toEqual([{ tool: "bash", input: { command: "ls" } }]);
    }
    expect(outcome(live(canonical).replaceAll("\n", "\r\n")).calls).toEqual([{ tool: "bash", input: { command: "ls" } }]);
  });

  test("a self-closing parameter and a body parameter of the same name refuse the call", () => {
    const input = block(invoke("bash", `<{D}parameter name="command" value="ls" />\n` + param("command", "rm")));
    const r = runAtEverySplit(input, fixtureTools);
    expect(r.calls).toEqual([]);
    expect(accountsForEveryCharacter(input, r)).toBe(true);
  });
});
