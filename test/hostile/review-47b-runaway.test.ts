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

describe("a well-formed call whose value documents an unclosed parameter opener on a line of its own", () => {
  // FINDING 1 (high: wrong execution; regression of this round: main refused these calls).
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

  test("DSML bash: the command documenting a runaway workdir runs cut short in workdir '/'", () => {
    const input = `Writing the notes.\n${dsmlCall("bash", [param("command", heredoc), param("description", "notes")])}`;
    expectIntendedOrRefused(callsOf(input), { command: live(heredoc), description: "notes" });
  });

  test("DSML bash: the same with the documented opener indented (the indentation is left at the end of the cut command)", () => {
    const indented = `cat > notes.md <<'EOF'\n  <{D}parameter name="workdir" string="true">/\nEOF`;
    const input = `Writing the notes.\n${dsmlCall("bash", [param("command", indented), param("description", "notes")])}`;
    expectIntendedOrRefused(callsOf(input), { command: live(indented), description: "notes" });
  });

  test("DSML edit: a newString documenting a runaway replaceAll flag turns the edit into replace-all with a cut newString", () => {
    // All three required parameters were given, each closed. The newString's last line documents an
    // unclosed `replaceAll` opener; the walk reads it as the real flag: replaceAll true, newString cut.
    const newString = `A runaway flag looks like this:\n<{D}parameter name="replaceAll" string="false">true`;
    const input = `Editing the page.\n${dsmlCall("edit", [param("filePath", "docs/dsml.md"), param("oldString", "TODO: runaway example"), param("newString", newString)])}`;
    expectIntendedOrRefused(callsOf(input), { filePath: "docs/dsml.md", oldString: "TODO: runaway example", newString: live(newString) });
  });

  test("DSML write: content documenting a runaway filePath (no filePath given) writes the first line to the documented path", () => {
    // Medium (the model also forgot filePath; without the documentation line the call is refused
    // as missing a required parameter): the path the write goes to is one the page only quoted.
    const content = `# Runaway parameters\nA lost closer:\n<{D}parameter name="filePath" string="true">/etc/hosts`;
    const input = `Writing the page.\n${dsmlCall("write", [param("content", content)])}`;
    expect(callsOf(input)).toEqual([]);
  });

  test("Claude-style XML: the command documenting a runaway workdir runs cut short in workdir '/'", () => {
    const claudeHeredoc = `cat > notes.md <<'EOF'\nA runaway looks like:\n<parameter name="workdir">/\nEOF`;
    const input = `Writing the notes.\n<function_calls>\n<invoke name="bash">\n<parameter name="command">${claudeHeredoc}</parameter>\n<parameter name="description">notes</parameter>\n</invoke>\n</function_calls>`;
    expectIntendedOrRefused(callsOf(input), { command: claudeHeredoc, description: "notes" });
  });

  test("MiniMax XML (Claude-style invoke in minimax:tool_call): the same", () => {
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
  // FINDING (low: trust rule loosened). endsRunaway() reads the declared names from
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

  test("properties declared through allOf: the undeclared opener ends the runaway and the call runs with it", () => {
    expect(callsOf(input, [viaAllOf])).toEqual([]);
  });
});

describe("hard negatives (pass): line ends around a kept runaway", () => {
  const runaway = (eol: string) => `Run.${eol}${dsmlCall("bash", [param("workdir", "/tmp/s", false), param("command", "rm -rf ./*")])}`.replaceAll("\n", eol);
  for (const [name, eol] of [["LF", "\n"], ["CRLF", "\r\n"], ["lone CR", "\r"]] as const) {
    test(`${name}: the workdir is kept without its line end`, () => {
      expect(callsOf(runaway(eol))).toEqual([{ workdir: "/tmp/s", command: "rm -rf ./*" }]);
    });
  }
});
