import { expect, test } from "bun:test";
import path from "node:path";
import ts from "typescript";

const ROOT = path.resolve(import.meta.dir, "../..");

/** tsc's diagnostics for each source, compiled as files in test/adapters with the project's own settings (one program: it is slow to build). */
function typeErrors(sources: Record<string, string>): Record<string, string[]> {
  const config = ts.getParsedCommandLineOfConfigFile(path.join(ROOT, "tsconfig.json"), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined });
  if (!config) throw new Error("tsconfig.json could not be read");
  const files = new Map(Object.entries(sources).map(([name, text]) => [path.join(ROOT, `test/adapters/__probe-${name}.ts`), text]));
  const host = ts.createCompilerHost(config.options);
  const readFile = host.readFile.bind(host);
  const fileExists = host.fileExists.bind(host);
  host.readFile = (name) => files.get(path.resolve(name)) ?? readFile(name);
  host.fileExists = (name) => files.has(path.resolve(name)) || fileExists(name);
  const program = ts.createProgram([...files.keys()], { ...config.options, noEmit: true }, host);
  const out: Record<string, string[]> = {};
  for (const [name, file] of Object.keys(sources).map((n) => [n, path.join(ROOT, `test/adapters/__probe-${n}.ts`)] as const)) {
    out[name] = ts.getPreEmitDiagnostics(program, program.getSourceFile(file)).map((d) => `TS${d.code}: ${ts.flattenDiagnosticMessageText(d.messageText, " ")}`);
  }
  return out;
}

test(
  "public option types are deep-partial: one nested switch is a complete option object, and a wrong value is still refused",
  () => {
    const errors = typeErrors({
      partial: `
import { repairMiddleware } from "../../src/adapters/middleware.ts";
import { repairFetch } from "../../src/adapters/fetch.ts";
import { parse } from "../../src/engine/parse.ts";
repairMiddleware({ parse: { dialects: { mistralResidue: true } } });
repairMiddleware({ history: {}, responseFix: { echoGuard: false } });
repairFetch({ parse: { dialects: { mistralResidue: true } }, responseFix: { bufferLimit: 1000 } });
parse("text", [], { dialects: { mistralResidue: true } });
`,
      wrong: `
import { repairMiddleware } from "../../src/adapters/middleware.ts";
repairMiddleware({ parse: { dialects: { mistralResidue: "yes" } } });
`,
    });
    expect(errors.partial).toEqual([]);
    expect(errors.wrong!.length).toBe(1);
  },
  60_000,
);
