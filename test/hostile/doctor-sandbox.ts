// The sandbox the doctor reviews run `dsml-fix doctor` in: HOME and the XDG dirs are temporary
// folders, the project has its own .git and the plugin installed in its node_modules, and the
// environment holds SECRET_VAR (a key `{env:SECRET_VAR}` writes), so a test can check doctor never
// prints it. One helper for review 56's and review 57's doctor files (never a global config).
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { seedConfigDir } from "../e2e/harness.ts";

export const PLUGIN_NAME = "opencode-plugin-dsml-fix";

export function doctorSandbox(prefix: string, secret: string) {
  const root = mkdtempSync(path.join(tmpdir(), prefix));
  const project = path.join(root, "project");
  for (const d of ["home", "config/opencode", "cache/opencode", "data", "state", "project/.git"]) mkdirSync(path.join(root, d), { recursive: true });
  seedConfigDir(path.join(root, "config/opencode"));
  const folder = path.join(project, "node_modules", PLUGIN_NAME);
  mkdirSync(folder, { recursive: true });
  writeFileSync(path.join(folder, "package.json"), JSON.stringify({ name: PLUGIN_NAME, version: "0.1.0", exports: { "./server": { import: "./server.js" } } }));
  writeFileSync(path.join(folder, "server.js"), "export default {};\n");
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH ?? "", HOME: path.join(root, "home"), XDG_CONFIG_HOME: path.join(root, "config"), XDG_CACHE_HOME: path.join(root, "cache"), XDG_DATA_HOME: path.join(root, "data"), XDG_STATE_HOME: path.join(root, "state"), SECRET_VAR: secret };
  const write = (rel: string, text: string | Uint8Array) => writeFileSync(path.join(root, rel), text);
  return { root, project, env, write };
}
