import { mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import { pluginOptionsSchema } from "../src/options/schema.ts";

export const optionsSchemaPath = fileURLToPath(new URL("../schema/options.schema.json", import.meta.url));

/** "input" mode: users write the options, so fields with defaults are optional rather than required. */
export function renderOptionsSchema(): string {
  return `${JSON.stringify(z.toJSONSchema(pluginOptionsSchema, { io: "input", target: "draft-7" }), null, 2)}\n`;
}

export const configSchemaPath = fileURLToPath(new URL("../schema/opencode.schema.json", import.meta.url));

/**
 * A root schema for a whole opencode.json(c): OpenCode's own schema, plus our options wherever a
 * plugin tuple names this package. Editors read `$schema` only at a document's root, so this is
 * what makes them complete the options inside the tuple. Draft-07, like the options schema it
 * references (one draft throughout, so one validator compiles both), with tuples written out by
 * length so ajv's strict mode accepts them.
 */
export function renderConfigSchema(): string {
  const ours = { type: "string", pattern: "(^|/)opencode-plugin-dsml-fix(@[^/]*)?$" };
  const tuple = (items: object[]) => ({ type: "array", items, minItems: items.length, maxItems: items.length });
  const schema = {
    $schema: "http://json-schema.org/draft-07/schema#",
    title: "opencode.json with opencode-plugin-dsml-fix options",
    description: "OpenCode's configuration schema, with completion for the options of opencode-plugin-dsml-fix.",
    type: "object",
    allOf: [{ $ref: "https://opencode.ai/config.json" }],
    properties: {
      plugin: {
        type: "array",
        items: {
          anyOf: [
            { type: "string" },
            tuple([{ type: "string" }]),
            tuple([ours, { $ref: "./options.schema.json" }]),
            tuple([{ type: "string", not: ours }, { type: "object" }]),
          ],
        },
      },
    },
  };
  return `${JSON.stringify(schema, null, 2)}\n`;
}

if (import.meta.main) {
  mkdirSync(dirname(optionsSchemaPath), { recursive: true });
  writeFileSync(optionsSchemaPath, renderOptionsSchema());
  writeFileSync(configSchemaPath, renderConfigSchema());
  console.log(`wrote ${optionsSchemaPath} and ${configSchemaPath}`);
}
