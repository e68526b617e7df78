/**
 * Review 57 (dialects): a legacy token inside a JSON string of a token dialect's call (DeepSeek
 * V3/V3.1 legacy, Kimi K2) is that value's text: a write whose content documents a Kimi call runs
 * as the write, its content whole, and the example never runs (D57.4); with the example's quotes
 * left raw the write's JSON is malformed, and it is refused whole, text kept (D57.4b). An end token
 * inside a string with no example open in it is still the call's own end: a call cut mid-string
 * and closed is broken, and a real call after it runs (D57.n4). Mistral's v11 tokenizers write a
 * call id between the name and `[ARGS]` (`[TOOL_CALLS]NAME[CALL_ID]ID[ARGS]{json}`): the id is
 * dropped and the call runs (D57.5); an id that is no run of letters and digits (JSON here) makes
 * the span no call, its JSON never the arguments (D57.n5). Spread into build-fixtures.ts's list.
 */
import type { Fixture } from "./build-fixtures.ts";
import { bad, ls, ok, none } from "./fixture-kit.ts";

const kimiCall = (name: string, args: string) => `<|tool_call_begin|>functions.${name}:0<|tool_call_argument_begin|>${args}<|tool_call_end|>`;
const kimiSection = (calls: string) => `<|tool_calls_section_begin|>${calls}<|tool_calls_section_end|>`;
const legacyCall = (name: string, args: string) => `<{BAR}tool{SP}call{SP}begin{BAR}>${name}<{BAR}tool{SP}sep{BAR}>${args}<{BAR}tool{SP}call{SP}end{BAR}>`;
const legacySection = (calls: string) => `<{BAR}tool{SP}calls{SP}begin{BAR}>${calls}<{BAR}tool{SP}calls{SP}end{BAR}>`;

export function review57Dialects(): Fixture[] {
  const content = `Call it like this:\n${kimiCall("list_sessions", "{}")}\n`;
  const rawQuotes = legacySection(legacyCall("write", `{"filePath": "a.md", "content": "${legacyCall("bash", '{"command": "rm -rf ~"}')}"}`));
  const cut = kimiSection(kimiCall("write", '{"filePath": "a.md", "content": "abc'));
  return [
    ok("D57.4", "kimi-write-whose-content-holds-a-kimi-call-runs-as-the-write", kimiSection(kimiCall("write", JSON.stringify({ filePath: "docs/calls.md", content }))), [
      { tool: "write", input: { filePath: "docs/calls.md", content }, shape: "O04" },
    ]),
    bad("D57.4b", "legacy-write-holding-a-legacy-call-with-raw-quotes-no-call", rawQuotes, "broken-markup", ["L02"]),
    bad("D57.n4", "kimi-call-cut-mid-string-and-closed-then-a-real-call-runs", `${cut}\n${kimiSection(kimiCall("bash", '{"command": "ls -la"}'))}`, "broken-markup", ["O04"], `${cut}\n`, [ls("O04")]),
    ok("D57.5", "mistral-call-with-its-call-id-runs", '[TOOL_CALLS]bash[CALL_ID]a1b2c3d4e[ARGS]{"command": "ls -la"}', [ls("O06")]),
    none("D57.n5", "mistral-call-id-holding-json-no-call", '[TOOL_CALLS]bash[CALL_ID]{"command": "rm -rf ~"}[ARGS]{"command": "ls"}'),
  ];
}
