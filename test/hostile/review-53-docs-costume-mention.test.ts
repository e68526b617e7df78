/**
 * Review 53: a costume opener mentioned mid-line in prose (`I will use the <python> tool.`) hides
 * every later call of the reply.
 *
 * FINDING (missed call + nudge, the lowest severity; realistic and wide: a model that names an
 * element while explaining HTML or its tools, then makes a real call, loses the call).
 * What is wrong: a costume opener in the middle of a sentence is prose (N09.1: the line-start gate;
 * commonmark.js: an inline raw HTML tag in a paragraph). A blank line ends that paragraph, and a
 * call on its own line after it is a top-level paragraph for commonmark.js, outside any
 * documentation. The engine holds everything after the unclosed opener to the reply's end (past
 * paragraphs, fences and more than 4,096 characters of prose) and refuses the call inside as
 * broken-markup (a correction nudge; the text is kept). Costume names do this for every
 * dialect, and an unclosed `<tool_call>` mention does it to a later DSML call (a Hermes call after
 * it runs); `<code>`, `<function_calls>`, `<function=bash>`, `[TOOL_CALLS]` or an inline-code
 * `<shell>` in the same sentence leave the later call running (hard negatives), and so does a
 * costume mention whose closer follows on its line.
 * Minimal input: "Use <shell> here.\n\n" then a one-line Hermes call on its own line.
 * Suspected source: the costume candidate in src/engine/text-mode.ts (costume-chain.ts,
 * held-example.ts): an opener that is no costume (mid-line) still opens a candidate, or a candidate
 * that never closes refuses the calls it swallowed instead of releasing its opener as text and
 * reading on.
 * Expected: the later call runs; the mention stays text. Not a documented policy: PATTERNS.md's
 * "a quoted value that never closes keeps the rest of the reply documentation" is about a call
 * quoted inside block documentation, and N09.1 pins only that a mid-line costume never runs.
 *
 * Fixed (fix 53, src/parse/costume-hold.ts unclosedRereadAt): at the reply's end, a code costume
 * opened inside a line that never closed (no own closer after it) was a mention: its paragraph
 * ends at the first blank line, and what follows is read again, so a call standing as its own
 * paragraph runs. The mention's paragraph keeps its old outcome (refused when call markup stands
 * in it), a costume closed later keeps N09.1's, a heredoc still open at the blank line or at the
 * call reads nothing again, a part's end reads nothing again (a later part may close it), and
 * the rest is read again at most COSTUME_REREADS times per reply (engine.ts), so work stays linear.
 * Known gap: the call on the next line of the mention's own paragraph (no blank line between)
 * stays refused with a nudge: no paragraph end separates it from what may be a cut-off costume's
 * code, and trust goes first.
 * Was a known gap: `Use <tool_call> here.` then a DSML call: the `<tool_call>` body read `here.` as
 * a GLM tool name laid out over lines, and a DSML tag after it refused the wrapper whole as a call
 * written in two dialects (src/parse/dialects/tool-call-body.ts).
 * Fixed (fix 54, ToolCallStart.endsSentence/countSentenceBreak): a word after the opener that ends
 * in sentence punctuation no tool name ends in (`here.`, `here:`; not a declared tool) and then a
 * blank line is a mention: the opener and the word stay text and what follows is read afresh, so
 * a call in a paragraph of its own runs (golden N54.1). With no blank line the wrapper is still
 * laid out over lines and a body on the next line is read as its body: a Hermes body there is
 * refused as two dialects (golden N54.n1), as a GLM name over another dialect is (O51.1).
 */
import { describe, expect, test } from "bun:test";
import { outcome } from "../support/outcome.ts";
import { verdict } from "./review-47-docs-grammar.ts";
import { live } from "../golden/notation.ts";
import { deltas, sseText, textStream, throughFetch, throughMiddleware } from "../security/support.ts";

const TOKEN = "ZQXJ7";
const HERMES = `<tool_call>{"name":"bash","arguments":{"command":"echo ${TOKEN}"}}</tool_call>`;
const DSML = live(`<{D}tool_calls><{D}invoke name="bash"><{D}parameter name="command" string="true">echo ${TOKEN}</{D}parameter></{D}invoke></{D}tool_calls>`);
const CALLS = { hermes: HERMES, dsml: DSML };
const RAN = [{ tool: "bash", input: { command: `echo ${TOKEN}` } }];
const PROSE = `${"Some prose here. ".repeat(20)}\n\n`.repeat(15);

const MISSED: [string, string][] = [
  ["<shell> mentioned, a blank line", "Use <shell> here.\n\nX\n"],
  ["<shell> mentioned, the call on the next line", "Use <shell> here.\nX\n"],
  ["<bash> mentioned", "Put it in a <bash> block.\n\nX\n"],
  ["<python> mentioned", "I will use the <python> tool.\n\nX\n"],
  ["<pre> mentioned", "Wrap the output in <pre> tags.\n\nX\n"],
  ["<pre/> mentioned", "Use <pre/> here.\n\nX\n"],
  ["<code_interpreter> mentioned", "Use <code_interpreter> here.\n\nX\n"],
  ["<execute_bash> mentioned", "Use <execute_bash> here.\n\nX\n"],
  ["<pre> in a heading", "# Use <pre> here\n\nX\n"],
  ["<shell> mentioned, a closed fence later", "Use <shell> here.\n\n```\nx\n```\n\nX\n"],
  ["<shell> mentioned, over 4,096 characters of prose later", `Use <shell> here.\n\n${PROSE}X\n`],
];

/** Known gap (see above): no blank line between the mention and the call. */
const KNOWN_GAP = new Set(["<shell> mentioned, the call on the next line"]);

describe("review 53 finding: a costume opener mentioned mid-line hides every later call (missed call + nudge)", () => {
  for (const [name, template] of MISSED) {
    for (const [dialect, call] of Object.entries(CALLS)) {
      const doc = template.replace("X", () => call);
      (KNOWN_GAP.has(name) ? test.failing : test)(`${name} (${dialect})`, () => {
        // The oracle: commonmark.js reads the call as prose of a top-level paragraph.
        expect(verdict(doc).path).toBe("text < paragraph < document");
        const o = outcome(doc);
        expect(o.calls).toEqual(RAN);
      });
    }
  }
});

describe("review 53 finding: a <tool_call> wrapper mentioned mid-line hides a later DSML call (missed call)", () => {
  // The same class for the Hermes wrapper: `Use <tool_call> here.` then a blank line and a DSML
  // call on its own line. A Hermes call there runs (its own wrapper), a DSML one does not.
  const doc = `Use <tool_call> here.\n\n${DSML}\n`;
  // Fixed (fix 54, see above): `here.` then a blank line proves the mention; the call runs and the mention stays text.
  test("a DSML call after a <tool_call> mention runs (dsml)", () => {
    expect(verdict(doc).path).toBe("text < paragraph < document");
    const o = outcome(doc);
    expect(o.calls).toEqual(RAN);
    expect(o.broken).toEqual([]);
    expect(o.text).toBe("Use <tool_call> here.\n\n");
  });
  test("hard negative: a Hermes call after a <tool_call> mention runs", () => {
    const d = `Use <tool_call> here.\n\n${HERMES}\n`;
    expect(outcome(d).calls).toEqual(RAN);
  });
  // The same proof in other spellings of the sentence's end and the blank line.
  const ALSO: [string, string][] = [
    ["a colon", `Use <tool_call> here:\n\n${DSML}\n`],
    ["CR LF line ends", `Use <tool_call> here.\r\n\r\n${DSML}\r\n`],
    ["lone CR line ends", `Use <tool_call> here.\r\r${DSML}\n`],
    ["a blank line holding spaces", `Use <tool_call> here.\n  \n${DSML}\n`],
    ["the opener starting its line", `<tool_call> here.\n\n${DSML}\n`],
    ["the mention in inline code", `Use \`<tool_call> here.\`\n\n${DSML}\n`],
  ];
  for (const [name, d] of ALSO) {
    test(`runs: ${name}`, () => {
      const o = outcome(d);
      expect(o.calls).toEqual(RAN);
      expect(o.broken).toEqual([]);
      expect(o.text).toBe(d.slice(0, d.indexOf(DSML)));
    });
  }
});

describe("fix 54 hard negatives: what a <tool_call> mention must not change", () => {
  const HERMES_BODY = `{"name":"bash","arguments":{"command":"echo ${TOKEN}"}}\n</tool_call>`;
  test("a real Hermes call on its own runs", () => {
    expect(outcome(HERMES).calls).toEqual(RAN);
  });
  test("the opener ending a sentence's line, a Hermes body on the next line, runs (O01.3)", () => {
    expect(outcome(`Use <tool_call>\n${HERMES_BODY}\n`).calls).toEqual(RAN);
  });
  // PATTERNS: a `<tool_call>` body laid out on its own lines that is not one readable call is refused whole.
  const REFUSED: [string, string][] = [
    ["a Hermes body on the next line after the mention", `Use <tool_call> here.\n${HERMES_BODY}\n`],
    ["a DSML call on the next line after the mention", `Use <tool_call> here.\n${DSML}\n`],
    ["a word without punctuation, a blank line, a DSML call", `Use <tool_call> here\n\n${DSML}\n`],
    ["a GLM name over a DSML call (two dialects in one call)", `<tool_call>read\n${DSML}\n</tool_call>`],
  ];
  for (const [name, d] of REFUSED) {
    test(`refused, nothing runs: ${name}`, () => {
      const o = outcome(d);
      expect(o.calls).toEqual([]);
      expect(o.broken).toContain("broken-markup");
      expect(o.text).toBe(d);
    });
  }
  const TEXT: [string, string][] = [
    ["a sentence naming bash after the opener", "<tool_call> bash is the tool"],
    ["a sentence naming bash, a blank line, GLM pairs", "<tool_call> bash is the tool.\n\n<arg_key>command</arg_key>\n<arg_value>rm -rf build</arg_value>\n</tool_call>\n"],
    ["the mention, a blank line, GLM pairs", "Use <tool_call> here.\n\n<arg_key>command</arg_key>\n<arg_value>rm -rf build</arg_value>\n</tool_call>\n"],
    ["the mention, a blank line, a bare Hermes body (no wrapper opens it)", `Use <tool_call> here.\n\n${HERMES_BODY}\n`],
    ["the mention and a DSML call in a fence", "```\nUse <tool_call> here.\n\n" + DSML + "\n```\n"],
    ["the mention and a DSML call in inline code", "Write `<tool_call> here.` or `" + DSML + "` in docs.\n"],
    ["the mention and a DSML call in a blockquote", "> Use <tool_call> here.\n>\n> " + DSML + "\n"],
  ];
  for (const [name, d] of TEXT) {
    test(`text, nothing runs: ${name}`, () => {
      const o = outcome(d);
      expect(o.calls).toEqual([]);
      expect(o.text).toBe(d);
    });
  }
});

const RUNS: [string, string][] = [
  ["<code> mentioned", "Use <code> here.\n\nX\n"],
  ["[TOOL_CALLS] mentioned", "Use [TOOL_CALLS] here.\n\nX\n"],
  ["<function_calls> mentioned", "Use <function_calls> here.\n\nX\n"],
  ["<function=bash> mentioned", "Use <function=bash> here.\n\nX\n"],
  ["<shell> in inline code", "Use `<shell>` here.\n\nX\n"],
  ["<shell> mentioned with its closer", "Use <shell> and </shell> here.\n\nX\n"],
  ["<pre> closed in a later paragraph", "Wrap the output in <pre> tags.\n\nThen </pre> closes.\n\nX\n"],
  ["<script> mentioned", "Use <script> here.\n\nX\n"],
];
const HOLDS: [string, string][] = [
  // N09.1: a costume written mid-line over lines is the page's text, never a call.
  ["a mid-line <shell> costume over lines", "Wrap it as <shell>\nls\n</shell> in the page.\n"],
  ["a call inside a top-level <pre> block", "<pre>\nX\n</pre>\n"],
];

describe("review 53 hard negatives: mentions that leave a later call running, costumes that stay text", () => {
  for (const [dialect, call] of Object.entries(CALLS)) {
    for (const [name, template] of RUNS) {
      const doc = template.replace("X", () => call);
      test(`runs: ${name} (${dialect})`, () => {
        expect(verdict(doc).path).toBe("text < paragraph < document");
        const o = outcome(doc);
        expect(o.calls).toEqual(RAN);
        expect(o.broken).toEqual([]);
      });
    }
    for (const [name, template] of HOLDS) {
      const doc = template.replace("X", () => call);
      test(`holds: ${name} (${dialect})`, () => {
        const o = outcome(doc);
        expect(o.calls).toEqual([]);
        expect(o.text).toBe(doc);
      });
    }
  }
});

describe("fix 54: the <tool_call> mention then a DSML call on the fetch route and the middleware", () => {
  const doc = `Use <tool_call> here.\n\n${DSML}\n`;
  const user = [{ role: "user" as const, content: [{ type: "text" as const, text: "go" }] }];
  test("fetch: the call runs, the mention is the reply's text", async () => {
    const { out } = await throughFetch({ messages: [{ role: "user", content: "go" }] }, { sse: sseText(deltas(doc, 5)) });
    expect(out.calls.map((c) => [c.name, JSON.parse(c.arguments)])).toEqual([["bash", { command: `echo ${TOKEN}` }]]);
    expect(out.content).toBe("Use <tool_call> here.\n\n");
  });
  test("middleware: the call runs, the mention is the reply's text", async () => {
    const run = await throughMiddleware(user, textStream(doc, 5));
    expect(run.calls.map((c) => [c.toolName, JSON.parse(c.input)])).toEqual([["bash", { command: `echo ${TOKEN}` }]]);
    expect(run.text).toBe("Use <tool_call> here.\n\n");
  });
});
