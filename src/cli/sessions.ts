import { realpathSync } from "node:fs";
import path from "node:path";
import type { EchoGuard } from "../engine/types.ts";
import type { ParseResult, ToolSpec } from "../parse/types.ts";
import { inDefaultScope, readAsPlugin } from "./plugin-reading.ts";
import { countNearMisses } from "./near-misses.ts";
import { assistantText, type ExportedMessage } from "./report.ts";
import type { StoredSession } from "./session-store.ts";

/** One assistant message that leaked: only tool names and shape ids, never argument values (history may hold secrets). */
interface MessageLeak {
  message: string;
  calls: { tool: string; shape: string }[];
  broken: { shape: string; reason: string }[];
  stripped: { kind: string }[];
  /** Openers of markup in this message the parser left as text (quoted in code, or too partial); only when there are some. */
  nearMisses?: number;
  /** The model is one the plugin leaves alone by default: `calls` and `broken` are what it would have found, none of it acted on. */
  outOfScope?: true;
}

interface ModelTally {
  provider: string;
  model: string;
  messages: number;
  messagesWithLeaks: number;
  calls: number;
  broken: number;
  stripped: number;
  /** Markup openers left as text (quoted in code, or too partial to be a call): nothing would run. */
  nearMisses: number;
  /** Whether the plugin with its default options acts on this model at all (providers ["auto"]). */
  inScope: boolean;
  /** Out of scope: leaked calls and broken spans the plugin leaves as the model wrote them (never in calls or broken). */
  untouched: number;
  /** Shape id -> count, recovered-would-be and broken apart. */
  shapes: { recovered: Record<string, number>; broken: Record<string, number> };
}

interface SessionLeaks {
  id: string;
  title: string;
  directory: string;
  models: (ModelTally & { leaks: MessageLeak[] })[];
}

interface SessionsReport {
  database: string;
  /** --dir, resolved: only sessions of this directory and below were scanned. */
  directory: string | null;
  sessions: SessionLeaks[];
  models: ModelTally[];
  totals: { sessions: number; sessionsWithLeaks: number; messages: number; messagesWithLeaks: number; calls: number; broken: number; stripped: number; nearMisses: number; untouched: number };
}

/**
 * Sessions of DIR itself and of every directory below it. OpenCode stores a session's directory as
 * its working directory, a physical path (getcwd), so DIR given through a symlink is compared by
 * its real path too, and so is each stored directory that still exists (memoized per directory).
 */
export function underDirectory(sessions: StoredSession[], dir: string): StoredSession[] {
  const roots = [...new Set([path.resolve(dir), realPath(dir)])];
  const real = new Map<string, string[]>();
  const forms = (directory: string) => {
    let known = real.get(directory);
    if (!known) real.set(directory, (known = [...new Set([path.resolve(directory), realPath(directory)])]));
    return known;
  };
  return sessions.filter((s) => s.directory !== "" && forms(s.directory).some((d) => roots.some((root) => isInside(root, d))));
}

/** `inner` is `root` or below it: `..` itself or `../...` is outside, `..cache` (a folder's name) is not; another drive is outside. */
function isInside(root: string, inner: string): boolean {
  const relative = path.relative(root, inner);
  return !(relative === ".." || relative.startsWith(`..${path.sep}`) || path.isAbsolute(relative));
}

/** The physical path where it exists; the resolved path as given otherwise. */
function realPath(p: string): string {
  try {
    return realpathSync.native(path.resolve(p));
  } catch {
    return path.resolve(p);
  }
}

/**
 * What the model was given before one message (user messages, tool results), for the echo guard;
 * undefined: nothing known (no guard).
 */
type GivenFor = (session: StoredSession, message: ExportedMessage) => (() => readonly string[]) | { guard: EchoGuard | undefined } | undefined;

/**
 * Each assistant message read as the plugin reads a reply (plugin-reading.ts: its default options
 * and limits, the echo guard over `givenFor`), on text only: nothing is executed or written.
 */
export function scanSessions(sessions: StoredSession[], tools: readonly ToolSpec[], database: string, directory: string | null = null, givenFor?: GivenFor): SessionsReport {
  const overall = new Map<string, ModelTally>();
  const report: SessionsReport = {
    database,
    directory,
    sessions: [],
    models: [],
    totals: { sessions: sessions.length, sessionsWithLeaks: 0, messages: 0, messagesWithLeaks: 0, calls: 0, broken: 0, stripped: 0, nearMisses: 0, untouched: 0 },
  };
  for (const session of sessions) {
    const perModel = new Map<string, ModelTally & { leaks: MessageLeak[] }>();
    for (const message of session.messages) {
      const provider = message.info?.providerID ?? "?";
      const model = message.info?.modelID ?? "?";
      const key = `${provider}/${model}`;
      const inScope = inDefaultScope(provider, message.info?.modelID);
      const mine = perModel.get(key) ?? { ...emptyTally(provider, model, inScope), leaks: [] };
      perModel.set(key, mine);
      const total = overall.get(key) ?? emptyTally(provider, model, inScope);
      overall.set(key, total);
      const text = assistantText(message) ?? "";
      // Out of scope, the plugin never reads the reply: no echo guard to build for it either.
      const result = readAsPlugin(text, tools, inScope ? givenFor?.(session, message) : undefined);
      const leaked = result.calls.length > 0 || result.broken.length > 0;
      const nearMisses = countNearMisses(text, result);
      for (const tally of [mine, total]) count(tally, result, leaked, nearMisses);
      report.totals.messages++;
      report.totals.nearMisses += nearMisses;
      if (!leaked) continue;
      report.totals.messagesWithLeaks++;
      if (inScope) {
        report.totals.calls += result.calls.length;
        report.totals.broken += result.broken.length;
        report.totals.stripped += result.stripped.length;
      } else {
        report.totals.untouched += result.calls.length + result.broken.length;
      }
      mine.leaks.push({
        message: message.info?.id ?? "?",
        calls: result.calls.map(({ tool, shape }) => ({ tool, shape })),
        broken: result.broken.map(({ shape, reason }) => ({ shape, reason })),
        stripped: inScope ? result.stripped.map(({ kind }) => ({ kind })) : [],
        ...(nearMisses > 0 ? { nearMisses } : {}),
        ...(inScope ? {} : { outOfScope: true as const }),
      });
    }
    const models = [...perModel.values()].filter((m) => m.leaks.length > 0);
    if (models.length === 0) continue;
    report.totals.sessionsWithLeaks++;
    report.sessions.push({ id: session.id, title: session.title, directory: session.directory, models });
  }
  report.models = [...overall.values()];
  return report;
}

function emptyTally(provider: string, model: string, inScope: boolean): ModelTally {
  return { provider, model, messages: 0, messagesWithLeaks: 0, calls: 0, broken: 0, stripped: 0, nearMisses: 0, inScope, untouched: 0, shapes: { recovered: {}, broken: {} } };
}

function count(tally: ModelTally, result: ParseResult, leaked: boolean, nearMisses: number): void {
  tally.messages++;
  tally.nearMisses += nearMisses;
  if (!leaked) return;
  tally.messagesWithLeaks++;
  // A model the plugin leaves alone: what it leaked is never "would be recovered".
  if (!tally.inScope) {
    tally.untouched += result.calls.length + result.broken.length;
    return;
  }
  tally.calls += result.calls.length;
  tally.broken += result.broken.length;
  tally.stripped += result.stripped.length;
  for (const call of result.calls) tally.shapes.recovered[call.shape] = (tally.shapes.recovered[call.shape] ?? 0) + 1;
  for (const span of result.broken) tally.shapes.broken[span.shape] = (tally.shapes.broken[span.shape] ?? 0) + 1;
}

/** Lines of text output (written through terminal.ts, which makes every character visible). */
export function describeSessions(report: SessionsReport): string[] {
  const lines: string[] = [];
  for (const session of report.sessions) {
    lines.push(`session ${session.id} ${JSON.stringify(session.title)} (${session.directory})`);
    for (const m of session.models) {
      lines.push(`  ${m.provider}/${m.model}: ${m.messagesWithLeaks} of ${m.messages} message(s) leaked; ${tallyText(m)}`);
      for (const leak of m.leaks) {
        const found = [...leak.calls.map((c) => `call ${c.tool} (${c.shape})`), ...leak.broken.map((b) => `broken ${b.shape} (${b.reason})`)];
        const items = [
          // Out of scope the plugin acts on none of it: the markup as the parser would have read it.
          ...(leak.outOfScope ? [`left as written: ${found.join(", ")}`] : found),
          ...(leak.stripped.length > 0 ? [`stripped ${leak.stripped.length}`] : []),
          ...(leak.nearMisses ? [`near misses ${leak.nearMisses}`] : []),
        ];
        lines.push(`    ${leak.message}: ${items.join(", ")}`);
      }
    }
  }
  const t = report.totals;
  const where = `${report.database}${report.directory === null ? "" : ` under ${report.directory}`}`;
  if (t.sessions === 0) return [`no stored sessions with assistant messages in ${where}`];
  if (report.sessions.length > 0) {
    lines.push("per model, all sessions:");
    for (const m of report.models) lines.push(`  ${m.provider}/${m.model}: ${m.messagesWithLeaks} of ${m.messages} message(s) leaked${m.messagesWithLeaks > 0 ? `; ${tallyText(m)}` : ""}`);
  }
  lines.push(
    `scanned ${t.sessions} session(s), ${t.messages} assistant message(s) in ${where}: ` +
      (t.messagesWithLeaks === 0
        ? "no leaked tool-call markup"
        : `${t.messagesWithLeaks} message(s) in ${t.sessionsWithLeaks} session(s) leaked; ${t.calls} call(s) would be recovered, ${t.broken} broken span(s)${t.untouched > 0 ? `; ${t.untouched} left as written on models outside the plugin's default scope` : ""}`),
  );
  const outside = report.models.filter((m) => !m.inScope && m.untouched > 0).map((m) => `${m.provider}/${m.model}`);
  if (outside.length > 0) lines.push(`outside the plugin's default scope (providers ["auto"]: leak-prone model families): ${outside.join(", ")}; the plugin leaves their replies as written, unless the model's provider is added to providers (dsml-fix doctor shows each model's scope)`);
  if (t.nearMisses > 0) lines.push(`${t.nearMisses} near miss(es): tool-call markup left as text (quoted in code, or too partial to be a call); nothing would run`);
  if (t.messagesWithLeaks > 0) lines.push("one message's details: opencode export SESSION_ID > s.json && dsml-fix scan --export s.json");
  return lines;
}

function tallyText(m: ModelTally): string {
  if (!m.inScope) return `outside the plugin's default scope: ${m.untouched} leaked call(s) or broken span(s) left as written${m.nearMisses > 0 ? `, ${m.nearMisses} near miss(es)` : ""}`;
  const shapes = (counts: Record<string, number>) => {
    const entries = Object.entries(counts).sort(([a], [b]) => a.localeCompare(b));
    return entries.length === 0 ? "" : ` [${entries.map(([shape, n]) => (n > 1 ? `${shape} x${n}` : shape)).join(", ")}]`;
  };
  const stripped = m.stripped > 0 ? `, ${m.stripped} stripped` : "";
  const near = m.nearMisses > 0 ? `, ${m.nearMisses} near miss(es)` : "";
  return `${m.calls} call(s) would be recovered${shapes(m.shapes.recovered)}, ${m.broken} broken span(s)${shapes(m.shapes.broken)}${stripped}${near}`;
}
