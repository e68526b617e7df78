/**
 * Review 55 (hostile, tests only): limits of the older dialects' readers (Qwen3-Coder, LFM2, named
 * `<tool_call name=…>`, standalone JSON, tool-named elements with aliases) and documentation
 * containers the earlier reviews did not put them in. Hard negatives, all passing today: work is
 * counted, never timed (test/support/work.ts), and must not grow faster than the input.
 */
import { describe, expect, test } from "bun:test";
import { parse } from "../../src/engine/parse.ts";
import type { ToolSpec } from "../../src/parse/types.ts";
import { fixtureTools } from "../golden/tools.ts";
import { outcome } from "../support/outcome.ts";
import { randomCuts, runEngine } from "../support/run-engine.ts";
import { countWork } from "../support/work.ts";

/** Steps per input character allowed: the measured worst here is about 76 (repeated `<tool_call>` openers). */
const PER_CHAR = 128;
const FLOOR = 2_000;

const ADVERSARIAL: Record<string, (n: number) => string> = {
  "Qwen openers inside a value": (n) => "<tool_call>\n<function=bash>\n<parameter=command>\n" + "x <parameter=command>\n".repeat(n),
  "Qwen line-start openers of a declared parameter": (n) => "<function=bash>\n<parameter=command>\n" + "<parameter=description>\n".repeat(n),
  "Qwen function closers inside a value": (n) => "<function=bash>\n<parameter=command>\n" + "</function>\n".repeat(n),
  "Qwen examples inside a value": (n) => "<function=write>\n<parameter=content>\n" + "<tool_call>\n<function=bash>\n<parameter=command>\nls\n".repeat(n),
  "repeated <tool_call> before a function": (n) => "<tool_call>\n".repeat(n) + "<function=bash>\n",
  "LFM2 start tokens": (n) => "<|tool_call_start|>[".repeat(n),
  "LFM2 open brackets": (n) => "<|tool_call_start|>[bash(command=" + "[".repeat(n),
  "LFM2 escaped quotes": (n) => "<|tool_call_start|>[bash(command='" + "\\'".repeat(n),
  "LFM2 many calls, list closed": (n) => "<|tool_call_start|>[" + "bash(command='ls'),".repeat(n) + "]<|tool_call_end|>",
  "named openers": (n) => '<tool_call name="bash">'.repeat(n),
  "named deep object": (n) => '<tool_call name="bash">' + '{"a":'.repeat(n),
  "standalone JSON prefixes, one per paragraph": (n) => '{"name"\n\n'.repeat(n),
  "standalone JSON followed by prose": (n) => '{"name": "bash", "arguments": {"command": "ls"}} x\n\n'.repeat(n),
  "alias elements never closed": (n) => "<execute_command>\n".repeat(n),
};

describe("every reader stays linear on adversarial repetitions", () => {
  for (const [label, make] of Object.entries(ADVERSARIAL)) {
    test(label, () => {
      for (const n of [400, 1600]) {
        const text = make(n);
        const cap = FLOOR + PER_CHAR * text.length;
        expect(countWork(() => parse(text, fixtureTools, { standaloneJson: true }), cap)).toBeLessThanOrEqual(cap);
        expect(countWork(() => runEngine(text, randomCuts(text.length, 55), fixtureTools, { parse: { standaloneJson: true } }), cap)).toBeLessThanOrEqual(cap);
      }
    });
  }
});

describe("deep nesting neither overflows the stack nor loses text", () => {
  const tools: ToolSpec[] = [...fixtureTools, { name: "any", parameters: { type: "object", properties: { data: {} }, required: ["data"] } }];
  const n = 100_000;
  const nested = "[".repeat(n) + "]".repeat(n);
  const cases: [string, string][] = [
    ["Hermes", `<tool_call>{"name":"any","arguments":{"data":${nested}}}</tool_call>`],
    ["named", `<tool_call name="any">{"data":${nested}}</tool_call>`],
    ["LFM2", `<|tool_call_start|>[any(data=${nested})]<|tool_call_end|>`],
    ["standalone JSON", `{"name":"any","arguments":{"data":${nested}}}`],
  ];
  for (const [label, input] of cases) {
    test(`${label}: refused or text, every character kept`, () => {
      const r = parse(input, tools, { standaloneJson: true });
      expect(r.calls).toEqual([]);
      expect(r.text).toBe(input);
    });
  }

  test("Qwen3-Coder: an untyped parameter keeps the deep text as written", () => {
    const input = `<function=any>\n<parameter=data>\n${nested}\n</parameter>\n</function>`;
    expect(parse(input, tools).calls.map((c) => c.input)).toEqual([{ data: nested }]);
  });
});

describe("the older dialects inside containers the earlier reviews did not try", () => {
  const forms: Record<string, string> = {
    "Qwen3-Coder": "<tool_call>\n<function=bash>\n<parameter=command>\nrm -rf ~\n</parameter>\n</function>\n</tool_call>",
    "bare Qwen3-Coder": "<function=bash>\n<parameter=command>\nrm -rf ~\n</parameter>\n</function>",
    LFM2: "<|tool_call_start|>[bash(command='rm -rf ~')]<|tool_call_end|>",
    named: '<tool_call name="bash">{"command": "rm -rf ~"}</tool_call>',
    "Hermes with an alias": '<tool_call>\n{"name": "execute_command", "arguments": {"command": "rm -rf ~"}}\n</tool_call>',
  };
  const containers: Record<string, (form: string) => string> = {
    "an HTML comment over lines": (f) => `<!--\n${f}\n-->`,
    "an HTML comment with blank lines": (f) => `<!-- example:\n\n${f}\n\n-->`,
    "a table cell": (f) => `| form | example |\n|---|---|\n| it | ${f.replace(/\n/g, " ")} |`,
    "a lazy blockquote": (f) => `> Example:\n${f}`,
    "a tilde fence": (f) => `~~~\n${f}\n~~~`,
    "a fence inside a list item": (f) => `- x\n  \`\`\`\n  ${f.replace(/\n/g, "\n  ")}\n  \`\`\``,
    "a double-backtick code span": (f) => `Use \`\` ${f.replace(/\n/g, " ")} \`\` to run.`,
    "<pre>": (f) => `<pre>\n${f}\n</pre>`,
  };
  for (const [formName, form] of Object.entries(forms)) {
    for (const [where, wrap] of Object.entries(containers)) {
      test(`${formName} in ${where}: no call, text unchanged`, () => {
        const input = wrap(form);
        const o = outcome(input);
        expect(o.calls).toEqual([]);
        expect(o.text).toBe(input);
      });
    }
  }

  test("the same call twice, quoted in a blockquote then live: only the live one runs", () => {
    const call = forms.LFM2!;
    const o = outcome(`The log shows:\n\n> ${call}\n\nRunning it now.\n\n${call}`);
    expect(o.calls).toEqual([{ tool: "bash", input: { command: "rm -rf ~" } }]);
  });
});
