// Options the user wrote for the plugin that OpenCode 1.18.33 drops before the plugin is called, so
// the plugin itself can never tell (it gets what OpenCode hands it): a key written twice in the
// entry's options (OpenCode keeps the last copy), and an entry a later entry of the same plugin
// replaced (OpenCode keeps only the last, so a global entry's denyTools is gone wherever a project
// lists the plugin again). Both checked with `opencode debug config` (1.18.33). Doctor alone can say so.
import { isObject } from "../grammar/plain-data.ts";
import { optionEntries, SECURITY_OPTIONS } from "../options/spec.ts";
import { resolveOptions } from "../plugin/options.ts";
import type { PluginEntry } from "./opencode-config.ts";
import { ourEntries } from "./plugin-check.ts";

/**
 * One problem per key written twice in the options of one of our entries: its path and place as
 * keys-twice.ts gives them (never a key substitution wrote, nor a place counted in its result).
 */
export function keysTwiceProblems(entry: Pick<PluginEntry, "source" | "shown" | "keysTwice">): string[] {
  return entry.keysTwice.map(
    ({ shown, at }) =>
      `${entry.source}: the plugin entry ${entry.shown} gives ${shown} twice in its options${at ? ` (again at line ${at.line}, column ${at.column})` : ""}: OpenCode keeps only the last copy, so what the earlier one holds (a denyTools or allowTools too) never reaches the plugin; give it once`,
  );
}

/**
 * One problem per entry of ours with options that a later entry replaced, when the options that
 * apply differ from the ones it wrote: each option that changed is named, the security options
 * first. The same options written again lose nothing and are no problem; nor is an entry without
 * options. Values are never printed (an option pasted in may hold anything).
 */
export function replacedProblems(replaced: readonly { entry: PluginEntry; by: PluginEntry }[]): string[] {
  const ours = new Set(ourEntries(replaced.map(({ entry }) => entry)));
  return replaced.flatMap(({ entry, by }) => {
    if (!ours.has(entry) || !isObject(entry.options) || Object.keys(entry.options).length === 0) return [];
    const written = resolveOptions(entry.options).options;
    const used = resolveOptions(by.options).options;
    const changed = optionEntries()
      .map(([path]) => path)
      .filter((path) => JSON.stringify(valueAt(written, path)) !== JSON.stringify(valueAt(used, path)));
    if (changed.length === 0) return [];
    const security = changed.filter((path) => SECURITY_OPTIONS.includes(path));
    const others = changed.filter((path) => !SECURITY_OPTIONS.includes(path));
    const lost = [...(security.length > 0 ? [`the security option${security.length === 1 ? "" : "s"} ${security.join(", ")}`] : []), ...(others.length > 0 ? [others.join(", ")] : [])].join(", and ");
    const where = by.source === entry.source ? `a later entry in the same file (${by.shown})` : `the entry ${by.shown} in ${by.source}`;
    return [
      `${entry.source}: the options of the plugin entry ${entry.shown} are not used: ${where} replaces it${isObject(by.options) ? "" : ", with no options"} (OpenCode keeps only the last entry of a plugin), so ${lost} ${changed.length === 1 ? "takes" : "take"} that entry's value; copy the options into that entry`,
    ];
  });
}

function valueAt(options: unknown, path: string): unknown {
  let value = options;
  for (const key of path.split(".")) value = isObject(value) ? value[key] : undefined;
  return value;
}
