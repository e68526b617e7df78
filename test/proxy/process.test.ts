// `dsml-fix proxy` as the process a user starts from a checkout: `node bin/dsml-fix.js proxy`, which
// runs the TypeScript source in a Bun child. A signal sent to the launcher alone (`kill`, a service
// manager) must stop the proxy too, gracefully, and a repeated signal must not cut open streams.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { chatSse, holdAfterFirstEvent, pieces, startUpstream, TOOLS, type Upstream } from "./support.ts";

const LAUNCHER = fileURLToPath(new URL("../../bin/dsml-fix.js", import.meta.url));
let upstream: Upstream;

beforeAll(async () => {
  upstream = await startUpstream();
});
afterAll(() => upstream.close());

/** Starts the launcher under Node and waits (bounded) for the line that names the port. */
async function launch(args: string[]): Promise<{ child: ChildProcess; port: number; out: () => string; exited: Promise<[number | null, string | null]> }> {
  const child = spawn(process.execPath.endsWith("bun") ? "node" : process.execPath, [LAUNCHER, "proxy", ...args, "--port", "0"], { stdio: ["ignore", "pipe", "pipe"], detached: true });
  let out = "";
  child.stdout!.on("data", (b: Buffer) => (out += b.toString("utf8")));
  child.stderr!.on("data", (b: Buffer) => (out += b.toString("utf8")));
  const exited = new Promise<[number | null, string | null]>((resolve) => child.on("exit", (code, signal) => resolve([code, signal])));
  for (let i = 0; i < 600 && !/127\.0\.0\.1:\d+\//.test(out); i++) await new Promise((r) => setTimeout(r, 20));
  const port = Number(/127\.0\.0\.1:(\d+)\//.exec(out)?.[1]);
  if (!port) {
    kill(child);
    throw new Error(`the proxy did not start:\n${out}`);
  }
  return { child, port, out: () => out, exited };
}

/** The launcher leads its own process group: whatever is left of it (a proxy it failed to stop) goes too. */
function kill(child: ChildProcess): void {
  try {
    process.kill(-child.pid!, "SIGKILL");
  } catch {
    // already gone
  }
}

describe("the checkout's launcher", () => {
  test("SIGTERM to the launcher stops the proxy behind it: an open stream finishes, a second signal does not cut it, exit 0, the port is closed", async () => {
    const whole = chatSse(pieces("a reply that is still streaming when the signal comes"));
    const { finish } = holdAfterFirstEvent(upstream, whole);
    const proxy = await launch(["--upstream", upstream.url]);
    try {
      const res = await fetch(`http://127.0.0.1:${proxy.port}/chat/completions`, { method: "POST", body: JSON.stringify({ model: "m", stream: true, messages: [], tools: TOOLS }) });
      const reader = res.body!.getReader();
      const first = await reader.read();
      proxy.child.kill("SIGTERM");
      for (let i = 0; i < 300 && !proxy.out().includes("shutting down"); i++) await new Promise((r) => setTimeout(r, 20));
      proxy.child.kill("SIGTERM");
      await new Promise((r) => setTimeout(r, 100));
      finish();
      let text = new TextDecoder().decode(first.value);
      for (let part = await reader.read(); !part.done; part = await reader.read()) text += new TextDecoder().decode(part.value);
      expect(text).toBe(whole);
      expect(await proxy.exited).toEqual([0, null]);
      expect(proxy.out().split("\n").filter((l) => l.includes("shutting down")).length).toBe(1);
      expect(await fetch(`http://127.0.0.1:${proxy.port}/healthz`).then(() => "answered", () => "refused")).toBe("refused");
    } finally {
      kill(proxy.child);
    }
  }, 60_000);
});
