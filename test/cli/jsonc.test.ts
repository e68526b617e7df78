import { describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { JsoncError, parseJsonc } from "../../src/options/jsonc.ts";
import { main } from "../../src/cli/main.ts";
import { OPENCODE_DISABLE_FLAGS, opencodeBin, seedConfigDir } from "../e2e/harness.ts";

/** Files OpenCode 1.18.33 refuses to start with; doctor must refuse them too (exit 2), never guess. */
const REJECTED = {
  "an unclosed block comment": '{ "plugin": [] /* never closed',
  "a stray token after the object": '{ "plugin": [] } x',
  "a missing comma": '{ "model": "a/b" "plugin": [] }',
  "an empty file": "",
};

describe("config files are read with jsonc-parser, as OpenCode reads them", () => {
  test("comments, trailing commas and a byte-order mark are accepted", () => {
    expect(parseJsonc('\uFEFF// top\n{ "a": [1, 2,], /* b */ "b": { "c": "// not a comment", }, }')).toEqual({ a: [1, 2], b: { c: "// not a comment" } });
  });

  test("every syntax error is an error, with its line and column", () => {
    for (const text of Object.values(REJECTED)) expect(() => parseJsonc(text)).toThrow(JsoncError);
    try {
      parseJsonc('{\n  "plugin": []\n  /* never closed');
      throw new Error("accepted");
    } catch (error) {
      expect(error).toBeInstanceOf(JsoncError);
      expect((error as JsoncError).message).toBe("unclosed /* comment at line 3, column 3");
    }
  });

  test("a lone CR and CR LF end a line in the error's position, as LF does", () => {
    for (const end of ["\r", "\r\n"]) {
      expect(() => parseJsonc(`{${end}  "plugin": []${end}  /* never closed`)).toThrow("unclosed /* comment at line 3, column 3");
    }
  });

  test("doctor: an unclosed /* comment exits 2 with the file, the place and the cause", async () => {
    const root = mkdtempSync(path.join(tmpdir(), "dsml-jsonc-"));
    const project = path.join(root, "project");
    mkdirSync(project, { recursive: true });
    const file = path.join(project, "opencode.json");
    writeFileSync(file, '{\n  "plugin": ["opencode-plugin-dsml-fix"]\n  /* never closed\n');
    let out = "";
    let err = "";
    const env = { PATH: process.env.PATH ?? "", HOME: path.join(root, "home"), XDG_CONFIG_HOME: path.join(root, "config"), XDG_CACHE_HOME: path.join(root, "cache") };
    const code = await main(["doctor"], { readStdin: async () => new Uint8Array(), out: (t) => (out += t), err: (t) => (err += t), env, cwd: project });
    expect([code, out]).toEqual([2, ""]);
    expect(err).toBe(`dsml-fix: ${file} is not valid JSON(C): unclosed /* comment at line 3, column 3\n`);
  });

  test("the real OpenCode rejects the same files (so doctor's exit 2 is what the user will meet)", () => {
    const root = mkdtempSync(path.join(tmpdir(), "dsml-jsonc-real-"));
    const configDir = path.join(root, "config", "opencode");
    mkdirSync(configDir, { recursive: true });
    seedConfigDir(configDir);
    const project = path.join(root, "project");
    mkdirSync(path.join(project, ".opencode"), { recursive: true });
    seedConfigDir(path.join(project, ".opencode"));
    const env: Record<string, string> = { PATH: process.env.PATH ?? "", HOME: path.join(root, "home"), XDG_CONFIG_HOME: path.join(root, "config"), XDG_CACHE_HOME: path.join(root, "cache"), XDG_DATA_HOME: path.join(root, "data"), PWD: project };
    for (const flag of OPENCODE_DISABLE_FLAGS) env[flag] = "1";
    const config = (text: string) => {
      writeFileSync(path.join(project, "opencode.json"), text);
      return spawnSync(opencodeBin, ["debug", "config"], { cwd: project, env, encoding: "utf8", timeout: 90_000 }).status;
    };
    expect(config('// ok\n{ "plugin": [], }')).toBe(0);
    expect(config(REJECTED["an unclosed block comment"])).not.toBe(0);
  }, 180_000);
});
