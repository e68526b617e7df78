/** Replies for the differential review: prose, documentation holding markup, leaks of several dialects, costumes. */
import fc from "fast-check";
import { D } from "../golden/notation.ts";
import { degradedCall, dsmlBlock, jsonFormCall, newFormatCall, toolCallDialectCall, toolNamedCall } from "./arbitraries.ts";
import type { Scenario } from "./diff-harness.ts";

const prose = fc.constantFrom("Let me check.", "Done, see above.", "I will run it now:", "OK", "The file has `a < b` in it.", "Use **bold** and _it_.", "a | b | c", "Résumé: 你好 \uD83D\uDE00", "Then [TOOL_CALLS] is a token.", "The <tool_call> tag opens a call.");

const leak: fc.Arbitrary<string> = fc.oneof(
  dsmlBlock,
  toolCallDialectCall.map((c) => c.markup),
  newFormatCall.map((c) => c.markup),
  jsonFormCall.map((c) => c.markup),
  degradedCall.map((c) => c.markup),
  toolNamedCall.map((c) => c.markup),
  fc.constantFrom(
    "<shell>\nls -la\n</shell>",
    "<bash>\npwd\n</bash>",
    "<pre><code>shell\nls\n</code></pre>",
    '<function_calls>\n<invoke name="bash">\n<parameter name="command">ls</parameter>\n</invoke>\n</function_calls>',
    `<${D}tool_calls>\n<${D}invoke name="bash">\n<${D}parameter name="command" string="true">echo one</${D}parameter>\n</${D}invoke>\n</${D}tool_calls>`,
    `<${D}tool_calls>\n<${D}invoke name="nosuch">\n<${D}parameter name="x" string="true">1</${D}parameter>\n</${D}invoke>\n</${D}tool_calls>`,
    `<${D}tool_calls>\n<${D}invoke name="bash">\n<${D}parameter name="command" string="true">cut off`,
  ),
);

/** Documentation quoting markup. */
const doc = fc.tuple(leak, fc.constantFrom("fence", "tilde", "indented-fence", "inline", "quote", "list", "indented")).map(([m, kind]) => {
  const oneLine = m.replaceAll("\n", " ");
  switch (kind) {
    case "fence":
      return "```xml\n" + m + "\n```";
    case "tilde":
      return "~~~\n" + m + "\n~~~";
    case "indented-fence":
      return "  ```\n  " + m.split("\n").join("\n  ") + "\n  ```";
    case "inline":
      return "Write `" + oneLine + "` to call.";
    case "quote":
      return "> " + m.split("\n").join("\n> ");
    case "list":
      return "- example:\n\n  ```\n  " + m.split("\n").join("\n  ") + "\n  ```";
    default:
      return "    " + m.split("\n").join("\n    ");
  }
});

export const fragment = fc.oneof({ arbitrary: prose, weight: 4 }, { arbitrary: leak, weight: 3 }, { arbitrary: doc, weight: 3 });

export const separator = fc.constantFrom("\n\n", "\n", " ", "");

/** A reply as its pieces (fragment plus separator): the text, and where a part boundary may fall. */
export const replyPieces = fc.array(fc.tuple(fragment, separator), { minLength: 1, maxLength: 5 }).map((xs) => xs.map(([f, s]) => f + s));

export const replyText = replyPieces.map((xs) => xs.join(""));

/** Groups pieces into parts: `breaks[i]` true ends a part after piece i. */
export const partedReply = fc
  .tuple(fc.array(fc.tuple(fragment, separator), { minLength: 2, maxLength: 5 }), fc.array(fc.boolean(), { minLength: 5, maxLength: 5 }))
  .map(([xs, breaks]) => {
    const parts: string[] = [""];
    xs.forEach(([f, sep], i) => {
      parts[parts.length - 1] += f + sep;
      if (breaks[i] && i < xs.length - 1) parts.push("");
    });
    return parts;
  });

export const scenario: fc.Arbitrary<Scenario> = fc
  .record({
    text: replyText,
    choice: fc.constantFrom<Scenario["choice"]>(undefined, undefined, undefined, "none", "required", { name: "bash" }, { name: "read" }),
    parallelOff: fc.boolean(),
    echo: fc.boolean(),
    nativeBefore: fc.boolean(),
    reasoning: fc.constantFrom(undefined, "Thinking about the files.", "I should call a tool."),
  })
  .map(({ text, choice, parallelOff, echo, nativeBefore, reasoning }) => {
    const s: Scenario = { text };
    if (choice !== undefined) s.choice = choice;
    if (parallelOff) s.parallelOff = true;
    // The echo guard: the user pasted the reply's text (so its markup was given content).
    if (echo) s.given = `Here is what I saw:\n${text}`;
    if (nativeBefore) s.nativeBefore = true;
    if (reasoning) s.reasoning = reasoning;
    return s;
  });
