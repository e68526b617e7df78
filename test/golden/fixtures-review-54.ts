/**
 * Review 54: the Hermes wrapper named in a sentence (`Use <tool_call> here.`), never closed, before
 * a call in a paragraph of its own. The word after the opener ends in sentence punctuation no tool
 * name ends in, and a blank line ends its paragraph: the opener is a mention, kept as text, and the
 * call after it runs (N54.1). On the next line, with no blank line between, the wrapper is laid out
 * over lines and what follows is its body: a call written in two dialects is refused whole as
 * before (N54.n1, O51.1). Spread into build-fixtures.ts's list.
 */
import type { Fixture } from "./build-fixtures.ts";
import { bad, ls, ok } from "./fixture-kit.ts";
import { block } from "./notation.ts";

export function review54(): Fixture[] {
  const mention = "Use <tool_call> here.";
  const dsml = block("tool_calls", [["bash", [["command", "ls -la"]]]]);
  const hermesBody = '{"name": "bash", "arguments": {"command": "ls -la"}}\n</tool_call>';
  return [
    ok("N54.1", "tool-call-wrapper-mentioned-in-a-sentence-then-a-dsml-call-in-its-own-paragraph", `${mention}\n\n${dsml}`, [ls("D02")], `${mention}\n\n`),
    bad("N54.n1", "tool-call-wrapper-mentioned-then-a-hermes-body-on-the-next-line", `${mention}\n${hermesBody}`, "broken-markup", ["O03"]),
  ];
}
