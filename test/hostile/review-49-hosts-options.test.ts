/**
 * Hostile review 49: bad plugin options as both hosts read them (src/plugin/options.ts through V1
 * `server` and V2 `setup`). The tests that were FINDINGs are named by the rule now kept (fixed
 * in src/options/check.ts MAX_LIST_ENTRIES); the others are hard negatives.
 */
import { describe, expect, test } from "bun:test";
import { server } from "../../src/plugin/index.ts";
import { resolveOptions } from "../../src/plugin/options.ts";
import { setup } from "../../src/plugin/v2/setup.ts";
import { StandInHost } from "../v2/stand-in-host.ts";

/** How many entries of a list reading the options walks: stops the walk (a throw) past `cap`. */
function countedList(length: number, cap: number) {
  const state = { reads: 0 };
  const list = new Proxy(new Array(length), {
    get(target, key, receiver) {
      if (typeof key === "string" && /^\d+$/.test(key)) {
        state.reads++;
        if (state.reads > cap) throw new Error("walked too far");
      }
      return Reflect.get(target, key, receiver);
    },
  });
  return { list, state };
}

const MAX_LENGTH = 2 ** 32 - 1;
const CAP = 1_000_000;

describe("a list option of enormous length is refused without walking it", () => {
  // Was a FINDING (severity: host broken, OpenCode's start hangs; src/options/check.ts checkOption
  // ("a list is read entry by entry ..., every entry even after a bad one") and
  // src/plugin/options.ts validEntries / providersIntent / show): a sparse list of length 2^32-1
  // (`new Array(2 ** 32 - 1)`, or any array-like whose length is huge) is walked index by index,
  // every index even after the first bad (undefined) one: about 4.3 billion reads, a start-up that
  // does not return for minutes (measured here: 30M entries take ~0.65 s, so ~90 s at full length),
  // while the plugin's promise is "bad config gives one clear message and the defaults". Only a
  // JS-built options object can carry it (JSON has no sparse lists), so low likelihood. The probe
  // stops the walk after 1,000,000 reads (then the option reads as unreadable). Expected: a list
  // longer than any sane tool list is refused at once (one problem line, the fail-closed value).
  test("a responseFix.denyTools of length 2^32-1 is refused unread (at most 1,000,000 entries read) and fails closed", () => {
    const { list, state } = countedList(MAX_LENGTH, CAP);
    const { options, problems } = resolveOptions({ responseFix: { denyTools: list } });
    expect(state.reads).toBeLessThanOrEqual(CAP);
    expect(options.responseFix.denyTools).toEqual(["*"]);
    expect(problems).toHaveLength(1);
  });

  test("a providers list of length 2^32-1 is refused unread (at most 1,000,000 entries read), one problem line", () => {
    const { list, state } = countedList(MAX_LENGTH, CAP);
    const { problems } = resolveOptions({ providers: list });
    expect(state.reads).toBeLessThanOrEqual(CAP);
    expect(problems).toHaveLength(1);
  });

  test("hard negative: a dense list of 200,000 valid names is read in full, with no problem line", () => {
    const names = Array.from({ length: 200_000 }, (_, i) => `tool_${i}`);
    const { options, problems } = resolveOptions({ responseFix: { denyTools: names } });
    expect(problems).toEqual([]);
    expect(options.responseFix.denyTools).toHaveLength(200_000);
  });
});

const thrower = () => {
  throw new Error("boom");
};
const revoked = () => {
  const p = Proxy.revocable({}, {});
  p.revoke();
  return p.proxy;
};

/** Options no host should ever crash on: each gives defaults or fails closed, with one line. */
const HOSTILE: [string, () => unknown, { problems: number; closed: boolean }][] = [
  ["a revoked Proxy as the whole options", revoked, { problems: 1, closed: true }],
  ["a Proxy whose getPrototypeOf throws", () => new Proxy({}, { getPrototypeOf: thrower }), { problems: 1, closed: true }],
  ["a revoked Proxy as responseFix", () => ({ responseFix: revoked() }), { problems: 1, closed: true }],
  ["a getter that throws on responseFix.allowTools", () => ({ responseFix: { get allowTools() { return thrower(); } } }), { problems: 1, closed: true }],
  ["a list whose entry getter throws", () => ({ responseFix: { denyTools: Object.defineProperty([], 0, { get: thrower, enumerable: true }) } }), { problems: 1, closed: true }],
  ["__proto__ holding a deny list (JSON.parse)", () => JSON.parse('{"responseFix": {"__proto__": {"denyTools": []}}}'), { problems: 1, closed: true }],
  ["constructor.prototype (JSON.parse)", () => JSON.parse('{"constructor": {"prototype": {"debug": true}}}'), { problems: 1, closed: false }],
  ["the options as a JSON string", () => '{"responseFix":{"denyTools":["bash"]}}', { problems: 1, closed: true }],
  ["responseFix as a Map", () => ({ responseFix: new Map([["denyTools", ["bash"]]]) }), { problems: 1, closed: true }],
  ["deep frozen options", () => Object.freeze({ responseFix: Object.freeze({ denyTools: Object.freeze(["bash"]) }) }), { problems: 0, closed: false }],
];

describe("hostile option objects: never a throw into either host, one line each, tool lists fail closed (hard negatives)", () => {
  for (const [name, make, want] of HOSTILE) {
    test(name, async () => {
      const { options, problems } = resolveOptions(make());
      expect(problems).toHaveLength(want.problems);
      const closed = options.responseFix.allowTools.length === 0 || options.responseFix.denyTools.includes("*");
      expect(closed).toBe(want.closed);
      const lines: string[] = [];
      const client = { app: { log: async ({ body }: { body: { message: string } }) => void lines.push(body.message) }, tui: { showToast: thrower }, session: {} };
      const scope = { fetch: Object.assign(async () => new Response("ok"), { preconnect: () => undefined }) as unknown as typeof fetch } as { fetch: typeof fetch; [key: symbol]: unknown };
      const hooks = await server({ client } as never, make() as never, scope);
      await hooks.event?.({ event: { type: "session.created", properties: {} } } as never);
      const host = new StandInHost();
      const cleanup = await setup(host.context(make()), () => undefined, {});
      await cleanup?.();
      expect(lines.filter((l) => l.includes("option")).length).toBe(want.problems);
    });
  }
});
