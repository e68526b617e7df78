import type { Hooks, Plugin, PluginModule } from "@opencode-ai/plugin";
import { REQUEST_TAG_HEADER, type AdapterOptions } from "../adapters/options.ts";
import { createDebugLog } from "./debug.ts";
import { messageLookup, WireFallback } from "./fallback.ts";
import { sanitizeHistory, appendUserTurn } from "./history-hook.ts";
import { createLogger, type Logger } from "./log.ts";
import { optionNotice } from "./option-notice.ts";
import { oneShotRun } from "./one-shot.ts";
import { replyReporter, startOptions } from "./plugin-start.ts";
import { repairModules } from "./repair-modules.ts";
import { RetryController } from "./retry-controller.ts";
import { subAgentCheck } from "./session-kind.ts";
import { type ActingScope, formatRouteLine, RouteMemory, routeInScope, routeMode, type Route } from "./scope.ts";
import { startupReport } from "./startup.ts";
import { chainConfiguredFetches, claim, loadKey, mergeRestrictions, readTag, registerRepair, servingFor, standAsideWarning } from "./wiring.ts";

export const PLUGIN_ID = "opencode-plugin-dsml-fix";

/**
 * The OpenCode 1.18 plugin. 1.18 never routes sessions through the v2 `aisdk.language` hook, so
 * the live repair is the fetch adapter behind `globalThis.fetch` (src/plugin/wiring.ts), acting on
 * requests `chat.headers` tagged; AI SDK apps use `opencode-plugin-dsml-fix/middleware`. A classic
 * module may also carry a V2 `setup` (1.18.33 calls `server()` and ignores it: verified), which is
 * what `exports["./server"]` does (src/plugin/two-hosts.ts); this root export stays without it.
 */
/** The process whose `fetch` the plugin wires into: `globalThis` in OpenCode, a stand-in in tests. */
export type ProcessScope = { fetch: typeof fetch; [key: symbol]: unknown };

export const server = async (input: Parameters<Plugin>[0], rawOptions: Parameters<Plugin>[1], processScope: ProcessScope = globalThis as never): Promise<Hooks> => {
  // OpenCode always hands an input; a host that does not still gets a plugin, never a throw at start.
  const client = input?.client;
  const log = createLogger(client);
  const { options, problems, optionState } = startOptions(rawOptions, log);
  // Listed twice for this directory (1.18 hands every entry of one load the same input): the
  // first serves, this one stands aside and hands over its restrictions (src/plugin/wiring.ts),
  // its `providers` among them: a `[]` entry placed second turns the serving one off.
  const load = loadKey(input);
  const first = servingFor(processScope, load);
  if (first) {
    const { merged, changed } = mergeRestrictions(first.restrictions(), { responseFix: options.responseFix, parse: options.parse, scope: [options.providers] });
    if (changed.length > 0) first.restrict(merged);
    log("warn", standAsideWarning(changed));
    return {};
  }
  if (options.providers.length === 0) {
    // Off stays off: placed first, this entry still claims the load (nothing to narrow), so a later
    // entry stands aside behind it instead of serving. The claim lives as long as this load's input.
    claim(processScope, load, { restrictions: () => ({ responseFix: options.responseFix, parse: options.parse, scope: [[]] }), restrict: () => undefined });
    log("info", startupReport({ options, cfg: undefined, native: nativeRuntime(), ...optionState }).line);
    return {};
  }

  const debug = createDebugLog(options.debug, (line) => log("info", line));
  // `opencode run` exits as soon as the session is idle: a wake would be stored but never answered,
  // and the next `--session` run would replay it as a stray user turn (src/plugin/one-shot.ts).
  const retryOptions = oneShotRun() ? { ...options.retry, enabled: false } : options.retry;
  const retry = new RetryController(retryOptions, async (sessionID, text) => {
    await client!.session.promptAsync({ path: { id: sessionID }, body: { parts: [{ type: "text", text }] } });
  });

  const onResult = replyReporter({ options, debug, log, retry });
  // Every hook decides scope on the whole route chat.headers or system.transform saw for the model.
  const routes = new RouteMemory();
  // Narrowed (never widened) when a later entry of the plugin hands over its `providers`.
  const acting: ActingScope = { providers: options.providers };
  const fallbackDeps: ConstructorParameters<typeof WireFallback>[0] = {
    enabled: options.responseFix.enabled,
    parse: options.parse,
    inScope: (origin) => routeInScope(acting, routes.recall(origin.providerID, origin.modelID || undefined)),
    retry,
    lookup: messageLookup(client),
    ...(options.debug ? { debug: (line: string) => log("info", line) } : {}),
  };
  const fallback = new WireFallback(fallbackDeps);
  let adapter: AdapterOptions = {
    parse: options.parse,
    // The request as OpenCode built it, after messages.transform: a leak only the request's own
    // tools reveal (one naming an MCP tool) is replaced there too.
    history: { sanitize: options.history.sanitize },
    responseFix: options.responseFix,
    onResult,
    onRepairing: (tag) => {
      const { sessionID, messageID } = readTag(tag);
      if (sessionID && messageID) fallback.noteWireRepair(`${sessionID}/${messageID}`);
    },
    ...(options.debug ? { debug: (line: string) => log("info", line) } : {}),
  };

  const repair = registerRepair(adapter, processScope);
  const release = claim(processScope, load, {
    restrictions: () => ({ responseFix: options.responseFix, parse: options.parse, scope: acting.within ?? [options.providers] }),
    // A later entry's narrower restrictions: the fallback reads them from its deps, the repair is
    // built again, and every hook reads the scope from `acting` at each call.
    restrict: ({ responseFix, parse, scope }) => {
      acting.within = scope;
      options.responseFix = responseFix;
      options.parse = parse;
      fallbackDeps.enabled = responseFix.enabled;
      fallbackDeps.parse = parse;
      adapter = { ...adapter, responseFix, parse };
      repair.update(adapter);
    },
  });
  // Set by the host's dispose (1.18 calls it when it disposes the directory's instance, a reload
  // among them): from then on no hook acts, no wake is sent, and the tag is no longer claimed.
  let disposed = false;
  // The repair itself loads in the background: OpenCode's start does not wait for it.
  repairModules().catch((error: unknown) => log("warn", `[dsml] the repair could not be loaded (${error instanceof Error ? error.name : "error"}); replies pass through unrepaired`));
  const seenRoutes = new Set<string>();
  const noticeOptions = optionNotice(client, problems, optionState.failedClosed);
  // A sub-agent's session is never woken (src/plugin/session-kind.ts): GET /session/{id} gives its
  // `parentID` (@opencode-ai/sdk 1.18.33 `Session`).
  const mayWake = subAgentCheck(async (id) => (await client!.session.get({ path: { id } }))?.data);
  const onSessionEvent = guard("idle wake", log, async ({ event }: EventInput) => {
    if (disposed) return;
    noticeOptions(event.type);
    // The user stopped the session: nothing may start it again behind their back.
    if (event.type === "session.error") {
      const { sessionID, error } = event.properties;
      if (sessionID && error?.name === "MessageAbortedError") retry.onAbort(sessionID);
      return;
    }
    if (event.type !== "session.idle") return;
    const woke = await retry.onIdle(event.properties.sessionID, async (id) => (disposed ? "never" : mayWake(id)), () => !disposed);
    if (woke && options.debug) log("info", `[dsml] wake ${event.properties.sessionID}`);
  });
  const hooks: Hooks = {
    config: guard("config", log, async (cfg) => {
      chainConfiguredFetches(cfg, processScope);
      const startup = startupReport({ options, cfg, native: nativeRuntime(), ...optionState });
      log("info", startup.line);
      if (startup.warning) log("warn", startup.warning);
    }),
    "chat.headers": guard("chat.headers", log, async (hookInput, output) => {
      if (disposed) return;
      const route = routeOf(hookInput);
      routes.remember(route);
      const mode = routeMode(acting, route, nativeRuntime());
      const key = `${route.providerID}/${route.modelID}`;
      if (options.debug && !seenRoutes.has(key)) {
        seenRoutes.add(key);
        log("info", formatRouteLine(route, mode));
      }
      // Only the repairing fetch removes the tag: a route it does not rewrite (a signed request, a
      // runtime without it) must never carry it.
      if (mode !== "wire") return;
      output.headers[REQUEST_TAG_HEADER] = repair.tagFor(hookInput.sessionID, hookInput.message?.id ?? "?");
    }),
    "experimental.chat.messages.transform": guard("messages.transform", log, async (_hookInput, output) => {
      if (disposed) return;
      const messages = output.messages;
      const lastUser = [...messages].reverse().find((m) => m.info.role === "user");
      const model = lastUser?.info.role === "user" ? lastUser.info.model : undefined;
      if (!lastUser) {
        // A compaction's head can hold assistant messages alone (an earlier compaction's kept tail
        // began inside a turn): still the announced summary, whose flag must go with it, or the
        // session's next real request would be taken for the summary and lose its correction.
        const sessionID = messages.find((m) => typeof m.info.sessionID === "string")?.info.sessionID;
        if (sessionID) retry.buildsCompaction(sessionID);
        return;
      }
      const sessionID = lastUser.info.sessionID;
      const turn = { id: lastUser.info.id, text: userText(lastUser.parts) };
      // OpenCode's compaction summary: its history is sanitized like any, but it answers no reply of
      // the model, so it neither takes nor passes over the correction (RetryController.onCompacting).
      const compaction = retry.buildsCompaction(sessionID);
      if (model?.providerID !== undefined && !routeInScope(acting, routes.recall(model.providerID, model.modelID))) {
        // Left alone, but a pending correction was for this request (the one right after the leak):
        // it is due for no later one, whose "last reply" would be this clean-or-unseen one.
        if (!compaction) retry.passOver(sessionID, turn);
        return;
      }
      // Taken first: a sanitizer failure must not leave the correction for a later message.
      const correction = compaction ? null : retry.takeCorrectionFor(sessionID, turn, turnsIn(messages));
      const sanitized = options.history.sanitize ? await sanitizeHistory(messages, options.parse) : { messages: 0, parts: 0 };
      if (correction?.userText) appendUserTurn(messages, lastUser, correction.userText);
      debug.request({ sessionID, messageID: lastUser.info.id, sanitizedMessages: sanitized.messages, sanitizedParts: sanitized.parts, nudge: correction?.reason ?? null });
    }),
    // 1.18 announces a compaction with this hook, then builds the summary request at once.
    "experimental.session.compacting": guard("session.compacting", log, async (hookInput) => {
      if (!disposed && typeof hookInput?.sessionID === "string") retry.onCompacting(hookInput.sessionID);
    }),
    "experimental.chat.system.transform": guard("system.transform", log, async (hookInput, output) => {
      // Read again for a host retry of the same request; another model's request (an out-of-scope
      // small model) never carries it.
      if (disposed) return;
      const model = hookInput.model as { id?: string; providerID?: string; family?: string; api?: { id?: string; npm?: string } } | undefined;
      if (model?.providerID !== undefined) {
        // The whole model (1.18's `Model`): remembered for messages.transform, which sees only its ids.
        const route: Route = { providerID: model.providerID, modelID: model.id || undefined, apiID: model.api?.id, family: model.family, npm: model.api?.npm };
        routes.remember(route);
        if (!routeInScope(acting, routes.recall(model.providerID, route.modelID))) return;
      }
      const text = retry.takeSystemText(hookInput.sessionID);
      if (text) output.system.push(text);
    }),
    "experimental.text.complete": guard("text.complete", log, async (hookInput, output) => {
      if (!disposed) await fallback.onTextComplete(hookInput, output);
    }),
    // Not wrapped in `guard` (an async call per streamed token), so its one synchronous read is
    // guarded here: an event that cannot be read is one line, never a throw into OpenCode.
    event: (input) => {
      let session: boolean;
      try {
        // Noted at once, in the host's event order: a user message created while onIdle awaits
        // its lookup must be seen before the wake is taken.
        if (!disposed) noteUserMessage(input, retry);
        session = isSessionEvent(input);
      } catch (error) {
        log("warn", `[dsml] event failed (${error instanceof Error ? error.name : "error"}); left unchanged`);
        return SETTLED;
      }
      return session ? onSessionEvent(input) : SETTLED;
    },
    dispose: async () => {
      disposed = true;
      repair.release();
      release();
    },
  };
  return hooks;
};

type EventInput = Parameters<NonNullable<Hooks["event"]>>[0];

/** The hook's answer to every event it ignores: one settled promise, not one per event. */
const SETTLED: Promise<void> = Promise.resolve();

/**
 * OpenCode hands the event hook every bus event, a `message.part.delta` per streamed token among
 * them (tens of thousands in a long reply); only session events matter here (the option notice, the
 * idle wake), so every other one is turned away before any async work is set up.
 */
function isSessionEvent(input: EventInput | undefined): boolean {
  const type: unknown = input?.event?.type;
  return typeof type === "string" && type.startsWith("session.");
}

/**
 * OpenCode 1.18 creates a user message with `message.updated` (its `info`, role "user", no text),
 * then one `message.part.updated` per part (@opencode-ai/sdk 1.18.33 `EventMessageUpdated`,
 * `EventMessagePartUpdated`). Handed to the retry synchronously, so they are ordered with
 * `session.idle`; the text part of an assistant message (the frequent one) costs one map read.
 * Anything of another shape is ignored.
 */
function noteUserMessage(input: EventInput | undefined, retry: RetryController): void {
  const event = input?.event as { type?: unknown; properties?: unknown } | undefined;
  const properties = event?.properties as { info?: unknown; part?: unknown } | null | undefined;
  if (typeof properties !== "object" || properties === null) return;
  if (event!.type === "message.updated") {
    const info = properties.info as { role?: unknown; id?: unknown; sessionID?: unknown } | null | undefined;
    if (info?.role === "user" && typeof info.id === "string" && typeof info.sessionID === "string") retry.onUserMessage(info.sessionID, info.id);
  } else if (event!.type === "message.part.updated") {
    const part = properties.part as { type?: unknown; synthetic?: unknown; id?: unknown; messageID?: unknown; sessionID?: unknown; text?: unknown } | null | undefined;
    if (part?.type !== "text" || part.synthetic === true) return;
    if (typeof part.sessionID === "string" && typeof part.messageID === "string" && typeof part.id === "string" && typeof part.text === "string") {
      retry.onUserText(part.sessionID, part.messageID, part.id, part.text);
    }
  }
}

/** A hook that fails must leave OpenCode's request as it was: one log line, never an exception into the host. */
function guard<A extends unknown[]>(name: string, log: Logger, hook: (...args: A) => Promise<void>): (...args: A) => Promise<void> {
  return async (...args) => {
    try {
      await hook(...args);
    } catch (error) {
      log("warn", `[dsml] ${name} failed (${error instanceof Error ? error.name : "error"}); left unchanged`);
    }
  };
}

const plugin: PluginModule & { id: string } = { id: PLUGIN_ID, server };
export default plugin;

/**
 * Whether a turn (a user message id) is still in the request's history: its user message, or a
 * reply that answers it (`parentID`), when a compaction kept the reply without its question.
 */
function turnsIn(messages: readonly { info: { role: string; id: string; parentID?: string } }[]): (turn: string) => boolean {
  return (turn) => messages.some((m) => m.info.id === turn || (m.info.role === "assistant" && m.info.parentID === turn));
}

/** The text a user message carries, as our wake wrote it (text parts, joined). */
function userText(parts: readonly { type: string; text?: string; synthetic?: boolean }[]): string {
  return parts
    .filter((part) => part.type === "text" && !part.synthetic && typeof part.text === "string")
    .map((part) => part.text)
    .join("");
}

/** The route a `chat.headers` call is for (OpenCode 1.18 passes the provider as `provider.id`). */
function routeOf(hookInput: { model?: { id?: string; providerID?: string; family?: string; api?: { id?: string; npm?: string } }; provider?: { id?: string; info?: { id?: string } } }): Route {
  const model = hookInput.model;
  const providerID = hookInput.provider?.id ?? hookInput.provider?.info?.id ?? model?.providerID ?? "";
  return { providerID, modelID: model?.id, apiID: model?.api?.id, family: model?.family, npm: model?.api?.npm };
}

/** OpenCode's experimental native runtime calls providers without the configured fetch. */
export function nativeRuntime(env: NodeJS.ProcessEnv = process.env): boolean {
  const flag = env.OPENCODE_EXPERIMENTAL_NATIVE_LLM;
  return flag !== undefined && flag !== "" && flag !== "0" && flag.toLowerCase() !== "false";
}
