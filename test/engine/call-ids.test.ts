// Recovered call ids (review 46): OpenCode scrubs a tool call id for Mistral and Devstral to the
// first nine letters and digits (`id.replace(/[^a-zA-Z0-9]/g, "").substring(0, 9).padEnd(9, "0")`),
// and Mistral's API takes nothing else. The default ids must stay distinct under that scrub: within
// a reply, across the engines of its parts, and across replies.
import { describe, expect, test } from "bun:test";
import { createRepairEngine } from "../../src/engine/engine.ts";
import type { EngineOptions } from "../../src/engine/types.ts";
import { fixtureTools } from "../golden/tools.ts";

const mistralId = (id: string) => id.replace(/[^a-zA-Z0-9]/g, "").substring(0, 9).padEnd(9, "0");
const call = (command: string) => `<tool_call>{"name":"bash","arguments":{"command":"${command}"}}</tool_call>\n`;

function idsOf(text: string, options: Partial<EngineOptions> = {}): string[] {
  const engine = createRepairEngine({ tools: fixtureTools, ...options });
  return [...engine.feed(text), ...engine.flush()].flatMap((e) => (e.type === "call" ? [e.call.id] : []));
}

describe("recovered call ids", () => {
  test("are nine letters and digits, which the Mistral scrub leaves as they are", () => {
    const ids = idsOf(call("ls") + call("pwd") + call("date"));
    expect(ids).toHaveLength(3);
    for (const id of ids) {
      expect(id).toMatch(/^[0-9a-z]{9}$/);
      expect(mistralId(id)).toBe(id);
    }
  });

  test("stay distinct within one engine, across engines and across many calls", () => {
    const ids = [...idsOf(call("ls") + call("pwd")), ...idsOf(call("ls")), ...Array.from({ length: 50 }, (_, i) => idsOf(call(`echo ${i}`))).flat()];
    expect(ids).toHaveLength(53);
    expect(new Set(ids.map(mistralId)).size).toBe(53);
  });

  test("an explicit idPrefix is still followed by the call's number", () => {
    expect(idsOf(call("ls") + call("pwd"), { idPrefix: "call_" })).toEqual(["call_1", "call_2"]);
  });
});
