import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";

// Layers import only downward: grammar -> parse -> engine -> options -> tools -> (echo, history, retry) -> sse
// -> wires -> adapters -> plugin -> proxy -> cli. Options sit right above the engine they map to (their
// spec reads the parse and engine defaults), so every layer that takes options can read the spec.
// tools is data (OpenCode's built-in tool specs, typed by parse): history reads replayed text with
// them when the host gives no tools of its own, so it sits below history.
// The CLI sits on top so `dsml-fix doctor` judges options and scope with the plugin's own code.
// Folders of one rank never import each other; a new folder under src/ must be placed here first.
const RANK: Record<string, number> = {
  grammar: 0,
  parse: 1,
  engine: 2,
  options: 2.5,
  echo: 3,
  history: 3,
  retry: 3,
  tools: 2.75,
  sse: 4,
  wires: 5,
  adapters: 6,
  plugin: 7,
  proxy: 7.5,
  cli: 8,
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

/** The file graph: each file to the files it imports by a relative path (type-only imports count too). */
function importGraph(files: string[], read: (file: string) => string): Map<string, string[]> {
  return new Map(files.map((file) => [file, relativeImports(read(file)).map((spec) => path.resolve(path.dirname(file), spec))]));
}

/**
 * Every import circle between files, one entry per strongly connected component (Tarjan), each
 * listed as the files caught in it. A file importing itself is a circle of one.
 */
function importCycles(graph: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const cycles: string[][] = [];
  let next = 0;
  const visit = (file: string): void => {
    index.set(file, next);
    low.set(file, next);
    next++;
    stack.push(file);
    onStack.add(file);
    for (const to of graph.get(file) ?? []) {
      if (!graph.has(to)) continue;
      if (!index.has(to)) {
        visit(to);
        low.set(file, Math.min(low.get(file)!, low.get(to)!));
      } else if (onStack.has(to)) low.set(file, Math.min(low.get(file)!, index.get(to)!));
    }
    if (low.get(file) !== index.get(file)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    if (component.length > 1 || (graph.get(file) ?? []).includes(file)) cycles.push(component.reverse());
  };
  for (const file of [...graph.keys()].sort()) if (!index.has(file)) visit(file);
  return cycles;
}

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

  test("no file under src/ imports itself, directly or through others", () => {
    const graph = importGraph(files, (file) => readFileSync(file, "utf8"));
    const cycles = importCycles(graph).map((c) => c.map((f) => path.relative(SRC, f)).join(" <-> "));
    expect(cycles).toEqual([]);
  });

  test("the circle finder sees a circle of any length and nothing else", () => {
    const graph = new Map<string, string[]>([
      ["a", ["b"]],
      ["b", ["c"]],
      ["c", ["a", "d"]],
      ["d", ["e"]],
      ["e", []],
      ["f", ["f"]],
      ["g", ["e", "zod"]],
    ]);
    expect(importCycles(graph).map((c) => [...c].sort())).toEqual([["a", "b", "c"], ["f"]]);
    expect(importCycles(new Map([["x", ["y"]], ["y", []]]))).toEqual([]);
  });

  test("the scan sees imports written in every form", () => {
    const sample = `import type { A } from "../a.ts";\nimport {\n  b,\n} from "./b.ts";\nexport * from "../c.ts";\nimport "./d.ts";\nconst e = await import("../e.ts");\nimport x from "zod";`;
    expect(relativeImports(sample)).toEqual(["../a.ts", "./b.ts", "../c.ts", "./d.ts", "../e.ts"]);
  });
});
