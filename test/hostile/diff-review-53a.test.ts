/**
 * Diff review 53a (hostile, tests only): the parse side of this round's fixes (costume-hold.ts
 * unclosedRereadAt, mistral.ts's second value). Each finding is a `test.failing` with its hard
 * negatives beside it (plain `test`, passing).
 */
import { describe, expect, test } from "bun:test";
import { outcome } from "../support/outcome.ts";

const TOKEN = "ZQXJ7";
const HERMES = `<tool_call>{"name":"bash","arguments":{"command":"echo ${TOKEN}"}}</tool_call>`;
const RAN = [{ tool: "bash", input: { command: `echo ${TOKEN}` } }];

describe("finding A (wrong execution): the mention re-read runs a call written inside a string the costume's code left open", () => {
  // What is wrong: unclosedRereadAt (src/parse/costume-hold.ts) reads the rest of a never-closed
  // mid-line costume again from the first blank line, and refuses to only where a shell heredoc
  // opened in the costume's code is still open there ("its body goes on over blank lines, and an
  // example written in it must not run"). A quoted string goes on over blank lines just the same:
  // a Python triple-quoted string (`'''`, `"""`) or a shell double- or single-quoted argument. A
  // reply cut off inside such a costume (`Running it now: <python>` then code, the `</python>`
  // never written) holds an example call in the string's body, and that example now runs; on main
  // it was refused as call markup inside the costume (text kept, a nudge).
  // Severity: wrong execution (a call the model wrote as data inside code runs), by the rule's own
  // heredoc reasoning. Realistic enough: a model writing a test fixture or a prompt string that
  // shows a tool call, in a costume that ends its line as C01.1-style "Running: <python>" does.
  // Minimal input: "Running it now: <python>\nprint('''\n\n" + HERMES + "\n''')\n"
  // Suspected source: src/parse/costume-hold.ts unclosedRereadAt (CostumeHeredocs shelters only
  // heredocs). Expected: nothing is read again where a string the costume's code opened (Python
  // `'''`/`"""`, a shell `"`/`'` quote) is still open at the blank line: the span keeps its old
  // outcome (refused, text kept). Or narrower: an inline opener that ends its own line (code lines
  // follow it) is no mention, as the `<pre>` rule already reads `- <pre>`.
  // Fixed: both rules (costume-hold.ts unclosedRereadAt, costume-quotes.ts): an opener other than
  // `<pre>` that ends its own line is a costume, never re-read; and nothing is re-read where a
  // string the code after the opener opened (Python `'''`/`"""`/`'`/`"`, shell `'`/`"`; one linear
  // quote scan that errs toward refusing) is open at the blank line or at a call's markup.
  const inString: [string, string][] = [
    ["<python> ending its line, a ''' string holding a blank line then the call", `Running it now: <python>\nprint('''\n\n${HERMES}\n''')\n`],
    ["<python> mid-sentence, a \"\"\" string holding a blank line then the call", `Use <python> now.\n\nimport os\nos.system("""\n\n${HERMES}\n""")\n`],
    ["<shell> ending its line, a double-quoted echo argument holding a blank line then the call", `Run: <shell>\necho "\n\n${HERMES}\n"\n`],
    ["<shell> ending its line, a single-quoted printf argument holding a blank line then the call", `Run: <shell>\nprintf '%s\\n' '\n\n${HERMES}\n'\n`],
  ];
  for (const [name, input] of inString) {
    test(`${name}: does not run`, () => {
      const o = outcome(input);
      expect(o.calls).toEqual([]);
      expect(o.text).toBe(input);
    });
  }

  // Each rule alone.
  test("rule 1 alone: <python> ending its line, no string, a blank line then the call: does not run", () => {
    const input = `Running it now: <python>\nx = 1\n\n${HERMES}\n`;
    const o = outcome(input);
    expect(o.calls).toEqual([]);
    expect(o.text).toBe(input);
  });
  test("rule 2 alone: a mid-line mention whose code opens a ' string past the blank line: does not run", () => {
    const input = `Use <shell> now.\n\necho '\n\n${HERMES}\n'\n`;
    const o = outcome(input);
    expect(o.calls).toEqual([]);
    expect(o.text).toBe(input);
  });

  // Hard negatives (pass): what the re-read must keep doing.
  // Changed by fix 54 (review 54 finding 3, review-54-rules-mention-reread.test.ts): the re-read
  // reads no code any more, so a quote after the opener refuses it even when it closes on the
  // mention's line (a string reader missed template literals, substitutions, comments). These
  // were "runs" hard negatives; they now hold (a missed call with a nudge, text kept).
  test("changed by fix 54: a mention whose \"\"\" and ' strings close before the blank line, then the call: held", () => {
    const input = `Use <python> as in print(\"\"\"a\"\"\", 'b').\n\n${HERMES}\n`;
    const o = outcome(input);
    expect(o.calls).toEqual([]);
    expect(o.text).toBe(input);
  });
  test("changed by fix 54: an escaped quote inside a closed string: held", () => {
    const input = `Use <shell> with echo "say \\"hi\\"" there.\n\n${HERMES}\n`;
    const o = outcome(input);
    expect(o.calls).toEqual([]);
    expect(o.text).toBe(input);
  });
  test("hard negative: a heredoc open at the blank line keeps the call from running (the rule's own shelter)", () => {
    const input = `Run: <shell>\ncat <<'EOF'\nx\n\n${HERMES}\nEOF\n`;
    const o = outcome(input);
    expect(o.calls).toEqual([]);
    expect(o.text).toBe(input);
  });
  test("hard negative: a plain mention, then a blank line, then the call: runs", () => {
    expect(outcome(`I will use the <python> tool.\n\n${HERMES}\n`).calls).toEqual(RAN);
  });
  test("changed by fix 54: a mention whose quotes close on its own line, then a blank line, then the call: held", () => {
    const input = `Use <shell> with echo "hi" there.\n\n${HERMES}\n`;
    const o = outcome(input);
    expect(o.calls).toEqual([]);
    expect(o.text).toBe(input);
  });
  test("hard negative: a <pre> closed by </PRE> keeps the call inside it text", () => {
    const input = `<pre>\nexample:\n\n${HERMES}\n</PRE>\n`;
    const o = outcome(input);
    expect(o.calls).toEqual([]);
    expect(o.text).toBe(input);
  });
  test("hard negative: a mention whose costume closes later (</shell>) keeps the call refused", () => {
    const o = outcome(`Use <shell> here.\n\n${HERMES}\n</shell>\n`);
    expect(o.calls).toEqual([]);
  });
  test("hard negative: a list item's <pre> never closed: the call inside the item stays text, one after the item runs", () => {
    expect(outcome(`- <pre>\n  x\n\n  ${HERMES}\n`).calls).toEqual([]);
    expect(outcome(`- <pre>\n  x\n\n${HERMES}\n`).calls).toEqual(RAN);
  });
});

const MISTRAL = `[TOOL_CALLS]bash[ARGS]{"command":"ls"}`;
const LS = [{ tool: "bash", input: { command: "ls" } }];

describe("finding B (missed call + nudge): after `[ARGS]{object}` a quoted phrase in the prose that follows refuses the call", () => {
  // What is wrong: MistralState's after-object phase (src/parse/dialects/mistral.ts) takes a `"`
  // after ANY arguments value once `[ARGS]` was read, over any whitespace including blank lines,
  // as a second double-encoded string. PATTERNS O06 (review 53) documents "a second arguments
  // object after the first, and a second value after a double-encoded string or after the list":
  // a string after an OBJECT is not in it, and a prose paragraph that starts with a quotation
  // (`"ls" lists the files.`) is no arguments value. The well-formed call is refused
  // (broken-markup). Worse, when the quotation does not close on that line the string phase runs
  // over every line end to the reply's end: the complete call is held to the reply's end and
  // refused as truncated-call.
  // Severity: missed call + nudge (lowest). Minimal input:
  //   [TOOL_CALLS]bash[ARGS]{"command":"ls"}\n\n"ls" lists the files.\n
  // Suspected source: src/parse/dialects/mistral.ts MistralState `after-object` (`c === DQ &&
  // this.argsToken` regardless of the first value's kind; the `string` phase not ending at a line
  // end). Expected: after an object, only `{` continues the span (as the doc says); a string
  // literal never spans a raw line end (JSON forbids one), so an unclosed quote ends the span at
  // the object.
  // Fixed: after an arguments OBJECT only a further `{` is a second value (PATTERNS O06); a `"` there
  // ends the call at the object (MistralState). After a double-encoded string a `"` or `{` is still a
  // second value (refused), and after the list a JSON opener.
  test("a paragraph opening with a quotation after the call: the call runs", () => {
    expect(outcome(`${MISTRAL}\n\n"ls" lists the files.\n`).calls).toEqual(LS);
  });
  test("an unclosed quotation after the call: the call runs (not held to the end as truncated)", () => {
    const o = outcome(`${MISTRAL} "ls lists the files.\n\nMore prose here.\n`);
    expect(o.calls).toEqual(LS);
    expect(o.broken).toEqual([]);
  });

  // Hard negatives (pass): the documented refusals.
  test("hard negative: a second arguments object after the first is refused", () => {
    const o = outcome(`${MISTRAL} {"command":"pwd"}`);
    expect(o.calls).toEqual([]);
    expect(o.broken).toEqual(["broken-markup"]);
  });
  test("hard negative: a second double-encoded string after the first is refused", () => {
    const o = outcome(`[TOOL_CALLS]bash[ARGS]"{\\"command\\":\\"ls\\"}" "x"`);
    expect(o.calls).toEqual([]);
    expect(o.broken).toEqual(["broken-markup"]);
  });
  test("hard negative: prose after the call runs it; a second [TOOL_CALLS] call runs too", () => {
    expect(outcome(`${MISTRAL}\n\nThat lists the files.\n`).calls).toEqual(LS);
    expect(outcome(`${MISTRAL}[TOOL_CALLS]bash[ARGS]{"command":"pwd"}`).calls).toEqual([...LS, { tool: "bash", input: { command: "pwd" } }]);
  });
  test("hard negative: after a double-encoded string a quotation or an object is still a second value (refused)", () => {
    for (const input of [String.raw`[TOOL_CALLS]bash[ARGS]"{\"command\":\"ls\"}"` + '\n\n"x"', String.raw`[TOOL_CALLS]bash[ARGS]"{\"command\":\"ls\"}" {"command":"pwd"}`]) {
      const o = outcome(input);
      expect(o.calls).toEqual([]);
      expect(o.broken).toEqual(["broken-markup"]);
    }
  });
  test("hard negative: after an object a blank line then a second object is still refused", () => {
    const o = outcome(`${MISTRAL}\n\n{"command":"pwd"}`);
    expect(o.calls).toEqual([]);
    expect(o.broken).toEqual(["broken-markup"]);
  });
  test("hard negative: a list then a footnote `[1]` or a task `- [x]` runs the list", () => {
    expect(outcome(`[TOOL_CALLS][{"name":"bash","arguments":{"command":"ls"}}]\n\n[1] note\n`).calls).toEqual(LS);
    expect(outcome(`[TOOL_CALLS][{"name":"bash","arguments":{"command":"ls"}}]\n- [x] done\n`).calls).toEqual(LS);
  });
});

const execute = (code: string, language = "sh") => `<tool_call><tool_name>execute</tool_name><tool_args><language>${language}</language><code>${code}</code></tool_args></tool_call>`;
const ran = (command: string) => [{ tool: "bash", input: { command } }];

describe("finding C (wrong execution): the XML execute costume still runs code with a `<!DOCTYPE ...>` read away", () => {
  // What is wrong: review 53 refuses a C01 span holding an XML comment, CDATA section or
  // processing instruction because the strict reader (fast-xml-parser) reads them away while the
  // tolerant reader keeps them, "so the code never runs with characters read away"
  // (src/parse/costume-xml.ts XML_MARKUP_DECLARATION = /<!--|<!\[CDATA\[|<\?[A-Za-z_:]/i). A
  // DOCTYPE declaration is the same kind of markup declaration and the strict reader drops it too:
  //   <code>echo '<!DOCTYPE html>' > a.html</code>          runs `echo '' > a.html`
  //   <code>sed -i '1i <!DOCTYPE html>' index.html</code>    runs `sed -i '1i ' index.html`
  //   <code>print("<!DOCTYPE html>")</code> (python)       runs `print("")`
  // while an unrelated `<` elsewhere in the code (` && test 1 < 2`) sends the span to the tolerant
  // reader, which keeps the DOCTYPE: the code run turns on an unrelated character, exactly the
  // review-53 bug. Writing an HTML page's first line is a common real shape.
  // Severity: wrong execution (a different command runs: a file written without its first line).
  // Minimal input: execute("echo '<!DOCTYPE html>' > a.html")
  // Suspected source: src/parse/costume-xml.ts XML_MARKUP_DECLARATION (misses `<!` + a letter:
  // DOCTYPE; `<!ELEMENT`/`<!ENTITY` are refused already, by another path). Expected: refused
  // (broken-markup, text kept) like C53.1/C53.2, or run with the DOCTYPE kept; never `echo ''`.
  // Fixed: a span the strict reader reads that holds `<!` + a letter (a DOCTYPE or any other markup
  // declaration) is refused (broken-markup, text kept); where the tolerant reader reads the span (a raw
  // `<` elsewhere, a heredoc's `<<`) the declaration is kept as written and the code runs whole.
  const dropped: [string, string, string][] = [
    ["echo of a DOCTYPE into a page", execute("echo '<!DOCTYPE html>' > a.html"), "echo '' > a.html"],
    ["sed inserting a DOCTYPE line", execute("sed -i '1i <!DOCTYPE html>' index.html"), "sed -i '1i ' index.html"],
    ["python printing a DOCTYPE", execute('print("<!DOCTYPE html>")', "python"), `python3 - <<'PYEOF'\nprint("")\nPYEOF`],
    ["mid-line (C01.1) echo of a DOCTYPE", `Running: ${execute("echo '<!DOCTYPE html>' > a.html")}`, "echo '' > a.html"],
  ];
  for (const [name, input, readAway] of dropped) {
    test(`${name}: never runs with the DOCTYPE read away`, () => {
      const o = outcome(input);
      expect(o.calls).not.toEqual(ran(readAway));
      // Refused whole (text kept), as C53.1 refuses a comment.
      expect(o.calls).toEqual([]);
      expect(o.broken).toEqual(["broken-markup"]);
    });
  }

  // Hard negatives (pass).
  test("hard negative: the same code with a `<` elsewhere runs with its DOCTYPE kept (tolerant reader)", () => {
    const code = "echo '<!DOCTYPE html>' > a.html && test 1 < 2";
    expect(outcome(execute(code)).calls).toEqual(ran(code));
  });
  test("hard negative: a DOCTYPE in a heredoc body runs kept", () => {
    const code = "cat > a.html <<EOF\n<!DOCTYPE html>\nEOF";
    expect(outcome(execute(code)).calls).toEqual(ran(code));
  });
  test("hard negative: a comment written as references (`&lt;!--`) is the code's own text and runs decoded", () => {
    expect(outcome(execute("echo '&lt;!-- x --&gt;' > a.html")).calls).toEqual(ran("echo '<!-- x -->' > a.html"));
  });
  test("hard negative: other markup declarations the strict reader would read (`<!doctype`, `<!ELEMENT`) are refused too", () => {
    for (const code of ["echo '<!doctype html>' > a.html", "echo '<!ELEMENT a ANY>' > a.dtd"]) {
      const o = outcome(execute(code));
      expect(o.calls).toEqual([]);
      expect(o.broken).toEqual(["broken-markup"]);
    }
  });
  test("hard negative: `<!` + a letter where the tolerant reader reads the span (a raw `<` elsewhere) runs kept", () => {
    for (const code of ["echo 'a<!b' && cat < x", "[ ! -f x ] && echo '<!DOCTYPE html>' > a.html && cat < /dev/null"]) {
      expect(outcome(execute(code)).calls).toEqual(ran(code));
    }
  });
  test("hard negative: C53.1's comment stays refused", () => {
    const o = outcome(execute("echo '<!-- note -->' > a.html"));
    expect(o.calls).toEqual([]);
    expect(o.broken).toEqual(["broken-markup"]);
  });
});
