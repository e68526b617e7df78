/**
 * Review 49 (rules): the paragraph-costume rule of last round (src/engine/line-ends.ts
 * endsMidSentence, src/engine/tentative-closer.ts sentenceGoesOn, costume-chain.ts). A costume
 * (`<bash>`, `<shell>`, pre/code) on its own lines inside a running sentence is text: the line
 * before ends mid-sentence (a letter, a digit or a comma) and the line after its closer goes on
 * (a lower-case letter). Both ends are judged by ASCII/Latin habits, so sentences in caseless
 * scripts (Chinese, which DeepSeek writes, Japanese, Korean, Arabic, Hindi) and lines ending in
 * other punctuation that leaves the sentence open run the shown costume. Every case runs whole,
 * char by char and at seeded random splits (outcome()).
 *
 * Each failing test (test.failing) says what is wrong, its severity and the suspected file.
 */
import { describe, expect, test } from "bun:test";
import { outcome } from "../support/outcome.ts";
import { parse } from "../../src/engine/parse.ts";
import { fixtureTools } from "../golden/tools.ts";

const block = "<bash>\nrm -rf build\n</bash>";
const inline = "<shell>rm -rf build</shell>";

describe("fixed: a costume shown inside a sentence in a caseless script is text (a caseless letter goes on after a line left open)", () => {
  // Severity: medium-low (wrong execution: `rm -rf build`, a command the reply only shows inside a
  // sentence, runs; the English sentence of golden N48.1/N48.2 is text). The line after the
  // closer must start with a lower-case letter (\p{Ll}) for the sentence to "go on"; Han, kana,
  // Hangul, Arabic and Devanagari letters have no case, so the sentence never goes on and the
  // costume runs. DeepSeek answers Chinese users in Chinese. Suspected:
  // src/engine/tentative-closer.ts sentenceGoesOn (LOWER_CASE only; a letter of a caseless
  // script after a line that ended mid-sentence in a letter should count). Expected: no call,
  // the text whole.
  for (const [name, before, after] of [
    ["Chinese, block", "这个代理会把命令写成", "放在回复里。"],
    ["Japanese, block", "エージェントはコマンドを", "のように書きます。"],
    ["Korean, block", "에이전트는 명령을", "처럼 씁니다."],
    ["Arabic, block", "الوكيل يكتب الأوامر مثل", "في ردوده."],
    ["Hindi, block", "एजेंट आदेश लिखता है जैसे", "अपने उत्तरों में।"],
  ] as const) {
    test(name, () => {
      const input = `${before}\n${block}\n${after}`;
      const o = outcome(input);
      expect(o.calls).toEqual([]);
      expect(o.text).toBe(input);
    });
  }
  test("Chinese, block, through the public parse()", () => {
    expect(parse(`这个代理会把命令写成\n${block}\n放在回复里。`, fixtureTools).calls).toEqual([]);
  });
  test("Chinese, inline costume on its own line", () => {
    expect(outcome(`代理把命令写成\n${inline}\n放在回复里。`).calls).toEqual([]);
  });
});

describe("fixed: a line left open by a dash, an ellipsis, an open parenthesis, a cut hyphen or a fullwidth comma keeps the costume after it text", () => {
  // Severity: low-medium (wrong execution of a costume shown in a running sentence). The line
  // before must end in a letter, a digit or an ASCII comma; an em dash, an ellipsis, an open
  // parenthesis, a hyphenated word cut at the line end or the fullwidth comma that Chinese uses
  // (U+FF0C) also leave the sentence open, and the next line goes on in lower case, yet the
  // costume runs. Suspected: src/engine/line-ends.ts endsMidSentence (MID_SENTENCE plus COMMA
  // only). Expected: no call, as golden N48.2.
  for (const [name, before, after] of [
    ["em dash", "The agent wraps commands like —", "in its replies."],
    ["ellipsis", "The agent wraps commands like…", "in its replies."],
    ["open parenthesis", "The agent wraps commands (like", ") in its replies."],
    ["hyphen", "The agent wraps commands in the so-", "called costume."],
    ["fullwidth comma, Chinese", "代理把命令写成，", "放在回复里。"],
  ] as const) {
    test(name, () => {
      expect(outcome(`${before}\n${block}\n${after}`).calls).toEqual([]);
    });
  }
});

describe("fixed: the line after the closer going on past a dash, an ellipsis, strikethrough or Spanish opening punctuation keeps the costume text", () => {
  // Severity: low (wrong execution of a costume shown in a running sentence; these leads are less
  // common than the lower-case letter of golden N48.1). sentenceGoesOn looks past `(`, `*`, `_`,
  // quotes, a comma, a backtick and `[` only; `— in`, `… in`, `~~in~~`, `¿en` end the look and the
  // costume runs. Suspected: src/engine/tentative-closer.ts SENTENCE_LEAD. Expected: no call.
  for (const next of ["— in its replies.", "… in its replies.", "~~in~~ its replies.", "¿en sus respuestas?"]) {
    test(JSON.stringify(next), () => {
      expect(outcome(`The agent wraps commands like\n${block}\n${next}`).calls).toEqual([]);
    });
  }
});

describe("fixed: an inline costume mention earlier on a line leaves the line prose, its own end decides", () => {
  // Severity: low-medium (wrong execution). `The agent writes <shell>ls</shell> or, like` is a
  // running sentence (its inline costume mention is text), but the line holds a candidate's markup
  // (LineEnds.beforeMarkup), which the rule reads as "no running sentence", so the block costume
  // shown on the next lines runs. Suspected: src/engine/line-ends.ts (lastMarkup set for a costume
  // read as text, not only for a call). Expected: no call.
  test("inline costume mention on the line before", () => {
    expect(outcome(`The agent writes <shell>ls</shell> or, like\n${block}\nin its replies.`).calls).toEqual([]);
  });
});

describe("hard negatives: the rule's own boundaries (kept: Unicode letters and containers of this round)", () => {
  for (const [name, input] of [
    ["Greek lower case goes on", `Ο πράκτορας γράφει\n${block}\nστις απαντήσεις.`],
    ["an accented lower-case word goes on", `The agent wraps commands like\n${block}\nétait in its replies.`],
    ["after a list item, indented", `- The agent wraps commands like\n  ${block.replaceAll("\n", "\n  ")}\n  in its replies.`],
    ["a line ending in inline code", `The agent wraps \`bash\` commands like\n${block}\nin its replies.`],
    ["a line ending in a hard break (two spaces)", `The agent wraps commands like  \n${inline}\nin its replies.`],
    ["pre/code after a Chinese line (raw HTML page)", "代理把命令写成\n<pre><code>rm -rf build</code></pre>\n放在回复里。"],
    ["a fence closed, then a running sentence", "```\nx\n```\nThe agent wraps commands like\n" + block + "\nin its replies."],
  ] as const) {
    test(`${name}: text`, () => {
      expect(outcome(input).calls).toEqual([]);
    });
  }
  for (const [name, input] of [
    ["a fullwidth colon introduces the call", `运行：\n${block}\n`],
    ["a colon, then a lower-case line", `Running:\n${inline}\nthen I rebuild.`],
    ["a heading before", `# Commands like\n${block}\nin its replies.`],
  ] as const) {
    test(`${name}: runs`, () => {
      expect(outcome(input).calls).toEqual([{ tool: "bash", input: { command: "rm -rf build" } }]);
    });
  }
});
