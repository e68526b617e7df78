import { describe, expect, test } from "bun:test";
import { defaultOptions } from "../../src/options/check.ts";
import { pluginOptionsSchema } from "../../src/options/schema.ts";
import type { PluginOptions } from "../../src/options/spec.ts";
import { resolveOptions } from "../../src/plugin/options.ts";
import plugin from "../../src/plugin/index.ts";
import { routeInScope } from "../../src/plugin/scope.ts";

const defaultDialects = { hermes: true, qwen3coder: true, glm: true, kimi: true, minimax: true, mistral: true, mistralResidue: false, claudeXml: true, lfm2: true };
const flippedDialects = { hermes: false, qwen3coder: false, glm: false, kimi: false, minimax: false, mistral: false, mistralResidue: true, claudeXml: false, lfm2: false };

const expectedDefaults: PluginOptions = {
  parse: { orphanInvoke: true, looseParameters: true, rawJsonBody: true, wrappedTool: true, codeCostumes: true, dialects: defaultDialects, standaloneJson: false },
  history: { sanitize: true },
  responseFix: { enabled: true, bufferLimit: 65536, allowTools: ["*"], denyTools: [], echoGuard: true },
  retry: { enabled: true, channel: "system", nudge: true },
  providers: ["auto"],
  debug: false,
};

const everyFieldChanged: PluginOptions = {
  parse: { orphanInvoke: false, looseParameters: false, rawJsonBody: false, wrappedTool: false, codeCostumes: false, dialects: flippedDialects, standaloneJson: true },
  history: { sanitize: false },
  responseFix: { enabled: false, bufferLimit: 1024, allowTools: ["read", "glob"], denyTools: ["bash"], echoGuard: false },
  retry: { enabled: false, channel: "user", nudge: false },
  providers: ["*"],
  debug: true,
};

describe("defaults", () => {
  test("undefined and {} resolve to every default without problems", () => {
    for (const raw of [undefined, {}]) {
      expect(resolveOptions(raw)).toEqual({ options: expectedDefaults, problems: [] });
    }
  });

  test("empty namespaces are filled in", () => {
    const raw = { parse: {}, history: {}, responseFix: {}, retry: {} };
    expect(resolveOptions(raw)).toEqual({ options: expectedDefaults, problems: [] });
  });

  test("defaultOptions matches and cannot be mutated through a resolved result", () => {
    expect(defaultOptions).toEqual(expectedDefaults);
    const { options } = resolveOptions(undefined);
    options.providers.push("mutated");
    options.parse.orphanInvoke = false;
    expect(defaultOptions).toEqual(expectedDefaults);
    expect(resolveOptions(undefined).options).toEqual(expectedDefaults);
  });
});

describe("valid values", () => {
  test("every field round-trips", () => {
    expect(resolveOptions(structuredClone(everyFieldChanged))).toEqual({ options: everyFieldChanged, problems: [] });
  });

  test("bufferLimit accepts both ends of its range", () => {
    for (const bufferLimit of [1024, 16777216]) {
      const { options, problems } = resolveOptions({ responseFix: { bufferLimit } });
      expect(problems).toEqual([]);
      expect(options.responseFix.bufferLimit).toBe(bufferLimit);
    }
  });

  test("providers [] is kept, not replaced by the default", () => {
    expect(resolveOptions({ providers: [] })).toEqual({ options: { ...expectedDefaults, providers: [] }, problems: [] });
  });
});

describe("bad values", () => {
  const cases: Array<{ bad: string; raw: Record<string, unknown>; problem: string }> = [
    {
      bad: "responseFix.bufferLimit",
      raw: { responseFix: { bufferLimit: -5, enabled: false } },
      problem: '[dsml] option "responseFix.bufferLimit" must be an integer from 1024 to 16777216 (got -5); using 65536',
    },
    {
      bad: "responseFix.bufferLimit",
      raw: { responseFix: { bufferLimit: 1023, enabled: false } },
      problem: '[dsml] option "responseFix.bufferLimit" must be an integer from 1024 to 16777216 (got 1023); using 65536',
    },
    {
      bad: "responseFix.bufferLimit",
      raw: { responseFix: { bufferLimit: 16777217, enabled: false } },
      problem: '[dsml] option "responseFix.bufferLimit" must be an integer from 1024 to 16777216 (got 16777217); using 65536',
    },
    {
      bad: "responseFix.bufferLimit",
      raw: { responseFix: { bufferLimit: 2048.5, enabled: false } },
      problem: '[dsml] option "responseFix.bufferLimit" must be an integer from 1024 to 16777216 (got 2048.5); using 65536',
    },
    {
      bad: "responseFix.bufferLimit",
      raw: { responseFix: { bufferLimit: "4096", enabled: false } },
      problem: '[dsml] option "responseFix.bufferLimit" must be an integer from 1024 to 16777216 (got "4096"); using 65536',
    },
    {
      bad: "parse.orphanInvoke",
      raw: { parse: { orphanInvoke: "yes", looseParameters: false } },
      problem: '[dsml] option "parse.orphanInvoke" must be true or false (got "yes"); using true',
    },
    {
      bad: "history.sanitize",
      raw: { history: { sanitize: null }, debug: true },
      problem: '[dsml] option "history.sanitize" must be true or false (got null); using true',
    },
    {
      bad: "retry.channel",
      raw: { retry: { channel: "assistant", nudge: false } },
      problem: '[dsml] option "retry.channel" must be "system" or "user" (got "assistant"); using "system"',
    },
    {
      bad: "providers",
      raw: { providers: [""], debug: true },
      problem:
        '[dsml] option "providers" must be an array of non-empty provider id strings without surrounding whitespace ("auto" for leak-prone models everywhere, "*" for all) (got a list of 1 (string)); using ["auto"]',
    },
    {
      bad: "debug",
      raw: { debug: 1, providers: ["*"] },
      problem: '[dsml] option "debug" must be true or false (got 1); using false',
    },
    {
      bad: "retry",
      raw: { retry: "off", debug: true },
      problem: '[dsml] option "retry" must be an object (got "off"); using its defaults',
    },
    {
      bad: "parse",
      raw: { parse: [false], debug: true },
      problem: '[dsml] option "parse" must be an object (got a list of 1 (boolean)); using its defaults',
    },
  ];

  for (const { bad, raw, problem } of cases) {
    test(problem, () => {
      const { options, problems } = resolveOptions(raw);
      expect(problems).toEqual([problem]);
      expect(options).toEqual(defaultsOverlaidWith(raw, bad));
    });
  }

  test("several bad values give one problem each, in input order", () => {
    const { options, problems } = resolveOptions({
      parse: { orphanInvoke: 0, codeCostumes: false },
      responseFix: { bufferLimit: 0 },
      debug: "true",
    });
    expect(problems).toHaveLength(3);
    expect(problems[0]).toContain('"parse.orphanInvoke"');
    expect(problems[1]).toContain('"responseFix.bufferLimit"');
    expect(problems[2]).toContain('"debug"');
    expect(options.parse).toEqual({ ...expectedDefaults.parse, codeCostumes: false });
  });

  test("long values are shortened in the message", () => {
    const { problems } = resolveOptions({ debug: "x".repeat(500) });
    expect(problems).toHaveLength(1);
    expect(problems[0]!.length).toBeLessThan(200);
  });

  test("values JSON cannot print still produce a message", () => {
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    expect(resolveOptions({ debug: 10n }).problems).toEqual(['[dsml] option "debug" must be true or false (got 10n); using false']);
    expect(resolveOptions({ debug: circular }).problems).toEqual([
      '[dsml] option "debug" must be true or false (got an object with key "self"); using false',
    ]);
  });
});

describe("unknown keys", () => {
  test("top level, with a suggestion for a typo, siblings kept", () => {
    expect(resolveOptions({ histroy: { sanitize: false }, debug: true })).toEqual({
      options: { ...expectedDefaults, debug: true },
      problems: ['[dsml] unknown option "histroy" (did you mean "history"?); ignored'],
    });
    // The namespace that holds the security options is the exception: a typo of it fails closed
    // ("a security option under an unknown key", below).
    expect(resolveOptions({ respnseFix: { enabled: false }, debug: true })).toEqual({
      options: { ...expectedDefaults, debug: true, responseFix: { ...expectedDefaults.responseFix, allowTools: [] } },
      problems: [
        '[dsml] unknown option "respnseFix" (did you mean "responseFix"?); ignored, and no tool call is recovered until it is fixed (it is close to "responseFix", which holds security options)',
      ],
      failedClosed: true,
    });
  });

  test("nested, with a suggestion for a typo, siblings kept", () => {
    expect(resolveOptions({ parse: { orphanInvok: false, codeCostumes: false } })).toEqual({
      options: { ...expectedDefaults, parse: { ...expectedDefaults.parse, codeCostumes: false } },
      problems: ['[dsml] unknown option "parse.orphanInvok" (did you mean "parse.orphanInvoke"?); ignored'],
    });
  });

  test("a differently cased key is pointed at the right spelling", () => {
    expect(resolveOptions({ Debug: true }).problems).toEqual(['[dsml] unknown option "Debug" (did you mean "debug"?); ignored']);
  });

  test("a field written in the wrong place is pointed at its namespace", () => {
    expect(resolveOptions({ bufferLimit: 4096 }).problems).toEqual([
      '[dsml] unknown option "bufferLimit" (did you mean "responseFix.bufferLimit"?); ignored',
    ]);
    expect(resolveOptions({ parse: { sanitize: false } }).problems).toEqual([
      '[dsml] unknown option "parse.sanitize" (did you mean "history.sanitize"?); ignored',
    ]);
  });

  test("no suggestion when nothing is close or the name is ambiguous", () => {
    expect(resolveOptions({ colour: "red", enabled: false }).problems).toEqual([
      '[dsml] unknown option "colour"; ignored',
      '[dsml] unknown option "enabled"; ignored',
    ]);
  });
});

describe("input that is not an object", () => {
  for (const raw of [null, true, 42, "deepseek", ["deepseek"]]) {
    test(`${JSON.stringify(raw)} gives one message and all defaults`, () => {
      const { options, problems } = resolveOptions(raw);
      expect(options).toEqual(expectedDefaults);
      // A list is described, never quoted (review 48: a value inside a list or object may be a credential).
      const shown = Array.isArray(raw) ? "a list of 1 (string)" : JSON.stringify(raw);
      expect(problems).toEqual([`[dsml] options must be an object (got ${shown}); using defaults for all options`]);
    });
  }

  test("an object that throws while being read does not escape", () => {
    const hostile = new Proxy(
      {},
      {
        ownKeys() {
          throw new Error("boom");
        },
      },
    );
    const { options, problems } = resolveOptions(hostile);
    // Unlisted keys may have held a deny list: the tool lists fail closed, everything else is default.
    expect(options).toEqual({ ...expectedDefaults, responseFix: { ...expectedDefaults.responseFix, allowTools: [], denyTools: ["*"] } });
    expect(problems).toEqual([
      '[dsml] options could not be listed; using its defaults, except "responseFix.allowTools" = [] and "responseFix.denyTools" = ["*"] (no recovered calls until this is fixed)',
    ]);
  });
});

describe("prototype pollution", () => {
  test("__proto__ at the top level is rejected and Object.prototype stays clean", () => {
    const { options, problems } = resolveOptions(JSON.parse('{"__proto__":{"polluted":1}}'));
    expect(problems).toEqual(['[dsml] unknown option "__proto__"; ignored']);
    expect(options).toEqual(expectedDefaults);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.prototype).not.toHaveProperty("polluted");
    expect(Object.getPrototypeOf(options)).toBe(Object.prototype);
  });

  test("pollution keys inside namespaces are rejected and never reach a prototype", () => {
    const raw = JSON.parse(
      '{"parse":{"__proto__":{"polluted":1},"constructor":{"prototype":{"polluted":1}}},"retry":{"prototype":{"polluted":1}},"constructor":{"polluted":1}}',
    );
    const { options, problems } = resolveOptions(raw);
    expect(problems).toEqual([
      '[dsml] unknown option "parse.__proto__"; ignored',
      '[dsml] unknown option "parse.constructor"; ignored',
      '[dsml] unknown option "retry.prototype"; ignored',
      '[dsml] unknown option "constructor"; ignored',
    ]);
    expect(options).toEqual(expectedDefaults);
    expect(Object.prototype).not.toHaveProperty("polluted");
    expect(Object.getPrototypeOf(options.parse)).toBe(Object.prototype);
    expect(Object.getPrototypeOf(options.retry)).toBe(Object.prototype);
  });
});

describe("recovered-call tool lists and the echo guard", () => {
  test("allowTools, denyTools and echoGuard round-trip", () => {
    const raw = { responseFix: { allowTools: ["read", "glob"], denyTools: ["bash"], echoGuard: false } };
    expect(resolveOptions(raw)).toEqual({ options: { ...expectedDefaults, responseFix: { ...expectedDefaults.responseFix, ...raw.responseFix } }, problems: [] });
    expect(resolveOptions({ responseFix: { allowTools: [], denyTools: ["*"] } }).options.responseFix).toMatchObject({ allowTools: [], denyTools: ["*"] });
  });

  // A mistyped deny list must not silently allow everything: both lists fail closed.
  const failClosed: Array<{ raw: Record<string, unknown>; field: "allowTools" | "denyTools"; used: string[]; problem: string }> = [
    {
      raw: { denyTools: "bash" },
      field: "denyTools",
      used: ["*"],
      problem: '[dsml] option "responseFix.denyTools" must be an array of non-empty tool name strings without surrounding whitespace ("*" for all) (got "bash"); using ["*"] (no recovered calls until this is fixed)',
    },
    {
      raw: { denyTools: ["bash", null] },
      field: "denyTools",
      used: ["*"],
      problem: '[dsml] option "responseFix.denyTools" must be an array of non-empty tool name strings without surrounding whitespace ("*" for all) (got a list of 2 (string, null)); using ["*"] (no recovered calls until this is fixed)',
    },
    {
      raw: { allowTools: { read: true } },
      field: "allowTools",
      used: [],
      problem: '[dsml] option "responseFix.allowTools" must be an array of non-empty tool name strings without surrounding whitespace ("*" for all) (got an object with key "read"); using [] (no recovered calls until this is fixed)',
    },
    {
      raw: { allowTools: ["read", ""] },
      field: "allowTools",
      used: [],
      problem: '[dsml] option "responseFix.allowTools" must be an array of non-empty tool name strings without surrounding whitespace ("*" for all) (got a list of 2 (string, string)); using [] (no recovered calls until this is fixed)',
    },
    // Review 46: a name with whitespace around it names no tool (`"read "` would deny nothing).
    {
      raw: { denyTools: ["read "] },
      field: "denyTools",
      used: ["*"],
      problem: '[dsml] option "responseFix.denyTools" must be an array of non-empty tool name strings without surrounding whitespace ("*" for all) (got a list of 1 (string)); using ["*"] (no recovered calls until this is fixed)',
    },
    {
      raw: { denyTools: ["bash", "\tread\n"] },
      field: "denyTools",
      used: ["*"],
      problem: '[dsml] option "responseFix.denyTools" must be an array of non-empty tool name strings without surrounding whitespace ("*" for all) (got a list of 2 (string, string)); using ["*"] (no recovered calls until this is fixed)',
    },
    {
      raw: { allowTools: [" read"] },
      field: "allowTools",
      used: [],
      problem: '[dsml] option "responseFix.allowTools" must be an array of non-empty tool name strings without surrounding whitespace ("*" for all) (got a list of 1 (string)); using [] (no recovered calls until this is fixed)',
    },
  ];
  for (const { raw, field, used, problem } of failClosed) {
    test(problem, () => {
      const { options, problems } = resolveOptions({ responseFix: { ...raw, bufferLimit: 2048 } });
      expect(problems).toEqual([problem]);
      expect(options.responseFix[field]).toEqual(used);
      expect(options.responseFix.bufferLimit).toBe(2048);
    });
  }

  test("a fail-closed value is a fresh array each time", () => {
    const first = resolveOptions({ responseFix: { allowTools: 1 } }).options;
    first.responseFix.allowTools.push("bash");
    expect(resolveOptions({ responseFix: { allowTools: 1 } }).options.responseFix.allowTools).toEqual([]);
  });

  test("a bad echoGuard keeps the guard on", () => {
    expect(resolveOptions({ responseFix: { echoGuard: "off" } })).toEqual({
      options: expectedDefaults,
      problems: ['[dsml] option "responseFix.echoGuard" must be true or false (got "off"); using true'],
    });
  });
});

describe("hostile config", () => {
  test("enormous, negative and non-finite buffer limits fall back to the default", () => {
    for (const bufferLimit of [1e308, -1e308, Number.MAX_SAFE_INTEGER, -0.5, Number.NaN, Number.POSITIVE_INFINITY, -1]) {
      const { options, problems } = resolveOptions({ responseFix: { bufferLimit } });
      expect(options.responseFix.bufferLimit).toBe(65536);
      expect(problems).toHaveLength(1);
      expect(problems[0]).toContain("must be an integer from 1024 to 16777216");
    }
  });

  test("a getter that throws deep inside the options costs only its own key", () => {
    const responseFix = { denyTools: ["bash"], echoGuard: false };
    Object.defineProperty(responseFix, "bufferLimit", {
      enumerable: true,
      get() {
        throw new Error("hostile getter");
      },
    });
    const { options, problems } = resolveOptions({ responseFix, retry: { channel: "user" } });
    expect(options).toEqual({
      ...expectedDefaults,
      responseFix: { ...expectedDefaults.responseFix, denyTools: ["bash"], echoGuard: false },
      retry: { ...expectedDefaults.retry, channel: "user" },
    });
    expect(problems).toEqual(['[dsml] option "responseFix.bufferLimit" could not be read; using 65536']);
  });

  test("pollution keys as tool names are plain names, and as keys never reach a prototype", () => {
    const names = resolveOptions(JSON.parse('{"responseFix":{"allowTools":["__proto__","constructor"]}}'));
    expect(names.problems).toEqual([]);
    expect(names.options.responseFix.allowTools).toEqual(["__proto__", "constructor"]);
    const raw = JSON.parse('{"responseFix":{"allowTools":["__proto__","constructor"],"__proto__":{"denyTools":["*"]}}}');
    const { options, problems } = resolveOptions(raw);
    // Not copied; and since the key held a security option, recovered calls are off until it is fixed.
    expect(problems).toEqual(['[dsml] unknown option "responseFix.__proto__"; ignored, and no tool call is recovered until it is fixed (it holds "responseFix.__proto__.denyTools", which is close to a security option)']);
    expect(options.responseFix.allowTools).toEqual([]);
    expect(options.responseFix.denyTools).toEqual([]);
    expect(Object.prototype).not.toHaveProperty("denyTools");
    expect(Object.getPrototypeOf(options.responseFix)).toBe(Object.prototype);
  });

  test("unknown provider ids are kept: the catalog is OpenCode's, and an id it does not know is never acted on", () => {
    const { options, problems } = resolveOptions({ providers: ["no-such-provider", "__proto__"] });
    expect(problems).toEqual([]);
    expect(routeInScope(options, { providerID: "deepseek", modelID: "gpt-5" })).toBe(false);
    expect(routeInScope(options, { providerID: "no-such-provider", modelID: "gpt-5" })).toBe(true);
  });
});

describe("pluginOptionsSchema", () => {
  test("fills defaults and rejects unknown keys on its own", () => {
    expect(pluginOptionsSchema.parse({})).toEqual(expectedDefaults);
    expect(pluginOptionsSchema.safeParse({ parse: { extra: true } }).success).toBe(false);
  });
});

describe("providers scope tokens", () => {
  test('the default is "auto": leak-prone models on any provider', () => {
    expect(routeInScope(defaultOptions, { providerID: "fireworks-ai", modelID: "accounts/fireworks/models/deepseek-v3p2" })).toBe(true);
    expect(routeInScope(defaultOptions, { providerID: "deepseek", modelID: "gpt-5" })).toBe(false);
  });

  test('"*" covers every provider and model', () => {
    const { options } = resolveOptions({ providers: ["deepseek", "*"] });
    expect(routeInScope(options, { providerID: "openai", modelID: "gpt-5" })).toBe(true);
  });

  test("a provider id with whitespace around it is trimmed, with one warning (review 48, finding 7; review 46 dropped it)", () => {
    const { options, problems } = resolveOptions({ providers: ["my-vllm", " deepseek"] });
    expect(problems).toEqual(['[dsml] option "providers" has an entry with blanks around it (a provider id has none); trimmed']);
    expect(options.providers).toEqual(["my-vllm", "deepseek"]);
  });

  test("a bare string is read as a one-entry list, with one warning that it should be a list (review 48, finding 7)", () => {
    const { options, problems } = resolveOptions({ providers: "deepseek", debug: true });
    expect(problems).toEqual(['[dsml] option "providers" should be a list of provider ids (got "deepseek"); read as a one-entry list: write it as [...]']);
    expect(options).toEqual({ ...expectedDefaults, providers: ["deepseek"], debug: true });
    // Never the default "auto": a DeepSeek model on another provider stays out of scope.
    expect(routeInScope(options, { providerID: "fireworks-ai", modelID: "accounts/fireworks/models/deepseek-v3p2" })).toBe(false);
    expect(routeInScope(options, { providerID: "deepseek", modelID: "deepseek-chat" })).toBe(true);
    // Blanks around it are trimmed as in a list; a blank string names nothing (the default, as before).
    expect(resolveOptions({ providers: " my-vllm " }).options.providers).toEqual(["my-vllm"]);
    expect(resolveOptions({ providers: "  " }).options.providers).toEqual(["auto"]);
  });

  test("a list with an invalid entry keeps the valid ones, never widening to the default \"auto\" (review: plugin, finding 5)", () => {
    const { options, problems } = resolveOptions({ providers: ["my-vllm", 7, ""], debug: true });
    expect(problems).toEqual([
      '[dsml] option "providers" must be an array of non-empty provider id strings without surrounding whitespace ("auto" for leak-prone models everywhere, "*" for all) (got a list of 3 (string, number, string)); using the valid entry',
    ]);
    expect(options).toEqual({ ...expectedDefaults, providers: ["my-vllm"], debug: true });
    // The user named one provider: a DeepSeek model elsewhere stays out of scope.
    expect(routeInScope(options, { providerID: "fireworks-ai", modelID: "accounts/fireworks/models/deepseek-v3p2" })).toBe(false);
    expect(routeInScope(options, { providerID: "my-vllm", modelID: "qwen3-coder" })).toBe(true);
    // Wildcards the user wrote are kept as written too.
    expect(resolveOptions({ providers: ["deepseek", null, "auto"] }).options.providers).toEqual(["deepseek", "auto"]);
  });

  test("a list with no valid entry, or no list, still takes the default with its one message", () => {
    for (const raw of [{ providers: [7] }, { providers: "" }, { providers: [""] }]) {
      const { options, problems } = resolveOptions(raw);
      expect(options.providers).toEqual(["auto"]);
      expect(problems).toHaveLength(1);
      expect(problems[0]).toEndWith('; using ["auto"]');
    }
  });

  test("[] disables every provider", () => {
    const { options } = resolveOptions({ providers: [] });
    for (const providerID of ["deepseek", "opencode-go", "opencode", "*", "auto"]) {
      expect(routeInScope(options, { providerID, modelID: "deepseek-chat" })).toBe(false);
    }
  });
});

/** The options resolveOptions should produce: every raw value kept except the one at skipPath. */
function defaultsOverlaidWith(raw: Record<string, unknown>, skipPath: string): PluginOptions {
  const expected = structuredClone(expectedDefaults) as Record<string, unknown>;
  for (const [key, value] of Object.entries(raw)) {
    if (key === skipPath) continue;
    const target = expected[key];
    if (isRecord(value) && isRecord(target)) {
      for (const [name, nested] of Object.entries(value)) {
        if (`${key}.${name}` !== skipPath) target[name] = nested;
      }
    } else {
      expected[key] = value;
    }
  }
  return expected as PluginOptions;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

describe("parse.dialects", () => {
  test("one switch changes alone; a bad value and an unknown dialect each give one message", () => {
    const { options, problems } = resolveOptions({ parse: { dialects: { mistralResidue: true, hermes: "yes", qwen: true } } });
    expect(options.parse.dialects).toEqual({ ...defaultDialects, mistralResidue: true });
    expect(problems).toHaveLength(2);
    expect(problems[0]).toBe('[dsml] option "parse.dialects.hermes" must be true or false (got "yes"); using true');
    expect(problems[1]).toStartWith('[dsml] unknown option "parse.dialects.qwen"');
  });
});

describe("each key is read on its own (a throwing getter, a Proxy, a frozen object)", () => {
  const throwing = (target: Record<string, unknown>, key: string) =>
    Object.defineProperty(target, key, {
      enumerable: true,
      get() {
        throw new Error("hostile getter");
      },
    });

  test("an unreadable denyTools denies every tool, an unreadable allowTools allows none; the other keys keep their values", () => {
    const deny = resolveOptions({ responseFix: throwing({ allowTools: ["read"], bufferLimit: 2048 }, "denyTools"), debug: true });
    expect(deny.options.responseFix).toEqual({ ...expectedDefaults.responseFix, allowTools: ["read"], bufferLimit: 2048, denyTools: ["*"] });
    expect(deny.options.debug).toBe(true);
    expect(deny.problems).toEqual(['[dsml] option "responseFix.denyTools" could not be read; using ["*"] (no recovered calls until this is fixed)']);

    const allow = resolveOptions({ responseFix: throwing({ denyTools: ["bash"] }, "allowTools") });
    expect(allow.options.responseFix).toEqual({ ...expectedDefaults.responseFix, allowTools: [], denyTools: ["bash"] });
    expect(allow.problems).toEqual(['[dsml] option "responseFix.allowTools" could not be read; using [] (no recovered calls until this is fixed)']);
  });

  test("a Proxy that throws for one key only: that key falls back, the deny list stays", () => {
    const responseFix = new Proxy({ denyTools: ["bash"], enabled: true, echoGuard: true } as Record<string, unknown>, {
      get(target, key) {
        if (key === "enabled") throw new Error("trap");
        return target[key as string];
      },
    });
    const { options, problems } = resolveOptions({ responseFix });
    expect(options.responseFix).toEqual({ ...expectedDefaults.responseFix, denyTools: ["bash"] });
    expect(problems).toEqual(['[dsml] option "responseFix.enabled" could not be read; using true']);
  });

  test("a tool list whose elements throw while zod walks them fails closed, alone", () => {
    const list = new Proxy(["bash"], {
      get(target, key) {
        if (key === "0") throw new Error("element trap");
        return Reflect.get(target, key);
      },
    });
    const { options, problems } = resolveOptions({ responseFix: { denyTools: list, allowTools: ["read"] } });
    expect(options.responseFix.denyTools).toEqual(["*"]);
    expect(options.responseFix.allowTools).toEqual(["read"]);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain('"responseFix.denyTools" could not be read');
  });

  test("an unreadable namespace closes its tool lists; an unlistable one too; one line each", () => {
    const raw = throwing({ providers: ["deepseek"] }, "responseFix");
    const { options, problems } = resolveOptions(raw);
    expect(options.responseFix).toEqual({ ...expectedDefaults.responseFix, allowTools: [], denyTools: ["*"] });
    expect(options.providers).toEqual(["deepseek"]);
    expect(problems).toEqual([
      '[dsml] option "responseFix" could not be read; using its defaults, except "responseFix.allowTools" = [] and "responseFix.denyTools" = ["*"] (no recovered calls until this is fixed)',
    ]);

    const unlistable = new Proxy({}, { ownKeys: () => { throw new Error("keys"); } });
    const listed = resolveOptions({ responseFix: unlistable, retry: { nudge: false } });
    expect(listed.options.responseFix.denyTools).toEqual(["*"]);
    expect(listed.options.retry.nudge).toBe(false);
    expect(listed.problems).toHaveLength(1);
    expect(listed.problems[0]).toContain('option "responseFix" could not be listed');
  });

  test("providers and retry options that cannot be read fall back to their defaults without touching the rest", () => {
    const raw = throwing(throwing({ responseFix: { denyTools: ["bash"] } }, "providers"), "retry");
    const { options, problems } = resolveOptions(raw);
    expect(options.providers).toEqual(expectedDefaults.providers);
    expect(options.retry).toEqual(expectedDefaults.retry);
    expect(options.responseFix.denyTools).toEqual(["bash"]);
    expect(problems).toEqual([
      '[dsml] option "providers" could not be read; using ["auto"]',
      '[dsml] option "retry" could not be read; using its defaults',
    ]);
  });

  test("a frozen config is read as given", () => {
    const frozen = Object.freeze({ responseFix: Object.freeze({ denyTools: Object.freeze(["bash"]) }), providers: Object.freeze(["*"]) });
    const { options, problems } = resolveOptions(frozen);
    expect(problems).toEqual([]);
    expect(options.responseFix.denyTools).toEqual(["bash"]);
    expect(options.providers).toEqual(["*"]);
  });
});

describe("bad options where the user looks (issue 31 item 3)", () => {
  const closedNote = "; ignored, and no tool call is recovered until it is fixed (it is close to a security option)";

  test('"did you mean" searches every namespace: a misplaced, misspelt "denyTool" is "responseFix.denyTools"', () => {
    expect(resolveOptions({ denyTool: ["bash"] }).problems).toEqual([`[dsml] unknown option "denyTool" (did you mean "responseFix.denyTools"?)${closedNote}`]);
    expect(resolveOptions({ history: { bufferLimt: 2048 } }).problems).toEqual(['[dsml] unknown option "history.bufferLimt" (did you mean "responseFix.bufferLimit"?); ignored']);
    expect(resolveOptions({ retry: { sanitise: false } }).problems).toEqual(['[dsml] unknown option "retry.sanitise" (did you mean "history.sanitize"?); ignored']);
    expect(resolveOptions({ parse: { hermse: false } }).problems).toEqual(['[dsml] unknown option "parse.hermse" (did you mean "parse.dialects.hermes"?); ignored']);
  });

  test("a key written dotted is told how to nest", () => {
    expect(resolveOptions({ "retry.channel": "user" }).problems).toEqual(['[dsml] unknown option "retry.channel" (options nest: write { "retry": { "channel": ... } }); ignored']);
  });

  test("a key close to a security option fails closed: no recovered call until it is fixed, the rest kept", () => {
    for (const raw of [
      { denyTool: ["bash"] },
      { responseFix: { denytools: ["bash"] } },
      { allowTool: ["read"] },
      { responseFix: { allowTools: ["read"], echoGaurd: false } },
      { provider: ["my-vllm"] },
      { "responseFix.denyTools": ["bash"] },
    ]) {
      const resolved = resolveOptions({ ...raw, debug: true });
      expect(resolved.failedClosed).toBe(true);
      expect(resolved.options.responseFix.allowTools).toEqual([]);
      expect(resolved.options.debug).toBe(true);
      expect(resolved.problems).toHaveLength(1);
      expect(resolved.problems[0]).toEndWith(closedNote);
    }
  });

  test("a key close to nothing security-related is only ignored: recovered calls stay as configured", () => {
    for (const raw of [{ colour: 1 }, { Debug: true }, { retry: { chanel: "user" } }, { enabled: true }]) {
      const resolved = resolveOptions({ ...raw, responseFix: { allowTools: ["read"] } });
      expect(resolved.failedClosed).toBeUndefined();
      expect(resolved.options.responseFix.allowTools).toEqual(["read"]);
      expect(resolved.problems[0]).toEndWith("; ignored");
    }
  });

  test("every line the plugin logs starts with [dsml], option problems, hook failures and the start-up line alike", async () => {
    const lines: { level: string; message: string }[] = [];
    const client = { app: { log: async ({ body }: { body: { level: string; message: string } }) => void lines.push(body) }, session: { promptAsync: async () => undefined } };
    const hooks = await plugin.server({ client } as never, { denyTool: ["bash"], responseFix: { bufferLimit: 1 }, providers: ["*"] });
    await hooks.config!({} as never);
    await hooks["experimental.chat.messages.transform"]!({}, { get messages(): never { throw new Error("x"); } } as never);
    expect(lines.length).toBeGreaterThanOrEqual(4);
    for (const { message } of lines) expect(message).toStartWith("[dsml] ");
    expect(lines.filter((l) => l.level === "warn").map((l) => l.message).slice(0, 2)).toEqual(resolveOptions({ denyTool: ["bash"], responseFix: { bufferLimit: 1 } }).problems);
  });

  test("the start-up line counts the problems and says when recovered calls are closed", async () => {
    const lines: string[] = [];
    const client = { app: { log: async ({ body }: { body: { message: string } }) => void lines.push(body.message) }, session: { promptAsync: async () => undefined } };
    const hooks = await plugin.server({ client } as never, { denyTool: ["bash"], debug: "yes", providers: ["*"] });
    await hooks.config!({} as never);
    const startup = lines.find((line) => line.startsWith("[dsml] loaded v"));
    expect(startup).toEndWith("; 2 option problem(s), logged above; no tool call is recovered until they are fixed (dsml-fix doctor lists them)");
    const clean: string[] = [];
    const cleanHooks = await plugin.server({ client: { ...client, app: { log: async ({ body }: { body: { message: string } }) => void clean.push(body.message) } } } as never, { providers: ["*"] });
    await cleanHooks.config!({} as never);
    expect(clean.find((line) => line.startsWith("[dsml] loaded v"))).not.toContain("option problem");
  });

  test("a TUI toast, once, at the first session event; none when the options are clean", async () => {
    const toasts: unknown[] = [];
    const client = { app: { log: async () => undefined }, session: { promptAsync: async () => undefined }, tui: { showToast: async (request: unknown) => void toasts.push(request) } };
    const hooks = await plugin.server(client ? ({ client } as never) : ({} as never), { denyTool: ["bash"], providers: ["*"] });
    await hooks.event!({ event: { type: "server.connected", properties: {} } } as never);
    expect(toasts).toEqual([]);
    await hooks.event!({ event: { type: "session.created", properties: {} } } as never);
    await hooks.event!({ event: { type: "session.updated", properties: {} } } as never);
    expect(toasts).toEqual([
      {
        body: {
          title: "dsml-fix options",
          message: "1 option problem(s) in the plugin entry; no tool call is recovered until they are fixed. Run `npx dsml-fix doctor` for the list.",
          variant: "error",
          duration: 15_000,
        },
      },
    ]);
    const quiet: unknown[] = [];
    const cleanHooks = await plugin.server({ client: { ...client, tui: { showToast: async (request: unknown) => void quiet.push(request) } } } as never, { providers: ["*"] });
    await cleanHooks.event!({ event: { type: "session.created", properties: {} } } as never);
    expect(quiet).toEqual([]);
  });

  test("a toast that throws or rejects costs nothing", async () => {
    for (const showToast of [() => { throw new Error("no tui"); }, async () => { throw new Error("no tui"); }]) {
      const client = { app: { log: async () => undefined }, session: { promptAsync: async () => undefined }, tui: { showToast } };
      const hooks = await plugin.server({ client } as never, { debug: 3, providers: ["*"] });
      await expect(hooks.event!({ event: { type: "session.created", properties: {} } } as never)).resolves.toBeUndefined();
    }
  });
});

describe("a security option under an unknown key (review 3)", () => {
  const closedBy = (why: string) => `; ignored, and no tool call is recovered until it is fixed (${why})`;
  const nearNamespace = closedBy('it is close to "responseFix", which holds security options');
  /** Recovered calls are off, the key's neighbours kept, one line for the key. */
  function expectClosed(raw: Record<string, unknown>, problem: string) {
    const resolved = resolveOptions({ ...raw, debug: true });
    expect(resolved.failedClosed).toBe(true);
    expect(resolved.options.responseFix.allowTools).toEqual([]);
    expect(resolved.options.debug).toBe(true);
    expect(resolved.problems).toEqual([problem]);
  }
  /** Only ignored: recovered calls stay as configured. */
  function expectIgnored(raw: Record<string, unknown>) {
    const resolved = resolveOptions({ ...raw, responseFix: { allowTools: ["read"] } });
    expect(resolved.failedClosed).toBeUndefined();
    expect(resolved.options.responseFix.allowTools).toEqual(["read"]);
    expect(resolved.problems).toHaveLength(1);
    expect(resolved.problems[0]).toEndWith("; ignored");
  }

  test("a misspelt responseFix namespace holding denyTools no longer leaves bash recoverable; spelt right, it still works", () => {
    for (const namespace of ["responsefix", "ResponseFix", "response_fix", "respnseFix"]) {
      expectClosed({ [namespace]: { denyTools: ["bash"] } }, `[dsml] unknown option ${JSON.stringify(namespace)} (did you mean "responseFix"?)${nearNamespace}`);
    }
    expectClosed({ respFix: { denyTools: ["bash"] } }, `[dsml] unknown option "respFix"${closedBy('it holds "respFix.denyTools", which is close to a security option')}`);
    expectClosed({ responsefix: { allowTools: ["read"] } }, `[dsml] unknown option "responsefix" (did you mean "responseFix"?)${nearNamespace}`);
    const right = resolveOptions({ responseFix: { denyTools: ["bash"] } });
    expect(right).toEqual({ options: { ...expectedDefaults, responseFix: { ...expectedDefaults.responseFix, denyTools: ["bash"] } }, problems: [] });
  });

  test("a name close to the namespace closes whatever its value, even one with no security option in it", () => {
    for (const value of [false, "deny bash", { bufferLimit: 2048 }, []]) {
      expectClosed({ responsefix: value }, `[dsml] unknown option "responsefix" (did you mean "responseFix"?)${nearNamespace}`);
    }
    // In the wrong namespace, or written dotted, the same.
    expectClosed({ parse: { responseFix: { denyTools: ["bash"] } } }, `[dsml] unknown option "parse.responseFix" (did you mean "responseFix"?)${nearNamespace}`);
    // Far from the namespace, with nothing security-related inside: only ignored.
    expectIgnored({ respFix: { bufferLimit: 2048 } });
    expectIgnored({ histroy: { sanitize: false } });
    expectIgnored({ "responseFix.bufferLimit": 2048 });
  });

  test("a security option at any depth inside an unknown key, in an object or a list, misspelt or not", () => {
    const holds = (path: string) => closedBy(`it holds ${JSON.stringify(path)}, which is close to a security option`);
    expectClosed({ respFix: { denytool: ["bash"] } }, `[dsml] unknown option "respFix"${holds("respFix.denytool")}`);
    expectClosed({ plugin: { settings: [{ echoGuard: false }] } }, `[dsml] unknown option "plugin"${holds("plugin.settings[0].echoGuard")}`);
    expectClosed({ responseFix: { extra: { allowTools: ["read"] } } }, `[dsml] unknown option "responseFix.extra"${holds("responseFix.extra.allowTools")}`);
    expectClosed({ retry: { scope: { providers: ["my-vllm"] } } }, `[dsml] unknown option "retry.scope"${holds("retry.scope.providers")}`);
    expectClosed({ wrapper: { responsefix: { bufferLimit: 2048 } } }, `[dsml] unknown option "wrapper"${holds("wrapper.responsefix")}`);
    expectClosed({ "x.denyTools": ["bash"] }, `[dsml] unknown option "x.denyTools" (did you mean "responseFix.denyTools"?)${closedBy("it is close to a security option")}`);
    // Nothing security-related inside, however deep: only ignored.
    expectIgnored({ colour: { shade: "red", stops: [{ at: 0, name: "deny" }, { at: 1, tools: ["bash"] }] } });
    expectIgnored({ retry: { chanel: { user: true } } });
  });

  test("what cannot be searched to the end may hold one: a throwing getter, a throwing Proxy, too deep, too wide", () => {
    const unread = closedBy("it could not be read to the end, and may hold a security option");
    const deep: Record<string, unknown> = {};
    let level = deep;
    for (let i = 0; i < 20; i++) level = level.a = {};
    const wide = Object.fromEntries(Array.from({ length: 10_001 }, (_, i) => [`k${i}`, i]));
    // Every read makes a new object: the search stops at its bounds, never runs away.
    const endless = (): object => new Proxy({}, { ownKeys: () => ["a", "b", "c"], getOwnPropertyDescriptor: () => ({ enumerable: true, configurable: true, value: 1 }), get: () => endless() });
    for (const palette of [
      { get inner(): never { throw new Error("getter"); } },
      new Proxy({}, { ownKeys: () => { throw new Error("keys"); } }),
      deep,
      wide,
      endless(),
    ]) {
      expectClosed({ palette }, `[dsml] unknown option "palette"${unread}`);
    }
    const thrower = { debug: true, responseFix: { denyTools: ["bash"] } };
    Object.defineProperty(thrower, "colour", { enumerable: true, get: () => { throw new Error("colour"); } });
    const resolved = resolveOptions(thrower);
    expect(resolved).toEqual({
      options: { ...expectedDefaults, debug: true, responseFix: { ...expectedDefaults.responseFix, allowTools: [], denyTools: ["bash"] } },
      problems: [`[dsml] unknown option "colour"${unread}`],
      failedClosed: true,
    });
    // A cycle, a shared object and a long plain list are searched once each, to the end: only ignored.
    const cycle: Record<string, unknown> = { shade: "red" };
    cycle.self = cycle;
    const shared = { shade: "blue" };
    expectIgnored({ palette: cycle });
    expectIgnored({ palette: Array.from({ length: 5_000 }, () => shared) });
    expectIgnored({ palette: Array.from({ length: 9_000 }, () => "x") });
  });

  test("the search reads and never copies: pollution keys inside are searched, and reach no prototype", () => {
    expectClosed(JSON.parse('{"respFix":{"__proto__":{"denyTools":["bash"]}}}'), '[dsml] unknown option "respFix"; ignored, and no tool call is recovered until it is fixed (it holds "respFix.__proto__.denyTools", which is close to a security option)');
    expectClosed(JSON.parse('{"__proto__":{"denyTools":["bash"]}}'), '[dsml] unknown option "__proto__"; ignored, and no tool call is recovered until it is fixed (it holds "__proto__.denyTools", which is close to a security option)');
    expect(({} as Record<string, unknown>).denyTools).toBeUndefined();
    expect(Object.prototype).not.toHaveProperty("denyTools");
    expect(resolveOptions(JSON.parse('{"constructor":{"prototype":{"polluted":1}}}')).failedClosed).toBeUndefined();
  });

  test("a key far longer than any option's name is never measured letter by letter, and still closes by what it holds", () => {
    const long = "k".repeat(100_000);
    expectClosed({ [long]: { denyTools: ["bash"] } }, `[dsml] unknown option ${JSON.stringify(long)}; ignored, and no tool call is recovered until it is fixed (it holds ${JSON.stringify(`${long}.denyTools`).slice(0, 60)}..., which is close to a security option)`);
    expectIgnored({ [long]: { [long]: 1 } });
  });
});
