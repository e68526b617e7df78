import { expect, test } from "bun:test";

test("package-lock.json has an entry for every opencode-ai platform package, or npm ci refuses it", async () => {
  const lock = (await Bun.file(new URL("../../package-lock.json", import.meta.url)).json()) as { packages: Record<string, { optionalDependencies?: Record<string, string>; optional?: boolean }> };
  const platforms = Object.keys(lock.packages["node_modules/opencode-ai"]?.optionalDependencies ?? {});
  expect(platforms.length).toBeGreaterThan(1);
  const missing = platforms.filter((name) => !lock.packages[`node_modules/${name}`]);
  // Fix with: node scripts/lock-platform-stubs.mjs
  expect(missing).toEqual([]);
});
