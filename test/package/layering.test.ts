import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";

// Layers import only downward: grammar -> parse -> stream -> (history, retry, tools) -> adapters -> plugin -> cli.
// The CLI sits on top so `dsml-fix doctor` judges options and scope with the plugin's own code.
// Folders of one rank never import each other; a new folder under src/ must be placed here first.
const RANK: Record<string, number> = {
  grammar: 0,
  parse: 1,
  stream: 2,
  history: 3,
  retry: 3,
  tools: 3,
  adapters: 4,
  plugin: 5,
  proxy: 5.5,
  cli: 6,
};

const SRC = path.resolve(import.meta.dir, "../../src");

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return /\.(ts|js|mjs)$/.test(entry.name) ? [full] : [];
  });
}

/** Every relative module a file names: `from "..."`, `import "..."`, `import("...")`. */
function relativeImports(source: string): string[] {
  const specifiers = [...source.matchAll(/(?:\bfrom|\bimport)\s*\(?\s*["']([^"']+)["']/g)].map((m) => m[1]!);
  return specifiers.filter((s) => s.startsWith("."));
}

const folderOf = (file: string) => path.relative(SRC, file).split(path.sep)[0]!;

describe("layering", () => {
  const files = sourceFiles(SRC);

  test("every file under src/ sits in a known layer", () => {
    const unknown = files.filter((f) => !(folderOf(f) in RANK)).map((f) => path.relative(SRC, f));
    expect(unknown).toEqual([]);
  });

  test("every import under src/ runs downward (or stays in its own folder)", () => {
    const upward: string[] = [];
    for (const file of files) {
      const from = folderOf(file);
      for (const spec of relativeImports(readFileSync(file, "utf8"))) {
        const target = path.resolve(path.dirname(file), spec);
        const to = folderOf(target);
        if (to === from) continue;
        if (!(to in RANK) || !(RANK[to]! < RANK[from]!)) upward.push(`${path.relative(SRC, file)} -> ${path.relative(SRC, target)}`);
      }
    }
    expect(upward).toEqual([]);
  });

  test("the scan sees imports written in every form", () => {
    const sample = `import type { A } from "../a.ts";\nimport {\n  b,\n} from "./b.ts";\nexport * from "../c.ts";\nimport "./d.ts";\nconst e = await import("../e.ts");\nimport x from "zod";`;
    expect(relativeImports(sample)).toEqual(["../a.ts", "./b.ts", "../c.ts", "./d.ts", "../e.ts"]);
  });
});
