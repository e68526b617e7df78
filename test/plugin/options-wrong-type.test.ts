/**
 * Review 45 (hosts), findings 1 and 2, beyond the reviewer's cases: a value the plugin cannot read
 * as given fails closed when a security option is written anywhere inside it (a JSON string, a
 * Set, a class instance, the whole options as a string), with one line; a harmless one is only
 * ignored, as before.
 */
import { describe, expect, test } from "bun:test";
import { resolveOptions } from "../../src/plugin/options.ts";

const closed = (raw: unknown) => {
  const { options, problems, failedClosed } = resolveOptions(raw);
  return { failedClosed: failedClosed === true, closed: options.responseFix.allowTools.length === 0 || options.responseFix.denyTools.includes("*"), lines: problems.length };
};

class Settings {
  denyTools = ["bash"];
}

describe("a value that cannot be read as given", () => {
  test("holding a security option: fails closed, one line", () => {
    for (const raw of [
      { responseFix: '{"denyTools": ["bash"]}' },
      { responseFix: "denyTools: [bash]" },
      { responseFix: new Set([{ denyTools: ["bash"] }]) },
      { responseFix: new Settings() },
      { responseFix: new Map([["enabled", true]]) },
      { responseFix: [{ enabled: true }] },
      { parse: [{ responseFix: { echoGuard: false } }] },
      { retry: new Map([["x", { allowTools: [] }]]) },
      '{"responseFix": {"denyTools": ["bash"]}}',
      [{ providers: ["deepseek"] }],
      new Map([["responseFix", {}]]),
    ]) {
      expect({ raw, ...closed(raw) }).toEqual({ raw, failedClosed: true, closed: true, lines: 1 });
    }
  });

  test("the line says why", () => {
    expect(resolveOptions({ responseFix: [{ denyTools: ["bash"] }] }).problems).toEqual([
      '[dsml] option "responseFix" must be an object (got a list of 1 (object)); using its defaults, and no tool call is recovered until it is fixed (it holds "responseFix[0].denyTools", which is close to a security option)',
    ]);
    expect(resolveOptions({ responseFix: new Map([["denyTools", ["bash"]]]) }).problems).toEqual([
      '[dsml] option "responseFix" must be an object (got a Map of 1); using its defaults, and no tool call is recovered until it is fixed (it holds "responseFix.denyTools", which is close to a security option)',
    ]);
  });

  test("hard negatives: nothing security-related inside, or nothing at all: one line, recovered calls as configured", () => {
    for (const raw of [{ responseFix: "off" }, { responseFix: false }, { responseFix: [] }, { retry: "off" }, { parse: [false] }, { retry: new Map([["channel", "user"]]) }, "deepseek", ["deepseek"], null, 7]) {
      expect({ raw, ...closed(raw) }).toEqual({ raw, failedClosed: false, closed: false, lines: 1 });
    }
    // An object with nothing of its own is read as given (inherited keys are no options): no line.
    for (const responseFix of [Object.create({ denyTools: ["bash"] }), new Map(), new Set()]) {
      expect(closed({ responseFix })).toEqual({ failedClosed: false, closed: false, lines: 0 });
    }
    expect(closed({ responseFix: Object.freeze({ denyTools: ["bash"] }) })).toEqual({ failedClosed: false, closed: false, lines: 0 });
    expect(resolveOptions({ responseFix: Object.assign(Object.create(null), { denyTools: ["bash"] }) }).options.responseFix.denyTools).toEqual(["bash"]);
  });
});
