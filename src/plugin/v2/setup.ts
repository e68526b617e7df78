// The OpenCode 2 entry: `setup(ctx)` registers hooks only (no fetch wrapping, no timers), on the
// same engine, options resolver, sanitizer and retry ledger as the 1.18 plugin. Hooks and calls
// used (file and commit of each shape in host-types.ts):
//   live repair  session.hook("http.request" / "http.response")  packages/plugin/src/promise/session.ts @ 03545fd3
//                (fired by packages/core/src/session/model-http.ts @ 962bbe57)
//                aisdk.hook("language"), AI SDK route only        packages/plugin/src/promise/aisdk.ts @ baf3a659
//                (one repair per call: the middleware steps aside for a response the HTTP hooks marked)
//   history      session.hook("context"): `messages`              session.ts @ 03545fd3
//   correction   session.hook("context"): `system` or `messages`  session.ts @ 03545fd3
//   idle wake    session.wait + session.prompt({ delivery: "queue" }); session.get's `parentID`
//                keeps a sub-agent's session from being woken
//                packages/client/src/promise/generated/client.ts @ 01b31469 (SessionDomain picks them)
//   abort        event.subscribe(): `session.execution.interrupted` with reason "user" drops the
//                pending leak (1.18's session.error MessageAbortedError); a wake for an execution
//                seen starting also waits for its terminal event, so the abort is applied first
//                packages/plugin/src/promise/event.ts @ 31ee1d62, packages/schema/src/session-event.ts @ 03130971
//   options      ctx.options (packages/core/src/plugin/module.ts @ 07db2b92 passes the entry's options)
//   scope        ctx.model.providerID and the hooks' providerID filter (packages/core/src/plugin/hooks.ts @ 0f2daeba)
// Not mapped, because 2.x has no equivalent (packages/plugin/src/promise/plugin.ts @ 0ef9ef4b):
//   logging      the Context has no logging domain, so lines go to stderr, in V1's words;
//   text fallback  no hook sees a finished text part (V1's `experimental.text.complete`), so a
//                reply on a wire the HTTP hooks cannot rewrite keeps its markup; the next request
//                still replays it sanitized (history).
import { repairMiddleware } from "../../adapters/middleware.ts";
import type { AdapterOptions } from "../../adapters/options.ts";
import { createDebugLog } from "../debug.ts";
import { createLogger, type Logger } from "../log.ts";
import type { PluginOptions } from "../../options/spec.ts";
import { oneShotRun } from "../one-shot.ts";
import { replyReporter, startOptions } from "../plugin-start.ts";
import { RetryController } from "../retry-controller.ts";
import { subAgentCheck } from "../session-kind.ts";
import { claim, loadKey, mergeRestrictions, readTag, servingFor, standAsideWarning } from "../wiring.ts";
import { type ActingScope, AUTO_SCOPE, EVERY_PROVIDER, RouteMemory, routeInScope } from "../scope.ts";
import { startupReport } from "../startup.ts";
import { addCorrection, historyTools, lastUserTurn, sanitizeContext, turnsIn } from "./context-hook.ts";
import { type Settled, watchExecutions } from "./executions.ts";
import type { V2Cleanup, V2Context, V2LanguageEvent, V2ModelRef, V2Registration, V2SessionHttpRequest } from "./host-types.ts";
import { HttpRepair } from "./http-repair.ts";
import { wrapWithMiddleware } from "./language.ts";

/** What a 2.x host cannot give this plugin, named in the start-up line and the README. */
const V2_UNMAPPED =
  "native wires other than chat-completions, Messages and Responses pass through unrepaired; no text fallback (no finished-text hook)";

/** Sessions whose last primary turn is kept (for the reply's tag): the least recently used beyond go. */
const TURNS_KEPT = 1024;

export async function setup(ctx: V2Context, log: Logger = createLogger(undefined), processScope: { [key: symbol]: unknown } = globalThis as never): Promise<V2Cleanup | void> {
  const { options, optionState } = startOptions(ctx.options, log);
  // setup() sees no provider config; every provider a 2.x host serves natively reaches the HTTP
  // hooks, so each named provider counts as wired (`unlisted`: one not in lower case says it acts
  // only on a provider of exactly that id). An entry that cannot name a provider (a model
  // reference, "deepseek/deepseek-chat") was dropped by the options' reading, with its line.
  const named = options.providers.filter((id) => id !== AUTO_SCOPE && id !== EVERY_PROVIDER);
  const cfg = { provider: Object.fromEntries(named.map((id) => [id, {}])) } as never;
  const head = startupReport({ options, cfg, native: false, unlisted: true, ...optionState });
  // Listed twice on this host (each entry's context spreads the same host, `app` included): the
  // first serves, this one stands aside and hands over its restrictions (src/plugin/wiring.ts),
  // its `providers` among them: a `[]` entry placed second turns the serving one off.
  const load = loadKey(ctx.app);
  const first = servingFor(processScope, load);
  if (first) {
    const { merged, changed } = mergeRestrictions(first.restrictions(), { responseFix: options.responseFix, parse: options.parse, scope: [options.providers] });
    if (changed.length > 0) first.restrict(merged);
    log("warn", standAsideWarning(changed));
    return;
  }
  if (options.providers.length === 0) {
    // Off stays off: placed first, this entry still claims the host (nothing to narrow), so a
    // later entry stands aside behind it; its cleanup gives the host back (a setup again may serve).
    const released = claim(processScope, load, { restrictions: () => ({ responseFix: options.responseFix, parse: options.parse, scope: [[]] }), restrict: () => undefined });
    log("info", `${head.line} (OpenCode 2)`);
    return async () => released();
  }
  // session.get tells a sub-agent's session (it has a parentID), which is never woken.
  const canWake = typeof ctx.session.prompt === "function" && typeof ctx.session.wait === "function" && typeof ctx.session.get === "function";
  const subscribe = typeof ctx.event?.subscribe === "function" ? ctx.event.subscribe.bind(ctx.event) : undefined;
  // An abort matters only to a correction or a wake still to come, which only a repaired reply records.
  const abortsMatter = (options.retry.enabled || options.retry.nudge) && options.responseFix.enabled;
  const wakeNote = !canWake ? "; idle wake unavailable: no session.prompt/wait/get" : subscribe || !abortsMatter ? "" : "; aborts unseen: no event.subscribe";
  log("info", `${head.line} (OpenCode 2: session http hooks${wakeNote}; ${V2_UNMAPPED})`);

  const debug = createDebugLog(options.debug, (line) => log("info", line));
  // No wake in a process started as a one-shot `opencode run`, as in the 1.18 entry
  // (src/plugin/one-shot.ts). On OpenCode 2 that process never runs plugins: `run` is a client
  // (packages/cli/src/commands/handlers/run.ts @ 0b037954 resolves a server connection;
  // packages/cli/src/run/noninteractive.ts @ 01013888 prompts, waits and exits) of the background
  // service, started as `opencode serve --service` (packages/client/src/effect/service.ts
  // @ 018554f7), or with --standalone of a child `serve --stdio --port 0`
  // (packages/cli/src/services/standalone.ts @ 665f6439). Plugins run in that server, whose argv has
  // no `run`: under a 2.x `opencode run` the wake is queued like anywhere else, and the background
  // service answers it after the client has exited. The check stays for a host that runs setup()
  // in the `run` process itself.
  const wakes = canWake && options.retry.enabled && !oneShotRun();
  const retry = new RetryController(wakes ? options.retry : { ...options.retry, enabled: false }, async (sessionID, text) => {
    await ctx.session.prompt!({ sessionID, text, delivery: "queue" });
  });
  const turns = new Map<string, string>();
  // Terminal events read per session, against its latest primary request (diff review 55a).
  const ends = new EndsSinceRequest();
  // Sessions whose wake is being decided, each with the LAST execution that left a reply owing one.
  const arms = new Map<string, WakeArm>();
  // Set by cleanup: a wait still pending, or a callback the host fires after the dispose, does nothing.
  let disposed = false;
  // The context and HTTP hooks see only { providerID, id }: scope is decided on the whole route the
  // language hook saw for that model (upstream id, family), as there (src/plugin/scope.ts RouteMemory).
  const routes = new RouteMemory();
  // Narrowed (never widened) when a later entry of the plugin hands over its `providers`.
  const acting: ActingScope = { providers: options.providers };
  const inScope = (model: V2ModelRef | undefined) => model !== undefined && routeInScope(acting, routes.recall(model.providerID, model.id));

  // The user's stop drops the pending leak (correction and wake), as 1.18's session.error does.
  const executions = watchExecutions(abortsMatter ? subscribe : undefined, {
    onAbort: (sessionID) => {
      if (disposed) return;
      ends.stopped(sessionID);
      retry.onAbort(sessionID);
      if (options.debug) log("info", `[dsml] abort ${sessionID}`);
    },
    // An execution that starts once the awaited one ended is the user's (a queued message, a new
    // prompt): ours is sent only after the last check, so nothing of the plugin's starts here.
    onStarted: (sessionID) => {
      const arm = arms.get(sessionID);
      if (arm?.ended) arm.newer = true;
    },
    onEnded: (sessionID) => {
      ends.ended(sessionID);
      const arm = arms.get(sessionID);
      if (arm) arm.ended = true;
    },
    onLost: (error) => log("warn", `event stream ${error === undefined ? "ended" : `failed (${error instanceof Error ? error.name : "error"})`}; aborts are no longer seen`),
  });

  const mayWake = subAgentCheck(async (sessionID) => ctx.session.get!({ sessionID }));
  // The wake is decided against the LAST execution of the session whose reply owes one. Orders
  // handled (the event stream and `wait` are two channels: an end may be read before or after
  // `wait` resolves):
  //   leak, end, wait            one wake; none when that end is the user's stop ("interrupted")
  //   leak, end, start, wait     no wake: the run that started after the leaking one ended is the
  //   leak, end, wait, start     user's (a queued message); seen before `wait` resolved, after it,
  //                              or during the session.get lookup (`live` is read after it)
  //   leak, end, start, leak', end', wait
  //                              re-armed at leak': decided on end' alone (and a `wait` still
  //                              pending at leak', or one asked then): one wake for the latest
  //                              reply, none if end' is the user's stop
  //   leak, start (late), end    a start read before the leaking run's end is its own: no cancel
  //   another session's start    cancels nothing: arms are per session
  //   no event stream            `wait` alone decides (settled "unknown"; nothing starts or ends)
  const decide = async (sessionID: string, arm: WakeArm): Promise<boolean> => {
    // `wait` and the awaited run's terminal event (asked while it ran): an abort is applied first.
    // An execution interrupted for another reason (a shutdown) is not woken either.
    const [, how] = await Promise.all([arm.idle, arm.settled]);
    // Re-armed by a later run's reply while this one was awaited: the caller decides on that run.
    if (disposed || arms.get(sessionID) !== arm) return false;
    // Idle: the awaited run has ended, whether or not its terminal event was seen.
    arm.ended = true;
    if (how === "interrupted" || arm.newer) return false;
    const current = () => !disposed && arms.get(sessionID) === arm && !arm.newer;
    return retry.onIdle(sessionID, async (id) => (disposed ? "never" : mayWake(id)), current);
  };
  // One `wait` per session at a time: asked while an execution runs, it resolves once the session
  // is idle after it, so a later reply of the session while it is pending shares it.
  const waits = new Map<string, Promise<void>>();
  const idleAfter = (sessionID: string): Promise<void> => {
    const pending = waits.get(sessionID);
    if (pending) return pending;
    // A host call that throws at once rejects here instead, inside the decision that catches it.
    const wait: Promise<void> = new Promise<void>((resolve) => resolve(ctx.session.wait!({ sessionID }))).finally(() => {
      if (waits.get(sessionID) === wait) waits.delete(sessionID);
    });
    waits.set(sessionID, wait);
    // A wait whose arm is never decided (a dispose) must not reject unhandled: decide catches the rest.
    wait.catch(() => undefined);
    return wait;
  };
  const wakeWhenIdle = (sessionID: string) => {
    if (!wakes || disposed) return;
    // The run that gave this reply was stopped by the user, the stop read before the reply: no wake
    // (and the leak the ledger just took is dropped: the stop came first, onReply after).
    const since = ends.sinceRequest(sessionID);
    if (since.stopped) return;
    const deciding = arms.has(sessionID);
    // Both asked now, while the execution that gave this reply runs: its terminal event is the next
    // one ("unknown" at once when its start was not seen: `wait` alone decides, as without events).
    // Its end may already have been read (the event stream and the response are two channels): the
    // arm then starts as ended, so a start read next is the user's (diff review 55a).
    arms.set(sessionID, { settled: executions.settled(sessionID), idle: idleAfter(sessionID), ended: since.ended, newer: false });
    if (deciding) return;
    void (async () => {
      let arm = arms.get(sessionID);
      while (arm && !disposed) {
        try {
          if ((await decide(sessionID, arm)) && options.debug) log("info", `[dsml] wake ${sessionID}`);
        } catch {
          log("warn", "idle wake failed (error); left unchanged");
        }
        if (arms.get(sessionID) === arm) arms.delete(sessionID);
        arm = arms.get(sessionID);
      }
    })();
  };
  const report = replyReporter({ options, debug, log, retry, onUnrecovered: wakeWhenIdle });
  let adapter: AdapterOptions = {
    parse: options.parse,
    // HttpRepair sees a request only once it has gone: history is the context hook's.
    history: { sanitize: false },
    responseFix: options.responseFix,
    onResult: (result) => {
      report(result);
      // A reply read after the user's stop of the run it belongs to owes nothing: the stop dropped
      // the session's pending leak before this one was recorded, so it is dropped now (no
      // correction rides on the user's next message, as when the stop is read after the reply).
      const { sessionID } = readTag(result.requestTag);
      if (sessionID && !disposed && ends.sinceRequest(sessionID).stopped) retry.onAbort(sessionID);
    },
    ...(options.debug ? { debug: (line: string) => log("info", line) } : {}),
  };
  const httpDeps = {
    inScope: (event: V2SessionHttpRequest) => inScope(event.model),
    tagFor: (event: V2SessionHttpRequest) => `v2 ${event.sessionID}/${turns.get(event.sessionID) ?? "?"}`,
  };
  let http = new HttpRepair(adapter, httpDeps);
  // The context hook sanitized history with the request's tools already.
  let middleware = repairMiddleware(adapter);
  const release = claim(processScope, load, {
    restrictions: () => ({ responseFix: options.responseFix, parse: options.parse, scope: acting.within ?? [options.providers] }),
    // A later entry's narrower restrictions: the repairs read their options once, so both are built
    // again; a model the language hook already wrapped reads `middleware` and the scope at each call.
    restrict: ({ responseFix, parse, scope }) => {
      acting.within = scope;
      options.responseFix = responseFix;
      options.parse = parse;
      adapter = { ...adapter, responseFix, parse };
      http = new HttpRepair(adapter, httpDeps);
      middleware = repairMiddleware(adapter);
    },
  });

  const registrations: V2Registration[] = [];
  const cleanup: V2Cleanup = async () => {
    disposed = true;
    release();
    turns.clear();
    ends.clear();
    arms.clear();
    waits.clear();
    executions.stop();
    for (const registration of registrations.splice(0)) {
      // A dispose that throws (at once or later) costs only its own hook: the rest are still disposed.
      try {
        await registration.dispose();
      } catch {}
    }
  };
  const register = async () => {
    registrations.push(await ctx.session.hook("context", guard("context", log, (event) => {
      if (disposed) return;
      const turn = lastUserTurn(event.messages);
      // The host's own requests (a title, a compaction summary) answer no reply of the model: they
      // never take, nor pass over, the correction the session's next primary request is due.
      const primary = primaryRequest(event);
      if (primary) ends.noteRequest(event.sessionID);
      if (!inScope(event.model)) {
        if (primary && turn) retry.passOver(event.sessionID, turn);
        return;
      }
      if (primary && turn) {
        turns.delete(event.sessionID);
        turns.set(event.sessionID, turn.id);
        if (turns.size > TURNS_KEPT) turns.delete(turns.keys().next().value!);
      }
      const correction = primary && turn ? retry.takeCorrectionFor(event.sessionID, turn, turnsIn(event.messages)) : null;
      const sanitized = options.history.sanitize ? sanitizeContext(event.messages, options.parse, historyTools(event.tools)) : { messages: 0, parts: 0 };
      if (correction?.userText) addCorrection(event.messages, correction.userText);
      const systemText = primary ? retry.takeSystemText(event.sessionID) : null;
      if (systemText) event.system.push({ type: "text", text: systemText });
      debug.request({ sessionID: event.sessionID, messageID: turn?.id ?? null, sanitizedMessages: sanitized.messages, sanitizedParts: sanitized.parts, nudge: correction?.reason ?? null });
    })));
    if (!options.responseFix.enabled) return;
    for (const providerID of hookScopes(options)) {
      const scope = providerID === undefined ? undefined : { providerID };
      registrations.push(await ctx.session.hook("http.request", guard("http.request", log, async (event) => void (disposed || (await http.onRequest(event)))), scope));
      registrations.push(await ctx.session.hook("http.response", guard("http.response", log, async (event) => void (disposed || (await http.onResponse(event)))), scope));
    }
    registrations.push(await ctx.aisdk.hook("language", guard("aisdk.language", log, (event: V2LanguageEvent) => {
      if (disposed) return;
      const model = event.model;
      const route = { providerID: model.providerID, modelID: model.id, apiID: model.modelID, family: model.family, npm: model.package };
      routes.remember(route);
      const language = event.language;
      // Only an AI SDK v3 model is wrapped; a v4 one (the effect form allows it) is left to the HTTP hooks.
      if (!language || language.specificationVersion !== "v3" || !routeInScope(acting, route)) return;
      // Read at each call: the host keeps this model, and a later entry may narrow the options
      // (a deny list, the scope) after it was wrapped; a narrowed-out route then passes through.
      event.language = wrapWithMiddleware(language as Parameters<typeof wrapWithMiddleware>[0], () => (routeInScope(acting, route) ? middleware : undefined));
    })));
  };
  try {
    await register();
  } catch (error) {
    // A host that refuses a hook fails the setup, and a failed setup leaves nothing of the plugin
    // live: the event stream stops and every hook the host had already accepted (context,
    // http.request/http.response) is disposed, so the host is never left half-wired.
    await cleanup();
    throw error;
  }
  return cleanup;
}

/** The execution whose reply a pending wake answers: how it ends, whether it has, and whether one started after. */
interface WakeArm {
  readonly settled: Promise<Settled>;
  /** The session's `session.wait` pending when it was armed, or asked then. */
  readonly idle: Promise<void>;
  /** Its terminal event was read, or `wait` resolved after it. */
  ended: boolean;
  /** An execution of the session started after it ended: the user's, which no wake may follow. */
  newer: boolean;
}

/**
 * Diff review 55a: the terminal events read per session, and how many had been read when its latest
 * primary request was built (its context). No execution ends before its own requests are built, so
 * an end read since is the end of the run that request belongs to, read before that request's
 * reply was (the event stream and the response are two channels; a reply's result fires as the
 * client reads it). An end read before the request (an earlier run's) does not count. The least
 * recently used sessions beyond TURNS_KEPT are forgotten (then nothing counts as read since).
 */
class EndsSinceRequest {
  readonly #sessions = new Map<string, { ends: number; stops: number; atRequest?: { ends: number; stops: number } }>();

  #entry(sessionID: string) {
    let entry = this.#sessions.get(sessionID);
    if (entry) this.#sessions.delete(sessionID);
    else entry = { ends: 0, stops: 0 };
    this.#sessions.set(sessionID, entry);
    if (this.#sessions.size > TURNS_KEPT) this.#sessions.delete(this.#sessions.keys().next().value!);
    return entry;
  }

  /** An execution of the session ended (any terminal event). */
  ended(sessionID: string): void {
    this.#entry(sessionID).ends++;
  }

  /** The user stopped the session's execution (read before its end is counted). */
  stopped(sessionID: string): void {
    this.#entry(sessionID).stops++;
  }

  /** The session's next primary request is being built. */
  noteRequest(sessionID: string): void {
    const entry = this.#entry(sessionID);
    entry.atRequest = { ends: entry.ends, stops: entry.stops };
  }

  /** Whether an end, and a user's stop, were read since the session's latest primary request. */
  sinceRequest(sessionID: string): { ended: boolean; stopped: boolean } {
    const entry = this.#sessions.get(sessionID);
    if (!entry?.atRequest) return { ended: false, stopped: false };
    return { ended: entry.ends > entry.atRequest.ends, stopped: entry.stops > entry.atRequest.stops };
  }

  clear(): void {
    this.#sessions.clear();
  }
}

/**
 * Whether a context is for the session's own model request: `kind` "primary", or no kind (hosts
 * after ee2e318e dropped it) and none of the host's hidden agents that write titles and summaries.
 */
function primaryRequest(event: { kind?: unknown; agent?: unknown }): boolean {
  if (event.kind !== undefined) return event.kind === "primary";
  return !(typeof event.agent === "string" && HOST_AGENTS.has(event.agent));
}

/** OpenCode's hidden agents for its own requests (packages/opencode/src/agent/agent.ts). */
const HOST_AGENTS: ReadonlySet<string> = new Set(["title", "summary", "compaction"]);

/** One registration per named provider (the host's own `providerID` filter), or one for every provider. */
function hookScopes(options: PluginOptions): (string | undefined)[] {
  const providers = options.providers;
  if (providers.includes(EVERY_PROVIDER) || providers.includes(AUTO_SCOPE)) return [undefined];
  return [...new Set(providers)];
}

/** A hook that fails leaves the host's request and response as they were: one log line, never a throw. */
function guard<E>(name: string, log: Logger, hook: (event: E) => Promise<void> | void): (event: E) => Promise<void> {
  return async (event) => {
    try {
      await hook(event);
    } catch (error) {
      log("warn", `${name} failed (${error instanceof Error ? error.name : "error"}); left unchanged`);
    }
  };
}
