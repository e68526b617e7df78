/**
 * Review 45 (hosts), finding 4, on a host whose context carries no `kind` (after ee2e318e): a
 * context for one of the host's hidden agents (title, summary, compaction) neither takes nor
 * passes over the correction the session's next primary request is due.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, spyOn, test } from "bun:test";
import path from "node:path";
import { correctionText } from "../../src/retry/state.ts";
import type { V2Message, V2ModelRef } from "../../src/plugin/v2/host-types.ts";
import { block, live } from "../golden/notation.ts";
import { pathOf, requestBody, startFakeWires, type FakeWires } from "./fake-wires.ts";
import { loadLikeV2, StandInHost } from "./stand-in-host.ts";

const ROOT = path.resolve(import.meta.dir, "../..");
const UNDECLARED = live(`Cleaning up.\n\n${block("tool_calls", [["wipe_disk", [["path", "/"]]]])}`);
const DEEPSEEK: V2ModelRef = { providerID: "deepseek", id: "deepseek-chat" };
const SMALL: V2ModelRef = { providerID: "openai", id: "gpt-5-nano" };

let upstream: FakeWires;
let errorSpy: ReturnType<typeof spyOn>;
beforeAll(async () => {
  upstream = await startFakeWires(() => UNDECLARED);
});
afterAll(() => upstream.close());
beforeEach(() => {
  errorSpy = spyOn(console, "error").mockImplementation(() => undefined);
});
afterEach(() => errorSpy.mockRestore());

const user = (id: string, text: string): V2Message => ({ id, role: "user", content: [{ type: "text", text }] });

async function leakedHost(): Promise<StandInHost> {
  const { definition } = await loadLikeV2(ROOT);
  const host = new StandInHost();
  await definition.setup!(host.context({ providers: ["deepseek"], retry: { enabled: false } }));
  await host.buildContext("ses_1", DEEPSEEK, [user("msg_u1", "clean up")]);
  const fetcher = host.nativeFetch("ses_1", DEEPSEEK);
  await (await fetcher(`${upstream.baseURL}${pathOf("chat")}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(requestBody("chat", "clean up", true)) })).text();
  return host;
}

async function context(host: StandInHost, model: V2ModelRef, agent: string, messages: V2Message[], kind?: "primary" | "title" | "compaction") {
  const event = { sessionID: "ses_1", agent, model, ...(kind ? { kind } : {}), system: [] as { type: "text"; text: string }[], messages, options: {}, tools: {} };
  for (const hook of host.session.get("context") ?? []) {
    if (hook.providerID !== undefined && hook.providerID !== model.providerID) continue;
    await hook.callback(event, { signal: new AbortController().signal });
  }
  return event.system.map((part) => part.text);
}

describe("the host's own requests leave the primary's correction alone", () => {
  const history = [user("msg_u1", "clean up"), { role: "assistant", content: [{ type: "text", text: UNDECLARED }] } as V2Message, user("msg_u2", "go on")];

  for (const agent of ["compaction", "title", "summary"]) {
    test(`no kind, agent ${agent} (in scope, then out of scope): nothing taken, the primary request gets it`, async () => {
      const host = await leakedHost();
      expect(await context(host, DEEPSEEK, agent, history)).toEqual([]);
      expect(await context(host, SMALL, agent, history)).toEqual([]);
      expect(await context(host, DEEPSEEK, "build", history)).toEqual([correctionText("undeclared-tool")]);
    });
  }

  test("an out-of-scope title request with kind: the primary request still gets it", async () => {
    const host = await leakedHost();
    expect(await context(host, SMALL, "title", history, "title")).toEqual([]);
    expect(await context(host, DEEPSEEK, "build", history, "primary")).toEqual([correctionText("undeclared-tool")]);
  });

  test("hard negative: an out-of-scope primary request passes it over: the next in-scope one is not told", async () => {
    const host = await leakedHost();
    expect(await context(host, SMALL, "build", history, "primary")).toEqual([]);
    expect(await context(host, DEEPSEEK, "build", [...history, user("msg_u3", "back")], "primary")).toEqual([]);
  });
});
