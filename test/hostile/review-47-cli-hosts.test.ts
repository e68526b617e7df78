/**
 * Hostile review 47: the plugin's host entries (src/plugin/index.ts `server` for OpenCode 1.18,
 * src/plugin/v2/setup.ts `setup` for OpenCode 2) with hosts that refuse or lack what they use.
 * Every test named fixed was a FINDING that failed on main when written (fixed on fx-47-cli); the others are hard negatives.
 */
import { afterEach, beforeEach, describe, expect, spyOn, test } from "bun:test";
import path from "node:path";
import type { V2Context } from "../../src/plugin/v2/host-types.ts";
import { server } from "../../src/plugin/index.ts";
import { loadLikeV2, StandInHost } from "../v2/stand-in-host.ts";

const ROOT = path.join(import.meta.dir, "..", "..");

let errorSpy: ReturnType<typeof spyOn>;
beforeEach(() => {
  errorSpy = spyOn(console, "error").mockImplementation(() => undefined);
});
afterEach(() => errorSpy.mockRestore());

/** Hooks still registered with the stand-in host, by name (empty lists dropped). */
function live(host: StandInHost): Record<string, number> {
  const out: Record<string, number> = {};
  for (const table of [host.session, host.aisdk]) for (const [name, list] of table) if (list.length > 0) out[name] = list.length;
  return out;
}

describe("V2 setup: a host that refuses one hook", () => {
  // Fixed (was: host left half-wired, medium; src/plugin/v2/setup.ts, the try/catch around
  // register()). Rule now: a failed setup disposes every registration it made. It was: when the host refuses a hook after others were accepted (here
  // `aisdk.hook("language")`, registered last; or the third session hook), setup rejects, as its
  // comment intends ("A host that refuses a hook fails the setup"), but the catch only stops the
  // event stream: the registrations already made (`context`, `http.request`, `http.response`)
  // are never disposed, and the caller gets no cleanup to dispose them with. The host believes the
  // plugin failed while its context hook still rewrites history and adds corrections, and its
  // HTTP hooks still repair; with only `http.request` accepted, requests are tagged and no response
  // is ever read. A host that retries setup then runs the surviving hooks twice. Now the catch runs
  // the same cleanup the host would call: nothing of the plugin is left live.
  test("fixed: aisdk.hook('language') refused: the session hooks already registered are disposed", async () => {
    const { definition } = await loadLikeV2(ROOT);
    const host = new StandInHost();
    const ctx = host.context({ providers: ["deepseek"] });
    const refusing: V2Context = { ...ctx, aisdk: { hook: (async () => { throw new Error("refused"); }) as V2Context["aisdk"]["hook"] } };
    await expect(Promise.resolve(definition.setup!(refusing))).rejects.toThrow("refused");
    expect(live(host)).toEqual({});
  });

  test("fixed: the third session hook refused: context and http.request do not stay registered", async () => {
    const { definition } = await loadLikeV2(ROOT);
    const host = new StandInHost();
    const ctx = host.context({ providers: ["deepseek"] });
    let accepted = 0;
    const hook = (async (...args: Parameters<V2Context["session"]["hook"]>) => {
      if (++accepted === 3) throw new Error("refused");
      return ctx.session.hook(...args);
    }) as V2Context["session"]["hook"];
    await expect(Promise.resolve(definition.setup!({ ...ctx, session: { ...ctx.session, hook } }))).rejects.toThrow("refused");
    expect(live(host)).toEqual({});
  });

  test("a dispose that throws at once costs only its own hook: the others are disposed, and the host's refusal is what setup rejects with", async () => {
    const { definition } = await loadLikeV2(ROOT);
    const host = new StandInHost();
    const ctx = host.context({ providers: ["deepseek"] });
    let disposeCalls = 0;
    const hook = (async (...args: Parameters<V2Context["session"]["hook"]>) => {
      if (args[0] === "context") return { dispose: () => { disposeCalls++; throw new Error("dispose failed"); } };
      return ctx.session.hook(...args);
    }) as V2Context["session"]["hook"];
    const refusing: V2Context = { ...ctx, session: { ...ctx.session, hook }, aisdk: { hook: (async () => { throw new Error("refused"); }) as V2Context["aisdk"]["hook"] } };
    await expect(Promise.resolve(definition.setup!(refusing))).rejects.toThrow("refused");
    expect(disposeCalls).toBe(1);
    expect(live(host)).toEqual({});
  });

  test("hard negative: a host that accepts every hook gets one of each, and the cleanup disposes them all", async () => {
    const { definition } = await loadLikeV2(ROOT);
    const host = new StandInHost();
    const cleanup = (await definition.setup!(host.context({ providers: ["deepseek"] }))) as () => Promise<void>;
    expect(live(host)).toEqual({ context: 1, "http.request": 1, "http.response": 1, language: 1 });
    await cleanup();
    expect(live(host)).toEqual({});
  });
});

describe("V1 server: a host with missing or failing parts", () => {
  test("hard negative: a client without app.log, or whose log throws or rejects, and unlistable options: hooks, never a throw", async () => {
    const hostile = new Proxy({}, { get() { throw new Error("trap"); }, ownKeys() { throw new Error("trap"); } });
    const inputs: [unknown, unknown][] = [
      [{ client: {} }, {}],
      [{ client: null }, { debug: true }],
      [{ client: { app: { log: () => { throw new Error("x"); } } } }, { debug: true }],
      [{ client: { app: { log: async () => { throw new Error("x"); } } } }, [1]],
      [{ client: {} }, hostile],
    ];
    for (const [input, options] of inputs) {
      const hooks = await server(input as never, options as never, { fetch: globalThis.fetch } as never);
      expect(typeof hooks["chat.headers"]).toBe("function");
    }
  });
});
