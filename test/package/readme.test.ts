/**
 * README against the code: the runtime dependency tree (names as package-lock.json has them; the
 * packaging test checks a real install against the versioned list), the library snippets, the
 * compatibility table. Regenerate the tree with: npx bun scripts/runtime-deps.ts --no-versions
 */
import { expect, test } from "bun:test";
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import type { NudgeReason } from "../../src/parse/types.ts";
import { readManifest, renderRuntimeTree } from "../../scripts/runtime-deps.ts";

test("README's runtime dependency tree equals the lockfile's, without versions (run: npx bun scripts/runtime-deps.ts --no-versions)", () => {
  const readme = readFileSync(new URL("../../README.md", import.meta.url), "utf8");
  const opener = `\`\`\`text\n${readManifest().name}\n`;
  const start = readme.indexOf(opener);
  expect(start).toBeGreaterThan(-1);
  const body = readme.slice(start + "```text\n".length, readme.indexOf("\n```", start + opener.length));
  expect(body).toBe(renderRuntimeTree(undefined, undefined, { versions: false }));
});

test("the runtime tree holds only zod, fast-xml-parser, ajv, jsonc-parser and what they need", () => {
  const tree = renderRuntimeTree();
  const direct = tree.split("\n").filter((line) => /^[├└]── /.test(line)).map((line) => line.slice(4).replace(/@[^@]+$/, ""));
  expect(direct).toEqual(["ajv", "fast-xml-parser", "jsonc-parser", "zod"]);
});

const README = readFileSync(new URL("../../README.md", import.meta.url), "utf8");
const examplesDir = new URL("../../examples/", import.meta.url);
const bun = fileURLToPath(new URL("../../node_modules/.bin/bun", import.meta.url));

/** The body of each ```ts fence in one `## ` section of README. */
function tsBlocks(section: string): string[] {
  const start = README.indexOf(`\n## ${section}\n`);
  expect(start).toBeGreaterThan(-1);
  const end = README.indexOf("\n## ", start + 1);
  const body = README.slice(start, end < 0 ? undefined : end);
  return [...body.matchAll(/\n```ts\n([\s\S]*?)\n```/g)].map((m) => `${m[1]}\n`);
}

const SNIPPETS = ["middleware.ts", "fetch.ts", "parse.ts"];

test("README's library snippets are examples/*.ts verbatim (type-checked by npm run typecheck)", () => {
  expect(tsBlocks("Use without OpenCode")).toEqual(SNIPPETS.map((file) => readFileSync(new URL(file, examplesDir), "utf8")));
});

/** An OpenAI-compatible server whose model leaks a Hermes call as text. */
async function leakyServer(): Promise<{ url: string; close(): void }> {
  const reply = 'Let me look.\n<tool_call>\n{"name": "bash", "arguments": {"command": "ls -la"}}\n</tool_call>';
  const chunk = (delta: object, finish: string | null = null) =>
    `data: ${JSON.stringify({ id: "c1", object: "chat.completion.chunk", created: 1, model: "deepseek-chat", choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      let body = chunk({ role: "assistant", content: "" });
      for (let i = 0; i < reply.length; i += 7) body += chunk({ content: reply.slice(i, i + 7) });
      res.end(`${body}${chunk({}, "stop")}data: [DONE]\n\n`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, close: () => server.close() };
}

async function runExample(file: string, env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(bun, [fileURLToPath(new URL(file, examplesDir))], { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
  child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
  const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
  return { code, stdout, stderr };
}

test("each snippet runs as written against an OpenAI-compatible server and turns the leak into a call", async () => {
  const server = await leakyServer();
  try {
    const env = { DEEPSEEK_BASE_URL: server.url, DEEPSEEK_API_KEY: "sk-example" };
    const middleware = await runExample("middleware.ts", env);
    expect(middleware.code).toBe(0);
    expect(middleware.stdout).toBe('call bash {"command":"ls -la"}\ndsmlFix {"recovered":1,"nudge":null}\n');
    const viaFetch = await runExample("fetch.ts", env);
    expect(viaFetch.code).toBe(0);
    expect(viaFetch.stdout).toBe('call bash {"command":"ls -la"}\n');
    expect(viaFetch.stderr).toContain("recovered=1 nudge=no");
    const parsed = await runExample("parse.ts");
    expect(parsed.stdout).toBe('call bash {"command":"ls -la"} O01\ntext "Let me look.\\n" broken 0 nudge null\n');
  } finally {
    server.close();
  }
}, 60_000);

const manifest = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8"));

test("relative links in README point at files the package ships (npm shows README without the rest of the repository)", () => {
  const links = [...README.matchAll(/\]\(([^)#]+)(#[^)]*)?\)/g)].map((m) => m[1]!).filter((href) => !/^[a-z]+:/.test(href));
  expect(links.length).toBeGreaterThan(0);
  const packed = (file: string) => (manifest.files as string[]).some((entry) => file === entry || file.startsWith(`${entry}/`)) || ["README.md", "LICENSE", "package.json"].includes(file);
  expect(links.filter((file) => !packed(file) || !existsSync(new URL(`../../${file}`, import.meta.url)))).toEqual([]);
  // A Markdown file named in prose is a link a reader follows too: packed, or an absolute URL.
  const prose = README.replace(/\[[^\]]*\]\(https?:[^)]*\)/g, "");
  const named = [...prose.matchAll(/(?<![\w/.:-])(?:[\w-]+\/)*[\w-]+\.md\b/g)].map((m) => m[0]);
  expect(named.filter((file) => !packed(file))).toEqual([]);
});

test("no instruction runs a bare `bun` (not on PATH after npm ci): npm scripts or npx bun", () => {
  const bare = [...README.matchAll(/(^|[`\n])\s*bun\s/g)].map((m) => README.slice(m.index!, m.index! + 40));
  expect(bare).toEqual([]);
});

test("every `npm run <script>` the README gives is a script of package.json", () => {
  const named = [...README.matchAll(/npm run ([\w:-]+)/g)].map((m) => m[1]!);
  expect(named).toContain("bench:opencode");
  expect(named.filter((name) => !(name in manifest.scripts))).toEqual([]);
});

test("the compatibility table names the OpenCode version the tests pin, and the peer range", () => {
  const pinned = manifest.devDependencies["opencode-ai"];
  expect(manifest.devDependencies["@opencode-ai/plugin"]).toBe(pinned);
  const table = README.slice(README.indexOf("### Compatibility"), README.indexOf("### Uninstall"));
  expect(table).toContain(`| ${pinned} | tested:`);
  expect(table).toContain(`\`@opencode-ai/plugin ${manifest.peerDependencies["@opencode-ai/plugin"]}\``);
});

test("the entry README says `opencode plugin` writes holds the options package.json ships", () => {
  const today = README.slice(README.indexOf("### Today"), README.indexOf("### After publishing"));
  const block = /```json\n([\s\S]*?)\n```/.exec(today)![1]!;
  expect(JSON.parse(block).plugin[0][1]).toEqual(manifest.exports["./server"].config);
});

test("Verify documents every nudge reason and every debug line the plugin writes", () => {
  const verify = README.slice(README.indexOf("## Verify"), README.indexOf("## Troubleshooting"));
  // Adding a reason to NudgeReason without listing it here fails the type check.
  const reasons = { "broken-markup": 1, "undeclared-tool": 1, "truncated-call": 1, "echoed-markup": 1, "invalid-arguments": 1 } satisfies Record<NudgeReason, 1>;
  for (const reason of Object.keys(reasons)) expect(verify).toContain(`\`${reason}\``);
  for (const outcome of ["recovered=", "passthrough", "held-candidate-no-call", "shapes="]) expect(verify).toContain(`\`${outcome}`);
  const plugin = ["index.ts", "plugin-start.ts"].map((file) => readFileSync(new URL(`../../src/plugin/${file}`, import.meta.url), "utf8")).join("\n");
  for (const prefix of ["[dsml] echo-guard stripped=", "[dsml] wake "]) {
    expect(verify).toContain(prefix);
    expect(plugin).toContain(prefix);
  }
  expect(verify).toContain("[dsml] loaded v");
});
