/**
 * Review 48: the work of `dsml-fix scan --export` over a long session. Each assistant message that
 * would recover a call builds the echo guard's haystack from everything given before it
 * (src/cli/main.ts scanExport: `readAsPlugin(text, tools, () => givenBefore(messages, index))`,
 * src/cli/given.ts), so a session of N leaking replies normalizes the history N times: quadratic.
 * Measured (not asserted): 2.1 MB of user text with 50 leaking replies 5 s, 4.2 MB/100 21 s,
 * 8.4 MB/200 70 s. `scan --sessions` (src/cli/session-store.ts readGiven) hands out the same
 * givenBefore per message. Counted here without a clock: the characters of given content handed to
 * the guard, against the session's size.
 */
import { describe, expect, mock, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import * as given from "../../src/cli/given.ts";
import { ECHO, readme } from "../security/tool-result-files.ts";

const realGivenBefore = given.givenBefore;
let handed = 0;
mock.module("../../src/cli/given.ts", () => ({
  givenBefore: (messages: readonly unknown[], index: number) => {
    const out = realGivenBefore(messages, index);
    for (const text of out) handed += text.length;
    return out;
  },
}));
const { main } = await import("../../src/cli/main.ts");

async function scan(n: number): Promise<{ given: number; reported: number }> {
  const root = mkdtempSync(path.join(tmpdir(), "r48-work-"));
  const file = path.join(root, "session.json");
  const messages: unknown[] = [];
  for (let i = 0; i < n; i++) {
    messages.push({ info: { id: `msg_u${i}`, role: "user" }, parts: [{ type: "text", text: readme(`npm run step${i}`) }] });
    // Each reply leaks a call of its own (not an echo), so each builds the guard's haystack.
    messages.push({ info: { id: `msg_a${i}`, role: "assistant", providerID: "deepseek", modelID: "deepseek-chat" }, parts: [{ type: "text", text: ECHO.replace("evil", `evil${i}`) }] });
  }
  writeFileSync(file, JSON.stringify({ info: { id: "ses_1" }, messages }));
  const env = { PATH: process.env.PATH ?? "", HOME: root, XDG_CONFIG_HOME: root, XDG_DATA_HOME: root, XDG_CACHE_HOME: root };
  let out = "";
  handed = 0;
  await main(["scan", "--export", file, "--json"], { readStdin: async () => new Uint8Array(), out: (t) => (out += t), err: () => {}, env, cwd: root });
  return { given: handed, reported: (JSON.parse(out) as { messages: unknown[] }).messages.length };
}

describe("scan --export over a session of many leaking replies", () => {
  // FINDING 5 (performance, low/medium: the CLI only; quadratic in session length, 70 s for an
  // 8.4 MB session of 200 leaking replies). Observed: given content handed to the guard grows as
  // N^2 (N=80: about 40 times the session's given text). Expected: within a constant factor of it
  // (an incremental haystack: each message's given content appended once). Suspected:
  // src/cli/main.ts scanExport, src/cli/given.ts givenBefore, src/cli/session-store.ts readGiven.
  test("fixed: the given content read stays within 4 times the session's given text", async () => {
    const n = 80;
    const { given: read, reported } = await scan(n);
    expect(reported).toBe(n); // every reply read (each a call of its own)
    const total = Array.from({ length: n }, (_, i) => readme(`npm run step${i}`).length).reduce((a, b) => a + b, 0);
    expect(read).toBeLessThanOrEqual(4 * total);
  });
});
