// Review 49 (hostile, tests only): where the proxy's stateless correction goes in system prompts of
// every shape a client sends (src/adapters/request-history.ts addToSystem / systemHolds), through
// the real proxy on 127.0.0.1. The client's own system text must survive, the correction must be
// in it exactly once, and the body must stay of the wire's shape. No DSML marker bytes here.
import { describe, expect, test } from "bun:test";
import { correctionText } from "../../src/retry/state.ts";
import { proxyFixture, type Proxy, type Upstream } from "../proxy/support.ts";

type Json = Record<string, any>;
const LEAK = '<tool_call>{"name":"bash","arguments":{"command":"ls"}}</tool_call>';
const SCHEMA = { type: "object", properties: { command: { type: "string" } }, required: ["command"] };
const CORRECTION = correctionText("unexecuted-call");
const CHAT = (messages: Json[], extra: Json = {}) => ({ model: "m", tools: [{ type: "function", function: { name: "bash", parameters: SCHEMA } }], messages: [...messages, { role: "user", content: "go" }, { role: "assistant", content: `Now ${LEAK}` }, { role: "user", content: "?" }], ...extra });
const MSGS = (extra: Json) => ({ model: "m", max_tokens: 9, tools: [{ name: "bash", input_schema: SCHEMA }], messages: [{ role: "user", content: "go" }, { role: "assistant", content: [{ type: "text", text: `Now ${LEAK}` }] }, { role: "user", content: "?" }], ...extra });
const RESP = (extra: Json) => ({ model: "m", tools: [{ type: "function", name: "bash", parameters: SCHEMA }], input: [{ role: "user", content: "go" }, { type: "message", role: "assistant", content: [{ type: "output_text", text: `Now ${LEAK}` }] }, { role: "user", content: "?" }], ...extra });

describe("through the proxy: the correction joins every shape of system prompt", () => {
  let upstream: Upstream;
  let proxy: Proxy;
  proxyFixture("/v1", (both) => ({ upstream, proxy } = both));

  async function sent(path: string, body: Json): Promise<string> {
    upstream.answer((_req, res) => res.writeHead(200, { "content-type": "application/json" }).end("{}"));
    await (await fetch(`${proxy.url}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body), signal: AbortSignal.timeout(5000) })).text();
    return upstream.seen.at(-1)!.body;
  }

  // Hard negatives (pass on main): the shapes clients send; each keeps the client's system text.
  const cases: [string, string, Json, (j: Json) => unknown][] = [
    ["chat system string", "/chat/completions", CHAT([{ role: "system", content: "SYS-TEXT" }]), (j) => j.messages[0].content],
    ["chat developer parts", "/chat/completions", CHAT([{ role: "developer", content: [{ type: "text", text: "SYS-TEXT" }] }]), (j) => j.messages[0].content],
    ["chat system empty string", "/chat/completions", CHAT([{ role: "system", content: "" }]), (j) => j.messages[0].content],
    ["chat no system", "/chat/completions", CHAT([]), (j) => j.messages.length],
    ["messages system string", "/messages", MSGS({ system: "SYS-TEXT" }), (j) => j.system],
    ["messages system blocks with cache_control", "/messages", MSGS({ system: [{ type: "text", text: "SYS-TEXT", cache_control: { type: "ephemeral" } }] }), (j) => j.system],
    ["messages system empty array", "/messages", MSGS({ system: [] }), (j) => j.system],
    ["responses instructions string", "/responses", RESP({ instructions: "SYS-TEXT" }), (j) => j.instructions],
    ["responses instructions null", "/responses", RESP({ instructions: null }), (j) => j.instructions],
  ];
  for (const [name, path, body] of cases) {
    test(`hard negative: ${name}: the client's text kept, the correction once, valid JSON`, async () => {
      const up = await sent(path, body);
      const j = JSON.parse(up);
      expect(up.split(JSON.stringify(CORRECTION).slice(1, -1)).length - 1).toBe(1);
      if (JSON.stringify(body).includes("SYS-TEXT")) expect(up).toContain("SYS-TEXT");
      if (path === "/messages") expect(j.messages.map((m: Json) => m.role)).toEqual(["user", "assistant", "user"]);
    });
  }

  // Rule: a Responses `instructions` array of input items (the shape a Response object reports it
  // in) keeps every item of the client's; the correction is one more item after them, in the
  // client's own role, and a body that already holds it there gets no second one.
  test("responses instructions as an array of input items: the client's instructions survive, the correction appended once", async () => {
    const own = { type: "message", role: "developer", content: [{ type: "input_text", text: "SYS-TEXT" }] };
    const up = JSON.parse(await sent("/responses", RESP({ instructions: [own] })));
    expect(up.instructions).toEqual([own, { type: "message", role: "developer", content: [{ type: "input_text", text: CORRECTION }] }]);
    // Sent again as it went up (a layer in front, or the client, already added it): not twice.
    const again = await sent("/responses", RESP({ instructions: up.instructions }));
    expect(again.split(JSON.stringify(CORRECTION).slice(1, -1)).length - 1).toBe(1);
  });
});
