/**
 * fast-check arbitraries for engine properties: replies assembled from weighted fragments (prose,
 * unicode with surrogate pairs, code with `<` `>` `|`, Markdown fences and code spans, and marker
 * fragments of every family), plus cut positions. Marker characters come from notation.ts only.
 */
import fc from "fast-check";
import { createRepairEngine } from "../../src/engine/engine.ts";
import type { EngineEvent } from "../../src/engine/types.ts";
import type { ParseOptionsInput, RecoveredCall, ToolSpec } from "../../src/parse/types.ts";
import type { EngineRun } from "../support/run-engine.ts";
import { BAR, block, D, DVL, live, SP } from "../golden/notation.ts";

export const legacyToken = (words: string) => `<${BAR}${words.split(" ").join(SP)}${BAR}>`;

/** Sentinels as the model writes them; each replaces `{D}` right after `<` or `</`. */
export const SENTINELS = [D, `${BAR}${BAR}DSML${BAR}${BAR}`, "|DSML|", "||DSML||", `${DVL}DSML${DVL}`, ` | DSML | `, `${D} `];

const WRAPPERS = ["tool_calls", "function_calls", "toolcalls", "tool_use", "calls"];
const TOOL_NAMES = ["bash", "read", "write", "glob", "list_sessions", "AgenticSearch"];
const PARAM_NAMES = ["command", "filePath", "content", "pattern", "description", "limit"];
/** Values safe inside a fence: no backtick or tilde runs, no line starting with a fence. */
const VALUES = ["ls -la", "/a/b.ts", "a < b && c > d", "x\ny", "", "12", "你好", "\uD83D\uDE00 ok", "| a | b |", "{\"a\":1}", "Vec<String>", '<r><parameter name="a">1</parameter></r>'];

/** A DSML block with any sentinel variant: one to three invokes, zero to three parameters each. */
export const dsmlBlock: fc.Arbitrary<string> = fc
  .record({
    wrapper: fc.constantFrom(...WRAPPERS),
    sentinel: fc.constantFrom(...SENTINELS),
    invokes: fc.array(
      fc.tuple(
        fc.constantFrom(...TOOL_NAMES),
        fc.array(fc.tuple(fc.constantFrom(...PARAM_NAMES), fc.constantFrom(...VALUES), fc.constantFrom("true", "false")), { maxLength: 3 }),
      ),
      { minLength: 1, maxLength: 3 },
    ),
  })
  .map(({ wrapper, sentinel, invokes }) => block(wrapper, invokes).replaceAll("{D}", sentinel));

const words = ["the", "file", "Let me check.", "Done", "I will run", "tool_calls", "DSML", "invoke", "name", "parameter", "OK,", "then"];
const unicode = ["你好世界", "\uD83D\uDE00", "\uD83D\uDC4D\uD83C\uDFFD", "\uD835\uDCB3", "é", "Ω", "ñ", "\u0301", "\uD83C\uDDEB\uD83C\uDDF7", "한국어", "العربية"];
const codeLines = [
  "if (a < b && c > d) {",
  "x <- y",
  "| col | DSML |",
  "|---|---|",
  "a || b",
  "Vec<String>",
  "<b>bold</b>",
  "i<n; i++",
  "echo a | grep b",
  "<div class=\"x\">",
  "a <= b >= c",
  "<!-- c -->",
  "</",
  "<>",
];
const fences = ["```", "```ts", "```bash", "~~~", "````", "~~~~~", "\n```\n", "\n~~~\n"];
const markers = [
  `<${D}tool_`,
  `<${D}`,
  D,
  BAR,
  DVL,
  "|",
  "|DSML|",
  `${BAR}${BAR}DSML${BAR}${BAR}`,
  `<${D}tool_calls>`,
  `<${D}tool_calls`,
  `<${D}invoke name="bash">`,
  `<${D}invoke name="read">\n`,
  `<${D}parameter name="command" string="true">`,
  `<${D}parameter name="filePath" string="true">/x`,
  `</${D}parameter>`,
  `</${D}invoke>`,
  `</${D}tool_calls>`,
  `</${D}parametr>`,
  `${D}invoke name="bash">`,
  `<${D}invoke name="record_item {\n`,
  `<${D}toolcall>read\n\n\`\`\`json\n{"filePath":"/a"}\n\`\`\``,
  legacyToken("tool calls begin"),
  legacyToken("tool call begin"),
  legacyToken("tool sep"),
  legacyToken("tool call end"),
  legacyToken("tool calls end"),
  legacyToken("end of sentence"),
  `bash${legacyToken("tool sep")}{"command":"ls"}`,
  "<shell>",
  "</shell>",
  "<shell>\nls -la\n</shell>",
  "<pre><code>",
  "</code></pre>",
  "<pre><code>shell\nls\n</code></pre>",
  "<python>",
  "<tool_call><tool_name>execute</tool_name><tool_args><language>sh</language><code>ls</code></tool_args></tool_call>",
  "<function><name>bash</name>",
  "</function>",
  '<invoke name="read">',
  '<parameter name="filePath" string="true">/a/b</parameter>',
  "</invoke>",
  '{"command":"ls -la"}',
  // other models' dialects (O01-O08)
  '<tool_call>\n{"name": "bash", "arguments": {"command": "ls"}}\n</tool_call>',
  "<tool_call>\n<function=bash>\n<parameter=command>\nls\n</parameter>\n</function>\n</tool_call>",
  "<function=read>",
  "<parameter=filePath>",
  "<tool_call>read\n<arg_key>filePath</arg_key>\n<arg_value>/a</arg_value>\n</tool_call>",
  '<|tool_calls_section_begin|><|tool_call_begin|>functions.bash:0<|tool_call_argument_begin|>{"command":"ls"}<|tool_call_end|><|tool_calls_section_end|>',
  "<|tool_call_begin|>",
  '<minimax:tool_call>\n<invoke name="bash">\n<parameter name="command">ls</parameter>\n</invoke>\n</minimax:tool_call>',
  '[TOOL_CALLS]bash[ARGS]{"command":"ls"}',
  "[TOOL_CALLS]",
  "[ARGS]",
  "[TOOL_",
  'bash[ARGS]{"command":"ls"}',
  '<function_calls>\n<invoke name="bash">\n<parameter name="command">ls</parameter>\n</invoke>\n</function_calls>',
  "<|tool_call_start|>[bash(command='ls')]<|tool_call_end|>",
  "a[0] = [1, 2]",
  // issue 11: back-to-back calls, openers after prose on the same line, zero-argument calls, mentions
  '<tool_call>\n{"name": "bash", "arguments": {"command": "ls"}}\n</tool_call><tool_call>\n{"name": "read", "arguments": {"filePath": "/a"}}\n</tool_call>',
  "<tool_call>read<arg_key>filePath</arg_key><arg_value>/a</arg_value></tool_call><tool_call>bash<arg_key>command</arg_key><arg_value>ls</arg_value></tool_call>",
  'Let me check.<tool_call>\n{"name": "read", "arguments": {"filePath": "/a"}}\n</tool_call>',
  "Now.<tool_call>\n<function=bash>\n<parameter=command>\nls\n</parameter>\n</function>\n</tool_call>",
  "<tool_call>list_sessions</tool_call>",
  "<tool_call>list_sessions\n</tool_call>",
  "<tool_call>",
  "</tool_call>",
  "<tool_call>read",
  "<arg_key>filePath</arg_key>",
  "<arg_value>",
  '<tool_call>{"name": ',
  "use <tool_call> tags",
  "<tool_call>\n<function=read>\n<parameter=filePath>\n/a\n<parameter=limit>\n5\n</parameter>\n</function>",
  // issue 11 items 7 and 10: plain markup in DSML values, Mistral without [ARGS], LFM2 JSON lists, execute costumes in other languages
  `<${D}parameter name="content" string="true"><r><parameter name="a">1</parameter></r></${D}parameter>`,
  `<${D}parameter name="content" string="true"><invoke name="x"><parameter name="a">1</parameter></invoke></${D}parameter>`,
  "</parameter>",
  '<parameter name="a">',
  '[TOOL_CALLS]bash{"command":"ls"}',
  '[TOOL_CALLS]read{"filePath":"/a"}[TOOL_CALLS]bash{"command":"ls"}',
  "[TOOL_CALLS]NAME{json}",
  '<|tool_call_start|>[{"name": "bash", "arguments": {"command": "ls"}}]<|tool_call_end|>',
  "<|tool_call_start|>",
  "<|tool_call_end|>",
  "<tool_call><tool_name>execute</tool_name><tool_args><language>ruby</language><code>puts 1</code></tool_args></tool_call>",
  "<execute_bash>\nls\n</execute_bash>",
  "<execute_ruby>",
  "</execute_ruby>",
  // issue 29 items 1-3: self-closing parameters, argument-key aliases, unread body text, values that do not fit the schema
  `<${D}invoke name="command" string="echo alpha" />`,
  `<${D}parameter name="limit" value="5"/>`,
  '<tool_call>\n{"name": "bash", "args": {"command": "ls"}}\n</tool_call>',
  '<tool_call>\n{"name": "list_sessions", "verbose": true}\n</tool_call>',
  `<${D}parameter name="todos" string="false">[...]</${D}parameter>`,
  `<${D}invoke name="todowrite">\n<${D}parameter name="todos" string="false">[{"content":"a","status":"doing"}]</${D}parameter>\n</${D}invoke>`,
  "timeout: 600\n",
  "  <",
  // issue 29 items 5-6: tool-named elements (DSML and plain), other agents' tool names, and their negatives
  `<${D}bash>\n<${D}command>ls</${D}parameter>\n<timeout>5</timeout>\n</${D}invoke>`,
  `<${D}read_file>`,
  `</${D}read_file>`,
  `<${D}filePath>/a</${D}filePath>`,
  "<read>\n<filePath>/a</filePath>\n</read>",
  "\n<read_file>\n<path>a</path>\n</read_file>",
  "<read_file>",
  "</read_file>",
  "<path>a</path>",
  "\n<execute_command>\n<command>ls</command>\n</execute_command>",
  "<execute_command>\n<command>ls</command>\n<requires_approval>true</requires_approval>\n</execute_command>",
  "<bash>\n<cmd>ls</cmd>\n</bash>",
  "<table>\n<tr><td>1</td></tr>\n</table>",
  "<read>\n<div>a</div>\n</read>",
  "<rea",
  `<${D}invoke name="execute_command">\n<${D}parameter name="command" string="true">ls</${D}parameter>\n</${D}invoke>`,
  // issue 29 items 8, 10, 12 and the nudges: MiniMax brackets, double-encoded arguments, JSON standing alone, cut-off calls
  '[TOOL_CALL] {tool => "bash", args => { --command "ls" }} [/TOOL_CALL]',
  '[TOOL_CALL]\n{"tool": "read", "args": {"filePath": "/a"}}\n[/TOOL_CALL]',
  "[TOOL_CALL]",
  "[/TOOL_CALL]",
  "[TOOL_CALL] {tool => ",
  '[TOOL_CALLS]read[ARGS]"{\\"filePath\\": \\"/a\\"}"',
  '<|tool_calls_section_begin|><|tool_call_begin|>functions.bash:0<|tool_call_argument_begin|>"{\\"command\\": \\"ls\\"}"<|tool_call_end|><|tool_calls_section_end|>',
  '\n\n{"name": "bash", "arguments": {"command": "ls"}}\n\n',
  '\n\n[{"name": "read", "arguments": {"filePath": "/a"}}]',
  '{"tool_calls": [{"name": "bash", "arguments": {"command": "ls"}}]}\n\n',
  '{"name": ',
  '{"names": [1]}',
  '<tool_call>\n{"name": "bash", "arguments": {"command": "l\nDone.',
  '<invoke name="bash"',
  "</tool_ca",
  // issue 29 items 4, 7, 9, 11: typographic quotes, wrapperless and namespaced Claude-style invokes, `<tool_call name=>`, lost `<`
  `<${D}invoke name=\u201Cbash\u201D>`,
  `<${D}parameter name=\u2018command\u2019 string=\uFF02true\uFF02>`,
  "name=\u201C",
  "call\n",
  "count\n",
  "calls",
  '<invoke name="bash">\n<parameter name="command">ls</parameter>\n</invoke>',
  "<xx:function_calls>",
  "</xx:function_calls>",
  "</function_calls>",
  "<xx:invoke name=\"read\">",
  "<ns:",
  '<tool_call name="bash">{"command": "ls"}</tool_call>',
  '<tool_call name="read">',
  "<tool_call>list_sessions</arg_value>",
  "</arg_value>",
  "|tool_call_begin|>functions.bash:0|tool_call_argument_begin|>{\"command\":\"ls\"}|tool_call_end|>",
  "|tool_call_begin|>",
  "|tool",
  "<|tool_calls_section_end|>",
  `/${D}parameter>`,
  `/${D}invoke>`,
  `${D}parameter name="command" string="true">`,
  "a/b/",
];

const pick = (xs: string[]) => fc.constantFrom(...xs);

/** One fragment of a reply, weighted towards prose with markers common enough to interact. */
export const fragment: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: pick(words).map((w) => `${w} `), weight: 6 },
  { arbitrary: pick(unicode), weight: 3 },
  { arbitrary: pick(codeLines), weight: 3 },
  { arbitrary: pick(fences), weight: 2 },
  { arbitrary: pick(["`", "``", "`x`"]), weight: 2 },
  { arbitrary: pick(["\n", "\n\n", "    ", "\t", "> ", "\r\n", " "]), weight: 4 },
  { arbitrary: pick(markers), weight: 5 },
  { arbitrary: dsmlBlock, weight: 3 },
  { arbitrary: fc.string({ maxLength: 6 }), weight: 1 },
);

export const replyText = (maxFragments = 24): fc.Arbitrary<string> => fc.array(fragment, { maxLength: maxFragments, size: "max" }).map((parts) => parts.join(""));

/** One complete `<tool_call>` call in a dialect that uses that wrapper, with the call it must yield. */
export const toolCallDialectCall: fc.Arbitrary<{ markup: string; tool: string; input: Record<string, unknown> }> = fc.oneof(
  fc.constantFrom<[string, string]>(["bash", "command"], ["read", "filePath"], ["glob", "pattern"]).chain(([tool, key]) =>
    fc.tuple(fc.constantFrom("ls", "/a/b.ts", "a < b", "x y"), fc.constantFrom("hermes", "qwen", "glm45", "glm47")).map(([value, format]) => {
      const markup =
        format === "hermes"
          ? `<tool_call>\n${JSON.stringify({ name: tool, arguments: { [key]: value } })}\n</tool_call>`
          : format === "qwen"
            ? `<tool_call>\n<function=${tool}>\n<parameter=${key}>\n${value}\n</parameter>\n</function>\n</tool_call>`
            : format === "glm45"
              ? `<tool_call>${tool}\n<arg_key>${key}</arg_key>\n<arg_value>${value}</arg_value>\n</tool_call>`
              : `<tool_call>${tool}<arg_key>${key}</arg_key><arg_value>${value}</arg_value></tool_call>`;
      return { markup, tool, input: { [key]: value } };
    }),
  ),
  fc.constantFrom("<tool_call>list_sessions</tool_call>", "<tool_call>list_sessions\n</tool_call>").map((markup) => ({ markup, tool: "list_sessions", input: {} })),
);

/**
 * One complete call in a format of issue 11 items 7 and 10 (a DSML value holding plain markup,
 * Mistral without `[ARGS]`, LFM2's JSON list), with the call it must yield.
 */
export const newFormatCall: fc.Arbitrary<{ markup: string; tool: string; input: Record<string, unknown> }> = fc
  .tuple(fc.constantFrom<[string, string]>(["bash", "command"], ["read", "filePath"], ["glob", "pattern"]), fc.constantFrom("ls", "/a/b.ts", "a < b", '<r><parameter name="a">1</parameter></r>', '<function_calls><invoke name="x"></invoke></function_calls>'), fc.constantFrom("dsml", "mistral", "lfm2"))
  .map(([[tool, key], value, format]) => {
    const json = JSON.stringify({ [key]: value });
    const markup =
      format === "dsml"
        ? `<${D}tool_calls>\n<${D}invoke name="${tool}">\n<${D}parameter name="${key}" string="true">${value}</${D}parameter>\n</${D}invoke>\n</${D}tool_calls>`
        : format === "mistral"
          ? `[TOOL_CALLS]${tool}${json}`
          : `<|tool_call_start|>[${JSON.stringify({ name: tool, arguments: { [key]: value } })}]<|tool_call_end|>`;
    return { markup, tool, input: { [key]: value } };
  });

/**
 * Issue 29 items 5-6: one complete tool-named element (DSML closed by the invoke closer or its own,
 * DSML with a plain child, or plain on lines of its own), under the declared name or another
 * agent's name for it, with the call it must yield.
 */
export const toolNamedCall: fc.Arbitrary<{ markup: string; tool: string; input: Record<string, unknown> }> = fc
  .tuple(
    fc.constantFrom<[string, string, string, string]>(
      ["bash", "command", "bash", "command"], ["read", "filePath", "read", "filePath"], ["glob", "pattern", "glob", "pattern"],
      ["execute_command", "command", "bash", "command"], ["read_file", "path", "read", "filePath"],
    ),
    fc.constantFrom("ls", "/a/b.ts", "a < b", "x y", "2&gt;/dev/null", "<p>hi</p>"),
    fc.constantFrom("dsml-invoke-closer", "dsml-own-closer", "dsml-plain-child", "plain"),
  )
  .map(([[tool, key, target, targetKey], value, form]) => {
    const markup =
      form === "plain"
        ? `\n<${tool}>\n<${key}>${value}</${key}>\n</${tool}>\n`
        : form === "dsml-invoke-closer"
          ? `<${D}${tool}>\n<${D}${key}>${value}</${D}parameter>\n</${D}invoke>`
          : form === "dsml-own-closer"
            ? `<${D}${tool}><${D}${key}>${value}</${D}${key}></${D}${tool}>`
            : `<${D}${tool}>\n<${key}>${value}</${key}>\n</${D}${tool}>`;
    return { markup, tool: target, input: { [targetKey]: value === "2&gt;/dev/null" ? "2>/dev/null" : value } };
  });

/** Prose that mentions a tool-named element: mid-line, or at a line start followed by words. */
export const toolNamedMention: fc.Arbitrary<string> = fc
  .tuple(
    fc.constantFrom("Cline writes ", "Use ", "", "\n", "Never write "),
    // Not `<bash>` or `<execute_command>`: at a line start those are code costumes, held to their closer (C04).
    fc.constantFrom("<read_file>", "<read>", "<write_to_file>", "<read_file><path>a</path>", "<read><filePath>a</filePath></read>"),
    fc.constantFrom(" tags", " then the parameters", "{ then nothing }", " and so on"),
    fc.constantFrom(" and more words.", ", see the docs.", " ok"),
  )
  .map((parts) => parts.join(""));

/**
 * One complete call in a form of issue 29 items 8 and 10 (MiniMax's bracket form, arrows or JSON;
 * arguments double-encoded as a JSON string literal in Kimi, Mistral and Hermes), with its call.
 */
export const jsonFormCall: fc.Arbitrary<{ markup: string; tool: string; input: Record<string, unknown> }> = fc
  .tuple(fc.constantFrom<[string, string]>(["bash", "command"], ["read", "filePath"], ["glob", "pattern"]), fc.constantFrom("ls", "/a/b.ts", "a < b", 'say "hi"', "x {y}"), fc.constantFrom("arrow", "arrow-lines", "bracket-json", "kimi", "mistral", "hermes"))
  .map(([[tool, key], value, format]) => {
    const json = JSON.stringify({ [key]: value });
    const markup =
      format === "arrow"
        ? `[TOOL_CALL] {tool => "${tool}", args => { --${key} ${JSON.stringify(value)} }} [/TOOL_CALL]`
        : format === "arrow-lines"
          ? `[TOOL_CALL]\n{tool => "${tool}", args => {\n  --${key} ${JSON.stringify(value)}\n}}\n[/TOOL_CALL]`
          : format === "bracket-json"
            ? `[TOOL_CALL] ${JSON.stringify({ tool, args: { [key]: value } })} [/TOOL_CALL]`
            : format === "kimi"
              ? `<|tool_calls_section_begin|><|tool_call_begin|>functions.${tool}:0<|tool_call_argument_begin|>${JSON.stringify(json)}<|tool_call_end|><|tool_calls_section_end|>`
              : format === "mistral"
                ? `[TOOL_CALLS]${tool}[ARGS]${JSON.stringify(json)}`
                : `<tool_call>\n${JSON.stringify({ name: tool, arguments: JSON.stringify(json) })}\n</tool_call>`;
    return { markup, tool, input: { [key]: value } };
  });

/** Prose that mentions MiniMax's bracket tokens: no call, and nothing held once the sentence moved past it. */
export const bracketMention: fc.Arbitrary<string> = fc
  .tuple(
    fc.constantFrom("MiniMax writes ", "Wrap it in ", "The format is ", ""),
    fc.constantFrom("[TOOL_CALL]", "[/TOOL_CALL]"),
    fc.constantFrom(" tags", ' {tool => "name", args => {...}} [/TOOL_CALL]', " and [/TOOL_CALL] tokens", " {\n\nthen words"),
    fc.constantFrom(" and more words.", ", see the docs.", " ok"),
  )
  .map((parts) => parts.join(""));

/**
 * One complete call in a degraded form of issue 29 items 4, 7, 9 and 11 that opens wherever it
 * starts (typographic attribute quotes, a namespaced Claude-style wrapper, a bare invoke with a
 * lone wrapper closer after it, `<tool_call name=>` with JSON arguments, GLM's value closer, Kimi
 * without its section opener or its `<`, DSML with every `<` lost), with the call it must yield.
 */
export const degradedCall: fc.Arbitrary<{ markup: string; tool: string; input: Record<string, unknown> }> = fc.oneof(
  fc
    .tuple(
      fc.constantFrom<[string, string]>(["bash", "command"], ["read", "filePath"], ["glob", "pattern"]),
      fc.constantFrom("ls", "/a/b.ts", "a < b", "x y"),
      fc.constantFrom("curly", "namespaced", "lone-closer", "named", "kimi-lost-lt", "kimi-section-end", "dsml-lost-lt"),
    )
    .map(([[tool, key], value, form]) => {
      const json = JSON.stringify({ [key]: value });
      const claude = (p: string) => `<${p}invoke name="${tool}">\n<${p}parameter name="${key}">${value}</${p}parameter>\n</${p}invoke>`;
      const kimi = (lt: string, end: string) => `${lt}|tool_call_begin|>functions.${tool}:0${lt}|tool_call_argument_begin|>${json}${end}`;
      const markup =
        form === "curly"
          ? `<${D}tool_calls>\n<${D}invoke name=\u201C${tool}\u201D>\n<${D}parameter name=\u2018${key}\u2019 string=\uFF02true\uFF02>${value}</${D}parameter>\n</${D}invoke>\n</${D}tool_calls>`
          : form === "namespaced"
            ? `<xx:function_calls>\n${claude("")}\n</xx:function_calls>`
            : form === "lone-closer"
              ? `${claude("")}\n</xx:function_calls>`
              : form === "named"
                ? `<tool_call name="${tool}">${json}</tool_call>`
                : form === "kimi-lost-lt"
                  ? kimi("", "|tool_call_end|>")
                  : form === "kimi-section-end"
                    ? kimi("<", "<|tool_calls_section_end|>")
                    : `${D}tool_calls>\n${D}invoke name="${tool}">\n${D}parameter name="${key}" string="true">${value}/${D}parameter>\n/${D}invoke>\n/${D}tool_calls>`;
      return { markup, tool, input: { [key]: value } };
    }),
  fc.constant({ markup: "<tool_call>list_sessions</arg_value>", tool: "list_sessions", input: {} }),
);

/** The same forms (and a stray wrapper line before a bare invoke) as markup only: what documentation may quote. */
export const degradedMarkup: fc.Arbitrary<string> = fc.oneof(
  degradedCall.map((c) => c.markup),
  fc.constantFrom("call", "count", "calls").map((w) => `${w}\n<invoke name="bash">\n<parameter name="command">ls</parameter>\n</invoke>`),
);

/** Prose that discusses a degraded form: no call, no nudge, and nothing held once the sentence moved past it. */
export const degradedMention: fc.Arbitrary<string> = fc
  .tuple(
    fc.constantFrom("Models write ", "The ", "I will\ncall\n", ""),
    fc.constantFrom(
      '<tool_call name="bash"> then JSON',
      "<xx:function_calls> tags",
      "|tool_call_begin|> and an id",
      `${D}invoke name="bash"> when brackets are lost`,
      `<${D}invoke name=\u201Cbash\u201D> with smart quotes`,
      '<invoke name="bash"> is how it starts',
      "</xx:function_calls> at the end",
    ),
    fc.constantFrom(" and more words.", ", see the docs.", " ok"),
  )
  .map((parts) => parts.join(""));

/** Prose that mentions a Mistral or LFM2 token: what follows is no call, so nothing is held past it. */
export const tokenMention: fc.Arbitrary<string> = fc
  .tuple(
    fc.constantFrom("Mistral emits ", "The ", "LFM2 starts with ", ""),
    fc.constantFrom("[TOOL_CALLS]", "<|tool_call_start|>"),
    fc.constantFrom(" before each call", "NAME then JSON", " tokens", "{ then nothing }", " and <|tool_call_end|> after"),
    fc.constantFrom(" and more words.", ", see the docs.", " ok"),
  )
  .map((parts) => parts.join(""));

/** Prose that mentions `<tool_call>` on a line: what follows the opener is no call body, so nothing is held past it. */
export const toolCallMention: fc.Arbitrary<string> = fc
  .tuple(
    fc.constantFrom("Use ", "The ", "GLM writes ", "Qwen puts ", ""),
    fc.constantFrom(" tags", " opener is followed by JSON", '{"name": ...} here', "read<arg_key>... and so on", "<function=bash> then", '{"name": "bash", "arguments": {}} is one line', "\n\nthen prose"),
    fc.constantFrom(" and more words.", ", see the docs.", " ok"),
  )
  // At a line start, a body that began as a call (`{"name"`, `<function=…>`, a GLM name and
  // `<arg_key>`) and then broke is a refused call with its nudge (goldens O48.2-O48.4), not a mention.
  .filter(([before, after]) => !(before === "" && ['{"name": ...} here', "<function=bash> then", "read<arg_key>... and so on"].includes(after)))
  .map(([before, after, end]) => `${before}<tool_call>${after}${end}`);

/** A reply that starts with a recovered call, so later text goes through the post-call tail (S03). */
export const afterCallReply = (maxFragments = 24): fc.Arbitrary<string> =>
  fc
    .tuple(fc.oneof(dsmlBlock, pick(["<shell>\nls -la\n</shell>", `${legacyToken("tool call begin")}bash${legacyToken("tool sep")}{"command":"ls"}${legacyToken("tool call end")}`])), replyText(maxFragments))
    .map(([call, rest]) => call + rest);

/** Text that can never start a marker: no `<`, fullwidth bar, `|`, double vertical line or `[` (Mistral). */
export const plainText: fc.Arbitrary<string> = fc
  .array(
    fc.oneof(
      { arbitrary: pick(words).map((w) => `${w} `), weight: 5 },
      { arbitrary: pick(unicode), weight: 3 },
      { arbitrary: pick(["```", "~~~", "`", "\n", "\n\n", "    ", "a > b", "x = 1;", "&amp;", SP, "DSML", "\r\n", "\0"]), weight: 3 },
      { arbitrary: fc.string({ maxLength: 8, unit: "binary" }), weight: 2 },
    ),
    { maxLength: 30 },
  )
  .map((parts) => parts.join("").replace(/[<|\uFF5C\u2016[]/g, "_"));

/** Whether the code unit at `i` is the low half of a surrogate pair (a cut at `i` splits the pair). */
export const splitsPair = (s: string, i: number) => {
  const hi = s.charCodeAt(i - 1);
  const lo = s.charCodeAt(i);
  return hi >= 0xd800 && hi <= 0xdbff && lo >= 0xdc00 && lo <= 0xdfff;
};

/** Sorted unique cut offsets in (0, length) from raw numbers; optionally every surrogate-pair split too. */
export function toCuts(text: string, raw: readonly number[], splitPairs: boolean): number[] {
  const set = new Set<number>();
  if (text.length > 1) for (const n of raw) set.add(1 + (n % (text.length - 1)));
  if (splitPairs) for (let i = 1; i < text.length; i++) if (splitsPair(text, i)) set.add(i);
  return [...set].sort((a, b) => a - b);
}

/** A reply and a way to cut it into deltas. */
export const cutReply = (text: fc.Arbitrary<string>) =>
  fc.tuple(text, fc.uniqueArray(fc.nat(), { maxLength: 40, size: "max" }), fc.boolean()).map(([input, raw, pairs]) => ({ input, cuts: toCuts(input, raw, pairs) }));

export interface CheckedRun extends EngineRun {
  /** Per feed: characters held after it. */
  heldAfter: number[];
  /** Per feed: the delta fed. */
  deltas: string[];
  /** Per feed: text released by that feed. */
  released: string[];
}

export interface FeedOptions {
  bufferLimit?: number;
  parse?: ParseOptionsInput;
  native?: boolean;
}

/** Like runEngine, but records held characters and released text per feed. */
export function feedCuts(input: string, cuts: readonly number[], tools: readonly ToolSpec[], options: FeedOptions = {}): CheckedRun {
  const engine = createRepairEngine({ tools, parse: options.parse, bufferLimit: options.bufferLimit, idPrefix: "call_" });
  if (options.native) engine.noteNativeToolCall();
  let text = "";
  const calls: RecoveredCall[] = [];
  const heldAfter: number[] = [];
  const deltas: string[] = [];
  const released: string[] = [];
  const take = (events: EngineEvent[]) => {
    let out = "";
    for (const e of events) {
      if (e.type === "text") out += e.text;
      else calls.push(e.call);
    }
    text += out;
    return out;
  };
  let prev = 0;
  for (const cut of [...cuts, input.length]) {
    const delta = input.slice(prev, cut);
    deltas.push(delta);
    released.push(take(engine.feed(delta)));
    heldAfter.push(engine.held);
    prev = cut;
  }
  take(engine.flush());
  return { text, calls, summary: engine.summary(), maxHeld: Math.max(0, ...heldAfter), heldAfter, deltas, released };
}

export const heldBound = (bufferLimit: number) => 2 * bufferLimit + 512;

export { live };
