import { mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import { pluginOptionsSchema } from "../src/plugin/options.ts";

export const optionsSchemaPath = fileURLToPath(new URL("../schema/options.schema.json", import.meta.url));

/** "input" mode: users write the options, so fields with defaults are optional rather than required. */
export function renderOptionsSchema(): string {
  return `${JSON.stringify(z.toJSONSchema(pluginOptionsSchema, { io: "input" }), null, 2)}\n`;
}

if (import.meta.main) {
  mkdirSync(dirname(optionsSchemaPath), { recursive: true });
  writeFileSync(optionsSchemaPath, renderOptionsSchema());
  console.log(`wrote ${optionsSchemaPath}`);
}
