/**
 * Review 49 (rules): runaway by spelling (src/parse/unread-opener.ts). A parameter opener the tag
 * grammar reads as no tag inside a value refuses the call (P03) only when "a parameter name
 * follows it on its line" (nameFollows/valueIsName). Spellings of that name the scanner does not
 * take let the command swallow the next parameter, so `rm -rf ./*` runs in the project without
 * its workdir (the case of golden P48.6). Every case runs whole, char by char and at seeded random
 * splits (outcome()).
 *
 * Each failing test (test.failing) says what is wrong, its severity and the suspected file.
 */
import { describe, expect, test } from "bun:test";
import { outcome } from "../support/outcome.ts";
import { live } from "../golden/notation.ts";

const run = (opener: string) =>
  live(`<{D}tool_calls>\n<{D}invoke name="bash">\n<{D}parameter name="command" string="true">rm -rf ./*\n${opener}/tmp/scratch</{BAR}parameter>\n</{D}invoke>\n</{D}tool_calls>`);

describe("finding: a degraded workdir opener whose name is spelled outside [A-Za-z_][\\w-]* or spaced runs rm -rf ./*", () => {
  // Severity: medium (wrong execution: the command the model meant for /tmp/scratch runs in the
  // project, with the opener's markup and value as extra command lines). Suspected:
  // src/parse/unread-opener.ts nameFollows/valueIsName (no spaces after `name=` for an attribute,
  // nameEnd takes ASCII word characters and `-` only) and dsmlOpenerAt/prefixedWordEnd (no space
  // between the bar and `parameter`, none inside `DSML parameter`). The P03 runaway rule is meant
  // to refuse any parameter opener the grammar does not read. Expected: no call, as P48.6.
  for (const [name, opener] of [
    ["space after name=", `<{BAR}parameter name= "workdir">`],
    ["spaces around =", `<{BAR}parameter name = "workdir">`],
    ["a dotted name", `<{BAR}parameter name="work.dir">`],
    ["a non-ASCII name", `<{BAR}parameter name="répertoire">`],
    ["a space after the bar", `<{BAR} parameter name="workdir">`],
    ["DSML then a space", `<{BAR}DSML parameter name="workdir">`],
    ["the name on the next line", `<{BAR}parameter\nname="workdir">`],
  ] as const) {
    test.failing(name, () => {
      expect(outcome(run(opener)).calls).toEqual([]);
    });
  }
});

describe("finding (missed call, low): a note in a write's content with a named degraded opener refuses the write", () => {
  // Severity: low (missed call, no wrong execution: the write of a note about degraded markup is
  // refused). 8a7868e kept templates with no name (`<{BAR}parameter=...>`) as text; a note quoting
  // one with a real name is refused. Suspected: src/parse/unread-opener.ts (any named opener in any
  // parameter's value, the content of a write included). Expected: the write runs.
  test.failing("write a note quoting a degraded opener", () => {
    const input = live(`<{D}tool_calls>\n<{D}invoke name="write">\n<{D}parameter name="filePath" string="true">n.md</{D}parameter>\n<{D}parameter name="content" string="true">Degraded openers look like <{BAR}parameter name="workdir"> in logs.</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`);
    expect(outcome(input).calls.map((c) => c.tool)).toEqual(["write"]);
  });
});

describe("hard negatives: spellings the runaway rule takes (kept)", () => {
  for (const [name, opener] of [
    ["one bar, canonical attributes (P48.6)", `<{BAR}parameter name="workdir" string="true">`],
    ["a space after <", `< {BAR}parameter name="workdir">`],
    ["bar DSML then a space before the bar", `<{BAR}DSML {BAR}parameter name="workdir">`],
    ["unquoted name", `<{BAR}parameter name=workdir>`],
    ["fullwidth <", `\uff1c{BAR}parameter name="workdir">`],
    ["params", `<{BAR}params name="workdir">`],
    ["param", `<{BAR}param name="workdir">`],
    ["U+2581 prefix", `<{SP}parameter name="workdir">`],
    ["U+2581 DSML U+2581", `<{SP}DSML{SP}parameter name="workdir">`],
    ["doubled bars", `<{BAR}{BAR}DSML{BAR}{BAR}parameter name="workdir">`],
    ["a dashed name", `<{BAR}parameter name="work-dir">`],
    ["an attribute with a spaced value first", `<{BAR}parameter string="true" type="a b" name="workdir">`],
    ["lost < and name", `{BAR}DSML{BAR}parameter name="workdir">`],
  ] as const) {
    test(`${name}: refused`, () => {
      expect(outcome(run(opener)).calls).toEqual([]);
    });
  }
});

const qwen = (opener: string) => `<tool_call>\n<function=bash>\n<parameter=command>\nrm -rf ./*\n${opener}\n/tmp/scratch\n</parameter>\n</function>\n</tool_call>`;

describe("finding (low): Qwen3-Coder openers spelled `<param=` or `<parameter:` let the command swallow the workdir", () => {
  // Severity: low (wrong execution as P48.6/O48.1, but rarer spellings). The DSML scanner takes
  // `param` and any word after it (prefixedWordEnd), the Qwen3-Coder one `parameter` then `=` only
  // (qwenOpenerAt). Suspected: src/parse/unread-opener.ts qwenOpenerAt. Expected: no call.
  for (const opener of ["<param=workdir>", "<parameter:workdir>"]) {
    test.failing(opener, () => {
      expect(outcome(qwen(opener)).calls).toEqual([]);
    });
  }
});

describe("hard negatives: Qwen3-Coder spellings the runaway rule takes (kept)", () => {
  for (const opener of ["<parameter= workdir>", "<parameter =workdir>", "<parameter=workdir >", "<parameter = workdir>", '<parameter="workdir">', "<parameter=work.dir>", '<parameter name="workdir">', "<parameter=workdir", `<${"\uFF5C"}parameter=workdir>`, "< parameter=workdir>", "<PARAMETER=workdir>"]) {
    test(`${opener}: refused`, () => {
      expect(outcome(qwen(opener)).calls).toEqual([]);
    });
  }
});
