/**
 * Capture the built-in tool schemas the real OpenCode binary sends to a model, and write them to
 * src/tools/opencode-builtins.ts.
 *
 *   node_modules/.bin/bun scripts/capture-opencode-tools.ts [--out path] [--print]
 *
 * It starts a fake OpenAI-compatible server on 127.0.0.1, runs `opencode run` once headless in an
 * isolated temp HOME / XDG dirs with a project opencode.json pointing fake/fake-model at it, then
 * sends one prompt through `opencode serve` in the same project (serve also declares `question`,
 * which `run` denies), takes the main chat-completions requests (the ones with `tools`) and keeps
 * each tool's name and parameter JSON schema with every `description` keyword removed (property
 * names called "description" stay).
 */
import { readFileSync, writeFileSync, mkdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { makeProject, runOpencode, startFakeModel, startServe } from "../test/e2e/harness.ts";

const repoRoot = fileURLToPath(new URL("..", import.meta.url));

function argValue(flag: string): string | undefined {
  const i = process.argv.indexOf(flag);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

const outPath = path.resolve(repoRoot, argValue("--out") ?? "src/tools/opencode-builtins.ts");
const opencodeVersion: string = JSON.parse(
  readFileSync(path.join(repoRoot, "node_modules", "opencode-ai", "package.json"), "utf8"),
).version;

/** Keywords whose value is a map of name -> subschema. */
const SCHEMA_MAPS = new Set(["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"]);
/** Keywords whose value is a subschema or an array of subschemas. */
const SCHEMA_VALUES = new Set([
  "items",
  "additionalItems",
  "prefixItems",
  "additionalProperties",
  "unevaluatedProperties",
  "unevaluatedItems",
  "contains",
  "propertyNames",
  "not",
  "if",
  "then",
  "else",
  "anyOf",
  "oneOf",
  "allOf",
]);

/** Copy a JSON schema without `description` keywords (schema-aware: property names are kept). */
function stripDescriptions(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(stripDescriptions);
  if (schema === null || typeof schema !== "object") return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema as Record<string, unknown>)) {
    if (key === "description") continue;
    if (SCHEMA_MAPS.has(key) && value && typeof value === "object" && !Array.isArray(value)) {
      out[key] = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, stripDescriptions(v)]));
    } else if (SCHEMA_VALUES.has(key)) {
      out[key] = stripDescriptions(value);
    } else {
      out[key] = value;
    }
  }
  return out;
}

/** JSON with every non-ASCII character written as a \u escape (repo rule: no raw special bytes). */
function asciiJson(value: unknown): string {
  return JSON.stringify(value, null, 2).replace(
    /[\u007f-\uffff]/g,
    (c) => "\\u" + c.charCodeAt(0).toString(16).padStart(4, "0"),
  );
}

type Captured = { name: string; parameters: unknown };

function toolsOf(body: any): Captured[] {
  const tools: any[] = body?.tools ?? [];
  if (tools.length === 0) throw new Error("the main request carried no tools");
  return tools.map((t) => {
    const fn = t.function ?? t;
    if (typeof fn?.name !== "string") throw new Error(`unexpected tool entry: ${JSON.stringify(t).slice(0, 200)}`);
    return { name: fn.name, parameters: stripDescriptions(fn.parameters ?? {}) };
  });
}

/**
 * One `opencode run` (the brief's headless run) and one prompt through `opencode serve` (what the
 * TUI and SDK clients get). `run` denies the `question` tool for its session, so serve declares a
 * superset; the shared tools must have identical schemas.
 */
async function capture(): Promise<{ run: Captured[]; serve: Captured[] }> {
  const model = await startFakeModel([{ content: "ok." }, { content: "ok." }]);
  const project = makeProject({ modelUrl: model.url });
  try {
    const run = await runOpencode(project, "List the tools you have.", { timeoutMs: 120_000 });
    const main = model.mainRequests()[0];
    if (!main) {
      throw new Error(
        `opencode run sent no main request (exit ${run.code}, timedOut ${run.timedOut})\n${run.stderr.slice(-4000)}`,
      );
    }
    const server = await startServe(project, { timeoutMs: 60_000 });
    try {
      const base = server.url;
      const created = await fetch(`${base}/session`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: "{}",
      }).then((r) => r.json() as Promise<{ id: string }>);
      const res = await fetch(`${base}/session/${created.id}/message`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ parts: [{ type: "text", text: "List the tools you have." }] }),
      });
      await res.text();
    } finally {
      await server.stop();
    }
    const served = model.mainRequests()[1];
    if (!served) throw new Error("opencode serve sent no main request");
    return { run: toolsOf(main.body), serve: toolsOf(served.body) };
  } finally {
    await model.close();
    project.cleanup();
  }
}

const captured = await capture();
const runNames = new Set(captured.run.map((t) => t.name));
for (const t of captured.run) {
  const s = captured.serve.find((x) => x.name === t.name);
  if (!s) throw new Error(`tool ${t.name} is declared by opencode run but not by opencode serve`);
  if (JSON.stringify(s.parameters) !== JSON.stringify(t.parameters))
    throw new Error(`tool ${t.name} has different schemas under run and serve`);
}
const tools = captured.serve;
const serveOnly = tools.map((t) => t.name).filter((n) => !runNames.has(n));
const body = `// GENERATED by scripts/capture-opencode-tools.ts from opencode-ai ${opencodeVersion}. Do not edit by hand;
// re-run \`node_modules/.bin/bun scripts/capture-opencode-tools.ts\` after upgrading opencode-ai.
//
// The built-in tools the real OpenCode binary declares in a main chat-completions request (default
// "build" agent, permission {"*":"allow"}, no plugins/MCP/skills), in the order it sends them, as
// captured from a prompt through \`opencode serve\` (what the TUI and SDK clients get). A headless
// \`opencode run\` sends the same list minus \`opencodeToolsNotDeclaredByRun\` (run denies them for
// its session); the schemas of the shared tools are identical.
// \`parameters\` is each tool's JSON schema exactly as sent, minus every \`description\` keyword.
import type { ToolSpec } from "../parse/types.ts";

export const opencodeBuiltinToolsVersion = ${JSON.stringify(opencodeVersion)};

export const opencodeToolsNotDeclaredByRun: string[] = ${JSON.stringify(serveOnly)};

export const opencodeBuiltinTools: ToolSpec[] = ${asciiJson(tools)};
`;

if (process.argv.includes("--print")) {
  process.stdout.write(body);
} else {
  mkdirSync(path.dirname(outPath), { recursive: true });
  writeFileSync(outPath, body);
  console.log(`wrote ${path.relative(repoRoot, outPath)}: ${tools.map((t) => t.name).join(", ")}`);
  console.log(`not declared by opencode run: ${serveOnly.join(", ") || "(none)"}`);
}
