/**
 * Review 48b (parse): runaway by spelling (src/parse/unread-opener.ts, dialects/dsml/verdict.ts):
 * a parameter opener the tag grammar cannot read inside a value refuses the call. Attack: real
 * writes whose content is code or documentation ABOUT these markups (a chat template, a parser's
 * source, notes on degraded markers), which main wrote as given. Every case runs whole, char by
 * char and at seeded random splits.
 */
import { describe, expect, test } from "bun:test";
import { outcome } from "../support/outcome.ts";
import { live } from "../golden/notation.ts";

const qwenWrite = (path: string, content: string) =>
  `<tool_call>\n<function=write>\n<parameter=filePath>\n${path}\n</parameter>\n<parameter=content>\n${content}\n</parameter>\n</function>\n</tool_call>`;
const dsmlWrite = (path: string, content: string) =>
  live(`<{D}tool_calls>\n<{D}invoke name="write">\n<{D}parameter name="filePath" string="true">${path}</{D}parameter>\n<{D}parameter name="content" string="true">`) +
  content +
  live(`</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`);

describe("fixed (regression): a write whose content builds or documents a parameter opener as text runs as on main", () => {
  // Severity: low-medium (false refusal of a plain real call main ran: the file is never written,
  // the reply gets a nudge). Typical for an agent working on LLM tooling: Qwen3-Coder's own chat
  // template concatenates '<parameter=' + name + '>'. Suspected: src/parse/unread-opener.ts
  // qwenOpenerAt (any `<parameter=` counts, whatever follows the `=`: a quote, a `{`, a space then
  // `+`) and dsmlOpenerAt (a one-bar opener then `=` or an attribute, inside prose or a string).
  // Expected: the write runs with the content as written (main), or at least a real opener is told
  // apart by what follows `=` (a name, then `>` on the line).
  test("Qwen3-Coder write of a Jinja chat template ('<parameter=' + k + '>')", () => {
    const content = "{%- for k, v in args.items() %}\n{{- '<parameter=' + k + '>\\n' }}\n{%- endfor %}";
    expect(outcome(qwenWrite("tpl.jinja", content)).calls).toEqual([{ tool: "write", input: { filePath: "tpl.jinja", content } }]);
  });

  test("Qwen3-Coder write of a Jinja template with '~' concatenation", () => {
    const content = "{{- '<parameter=' ~ k ~ '>' }}";
    expect(outcome(qwenWrite("tpl.jinja", content)).calls).toEqual([{ tool: "write", input: { filePath: "tpl.jinja", content } }]);
  });

  test("DSML write of notes naming a degraded one-bar opener", () => {
    const content = live("Markers: <{BAR}parameter=...> is what you see when degraded");
    expect(outcome(dsmlWrite("notes.md", content)).calls).toEqual([{ tool: "write", input: { filePath: "notes.md", content } }]);
  });

  test("DSML write of Python source building a one-bar opener by concatenation", () => {
    const content = live('BAR = "{BAR}"\ns = f"<{BAR}parameter name=" + k');
    expect(outcome(dsmlWrite("gen.py", content)).calls).toEqual([{ tool: "write", input: { filePath: "gen.py", content } }]);
  });
});

describe("hard negatives: a parameter opener the grammar reads stays the value's text", () => {
  test("Qwen3-Coder write of a Python f-string holding a whole opener and closer", () => {
    const content = "out = f'<parameter={k}>\\n{v}\\n</parameter>'";
    expect(outcome(qwenWrite("gen.py", content)).calls).toEqual([{ tool: "write", input: { filePath: "gen.py", content } }]);
  });
});

describe("fx48b: an unread opener counts only when a parameter name follows it on its line", () => {
  const qwenBash = (value: string) => `<tool_call>\n<function=bash>\n<parameter=command>\n${value}\n</parameter>\n</function>\n</tool_call>`;
  for (const [name, opener] of [
    ["`=` then a name and `>`", "<{BAR}parameter=workdir>"],
    ["`=` then a quoted name", '<{BAR}parameter="workdir">'],
    ["another attribute before name", '<{BAR}parameter string="true" name="workdir">'],
    ["name then a lost `>`", '<{BAR}parameter name="workdir"/tmp'],
    ["U+2581 then name", '<{SP}parameter name="workdir">'],
  ] as const) {
    test(`DSML: ${name}: refused`, () => {
      expect(outcome(dsmlWrite("a.txt", live(`x\n${opener}/tmp/scratch`))).calls).toEqual([]);
    });
  }
  for (const [name, opener] of [
    ["`=` then a quote and `+`", '<{BAR}parameter=" + k + ">'],
    ["name= then a quote and a space", '<{BAR}parameter name=" + k'],
    ["`=` then dots", "<{BAR}parameter=...>"],
  ] as const) {
    test(`DSML: ${name}: the write runs as written`, () => {
      const content = live(`x\n${opener}/tmp/scratch`);
      expect(outcome(dsmlWrite("a.txt", content)).calls).toEqual([{ tool: "write", input: { filePath: "a.txt", content } }]);
    });
  }
  test("Qwen3-Coder: `<parameter= workdir>` on its own line still refuses, `<parameter=' + k` does not", () => {
    expect(outcome(qwenBash("rm -rf ./*\n<parameter= workdir>\n/tmp/scratch")).calls).toEqual([]);
    expect(outcome(qwenBash("echo '<parameter=' + k")).calls).toEqual([{ tool: "bash", input: { command: "echo '<parameter=' + k" } }]);
  });
});
