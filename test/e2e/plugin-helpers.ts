/**
 * Shared helpers for the plugin end-to-end tests (plugin-*.test.ts): the plugin entry, readers of
 * the requests the fake model recorded, and polling helpers for `opencode serve` sessions.
 * Markup is only ever built through test/golden/notation.ts.
 */
import { afterAll } from "bun:test";
import { createOpencodeClient } from "@opencode-ai/sdk";
import { BAR, DVL, SP, escaped } from "../golden/notation.ts";
import { repoRoot, startServe, type FakeModel, type PluginEntry, type RecordedRequest, type ServeHandle } from "./harness.ts";

export const TIMEOUT = 90_000;

/** The plugin as OpenCode loads it in these tests: the repository root as the spec. */
export function pluginEntry(options: Record<string, unknown>): PluginEntry {
  return [repoRoot, options];
}

/**
 * One expensive opencode run shared by every test of a file: started by the first test that asks
 * for it, cleaned up after the file. `make` hands its cleanup to `onCleanup` as soon as it has one,
 * so a run that fails halfway still cleans up.
 */
export function sharedOnce<T>(make: (onCleanup: (cleanup: () => Promise<void> | void) => void) => Promise<T>): () => Promise<T> {
  let shared: Promise<T> | undefined;
  let cleanup: (() => Promise<void> | void) | undefined;
  afterAll(async () => {
    await cleanup?.();
  });
  return () =>
    (shared ??= make((fn) => {
      cleanup = fn;
    }));
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Text of an OpenAI message `content` (string or array of parts). */
export function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content.map((p: any) => (typeof p?.text === "string" ? p.text : "")).join("");
  return "";
}

export function messagesOf(request: RecordedRequest, role: string): any[] {
  return (request.body?.messages ?? []).filter((m: any) => m?.role === role);
}

/** All system message text of a request, joined. */
export function systemText(request: RecordedRequest): string {
  return messagesOf(request, "system").map((m) => contentText(m.content)).join("\n");
}

export function userTexts(request: RecordedRequest): string[] {
  return messagesOf(request, "user").map((m) => contentText(m.content));
}

export function assistantTexts(request: RecordedRequest): string[] {
  return messagesOf(request, "assistant").map((m) => contentText(m.content));
}

/** Everything a request sends, as one string (to count occurrences across all messages). */
export function requestText(request: RecordedRequest): string {
  return (request.body?.messages ?? []).map((m: any) => contentText(m.content)).join("\n");
}

export function countOf(haystack: string, needle: string): number {
  if (!needle) return 0;
  let n = 0;
  for (let at = haystack.indexOf(needle); at !== -1; at = haystack.indexOf(needle, at + needle.length)) n++;
  return n;
}

/** True when the text holds any live marker character (U+FF5C, U+2016, U+2581). */
export function hasMarkerBytes(text: string): boolean {
  return text.includes(BAR) || text.includes(DVL) || text.includes(SP);
}

/** The last user message text of a request (what a scripted responder dispatches on). */
export function lastUserText(request: RecordedRequest): string {
  return userTexts(request).at(-1) ?? "";
}

/** Poll `check` until it returns a truthy value; throws with `what` after `timeoutMs`. */
export async function waitFor<T>(
  what: string,
  check: () => T | Promise<T>,
  timeoutMs = 30_000,
  detail?: () => string | Promise<string>,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) {
      const more = detail ? await Promise.resolve(detail()).catch((e) => `(no detail: ${String(e)})`) : "";
      throw new Error(`timed out waiting for ${what}${more ? `\n${more}` : ""}`);
    }
    await sleep(200);
  }
}

export type Client = ReturnType<typeof createOpencodeClient>;

export interface Served {
  server: ServeHandle;
  client: Client;
}

export async function serve(project: Parameters<typeof startServe>[0]): Promise<Served> {
  const server = await startServe(project);
  return { server, client: createOpencodeClient({ baseUrl: server.url }) };
}

export async function newSession(client: Client): Promise<string> {
  const created = await client.session.create({ body: {} });
  if (!created.data) throw new Error(`session.create failed: ${JSON.stringify(created.error)}`);
  return created.data.id;
}

/** session.prompt; returns the assistant message it answered with (info + parts). */
export async function prompt(client: Client, sessionID: string, text: string, extra: Record<string, unknown> = {}) {
  const answer = await client.session.prompt({
    path: { id: sessionID },
    body: { parts: [{ type: "text", text }], ...extra },
  });
  if (!answer.data) throw new Error(`session.prompt failed: ${JSON.stringify(answer.error)}`);
  return answer.data as { info: any; parts: any[] };
}

export async function sessionMessages(client: Client, sessionID: string): Promise<{ info: any; parts: any[] }[]> {
  const res = await client.session.messages({ path: { id: sessionID } });
  if (!res.data) throw new Error(`session.messages failed: ${JSON.stringify(res.error)}`);
  return res.data as { info: any; parts: any[] }[];
}

/** Text of a stored message's text parts. */
export function partsText(message: { parts: any[] }): string {
  return message.parts
    .filter((p) => p.type === "text")
    .map((p) => String(p.text ?? ""))
    .join("");
}

/** The session is not busy and its last message is a completed assistant message. */
export async function settled(client: Client, sessionID: string): Promise<boolean> {
  const status = await client.session.status();
  const mine = (status.data as Record<string, { type: string }> | undefined)?.[sessionID];
  if (mine && mine.type !== "idle") return false;
  const messages = await sessionMessages(client, sessionID);
  const last = messages.at(-1);
  return last?.info.role === "assistant" && typeof last.info.time?.completed === "number";
}

/**
 * Wait until the fake model saw `count` main requests and the session settled after them, then stay
 * quiet for `quietMs` more (long enough for an idle wake, which follows idleness within a second).
 */
export async function settleAfter(served: Served, model: FakeModel, sessionID: string, count: number, quietMs = 0) {
  const { client } = served;
  const detail = () => describeState(served, model, sessionID);
  await waitFor(`${count} main requests`, () => model.mainRequests().length >= count, 30_000, detail);
  await waitFor(`session ${sessionID} to settle`, () => settled(client, sessionID), 30_000, detail);
  if (quietMs > 0) {
    await sleep(quietMs);
    await waitFor(`session ${sessionID} to settle again`, () => settled(client, sessionID), 30_000, detail);
  }
}

/** What a failed wait reports: requests seen, the stored messages, and the plugin / error log lines. */
export async function describeState(served: Served, model: FakeModel, sessionID: string): Promise<string> {
  const messages = await sessionMessages(served.client, sessionID).catch(() => []);
  const stored = messages.map((m) => `${m.info.role}: ${m.parts.map((p) => p.type).join(",")}`).join("; ");
  const log = served.server
    .output()
    .split("\n")
    .filter((l) => /\[dsml|dsml-fix|level=(WARN|ERROR)/.test(l))
    .slice(-30)
    .join("\n");
  return `main requests: ${model.mainRequests().length}; stored: ${stored}\nlog:\n${escaped(log)}`;
}

/** OpenCode log lines (from `--print-logs` output) that carry `needle`. */
export function logLines(output: string, needle: string): string[] {
  return output.split("\n").filter((line) => line.includes(needle));
}
