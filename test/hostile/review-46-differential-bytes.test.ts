/**
 * Review 46 (differential, bytes changed): golden leaks with their bytes changed the way a
 * transport or a model changes them (lone CR line ends, a BOM or invisible character before a
 * tag, NBSP / fullwidth letters / zero-width characters / HTML entities inside a tag). Found by
 * the exploration behind review-46-differential-paths.test.ts (every golden fixture under 16 byte
 * mutations, compared with the unmutated fixture's expectation); each case here is reduced by hand.
 * Every path (parse, engine whole / char by char / random splits, middleware doStream and
 * doGenerate, fetch on chat, Anthropic and Responses) agreed on every mutated fixture, so these are
 * parser findings, not path findings: the failing cases are asserted on parse() and on the engine
 * fed char by char.
 */
import { describe, expect, test } from "bun:test";
import { parse } from "../../src/engine/parse.ts";
import { fixtureTools } from "../golden/tools.ts";
import { escaped, live } from "../golden/notation.ts";
import { everyChar, runEngine } from "../support/run-engine.ts";

type Got = { calls: { tool: string; input: unknown }[] };

function readings(text: string): { parse: Got; engineCharByChar: Got } {
  const whole = parse(text, fixtureTools);
  const chars = runEngine(text, everyChar(text.length), fixtureTools);
  return {
    parse: { calls: whole.calls.map((c) => ({ tool: c.tool, input: c.input })) },
    engineCharByChar: { calls: chars.calls.map((c) => ({ tool: c.tool, input: c.input })) },
  };
}

/** The commands of the bash calls every reading runs (the readings agree; checked). */
function bashCommands(text: string): unknown[] {
  const r = readings(text);
  expect(escaped(JSON.stringify(r.engineCharByChar))).toBe(escaped(JSON.stringify(r.parse)));
  return r.parse.calls.filter((c) => c.tool === "bash").map((c) => (c.input as { command?: unknown }).command);
}

// ------------------------------------------------------------------------------------------------
// Finding 1 (HIGH, wrong execution). An example call quoted inside the value of an outer call
// runs as a real call as soon as the outer invoke tag is one the parser cannot read: NBSP or a
// zero-width space in the tag, a fullwidth letter in its name (`<ｉnvoke`), entity-escaped
// attribute quotes (`name=&quot;write&quot;`), or simply another tag name (`<call name=...>`).
// The golden fixtures S02.9 / S02.16 / A45.3 / S02.5 refuse the example when the outer tag is
// readable; with it unreadable the example (`rm -rf x`, `rm -rf build`) runs, although it still
// sits after an open `<parameter name="content">` and before that value's closer, inside the
// `<function_calls>` / DSML block. Expected: the example does not run (the outer call is broken:
// nudge or passthrough). Suspected: src/parse (example-in-value refusal keys on a recognised
// outer invoke; an unreadable invoke line leaves the value opener/closer lines unaccounted for).
// Found by the byte-mutation sweep (mutations nbsp / fullwidthI / quotEnt over the golden set).
// ------------------------------------------------------------------------------------------------

const QWEN_EXAMPLE_IN_CLAUDE_WRITE = (invokeTag: string) =>
  `<function_calls>\n${invokeTag}\n<parameter name="filePath">calls.md</parameter>\n<parameter name="content">Example:\n<tool_call>\n<function=bash>\n<parameter=command>\nrm -rf x\n</parameter>\n</function>\n</tool_call>\n</parameter>\n</invoke>\n</function_calls>`;

describe("finding 1: an example inside the value of an outer call whose invoke tag is unreadable runs", () => {
  test("control (passes on main): the readable outer write keeps the example in its content (S02.9)", () => {
    expect(bashCommands(QWEN_EXAMPLE_IN_CLAUDE_WRITE('<invoke name="write">'))).toEqual([]);
  });

  const outerTags: [string, string][] = [
    ["NBSP between invoke and name", '<invoke\u00A0name="write">'],
    ["zero-width space after invoke", '<invoke\u200B name="write">'],
    ["fullwidth i in invoke", '<\uFF49nvoke name="write">'],
    ["entity-escaped attribute quotes", "<invoke name=&quot;write&quot;>"],
    ["another tag name (<call name=...>)", '<call name="write">'],
  ];
  for (const [name, tag] of outerTags) {
    test(`Claude write holding a Qwen3-Coder example, outer tag with ${name}: rm -rf x does not run`, () => {
      expect(bashCommands(QWEN_EXAMPLE_IN_CLAUDE_WRITE(tag))).toEqual([]);
    });
  }

  test("S02.16 with NBSP in the write's invoke tag: the example does not run beside the real ls", () => {
    const text = `<function_calls>\n<invoke\u00A0name="write">\n<parameter name="filePath">calls.md</parameter>\n<parameter name="content">Example:\n<tool_call>\n<function=bash>\n<parameter=command>\nrm -rf x\n</parameter>\n</function>\n</tool_call>\n</parameter>\n</invoke>\n<invoke name="bash">\n<parameter name="command">ls</parameter>\n</invoke>\n</function_calls>`;
    expect(bashCommands(text)).not.toContain("rm -rf x");
  });

  const A45_3 = (invoke: string) =>
    live(
      `<{D}tool_calls>\n${invoke}\n<{D}parameter name="filePath" string="true">a.md</{D}parameter>\n<{D}parameter name="content" string="true"># Doc\n<{D}bash>\n<{D}command>rm -rf x</{D}parameter>\n</{D}invoke>\n</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`,
    );
  test("control (passes on main): A45.3, the DSML write keeps the tool-named example in its content", () => {
    expect(bashCommands(A45_3('<{D}invoke name="write">'))).toEqual([]);
  });
  for (const [name, invoke] of [
    ["entity-escaped quotes", "<{D}invoke name=&quot;write&quot;>"],
    ["NBSP", '<{D}invoke\u00A0name="write">'],
    ["fullwidth i", '<{D}\uFF49nvoke name="write">'],
  ] as const) {
    test(`A45.3, DSML write invoke with ${name}: the tool-named example rm -rf x does not run`, () => {
      expect(bashCommands(A45_3(invoke))).toEqual([]);
    });
  }

  test("S02.5 with a fullwidth i in the write's invoke: the <pre><code> in its HTML content does not run", () => {
    const text = live(
      `<{D}tool_calls>\n<{D}\uFF49nvoke name="write">\n<{D}parameter name="filePath" string="true">docs/clean.html</{D}parameter>\n<{D}parameter name="content" string="true"><h1>Cleaning</h1>\n<pre><code class="language-bash">rm -rf build</code></pre>\n<{D}invoke name="read">\n<{D}parameter name="filePath" string="true">/a</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`,
    );
    expect(bashCommands(text)).toEqual([]);
  });

  test("S02.5 with its sentinel bars as box-drawing lookalikes (U+2502): the <pre><code> in the write's content does not run", () => {
    const text = live(
      `<{D}tool_calls>\n<{D}invoke name="write">\n<{D}parameter name="filePath" string="true">docs/clean.html</{D}parameter>\n<{D}parameter name="content" string="true"><h1>Cleaning</h1>\n<pre><code class="language-bash">rm -rf build</code></pre>\n<{D}invoke name="read">\n<{D}parameter name="filePath" string="true">/a</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`,
    ).replaceAll("\uFF5C", "\u2502");
    expect(bashCommands(text)).toEqual([]);
  });
});

// ------------------------------------------------------------------------------------------------
// Finding 2 (HIGH, wrong execution). A shell costume whose opener does not start its line
// (prose before it on the same line, or only an invisible BOM / ZWSP / WORD JOINER / NBSP) is not
// read as a costume, so the example costume quoted inside its heredoc (`<bash>rm -rf build</bash>`
// on its own line) runs by itself. The golden fixtures A40.19, A40.24, A40.26 and A44.4 refuse it
// when `<shell>` starts the line. Expected: the heredoc line does not run (the refusal must not
// depend on the outer opener starting its line). Suspected: src/parse costume reading (costume
// candidates found at line start only) together with src/engine's line-start hold.
// Found by the byte-mutation sweep (mutation bom: "\uFEFF" + fixture), then reduced by hand.
// ------------------------------------------------------------------------------------------------

const HEREDOC_WITH_EXAMPLE = "<shell>cat > doc.md <<'EOF'\nEnd the block with </shell> on its own line.\n<bash>rm -rf build</bash>\nEOF\n</shell>\n";

describe("finding 2: a costume opener that does not start its line lets its heredoc's example costume run", () => {
  test("control (passes on main): A40.19 as golden, nothing runs", () => {
    expect(bashCommands(HEREDOC_WITH_EXAMPLE)).toEqual([]);
  });
  test("control (passes on main): one space before <shell>, nothing runs", () => {
    expect(bashCommands(` ${HEREDOC_WITH_EXAMPLE}`)).toEqual([]);
  });
  for (const [name, prefix] of [
    ["prose on the same line", "Run this: "],
    ["a BOM", "\uFEFF"],
    ["a zero-width space", "\u200B"],
    ["a word joiner", "\u2060"],
    ["an NBSP", "\u00A0"],
  ] as const) {
    test(`A40.19 after ${name}: rm -rf build from inside the heredoc does not run`, () => {
      expect(bashCommands(prefix + HEREDOC_WITH_EXAMPLE)).not.toContain("rm -rf build");
    });
  }
  test("A40.26 after a BOM: only pwd runs, not the heredoc's rm -rf build", () => {
    const text = "\uFEFF<shell>cat <<'EOF'\nuse </shell> x\n<bash>rm -rf build</bash>\nEOF\n</shell> done\n<bash>\npwd\n</bash>\n";
    expect(bashCommands(text)).toEqual(["pwd"]);
  });
  test("A44.4 after prose on the same line: the heredoc's rm -rf build does not run", () => {
    const text = "Writing the doc: <shell>cat > doc.md <<'EOF'\nEnd with </shell> here.\n<bash>rm -rf build</bash>\nEOF\n</shell>\n\n<shell>\npwd\n</shell>\n";
    expect(bashCommands(text)).not.toContain("rm -rf build");
  });
});

// ------------------------------------------------------------------------------------------------
// Finding 3 (MEDIUM, wrong execution / wrong arguments). Lone CR line ends ("\r", a CommonMark
// line ending; classic-Mac text, some terminals' copy-paste) are not read as line ends by the
// rules that decide documentation and unreadable elements. With "\n" or "\r\n" every case below
// is right (golden Q29.4, R43.2, R43.4, R44.4, P09). Expected: "\r" behaves as "\n" does.
// Suspected: src/grammar / src/parse line splitting (split on "\n" only) and the value trim (the
// hug newline trimmed is "\n" / "\r\n", not a lone "\r").
// Found by the byte-mutation sweep (mutation cr: every "\n" replaced by "\r").
// ------------------------------------------------------------------------------------------------

const cr = (text: string) => text.replaceAll("\n", "\r");

describe("finding 3: lone CR line ends", () => {
  const Q29_4 = live(
    'I hit this with the model:\n\n  <{D}invoke name="bash">\n  <{D}parameter name="command" string="true">rm -rf build\n\nAny idea why? The </{D}parameter></{D}invoke> were missing.\n',
  );
  test("control (passes on main): Q29.4 with \\n and with \\r\\n, the quoted unclosed invoke does not run", () => {
    expect(bashCommands(Q29_4)).toEqual([]);
    expect(bashCommands(Q29_4.replaceAll("\n", "\r\n"))).toEqual([]);
  });
  test("Q29.4 with \\r: the invoke quoted in a bug report does not run rm -rf build", () => {
    expect(bashCommands(cr(Q29_4))).toEqual([]);
  });

  for (const [id, text] of [
    ["R43.2", '<bash>\n<command timeout="5">ls</command>\n</bash>'],
    ["R43.4", '<shell>\n<command timeout="5">ls</command>\n</shell>'],
    ["R44.4", '<pre><code class="language-bash">\n<command timeout="5">ls</command>\n</code></pre>'],
  ] as const) {
    test(`${id} with \\r: the unreadable parameter element is not sent to bash as a command`, () => {
      expect(bashCommands(text)).toEqual([]);
      expect(bashCommands(text.replaceAll("\n", "\r\n"))).toEqual([]);
      expect(bashCommands(cr(text))).toEqual([]);
    });
  }

  test("P09 with \\r (LOW): the line end hugging the value is trimmed as with \\n, not kept as \\r", () => {
    const P09 = live(
      '<{D}tool_calls>\n<{D}invoke name="write">\n<{D}parameter name="filePath" string="true">a.txt</{D}parameter>\n<{D}parameter name="content" string="true">\nline1\nline2\n</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>',
    );
    expect(parse(P09.replaceAll("\n", "\r\n"), fixtureTools).calls.map((c) => c.input)).toEqual([{ filePath: "a.txt", content: "line1\r\nline2" }]);
    expect(parse(cr(P09), fixtureTools).calls.map((c) => c.input)).toEqual([{ filePath: "a.txt", content: "line1\rline2" }]);
  });
});

// ------------------------------------------------------------------------------------------------
// Finding 5 (LOW, arguments differ by dialect). PATTERNS P08: a value "escaped throughout" (an
// entity and no raw `<`, `>` or bare `&`) is decoded; HTML costumes always, language tags never.
// DSML, Claude-style, MiniMax and tool-named invokes follow it (`make &amp;&amp; make test` runs
// `make && make test`), but the same value in Qwen3-Coder `<parameter=command>` and GLM
// `<arg_value>` reaches bash as `make &amp;&amp; make test` (which backgrounds make and runs a
// command `amp`). Neither dialect is listed as an exception. Expected: the XML-tag dialects read
// the value the same way (or PATTERNS lists them as exceptions and the fixtures say so).
// Suspected: src/parse readers for Qwen3-Coder / GLM values (no decodeEntitiesIfEscaped).
// Found by the byte-mutation sweep (mutation entities / quotEntities), reduced by hand.
// ------------------------------------------------------------------------------------------------

describe("finding 5: an entity-escaped value reads differently by dialect", () => {
  const V = "make &amp;&amp; make test";
  const commandOf = (text: string) => parse(text, fixtureTools).calls.map((c) => (c.input as { command?: unknown }).command);
  test("control (passes on main): DSML and Claude-style decode it (P08)", () => {
    expect(commandOf(live(`<{D}tool_calls>\n<{D}invoke name="bash">\n<{D}parameter name="command" string="true">${V}</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`))).toEqual(["make && make test"]);
    expect(commandOf(`<function_calls>\n<invoke name="bash">\n<parameter name="command">${V}</parameter>\n</invoke>\n</function_calls>`)).toEqual(["make && make test"]);
  });
  test("Qwen3-Coder <parameter=command>: the same value is decoded as well", () => {
    expect(commandOf(`<tool_call>\n<function=bash>\n<parameter=command>\n${V}\n</parameter>\n</function>\n</tool_call>`)).toEqual(["make && make test"]);
  });
  test("GLM <arg_value>: the same value is decoded as well", () => {
    expect(commandOf(`<tool_call>bash\n<arg_key>command</arg_key>\n<arg_value>${V}</arg_value>\n</tool_call>`)).toEqual(["make && make test"]);
  });
});

// ------------------------------------------------------------------------------------------------
// Finding 6 (MEDIUM-LOW, wrong execution). An NBSP (U+00A0) where a tag has its space hides a
// parameter element inside a costume from the refusal that golden R43.2 / R43.4 / R44.3 /
// C45.n1 make with an ASCII space: the element is sent to bash as the command
// (`<command\u00A0timeout="5">ls</command>`, which bash reads as redirections) or to read as the
// path (`a.ts</\u00A0filePath>\n<filePath>b`). A reader sees the same tag either way. Expected:
// refused as with the ASCII space (nudge broken-markup, or passthrough for C45.n1).
// Suspected: src/parse/costume-xml.ts / costume element-line checks (tag whitespace is ASCII only).
// Found by the byte-mutation sweep (mutation nbsp: every space replaced by U+00A0), reduced by hand.
// ------------------------------------------------------------------------------------------------

describe("finding 6: NBSP inside a parameter element in a costume", () => {
  for (const [id, text] of [
    ["R43.2", '<bash>\n<command timeout="5">ls</command>\n</bash>'],
    ["R43.4", '<shell>\n<command timeout="5">ls</command>\n</shell>'],
    ["R44.3", '<shell>\n# c\n<command timeout="5">ls</command>\n</shell>'],
  ] as const) {
    test(`${id} with an NBSP in <command timeout="5">: the element is not sent to bash`, () => {
      expect(bashCommands(text)).toEqual([]);
      expect(bashCommands(text.replace("<command timeout", "<command\u00A0timeout"))).toEqual([]);
    });
  }
  test("C45.n1 with an NBSP in the spaced closer: read does not run with the markup as its path", () => {
    const text = "<read>\n<filePath>a.ts</ filePath>\n<filePath>b</filePath>\n</read>";
    expect(parse(text, fixtureTools).calls).toEqual([]);
    expect(parse(text.replace("</ filePath>", "</\u00A0filePath>"), fixtureTools).calls.map((c) => c.input)).toEqual([]);
  });
});
