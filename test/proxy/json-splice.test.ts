// The proxy's JSON edits: the history pass rewrites a few strings of a request, and every byte
// outside them goes up as the client wrote it (an integer above 2^53 keeps its digits).
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { spliceJson, type JsonEdit, type JsonPath } from "../../src/adapters/json-splice.ts";
import { sanitizeRequestBody } from "../../src/proxy/history.ts";
import { REMOVED_NOTE } from "../../src/history/sanitize.ts";
import { correctionText } from "../../src/retry/state.ts";
import { block, live } from "../golden/notation.ts";
import { stringPaths } from "../support/bytes.ts";

const LEAK = live(block("tool_calls", [["read", [["path", "a.ts"]]]]));
const OPTIONS = { parse: {}, sanitize: true, correct: true };
const bytes = (text: string) => new Uint8Array(new TextEncoder().encode(text));
/** The tool LEAK names, declared in each wire's form: a request that declares none gets no correction. */
const SCHEMA = { type: "object", properties: { path: { type: "string" } }, required: ["path"] };
const DECLARED: Record<string, string> = {
  "/v1/chat/completions": JSON.stringify([{ type: "function", function: { name: "read", parameters: SCHEMA } }]),
  "/v1/messages": JSON.stringify([{ name: "read", input_schema: SCHEMA }]),
  "/v1/responses": JSON.stringify([{ type: "function", name: "read", parameters: SCHEMA }]),
};
/** A body text with a model and the path's tools declared first, the rest as it was. */
const withTools = (path: string, text: string) => `{${text.includes('"model"') ? "" : '"model":"m",'}"tools":${DECLARED[path]},${text.slice(1)}`;
const withToolsJson = (path: string, body: object) => ({ model: "m", tools: JSON.parse(DECLARED[path]!), ...body });
const sent = (path: string, text: string) => new TextDecoder().decode(sanitizeRequestBody(path, bytes(text), OPTIONS).body);

describe("spliceJson", () => {
  test("a replaced value is the only change: spacing, escapes, big integers and key order stay", () => {
    const text = `{ "seed" : 12345678901234567891, "x":"caf\\u00e9",\n  "messages": [ {"role":"user","content":"hi"}, {"role":"assistant", "content" : "old"} ], "t": 1.50 }`;
    const out = spliceJson(text, [{ kind: "replace", path: ["messages", 1, "content"], json: '"new"' }]);
    expect(out).toBe(text.replace('"old"', '"new"'));
  });

  test("members and elements are added where asked, with commas only where they belong", () => {
    const cases: [string, JsonEdit, string][] = [
      ['{"a":1}', { kind: "first-member", path: [], member: '"z":2' }, '{"z":2,"a":1}'],
      ["{ }", { kind: "first-member", path: [], member: '"z":2' }, '{"z":2 }'],
      ['{"m":[1, 2]}', { kind: "first-element", path: ["m"], json: "0" }, '{"m":[0,1, 2]}'],
      ['{"m":[]}', { kind: "first-element", path: ["m"], json: "0" }, '{"m":[0]}'],
      ['{"m":[1, 2 ]}', { kind: "last-element", path: ["m"], json: "3" }, '{"m":[1, 2 ,3]}'],
      ['{"m":[ ]}', { kind: "last-element", path: ["m"], json: "3" }, '{"m":[ 3]}'],
      ['{"m":{"deep":[1]},"n":0}', { kind: "replace", path: ["m"], json: "null" }, '{"m":null,"n":0}'],
      ['{"m":[{"t":"a"},{"t":"b"}]}', { kind: "replace", path: ["m", 1, "t"], json: '"c"' }, '{"m":[{"t":"a"},{"t":"c"}]}'],
      // A path the document does not have: nothing happens.
      ['{"m":[1]}', { kind: "replace", path: ["m", 5], json: "9" }, '{"m":[1]}'],
    ];
    for (const [text, edit, expected] of cases) expect([text, spliceJson(text, [edit])]).toEqual([text, expected]);
  });

  test("a key written with escapes is the key it decodes to; of a key written twice, the last is edited, as JSON.parse keeps it", () => {
    expect(spliceJson('{"con\\u0074ent":"a"}', [{ kind: "replace", path: ["content"], json: '"b"' }])).toBe('{"con\\u0074ent":"b"}');
    const twice = '{"content":"first","content":"second"}';
    const out = spliceJson(twice, [{ kind: "replace", path: ["content"], json: '"edited"' }]);
    expect(out).toBe('{"content":"first","content":"edited"}');
    expect(JSON.parse(out)).toEqual({ content: "edited" });
  });

  test("strings holding brackets, commas, quotes and backslashes do not move the scanner", () => {
    const text = '{"a":"],}[{\\"\\\\","b":["x,]","y"],"c":"old"}';
    expect(spliceJson(text, [{ kind: "replace", path: ["c"], json: '"new"' }])).toBe(text.replace('"old"', '"new"'));
  });

  test("any document, any of its strings replaced: JSON.parse reads exactly the edited value, and nothing else changed (seeded)", () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 4 }), fc.integer({ min: 0, max: 2 }), fc.string(), (value, indent, replacement) => {
        const text = JSON.stringify(value, null, indent);
        const paths = stringPaths(value);
        const chosen = paths.filter((_, i) => i % 2 === 0);
        const out = spliceJson(text, chosen.map((path) => ({ kind: "replace", path, json: JSON.stringify(replacement) })));
        const expected = JSON.parse(text) as unknown; // not `value`: JSON has no -0
        for (const path of chosen) {
          if (path.length === 0) return expect(JSON.parse(out)).toEqual(replacement);
          let at = expected as Record<string | number, unknown>;
          for (const step of path.slice(0, -1)) at = at[step] as Record<string | number, unknown>;
          at[path[path.length - 1]!] = replacement;
        }
        expect(JSON.parse(out)).toEqual(expected);
      }),
      { seed: 20261206, numRuns: 300 },
    );
  });

  // Found while fixing review 52's emptied parts: removing the last element and the one before it
  // left the kept element's comma before the bracket ("[1,]"), a body the API refuses.
  test("any set of elements removed from an array, with any spacing, leaves exactly the others (every subset)", () => {
    for (const spacing of [",", ", ", " ,\n  "]) {
      const values = [1, "b", { c: [2] }, [3], null];
      const text = `{"a":[${values.map((v) => JSON.stringify(v)).join(spacing)}],"z":0}`;
      for (let mask = 0; mask < 1 << values.length; mask++) {
        const gone = values.map((_, i) => i).filter((i) => mask & (1 << i));
        const out = spliceJson(text, gone.map((i) => ({ kind: "remove", path: ["a", i] })));
        expect([mask, JSON.parse(out)]).toEqual([mask, { a: values.filter((_, i) => !(mask & (1 << i))), z: 0 }]);
      }
    }
  });

  test("20,000 edits in one 2 MB body all land, each in its place, and the rest keeps its length", () => {
    const turns = Array.from({ length: 20_000 }, (_, i) => ({ role: "assistant", content: `turn ${i} ${"x".repeat(80)}` }));
    const text = JSON.stringify({ seed: 12345678901234567891n.toString(), messages: turns });
    const edits: JsonEdit[] = turns.map((_, i) => ({ kind: "replace", path: ["messages", i, "content"], json: '"y"' }));
    const out = spliceJson(text, edits);
    expect(JSON.parse(out).messages.every((m: { content: string }) => m.content === "y")).toBe(true);
    expect(out.length).toBe(text.length - turns.reduce((n, t) => n + JSON.stringify(t.content).length - 3, 0));
  });
});

describe("the history pass through spliceJson", () => {
  test("a sanitized chat body keeps an integer seed above 2^53, its spacing and its escapes", () => {
    const text = `{"model":"m", "seed": 12345678901234567891, "messages":[{"role":"user","content":"caf\\u00e9"},{"role":"assistant","content":${JSON.stringify(`ok\n${LEAK}`)}}]}`;
    const out = sent("/v1/chat/completions", withTools("/v1/chat/completions", text));
    expect(out).toContain('"seed": 12345678901234567891');
    expect(out).toContain('"content":"caf\\u00e9"');
    // The correction came first as a system message of its own, so the assistant turn is the third.
    expect(JSON.parse(out).messages.map((m: { content: string }) => m.content)).toEqual([correctionText("unexecuted-call"), "caf\u00e9", `ok\n${REMOVED_NOTE}`]);
  });

  test("the correction joins each wire's system prompt wherever it is, or is added, and nothing else moves", () => {
    const CORRECTION = correctionText("unexecuted-call");
    const leaked = (role: string) => `{"role":"${role}","content":${JSON.stringify(`Reading. ${LEAK}`)}}`;
    const NEXT = `{"role":"user","content":"and?"}`;
    const cases: [string, string, (body: any) => unknown, unknown][] = [
      ["/v1/chat/completions", `{"seed":12345678901234567891,"messages":[{"role":"system","content":"Be brief."},{"role":"user","content":"go"},${leaked("assistant")}]}`, (b) => b.messages[0].content, `Be brief.\n\n${CORRECTION}`],
      ["/v1/chat/completions", `{"seed":12345678901234567891,"messages":[{"role":"user","content":"go"},${leaked("assistant")}]}`, (b) => b.messages[0], { role: "system", content: CORRECTION }],
      // Messages: a user turn after the reply (a trailing assistant turn is a prefill being continued: no correction).
      ["/v1/messages", `{"seed":12345678901234567891,"system":[{"type":"text","text":"Be brief."}],"messages":[${leaked("assistant")},${NEXT}]}`, (b) => b.system, [{ type: "text", text: "Be brief." }, { type: "text", text: CORRECTION }]],
      ["/v1/messages", `{"seed":12345678901234567891,"messages":[${leaked("assistant")},${NEXT}]}`, (b) => b.system, CORRECTION],
      ["/v1/responses", `{"seed":12345678901234567891,"instructions":"Be brief.","input":[{"type":"message",${leaked("assistant").slice(1)}]}`, (b) => b.instructions, `Be brief.\n\n${CORRECTION}`],
      ["/v1/responses", `{"seed":12345678901234567891,"input":[{"type":"message",${leaked("assistant").slice(1)}]}`, (b) => b.instructions, CORRECTION],
    ];
    for (const [path, text, read, expected] of cases) {
      const out = sent(path, withTools(path, text));
      expect([path, read(JSON.parse(out))]).toEqual([path, expected]);
      expect(out).toContain('"seed":12345678901234567891');
      expect(out).toContain(JSON.stringify(`Reading. ${REMOVED_NOTE}`));
    }
  });
});

describe("the history pass: when a correction is due, and where it goes", () => {
  const CORRECTION = correctionText("unexecuted-call");
  const json = (path: string, body: object) => JSON.parse(sent(path, JSON.stringify(withToolsJson(path, body))));

  test("a turn that leaked text and also made a native call needs no correction (its call ran), on every wire; the same leak alone gets one", () => {
    const chat = (calls: boolean) => ({
      messages: [
        { role: "user", content: "go" },
        { role: "assistant", content: `Reading. ${LEAK}`, ...(calls ? { tool_calls: [{ id: "c1", type: "function", function: { name: "read", arguments: '{"path":"a.ts"}' } }] } : {}) },
        ...(calls ? [{ role: "tool", tool_call_id: "c1", content: "file text" }] : []),
      ],
    });
    const messages = (calls: boolean) => ({
      messages: [
        { role: "user", content: "go" },
        { role: "assistant", content: [{ type: "text", text: `Reading. ${LEAK}` }, ...(calls ? [{ type: "tool_use", id: "t1", name: "read", input: { path: "a.ts" } }] : [])] },
        // Without the call, the user's next message: a trailing assistant turn would be a prefill being continued.
        calls ? { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: "file text" }] } : { role: "user", content: "and?" },
      ],
    });
    const responses = (calls: boolean) => ({
      input: [
        { role: "user", content: "go" },
        { type: "message", role: "assistant", content: [{ type: "output_text", text: `Reading. ${LEAK}` }] },
        ...(calls ? [{ type: "function_call", call_id: "c1", name: "read", arguments: '{"path":"a.ts"}' }, { type: "function_call_output", call_id: "c1", output: "file text" }] : []),
      ],
    });
    const corrected = (path: string, body: object) => sanitizeRequestBody(path, bytes(JSON.stringify(withToolsJson(path, body))), OPTIONS).correction;
    expect([corrected("/v1/chat/completions", chat(true)), corrected("/v1/messages", messages(true)), corrected("/v1/responses", responses(true))]).toEqual([null, null, null]);
    expect([corrected("/v1/chat/completions", chat(false)), corrected("/v1/messages", messages(false)), corrected("/v1/responses", responses(false))]).toEqual(["unexecuted-call", "unexecuted-call", "unexecuted-call"]);
    // The leak is still replaced by the note either way.
    expect(JSON.stringify(json("/v1/chat/completions", chat(true)))).toContain(REMOVED_NOTE);
  });

  test("chat: the client's system or developer message takes the correction, as text or as one more text part; never a second system message", () => {
    const leaked = { role: "assistant", content: `Reading. ${LEAK}` };
    const parts = json("/v1/chat/completions", { messages: [{ role: "system", content: [{ type: "text", text: "Be brief." }] }, { role: "user", content: "go" }, leaked] });
    expect(parts.messages.filter((m: { role: string }) => m.role === "system")).toHaveLength(1);
    expect(parts.messages[0].content).toEqual([{ type: "text", text: "Be brief." }, { type: "text", text: CORRECTION }]);
    const developer = json("/v1/chat/completions", { messages: [{ role: "developer", content: "Be brief." }, { role: "user", content: "go" }, leaked] });
    expect(developer.messages.map((m: { role: string }) => m.role)).toEqual(["developer", "user", "assistant"]);
    expect(developer.messages[0].content).toBe(`Be brief.\n\n${CORRECTION}`);
    // No system message of the client's own: one is added, first.
    const none = json("/v1/chat/completions", { messages: [{ role: "user", content: "go" }, leaked] });
    expect(none.messages[0]).toEqual({ role: "system", content: CORRECTION });
  });
});
