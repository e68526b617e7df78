// The zod schema of the plugin's options, built from the spec; scripts/build-schema.ts renders it
// as the JSON schema editors complete from. Build time and tests only: the plugin checks its options
// with src/options/check.ts (no zod at start-up), which test/options/check.test.ts pins to this schema.
import { z } from "zod";
import { MAX_LIST_ENTRIES, TOO_LONG } from "./check.ts";
import { expectation, type Fields, type NamespaceSpec, OPTIONS, type OptionSpec, type PluginOptions } from "./spec.ts";

/** A field's schema: its check, its default, and a description quoting that default, so docs and code cannot disagree. */
export function fieldSchema(spec: OptionSpec): z.ZodType {
  const error = expectation(spec);
  const check = (() => {
    switch (spec.kind) {
      case "flag":
        return z.boolean({ error });
      case "integer":
        return z.int({ error }).min(spec.min, { error }).max(spec.max, { error });
      case "choice":
        return z.enum(spec.values as [string, ...string[]], { error });
      case "names":
        // No whitespace at either end (check.ts isNameEntry; JavaScript's \s is the set trim() removes).
        return z.array(z.string({ error }).min(1, { error }).regex(/^\S(?:[\s\S]*\S)?$/, { error }), { error }).max(MAX_LIST_ENTRIES, { error: TOO_LONG });
    }
  })();
  const fallback = spec.kind === "names" ? [...spec.default] : spec.default;
  return (check as z.ZodType<unknown>).default(fallback).describe(`${spec.description} Default: ${JSON.stringify(fallback)}.`);
}

/** The spec as nested field schemas, namespaces as plain objects. */
type Layout = { [key: string]: z.ZodType | Layout };

function layoutOf(fields: Fields): Layout {
  return Object.fromEntries(Object.entries(fields).map(([key, spec]) => [key, spec.kind === "namespace" ? layoutOf(spec.fields) : fieldSchema(spec)]));
}

const optionLayout: Layout = layoutOf(OPTIONS.fields);

function namespaceSchema(spec: NamespaceSpec, layout: Layout): z.ZodObject {
  const shape = Object.fromEntries(
    Object.entries(layout).map(([key, field]) => {
      if (field instanceof z.ZodType) return [key, field];
      const nested = spec.fields[key] as NamespaceSpec;
      return [key, namespaceSchema(nested, field).prefault({}).describe(`${nested.description} Each field is optional and has its own default.`)];
    }),
  );
  return z.strictObject(shape);
}

export const pluginOptionsSchema = namespaceSchema(OPTIONS, optionLayout).meta({
  title: "opencode-plugin-dsml-fix options",
  description: OPTIONS.description,
}) as unknown as z.ZodType<PluginOptions, unknown>;
