/**
 * Review 50: the block stray watch past closers followed by text that is no markup, stray and
 * runaway openers in lookalike or first-bar-lost spellings, costumes in sentences whose lines end
 * in Unicode spaces or a backslash hard break, Qwen3-Coder parameter spellings after `</function>`,
 * an empty block pair inside a watched block, and a bare `<function=NAME>` of an undeclared tool
 * with a costume in its body. Spread into build-fixtures.ts's list.
 */
import type { Fixture } from "./build-fixtures.ts";
import { bad, none, ok } from "./fixture-kit.ts";

export function review50(): Fixture[] {
  return [...blockWatch(), ...sentences(), ...qwenAndBareFunctions(), ...valuesAndKeys(), ...quotedWrites()];
}

const P = (name: string, value: string) => `<{D}parameter name="${name}" string="true">${value}</{D}parameter>`;
const RM = `<{D}invoke name="bash">\n${P("command", "rm -rf ./*")}\n</{D}invoke>`;
const LS = `<{D}invoke name="bash">\n${P("command", "ls")}\n</{D}invoke>`;
const STRAY = P("workdir", "/tmp/scratch");
const costume = "<bash>\nrm -rf build\n</bash>";

/** Only markup after a block closer ends the stray watch; every parameter opener spelling text mode reads is a stray or a runaway's end. */
function blockWatch(): Fixture[] {
  return [
    bad("P50.1", "block-closer-then-a-heart-on-its-line-then-a-stray", `<{D}tool_calls>\n${RM}\n</{D}tool_calls> <3 is the closer.\n${STRAY}\n</{D}tool_calls>`, "broken-markup", ["I02", "D08", "D08"]),
    bad("P50.2", "stray-opener-with-its-first-bar-lost-inside-a-block", `<{D}tool_calls>\n${RM}\n<DSML{BAR}parameter name="workdir" string="true">/tmp/scratch</{D}parameter>\n</{D}tool_calls>`, "broken-markup", ["I02", "D08", "D08"]),
    bad("P50.3", "runaway-value-ended-by-an-opener-with-lookalike-bars", `<{D}tool_calls>\n<{D}invoke name="bash">\n<{D}parameter name="command" string="true">rm -rf ./*\n<\u2502DSML\u2502parameter name="workdir" string="true">/tmp/scratch</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`, "broken-markup", ["P03"]),
    bad("P50.4", "empty-block-pair-inside-a-watched-block-then-a-stray", `<{D}tool_calls>\n${RM}\n<{D}tool_calls>\n</{D}tool_calls>\n${STRAY}\n</{D}tool_calls>`, "broken-markup", ["I02", "S02", "D08", "D08"]),
    ok("P50.n1", "block-closer-then-the-next-block-on-its-line-runs-both", `<{D}tool_calls>\n${LS}\n</{D}tool_calls> <{D}tool_calls>\n${LS}\n</{D}tool_calls>`, [
      { tool: "bash", input: { command: "ls" }, shape: "D02" },
      { tool: "bash", input: { command: "ls" }, shape: "D02" },
    ], " "),
  ];
}

/** A sentence goes on past a line end in Unicode spaces or a backslash hard break; after a colon it does not. */
function sentences(): Fixture[] {
  return [
    none("N50.1", "costume-after-a-line-ending-in-a-no-break-space", `The agent wraps commands like\u00a0\n${costume}\nin its replies.`),
    none("N50.2", "costume-after-a-backslash-hard-break", `The agent wraps commands like\\\n${costume}\nin its replies.`),
    ok("N50.n1", "costume-after-a-colon-and-a-no-break-space-runs", `Run this:\u00a0\n${costume}`, [{ tool: "bash", input: { command: "rm -rf build" }, shape: "C04" }], "Run this:\u00a0\n"),
  ];
}

/** A Qwen3-Coder parameter in any spelling its value reader takes, after `</function>` in the wrapper, refuses the call; a bare function of an undeclared tool is refused whole. */
function qwenAndBareFunctions(): Fixture[] {
  return [
    bad("O50.1", "qwen3-coder-param-colon-after-the-function-in-its-wrapper", "<tool_call>\n<function=bash>\n<parameter=command>\nrm -rf ./b\n</parameter>\n</function>\n<param:workdir>\n/\n</parameter>\n</tool_call>", "broken-markup", ["I02"]),
    bad("O50.2", "bare-function-of-an-undeclared-tool-with-a-costume-in-its-yaml-body", "Plan:\n<function=deploy>\nsteps:\n  run: |\n    <shell>\n    rm -rf build\n    </shell>\n</function>\nDone.", "broken-markup", ["O02"]),
  ];
}

/** A garbled closer ends its value where it starts; a key the schema does not declare, or a runaway ended by a misspelled sentinel word, refuses the call. */
function valuesAndKeys(): Fixture[] {
  return [
    ok("P50.5", "garbled-parameter-closer-with-a-misspelled-sentinel-word", `<{D}tool_calls>\n<{D}invoke name="bash">\n<{D}parameter name="command" string="true">ls -la</{BAR}DSL{BAR}parameter>\n</{D}invoke>\n</{D}tool_calls>`, [{ tool: "bash", input: { command: "ls -la" }, shape: "P02" }]),
    bad("P50.6", "parameter-name-the-schema-does-not-declare", `<{D}tool_calls>\n<{D}invoke name="bash">\n${P("command", "rm -rf ./*")}\n${P("work_dir", "/tmp/scratch")}\n</{D}invoke>\n</{D}tool_calls>`, "broken-markup", ["D02"]),
    bad("P50.7", "runaway-value-ended-by-an-opener-with-a-misspelled-sentinel-word", `<{D}tool_calls>\n<{D}invoke name="bash">\n<{D}parameter name="command" string="true">rm -rf ./*\n<{BAR}DSL{BAR}parameter name="workdir" string="true">/tmp/scratch</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`, "broken-markup", ["P03"]),
  ];
}

/** A write quoted in documentation in Qwen3-Coder markup keeps its page documentation up to the value's own closer. */
function quotedWrites(): Fixture[] {
  return [
    none("N50.3", "quoted-qwen3-coder-write-whose-page-closes-the-fence", "Here is the page:\n```\n<tool_call>\n<function=write>\n<parameter=filePath>\ndocs/calls.md\n</parameter>\n<parameter=content>\n# Calls\n```\n<tool_call>\n{\"name\": \"bash\", \"arguments\": {\"command\": \"rm -rf build\"}}\n</tool_call>\n```\n</parameter>\n</function>\n</tool_call>\n```\nThat is all."),
  ];
}
