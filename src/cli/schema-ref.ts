// A config's `$schema` is resolved from the file that holds it, so the same relative path is right
// in the project's opencode.json and wrong in .opencode/opencode.json (the file `opencode plugin`
// writes). doctor checks each one and prints the path that works from where it is written.
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const PACKAGE_NAME = "opencode-plugin-dsml-fix";
const SCHEMA_FILE = "schema/opencode.schema.json";
/** For a config with no install of the package beside it, once the package is published. */
const HOSTED_SCHEMA = `https://unpkg.com/${PACKAGE_NAME}/${SCHEMA_FILE}`;

/** The `$schema` value that reaches the package's schema from `configFile`: relative to the file, "./" or "../" first. */
export function schemaReference(configFile: string, packageFolder: string): string {
  const relative = path.relative(path.dirname(configFile), path.join(packageFolder, SCHEMA_FILE)).split(path.sep).join("/");
  return relative.startsWith("../") ? relative : `./${relative}`;
}

/** OpenCode's own schema: what a config goes back to once the plugin is uninstalled. */
const OPENCODE_SCHEMA = "https://opencode.ai/config.json";

/**
 * A problem when `value` names this package's schema by a path that does not exist from
 * `configFile`. `substituted`: the value as doctor prints it when an {env:} or {file:}
 * substitution changed it (as-written.ts); then neither it nor the path it names is printed.
 */
export function schemaProblem(configFile: string, value: unknown, packageFolder: string | null, listed = true, substituted?: string): string | undefined {
  if (typeof value !== "string" || !value.includes(PACKAGE_NAME)) return undefined;
  let target: string;
  if (value.startsWith("file:")) {
    try {
      target = fileURLToPath(value);
    } catch {
      return undefined;
    }
  } else if (/^[a-z][a-z0-9+.-]*:\/\//i.test(value)) {
    return undefined;
  } else {
    target = path.resolve(path.dirname(configFile), value);
  }
  if (existsSync(target)) return undefined;
  // Not listed any more (uninstalled): the schema goes back to OpenCode's own.
  const fix = !listed ? OPENCODE_SCHEMA : packageFolder !== null && existsSync(path.join(packageFolder, SCHEMA_FILE)) ? schemaReference(configFile, packageFolder) : HOSTED_SCHEMA;
  const named = substituted === undefined ? `${JSON.stringify(value)} names a missing file (it is resolved from the file's own folder: ${target})` : `${substituted} names a missing file (it is resolved from the file's own folder)`;
  return `${configFile}: "$schema" ${named}; write ${JSON.stringify(fix)}`;
}
