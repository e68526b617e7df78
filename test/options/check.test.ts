/**
 * The plugin checks its options with src/options/check.ts (no zod at start-up); the JSON schema is
 * rendered from the zod schema (src/options/schema.ts). Both are read from the one spec: these
 * properties pin them to each other, for every option and every kind of value, so they cannot drift.
 * Seeds are fixed so a failure reproduces.
 */
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { checkOption, defaultOf, defaultOptions, withDefaults } from "../../src/options/check.ts";
import { fieldSchema, pluginOptionsSchema } from "../../src/options/schema.ts";
import { type Fields, OPTIONS, type OptionSpec, optionEntries } from "../../src/options/spec.ts";

const SEED = 20261203;
const params = (numRuns: number) => ({ seed: SEED, numRuns, endOnFailure: false });

/** Integers at and around an option's bounds, and past the safe range. */
function nearBounds(spec: OptionSpec): fc.Arbitrary<number> {
  const bounds = spec.kind === "integer" ? [spec.min, spec.max] : [0, 1];
  return fc.oneof(
    ...bounds.map((bound) => fc.integer({ min: bound - 3, max: bound + 3 })),
    fc.constantFrom(Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER + 2, -Number.MAX_SAFE_INTEGER - 2, 0, -0),
  );
}

/** Values of every kind a hand-written config (or a buggy caller) may hold. */
function anyValue(spec: OptionSpec): fc.Arbitrary<unknown> {
  const names = fc.constantFrom("*", "auto", "bash", "deepseek", "", " ");
  const choices = spec.kind === "choice" ? spec.values : ["system", "user"];
  const scalar = fc.oneof(
    fc.boolean(),
    nearBounds(spec),
    nearBounds(spec).map((n) => n + 0.5),
    fc.double(),
    fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY),
    fc.string(),
    nearBounds(spec).map(String),
    fc.constantFrom(...choices),
    fc.constantFrom(...choices).map((choice) => choice.toUpperCase()),
    fc.constantFrom("true", "false", "1", "0"),
    fc.bigInt(),
    fc.constant(null),
    fc.constant(undefined),
  );
  return fc.oneof(
    { weight: 6, arbitrary: scalar },
    { weight: 2, arbitrary: nearBounds(spec) },
    fc.array(names),
    fc.array(fc.oneof(names, fc.string())),
    fc.array(fc.oneof(names, scalar)),
    fc.constantFrom(...choices).map((choice) => [choice]),
    fc.sparseArray(names, { maxLength: 4 }),
    fc.object(),
    fc.date(),
  );
}

/** A partial options tree: each key present or not, a namespace sometimes not an object, now and then a key no spec knows. */
function anyTree(fields: Fields): fc.Arbitrary<unknown> {
  const record = fc.record(
    Object.fromEntries(
      Object.entries(fields).map(([key, spec]) => [
        key,
        spec.kind === "namespace" ? fc.oneof({ weight: 4, arbitrary: anyTree(spec.fields) }, { weight: 1, arbitrary: anyValue(optionEntries()[0]![1]) }) : fc.oneof({ weight: 3, arbitrary: validValue(spec) }, { weight: 1, arbitrary: anyValue(spec) }),
      ]),
    ),
    { requiredKeys: [] },
  );
  return fc.oneof(
    { weight: 6, arbitrary: record },
    { weight: 1, arbitrary: fc.tuple(record, fc.constantFrom("extra", "constructor", "__proto__", "denyTool")).map(([tree, key]) => Object.defineProperty({ ...(tree as object) }, key, { value: true, enumerable: true })) },
  );
}

/** Values an option accepts, so trees often get through whole and the filled-in result is compared. */
function validValue(spec: OptionSpec): fc.Arbitrary<unknown> {
  switch (spec.kind) {
    case "flag":
      return fc.boolean();
    case "integer":
      return fc.integer({ min: spec.min, max: spec.max });
    case "choice":
      return fc.constantFrom(...spec.values);
    case "names":
      return fc.array(fc.constantFrom("*", "auto", "bash", "my-vllm"));
  }
}

/** Every integer within three of each bound, a half past each, and the values a number check most often gets wrong. */
function edges(spec: OptionSpec): unknown[] {
  const bounds = spec.kind === "integer" ? [spec.min, spec.max] : [0, 1];
  const near = bounds.flatMap((bound) => Array.from({ length: 7 }, (_, step) => bound - 3 + step));
  const choices = spec.kind === "choice" ? spec.values : [];
  const wrapped = choices.map((choice) => [choice]);
  return [...near, ...near.map((n) => n + 0.5), ...near.map(String), ...choices, ...wrapped, Number.NaN, Infinity, -Infinity, -0, undefined, null, true, false, "true", "", [], [""], ["*"], [true], {}];
}

/** One value through both: accepted by both with the same result, or rejected by both with the same message. */
function agree(spec: OptionSpec, value: unknown): void {
  const ours = checkOption(spec, value);
  const zod = fieldSchema(spec).safeParse(value);
  expect({ value, ok: ours.ok }).toEqual({ value, ok: zod.success });
  if (ours.ok && zod.success) {
    expect(ours.value).toEqual(zod.data);
    expect(Object.is(ours.value, zod.data) || Array.isArray(ours.value)).toBe(true);
  }
  if (!ours.ok && !zod.success) expect(ours.message).toBe(zod.error.issues[0]!.message);
}

describe("the spec's checker and the zod schema agree", () => {
  for (const [path, spec] of optionEntries()) {
    test(`${path}: the same values accepted, with the same result, and the same message for the rest`, () => {
      for (const value of edges(spec)) agree(spec, value);
      fc.assert(
        fc.property(anyValue(spec), (value) => agree(spec, value)),
        params(600),
      );
    });
  }

  test("a whole tree: filled in the same way, or rejected by both", () => {
    fc.assert(
      fc.property(anyTree(OPTIONS.fields), (tree) => {
        const zod = pluginOptionsSchema.safeParse(tree);
        let ours: { ok: true; value: unknown } | { ok: false };
        try {
          ours = { ok: true, value: withDefaults(tree) };
        } catch {
          ours = { ok: false };
        }
        expect(ours.ok).toBe(zod.success);
        if (ours.ok && zod.success) expect(ours.value).toEqual(zod.data);
      }),
      params(600),
    );
  });

  test("the defaults are the schema's, frozen, and every caller gets its own copy of a list", () => {
    expect(defaultOptions).toEqual(pluginOptionsSchema.parse({}));
    expect(withDefaults({})).toEqual(pluginOptionsSchema.parse({}));
    expect(Object.isFrozen(defaultOptions.responseFix.allowTools)).toBe(true);
    const first = withDefaults({});
    first.providers.push("mutated");
    expect(withDefaults({}).providers).toEqual(["auto"]);
    for (const [, spec] of optionEntries()) {
      if (spec.kind !== "names") continue;
      const copy = defaultOf(spec);
      expect(copy).toEqual(spec.default);
      expect(copy).not.toBe(spec.default);
    }
  });

  test("a list is read through every entry's getter, like the schema: a throw after a bad entry still throws", () => {
    const spec = OPTIONS.fields.responseFix.fields.allowTools;
    const hostile = ["", "bash"];
    Object.defineProperty(hostile, 1, {
      get() {
        throw new Error("boom");
      },
    });
    expect(() => fieldSchema(spec).safeParse(hostile)).toThrow("boom");
    expect(() => checkOption(spec, hostile)).toThrow("boom");
  });
});
