/**
 * Hostile review 47b: the new runaway rule (docs/PATTERNS.md "Runaway parameters (P03)"): a DSML or
 * Claude-style value whose closer was lost is KEPT up to the next parameter opener that starts its
 * line and names a declared parameter the call has not given yet. The walk cannot tell a lost closer
 * from a value that merely documents an unclosed parameter opener on a line of its own, so a
 * well-formed call (every closer written) whose value documents such an opener is now cut there and
 * runs with an argument the model never gave. On main the same input was refused (P03: the cut
 * value was required, so the call never ran). Each failing test says what is wrong, its severity
 * and the suspected file. Tests that pass are hard negatives kept on purpose.
 */
import { describe, expect, test } from "bun:test";
import type { LanguageModelV3CallOptions, LanguageModelV3FunctionTool, LanguageModelV3StreamPart, LanguageModelV3Usage } from "@ai-sdk/provider";
import { wrapLanguageModel } from "ai";
import { MockLanguageModelV3, convertArrayToReadableStream, convertReadableStreamToArray } from "ai/test";
import { repairMiddleware } from "../../src/adapters/middleware.ts";
import { parse } from "../../src/engine/parse.ts";
import type { ToolSpec } from "../../src/parse/types.ts";
import { live } from "../golden/notation.ts";
import { fixtureTools } from "../golden/tools.ts";
import { runAtEverySplit } from "../support/run-engine.ts";

/** One DSML parameter, closed unless `closed` is false. */
const param = (name: string, value: string, closed = true, hint = "true") => `<{D}parameter name="${name}" string="${hint}">${value}${closed ? `</{D}parameter>` : ""}`;
/** A DSML block with one invoke of `tool` over `params` (one a line). */
const dsmlCall = (tool: string, params: string[]) => live(`<{D}tool_calls>\n<{D}invoke name="${tool}">\n${params.join("\n")}\n</{D}invoke>\n</{D}tool_calls>`);

/** The inputs of the calls a reply comes to, the same whole, char by char and at seeded random splits. */
function callsOf(input: string, tools: readonly ToolSpec[] = fixtureTools): Record<string, unknown>[] {
  const viaParse = parse(input, tools).calls.map((c) => c.input);
  const viaStream = runAtEverySplit(input, tools).calls.map((c) => c.input);
  expect(viaStream).toEqual(viaParse);
  return viaParse;
}

/** Every call that ran is exactly `intended` (refusing it is acceptable; running it changed is not). */
function expectIntendedOrRefused(calls: Record<string, unknown>[], intended: Record<string, unknown>) {
  for (const input of calls) expect(input).toEqual(intended);
}

const usage: LanguageModelV3Usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };

/** The tool-call inputs the AI SDK middleware emits for `input` streamed in chunks of `size` characters, and the text it shows. */
async function viaMiddleware(input: string, size: number, tools: readonly ToolSpec[] = fixtureTools): Promise<{ calls: unknown[]; text: string }> {
  const deltas: LanguageModelV3StreamPart[] = [];
  for (let i = 0; i < input.length; i += size) deltas.push({ type: "text-delta", id: "t", delta: input.slice(i, i + size) });
  const parts: LanguageModelV3StreamPart[] = [
    { type: "stream-start", warnings: [] },
    { type: "text-start", id: "t" },
    ...deltas,
    { type: "text-end", id: "t" },
    { type: "finish", usage, finishReason: { unified: "stop", raw: "stop" } },
  ];
  const mock = new MockLanguageModelV3({ doStream: async () => ({ stream: convertArrayToReadableStream(parts) }) });
  const model = wrapLanguageModel({ model: mock, middleware: repairMiddleware({}) });
  const sdkTools = tools.map((t): LanguageModelV3FunctionTool => ({ type: "function", name: t.name, inputSchema: (t.parameters ?? { type: "object" }) as LanguageModelV3FunctionTool["inputSchema"] }));
  const params = { prompt: [{ role: "user", content: [{ type: "text", text: "write the notes" }] }], tools: sdkTools } as LanguageModelV3CallOptions;
  const out = await convertReadableStreamToArray((await model.doStream(params)).stream);
  const calls = out.flatMap((p) => (p.type === "tool-call" ? [JSON.parse(p.input) as unknown] : []));
  const text = out.map((p) => (p.type === "text-delta" ? p.delta : "")).join("");
  return { calls, text };
}

describe("a well-formed call whose value documents an unclosed parameter opener on a line of its own", () => {
  // Fixed (review 47b finding 1). The rule now: a value the next parameter opener reaches before its
  // own closer (a runaway, P03) refuses the call (broken-markup, P03), optional or required, wherever
  // that opener stands, in every tag dialect (DSML, Claude-style XML, MiniMax XML; Qwen3-Coder's
  // O02.4 too, tests below): a lost closer and a documented opener closed by the value's own closer
  // are the same tags and counts, so neither reading may run (src/parse/invoke-input.ts, the DSML
  // walk no longer keeps a runaway; src/parse/dialects/qwen.ts refuses a value the next opener ended).
  // What was wrong (FINDING 1, high: wrong execution; regression of this round: main refused these calls).
  // What is wrong: the model wrote a complete call, every closer present. Its value (a heredoc, a
  // page about tool-call markup) documents a runaway parameter: a line that is only
  // `<parameter name="workdir">/` (or `replaceAll` ... `true`), with no closer of its own. The DSML
  // walk reads that line as the next parameter opener ending a runaway value (P03), keeps the value
  // cut short before it (runawayRead), and the value's real closer then closes the documented
  // opener, so no stray closer is left for the G44.1 check to see. The call RUNS with the first
  // value cut short and an argument the model never gave (workdir "/\nEOF"; replaceAll true).
  // Expected: never run changed: either the value is kept whole (its own closer is there) or the
  // call is refused (as on main). One possible rule: a value ended by such an opener is kept only
  // when the closers that follow do not balance without it, i.e. refuse when the kept runaway's
  // successor is the LAST parameter and is closed by the closer that could have been the runaway's
  // own, or require the successor's value to hold no further line that the original would need.
  // Suspected: src/parse/dialects/dsml/walk.ts endsRunaway()/closeParam() (STRAY_AFTER_RUNAWAY only
  // sees a closer that closes nothing), and the Claude-style reader (src/parse/invoke-markup.ts).
  const heredoc = `cat > notes.md <<'EOF'\nA runaway looks like:\n<{D}parameter name="workdir" string="true">/\nEOF`;

  test("fixed: DSML bash: the command documenting a runaway workdir runs cut short in workdir '/'", () => {
    const input = `Writing the notes.\n${dsmlCall("bash", [param("command", heredoc), param("description", "notes")])}`;
    expectIntendedOrRefused(callsOf(input), { command: live(heredoc), description: "notes" });
  });

  test("fixed: DSML bash: the same with the documented opener indented (the indentation is left at the end of the cut command)", () => {
    const indented = `cat > notes.md <<'EOF'\n  <{D}parameter name="workdir" string="true">/\nEOF`;
    const input = `Writing the notes.\n${dsmlCall("bash", [param("command", indented), param("description", "notes")])}`;
    expectIntendedOrRefused(callsOf(input), { command: live(indented), description: "notes" });
  });

  test("fixed: DSML edit: a newString documenting a runaway replaceAll flag turns the edit into replace-all with a cut newString", () => {
    // All three required parameters were given, each closed. The newString's last line documents an
    // unclosed `replaceAll` opener; the walk reads it as the real flag: replaceAll true, newString cut.
    const newString = `A runaway flag looks like this:\n<{D}parameter name="replaceAll" string="false">true`;
    const input = `Editing the page.\n${dsmlCall("edit", [param("filePath", "docs/dsml.md"), param("oldString", "TODO: runaway example"), param("newString", newString)])}`;
    expectIntendedOrRefused(callsOf(input), { filePath: "docs/dsml.md", oldString: "TODO: runaway example", newString: live(newString) });
  });

  test("fixed: DSML write: content documenting a runaway filePath (no filePath given) writes the first line to the documented path", () => {
    // Medium (the model also forgot filePath; without the documentation line the call is refused
    // as missing a required parameter): the path the write goes to is one the page only quoted.
    const content = `# Runaway parameters\nA lost closer:\n<{D}parameter name="filePath" string="true">/etc/hosts`;
    const input = `Writing the page.\n${dsmlCall("write", [param("content", content)])}`;
    expect(callsOf(input)).toEqual([]);
  });

  test("fixed: Claude-style XML: the command documenting a runaway workdir runs cut short in workdir '/'", () => {
    const claudeHeredoc = `cat > notes.md <<'EOF'\nA runaway looks like:\n<parameter name="workdir">/\nEOF`;
    const input = `Writing the notes.\n<function_calls>\n<invoke name="bash">\n<parameter name="command">${claudeHeredoc}</parameter>\n<parameter name="description">notes</parameter>\n</invoke>\n</function_calls>`;
    expectIntendedOrRefused(callsOf(input), { command: claudeHeredoc, description: "notes" });
  });

  test("fixed: MiniMax XML (Claude-style invoke in minimax:tool_call): the same", () => {
    const doc = `cat > notes.md <<'EOF'\nA runaway looks like:\n<parameter name="workdir">/\nEOF`;
    const input = `Writing the notes.\n<minimax:tool_call>\n<invoke name="bash">\n<parameter name="command">${doc}</parameter>\n<parameter name="description">notes</parameter>\n</invoke>\n</minimax:tool_call>`;
    expectIntendedOrRefused(callsOf(input), { command: doc, description: "notes" });
  });

  test("hard negative (passes): the documented opener closed too leaves a closer that closes nothing, and the call is refused (G44.1)", () => {
    const closedDoc = `cat > notes.md <<'EOF'\n<{D}parameter name="workdir" string="true">/</{D}parameter>\nEOF`;
    const input = `Writing the notes.\n${dsmlCall("bash", [param("command", closedDoc), param("description", "notes")])}`;
    expect(callsOf(input)).toEqual([]);
  });

  test("hard negative (passes): the documented opener inside a quoted invoke example stays the value's text", () => {
    const example = `cat > n.md <<'EOF'\n<{D}invoke name="bash">\n<{D}parameter name="workdir" string="true">/\n</{D}invoke>\nEOF`;
    const input = `Writing the notes.\n${dsmlCall("bash", [param("command", example), param("description", "notes")])}`;
    expect(callsOf(input)).toEqual([{ command: live(example), description: "notes" }]);
  });
});

describe("the runaway rule's 'declared parameter' condition", () => {
  // Fixed (review 47b finding 7, moot): no runaway is kept any more, so whatever the schema declares
  // (properties written directly, through allOf or $ref) the runaway refuses the call; the test
  // asserts that refusal. What was wrong (FINDING 7, low: trust rule loosened). endsRunaway() reads the declared names from
  // `parameters.properties` only; a schema declaring its properties through allOf or $ref (which the
  // schema walk now follows, values.ts/schema-walk.ts) counts as "declaring no properties", so ANY
  // line-start opener ends the runaway, an undeclared name included, and the call runs with that
  // extra key (the gate lets it through when additionalProperties is not false). The same call with
  // the properties written directly is refused. Expected: the same verdict as the direct schema
  // (refused: `evil` is not declared). Suspected: src/parse/dialects/dsml/walk.ts endsRunaway().
  const direct: ToolSpec = { name: "bash", parameters: { type: "object", properties: { command: { type: "string" }, workdir: { type: "string" } }, required: ["command"] } };
  const viaAllOf: ToolSpec = { name: "bash", parameters: { type: "object", allOf: [{ properties: { command: { type: "string" }, workdir: { type: "string" } }, required: ["command"] }] } };
  const input = `Listing.\n${dsmlCall("bash", [param("command", "ls", false), param("evil", "x")])}`;

  test("control (passes): properties written directly, an undeclared opener does not end the runaway: refused", () => {
    expect(callsOf(input, [direct])).toEqual([]);
  });

  test("fixed: properties declared through allOf: the undeclared opener ends the runaway and the call runs with it", () => {
    expect(callsOf(input, [viaAllOf])).toEqual([]);
  });
});

describe("line ends around a runaway", () => {
  // Review 47b: these pinned the kept runaway (`workdir` kept up to the line-start `command` opener).
  // The rule now refuses every runaway (finding 1), so the same inputs are refused at every line end:
  // never run without the workdir, never with it cut from a reading the markup cannot prove.
  const runaway = (eol: string) => `Run.${eol}${dsmlCall("bash", [param("workdir", "/tmp/s", false), param("command", "rm -rf ./*")])}`.replaceAll("\n", eol);
  for (const [name, eol] of [["LF", "\n"], ["CRLF", "\r\n"], ["lone CR", "\r"]] as const) {
    test(`${name}: the runaway workdir refuses the call`, () => {
      expect(callsOf(runaway(eol))).toEqual([]);
      expect(parse(runaway(eol), fixtureTools).broken.map((b) => b.shape)).toEqual(["P03"]);
    });
  }
});

describe("review 47b finding 1: the refusal holds in every reading and every dialect", () => {
  const heredoc = `cat > notes.md <<'EOF'\nA runaway looks like:\n<{D}parameter name="workdir" string="true">/\nEOF`;
  const claudeDoc = `cat > notes.md <<'EOF'\nA runaway looks like:\n<parameter name="workdir">/\nEOF`;
  const cases: [string, string][] = [
    ["DSML", `Writing the notes.\n${dsmlCall("bash", [param("command", heredoc), param("description", "notes")])}`],
    ["Claude-style XML", `Writing the notes.\n<function_calls>\n<invoke name="bash">\n<parameter name="command">${claudeDoc}</parameter>\n<parameter name="description">notes</parameter>\n</invoke>\n</function_calls>`],
    ["MiniMax XML", `Writing the notes.\n<minimax:tool_call>\n<invoke name="bash">\n<parameter name="command">${claudeDoc}</parameter>\n<parameter name="description">notes</parameter>\n</invoke>\n</minimax:tool_call>`],
    ["Qwen3-Coder in <tool_call>", `Writing the notes.\n<tool_call>\n<function=bash>\n<parameter=command>\ncat > notes.md <<'EOF'\nA runaway looks like:\n<parameter=workdir>\n/\nEOF\n</parameter>\n<parameter=description>\nnotes\n</parameter>\n</function>\n</tool_call>`],
    ["Qwen3-Coder bare", `Writing the notes.\n<function=bash>\n<parameter=command>\ncat > notes.md <<'EOF'\nA runaway looks like:\n<parameter=workdir>\n/\nEOF\n</parameter>\n<parameter=description>\nnotes\n</parameter>\n</function>\n`],
  ];
  for (const [dialect, input] of cases) {
    test(`${dialect}: refused as broken markup (parse, whole, char by char, random splits), every character kept visible`, () => {
      expect(callsOf(input)).toEqual([]);
      const r = parse(input, fixtureTools);
      expect(r.broken.map((b) => b.reason)).toEqual(["broken-markup"]);
      expect(runAtEverySplit(input, fixtureTools).text).toBe(input);
    });
    test(`${dialect}: refused through the AI SDK middleware (chunks of 1, 7 and the whole reply), the text shown whole`, async () => {
      for (const size of [1, 7, input.length]) {
        const m = await viaMiddleware(input, size);
        expect(m.calls).toEqual([]);
        expect(m.text).toBe(input);
      }
    });
  }

  test("Qwen3-Coder: an edit whose newString documents a runaway replaceAll flag is refused, never replace-all", () => {
    const input = `Editing.\n<tool_call>\n<function=edit>\n<parameter=filePath>\ndocs/q.md\n</parameter>\n<parameter=oldString>\nTODO\n</parameter>\n<parameter=newString>\nA runaway flag:\n<parameter=replaceAll>\ntrue\n</parameter>\n</function>\n</tool_call>`;
    expect(callsOf(input)).toEqual([]);
  });

  test("hard negative: GLM reads a value to its first </arg_value>; a documented pair inside it re-opens <arg_value> and is refused", () => {
    const input = `Writing.\n<tool_call>bash\n<arg_key>command</arg_key>\n<arg_value>cat > n <<'EOF'\n<arg_key>workdir</arg_key>\n<arg_value>/\nEOF</arg_value>\n<arg_key>description</arg_key>\n<arg_value>notes</arg_value>\n</tool_call>`;
    expect(callsOf(input)).toEqual([]);
  });

  test("hard negative: P01 stays (the last value closed by the invoke closer is no runaway) in DSML and Claude-style XML", () => {
    expect(callsOf(`Listing.\n${dsmlCall("bash", [param("description", "list"), param("command", "ls -la", false)])}`)).toEqual([{ description: "list", command: "ls -la" }]);
    expect(callsOf(`Listing.\n<function_calls>\n<invoke name="bash">\n<parameter name="command">ls -la\n</invoke>\n</function_calls>`)).toEqual([{ command: "ls -la" }]);
  });

  test("hard negative: Qwen3-Coder's value ended by </function> (O02.5) still runs", () => {
    expect(callsOf(`<tool_call>\n<function=bash>\n<parameter=command>\nls\n</function>\n</tool_call>`)).toEqual([{ command: "ls" }]);
  });

  test("hard negative: Qwen3-Coder, the documented line-start opener closed too (two closers) is refused (G44.1)", () => {
    const doc = `cat > notes.md <<'EOF'\n<parameter=workdir>\n/\n</parameter>\nEOF`;
    const input = `<tool_call>\n<function=bash>\n<parameter=command>\n${doc}\n</parameter>\n</function>\n</tool_call>`;
    // workdir is declared and not given: the line-start opener ends the value (a runaway, refused), and the second closer closes nothing.
    expect(callsOf(input)).toEqual([]);
  });
});

describe("review 47b finding 8: a fullwidth bar before an ordinary word ends a P01 value as its text", () => {
  // The rule (src/parse/dialects/dsml/value-ends.ts): no whitespace inside a garbled closer; a bare
  // sentinel bar after a space or before an ordinary word is the value's text, kept whole.
  const page = (cell: string) => `Writing.\n${dsmlCall("write", [param("filePath", "t.md"), param("content", cell, false)])}`;
  for (const cell of ["| 名称 {BAR} parameters", "| 名称 {BAR}parameters", "| 名称{BAR}parameters", "| a {BAR}param"]) {
    test(`kept whole in parse, the engine's splits and the middleware: ${cell}`, async () => {
      const content = live(cell);
      expect(callsOf(page(cell))).toEqual([{ filePath: "t.md", content }]);
      for (const size of [1, 5]) expect((await viaMiddleware(page(cell), size)).calls).toEqual([{ filePath: "t.md", content }]);
    });
  }
  test("hard negative: the P02 spellings are still cut (`{BAR}>{BAR}parameter>`, `{BAR}param` glued)", async () => {
    for (const [cell, content] of [["beta{BAR}>{BAR}parameter>", "beta"], ["beta{BAR}param", "beta"]] as const) {
      expect(callsOf(page(cell))).toEqual([{ filePath: "t.md", content }]);
      expect((await viaMiddleware(page(cell), 3)).calls).toEqual([{ filePath: "t.md", content }]);
    }
  });
});
