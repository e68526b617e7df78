// Review 55 (hostile, tests only): the tool choice a request makes, as the fetch adapter reads it
// (src/wires/tool-choice.ts, each wire's `allowed`), and the request body the choice is read from
// when a key is written twice. A leaked call must never run where the request forbade it, nor a
// tool other than the forced one.
import { describe, expect, test } from "bun:test";
import { repairFetch } from "../../src/adapters/fetch.ts";
import { keyWrittenTwice } from "../../src/adapters/request-keys.ts";
import { expectLinearWork } from "../support/work.ts";
import { READ_SCHEMA, URLS, WIRES, type WireName, fn, leak, names, replyJson, requestBody, run, upstream } from "./review-55-request-support.ts";

const BASH_LEAK = `Running.\n${leak("bash")}`;
const READ_LEAK = `Reading.\n${leak("read", { path: "/a" })}`;
const TWO_LEAKS = `Running.\n${leak("bash")}\n${leak("read", { path: "/a" })}`;
const both = (wire: WireName) => [fn(wire, "bash"), fn(wire, "read", READ_SCHEMA)];

/** The calls recovered for `reply` under `extra` (tool_choice and friends) on `wire`, bash and read declared. */
async function under(wire: WireName, extra: object, reply = BASH_LEAK): Promise<string[]> {
  return names((await run(wire, requestBody(wire, both(wire), extra), reply)).calls);
}

describe("hard negatives (pass on main): every tool-choice form on each wire", () => {
  test("forbidding forms recover nothing: none, and forms a wire does not know (fail closed)", async () => {
    const forbid: Record<WireName, unknown[]> = {
      chat: ["none", "any", "None", { type: "function", name: "bash" }, { type: "tool", name: "bash" }, { type: "custom", custom: { name: "bash" } }, { type: "allowed_tools", allowed_tools: { mode: "auto", tools: [{ type: "custom", custom: { name: "bash" } }] } }],
      anthropic: [{ type: "none" }, "none", "auto", { type: "function", name: "bash" }, { type: "tool" }, { type: "tool", name: "" }],
      responses: ["none", "any", { type: "web_search_preview" }, { type: "custom", name: "bash" }, { type: "mcp", server_label: "x" }, { type: "tool", name: "bash" }, { type: "allowed_tools", mode: "required", tools: [{ type: "mcp", server_label: "x" }] }, { type: "allowed_tools", mode: "sometimes", tools: [{ type: "function", name: "bash" }] }],
    };
    for (const wire of WIRES) for (const choice of forbid[wire]) expect(await under(wire, { tool_choice: choice })).toEqual([]);
  });

  test("permissive forms recover the declared call: auto, required/any, absent, null", async () => {
    const allow: Record<WireName, unknown[]> = {
      chat: ["auto", "required", null],
      anthropic: [{ type: "auto" }, { type: "any" }, null],
      responses: ["auto", "required", null],
    };
    for (const wire of WIRES) {
      for (const choice of allow[wire]) expect(await under(wire, { tool_choice: choice })).toEqual(["bash"]);
      expect(await under(wire, {})).toEqual(["bash"]);
    }
  });

  test("a forced tool: its leak runs, another declared tool's never does", async () => {
    const forced: Record<WireName, unknown[]> = {
      chat: [{ type: "function", function: { name: "read" } }, { type: "allowed_tools", allowed_tools: { mode: "required", tools: [{ type: "function", function: { name: "read" } }] } }],
      anthropic: [{ type: "tool", name: "read" }, { type: "tool", name: "read", disable_parallel_tool_use: false }],
      responses: [{ type: "function", name: "read" }, { type: "allowed_tools", mode: "auto", tools: [{ type: "function", name: "read" }, { type: "web_search" }] }],
    };
    for (const wire of WIRES) {
      for (const choice of forced[wire]) {
        expect(await under(wire, { tool_choice: choice })).toEqual([]);
        expect(await under(wire, { tool_choice: choice }, READ_LEAK)).toEqual(["read"]);
      }
    }
  });

  test("chat's deprecated function_call: read alone, and failing closed when it disagrees with tool_choice", async () => {
    expect(await under("chat", { function_call: "none" })).toEqual([]);
    expect(await under("chat", { function_call: { name: "read" } })).toEqual([]);
    expect(await under("chat", { function_call: { name: "read" } }, READ_LEAK)).toEqual(["read"]);
    expect(await under("chat", { function_call: "none", tool_choice: "auto" })).toEqual([]);
    expect(await under("chat", { function_call: "auto", tool_choice: "none" })).toEqual([]);
    expect(await under("chat", { function_call: "required" })).toEqual([]);
    expect(await under("chat", { function_call: "auto", tool_choice: "auto" })).toEqual(["bash"]);
  });

  test("one call per reply: parallel_tool_calls false (chat, Responses), disable_parallel_tool_use true or any odd value (Anthropic)", async () => {
    expect(await under("chat", { parallel_tool_calls: false }, TWO_LEAKS)).toEqual(["bash"]);
    expect(await under("responses", { parallel_tool_calls: false }, TWO_LEAKS)).toEqual(["bash"]);
    expect(await under("responses", { parallel_tool_calls: "false" }, TWO_LEAKS)).toEqual(["bash"]);
    for (const flag of [true, "yes", 1]) expect(await under("anthropic", { tool_choice: { type: "auto", disable_parallel_tool_use: flag } }, TWO_LEAKS)).toEqual(["bash"]);
    // Not Anthropic's switch: both run.
    expect(await under("anthropic", { parallel_tool_calls: false }, TWO_LEAKS)).toEqual(["bash", "read"]);
  });
});

/** A chat body's text with `tail` (raw JSON members) appended inside its top-level object. */
const withMembers = (body: object, tail: string) => `${JSON.stringify(body).slice(0, -1)},${tail}}`;

/** The calls recovered for `reply` on `wire` when the request's exact body text is `text`. */
async function rawRun(wire: WireName, text: string, reply = BASH_LEAK): Promise<string[]> {
  return names((await run(wire, text, reply)).calls);
}

describe("a request body that writes a key the plan reads twice", () => {
  // FINDING (wrong execution, where the upstream keeps the first of duplicate keys). JSON leaves
  // duplicate member names to the parser (RFC 8259 4: "the behavior … is unpredictable"): JSON.parse
  // keeps the last, a first-wins reader (Go's gjson, which relays peek bodies with; Rust's
  // serde_json rejects the body) keeps the first. `{"tool_choice":"none", …, "tool_choice":"auto"}`
  // is read here as auto, so a leaked bash call runs, while an upstream that kept "none" forbade
  // every call. The same for `"tools"` written twice (a tool only the dropped copy lacks, so one
  // the model was never offered, runs) and Anthropic's `tool_choice` object. The adapter already
  // fails closed where it cannot know which of two choices the server obeyed (tool-choice.ts:
  // `tool_choice` and `function_call` that disagree), and refuses a leaked call whose arguments
  // name a key twice; a request body doing the same is read without a doubt.
  // Minimal input: chat body `{…,"tools":[bash],"tool_choice":"none","tool_choice":"auto"}`, reply
  // `<tool_call>{"name":"bash","arguments":{"command":"ls -la"}}</tool_call>`.
  // Suspected: src/adapters/fetch.ts planRequest (jsonOrUndefined, JSON.parse's last-wins, for the
  // keys planWire reads). Expected: when a top-level key the plan reads (`tools`, `tool_choice`,
  // `function_call`, `parallel_tool_calls`, `functions`) is written twice with different values,
  // nothing is recovered from the reply (it passes through, the markup as text); a body whose
  // duplicates are equal, or whose duplicate key the plan does not read, is repaired as today.
  // Fixed: src/adapters/request-keys.ts keyWrittenTwice, read by fetch.ts planRequest before the
  // reply's plan is made: a top-level `tools`, `functions`, `mcp_servers`, `tool_choice`, `function_call`,
  // `parallel_tool_calls`, `messages`, `input`, `system`, `instructions` or
  // `continue_final_message` written twice (equal copies too: the simpler rule), or any key written
  // twice in an object inside `tool_choice` or `function_call` (`disable_parallel_tool_use`, a
  // forced function's `name`), recovers nothing: the reply passes as written, one debug line (the
  // history pass still runs: it rewrites the copy JSON.parse keeps, review 41). Keys compare as
  // JSON.parse reads them (escapes decoded); one linear pass over the top level and those two values.
  test("chat: tool_choice none then auto recovers nothing", async () => {
    const body = requestBody("chat", both("chat"));
    expect(await rawRun("chat", withMembers(body, '"tool_choice":"none","tool_choice":"auto"'))).toEqual([]);
  });

  test("Anthropic: tool_choice forcing read, then auto, never runs bash", async () => {
    const body = requestBody("anthropic", both("anthropic"));
    expect(await rawRun("anthropic", withMembers(body, '"tool_choice":{"type":"tool","name":"read"},"tool_choice":{"type":"auto"}'))).toEqual([]);
  });

  test("Responses: tools written twice, bash only in the last copy, never runs bash", async () => {
    const { tools: _tools, ...rest } = requestBody("responses", []);
    const text = withMembers(rest, `"tools":${JSON.stringify([fn("responses", "read", READ_SCHEMA)])},"tools":${JSON.stringify(both("responses"))}`);
    expect(await rawRun("responses", text)).toEqual([]);
  });

  describe("hard negatives (pass on main)", () => {
    test("an escaped spelling of the same key is the same key: auto, then none spelled with an escape, recovers nothing", async () => {
      const body = requestBody("chat", both("chat"));
      expect(await rawRun("chat", withMembers(body, '"tool_choice":"auto","tool\\u005fchoice":"none"'))).toEqual([]);
    });

    // Diff review 55a made the rule structural: a key written twice in ANY object, at any depth,
    // recovers nothing, the plan's or not (a `metadata` written twice included).
    test("a duplicate key the plan does not read recovers nothing too (diff review 55a); written once, the leak runs", async () => {
      for (const wire of WIRES) {
        expect(await rawRun(wire, withMembers(requestBody(wire, both(wire)), '"metadata":{"a":"1"},"metadata":{"a":"2"}'))).toEqual([]);
        expect(await rawRun(wire, withMembers(requestBody(wire, both(wire)), '"metadata":{"a":"1","b":"2"}'))).toEqual(["bash"]);
      }
    });

    test("the other plan keys written twice, and keys written twice inside tool_choice or function_call, recover nothing", async () => {
      const cases: [WireName, string][] = [
        ["chat", `"functions":[],"functions":[]`],
        ["chat", `"function_call":"auto","function_call":"auto"`],
        ["chat", `"parallel_tool_calls":true,"parallel_tool_calls":false`],
        ["chat", `"tool_choice":{"type":"function","function":{"name":"read","name":"bash"}}`],
        ["chat", `"function_call":{"name":"read","name":"bash"}`],
        ["chat", `"messages":[],"messages":[{"role":"user","content":"go"}]`],
        ["anthropic", `"tool_choice":{"type":"auto","disable_parallel_tool_use":true,"disable_parallel_tool_use":false}`],
        ["anthropic", `"system":"a","system":"b"`],
        ["anthropic", `"mcp_servers":[],"mcp_servers":[]`],
        ["responses", `"instructions":"a","instructions":"b"`],
        ["responses", `"tool_choice":{"type":"allowed_tools","mode":"auto","mode":"required","tools":[]}`],
      ];
      for (const [wire, members] of cases) {
        const body: Record<string, unknown> = requestBody(wire, both(wire));
        if (members.startsWith(`"messages"`)) delete body.messages;
        expect(await rawRun(wire, withMembers(body, members))).toEqual([]);
      }
    });

    test("the same key in separate objects, or inside a string, is no duplicate: the leak runs", async () => {
      const allowed = { type: "allowed_tools", allowed_tools: { mode: "auto", tools: [{ type: "function", function: { name: "read" } }, { type: "function", function: { name: "bash" } }] } };
      expect(await rawRun("chat", JSON.stringify(requestBody("chat", both("chat"), { tool_choice: allowed })))).toEqual(["bash"]);
      // A key written twice below the top level recovers nothing since diff review 55a.
      const nested = withMembers(requestBody("chat", both("chat"), { tool_choice: "auto" }), '"metadata":{"tool_choice":"none","tool_choice":"none","tools":[]}');
      expect(await rawRun("chat", nested)).toEqual([]);
      const nestedOnce = withMembers(requestBody("chat", both("chat"), { tool_choice: "auto" }), '"metadata":{"tool_choice":"none","tools":[]}');
      expect(await rawRun("chat", nestedOnce)).toEqual(["bash"]);
      const quoted = requestBody("chat", both("chat"), { tool_choice: "auto" }, 'say \",\"tool_choice\":\"none\" and "tool_choice": "none"');
      expect(await rawRun("chat", JSON.stringify(quoted))).toEqual(["bash"]);
      // A schema whose objects repeat keys across entries (every property has a `type`).
      const schema = { type: "object", properties: { command: { type: "string" }, cwd: { type: "string" } }, required: ["command"] };
      expect(await rawRun("responses", JSON.stringify(requestBody("responses", [fn("responses", "bash", schema)])))).toEqual(["bash"]);
    });

    test("the scan is linear: a 10 MB body, escapes, deep nesting and many keys read each character a bounded number of times", () => {
      const bodies = (size: number) => [
        JSON.stringify({ model: "m", messages: [{ role: "user", content: "\\\"x".repeat(size / 4) }], tools: [], tool_choice: "auto" }),
        JSON.stringify({ model: "m", tool_choice: { type: "auto", nested: JSON.parse("[".repeat(1000) + "]".repeat(1000)), pad: "y".repeat(size) } }),
        `{${Array.from({ length: size / 16 }, (_, i) => `"k${i}":[{"a":1}]`).join(",")},"tools":[]}`,
        `{"tool_choice":{${Array.from({ length: size / 16 }, (_, i) => `"t${i}":{"b":2}`).join(",")}}}`,
      ];
      const smalls = bodies(2_500_000);
      const bigs = bodies(10_000_000);
      expectLinearWork(keyWrittenTwice, smalls, bigs);
      expect(keyWrittenTwice('{"tools":[],"tools":[]}')).toBe("`tools`");
      expect(keyWrittenTwice('[{"tools":[],"tools":[]}]')).toBeUndefined();
    }, 60_000);

    test("a 10 MB body with tool_choice written twice at its very end recovers nothing; without it the leak runs", async () => {
      const big = requestBody("chat", both("chat"), {}, "x".repeat(10_000_000));
      expect(await rawRun("chat", withMembers(big, '"tool_choice":"none","tool_choice":"auto"'))).toEqual([]);
      expect(await rawRun("chat", withMembers(big, '"tool_choice":"auto"'))).toEqual(["bash"]);
    });

    test("one debug line names the key (never a value), and the reply passes as written", async () => {
      const lines: string[] = [];
      const text = withMembers(requestBody("chat", both("chat")), '"tool_choice":"none","tool_choice":"auto"');
      const res = await repairFetch({ debug: (line) => void lines.push(line) }, upstream(replyJson("chat", BASH_LEAK)))(URLS.chat, { method: "POST", body: text });
      expect((await res.json()).choices[0].message.content).toBe(BASH_LEAK);
      expect(lines.filter((line) => line.includes("twice"))).toEqual([expect.stringContaining("request body writes `tool_choice` twice: passing through unrepaired")]);
      expect(lines.join("\n")).not.toContain("auto");
    });

    test("the upstream is sent the body as written (both copies), so it decides as it reads it", async () => {
      const seen = { body: undefined as string | undefined };
      const text = withMembers(requestBody("chat", both("chat")), '"tool_choice":"none","tool_choice":"auto"');
      await repairFetch({}, upstream(replyJson("chat", "Hello."), seen))(URLS.chat, { method: "POST", body: text });
      expect(seen.body).toBe(text);
    });
  });
});
