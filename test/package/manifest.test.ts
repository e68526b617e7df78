/**
 * package.json as OpenCode, npm and Bun read it (the packed copy is checked in pack.test.ts).
 */
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { defaultOptions } from "../../src/options/check.ts";
import { resolveOptions } from "../../src/plugin/options.ts";

const manifest = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8"));

test('exports["./server"] is { import, config }: `opencode plugin` writes [spec, config], and config holds valid default options', () => {
  const server = manifest.exports["./server"];
  expect(Object.keys(server)).toEqual(["import", "config"]);
  expect(server.import).toBe("./server.js");
  const { options, problems } = resolveOptions(server.config);
  expect(problems).toEqual([]);
  for (const [key, value] of Object.entries(server.config)) expect(value).toEqual((defaultOptions as Record<string, unknown>)[key]);
  expect(options.providers).toEqual(server.config.providers);
});

test('the shipped config holds only strings, arrays and objects (Bun warns on every run about a boolean or number under "exports")', () => {
  const offending: string[] = [];
  const walk = (value: unknown, at: string) => {
    if (value === null || typeof value === "string") return;
    if (typeof value === "object") for (const [k, v] of Object.entries(value)) walk(v, `${at}.${k}`);
    else offending.push(`${at}: ${typeof value}`);
  };
  walk(manifest.exports, "exports");
  expect(offending).toEqual([]);
});

test("repository, homepage and bugs point at one GitHub repository", () => {
  const repo = manifest.repository;
  expect(repo.type).toBe("git");
  const match = /^git\+(https:\/\/github\.com\/[\w.-]+\/[\w.-]+)\.git$/.exec(repo.url);
  expect(match).not.toBeNull();
  const base = match![1];
  expect(manifest.homepage).toBe(`${base}#readme`);
  expect(manifest.bugs).toEqual({ url: `${base}/issues` });
});
