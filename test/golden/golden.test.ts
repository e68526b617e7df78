import { describe, expect, test } from "bun:test";
import { createEchoGuard } from "../../src/echo/guard.ts";
import { parse } from "../../src/engine/parse.ts";
import { accountsForEveryCharacter, everyChar, observable, randomCuts, runEngine } from "../support/run-engine.ts";
import { fixtures, type Fixture } from "./build-fixtures.ts";
import { asciiJson, escaped } from "./notation.ts";
import { fixtureTools } from "./tools.ts";

const stored = (await Bun.file(new URL("./fixtures.json", import.meta.url)).json()) as Fixture[];
const toolsFor = (f: Fixture) => (f.tools ? fixtureTools.filter((t) => f.tools!.includes(t.name)) : fixtureTools);

test("fixtures.json is what build-fixtures.ts generates", () => {
  expect(asciiJson(stored)).toBe(asciiJson(fixtures));
});

// A fixture with given content or reserved names speaks of a request, which parse() has no words
// for: its whole-text leg is the engine fed the whole reply at once (what parse() does inside).
const requestOf = (f: Fixture) => ({
  ...(f.bufferLimit !== undefined ? { bufferLimit: f.bufferLimit } : {}),
  ...(f.reservedNames ? { reservedNames: f.reservedNames } : {}),
  ...(f.given ? { isEchoed: createEchoGuard(() => f.given!) } : {}),
});
const wholeReading = (f: Fixture, tools: ReturnType<typeof toolsFor>) => {
  if (!f.given && !f.reservedNames) return parse(f.input, tools, { ...f.options, nativeToolCalls: f.nativeToolCalls, ...(f.bufferLimit !== undefined ? { bufferLimit: f.bufferLimit } : {}) });
  const run = runEngine(f.input, [], tools, { parse: f.options, native: f.nativeToolCalls, ...requestOf(f) });
  return { calls: run.calls, text: run.text, nudge: run.summary.nudge, broken: run.summary.broken };
};

describe.each(stored.map((f) => [`${f.id} ${f.name}`, f] as const))("%s", (_label, fixture) => {
  const tools = toolsFor(fixture);
  const request = requestOf(fixture);

  test("whole text: calls, visible text, nudge, broken shapes", () => {
    const result = wholeReading(fixture, tools);
    expect(result.calls.map(({ tool, input, shape }) => ({ tool, input, shape }))).toEqual(fixture.expect.calls);
    expect(escaped(result.text)).toBe(escaped(fixture.expect.text));
    expect(result.nudge).toBe(fixture.expect.nudge as typeof result.nudge);
    expect(result.broken.map((b) => b.shape)).toEqual(fixture.expect.broken);
  });

  test("every character is visible, in a call, or stripped", () => {
    const run = runEngine(fixture.input, [], tools, { parse: fixture.options, native: fixture.nativeToolCalls, ...request });
    expect(accountsForEveryCharacter(fixture.input, run)).toBe(true);
  });

  test("char by char, every two-chunk split and seeded random splits equal the whole", () => {
    const run = (cuts: number[]) => observable(runEngine(fixture.input, cuts, tools, { parse: fixture.options, native: fixture.nativeToolCalls, ...request }));
    const whole = run([]);
    expect(run(everyChar(fixture.input.length))).toEqual(whole);
    for (let k = 1; k < fixture.input.length; k++) {
      const split = run([k]);
      if (JSON.stringify(split) !== JSON.stringify(whole)) expect({ split: k, ...split }).toEqual({ split: k, ...whole });
    }
    for (let seed = 1; seed <= 20; seed++) expect(run(randomCuts(fixture.input.length, seed))).toEqual(whole);
  });
});
