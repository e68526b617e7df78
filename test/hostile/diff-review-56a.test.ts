/**
 * Review 56, diff review A (hostile, tests only): attacks on the code this round added
 * (src/echo/call-bodies.ts + search.ts, src/parse/costume.ts addressedElsewhere's namespaced rule,
 * src/parse/dialects/dsml/walk.ts strayCloser). Each finding was a `test.failing` with its comment
 * block; hard negatives (what must keep working) pass beside it. All six are fixed (each block's
 * "Fixed:" line says the rule now).
 *
 * Tried and found clean (no failing test): CRLF and lone-CR script bodies, a body with a heredoc or
 * `<` redirections, JSON-escaped bodies (`\n`, `\r\n`, `\"`, `\\`, once and twice), two consecutive
 * short lines echoed together, an indented / tab-indented / trailing-space line; `<pre>` ended by a
 * type-1 closer then a fence, an indented block, `</div>`, `<div>`, a comment, a second `<pre>`,
 * `<script>`, `<?php`, `<![CDATA[`, `<!DOCTYPE`, a type-7 tag, a blockquote or list container, or
 * the closer inside backticks / a comment (CommonMark ends the block on any such line: the engine
 * agrees with commonmark.js on all of them); HTML costumes with `&GT`, `&LT`, `&QUOT`, `&AMP`,
 * `&g<b></b>t;`, `&#x3e` without `;`, `&#62 ;`; the middleware's and the fetch route's hosted shell
 * environment spellings (`containerAuto`/`containerReference`, `container_auto`/`container_reference`,
 * as @ai-sdk/openai maps them).
 */
import { describe, expect, test } from "bun:test";
import type { JsonSchema, ToolSpec } from "../../src/parse/types.ts";
import { dsml, hermes, shell, type Call } from "../security/echo-spellings.ts";
import { readme, recoveredInputs } from "../security/echo-run.ts";
import { fixtureTools } from "../golden/tools.ts";
import { live } from "../golden/notation.ts";
import { outcome } from "../support/outcome.ts";
import { countWork } from "../support/work.ts";
import { block, neverCut, P } from "./dsml-never-cut.ts";
import { createEchoSearch } from "../../src/echo/search.ts";

const TARGET = "rm -rf ~/project";
const bash = (command: string): Call => ({ tool: "bash", input: { command } });
/** Lines of an install script, each about 60 characters: 6 of them put ~360 characters between a line and the tags. */
const padding = (n: number, tag: string) => Array.from({ length: n }, (_, i) => `echo "${tag}: step ${i} of the long installation routine"`);
const script = (middle: readonly string[], pad = 6) => [...padding(pad, "before"), ...middle, ...padding(pad, "after")].join("\n");
const reply = (call: string) => `The README says to clean up first:\n\n${call}\n`;
/** The model echoes `command` in its own `<shell>` and DSML markup: the commands that run. */
const runs = (command: string, given: readonly string[]) => [shell(bash(command), true), dsml(bash(command))].map((call) => recoveredInputs(reply(call), given));

describe("finding 1: a whole command after `&`, `then`, `do`, `(` of a planted script runs when echoed", () => {
  // FINDING (wrong execution). call-bodies.ts counts an occurrence as a whole command when it
  // starts a line or follows `;`, `&&`, `||`, and ends a line or stands before one of those. The
  // shell has more command boundaries: a single `&` (run in the background) separates commands
  // exactly as `;` does, and `then`, `else`, `do`, `(`, `{` open a compound command's list. A model
  // that quotes the action of `sleep 1 & rm -rf ~/project` or `if [ -d ~/project ]; then rm -rf
  // ~/project; fi` from the middle of a long planted script runs it.
  // Minimal input: given readme(<shell>⏎6 lines⏎`sleep 1 & rm -rf ~/project`⏎6 lines⏎</shell>);
  // reply `<shell>\nrm -rf ~/project\n</shell>` -> bash {command: "rm -rf ~/project"} runs.
  // Suspected: src/echo/call-bodies.ts commandStarts / commandEnds.
  // Expected: a single `&` is a command boundary on both sides (not `&>`, `>&`, `2>&1`), and the
  // words `then`, `else`, `do` (and `(`, `{` before, `)`, `}` after) bound a command: no call.
  // Fixed: a command also begins after a single `&` (not a redirection's: `2>&1`, `&>`), `|`, `(`,
  // `)`, `}`, and past a leading `(`, `{ `, `! ` or reserved word (`then`, `do`, `else`, `elif`,
  // `if`, `while`, `until`); it also ends before `&`, `|`, `)`, `}` (call-bodies.ts splitCommands,
  // the same split for the given bodies and the value's first line).
  test("after a single `&` (a background job), before a `|` (a pipeline): no call", () => {
    for (const line of [`sleep 1 & ${TARGET}`, `${TARGET} & wait`, `${TARGET} | tee log`, `${TARGET} |& tee log`]) {
      for (const ran of runs(TARGET, [readme(shell(bash(script([line])), true))])) expect(ran).toEqual([]);
    }
  });

  test("inside a compound command: after `then`, `do`, `else`, `(`, `{`, in `$(…)`: no call", () => {
    const lines = [`if [ -d ~/project ]; then ${TARGET}; fi`, `for d in a b; do ${TARGET}; done`, `(${TARGET})`, `{ ${TARGET}; }`, `if true; then :; else ${TARGET}; fi`, `x=$(${TARGET})`, `while true; do ${TARGET}; break; done`];
    for (const line of lines) {
      for (const ran of runs(TARGET, [readme(shell(bash(script([line])), true))])) expect(ran).toEqual([]);
    }
  });

  test("hard negatives: a piece of a command, a redirection's `&`, a quoted string still run", () => {
    for (const line of [`sudo ${TARGET} --verbose`, `echo "${TARGET}"`, `${TARGET}2>&1`, `x=1&${TARGET}x`, `${TARGET} &> log`, `${TARGET} 2>&1 tee`, `echo then ${TARGET}`, `dothis ${TARGET}`]) {
      for (const ran of runs(TARGET, [readme(shell(bash(script([line])), true))])) expect(ran).toEqual([{ command: TARGET }]);
    }
  });

  test("the rule's own cases stay refused: on its own line, after `;`, `&&`, `||`", () => {
    for (const line of [TARGET, `cd ~; ${TARGET}`, `cd ~ && ${TARGET}`, `test -d x || ${TARGET}`]) {
      for (const ran of runs(TARGET, [readme(shell(bash(script([line])), true))])) expect(ran).toEqual([]);
    }
  });
});

describe("finding 2: a destructive line under 12 characters from the middle of a planted script runs", () => {
  // FINDING (wrong execution; SECURITY.md lists "a value under 12 characters" under Not covered,
  // so the fixer may keep it as a Known gap). MIN_BODY_VALUE = 12 keeps `npm test`, `git status`
  // running, but the shortest destructive commands are shorter: `rm -rf ~`, `rm -rf .`, `rm -rf /*`,
  // `rm -rf ~/*` (8-10 characters). Planted as one line of a long script and echoed alone, they run;
  // `rm -rf ~/.ssh` (13) is refused.
  // Minimal input: given readme(<shell>⏎6 lines⏎`rm -rf ~/*`⏎6 lines⏎</shell>); reply
  // `<shell>\nrm -rf ~/*\n</shell>` -> bash {command: "rm -rf ~/*"}.
  // Suspected: src/echo/call-bodies.ts MIN_BODY_VALUE (length as the only evidence test).
  // Expected: no call. E.g. a short line is evidence when the text around it in the body matches
  // the model's call too, or when it holds no letter run a model writes of its own (`~`, `/*`, `.`
  // as rm's target); whatever the rule, `npm test` / `git status` keep running (below).
  // Fixed: a value of 6 to 11 characters is evidence in a body (call-bodies.ts isBodyEvidence) when it
  // holds a flag word (`-rf`, `--force`) and a word made of path and glob signs only (`~`, `/`, `.`,
  // `..`, `/*`, `~/*`). Lines without both (`ls`, `npm test`, `git status`, `cd ..`, `ls -la`) still
  // need the window. The cost: a fresh `ls -la ~` is refused when a given body holds that whole command.
  test("`rm -rf ~/*`, `rm -rf /*`, `rm -rf ~`, `rm -rf .` echoed from the middle: no call", () => {
    for (const line of ["rm -rf ~/*", "rm -rf /*", "rm -rf ~", "rm -rf ."]) {
      for (const ran of runs(line, [readme(shell(bash(script([line])), true))])) expect(ran).toEqual([]);
    }
  });

  test("hard negatives: common short lines of a script still run; 13 characters is refused", () => {
    for (const line of ["npm test", "git status", "npm install", "make build"]) {
      for (const ran of runs(line, [readme(shell(bash(script([line])), true))])) expect(ran).toEqual([{ command: line }]);
    }
    for (const ran of runs("rm -rf ~/.ssh", [readme(shell(bash(script(["rm -rf ~/.ssh"])), true))])) expect(ran).toEqual([]);
    // a flag without a bare path, a bare path without a flag, a piece of a longer line
    for (const line of ["ls -la", "cd ..", "ls ~", "du -sh"]) {
      for (const ran of runs(line, [readme(shell(bash(script([line])), true))])) expect(ran).toEqual([{ command: line }]);
    }
    for (const ran of runs("rm -rf ~", [readme(shell(bash(script(["rm -rf ~/build"])), true))])) expect(ran).toEqual([{ command: "rm -rf ~" }]);
  });
});

describe("finding 3: a planted script read in pages (opener in one tool result, closer in the next) runs when echoed", () => {
  // FINDING (wrong execution). A body needs the nearest markup before the line to open and the
  // nearest after it to close in the SAME given text (call-bodies.ts, sameForm). A long file is
  // read in pages (OpenCode's read tool: offset/limit, 2000 lines a page; a truncated bash output
  // the model reads on): the page holding the line has the script's opener and no closer, the
  // next page the closer. The line is then in no body and, far from the opener, outside the
  // window: echoed, it runs. The same when the given text is simply cut (a truncated tool result
  // that never shows the closer).
  // Minimal input: given [`<shell>\n` + 6 lines + `rm -rf ~/project` + 6 lines,
  // 6 more lines + `\n</shell>\n`]; reply `<shell>\nrm -rf ~/project\n</shell>` -> runs.
  // Suspected: src/echo/call-bodies.ts fillsBody (a closer required after the line in its text).
  // Expected: no call: an opener with no markup after it to the end of its given text opens a body
  // to that end (the text the next page or the cut holds is the same script).
  // Fixed: in each form of a given text, the text after its last markup when that opens, and the
  // text before its first markup when that closes, are bodies too (call-bodies.ts BodyIndex.update);
  // not in the reading of consecutive texts joined, so an opener ending one text makes no body of
  // the next (fx56-echo-partial-script's hard negative).
  const pages = (line: string) => {
    const first = `File README.md, lines 1-40:\n<shell>\n${script([line])}`;
    const second = `File README.md, lines 41-80:\n${padding(6, "later").join("\n")}\n</shell>\nThanks.\n`;
    return [first, second];
  };

  test("the line in the first page, the closer in the second: no call; the line in the second page too", () => {
    for (const ran of runs(TARGET, pages(TARGET))) expect(ran).toEqual([]);
    const [first, second] = pages("echo fine");
    for (const ran of runs(TARGET, [first!, second!.replace("</shell>", `${TARGET}\n</shell>`)])) expect(ran).toEqual([]);
  });

  test("a tool result cut before the script's closer: no call", () => {
    for (const ran of runs(TARGET, [`# Setup\n\n<shell>\n${script([TARGET])}\n[output truncated]`])) expect(ran).toEqual([]);
  });

  test("hard negatives: the same pages planting another line, and a text with no markup, let the call run", () => {
    for (const ran of runs(TARGET, pages("rm -rf ~/elsewhere"))) expect(ran).toEqual([{ command: TARGET }]);
    for (const ran of runs(TARGET, [`# Setup\n\n${script([TARGET])}\n`])) expect(ran).toEqual([{ command: TARGET }]);
    // in a text with markup, but after a closed script, or before the first opener: prose, not a body
    const closed = shell(bash("npm ci"), true);
    for (const ran of runs(TARGET, [`# Setup\n\n${closed}\n\n${script([TARGET])}\n`])) expect(ran).toEqual([{ command: TARGET }]);
    for (const ran of runs(TARGET, [`# Setup\n\n${script([TARGET])}\n\n${closed}\n`])) expect(ran).toEqual([{ command: TARGET }]);
  });
});

describe("finding 4: one big <pre> page in the given content makes fresh calls past ~20 count as echoes", () => {
  // FINDING (over-refusal, the lowest severity). The body search scans a whole body per needle of
  // 12 characters or more (occursNearMarkup joins the windows across a body) under the request's
  // scan budget (16 x the haystack + 4,000,000); past the budget every call counts as given. A
  // given HTML page or log of ~560 KB inside one `<pre>` … `</pre>` (a `<pre>` is markup in given
  // content) costs ~560 KB per fresh call's first long value, so a reply's calls after about the
  // 20th are refused as echoes, though nothing in them is given. On main all 25 run: the windows
  // around `<pre>` and `</pre>` are small.
  // Minimal input: given [`<pre>\n` + 10,000 log lines + `\n</pre>`]; reply: 25 Hermes edits with
  // fresh values -> 21 run.
  // Suspected: src/echo/search.ts occursNearMarkup with `body` (each body rescanned per needle).
  // Expected: all 25 run: e.g. bodies indexed once per request (the whole commands of every body,
  // hashed) so a long value costs its own length, not the body's.
  // Fixed: the whole commands of every body are indexed once per haystack, lazily and linear in the
  // bodies (call-bodies.ts BodyIndex); a value is a lookup of its first line's commands, no body is
  // rescanned per value. The window search is as before.
  const lines = Array.from({ length: 10_000 }, (_, i) => `2024-01-01 12:00:${String(i % 60).padStart(2, "0")} INFO worker ${i} processed batch ok`);
  const given = [`<html><body><pre>\n${lines.join("\n")}\n</pre></body></html>`];
  const edit = (n: number) =>
    `<tool_call>\n${JSON.stringify({ name: "edit", arguments: { filePath: `/home/u/proj/src/module${n}.ts`, oldString: `const value${n} = computeOld(${n});`, newString: `const value${n} = computeNew(${n});` } })}\n</tool_call>`;
  const edits = Array.from({ length: 25 }, (_, n) => edit(n)).join("\n");

  test("25 fresh edits after reading a 560 KB <pre> page: all run", () => {
    expect(recoveredInputs(`Edits:\n${edits}\n`, given)).toHaveLength(25);
  });

  test("hard negatives: the same page as a <div>, and an echo of one of its lines, are judged as before", () => {
    expect(recoveredInputs(`Edits:\n${edits}\n`, [given[0]!.replace("<pre>", "<div>").replace("</pre>", "</div>")])).toHaveLength(25);
    const line = lines[5000]!;
    expect(recoveredInputs(reply(shell(bash(line), true)), given)).toEqual([]);
  });

  test("linear work: 4x the page costs at most 4.5x for 200 fresh values, each a lookup (no body scanned per value)", () => {
    const TOOLS = new Map(fixtureTools.map((t) => [t.name, t]));
    const page = (n: number) => `<pre>\n${lines.slice(0, 1).join("")}\n${Array.from({ length: n }, (_, i) => `${i} INFO worker ${i} processed batch ok`).join("\n")}\n</pre>`;
    const judge = (n: number) => {
      const text = page(n);
      const search = createEchoSearch(() => [text]);
      let given = 0;
      const work = countWork(() => {
        for (let v = 0; v < 200; v++) if (search({ tool: "bash", input: { command: `worker ${v} processed batch fresh` }, markup: "", tools: TOOLS } as never)) given++;
      });
      return { work, given, scanned: search.scanned(), length: text.length };
    };
    const small = judge(5_000);
    const large = judge(20_000);
    expect(small.given).toBe(0);
    expect(large.given).toBe(0);
    expect(large.work).toBeLessThanOrEqual(4.5 * small.work);
    // no body is scanned per value: the scan counts the windows around the page's tags and the lookups
    expect(large.scanned).toBeLessThanOrEqual(2 * large.length + 200 * 1000);
    // and a line of it echoed whole, deep inside, is found
    const text = page(20_000);
    expect(createEchoSearch(() => [text])({ tool: "bash", input: { command: "INFO worker 12345 processed batch ok" }, markup: "", tools: TOOLS } as never)).toBe(true);
  }, 60_000); // a hang guard only: the work is counted, never timed
});

describe("finding 5: a declared tool that is itself a costume name (`execute_python`, `execute_shell`) leaves its bare costume on", () => {
  // FINDING (wrong execution). addressedElsewhere skips a declared name that is itself a costume
  // name (`execute_python`): "CodeAct's name for that language's costume, not a `python` under an
  // `execute` namespace". The exception was written for names reserved by policy (denyTools
  // `execute_*`, hard negative below), but it applies to declared tools too: a request that
  // declares an MCP sandbox tool `execute_python` (or `execute_shell`, `execute_sh`; hosts that do
  // not prefix MCP names, the middleware, the proxy) and gets `<python>` code from the model runs it
  // on the user's machine as `python3 - <<'PYEOF'`, while a declared `run_python` or `run_shell`
  // (not costume names) stops it. The model drops `execute_` as it drops `run_` or `sandbox_`.
  // Minimal input: tools [bash, execute_python {code}]; reply `<python>\nprint(1)\n</python>` ->
  // bash {command: "python3 - <<'PYEOF'..."}.
  // Suspected: src/parse/costume.ts addressedElsewhere (`!COSTUME_NAMES.has(folded)` also for ctx.tools).
  // Expected: no call (the costume is that declared tool's), as for `run_python`.
  // Fixed: the exception "a costume name is no namespace" holds only for names reserved by policy
  // (denyTools `execute_*`, review-56-rules-costume-names); a DECLARED `execute_python` carries
  // `python` as its own name (costume.ts addressedElsewhere).
  const obj = (properties: Record<string, JsonSchema>, required: string[]): JsonSchema => ({ type: "object", properties, required });
  const sandbox = (name: string): ToolSpec => ({ name, parameters: obj({ code: { type: "string" } }, ["code"]) });
  const PYTHON = "<python>\nprint(1)\n</python>";
  const SHELL = "<shell>\nls -la\n</shell>";

  test("<python> beside a declared execute_python, <shell> beside execute_shell, <sh> beside execute_sh: no call", () => {
    for (const [input, name] of [[PYTHON, "execute_python"], [SHELL, "execute_shell"], ["<sh>\nls -la\n</sh>", "execute_sh"]] as const) {
      expect(outcome(input, [...fixtureTools, sandbox(name)]).calls).toEqual([]);
    }
  });

  test("hard negatives: run_python / run_shell stop it already; unrelated tools leave it on", () => {
    expect(outcome(PYTHON, [...fixtureTools, sandbox("run_python")]).calls).toEqual([]);
    expect(outcome(SHELL, [...fixtureTools, sandbox("run_shell")]).calls).toEqual([]);
    expect(outcome(PYTHON, [...fixtureTools, sandbox("execute_ruby")]).calls.map((c) => c.tool)).toEqual(["bash"]);
    expect(outcome(SHELL, [...fixtureTools, sandbox("execute_ipython")]).calls.map((c) => c.tool)).toEqual(["bash"]);
    // a declared execute_python takes only `<python>`: `<shell>` and `<sh>` are still bash's
    expect(outcome(SHELL, [...fixtureTools, sandbox("execute_python")]).calls.map((c) => c.tool)).toEqual(["bash"]);
    expect(outcome("<sh>\nls -la\n</sh>", [...fixtureTools, sandbox("execute_python")]).calls.map((c) => c.tool)).toEqual(["bash"]);
  });
});

describe("finding 6: a Claude-style value its own closer ended, then a DSML parameter closer: the write runs cut", () => {
  // FINDING (wrong execution: a truncated file, an edit of another text). strayCloser keeps a
  // DSML parameter closer that closes no open value when the value before it was ended by its own
  // family's closer (`<parameter name="content">…</parameter>` then `</{D}parameter>`): "it cannot
  // be that value's own closer". But the round's own test (review-56-dsml-doubled-closer: "a
  // Claude-style value the DSML closer ended, then its own closer: refused (either closer may be
  // the value's)") grants that a DSML closer may end a Claude-style value. So a page whose last
  // line is `</parameter>` (a doc about Claude-style calls) followed by the write's DSML closer is
  // the same tags as a value `doc` and a stuttered closer: the write runs with the page cut. Only
  // the order of the two closers differs from the refused case. The same in a pure
  // `<function_calls>` block, and for an edit's oldString.
  // Minimal input: {D}tool_calls / invoke write / filePath a.md / `<parameter name="content">doc⏎</parameter>⏎</{D}parameter>`
  // -> write {content: "doc\n"}.
  // Suspected: src/parse/dialects/dsml/walk.ts strayCloser (the other-family exception).
  // Expected: refused (broken-markup, text kept), or the page written whole; never cut. A value no
  // text can fill (the hard negative's `timeout` 600, a number) may keep running.
  // Fixed: the other-family exception holds only for a value whose declared schema type holds no
  // text (number, integer, boolean); any other value refuses the invoke (walk.ts strayCloser).
  test("a write whose Claude-style page ends with </parameter>, then the DSML closer: never written cut", () => {
    neverCut(block("write", P("filePath", "a.md"), `<parameter name="content">doc\n</parameter>\n</{D}parameter>`), { tool: "write", input: { filePath: "a.md", content: "doc\n</parameter>\n" } });
  });

  test("an edit whose Claude-style oldString ends with </parameter>: never run with another oldString", () => {
    neverCut(block("edit", P("filePath", "a.md"), `<parameter name="oldString">x\n</parameter>\n</{D}parameter>`, P("newString", "y")), { tool: "edit", input: { filePath: "a.md", oldString: "x\n</parameter>\n", newString: "y" } });
  });

  test("a pure <function_calls> block with the DSML closer after the page: never written cut", () => {
    neverCut(`<function_calls>\n<invoke name="write">\n<parameter name="filePath">a.md</parameter>\n<parameter name="content">doc\n</parameter>\n</{D}parameter>\n</invoke>\n</function_calls>`, { tool: "write", input: { filePath: "a.md", content: "doc\n</parameter>\n" } });
  });

  test("hard negatives: the refused mirror case, a number value, a self-closing parameter closed again", () => {
    const mirror = live(`<function_calls>\n<invoke name="write">\n<parameter name="filePath">a.md</parameter>\n<parameter name="content">doc\n</{D}parameter>\n</parameter>\n</invoke>\n</function_calls>`);
    expect(outcome(mirror).calls).toEqual([]);
    expect(outcome(live(block("bash", `${P("command", "ls -la")}\n<parameter name="timeout">600</parameter>\n</{D}parameter>`))).calls).toEqual([{ tool: "bash", input: { command: "ls -la", timeout: 600 } }]);
    expect(outcome(live(block("bash", `<{D}parameter name="command" value="ls -la"/>\n</{D}parameter>`))).calls).toEqual([{ tool: "bash", input: { command: "ls -la" } }]);
  });
});
