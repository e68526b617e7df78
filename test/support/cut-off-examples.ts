/**
 * A complete bash call (`rm -rf x`), as a DSML block and as a lone invoke, and the documentation
 * forms it may stand in after a call that was cut off: in each, the example must stay text (live)
 * and stay documentation (in history). Shared by the engine's and history's tests of that rule.
 */
import { live } from "../golden/notation.ts";

export const EXAMPLE_BLOCK = live(`<{D}tool_calls>\n<{D}invoke name="bash">\n<{D}parameter name="command" string="true">rm -rf x</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`);
export const EXAMPLE_INVOKE = live(`<{D}invoke name="bash">\n<{D}parameter name="command" string="true">rm -rf x</{D}parameter>\n</{D}invoke>`);

/** Every line of `s` behind `by`. */
export const indent = (s: string, by: string) => by + s.split("\n").join(`\n${by}`);

/** The example in a fence (backtick or tilde, alone or in a list item), a block quote or an indented code block. */
export const DOCUMENTED_EXAMPLES: Readonly<Record<string, string>> = {
  "a ```xml fence": "```xml\n" + EXAMPLE_BLOCK + "\n```\n",
  "a fence holding only an invoke": "```xml\n" + EXAMPLE_INVOKE + "\n```\n",
  "a tilde fence": "~~~\n" + EXAMPLE_BLOCK + "\n~~~\n",
  "a fence in a list item": "- example:\n\n" + indent("```\n" + EXAMPLE_BLOCK + "\n```", "  ") + "\n",
  "a block quote": indent(EXAMPLE_BLOCK, "> ") + "\n",
  "an indented code block": indent(EXAMPLE_BLOCK, "    ") + "\n",
};
