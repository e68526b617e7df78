/**
 * Review 48, hard negative (passes today, kept as a guard): ONE complete example of any dialect
 * inside a write's value that reaches its own closer is the write's text (S02.8-S02.16), whatever
 * the line ends around it (LF, CR, CR LF, U+2028, a no-break space, a zero-width space, a BOM),
 * in every dialect that carries a write (Claude-style, Qwen3-Coder, GLM, MiniMax, DSML, the
 * element form, Hermes, Mistral, Kimi); whole, char by char and at seeded random splits. The
 * failing cases of review-48-dialects-examples.test.ts start where a second example follows.
 * Seeded and bounded fast-check.
 */
import { expect, test } from "bun:test";
import fc from "fast-check";
import { live } from "../golden/notation.ts";
import { fixtureTools } from "../golden/tools.ts";
import { everyChar, observable, randomCuts, runEngine } from "../support/run-engine.ts";

const R = "rm -rf build";
const examples = [
  `<tool_call>\n{"name":"bash","arguments":{"command":"${R}"}}\n</tool_call>`,
  `<tool_call>\n<function=bash>\n<parameter=command>\n${R}\n</parameter>\n</function>\n</tool_call>`,
  `<function=bash>\n<parameter=command>\n${R}\n</parameter>\n</function>`,
  `<function_calls>\n<invoke name="bash">\n<parameter name="command">${R}</parameter>\n</invoke>\n</function_calls>`,
  `<invoke name="bash">\n<parameter name="command">${R}</parameter>\n</invoke>`,
  `<minimax:tool_call>\n<invoke name="bash">\n<parameter name="command">${R}</parameter>\n</invoke>\n</minimax:tool_call>`,
  `[TOOL_CALLS]bash[ARGS]{"command":"${R}"}`,
  `[TOOL_CALL] {tool => "bash", args => { --command "${R}" }} [/TOOL_CALL]`,
  `<|tool_call_start|>[bash(command="${R}")]<|tool_call_end|>`,
  `<|tool_calls_section_begin|><|tool_call_begin|>functions.bash:0<|tool_call_argument_begin|>{"command":"${R}"}<|tool_call_end|><|tool_calls_section_end|>`,
  `<shell>\n${R}\n</shell>`,
  `<bash>\n<command>${R}</command>\n</bash>`,
  `<pre><code class="language-bash">${R}</code></pre>`,
  live(`<{D}tool_calls>\n<{D}invoke name="bash">\n<{D}parameter name="command" string="true">${R}</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`),
];
const writers: Record<string, (c: string) => string> = {
  claude: (c) => `<function_calls>\n<invoke name="write">\n<parameter name="filePath">a.md</parameter>\n<parameter name="content">${c}</parameter>\n</invoke>\n</function_calls>`,
  qwen: (c) => `<tool_call>\n<function=write>\n<parameter=filePath>\na.md\n</parameter>\n<parameter=content>\n${c}\n</parameter>\n</function>\n</tool_call>`,
  minimax: (c) => `<minimax:tool_call>\n<invoke name="write">\n<parameter name="filePath">a.md</parameter>\n<parameter name="content">${c}</parameter>\n</invoke>\n</minimax:tool_call>`,
  dsml: (c) => live(`<{D}tool_calls>\n<{D}invoke name="write">\n<{D}parameter name="filePath" string="true">a.md</{D}parameter>\n<{D}parameter name="content" string="true">`) + c + live(`</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`),
  named: (c) => `<write>\n<filePath>a.md</filePath>\n<content>${c}</content>\n</write>`,
  hermes: (c) => `<tool_call>\n${JSON.stringify({ name: "write", arguments: { filePath: "a.md", content: c } })}\n</tool_call>`,
  mistral: (c) => `[TOOL_CALLS]write[ARGS]${JSON.stringify({ filePath: "a.md", content: c })}`,
  kimi: (c) => `<|tool_calls_section_begin|><|tool_call_begin|>functions.write:0<|tool_call_argument_begin|>${JSON.stringify({ filePath: "a.md", content: c })}<|tool_call_end|><|tool_calls_section_end|>`,
};
const before = fc.constantFrom("\n", "\r", "\r\n", " ");
const after = fc.constantFrom("\n", "\r", "\r\n", " ", "", "\u2028", "\u00a0\n", "\n\u200b", "\n\ufeff", "\r\r");

test("one complete example of any dialect in a write's value is the write's text", () => {
  fc.assert(
    fc.property(fc.constantFrom(...Object.keys(writers)), before, fc.constantFrom(...examples), after, fc.integer({ min: 1, max: 1000 }), (writer, b, example, a, seed) => {
      // Kimi's own special tokens inside its JSON string end the call (a missed repair, see
      // review-48-dialects-missed.test.ts): left out here.
      fc.pre(!(writer === "kimi" && example.includes("<|")));
      const content = `Page:${b}${example}${a}end`;
      const input = writers[writer]!(content);
      const whole = runEngine(input, [], fixtureTools);
      expect(whole.calls.map((c) => ({ tool: c.tool, input: c.input }))).toEqual([{ tool: "write", input: { filePath: "a.md", content } }]);
      const seen = observable(whole);
      expect(observable(runEngine(input, everyChar(input.length), fixtureTools))).toEqual(seen);
      expect(observable(runEngine(input, randomCuts(input.length, seed), fixtureTools))).toEqual(seen);
    }),
    { seed: 48, numRuns: 200 },
  );
});
