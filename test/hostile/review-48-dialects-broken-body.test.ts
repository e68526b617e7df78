/**
 * Review 48: a `<tool_call>` whose body is a call object the strict JSON reader gives up on (a raw
 * line break inside a string, a trailing comma, a Python `True`, a `//` comment: what cheap models
 * write) is released as text at the first character JSON forbids; the rest of the still-open
 * wrapper is then read again as prose, and a code costume or a bare Qwen3-Coder function standing
 * at a line start inside the write's content string runs as a bash call. Every case runs whole,
 * char by char and at seeded random splits (test/support/outcome.ts). The same holds for
 * Qwen3-Coder and GLM bodies that break their structure early (further down).
 */
import { describe, expect, test } from "bun:test";
import { outcome } from "../support/outcome.ts";

/** A Hermes write whose content string holds raw line breaks (invalid JSON), closed by its wrapper. */
const hermesWrite = (content: string, tail = "\n</tool_call>") => `<tool_call>\n{"name":"write","arguments":{"filePath":"a.md","content":"${content}"}}${tail}`;
const runsBash = (input: string) => outcome(input).calls.some((c) => c.tool === "bash");

describe("fixed: a costume inside a Hermes write's content string runs once the JSON reader gives up", () => {
  // Severity: wrong execution (`rm -rf build` runs; the markup was the text of a file the model
  // meant to write, inside a `<tool_call>` wrapper that is still open and closes after it).
  // Suspected: src/engine/candidate.ts with src/parse/dialects/tool-call.ts (the Hermes branch
  // releases the candidate at the first character strict JSON forbids, here the raw line break)
  // and src/parse/costume-hold.ts / the line-start costume gate, which then read `<shell>` on its
  // own line as a fresh call. The engine itself reports the span broken-markup, yet the costume
  // inside that broken span runs. Expected: nothing runs (the write is broken-markup, its text
  // kept), as it is for a Claude-style or MiniMax example in the same place, and for the same
  // content under Mistral `[TOOL_CALLS]`, Kimi and the MiniMax bracket form (controls below).
  test("<shell> on its own lines inside the content (raw line breaks)", () => {
    const input = hermesWrite("Run:\n<shell>\nrm -rf build\n</shell>\n");
    expect(outcome(input).calls).toEqual([]);
  });

  test("the same with CRLF line ends", () => {
    const input = hermesWrite("Run:\n<shell>\nrm -rf build\n</shell>\n").replace(/\n/g, "\r\n");
    expect(outcome(input).calls).toEqual([]);
  });

  test("the same without the wrapper's closer (the reply ends after the object)", () => {
    expect(runsBash(hermesWrite("Run:\n<shell>\nrm -rf build\n</shell>\n", ""))).toBe(false);
  });

  test("<python> inside the content runs as python3 through bash", () => {
    expect(runsBash(hermesWrite("Run:\n<python>\nimport shutil; shutil.rmtree('build')\n</python>\n"))).toBe(false);
  });

  test("the element form <bash><command>…</command></bash> inside the content", () => {
    expect(runsBash(hermesWrite("Run:\n<bash>\n<command>rm -rf build</command>\n</bash>\n"))).toBe(false);
  });

  test("an HTML <pre><code class=\"language-bash\"> block inside the content (quotes left unescaped)", () => {
    expect(runsBash(hermesWrite('Run:\n<pre><code class="language-bash">rm -rf build</code></pre>\n'))).toBe(false);
  });

  test("a bare Qwen3-Coder <function=bash> inside the content", () => {
    expect(runsBash(hermesWrite("Run:\n<function=bash>\n<parameter=command>\nrm -rf build\n</parameter>\n</function>\n"))).toBe(false);
  });

  test("a Hermes example written unescaped inside the content (raw quotes and line breaks)", () => {
    const input = '<tool_call>\n{"name":"write","arguments":{"filePath":"a.md","content":"Page:\n<tool_call>\n{"name":"bash","arguments":{"command":"rm -rf build"}}\n</tool_call>\nend"}}\n</tool_call>';
    expect(runsBash(input)).toBe(false);
  });

  test("single-quoted Python-style object with raw line breaks", () => {
    const input = "<tool_call>\n{'name':'write','arguments':{'filePath':'a.md','content':'Run:\n<shell>\nrm -rf build\n</shell>\n'}}\n</tool_call>";
    expect(runsBash(input)).toBe(false);
  });

  test("GLM's name line then a JSON body with raw line breaks (no broken report at all)", () => {
    const input = '<tool_call>write\n{"filePath":"a.md","content":"Run:\n<shell>\nrm -rf build\n</shell>\n"}\n</tool_call>';
    expect(runsBash(input)).toBe(false);
  });

  test("Qwen3-Coder function whose body is a JSON object with raw line breaks", () => {
    const input = '<tool_call>\n<function=write>\n{"filePath":"a.md","content":"Run:\n<shell>\nrm -rf build\n</shell>\n"}\n</function>\n</tool_call>';
    expect(runsBash(input)).toBe(false);
  });
});

describe("fixed: the object broken before the costume, the wrapper still open around it", () => {
  // Severity: wrong execution, same source (src/engine/candidate.ts, src/parse/dialects/tool-call.ts).
  // The object fails JSON early (a trailing comma, a Python True, a // comment); the costume lines
  // inside the open `<tool_call>` then run, and nothing is reported broken. Expected: the open
  // wrapper keeps its inside from running (refused, or the whole span text); never bash.
  test("a trailing comma", () => {
    const input = '<tool_call>\n{"name":"write","arguments":{"filePath":"a.md","content":"x",}}\n<shell>\nrm -rf build\n</shell>\n</tool_call>';
    expect(runsBash(input)).toBe(false);
  });

  test("a Python True", () => {
    const input = '<tool_call>\n{"name":"write","arguments":{"filePath":"a.md","overwrite":True,"content":"x"}}\n<shell>\nrm -rf build\n</shell>\n</tool_call>';
    expect(runsBash(input)).toBe(false);
  });

  test("a valid object naming an undeclared tool (nothing reported)", () => {
    const input = '<tool_call>\n{"name":"nope","arguments":{"content":"x"}}\n<shell>\nrm -rf build\n</shell>\n</tool_call>';
    expect(runsBash(input)).toBe(false);
  });

  test("an object with a key given twice", () => {
    const input = '<tool_call>\n{"name":"write","arguments":{"filePath":"a","filePath":"b","content":"x"}}\n<shell>\nrm -rf build\n</shell>\n</tool_call>';
    expect(runsBash(input)).toBe(false);
  });

  test("a // comment", () => {
    const input = '<tool_call>\n{"name":"write", // the page\n"arguments":{"filePath":"a.md","content":"Run:\\n"}}\n<shell>\nrm -rf build\n</shell>\n</tool_call>';
    expect(runsBash(input)).toBe(false);
  });
});

describe("fixed: the same in Qwen3-Coder and GLM bodies that fail their structure early", () => {
  // Severity: wrong execution, same source (src/engine/candidate.ts "proves not to be one early",
  // src/parse/dialects/qwen.ts and tool-call.ts's GLM branch). A `<tool_call>` whose Qwen3-Coder
  // function or GLM pairs break before the content (a YAML body, `<parameter = NAME>`, a key of two
  // words, a misspelled `<arg_val>`) is released as text, nothing is reported, and the <shell>
  // lines of the write's content run. The Claude-style, MiniMax, Mistral, Kimi, LFM2 and element
  // forms refuse the same content (control below). Expected: no bash call.
  const shell = "<shell>\nrm -rf build\n</shell>";
  test("Qwen3-Coder function with a YAML body", () => {
    expect(runsBash(`<tool_call>\n<function=write>\nfilePath: a.md\ncontent: |\n${shell}\n</function>\n</tool_call>`)).toBe(false);
  });
  test("Qwen3-Coder `<parameter = content>` (spaces around =)", () => {
    expect(runsBash(`<tool_call>\n<function=write>\n<parameter = filePath>a.md</parameter>\n<parameter = content>\n${shell}\n</parameter>\n</function>\n</tool_call>`)).toBe(false);
  });
  test("GLM key of two words", () => {
    expect(runsBash(`<tool_call>write\n<arg_key>filePath</arg_key>\n<arg_value>a.md</arg_value>\n<arg_key>file content</arg_key>\n<arg_value>\n${shell}\n</arg_value>\n</tool_call>`)).toBe(false);
  });
  test("GLM value tag misspelled <arg_val>", () => {
    expect(runsBash(`<tool_call>write\n<arg_key>filePath</arg_key>\n<arg_value>a.md</arg_value>\n<arg_key>content</arg_key>\n<arg_val>\n${shell}\n</arg_val>\n</tool_call>`)).toBe(false);
  });
});

describe("hard negatives (pass today)", () => {
  test("the other forms refuse a broken body holding a costume, or read it as the write's content", () => {
    const shell = "<shell>\nrm -rf build\n</shell>";
    for (const input of [
      `<function_calls>\n<invoke name="write">\nfilePath: a.md\ncontent: |\n${shell}\n</invoke>\n</function_calls>`,
      `<minimax:tool_call>\n<invoke name="write">\n<parameter name="filePath">a.md</parameter>\n<param name="content">\n${shell}\n</param>\n</invoke>\n</minimax:tool_call>`,
      `[TOOL_CALLS]write[ARGS]{filePath: "a.md", content: "\n${shell}\n"}`,
      `<|tool_call_start|>[write(filePath="a.md", content=\n${shell}\n)]<|tool_call_end|>`,
      `<write>\n<filePath>a.md</filePath>\n<body>\n${shell}\n</body>\n</write>`,
    ]) {
      expect(runsBash(input)).toBe(false);
    }
  });

  test("the same content JSON-escaped is the write's text", () => {
    const input = '<tool_call>\n{"name":"write","arguments":{"filePath":"a.md","content":"Run:\\n<shell>\\nrm -rf build\\n</shell>\\n"}}\n</tool_call>';
    expect(outcome(input).calls).toEqual([{ tool: "write", input: { filePath: "a.md", content: "Run:\n<shell>\nrm -rf build\n</shell>\n" } }]);
  });

  test("the same raw content under Mistral, Kimi and the MiniMax bracket form: no call", () => {
    const content = "Run:\n<shell>\nrm -rf build\n</shell>\n";
    for (const input of [
      `[TOOL_CALLS]write[ARGS]{"filePath":"a.md","content":"${content}"}`,
      `<|tool_calls_section_begin|><|tool_call_begin|>functions.write:0<|tool_call_argument_begin|>{"filePath":"a.md","content":"${content}"}<|tool_call_end|><|tool_calls_section_end|>`,
      `[TOOL_CALL] {tool => "write", args => { --filePath "a.md" --content "${content}" }} [/TOOL_CALL]`,
    ]) {
      expect(outcome(input).calls).toEqual([]);
    }
  });

  test("a Claude-style or MiniMax example in the raw content: no call", () => {
    expect(runsBash(hermesWrite('Run:\n<function_calls>\n<invoke name=\\"bash\\">\n<parameter name=\\"command\\">rm -rf build</parameter>\n</invoke>\n</function_calls>\n'))).toBe(false);
    expect(runsBash(hermesWrite('Run:\n<minimax:tool_call>\n<invoke name=\\"bash\\">\n<parameter name=\\"command\\">rm -rf build</parameter>\n</invoke>\n</minimax:tool_call>\n'))).toBe(false);
  });
});
