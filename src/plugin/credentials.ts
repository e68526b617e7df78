import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import path from "node:path";

/** Environment variables OpenCode's catalog reads for the default providers. */
const CATALOG_KEYS: Record<string, string[]> = {
  deepseek: ["DEEPSEEK_API_KEY"],
  opencode: ["OPENCODE_API_KEY"],
  "opencode-go": ["OPENCODE_API_KEY"],
};

/**
 * Whether a catalog provider that has no config entry is usable anyway: an API key in the
 * environment or a login stored by `opencode auth login`. Creating an entry for a provider without
 * credentials would make OpenCode list it, so the plugin only wires those that are really there.
 */
export function hasCatalogCredentials(id: string, env: NodeJS.ProcessEnv = process.env): boolean {
  if ((CATALOG_KEYS[id] ?? []).some((key) => Boolean(env[key]))) return true;
  const dataHome = env.XDG_DATA_HOME || path.join(env.HOME || homedir(), ".local", "share");
  try {
    const auth = JSON.parse(readFileSync(path.join(dataHome, "opencode", "auth.json"), "utf8")) as Record<string, unknown>;
    return Object.prototype.hasOwnProperty.call(auth, id);
  } catch {
    return false;
  }
}
