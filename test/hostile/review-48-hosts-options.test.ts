/**
 * Hostile review 48: the plugin's options as both hosts read them (src/plugin/options.ts through
 * V1 `server` and V2 `setup`): what a bad value costs, what the problem line prints, and which
 * providers a bad `providers` value reaches. Every test named FINDING fails on main at the time of
 * writing; the others are hard negatives.
 */
import { describe, expect, test } from "bun:test";
import { server } from "../../src/plugin/index.ts";
import { resolveOptions } from "../../src/plugin/options.ts";
import { routeInScope } from "../../src/plugin/scope.ts";
import { setup } from "../../src/plugin/v2/setup.ts";
import { StandInHost } from "../v2/stand-in-host.ts";

const SECRET = "sk-live-4f9a8b7c6d5e";

/** V1 start: every log line and every toast, and whether it threw. */
async function v1Start(options: unknown) {
  const lines: { level: string; message: string }[] = [];
  const toasts: string[] = [];
  const client = {
    app: { log: async ({ body }: { body: { level: string; message: string } }) => void lines.push(body) },
    tui: { showToast: async (request: unknown) => void toasts.push(JSON.stringify(request)) },
    session: { promptAsync: async () => undefined, get: async () => ({ data: {} }), message: async () => ({}) },
  };
  const scope = { fetch: Object.assign(async () => new Response("ok"), { preconnect: () => undefined }) as unknown as typeof fetch } as { fetch: typeof fetch; [key: symbol]: unknown };
  const hooks = await server({ client } as never, options as never, scope);
  await hooks.event?.({ event: { type: "session.created", properties: {} } } as never);
  return { lines, toasts, hooks };
}

/** V2 start on the stand-in host, its log lines (setup's logger is passed in). */
async function v2Start(options: unknown) {
  const lines: { level: string; message: string }[] = [];
  const host = new StandInHost();
  const cleanup = await setup(host.context(options), (level, message) => void lines.push({ level, message }));
  await cleanup?.();
  return { lines };
}

describe("a credential pasted into the plugin's options never reaches a log line or a toast", () => {
  // FINDING (severity: medium, a credential in the OpenCode log; src/plugin/options.ts `show`,
  // used by every "must be ... (got <value>)" problem): a provider block pasted into the plugin's
  // entry instead of `provider` (`"providers": { "deepseek": { "options": { "apiKey": ... } } }`)
  // is a wrong type, and the problem line quotes up to 60 characters of the value as JSON: the key
  // is written to OpenCode's log file (client.app.log), which users attach to bug reports, and the
  // same line goes to stderr on OpenCode 2. Expected: the line says what type was given (an
  // object with keys "deepseek"), never string values from inside it.
  const pasted = { providers: { deepseek: { options: { apiKey: SECRET } } } };

  test("fixed: V1: no log line or toast holds the key", async () => {
    const { lines, toasts } = await v1Start(pasted);
    expect(lines.length).toBeGreaterThan(0);
    expect([...lines.map((l) => l.message), ...toasts].filter((text) => text.includes(SECRET.slice(0, 12)))).toEqual([]);
  });

  test("fixed: V2: no line on stderr holds the key", async () => {
    const { lines } = await v2Start(pasted);
    expect(lines.map((l) => l.message).filter((text) => text.includes(SECRET.slice(0, 12)))).toEqual([]);
  });

  // Same root cause, not pinned as a finding: a string value quoted in full (`debug: "<key>"`,
  // `retry.channel: "Bearer <key>"`); printing short enum-like strings ("User") helps, so a fix
  // may choose to quote only strings that look like a choice.

  test("hard negative: an unknown key's value is never printed (only its name)", () => {
    const { problems } = resolveOptions({ apiKey: SECRET, responseFix: { token: SECRET } });
    expect(problems).toHaveLength(2);
    expect(problems.filter((p) => p.includes(SECRET))).toEqual([]);
  });
});

describe("a bad `providers` value never widens the scope past what was written", () => {
  const DEEPSEEK_ELSEWHERE = { providerID: "openrouter", modelID: "deepseek/deepseek-chat" };
  const MINE = { providerID: "my-vllm", modelID: "llama-3.3-70b" };

  // FINDING (severity: medium, repairing providers the user did not name while missing the one
  // they did; src/plugin/options.ts fallbackFor / validEntries). NOTE: test/plugin/options.test.ts
  // ("providers scope tokens") pins `providers: "deepseek"` -> ["auto"]: this is a disputed
  // design, not an accident. The rule fallbackFor states ("`["my-vllm", 7]` must not act on every
  // DeepSeek route") is broken for the same intent written as a bare string or with a stray blank:
  // `"my-vllm"` and `[" my-vllm"]` both become ["auto"], which rewrites every DeepSeek/Qwen/...
  // route of every provider (openrouter's here) and leaves my-vllm's own model alone. Expected:
  // a bare string read as a one-entry list (or, failing that, the plugin standing aside: []),
  // never "auto".
  for (const providers of ["my-vllm", [" my-vllm"], ["my-vllm "]]) {
    test(`fixed: providers ${JSON.stringify(providers)} reaches my-vllm and not openrouter's DeepSeek`, () => {
      const { options, problems } = resolveOptions({ providers });
      expect(problems).toHaveLength(1);
      expect({ mine: routeInScope(options, MINE), elsewhere: routeInScope(options, DEEPSEEK_ELSEWHERE) }).toEqual({ mine: true, elsewhere: false });
    });
  }

  test("hard negative: a list with one bad entry keeps the valid entries, not auto", () => {
    const { options } = resolveOptions({ providers: ["my-vllm", 7, null, ""] });
    expect({ mine: routeInScope(options, MINE), elsewhere: routeInScope(options, DEEPSEEK_ELSEWHERE) }).toEqual({ mine: true, elsewhere: false });
  });

  test("hard negative: provider ids match exactly (no case folding, no glob): \"DeepSeek\" and \"deep*\" reach no \"deepseek\" route of another model", () => {
    for (const providers of [["DeepSeek"], ["deep*"], ["deepseek?"]]) {
      const { options } = resolveOptions({ providers });
      expect(routeInScope(options, { providerID: "deepseek", modelID: "gpt-5" })).toBe(false);
      expect(routeInScope(options, { providerID: "openrouter", modelID: "deepseek-chat" })).toBe(false);
    }
  });
});

describe("both hosts: one bad value costs one line and never a throw", () => {
  const BAD: [string, unknown][] = [
    ["debug", "true"],
    ["debug", 1],
    ["providers", null],
    ["providers", 0],
    ["responseFix", []],
    ["responseFix", "{}"],
    ["retry", null],
    ["history", 7],
    ["parse", [{}]],
    ["responseFix.bufferLimit", "4096"],
    ["responseFix.bufferLimit", -1],
    ["responseFix.bufferLimit", Number.NaN],
    ["responseFix.bufferLimit", 1e308],
    ["responseFix.denyTools", "bash"],
    ["responseFix.allowTools", null],
    ["responseFix.echoGuard", "false"],
    ["retry.channel", "User"],
    ["history.sanitize", 0],
    ["parse.dialects", "all"],
    ["parse.dialects.hermes", "yes"],
  ];
  const nested = (keys: string[], value: unknown): Record<string, unknown> => ({ [keys[0]!]: keys.length === 1 ? value : nested(keys.slice(1), value) });

  test("hard negative: V1 and V2 each log exactly one warning for each bad value, and start", async () => {
    for (const [path, value] of BAD) {
      const raw = { providers: ["deepseek"], ...nested(path.split("."), value) };
      const one = await v1Start(raw);
      const two = await v2Start(raw);
      const warnings = (lines: { level: string }[]) => lines.filter((l) => l.level === "warn").length;
      expect({ path, value: String(value), v1: warnings(one.lines), v2: warnings(two.lines), toasts: one.toasts.length }).toEqual({ path, value: String(value), v1: 1, v2: 1, toasts: 1 });
      // The one line names the option itself (not an "unknown option" from a mis-built tree).
      expect(one.lines.find((l) => l.level === "warn")!.message).toContain(`option ${JSON.stringify(path)} `);
    }
  });
});
