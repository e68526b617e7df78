// The npm registry reachable here has only the linux-x64 builds of opencode-ai's platform
// packages, so `npm install` leaves the others out of package-lock.json and `npm ci` then refuses
// the lockfile as out of sync. This adds a lock entry (version, os, cpu, libc; optional) for each
// missing one: npm ci skips them on platforms they do not match and never fetches them.
// Run after any `npm install` that rewrites the lockfile: node scripts/lock-platform-stubs.mjs
import { readFileSync, writeFileSync } from "node:fs";

const lockPath = new URL("../package-lock.json", import.meta.url);
const lock = JSON.parse(readFileSync(lockPath, "utf8"));
const packages = lock.packages;
const parent = packages["node_modules/opencode-ai"];
if (!parent) throw new Error("opencode-ai is not in package-lock.json");

function platformOf(name) {
  const [, os, cpu, ...rest] = name.split("-");
  const osName = { darwin: "darwin", linux: "linux", windows: "win32" }[os];
  if (!osName || !cpu) throw new Error(`cannot tell the platform of ${name}`);
  const entry = { os: [osName], cpu: [cpu] };
  if (rest.includes("musl")) entry.libc = ["musl"];
  else if (osName === "linux") entry.libc = ["glibc"];
  return entry;
}

let added = 0;
for (const [name, version] of Object.entries(parent.optionalDependencies ?? {})) {
  const key = `node_modules/${name}`;
  if (packages[key]) continue;
  packages[key] = { version, ...platformOf(name), dev: true, license: "MIT", optional: true };
  added++;
}
lock.packages = Object.fromEntries(Object.entries(packages).sort(([a], [b]) => (a === "" ? -1 : b === "" ? 1 : a.localeCompare(b))));
writeFileSync(lockPath, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`added ${added} platform stub(s) to package-lock.json`);
