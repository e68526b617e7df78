/**
 * Diff review 57a (hostile, tests only): the round's source diff (int57) in src/parse/legacy-args.ts
 * (string state in DeepSeek legacy / Kimi arguments) and src/parse/aliases.ts + costume.ts (costume
 * names after a namespace, camelCase). Outcomes run whole, char by char and at seeded random splits
 * (test/support/outcome.ts). Legacy DeepSeek markers are written in the notation and made live.
 *
 * Tried and found clean (no failing test): a quoted example with `\"`, `\\"`, `\u0022` in the
 * write's JSON; an example whose arguments hold (escaped) quotes after a lone end-token mention
 * (its arguments are then `{\"command\": ...}`, refused); single-quoted example arguments
 * (`{'command': ...}`, refused); Mistral `[CALL_ID]` in a fence, inline code, an indented block,
 * twice, or with an id that is not letters/digits/`_`/`-`; camelCase costume names against a
 * common tool list (OpenCode built-ins, github, filesystem, playwright, context7, jupyter MCP
 * servers): no over-refusal of `<python>`/`<shell>`/`<bash>`.
 */
import { describe, expect, test } from "bun:test";
import { live } from "../golden/notation.ts";
import { type Outcome, outcome } from "../support/outcome.ts";
import { fixtureTools } from "../golden/tools.ts";
import type { ToolSpec } from "../../src/parse/types.ts";

const kimiCall = (name: string, args: string) => `<|tool_call_begin|>functions.${name}:0<|tool_call_argument_begin|>${args}<|tool_call_end|>`;
const kimiSection = (calls: string) => `<|tool_calls_section_begin|>${calls}<|tool_calls_section_end|>`;
const legacyCall = (name: string, args: string) => live(`<{BAR}tool{SP}call{SP}begin{BAR}>${name}<{BAR}tool{SP}sep{BAR}>`) + args + live(`<{BAR}tool{SP}call{SP}end{BAR}>`);
const legacySection = (calls: string) => live(`<{BAR}tool{SP}calls{SP}begin{BAR}>`) + calls + live(`<{BAR}tool{SP}calls{SP}end{BAR}>`);
const LEGACY_CALL_END = live(`<{BAR}tool{SP}call{SP}end{BAR}>`);

const writeArgs = (content: string) => JSON.stringify({ filePath: "docs/calls.md", content });

/** The documented example never runs: either the write runs with its content as written, or nothing runs and the text is kept. */
function expectOnlyTheWrite(o: Outcome, input: string, content: string): void {
  expect(o.calls.filter((c) => c.tool !== "write")).toEqual([]);
  if (o.calls.length === 0) expect(o.text).toBe(input);
  else expect(o.calls).toEqual([{ tool: "write", input: { filePath: "docs/calls.md", content } }]);
}

describe("finding 1: an end token mentioned inside a string makes a later example in the same string run", () => {
  // FINDING (wrong execution). legacy-args.ts LegacyArgs.inValue: an end token inside a JSON
  // string with no example open is read as the call's own end (kept for R11.8, a value cut and
  // closed). A write whose content is a page on the format mentions the end token on its own
  // (`Calls end with <|tool_call_end|>.`) and then shows a whole example: the mention ends the
  // write (broken-markup), the string state is dropped (json = null), and the example's begin
  // token, still inside the write's string, is read as structure: the example runs. The write's
  // JSON is valid throughout. Any example whose arguments need no `"` runs (`{}`: a zero-argument
  // tool, e.g. OpenCode's todoread, an MCP `list_*`, `git_status`, a deploy/release tool).
  // Minimal input (Kimi): `<|tool_calls_section_begin|><|tool_call_begin|>functions.write:0
  //   <|tool_call_argument_begin|>{"filePath":"docs/calls.md","content":"Calls end with
  //   <|tool_call_end|>. Example: <|tool_call_begin|>functions.list_sessions:0
  //   <|tool_call_argument_begin|>{}<|tool_call_end|>"}<|tool_call_end|><|tool_calls_section_end|>`
  //   -> list_sessions({}) runs.
  // Suspected: src/parse/legacy-args.ts (inValue: the in-string end token with examples === 0 goes
  // to structure(), which clears the string state), mirrored by LEGACY_CALL / LEGACY_SECTION.
  // Expected: the example never runs. E.g. an end token in a string whose string then goes on
  // (its closing quote, the object's `}` and an end token outside strings follow) is the value's
  // text; or, after a call ended inside a string, the rest of that span up to the next end token
  // outside a string is refused with it (no restart inside it). R11.8 (a value cut and closed by
  // an end token with no closing quote after it) and a real call after a cut one may keep today's rule.
  // Fixed: an end token inside a string with no example open ends the call only when nothing but
  // spaces follows it on its line (a line break, another legacy token or the span's end); text
  // after it (`. Example: ...`) makes it the value's text, so the write reads on to its own end and
  // runs with its content as written (legacy-args.ts endTokenEnds; the stream holds the token by
  // SpanReader.tentatively, legacy.ts LEGACY_END_IN_VALUE). A call begun right after a call so cut
  // is weighed the same way at its own end token, so a mention followed at once by an example
  // (`with <end><begin>...<end>"}<end>`) runs nothing; a real call after a cut one still runs.
  const EXAMPLE = kimiCall("list_sessions", "{}");
  test("Kimi: a call-end mention, then an example, in one write's content", () => {
    const content = `Calls end with <|tool_call_end|>. Example: ${EXAMPLE}`;
    const input = kimiSection(kimiCall("write", writeArgs(content)));
    expectOnlyTheWrite(outcome(input), input, content);
  });
  test("Kimi: a section-end mention, then an example", () => {
    const content = `The section closes with <|tool_calls_section_end|>; a call looks like ${EXAMPLE}`;
    const input = kimiSection(kimiCall("write", writeArgs(content)));
    expectOnlyTheWrite(outcome(input), input, content);
  });
  test("DeepSeek V3.1 legacy: a call-end mention, then an example", () => {
    const content = `end token: ${LEGACY_CALL_END} e.g. ${legacyCall("list_sessions", "{}")}`;
    const input = legacySection(legacyCall("write", writeArgs(content)));
    expectOnlyTheWrite(outcome(input), input, content);
  });
});

describe("finding 1, hard negatives (pass)", () => {
  test("a write whose content holds only a whole example runs as the write", () => {
    const content = `Example: ${kimiCall("list_sessions", "{}")}`;
    const input = kimiSection(kimiCall("write", writeArgs(content)));
    expect(outcome(input).calls).toEqual([{ tool: "write", input: { filePath: "docs/calls.md", content } }]);
  });
  test("R11.8: a value cut and closed by the section end is refused, text kept", () => {
    const input = `<|tool_call_begin|>functions.bash:0<|tool_call_argument_begin|>{"command": "l<|tool_calls_section_end|>`;
    const o = outcome(input);
    expect(o.calls).toEqual([]);
    expect(o.text).toBe(input);
  });
  test("a real call after a call cut mid-string and closed still runs", () => {
    const input = kimiSection(kimiCall("bash", '{"command": "l') + kimiCall("list_sessions", "{}"));
    expect(outcome(input).calls).toEqual([{ tool: "list_sessions", input: {} }]);
  });
  test("after an end-token mention, an example with quoted arguments never runs (the write may)", () => {
    const content = `Calls end with <|tool_call_end|>. Example: ${kimiCall("bash", '{"command": "rm -rf ~/p"}')}`;
    const input = kimiSection(kimiCall("write", writeArgs(content)));
    expectOnlyTheWrite(outcome(input), input, content);
  });
  test("a mention followed at once by an example (no text between) runs nothing, text kept", () => {
    for (const sep of ["", " "]) {
      const content = `Calls end with <|tool_call_end|>${sep}${kimiCall("list_sessions", "{}")}`;
      const input = kimiSection(kimiCall("write", writeArgs(content)));
      expectOnlyTheWrite(outcome(input), input, content);
      const bare = kimiCall("write", writeArgs(content));
      expectOnlyTheWrite(outcome(bare), bare, content);
      const legacyContent = `end token: ${LEGACY_CALL_END}${sep}${legacyCall("list_sessions", "{}")}`;
      const legacy = legacySection(legacyCall("write", writeArgs(legacyContent)));
      expectOnlyTheWrite(outcome(legacy), legacy, legacyContent);
    }
  });
  test("a value cut then text on its line is refused whole, a later call in it included", () => {
    const input = `<|tool_call_begin|>functions.bash:0<|tool_call_argument_begin|>{"command": "l<|tool_call_end|> more ${kimiCall("list_sessions", "{}")}`;
    const o = outcome(input);
    expect(o.calls).toEqual([]);
    expect(o.text).toBe(input);
  });
  test("a value cut at a line's end: the real call on a later line still runs, the cut call's text kept", () => {
    const cut = `<|tool_call_begin|>functions.bash:0<|tool_call_argument_begin|>{"command": "l<|tool_call_end|>\n\nDone. `;
    const o = outcome(cut + kimiCall("list_sessions", "{}"));
    expect(o.calls).toEqual([{ tool: "list_sessions", input: {} }]);
    expect(o.text).toBe(cut);
  });
  test("a real call with quoted arguments right after a cut one runs", () => {
    const input = kimiSection(kimiCall("bash", '{"command": "l') + kimiCall("bash", '{"command": "ls -la"}'));
    expect(outcome(input).calls).toEqual([{ tool: "bash", input: { command: "ls -la" } }]);
  });
});

const PYTHON = "Checking the data in the sandbox.\n<python>\nimport os\nprint(os.listdir('/mnt/data'))\n</python>";
const SHELL = "Listing it.\n<shell>\nls -lah /mnt/data\n</shell>";
const CODE = { type: "object", properties: { code: { type: "string" } }, required: ["code"] };
const withTool = (name: string): ToolSpec[] => [...fixtureTools, { name, parameters: CODE } as ToolSpec];
const ranAsBash = (text: string, tools: readonly ToolSpec[]) => outcome(text, tools).calls.some((c) => c.tool === "bash");

describe("finding 2: a python sandbox named with `python` first or with a version digit takes no `<python>`", () => {
  // FINDING (wrong execution; a rule gap next to review 56/57's namespace rule). addressedElsewhere
  // (src/parse/costume.ts) asks namedAfterNamespace (src/parse/aliases.ts) only whether the
  // declared name ENDS in the costume name after a separator or a camelCase boundary. A Python
  // sandbox tool the request declares as `python_sandbox`, `PythonSandbox` (name first, as MCP
  // servers and e2b/Modal wrappers often spell it) or `run_python3` (a version digit) does not
  // count, so a `<python>` costume the model writes for that sandbox runs as the local bash
  // (`python3 - <<'PYEOF'`), on the user's machine, where `sandbox_python` / `sandboxPython` refuse.
  // Minimal input: tools [bash, python_sandbox]; text `<python>\nprint(1)\n</python>` -> bash runs.
  // Suspected: src/parse/aliases.ts namedAfterNamespace (suffix only), src/parse/costume.ts
  // addressedElsewhere.
  // Expected: a declared name holding the costume name as a whole word (`python` + separator or
  // camelCase boundary + more, or `python` + version digits) is addressed elsewhere too: no bash.
  // Fixed (the lead's decision): a costume name but `bash` is addressed to a declared or reserved
  // tool whose name holds it as a whole word anywhere (aliases.ts carriesName "costume": words split
  // at `_ . - / :`, lower-to-upper camelCase boundaries and letter/digit edges); no call, text
  // kept, the nudge naming the tool. The alias rule (execute_command -> bash) is unchanged.
  for (const name of ["python_sandbox", "PythonSandbox", "run_python3"]) {
    test(`<python> beside a declared ${name} does not run as bash`, () => {
      expect(ranAsBash(PYTHON, withTool(name))).toBe(false);
    });
  }
});

describe("finding 2, hard negatives (pass)", () => {
  test("sandbox_python, sandboxPython, executePython, e2bPython take <python>", () => {
    for (const name of ["sandbox_python", "sandboxPython", "executePython", "e2bPython", "mcp__e2b__run_python"]) expect(ranAsBash(PYTHON, withTool(name))).toBe(false);
  });
  test("a common tool list takes neither <python> nor <shell> from bash (no over-refusal)", () => {
    const common = ["github_create_issue", "createPullRequest", "playwright_browser_navigate", "browser_run_code", "context7_resolve-library-id", "resolveLibraryId", "filesystem_read_file", "readFile", "writeFile", "jupyter_execute_ipython", "executeCommand", "bashHistory", "CPython", "pythonic"];
    for (const name of common) {
      expect(ranAsBash(PYTHON, withTool(name))).toBe(true);
      expect(ranAsBash(SHELL, withTool(name))).toBe(true);
    }
  });
  test("a word that only contains or begins with `python` takes no <python> from bash", () => {
    for (const name of ["typhon", "CPython", "cpython_build", "pythonic", "pythonic_lint", "mypython", "ipython_kernel", "PYTHONIC"]) expect(ranAsBash(PYTHON, withTool(name))).toBe(true);
  });
  test("OpenCode's built-ins and common MCP tools leave <python> and <shell> to bash", () => {
    const builtins = ["read", "write", "edit", "glob", "grep", "list", "task", "webfetch", "todowrite", "todoread", "patch", "skill", "multiedit", "websearch", "codesearch"];
    const mcp = ["github_get_file_contents", "filesystem_list_directory", "filesystem_search_files", "playwright_browser_click", "browser_snapshot", "context7_get-library-docs", "get_library_docs", "list_issues"];
    for (const name of [...builtins, ...mcp]) {
      expect(ranAsBash(PYTHON, withTool(name))).toBe(true);
      expect(ranAsBash(SHELL, withTool(name))).toBe(true);
    }
  });
  test("the word anywhere: python first, in the middle, before digits, upper case; <shell> beside shellCheck (decision)", () => {
    for (const name of ["pythonVersion", "python-sandbox", "mcp:python:run", "run_python311", "RUN_PYTHON_CODE", "e2b.python.exec"]) expect(ranAsBash(PYTHON, withTool(name))).toBe(false);
    // The lead's rule holds for every costume name but bash: `shellCheck` holds the word `shell`, so a `<shell>` beside it is that tool's or nobody's.
    expect(ranAsBash(SHELL, withTool("shellCheck"))).toBe(false);
    expect(ranAsBash(PYTHON, withTool("shellCheck"))).toBe(true);
  });
});
