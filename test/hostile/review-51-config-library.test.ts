/**
 * Hostile review 51 (options), the library's reading (src/options/settle.ts settleOptions): a
 * namespace given as no object. LIBRARY.md: "A value of the wrong type is checked as the plugin
 * checks it, with one `debug` line naming its path". The plugin's reading says so for each
 * (`option "parse" must be an object (got false); using its defaults`); the library does for
 * `responseFix: false`, but not for `parse`, `parse.dialects` or `history`.
 */
import { describe, expect, test } from "bun:test";
import { resolveOptions } from "../../src/plugin/options.ts";
import { fixtureTools } from "../golden/tools.ts";
import { completion, openAiTools, throughFetch, type Json } from "../security/support.ts";

const USER: Json[] = [{ role: "user", content: "List the files." }];
/** A Hermes-format leak (dialect `hermes`, on by default). */
const HERMES_LEAK = 'Listing:\n<tool_call>\n{"name": "bash", "arguments": {"command": "ls", "description": "list"}}\n</tool_call>';

async function run(options: Json) {
  const debug: string[] = [];
  const { out } = await throughFetch({ messages: USER, tools: openAiTools(fixtureTools) }, { json: completion(HERMES_LEAK) }, { ...options, debug: (line) => debug.push(line) });
  return { calls: out.calls.map((call) => call.name), debug };
}

describe("a parse or history namespace that is no object", () => {
  // FINDING (severity: wrong message; silent bad config). `parse: false` or
  // `parse: { dialects: false }` reads as "turn these tolerances off" to whoever wrote it; the
  // library keeps every default (the Hermes leak is recovered as bash) and says nothing at all:
  // settle.ts copies `parse` through plainCopy/typedLeaves, which return a non-object as is and
  // check only leaves (typedLeaves skips a namespace that is no object without a line), and
  // `history: false` is read only for its `sanitize` key. The plugin's reading reports each with
  // one line. Minimal input: repairFetch({ parse: { dialects: false }, debug }) and a Hermes leak.
  // Suspected: src/options/settle.ts typedLeaves (namespace branch), settleOptions (history).
  // Expected: one debug line naming the path (the defaults may stand, as in the plugin).
  // Fixed: a namespace given as no object (`parse`, `parse.dialects`, `history`; a list too) gets
  // one debug line, "option PATH must be an object; using its defaults" (settle.ts typedLeaves,
  // settleOptions). `null` stays "not given", silent, as `responseFix: null` is.
  for (const [path, options] of [
    ["parse", { parse: false }],
    ["parse.dialects", { parse: { dialects: false } }],
    ["parse.dialects", { parse: { dialects: "none" } }],
    ["history", { history: false }],
  ] as const) {
    test(`${JSON.stringify(options)}: one debug line naming ${path}`, async () => {
      const { debug } = await run(options);
      expect(debug.filter((line) => line.includes(` ${path} `))).toHaveLength(1);
    });
  }

  test("hard negatives: the plugin reports each; responseFix: false gets its line in the library; an object is read silently", async () => {
    for (const raw of [{ parse: false }, { parse: { dialects: false } }, { history: false }]) {
      expect({ raw, lines: resolveOptions(raw).problems.length }).toEqual({ raw, lines: 1 });
    }
    expect((await run({ responseFix: false })).debug.filter((line) => line.includes("responseFix"))).toHaveLength(1);
    expect(await run({ parse: { dialects: { hermes: false } } })).toEqual({ calls: [], debug: [] });
    expect(await run({ parse: { dialects: {} }, history: {} })).toEqual({ calls: ["bash"], debug: [] });
  });

  test("hard negatives: null is not given (silent, defaults); a list as parse.dialects gets its line; a list in a switch too", async () => {
    expect(await run({ parse: null, history: null })).toEqual({ calls: ["bash"], debug: [] });
    expect(await run({ parse: { dialects: null } })).toEqual({ calls: ["bash"], debug: [] });
    const listed = await run({ parse: { dialects: ["hermes"] } });
    expect({ calls: listed.calls, lines: listed.debug }).toEqual({ calls: ["bash"], lines: [expect.stringContaining("option parse.dialects must be an object")] });
    const inner = await run({ parse: { dialects: { hermes: [false] } } });
    expect({ calls: inner.calls, lines: inner.debug }).toEqual({ calls: ["bash"], lines: [expect.stringContaining("option parse.dialects.hermes must be true or false")] });
    // An unknown key holding a list is still dropped in silence (it is no option).
    expect(await run({ parse: { extra: [1], dialects: { extra: [2] } } })).toEqual({ calls: ["bash"], debug: [] });
  });

  test("hard negative: a bad option gives its line once per adapter, not once per request", async () => {
    const { repairFetch } = await import("../../src/adapters/fetch.ts");
    const { chatInit, fakeBase, jsonReply, URL_CHAT } = await import("../security/support.ts");
    const debug: string[] = [];
    const repaired = repairFetch({ responseFix: { enabled: "false" as unknown as boolean }, debug: (line) => debug.push(line) }, fakeBase(jsonReply(completion(HERMES_LEAK))));
    for (let i = 0; i < 3; i++) await (await repaired(URL_CHAT, chatInit({ messages: USER, tools: openAiTools(fixtureTools), stream: false }))).text();
    expect(debug.filter((line) => line.includes("responseFix.enabled"))).toHaveLength(1);
  });
});
