/**
 * `npm run demo`: a bundled fake DeepSeek server replays a leaky multi-turn script to the real
 * OpenCode binary twice, once with this checkout as its plugin and once without, and prints
 * what happened side by side. Offline; every run gets its own HOME and XDG dirs.
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { eventText, repoRoot, runOpencode, setup, toolUses, type ScriptEntry } from "../test/e2e/harness.ts";
import { block, escaped, live } from "../test/golden/notation.ts";

const script = (): ScriptEntry[] => [
  { content: live(`I'll look at the project first.\n\n${block("tool_calls", [["bash", [["command", "ls -a"]]]])}`) },
  {
    content: live(
      `Now I'll write the greeting.\n<{D}invoke name="bash">\n<{D}parameter name="command" string="true">echo "hello from a leaked call" > hello.txt\n</{D}invoke>\n</{D}tool_calls>`,
    ),
  },
  { content: "Let me check it.\n<shell>\ncat hello.txt\n</shell>\n" },
  { content: "Done: hello.txt says hello." },
];

interface Outcome {
  label: string;
  tools: string[];
  text: string;
  debug: string[];
  file: string;
}

async function session(withPlugin: boolean): Promise<Outcome> {
  const plugin = withPlugin ? [[repoRoot, { providers: ["fake"], debug: true }] as [string, Record<string, unknown>]] : [];
  const { project, teardown } = await setup(script(), { plugin });
  try {
    const run = await runOpencode(project, "Create hello.txt with a greeting and show it.", { timeoutMs: 120_000 });
    const hello = path.join(project.dir, "hello.txt");
    return {
      label: withPlugin ? "with opencode-plugin-dsml-fix" : "without the plugin",
      tools: toolUses(run.events).map((t) => `${t.tool}: ${t.state?.input?.command ?? ""} -> ${t.state?.status}`),
      text: escaped(eventText(run.events)),
      debug: run.stderr.split("\n").filter((l) => l.includes("[dsml]")).map(logMessage),
      file: existsSync(hello) ? readFileSync(hello, "utf8").trim() : "(not created)",
    };
  } finally {
    await teardown();
  }
}

/** The message="..." field of one OpenCode log line. */
function logMessage(line: string): string {
  const at = line.indexOf('message="');
  return at < 0 ? line : line.slice(at + 9, line.endsWith('"') ? -1 : undefined);
}

function column(o: Outcome): string[] {
  return [
    `== ${o.label} ==`,
    "tools that ran:",
    ...(o.tools.length ? o.tools.map((t) => `  ${t}`) : ["  (none: the session stalled on raw markup)"]),
    `hello.txt: ${o.file}`,
    "visible text:",
    ...o.text.split("\n").slice(0, 14).map((l) => `  ${l}`),
  ];
}

function sideBySide(a: string[], b: string[], width = 66): string {
  const rows = Math.max(a.length, b.length);
  const fit = (s: string) => (s.length > width ? `${s.slice(0, width - 3)}...` : s.padEnd(width));
  return Array.from({ length: rows }, (_, i) => `${fit(a[i] ?? "")} | ${b[i] ?? ""}`).join("\n");
}

console.log("Running the same leaky DeepSeek-style script through the real OpenCode twice (offline)...\n");
const [withPlugin, without] = await Promise.all([session(true), session(false)]);
console.log(sideBySide(column(withPlugin), column(without)));
console.log("\nDebug lines of the plugin run (debug: true; docs/VERIFY.md explains each field):");
for (const line of withPlugin.debug) console.log(`  ${line}`);
console.log("\nMarkers are shown escaped: {D} is the DSML sentinel, {BAR} U+FF5C.");
