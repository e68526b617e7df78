import { describe, expect, test } from "bun:test";
import { readFileSync, readdirSync } from "node:fs";
import path from "node:path";

// One folder per wire (issue 28): a wire reads its protocol types from sse/ and wires/wire.ts,
// never from another wire, and the fetch adapter picks every wire, chat included, from the registry.
const WIRES = path.resolve(import.meta.dir, "../../src/wires");
const FETCH = path.resolve(import.meta.dir, "../../src/adapters/fetch.ts");

function relativeImports(source: string): string[] {
  return [...source.matchAll(/(?:\bfrom|\bimport)\s*\(?\s*["']([^"']+)["']/g)].map((m) => m[1]!).filter((s) => s.startsWith("."));
}

/** `file -> target` for every import from one wire's folder into another's. */
function crossWireImports(): string[] {
  const out: string[] = [];
  for (const wire of readdirSync(WIRES, { withFileTypes: true }).filter((e) => e.isDirectory())) {
    const dir = path.join(WIRES, wire.name);
    for (const file of readdirSync(dir).filter((f) => f.endsWith(".ts"))) {
      for (const spec of relativeImports(readFileSync(path.join(dir, file), "utf8"))) {
        const target = path.relative(WIRES, path.resolve(dir, spec)).split(path.sep);
        if (target.length > 1 && target[0] !== ".." && target[0] !== wire.name) out.push(`${wire.name}/${file} -> ${target.join("/")}`);
      }
    }
  }
  return out;
}

describe("wires", () => {
  test("chat-completions, Anthropic Messages and Responses each have their own folder", () => {
    const folders = readdirSync(WIRES, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name).sort();
    expect(folders).toEqual(["anthropic", "chat", "responses"]);
  });

  test("no wire imports another", () => {
    expect(crossWireImports()).toEqual([]);
  });

  test("the fetch adapter has no chat-completions branch", () => {
    const source = readFileSync(FETCH, "utf8");
    expect(source).not.toContain("/chat/completions");
    expect(relativeImports(source).filter((s) => /wires\/(chat|anthropic|responses)\//.test(s))).toEqual([]);
  });
});
