/**
 * Hostile review 45, area 2: the OpenCode 2 entry (src/plugin/v2/*) under the stand-in 2.x host
 * (test/v2/stand-in-host.ts). Every test marked FINDING fails on main at the time of writing; the
 * others are hard negatives (guards that hold, pinned).
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, spyOn, test } from "bun:test";
import path from "node:path";
import { correctionText } from "../../src/retry/state.ts";
import type { V2Message, V2ModelRef, V2RequestKind, V2SessionHooks } from "../../src/plugin/v2/host-types.ts";
import { block, live } from "../golden/notation.ts";
import { callsIn, pathOf, requestBody, startFakeWires, type FakeWires, type Wire } from "../v2/fake-wires.ts";
import { startedHost, type StandInHost } from "../v2/stand-in-host.ts";

const ROOT = path.resolve(import.meta.dir, "../..");
/** A leak naming a tool no request declares: never a call, always a correction (and a wake). */
const UNDECLARED = live(`Cleaning up.\n\n${block("tool_calls", [["wipe_disk", [["path", "/"]]]])}`);
const DEEPSEEK: V2ModelRef = { providerID: "deepseek", id: "deepseek-chat" };

let upstream: FakeWires;
let script: (wire: Wire, body: any) => string = () => "Done.";
let logs: string[] = [];
let errorSpy: ReturnType<typeof spyOn>;

beforeAll(async () => {
  upstream = await startFakeWires((wire, body) => script(wire, body));
});
afterAll(() => upstream.close());
beforeEach(() => {
  script = () => "Done.";
  upstream.requests.length = 0;
  logs = [];
  errorSpy = spyOn(console, "error").mockImplementation((line: unknown) => void logs.push(String(line)));
});
afterEach(() => errorSpy.mockRestore());

const hostWith = (options: unknown): Promise<StandInHost> => startedHost(ROOT, options);

const user = (id: string, text: string): V2Message => ({ id, role: "user", content: [{ type: "text", text }] });

/** The stand-in's nativeFetch, for a request of another kind (the host's title / compaction requests). */
function fetchOfKind(host: StandInHost, sessionID: string, model: V2ModelRef, kind: V2RequestKind): typeof fetch {
  const run = async (name: "http.request" | "http.response", event: unknown) => {
    for (const hook of host.session.get(name) ?? []) {
      if (hook.providerID !== undefined && hook.providerID !== model.providerID) continue;
      await hook.callback(event, { signal: new AbortController().signal });
    }
  };
  return (async (input: string | URL | Request, init?: RequestInit) => {
    const base = { sessionID, agent: kind === "primary" ? "build" : kind, model, kind };
    const request: V2SessionHooks["http.request"] = { ...base, request: new Request(input, init) };
    await run("http.request", request);
    const body = await request.request.clone().arrayBuffer();
    const response = await fetch(new Request(request.request.url, { method: "POST", headers: request.request.headers, body }));
    const event: V2SessionHooks["http.response"] = { ...base, request: request.request, response };
    await run("http.response", event);
    return event.response;
  }) as typeof fetch;
}

/** A chat request as a title request is sent: no tools declared. */
function postNoTools(fetcher: typeof fetch, prompt: string): Promise<Response> {
  const body = requestBody("chat", prompt, true);
  delete body.tools;
  return fetcher(`${upstream.baseURL}${pathOf("chat")}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
}

function post(fetcher: typeof fetch, prompt = "run the tests"): Promise<Response> {
  return fetcher(`${upstream.baseURL}${pathOf("chat")}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(requestBody("chat", prompt, true)) });
}

async function contextOfKind(host: StandInHost, sessionID: string, messages: V2Message[], kind: V2RequestKind) {
  const event = { sessionID, agent: kind === "primary" ? "build" : kind, model: DEEPSEEK, kind, system: [] as { type: "text"; text: string }[], messages, options: {}, tools: {} };
  for (const hook of host.session.get("context") ?? []) await hook.callback(event, { signal: new AbortController().signal });
  return event;
}

describe("requests the host makes for itself (kind title / compaction) through the session hooks", () => {
  // Hard negative: the http hooks get `kind` on every event and the plugin does not read it, but a
  // title request declares no tools, so the fetch adapter passes its reply through without a
  // report: the retry ledger never sees it. These pin that a title reply can neither wake a
  // session nor cancel the primary reply's pending wake (if the adapter ever reported tool-less
  // replies, both would break: the ledger is keyed by session and turn only).
  test("hard negative: a title request's reply with markup neither wakes nor corrects a session whose own reply was clean", async () => {
    const host = await hostWith({ providers: ["deepseek"] });
    await host.buildContext("ses_1", DEEPSEEK, [user("msg_u1", "why does my model print <tool_call> blocks?")]);
    script = () => "It writes them as text; here is why.";
    expect((await callsIn("chat", await post(host.nativeFetch("ses_1", DEEPSEEK)))).calls).toEqual([]);
    // The title model answers after the reply, with the markup the user asked about.
    script = () => UNDECLARED;
    await (await postNoTools(fetchOfKind(host, "ses_1", DEEPSEEK, "title"), "Generate a title for this conversation")).text();
    await host.goIdle("ses_1");
    expect(host.prompts).toEqual([]);
    const next = await host.buildContext("ses_1", DEEPSEEK, [user("msg_u1", "why?"), { role: "assistant", content: [{ type: "text", text: "It writes them as text; here is why." }] } as V2Message, user("msg_u2", "thanks")]);
    expect(next.system).toEqual([]);
  });

  test("hard negative: a clean title reply after the primary's unrepairable reply leaves its one wake due", async () => {
    const host = await hostWith({ providers: ["deepseek"] });
    await host.buildContext("ses_1", DEEPSEEK, [user("msg_u1", "clean up")]);
    script = () => UNDECLARED;
    expect((await callsIn("chat", await post(host.nativeFetch("ses_1", DEEPSEEK)))).calls).toEqual([]);
    script = () => "Cleaning up the disk";
    await (await postNoTools(fetchOfKind(host, "ses_1", DEEPSEEK, "title"), "Generate a title for this conversation")).text();
    await host.goIdle("ses_1");
    expect(host.prompts).toEqual([{ sessionID: "ses_1", text: "Continue.", delivery: "queue" }]);
  });

  // FINDING (severity: correction delivered to the wrong request, then spent; src/plugin/v2/setup.ts
  // context hook): on hosts whose SessionContext carries `kind` (03545fd3), a compaction request's
  // context takes the one correction: the summariser is told "your last reply contained tool-call
  // markup" and the primary request after it gets nothing.
  test("FINDING: a compaction request's context does not take the primary's one correction", async () => {
    const host = await hostWith({ providers: ["deepseek"], retry: { enabled: false } });
    await host.buildContext("ses_1", DEEPSEEK, [user("msg_u1", "clean up")]);
    script = () => UNDECLARED;
    await (await post(host.nativeFetch("ses_1", DEEPSEEK))).text();
    const history = [user("msg_u1", "clean up"), { role: "assistant", content: [{ type: "text", text: UNDECLARED }] } as V2Message, user("msg_u2", "go on")];
    const compaction = await contextOfKind(host, "ses_1", history, "compaction");
    expect(compaction.system).toEqual([]);
    const primary = await contextOfKind(host, "ses_1", history, "primary");
    expect(primary.system.map((p) => p.text)).toEqual([correctionText("undeclared-tool")]);
  });
});

describe("V2 applies every guard V1 applies, through the session HTTP hooks", () => {
  const BASH = live(`On it.\n\n${block("tool_calls", [["bash", [["command", "rm -rf build"]]]])}`);
  const send = (host: StandInHost, wire: Wire, body: Record<string, unknown>) =>
    host.nativeFetch("ses_1", DEEPSEEK)(`${upstream.baseURL}${pathOf(wire)}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });

  for (const wire of ["chat", "messages", "responses"] as const) {
    test(`hard negative (${wire}): markup the model only echoed from the user's own message never runs`, async () => {
      const host = await hostWith({ providers: ["deepseek"] });
      script = () => BASH;
      const { calls } = await callsIn(wire, await send(host, wire, requestBody(wire, `What does this do?\n\n${BASH}`, true)));
      expect(calls).toEqual([]);
      // The control: not echoed, the same reply is one real call.
      expect((await callsIn(wire, await send(host, wire, requestBody(wire, "clean the build", true)))).calls).toHaveLength(1);
    });

    test(`hard negative (${wire}): denyTools and allowTools [] hold on the HTTP path`, async () => {
      script = () => BASH;
      for (const responseFix of [{ denyTools: ["bash"] }, { allowTools: [] }, { denyTools: "bash" }, { allowTools: "bash" }]) {
        const host = await hostWith({ providers: ["deepseek"], responseFix });
        const { calls } = await callsIn(wire, await send(host, wire, requestBody(wire, "clean the build", true)));
        expect({ responseFix, calls }).toEqual({ responseFix, calls: [] });
      }
    });
  }

  test("hard negative (chat): tool_choice none and a tool the request does not declare never run", async () => {
    script = () => BASH;
    const host = await hostWith({ providers: ["deepseek"] });
    const body = { ...requestBody("chat", "clean the build", true), tool_choice: "none" };
    expect((await callsIn("chat", await send(host, "chat", body))).calls).toEqual([]);
    const named = { ...requestBody("chat", "clean the build", true), tools: [{ type: "function", function: { name: "read", parameters: { type: "object" } } }] };
    expect((await callsIn("chat", await send(host, "chat", named))).calls).toEqual([]);
  });

  // FINDING (severity: low, a false correction; src/plugin/v2/setup.ts context hook,
  // src/retry/state.ts): as in V1 (review-45-hosts-v1, "V1: scope"), a leak left pending while the
  // user talks to an out-of-scope model is corrected when they switch back, two messages later,
  // as "your last reply" although the last reply was clean.
  test("FINDING: a leak is not corrected two messages later, after a clean reply from an out-of-scope model", async () => {
    const host = await hostWith({ providers: ["deepseek"], retry: { enabled: false } });
    const OTHER: V2ModelRef = { providerID: "openai", id: "gpt-5" };
    await host.buildContext("ses_1", DEEPSEEK, [user("msg_u1", "clean up")]);
    script = () => UNDECLARED;
    await (await post(host.nativeFetch("ses_1", DEEPSEEK))).text();
    const second = await host.buildContext("ses_1", OTHER, [user("msg_u1", "clean up"), user("msg_u2", "try with gpt")]);
    expect(second.system).toEqual([]);
    script = () => "Done, cleanly.";
    await (await post(host.nativeFetch("ses_1", OTHER))).text();
    const third = await host.buildContext("ses_1", DEEPSEEK, [user("msg_u1", "clean up"), user("msg_u2", "try with gpt"), user("msg_u3", "back to deepseek")]);
    expect(third.system).toEqual([]);
  });
});
