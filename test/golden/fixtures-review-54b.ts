/**
 * Review 54 (schema, across dialects), the MiniMax bracket findings: the `{ --key VALUE }` pairs
 * of `[TOOL_CALL] {tool => "NAME", args => { ... }} [/TOOL_CALL]` are read as the JSON-valued
 * readers read the same value (src/parse/dialects/minimax-bracket-values.ts): no HTML-entity
 * decoding (P08 is the tag dialects' rule), and a JSON array or object is no string parameter's
 * text. Spread into build-fixtures.ts's list.
 */
import type { Fixture } from "./build-fixtures.ts";
import { bad, ok } from "./fixture-kit.ts";

export function review54b(): Fixture[] {
  return [...bracketValues()];
}

const arrow = (tool: string, pairs: string) => `[TOOL_CALL] {tool => "${tool}", args => { ${pairs} }} [/TOOL_CALL]`;
const GREP = "grep -c '&amp;' index.html";

function bracketValues(): Fixture[] {
  return [
    // Fails on r54-schema: ran `grep -c '&' index.html`, another command than the one written.
    ok("A54.1", "minimax-bracket-quoted-entity-kept", arrow("bash", `--command ${JSON.stringify(GREP)}`), [{ tool: "bash", input: { command: GREP }, shape: "O05" }]),
    // Fails on r54-schema: ran with the command `["ls","-la"]`; `args => {json}` refuses the same array.
    bad("A54.2", "minimax-bracket-array-for-a-string", arrow("bash", '--command ["ls","-la"]'), "invalid-arguments", ["O05"]),
    // Hard negatives: the tag dialects' raw text keeps P08 (Qwen3-Coder), and bracketed text that is no JSON stays text.
    ok("A54.n1", "qwen-parameter-escaped-throughout-still-decoded", `<tool_call>\n<function=bash>\n<parameter=command>\n${GREP}\n</parameter>\n</function>\n</tool_call>`, [{ tool: "bash", input: { command: "grep -c '&' index.html" }, shape: "O02" }]),
    ok("A54.n2", "minimax-bracket-brace-group-stays-text", arrow("bash", "--command { ls; }"), [{ tool: "bash", input: { command: "{ ls; }" }, shape: "O05" }]),
  ];
}
