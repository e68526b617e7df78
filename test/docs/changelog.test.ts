/**
 * CHANGELOG.md in Keep a Changelog form, written for users: an [Unreleased] section, then released
 * versions newest first, each with only the standard change types, no internal labels (issue
 * numbers, item numbers), and the version package.json carries.
 */
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";

const changelog = readFileSync(new URL("../../CHANGELOG.md", import.meta.url), "utf8");
const manifest = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string };
const TYPES = ["Added", "Changed", "Deprecated", "Removed", "Fixed", "Security"];

test("Keep a Changelog: [Unreleased] first, then versions, each with only the standard change types", () => {
  const versions = [...changelog.matchAll(/^## \[([^\]]+)\](.*)$/gm)].map((m) => m[1]!);
  expect(versions[0]).toBe("Unreleased");
  expect(versions).toContain(manifest.version);
  for (const v of versions.slice(1)) expect(v).toMatch(/^\d+\.\d+\.\d+$/);
  const types = [...changelog.matchAll(/^### (.+)$/gm)].map((m) => m[1]!);
  expect(types.length).toBeGreaterThan(0);
  expect(types.filter((type) => !TYPES.includes(type))).toEqual([]);
  // No type twice within one version.
  for (const section of changelog.split(/^## /m).slice(1)) {
    const own = [...section.matchAll(/^### (.+)$/gm)].map((m) => m[1]!);
    expect(new Set(own).size).toBe(own.length);
  }
  // Every version heading has its link reference.
  for (const v of versions) expect(changelog).toContain(`\n[${v}]: https://`);
});

test("entries speak to users: no issue or item labels", () => {
  expect(changelog.match(/\b(issue|item)s? \d+/gi) ?? []).toEqual([]);
});
