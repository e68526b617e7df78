/**
 * Review 56 (hostile, tests only): round 55's namespaced-name rule (src/parse/aliases.ts
 * namespacedAliases) stops an alias (`execute_command` -> bash) when a declared name carries it
 * after a namespace separator (`remote_execute_command`, `mcp__remote__execute_command`). The code
 * costumes are the same kind of re-targeting (a `<python>`, `<execute_ipython>` or `<tool_call>`
 * `run_code` costume runs as the local `bash`), and review 50 reserves a costume name the request
 * declares exactly (`python`), but the namespaced spelling of that same name is not read: the
 * costume still runs locally. Every case runs whole, char by char and at seeded random splits
 * (test/support/outcome.ts).
 *
 * Tried and found clean (no failing test): the alias rule with `___`, `::`, `.`, `-`, `/`
 * separators; the written name in another case (`Execute_Command`) is undeclared anyway;
 * camelCase (`remoteExecuteCommand`), upper case (`REMOTE_EXECUTE_COMMAND`), a hyphen look-alike
 * (U+2010) or `@`, `|`, `+`, `~` before the name leave the alias on (no real host spells an MCP
 * tool so while keeping the bare name; not pinned as findings).
 */
import { describe, expect, test } from "bun:test";
import type { JsonSchema, ToolSpec } from "../../src/parse/types.ts";
import { fixtureTools } from "../golden/tools.ts";
import { outcome } from "../support/outcome.ts";
import { randomCuts, runEngine } from "../support/run-engine.ts";
import { countWork } from "../support/work.ts";
import { fn, names, requestBody, run } from "./review-55-request-support.ts";

/** The engine's run of `input` whole, char by char and at seeded random splits, with `reservedNames`. */
const splits = (input: string, tools: readonly ToolSpec[], reservedNames: string[] = []) =>
  [[], Array.from({ length: input.length - 1 }, (_, i) => i + 1), ...[1, 2, 3].map((seed) => randomCuts(input.length, seed))].map((cuts) => runEngine(input, cuts, tools, { reservedNames }));

const obj = (properties: Record<string, JsonSchema>, required: string[]): JsonSchema => ({ type: "object", properties, required });
const sandbox = (name: string): ToolSpec => ({ name, parameters: obj({ code: { type: "string" } }, ["code"]) });
const with_ = (...extra: ToolSpec[]) => [...fixtureTools, ...extra];

const PYTHON = "Let me check in the sandbox.\n<python>\nimport os\nprint(os.listdir('.'))\n</python>";
const IPYTHON = "<execute_ipython>\nimport os\nprint(os.listdir('.'))\n</execute_ipython>";
const RUN_CODE = "<tool_call><tool_name>run_code</tool_name><tool_args><language>python</language><code>print(1)</code></tool_args></tool_call>";
const INTERPRETER = '<code_interpreter lang="python">\nprint(2)\n</code_interpreter>';

describe("a code costume named after a declared namespaced tool runs as the local bash", () => {
  // FINDING (wrong execution). The request declares an MCP code sandbox under its host's
  // namespace: OpenCode names MCP tools `<server>_<tool>` (the Jupyter MCP server's
  // `execute_ipython` as `jupyter_execute_ipython`, the E2B server's `run_code` as `e2b_run_code`),
  // Claude Code style hosts `mcp__<server>__<tool>`. The model drops the prefix, as round 55 says
  // models do, and writes the costume under the tool's bare name: `<execute_ipython>`, `<python>`
  // (for `sandbox_python`), `<tool_call><tool_name>run_code`. The bare name declared exactly is
  // addressed to that tool (review 50: `python` declared, `<python>` refused, passes below); the
  // namespaced one is not, so the code the model meant for the remote sandbox runs on the user's
  // machine as `python3 - <<'PYEOF'` under bash. The alias table got exactly this rule in round
  // 55 (a declared name ending in the alias after `_ __ . - / :`); the costume names did not.
  // Minimal input: tools [bash, jupyter_execute_ipython]; reply
  //   `<execute_ipython>\nprint(1)\n</execute_ipython>` -> bash {command: "python3 - <<'PYEOF'..."}.
  // Suspected: src/parse/costume.ts addressedElsewhere (exact names only, ctx.tools and
  // reservedNamesOf); src/parse/aliases.ts namespacedAliases covers TOOL_ALIASES only.
  // Expected: a costume name (codeCostumeNames, but the runner's own `bash`) that a declared or
  // reserved name carries after a namespace separator is addressed to that tool as the exact name
  // is: no call (broken-markup or undeclared-tool naming it), text kept.
  // Fixed: src/parse/costume.ts addressedElsewhere asks aliases.ts namedAfterNamespace (the one
  // rule round 55 gave the aliases) of every declared and reserved name, in any case as costume
  // names are read, for every costume name but the runner's own `bash`: the costume is then that
  // tool's (the nudge names it: "call jupyter_execute_ipython with its own parameters"), the text
  // is kept, nothing runs. One pass over the names, a fixed number of reads each.
  test("<execute_ipython> beside jupyter_execute_ipython (OpenCode) and mcp__jupyter__execute_ipython (Claude Code)", () => {
    for (const name of ["jupyter_execute_ipython", "mcp__jupyter__execute_ipython"]) {
      expect(outcome(IPYTHON, with_(sandbox(name)))).toEqual({ calls: [], broken: ["broken-markup"], text: IPYTHON });
      // The correction names the sandbox the code was meant for.
      for (const r of splits(IPYTHON, with_(sandbox(name)))) expect(r.summary.broken.map((b) => b.tool)).toEqual([name]);
    }
  });

  test("a reserved namespaced name (declared, left out by policy) stops it too: no call, text kept, the nudge naming it", () => {
    for (const r of splits(IPYTHON, fixtureTools, ["mcp__jupyter__execute_ipython"])) {
      expect(r.calls).toEqual([]);
      expect(r.text).toBe(IPYTHON);
      expect(r.summary.broken.map((b) => [b.reason, b.tool])).toEqual([["undeclared-tool", "mcp__jupyter__execute_ipython"]]);
    }
  });

  test("the declared name is read in any case, as the costume's own is: Jupyter_Execute_IPython", () => {
    expect(outcome(IPYTHON, with_(sandbox("Jupyter_Execute_IPython"))).calls).toEqual([]);
    expect(outcome("<PYTHON>\nprint(1)\n</PYTHON>", with_(sandbox("sandbox-Python"))).calls).toEqual([]);
  });

  test("<python> beside sandbox_python, mcp__jupyter__python, jupyter.python", () => {
    for (const name of ["sandbox_python", "mcp__jupyter__python", "jupyter.python"]) {
      expect(outcome(PYTHON, with_(sandbox(name))).calls).toEqual([]);
    }
  });

  test("a <tool_call> costume naming run_code beside e2b_run_code", () => {
    expect(outcome(RUN_CODE, with_(sandbox("e2b_run_code"))).calls).toEqual([]);
  });

  test("<code_interpreter> beside mcp__e2b__code_interpreter", () => {
    expect(outcome(INTERPRETER, with_(sandbox("mcp__e2b__code_interpreter"))).calls).toEqual([]);
  });

  test("through the fetch adapter (Responses, chat): <execute_ipython> beside jupyter_execute_ipython is not run as bash", async () => {
    for (const wire of ["chat", "responses"] as const) {
      const body = requestBody(wire, [fn(wire, "bash"), fn(wire, "jupyter_execute_ipython", { type: "object", properties: { code: { type: "string" } }, required: ["code"] })]);
      expect(names((await run(wire, body, IPYTHON)).calls)).toEqual([]);
    }
  });

  describe("hard negatives (pass on main)", () => {
    test("the exact declared name is addressed to that tool already (review 50)", () => {
      expect(outcome(IPYTHON, with_(sandbox("execute_ipython"))).calls).toEqual([]);
      expect(outcome(PYTHON, with_(sandbox("python"))).calls).toEqual([]);
      expect(outcome(RUN_CODE, with_(sandbox("run_code"))).calls).toEqual([]);
    });

    test("an unrelated namespaced tool leaves the costumes on: they run as bash", () => {
      const tools = with_(sandbox("jupyter_list_notebooks"));
      expect(outcome(IPYTHON, tools).calls.map((c) => c.tool)).toEqual(["bash"]);
      expect(outcome(PYTHON, tools).calls.map((c) => c.tool)).toEqual(["bash"]);
      expect(outcome(RUN_CODE, tools).calls.map((c) => c.tool)).toEqual(["bash"]);
    });

    test("the runner's own <bash> stays bash's beside a namespaced `remote_bash`", () => {
      const got = outcome("<bash>\nls -la\n</bash>", with_(sandbox("remote_bash")));
      expect(got.calls).toEqual([{ tool: "bash", input: { command: "ls -la" } }]);
    });

    test("a name that merely ends in the costume's letters without a separator (`cpython`, `runpython`) leaves <python> on", () => {
      for (const name of ["cpython", "runpython"]) expect(outcome(PYTHON, with_(sandbox(name))).calls.map((c) => c.tool)).toEqual(["bash"]);
    });

    test("a namespaced name carrying another costume's name leaves this one on; a prefix is no namespace", () => {
      // `<shell>` is not `<execute_ipython>`; `pythonsandbox` is one word. Diff review 57a (the lead's
      // decision): the costume's name as a whole word anywhere counts, so `python_runner` and
      // `python.run` (the word first) take `<python>` now.
      expect(outcome("<shell>\nls -la\n</shell>", with_(sandbox("jupyter_execute_ipython"))).calls).toEqual([{ tool: "bash", input: { command: "ls -la" } }]);
      for (const name of ["pythonsandbox", "pythonic_runner"]) expect(outcome(PYTHON, with_(sandbox(name))).calls.map((c) => c.tool)).toEqual(["bash"]);
      for (const name of ["python_runner", "python.run"]) expect(outcome(PYTHON, with_(sandbox(name))).calls).toEqual([]);
    });

    test("`<bash>` stays bash's beside mcp__srv__bash and srv.bash too; <Bash> keeps review 52's rule (reserved exact spellings only)", () => {
      for (const name of ["mcp__srv__bash", "srv.bash", "srv_Bash"]) {
        expect(outcome("<bash>\nls -la\n</bash>", with_(sandbox(name))).calls).toEqual([{ tool: "bash", input: { command: "ls -la" } }]);
      }
    });

    test("a costume name another one ends in (`execute_python`, `execute_sh`, reserved as denyTools [execute_*] does) is no namespace: <python> and <sh> still run", () => {
      for (const [input, reserved] of [[PYTHON, "execute_python"], ["<sh>\nls -la\n</sh>", "execute_sh"]] as const) {
        for (const r of splits(input, fixtureTools, [reserved])) expect(r.calls.map((c) => c.tool)).toEqual(["bash"]);
      }
    });

    test("the namespaced costume names are found in work linear in the number of declared tools", () => {
      const toolsOf = (n: number) => Array.from({ length: n }, (_, i): ToolSpec => sandbox(`server${i}_execute_ipytho${i % 10}`));
      const work = (n: number) => {
        const tools = [...fixtureTools, ...toolsOf(n)];
        return countWork(() => void runEngine(IPYTHON, [], tools, { reservedNames: tools.map((t) => `denied_${t.name}`) }));
      };
      const small = work(500);
      const large = work(5000);
      expect(large).toBeLessThan(small * 10 * 1.5 + 1000);
    });

    test("the alias rule itself holds with `___` and `::` separators", () => {
      const hermes = `<tool_call>\n{"name": "execute_command", "arguments": {"command": "ls"}}\n</tool_call>`;
      for (const name of ["srv___execute_command", "srv::execute_command"]) {
        expect(outcome(hermes, with_({ name, parameters: obj({ command: { type: "string" } }, ["command"]) })).calls).toEqual([]);
      }
    });
  });
});
