/**
 * README and the docs it points to, against the code: README as a user's path (its sections in
 * order, its length, the CLI forms that work today first), the runtime dependency tree in
 * docs/INSTALL.md (names as package-lock.json has them; the packaging test checks a real install
 * against the versioned list), the library snippets in docs/LIBRARY.md, the compatibility table,
 * the log lines in docs/VERIFY.md. Regenerate the tree with: npx bun scripts/runtime-deps.ts --no-versions
 */
import { expect, test } from "bun:test";
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import type { NudgeReason } from "../../src/parse/types.ts";
import { readManifest, renderRuntimeTree } from "../../scripts/runtime-deps.ts";

test("docs/INSTALL.md's runtime dependency tree equals the lockfile's, without versions (run: npx bun scripts/runtime-deps.ts --no-versions)", () => {
  const install = readFileSync(new URL("../../docs/INSTALL.md", import.meta.url), "utf8");
  const opener = `\`\`\`text\n${readManifest().name}\n`;
  const start = install.indexOf(opener);
  expect(start).toBeGreaterThan(-1);
  const body = install.slice(start + "```text\n".length, install.indexOf("\n```", start + opener.length));
  expect(body).toBe(renderRuntimeTree(undefined, undefined, { versions: false }));
});

test("the runtime tree holds only zod, fast-xml-parser, ajv, jsonc-parser and what they need", () => {
  const tree = renderRuntimeTree();
  const direct = tree.split("\n").filter((line) => /^[├└]── /.test(line)).map((line) => line.slice(4).replace(/@[^@]+$/, ""));
  expect(direct).toEqual(["ajv", "fast-xml-parser", "jsonc-parser", "zod"]);
});

const README = readFileSync(new URL("../../README.md", import.meta.url), "utf8");
/** The pages README links to for the rest (docs/), each as the repository path it is shipped at. */
const DOCS = ["INSTALL", "CONFIGURATION", "VERIFY", "HOW-IT-WORKS", "LIBRARY", "PROXY", "PERFORMANCE", "DEVELOPMENT"].map((name) => `docs/${name}.md`);
const doc = (file: string) => readFileSync(new URL(`../../${file}`, import.meta.url), "utf8");
const PAGES: [string, string][] = [["README.md", README], ...DOCS.map((file): [string, string] => [file, doc(file)])];
const examplesDir = new URL("../../examples/", import.meta.url);
const bun = fileURLToPath(new URL("../../node_modules/.bin/bun", import.meta.url));

/** The body of each ```ts fence in one `## ` section of a page. */
function tsBlocks(page: string, section: string): string[] {
  const start = page.indexOf(`\n## ${section}\n`);
  expect(start).toBeGreaterThan(-1);
  const end = page.indexOf("\n## ", start + 1);
  const body = page.slice(start, end < 0 ? undefined : end);
  return [...body.matchAll(/\n```ts\n([\s\S]*?)\n```/g)].map((m) => `${m[1]}\n`);
}

const SNIPPETS = ["middleware.ts", "fetch.ts", "parse.ts"];

test("docs/LIBRARY.md's snippets are examples/*.ts verbatim (type-checked by npm run typecheck), and README points there", () => {
  expect(README).toContain("[docs/LIBRARY.md](docs/LIBRARY.md)");
  expect(tsBlocks(doc("docs/LIBRARY.md"), "Snippets")).toEqual(SNIPPETS.map((file) => readFileSync(new URL(file, examplesDir), "utf8")));
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

test("relative links in README and docs/ point at files the package ships (npm shows README without the rest of the repository)", () => {
  // npm reads a "!" entry of `files` as an exclusion (docs/TEST-MATRIX.md is left out that way).
  const entries = manifest.files as string[];
  const under = (file: string, entry: string) => file === entry || file.startsWith(`${entry}/`);
  const excluded = (file: string) => entries.some((entry) => entry.startsWith("!") && under(file, entry.slice(1)));
  const packed = (file: string) => (entries.some((entry) => !entry.startsWith("!") && under(file, entry)) && !excluded(file)) || ["README.md", "LICENSE", "package.json"].includes(file);
  for (const [file, text] of PAGES) {
    const folder = file.includes("/") ? file.slice(0, file.lastIndexOf("/") + 1) : "";
    // A link is resolved from the page's own folder, as GitHub and npm resolve it.
    const links = [...text.matchAll(/\]\(([^)#]+)(#[^)]*)?\)/g)].map((m) => m[1]!).filter((href) => !/^[a-z]+:/.test(href)).map((href) => new URL(href, `file:///r/${folder}`).pathname.slice(3));
    if (file === "README.md") expect(links.length).toBeGreaterThan(5);
    expect({ file, broken: links.filter((target) => !packed(target) || !existsSync(new URL(`../../${target}`, import.meta.url))) }).toEqual({ file, broken: [] });
    // A Markdown file named in prose is a link a reader follows too: packed, or an absolute URL.
    const prose = text.replace(/\[[^\]]*\]\(https?:[^)]*\)/g, "");
    const named = [...prose.matchAll(/(?<![\w/.:-])(?:[\w-]+\/)*[\w-]+\.md\b/g)].map((m) => m[0]);
    const shipped = (name: string) => packed(name) && existsSync(new URL(`../../${name}`, import.meta.url));
    // A repository file the page links by its absolute URL may be named again in prose.
    const linkedAbsolute = new Set([...text.matchAll(/\]\(https:\/\/github\.com\/[^)]*?\/blob\/main\/([^)#]+)/g)].map((m) => m[1]!));
    expect({ file, unpacked: named.filter((name) => !shipped(name) && !shipped(`${folder}${name}`) && !linkedAbsolute.has(name)) }).toEqual({ file, unpacked: [] });
  }
});

test("no instruction runs a bare `bun` (not on PATH after npm ci): npm scripts or npx bun", () => {
  for (const [file, text] of PAGES) {
    const bare = [...text.matchAll(/(^|[`\n])\s*bun\s/g)].map((m) => text.slice(m.index!, m.index! + 40));
    expect({ file, bare }).toEqual({ file, bare: [] });
  }
});

test("every `npm run <script>` README and docs/ give is a script of package.json", () => {
  const named = PAGES.flatMap(([, text]) => [...text.matchAll(/npm run ([\w:-]+)/g)].map((m) => m[1]!));
  expect(named).toContain("bench:opencode");
  expect(named.filter((name) => !(name in manifest.scripts))).toEqual([]);
});

test("the compatibility table names the OpenCode version the tests pin, and the peer range", () => {
  const pinned = manifest.devDependencies["opencode-ai"];
  expect(manifest.devDependencies["@opencode-ai/plugin"]).toBe(pinned);
  const table = README.slice(README.indexOf("### Compatibility"), README.indexOf("\n## ", README.indexOf("### Compatibility")));
  expect(table).toContain(`| ${pinned} | tested:`);
  expect(table).toContain(`\`@opencode-ai/plugin ${manifest.peerDependencies["@opencode-ai/plugin"]}\``);
});

test("the entry README and docs/INSTALL.md say `opencode plugin` writes holds the options package.json ships", () => {
  for (const page of [README, doc("docs/INSTALL.md")]) {
    const today = page.slice(page.indexOf("## OpenCode 1.18, today"), page.indexOf("## OpenCode 1.18, after publishing"));
    const block = /```json\n([\s\S]*?)\n```/.exec(today)![1]!;
    expect(JSON.parse(block).plugin[0][1]).toEqual(manifest.exports["./server"].config);
  }
});

test("docs/VERIFY.md documents every nudge reason and every debug line the plugin writes; README shows the start-up line and points there", () => {
  const verify = doc("docs/VERIFY.md");
  expect(README).toContain("[dsml] loaded v");
  expect(README).toContain("[docs/VERIFY.md](docs/VERIFY.md)");
  // Adding a reason to NudgeReason without listing it here fails the type check.
  const reasons = { "broken-markup": 1, "undeclared-tool": 1, "truncated-call": 1, "echoed-markup": 1, "invalid-arguments": 1, "extra-call": 1, "overflowed-markup": 1 } satisfies Record<NudgeReason, 1>;
  for (const reason of Object.keys(reasons)) expect(verify).toContain(`\`${reason}\``);
  for (const outcome of ["recovered=", "passthrough", "held-candidate-no-call", "shapes="]) expect(verify).toContain(`\`${outcome}`);
  const plugin = ["index.ts", "plugin-start.ts"].map((file) => readFileSync(new URL(`../../src/plugin/${file}`, import.meta.url), "utf8")).join("\n");
  for (const prefix of ["[dsml] echo-guard stripped=", "[dsml] wake "]) {
    expect(verify).toContain(prefix);
    expect(plugin).toContain(prefix);
  }
  expect(verify).toContain("[dsml] loaded v");
});

test("README is a user's path: what it does, install, configure, verify, troubleshoot, report, uninstall, then the rest, in about 250 lines", () => {
  const sections = [...README.matchAll(/^## (.+)$/gm)].map((m) => m[1]!);
  expect(sections).toEqual(["Supported models and formats", "Install", "Configure", "Verify it is working", "Troubleshooting", "Report a leak", "Uninstall", "Use with other agents", "Use without OpenCode", "More", "License"]);
  const installs = [...README.matchAll(/^### (.+)$/gm)].map((m) => m[1]!);
  expect(installs.slice(0, 4)).toEqual(["OpenCode 1.18, today: from a packed checkout", "OpenCode 1.18, after publishing", "OpenCode 2", "First start: OpenCode's own install"]);
  expect(README.split("\n").length).toBeLessThanOrEqual(300);
  // Both hosts' entry forms, and the proxy for other agents.
  expect(README).toContain('["opencode-plugin-dsml-fix", { "providers": ["auto"] }]');
  expect(README).toContain('{ "package": "opencode-plugin-dsml-fix", "options": {');
  expect(README).toContain("`dsml-fix proxy --upstream URL`");
  expect(README).toContain("[docs/PROXY.md](docs/PROXY.md)");
});

test("README gives the `dsml-fix` forms that work today first and labels the published one; no page claims a bare `npx dsml-fix` fetches another package", () => {
  const table = README.slice(README.indexOf("### The `dsml-fix` command"), README.indexOf("\n## ", README.indexOf("### The `dsml-fix` command")));
  const rows = table.split("\n").filter((line) => line.startsWith("| ") && line.includes("`npx "));
  expect(rows.map((row) => /`(npx [^`]*)`/.exec(row)![1])).toEqual(["npx dsml-fix doctor", "npx -p /path/to/opencode-plugin-dsml-fix-0.1.0.tgz dsml-fix doctor", "npx -p opencode-plugin-dsml-fix dsml-fix doctor"]);
  expect(rows[2]).toContain("after publishing");
  for (const [file, text] of PAGES) {
    expect({ file, unrelated: /unrelated/i.test(text) }).toEqual({ file, unrelated: false });
    // A published-only form outside a labelled place would 404 today.
    const published = text.split("\n").filter((line) => line.includes("npx -p opencode-plugin-dsml-fix "));
    expect({ file, unlabelled: published.filter((line) => !/publish/i.test(line)) }).toEqual({ file, unlabelled: [] });
  }
});

test("the first-start numbers README gives are the measured ones in docs/INSTALL.md, and no page keeps the old one-minute claim", () => {
  const install = doc("docs/INSTALL.md");
  for (const measured of ["3.2 s", "15.6 s and 24.1 s", "74.6 s"]) {
    expect(README).toContain(measured);
    expect(install).toContain(measured);
  }
  for (const [file, text] of PAGES) expect({ file, old: /65 s|about a minute/.test(text) }).toEqual({ file, old: false });
  expect(README).toContain("opencode export --pure");
});
