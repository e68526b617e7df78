/**
 * Hostile review 45, area 3: the plugin's reading of its options (src/plugin/options.ts over
 * src/options/*), as both hosts use it (startOptions in src/plugin/plugin-start.ts). Every test
 * named FINDING fails on main at the time of writing; the others are hard negatives.
 */
import { afterEach, describe, expect, test } from "bun:test";
import plugin, { server } from "../../src/plugin/index.ts";
import { resolveOptions } from "../../src/plugin/options.ts";
import { block, live } from "../golden/notation.ts";
import { assemble, deltas, openAiTools, sseText } from "../security/support.ts";

const LEAK = live(`Cleaning.\n\n${block("tool_calls", [["bash", [["command", "rm -rf build"]]]])}`);
const SERVE = ["/usr/bin/bun", "/$bunfs/root/src/index.js", "serve"];
const savedArgv = process.argv;
afterEach(() => {
  process.argv = savedArgv;
});

/** The bash calls a V1 plugin started with `options` recovers from LEAK on a DeepSeek wire route. */
async function callsUnder(options: unknown): Promise<string[]> {
  const client = { app: { log: async () => undefined }, tui: { showToast: async () => undefined }, session: { promptAsync: async () => undefined } };
  const upstream = async () => new Response(sseText(deltas(LEAK, 9)), { status: 200, headers: { "content-type": "text/event-stream" } });
  const scope = { fetch: Object.assign(upstream, { preconnect: () => undefined }) as unknown as typeof fetch } as { fetch: typeof fetch; [key: symbol]: unknown };
  process.argv = SERVE;
  const hooks = await server({ client } as never, options as never, scope);
  process.argv = savedArgv;
  const output = { headers: {} as Record<string, string> };
  const model = { id: "deepseek-chat", providerID: "deepseek", api: { id: "deepseek-chat", npm: "@ai-sdk/openai-compatible" } };
  await hooks["chat.headers"]?.({ sessionID: "ses_1", agent: "build", provider: { id: "deepseek" }, model, message: { id: "msg_u1" } } as never, output as never);
  const body = JSON.stringify({ model: "deepseek-chat", stream: true, messages: [{ role: "user", content: "clean the build" }], tools: openAiTools() });
  const response = await scope.fetch("https://api.deepseek.com/v1/chat/completions", { method: "POST", headers: { "content-type": "application/json", ...output.headers }, body });
  return assemble(await response.text()).calls.map((call) => call.name ?? "?");
}

describe("a security option written inside a namespace of the wrong type", () => {
  // FINDING (severity: wrong execution, a denied tool runs; src/plugin/options.ts keepValid): a
  // security namespace whose value is not an object (`responseFix` written as a list around the
  // object, a common slip when copying from an array-shaped example) is replaced by its defaults:
  // allowTools ["*"], denyTools []. The user's denyTools ["bash"] is dropped with a "using its
  // defaults" line, and every recovered bash call runs. The same value under a misspelt key
  // (`respFix`) or a key that cannot be read fails closed (no recovered calls until fixed); the
  // module's own rule is that a security option the plugin cannot apply never fails open.
  // Same for the whole options value written as a list around the object.
  test("FINDING: `responseFix: [{ denyTools: [\"bash\"] }]` fails closed (no recovered call), like `respFix: { denyTools }`", async () => {
    const misspelt = resolveOptions({ respFix: { denyTools: ["bash"] } });
    expect(misspelt.failedClosed).toBe(true);
    expect(await callsUnder({ providers: ["deepseek"], respFix: { denyTools: ["bash"] } })).toEqual([]);

    for (const raw of [{ providers: ["deepseek"], responseFix: [{ denyTools: ["bash"] }] }, [{ providers: ["deepseek"], responseFix: { denyTools: ["bash"] } }]]) {
      // Observed on main: ["bash"], the denied tool runs.
      expect({ raw, calls: await callsUnder(raw) }).toEqual({ raw, calls: [] });
      const { options, failedClosed, problems } = resolveOptions(raw);
      expect(problems).toHaveLength(1);
      expect({ raw, failedClosed, closed: options.responseFix.allowTools.length === 0 || options.responseFix.denyTools.includes("*") }).toEqual({ raw, failedClosed: true, closed: true });
    }
  });

  // FINDING (severity: a security option dropped in silence; src/plugin/options.ts keepValid /
  // isObject): a namespace given as a Map (a programmatic config, OpenCode 2's ctx.options from a
  // JS plugin entry) is taken as an object with no keys: no problem is logged at all, the defaults
  // apply, and the deny list it holds is never applied.
  test("FINDING: a responseFix given as a Map holding denyTools is not silently read as {}", () => {
    const { options, problems } = resolveOptions({ responseFix: new Map([["denyTools", ["bash"]]]) });
    const applied = options.responseFix.denyTools.includes("bash") || options.responseFix.denyTools.includes("*") || options.responseFix.allowTools.length === 0;
    expect({ applied, told: problems.length > 0 }).toEqual({ applied: true, told: true });
  });
});

describe("hard negatives: bad values never turn a guard off", () => {
  test('echoGuard "false", 0, null, {} keep the echo guard on, each with one problem line', () => {
    for (const echoGuard of ["false", 0, null, {}, [false]]) {
      const { options, problems } = resolveOptions({ responseFix: { echoGuard } });
      expect(options.responseFix.echoGuard).toBe(true);
      expect(problems).toHaveLength(1);
    }
  });

  test("allowTools / denyTools of the wrong type fail closed, also end to end", async () => {
    for (const responseFix of [{ allowTools: "bash" }, { denyTools: "bash" }, { denyTools: ["bash", 7] }, { allowTools: ["*", null] }, { denyTools: { 0: "bash" } }]) {
      const { options } = resolveOptions({ responseFix });
      expect(options.responseFix.allowTools.length === 0 || options.responseFix.denyTools.includes("*")).toBe(true);
      expect({ responseFix, calls: await callsUnder({ providers: ["deepseek"], responseFix }) }).toEqual({ responseFix, calls: [] });
    }
  });

  test("prototype keys: a JSON __proto__ or constructor holding a security option fails closed and pollutes nothing", () => {
    for (const text of ['{"__proto__": {"responseFix": {"echoGuard": false}}}', '{"responseFix": {"__proto__": {"denyTools": []}}}', '{"constructor": {"prototype": {"denyTools": ["x"]}}}']) {
      const { options, failedClosed } = resolveOptions(JSON.parse(text));
      expect({ text, failedClosed }).toEqual({ text, failedClosed: true });
      expect(options.responseFix.echoGuard).toBe(true);
      expect(({} as Record<string, unknown>).denyTools).toBeUndefined();
    }
  });

  test("inherited keys are not options; huge, negative and NaN limits give the default with one line", () => {
    expect(resolveOptions(Object.create({ responseFix: { echoGuard: false } })).options.responseFix.echoGuard).toBe(true);
    for (const bufferLimit of [Number.MAX_VALUE, -1, Number.NaN, Number.POSITIVE_INFINITY, 1e6 + 0.5, "65536"]) {
      const { options, problems } = resolveOptions({ responseFix: { bufferLimit } });
      expect(options.responseFix.bufferLimit).toBe(65536);
      expect(problems).toHaveLength(1);
    }
  });

  test("the start never throws on hostile options, and a second plugin start is unaffected", async () => {
    const revoked = Proxy.revocable({}, {});
    revoked.revoke();
    for (const raw of [revoked.proxy, new Proxy({}, { get: () => { throw new Error("secret-value"); } }), { responseFix: revoked.proxy }, Object.create(null), Symbol("x"), 10n]) {
      const { options } = resolveOptions(raw);
      expect(options.responseFix.echoGuard).toBe(true);
    }
    expect(await callsUnder({ providers: ["deepseek"] })).toEqual(["bash"]);
  });
});
