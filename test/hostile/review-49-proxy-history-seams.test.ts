// Review 49 (hostile, tests only): the proxy's history pass (src/proxy/history.ts over
// src/adapters/request-history.ts) reads one reply split in two (two consecutive chat assistant
// messages, two Anthropic text blocks, two Responses output_text parts) as the whole reply: the
// same visible text and the same correction for every cut. Seeded, bounded fast-check. Hard
// negative (passes on main): kept because a seam that hid a leak would let the model imitate it
// with no correction, and one that made a fenced example a leak would lose the user's text. Seams
// over three texts are a known gap and not tried. No DSML marker bytes here (notation.ts builds them).
import { expect, test } from "bun:test";
import fc from "fast-check";
import { sanitizeRequestBody } from "../../src/proxy/history.ts";
import { REMOVED_NOTE } from "../../src/history/sanitize.ts";
import { DVL, block, live } from "../golden/notation.ts";

const SCHEMA = { type: "object", properties: { command: { type: "string" } }, required: ["command"] };
const DSML = (command: string, wrapper = "tool_calls") => live(block(wrapper, [["bash", [["command", command]]]]));
const REPLIES: [string, boolean][] = [
  [`Let me list.\n${DSML("ls -la")}\nDone.`, true],
  [`Example:\n\`\`\`\n${DSML("ls")}\n\`\`\`\nand now for real ${DSML("pwd")}`, true],
  [`Run <tool_call>{"name":"bash","arguments":{"command":"ls"}}</tool_call> then text`, true],
  [`Reading.\n${DSML("cat a", "function_calls").replace(/\uFF5C/g, DVL)}\nok`, true],
  [`text [TOOL_CALLS]bash{"command":"ls"} tail`, true],
  [`> quoted ${DSML("ls")}\n\nafter`, false],
];
type Wire = "chat" | "messages" | "responses";

function run(wire: Wire, parts: string[]): { text: string; correction: string | null } {
  let path: string;
  let body: Record<string, unknown>;
  if (wire === "chat") {
    path = "/v1/chat/completions";
    body = { model: "m", tools: [{ type: "function", function: { name: "bash", parameters: SCHEMA } }], messages: [{ role: "user", content: "go" }, ...parts.map((p) => ({ role: "assistant", content: p })), { role: "user", content: "?" }] };
  } else if (wire === "messages") {
    path = "/v1/messages";
    body = { model: "m", max_tokens: 9, tools: [{ name: "bash", input_schema: SCHEMA }], messages: [{ role: "user", content: "go" }, { role: "assistant", content: parts.map((p) => ({ type: "text", text: p })) }, { role: "user", content: "?" }] };
  } else {
    path = "/v1/responses";
    body = { model: "m", tools: [{ type: "function", name: "bash", parameters: SCHEMA }], input: [{ role: "user", content: "go" }, { type: "message", role: "assistant", content: parts.map((p) => ({ type: "output_text", text: p })) }, { role: "user", content: "?" }] };
  }
  const out = sanitizeRequestBody(path, new TextEncoder().encode(JSON.stringify(body)) as Uint8Array<ArrayBuffer>, { parse: {}, sanitize: true, correct: true });
  const j = JSON.parse(new TextDecoder().decode(out.body));
  const texts: string[] =
    wire === "chat" ? j.messages.filter((m: { role: string }) => m.role === "assistant").map((m: { content: string }) => m.content) : (wire === "messages" ? j.messages[1].content : j.input[1].content).map((c: { text: string }) => c.text);
  return { text: texts.join(""), correction: out.correction };
}

test("hard negative: a reply cut in two anywhere reads as the whole reply on every wire", () => {
  for (const [reply, leaks] of REPLIES) expect(run("chat", [reply]).text.includes(REMOVED_NOTE)).toBe(leaks);
  fc.assert(
    fc.property(fc.constantFrom<Wire>("chat", "messages", "responses"), fc.integer({ min: 0, max: REPLIES.length - 1 }), fc.double({ min: 0, max: 1, noNaN: true }), (wire, which, at) => {
      const reply = REPLIES[which]![0];
      const cut = 1 + Math.floor(at * (reply.length - 2));
      expect(run(wire, [reply.slice(0, cut), reply.slice(cut)])).toEqual(run(wire, [reply]));
    }),
    { numRuns: 200, seed: 4902 },
  );
});
