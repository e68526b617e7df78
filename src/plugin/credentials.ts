import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import path from "node:path";

/**
 * Whether a provider without a config entry looks usable: a login stored by `opencode auth login`,
 * or an API key in the environment by the catalog's usual naming (`FIREWORKS_API_KEY` for
 * `fireworks-ai`). Only the start-up line uses this, to warn when nothing named is there; a key
 * under another name makes it warn needlessly, never act differently.
 */
export function hasCredentials(id: string, env: NodeJS.ProcessEnv = process.env): boolean {
  if (catalogId(id) && envKeys(id).some((key) => Boolean(env[key]))) return true;
  const dataHome = env.XDG_DATA_HOME || path.join(env.HOME || homedir(), ".local", "share");
  try {
    const auth = JSON.parse(readFileSync(path.join(dataHome, "opencode", "auth.json"), "utf8")) as Record<string, unknown>;
    return Object.prototype.hasOwnProperty.call(auth, id);
  } catch {
    return false;
  }
}

/**
 * Whether an id can be one an environment key makes available: the catalog's ids are lower case
 * (`deepseek`, `fireworks-ai`) and the host matches a route's id exactly, so `DeepSeek` (or a model
 * reference, `deepseek/deepseek-chat`) is no provider DEEPSEEK_API_KEY sets up, though its upper-cased
 * key is the same (review 57: the start-up line called such an entry wired while it covered no route).
 */
function catalogId(id: string): boolean {
  return id === id.toLowerCase() && !id.includes("/");
}

/** `<ID>_API_KEY` and `<FIRST WORD>_API_KEY` (`fireworks-ai` → FIREWORKS_AI_API_KEY, FIREWORKS_API_KEY; `opencode-go` → OPENCODE_API_KEY). */
function envKeys(id: string): string[] {
  const upper = id.toUpperCase().replace(/[^A-Z0-9]+/g, "_");
  const first = upper.split("_")[0];
  return [`${upper}_API_KEY`, ...(first && first !== upper ? [`${first}_API_KEY`] : [])];
}
