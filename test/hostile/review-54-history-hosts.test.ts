/**
 * Review 54 (hostile, tests only): history sanitizing as each OpenCode host applies it. The request
 * path (src/adapters/request-history.ts: proxy, repairFetch) and the AI SDK prompt
 * (src/history/prompt.ts) pass the redaction's texts through emptiedParts (round 52: a part the
 * markup over three or more parts leaves "" is dropped, or holds the note). The two OpenCode hosts
 * write redactReply's texts straight back into the parts: src/plugin/history-hook.ts (1.18,
 * messages.transform) and src/plugin/v2/context-hook.ts (OpenCode 2, session.hook("context")).
 * The AI SDK prompt route is the oracle here: same reply, same redaction, and its output is what
 * the project decided a sanitized request must look like (test/history/emptied-part.test.ts).
 */
import { describe, expect, test } from "bun:test";
import path from "node:path";
import type { LanguageModelV3Prompt } from "@ai-sdk/provider";
import { REMOVED_NOTE } from "../../src/history/sanitize.ts";
import { sanitizePrompt } from "../../src/history/prompt.ts";
import plugin from "../../src/plugin/index.ts";
import type { V2Message, V2ModelRef } from "../../src/plugin/v2/host-types.ts";
import { loadLikeV2, StandInHost } from "../v2/stand-in-host.ts";

const ROOT = path.resolve(import.meta.dir, "../..");
const DEEPSEEK: V2ModelRef = { providerID: "deepseek", id: "deepseek-chat" };

/** A Hermes call cut over three text parts: the middle one only the line break inside its JSON. */
const THREE = ['Checking.\n<tool_call>{"name":"bash","arguments":', "\n", '{"command":"rm -rf x"}}</tool_call>\nDone.'];
/** Five parts, three of them markup only: the note is cut into pieces, and two white-space parts are emptied. */
const FIVE = ["Checking.\n<tool_call>", "\n", '{"name":"bash","arguments":{"command":"ls"}}', "\n", "</tool_call>"];
/** Two parts that both keep prose: nothing is emptied (a hard negative). */
const TWO = ['Checking.\n<tool_call>{"name":"bash",', '"arguments":{"command":"ls"}}</tool_call>\nDone.'];

/** The AI SDK prompt route's text parts for the same reply (the oracle). */
function promptRoute(texts: string[]): string[] {
  const prompt = [
    { role: "user", content: [{ type: "text", text: "hi" }] },
    { role: "assistant", content: texts.map((text) => ({ type: "text", text })) },
  ] as LanguageModelV3Prompt;
  const out = sanitizePrompt(prompt, {});
  return (out[1]!.content as { type: string; text: string }[]).map((p) => p.text);
}

/** OpenCode 1.18: the plugin's messages.transform over [user, assistant (one step), user]; the assistant's text parts after it. */
async function v1Route(texts: string[]): Promise<{ texts: string[]; user: unknown; tool: unknown }> {
  const client = { app: { log: async () => undefined }, session: { promptAsync: async () => undefined } };
  const hooks = await plugin.server({ client } as never, { providers: ["*"] });
  const model = { providerID: "deepseek", modelID: "deepseek-chat" };
  const user = (id: string, text: string) => ({ info: { id, role: "user", sessionID: "ses_54", model }, parts: [{ id: `${id}_p`, type: "text", text }] });
  const tool = { id: "prt_tool", type: "tool", tool: "bash", callID: "c1", state: { status: "completed", input: { command: "ls" }, output: THREE.join("") } };
  const assistant = {
    info: { id: "msg_a1", role: "assistant", sessionID: "ses_54", parentID: "msg_u1" },
    parts: [{ id: "prt_s", type: "step-start" }, ...texts.map((text, i) => ({ id: `prt_${i}`, type: "text", text })), tool],
  };
  const output = { messages: [user("msg_u1", THREE.join("")), assistant, user("msg_u2", "go on")] };
  await hooks["experimental.chat.messages.transform"]!({} as never, output as never);
  const parts = output.messages[1]!.parts as { type: string; text?: string }[];
  return { texts: parts.filter((p) => p.type === "text").map((p) => p.text!), user: output.messages[0], tool: parts.at(-1) };
}

/** OpenCode 2 (the stand-in host): the context hook over [user, assistant, user]; the assistant's text parts after it. */
async function v2Route(texts: string[]): Promise<{ texts: string[]; messages: V2Message[] }> {
  const { definition } = await loadLikeV2(ROOT);
  const host = new StandInHost();
  await definition.setup!(host.context({ providers: ["deepseek"], retry: { enabled: false } }));
  const messages: V2Message[] = [
    { id: "msg_u1", role: "user", content: [{ type: "text", text: THREE.join("") }] },
    { role: "assistant", content: texts.map((text) => ({ type: "text", text })) },
    { id: "msg_u2", role: "user", content: [{ type: "text", text: "go on" }] },
  ];
  const event = { sessionID: "ses_54", agent: "build", model: DEEPSEEK, kind: "primary", system: [] as { type: "text"; text: string }[], messages, options: {}, tools: {} };
  for (const hook of host.session.get("context") ?? []) {
    if (hook.providerID !== undefined && hook.providerID !== DEEPSEEK.providerID) continue;
    await hook.callback(event, { signal: new AbortController().signal });
  }
  return { texts: (event.messages[1]!.content as unknown as { text: string }[]).map((p) => p.text), messages: event.messages };
}

describe("oracle (passes on main): the AI SDK prompt route drops what the markup emptied", () => {
  test("three parts: the note, then the prose; no empty part", () => {
    expect(promptRoute(THREE)).toEqual([`Checking.\n${REMOVED_NOTE}`, "\nDone."]);
  });
  test("five parts: the note in pieces, no empty part", () => {
    const out = promptRoute(FIVE);
    expect(out.includes("")).toBe(false);
    expect(out.join("")).toBe(`Checking.\n${REMOVED_NOTE}`);
  });
});

// FINDING 1 (severity: a request the API refuses; host-dependent). On both OpenCode hosts a leak
// whose markup runs over three or more text parts of one reply, with a part holding only white
// space inside the markup (a line break the client stored as a part of its own), leaves that part
// as "" in the request the host then builds. The round-52 fix (src/history/emptied-parts.ts) is
// applied on the request path and the AI SDK prompt only. An empty text block is refused by the
// Anthropic API ("text content blocks must be non-empty"); OpenCode 1.18.33 filters "" text parts
// only when `api.npm === "@ai-sdk/anthropic"` (not `@ai-sdk/google-vertex/anthropic`, nor Bedrock),
// and its toModelMessages turns an empty text part into " " when the message holds a signed
// Anthropic reasoning part, which that filter then keeps; on OpenCode 2 the HTTP repair is told
// `history: { sanitize: false }` (src/plugin/v2/setup.ts), so no later pass drops it either.
// Minimal input: an assistant message whose text parts are
//   ['Checking.\n<tool_call>{"name":"bash","arguments":', "\n", '{"command":"rm -rf x"}}</tool_call>\nDone.'].
// Suspected source: src/plugin/v2/context-hook.ts sanitizeContext and src/plugin/history-hook.ts
// sanitizeHistory (redactReply's texts written back without emptiedParts).
// Expected: as on the AI SDK prompt route: the emptied part leaves the message (or holds the note
// when nothing else would remain); the parts joined read the same.
// Fixed: both hosts pass redactReply's texts through emptiedParts (src/history/emptied-parts.ts),
// as the AI SDK prompt route does: an emptied part that carries nothing but its text leaves the
// message (OpenCode 2: the request's content; 1.18: the loaded message's parts, a new array, since
// toModelMessages reads them in order and keys none by id); one that carries more (a V2 part with
// an id or provider options, a 1.18 part with metadata), or the message's last part, holds the note.
describe("finding 1: OpenCode hosts leave a text part the markup emptied as \"\"", () => {
  test("OpenCode 2 context hook: three parts, the white-space middle part is not left empty", async () => {
    const { texts } = await v2Route(THREE);
    expect(texts).toEqual(promptRoute(THREE));
  });

  test("OpenCode 2 context hook: five parts, the note in pieces, no part left empty", async () => {
    const { texts } = await v2Route(FIVE);
    expect(texts.includes("")).toBe(false);
  });

  test("OpenCode 1.18 messages.transform: three parts of one step, the white-space middle part is not left empty", async () => {
    const { texts } = await v1Route(THREE);
    expect(texts.includes("")).toBe(false);
  });

  test("OpenCode 1.18 messages.transform: five parts, no part left empty", async () => {
    const { texts } = await v1Route(FIVE);
    expect(texts.includes("")).toBe(false);
  });
});

describe("hard negatives (pass on main): what the hosts must keep doing", () => {
  test("both hosts: the parts joined read exactly as the AI SDK prompt route's (no character lost, no markup left)", async () => {
    for (const texts of [THREE, FIVE, TWO]) {
      const oracle = promptRoute(texts).join("");
      expect((await v2Route(texts)).texts.join("")).toBe(oracle);
      expect((await v1Route(texts)).texts.join("")).toBe(oracle);
    }
  });

  test("both hosts: two parts that both keep prose are the prompt route's parts exactly", async () => {
    expect((await v2Route(TWO)).texts).toEqual(promptRoute(TWO));
    expect((await v1Route(TWO)).texts).toEqual(promptRoute(TWO));
    expect(promptRoute(TWO)).toEqual([`Checking.\n${REMOVED_NOTE}`, "\nDone."]);
  });

  test("both hosts: the user message holding the same markup, and a tool result holding it, are never altered", async () => {
    const v2 = await v2Route(THREE);
    expect(v2.messages[0]!.content).toEqual([{ type: "text", text: THREE.join("") }]);
    const v1 = await v1Route(THREE);
    expect((v1.user as { parts: { text: string }[] }).parts[0]!.text).toBe(THREE.join(""));
    expect((v1.tool as { state: { output: string } }).state.output).toBe(THREE.join(""));
  });

  test("both hosts: the sanitized history read again changes nothing (twice == once)", async () => {
    for (const texts of [THREE, FIVE, TWO]) {
      const once = (await v2Route(texts)).texts;
      expect((await v2Route(once)).texts).toEqual(once);
      const onceV1 = (await v1Route(texts)).texts;
      expect((await v1Route(onceV1)).texts).toEqual(onceV1);
    }
  });
});

describe("fix 54 hard negatives: what an emptied part becomes on each host", () => {
  /** 1.18: the assistant's parts after messages.transform, the middle THREE part given `extra` fields. */
  async function v1Parts(extra: Record<string, unknown>): Promise<{ id: string; type: string; text?: string }[]> {
    const client = { app: { log: async () => undefined }, session: { promptAsync: async () => undefined } };
    const hooks = await plugin.server({ client } as never, { providers: ["*"] });
    const model = { providerID: "deepseek", modelID: "deepseek-chat" };
    const user = (id: string, text: string) => ({ info: { id, role: "user", sessionID: "ses_54", model }, parts: [{ id: `${id}_p`, type: "text", text }] });
    const parts = [{ id: "prt_s", type: "step-start" }, ...THREE.map((text, i) => ({ id: `prt_${i}`, type: "text", text, ...(i === 1 ? extra : {}) })), { id: "prt_f", type: "step-finish" }];
    const output = { messages: [user("msg_u1", "hi"), { info: { id: "msg_a1", role: "assistant", sessionID: "ses_54" }, parts }, user("msg_u2", "go on")] };
    await hooks["experimental.chat.messages.transform"]!({} as never, output as never);
    return output.messages[1]!.parts as never;
  }

  test("1.18: the emptied part leaves; every other part keeps its id and its place", async () => {
    const parts = await v1Parts({});
    expect(parts.map((p) => p.id)).toEqual(["prt_s", "prt_0", "prt_2", "prt_f"]);
    expect(parts.filter((p) => p.type === "text").map((p) => p.text)).toEqual(promptRoute(THREE));
  });

  test("1.18: an emptied part with metadata (sent as providerMetadata) holds the note and keeps its id", async () => {
    const parts = await v1Parts({ metadata: { openai: { itemId: "msg_1" } } });
    expect(parts.map((p) => p.id)).toEqual(["prt_s", "prt_0", "prt_1", "prt_2", "prt_f"]);
    expect(parts[2]!.text).toBe(REMOVED_NOTE);
  });

  test("OpenCode 2: an emptied part carrying provider options holds the note; the message's other parts stay as they were", async () => {
    const { definition } = await loadLikeV2(ROOT);
    const host = new StandInHost();
    await definition.setup!(host.context({ providers: ["deepseek"], retry: { enabled: false } }));
    const cache = { anthropic: { cacheControl: { type: "ephemeral" } } };
    const assistant = { role: "assistant" as const, content: [{ type: "text", text: THREE[0] }, { type: "text", text: THREE[1], providerOptions: cache }, { type: "text", text: THREE[2] }] };
    const messages: V2Message[] = [{ id: "msg_u1", role: "user", content: [{ type: "text", text: "hi" }] }, assistant, { id: "msg_u2", role: "user", content: [{ type: "text", text: "go on" }] }];
    const event = { sessionID: "ses_54", agent: "build", model: DEEPSEEK, kind: "primary", system: [] as { type: "text"; text: string }[], messages, options: {}, tools: {} };
    for (const hook of host.session.get("context") ?? []) await hook.callback(event, { signal: new AbortController().signal });
    expect(event.messages[1]!.content).toEqual([
      { type: "text", text: `Checking.\n${REMOVED_NOTE}` },
      { type: "text", text: REMOVED_NOTE, providerOptions: cache },
      { type: "text", text: "\nDone." },
    ]);
    // The message the host gave is never changed in place.
    expect(assistant.content[1]!.text).toBe("\n");
  });

  test("OpenCode 2: a reply over three assistant messages whose middle one holds only the emptied part keeps it as the note", async () => {
    const { definition } = await loadLikeV2(ROOT);
    const host = new StandInHost();
    await definition.setup!(host.context({ providers: ["deepseek"], retry: { enabled: false } }));
    const messages: V2Message[] = [
      { id: "msg_u1", role: "user", content: [{ type: "text", text: "hi" }] },
      { role: "assistant", content: [{ type: "text", text: THREE[0] }] },
      { role: "assistant", content: [{ type: "text", text: THREE[1] }] },
      { role: "assistant", content: [{ type: "text", text: THREE[2] }] },
    ];
    const event = { sessionID: "ses_54", agent: "build", model: DEEPSEEK, kind: "primary", system: [] as { type: "text"; text: string }[], messages, options: {}, tools: {} };
    for (const hook of host.session.get("context") ?? []) await hook.callback(event, { signal: new AbortController().signal });
    expect(event.messages.slice(1).map((m) => m.content.map((p) => p.text))).toEqual([[`Checking.\n${REMOVED_NOTE}`], [REMOVED_NOTE], ["\nDone."]]);
  });
});
