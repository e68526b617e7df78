/**
 * A stand-in for OpenCode 2 (no 2.x binary can be installed here), mirroring what anomalyco/opencode
 * does (files and commits in src/plugin/v2/host-types.ts):
 * - loads a package as packages/core/src/plugin/module.ts @ 07db2b92 does: subpaths ["server", ""],
 *   then a default export `{ id, setup }` or `{ id, effect }`, with the entry's options as ctx.options;
 * - calls `setup()` with a context of the 2.x shape: no logging domain, `session.prompt` resolving
 *   to the admitted inbox entry, `session.wait` resolving (void) once the session is idle,
 *   `session.get` resolving to the session's info (a `parentID` for a sub-agent's session);
 * - runs the session hooks in 2.x order for one request: context -> http.request -> (network) ->
 *   http.response, skipping a hook whose providerID differs from the event's (core hooks.ts @ 0f2daeba);
 *   each callback gets `(event, { signal })`;
 * - on the native route (core session/model-http.ts @ 962bbe57) sends a copy of the request's
 *   body, so http.response sees the Request http.request ended with, unread; on the AI SDK route
 *   (PR #50487) sends that Request itself, so http.response sees it read;
 * - a callback that throws fails the request, as the promise adapter's `Effect.promise` does
 *   (core plugin/promise.ts @ 0a80062d): the plugin's hooks must never throw;
 * - `event.subscribe()` is an async iterable of the events the test publishes, in the envelope the
 *   promise adapter hands a plugin (`wire`d: `id`, `type`, `created` in ms, `durable`, `data`); an
 *   execution starts with `session.execution.started` and ends with one of `succeeded`, `failed`
 *   (`data.error`), `interrupted` (`data.reason`) (schema session-event.ts @ 03130971, core
 *   session/execution.ts @ 074027a4). The real host publishes the terminal event before `wait`
 *   resolves, but delivers it to the plugin on its own channel, so a test may deliver it after.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import type {
  V2Context,
  V2PromptInput,
  V2LanguageEvent,
  V2Message,
  V2ModelRef,
  V2SessionContext,
  V2SessionHooks,
  V2SystemPart,
} from "../../src/plugin/v2/host-types.ts";

type Callback = (input: any, context?: { signal: AbortSignal }) => Promise<void> | void;

export interface LoadedPlugin {
  /** Which subpath the loader took ("server" or the root ""). */
  subpath: string;
  definition: { id: string; setup?: (ctx: V2Context) => unknown; effect?: unknown; [key: string]: unknown };
}

/** The package's entry for `<name>/<subpath>`, as an `exports` map resolves it for `import`. */
export function resolveSubpath(packageDir: string, subpath: string): string | undefined {
  const manifest = JSON.parse(readFileSync(path.join(packageDir, "package.json"), "utf8")) as { exports?: Record<string, unknown>; main?: string };
  const key = subpath === "" ? "." : `./${subpath}`;
  const entry = manifest.exports ? manifest.exports[key] : subpath === "" ? manifest.main : undefined;
  const target = typeof entry === "string" ? entry : (entry as { import?: string; default?: string } | undefined)?.import ?? (entry as { default?: string } | undefined)?.default;
  return target ? path.join(packageDir, target) : undefined;
}

export async function loadLikeV2(packageDir: string): Promise<LoadedPlugin> {
  for (const subpath of ["server", ""]) {
    const file = resolveSubpath(packageDir, subpath);
    if (!file) continue;
    const mod = (await import(pathToFileURL(file).href)) as { default?: LoadedPlugin["definition"] };
    const value = mod.default;
    if (!value || typeof value.id !== "string" || (typeof value.setup !== "function" && typeof value.effect !== "function")) {
      throw new Error("Plugin must export a default definition with an id and an effect or setup function.");
    }
    return { subpath, definition: value };
  }
  throw new Error(`Plugin entrypoint not found: ${packageDir}`);
}

interface Registered {
  callback: Callback;
  providerID?: string;
}

/** How an execution ends (schema session-event.ts @ 03130971). */
export type ExecutionEnd =
  | { type: "succeeded" }
  | { type: "failed"; error?: { type: string; message: string; status?: number } }
  | { type: "interrupted"; reason: "user" | "shutdown" | "superseded" };

/** One subscriber's queue: events in publish order; `return()` ends it (the plugin's cleanup). */
class Subscription implements AsyncIterator<unknown> {
  private queue: unknown[] = [];
  private pending: ((result: IteratorResult<unknown>) => void) | undefined;
  private failure: unknown;
  closed = false;

  constructor(private readonly onClose: (self: Subscription) => void) {}

  push(event: unknown): void {
    if (this.closed) return;
    if (this.pending) {
      const resolve = this.pending;
      this.pending = undefined;
      resolve({ done: false, value: event });
    } else this.queue.push(event);
  }

  /** The stream breaks: the pending `next()` rejects. */
  fail(error: unknown): void {
    this.failure = error;
    this.closed = true;
    this.onClose(this);
    const resolve = this.pending;
    this.pending = undefined;
    if (resolve) resolve(Promise.reject(error) as never);
  }

  next(): Promise<IteratorResult<unknown>> {
    if (this.queue.length > 0) return Promise.resolve({ done: false, value: this.queue.shift() });
    if (this.failure !== undefined) return Promise.reject(this.failure);
    if (this.closed) return Promise.resolve({ done: true, value: undefined });
    return new Promise((resolve) => (this.pending = resolve));
  }

  async return(): Promise<IteratorResult<unknown>> {
    this.closed = true;
    this.onClose(this);
    this.pending?.({ done: true, value: undefined });
    this.pending = undefined;
    return { done: true, value: undefined };
  }
}

export class StandInHost {
  readonly session = new Map<string, Registered[]>();
  readonly aisdk = new Map<string, Registered[]>();
  /** Prompts the plugin queued (`session.prompt`). */
  readonly prompts: V2PromptInput[] = [];
  /** Sub-agent sessions (the `task` tool's): session -> its parent. */
  readonly parents = new Map<string, string>();
  /** Sessions the plugin read with `session.get`. */
  readonly sessionReads: string[] = [];
  /** Hook failures the host caught (a plugin hook must never get here). */
  readonly hookErrors: unknown[] = [];
  private idle = new Map<string, () => void>();
  private idleWaits = new Map<string, Promise<void>>();
  /** Live `event.subscribe()` iterators. */
  readonly subscriptions = new Set<Subscription>();
  private seq = 0;

  /**
   * The host's `app`, one object for every plugin it sets up: OpenCode 2 spreads one host into each
   * plugin's context (`{ ...host, options }`, packages/core/src/plugin/module.ts @ 07db2b92;
   * `app: host.app` in packages/core/src/plugin/promise.ts), which is how a plugin listed twice
   * knows it already runs on this host.
   */
  readonly app = { name: "opencode", version: "2.0.0-stand-in", channel: "latest" };

  context(options: unknown): V2Context {
    const register = (table: Map<string, Registered[]>) => async (name: string, callback: Callback, scope?: { providerID?: string }) => {
      const list = table.get(name) ?? [];
      list.push({ callback, ...(scope?.providerID ? { providerID: scope.providerID } : {}) });
      table.set(name, list);
      return { dispose: async () => void list.splice(list.findIndex((r) => r.callback === callback), 1) };
    };
    return {
      app: this.app,
      options,
      aisdk: { hook: register(this.aisdk) as V2Context["aisdk"]["hook"] },
      event: {
        subscribe: () => ({
          [Symbol.asyncIterator]: () => {
            const subscription = new Subscription((self) => this.subscriptions.delete(self));
            this.subscriptions.add(subscription);
            return subscription;
          },
        }),
      },
      session: {
        hook: register(this.session) as V2Context["session"]["hook"],
        prompt: async (input) => {
          this.prompts.push(input);
          const id = `msg_inbox_${this.prompts.length}`;
          return { admittedSeq: this.prompts.length, id, sessionID: input.sessionID, timeCreated: 0, type: "user", data: { text: input.text }, delivery: input.delivery ?? "steer" };
        },
        wait: ({ sessionID }) => this.waitIdle(sessionID),
        // The unwrapped `SessionV2Info` (client.ts @ 01b31469); a sub-agent's session has a parentID.
        get: async ({ sessionID }) => {
          this.sessionReads.push(sessionID);
          const parentID = this.parents.get(sessionID);
          return { id: sessionID, projectID: "prj_1", title: "stand-in", ...(parentID ? { parentID } : {}) };
        },
      },
    };
  }

  /** Resolves when the test says the session went idle. */
  private waitIdle(sessionID: string): Promise<void> {
    const existing = this.idleWaits.get(sessionID);
    if (existing) return existing;
    const wait = new Promise<void>((resolve) => this.idle.set(sessionID, resolve));
    this.idleWaits.set(sessionID, wait);
    return wait;
  }

  /** The session finished its turn: every `session.wait` for it resolves. */
  async goIdle(sessionID: string): Promise<void> {
    this.idle.get(sessionID)?.();
    this.idle.delete(sessionID);
    this.idleWaits.delete(sessionID);
    await settle();
  }

  /** One event to every subscriber, in the envelope a promise plugin receives. */
  async publish(type: string, data: Record<string, unknown>): Promise<void> {
    const seq = this.seq++;
    const event = { id: `evt_${String(seq).padStart(6, "0")}`, type, created: 1_700_000_000_000 + seq, durable: { aggregateID: data.sessionID, seq, version: 1 }, data };
    for (const subscription of this.subscriptions) subscription.push(event);
    await settle();
  }

  /** An execution of the session begins (before its first model request). */
  startExecution(sessionID: string): Promise<void> {
    return this.publish("session.execution.started", { sessionID });
  }

  /**
   * The execution ends: its terminal event, and the session goes idle. `eventFirst: false` hands the
   * plugin the event only after `wait` resolved (the two channels may arrive in either order).
   */
  async endExecution(sessionID: string, end: ExecutionEnd, { eventFirst = true } = {}): Promise<void> {
    const data =
      end.type === "succeeded" ? { sessionID }
      : end.type === "failed" ? { sessionID, error: end.error ?? { type: "unknown", message: "overloaded" } }
      : { sessionID, reason: end.reason };
    if (!eventFirst) await this.goIdle(sessionID);
    await this.publish(`session.execution.${end.type}`, data);
    if (eventFirst) await this.goIdle(sessionID);
  }

  /** The host's event stream breaks for every subscriber. */
  async breakEvents(error: unknown): Promise<void> {
    for (const subscription of [...this.subscriptions]) subscription.fail(error);
    await settle();
  }

  private async run<Name extends string>(table: Map<string, Registered[]>, name: Name, event: any, providerID?: string): Promise<void> {
    const signal = new AbortController().signal;
    for (const hook of table.get(name) ?? []) {
      if (hook.providerID !== undefined && hook.providerID !== providerID) continue;
      try {
        await hook.callback(event, { signal });
      } catch (error) {
        this.hookErrors.push(error);
        throw error;
      }
    }
  }

  /** `session.hook("context")` for the next request: what the model will be sent. */
  async buildContext(sessionID: string, model: V2ModelRef, messages: V2Message[], system: V2SystemPart[] = [], tools: V2SessionContext["tools"] = {}): Promise<V2SessionContext> {
    const event: V2SessionContext = { sessionID, agent: "build", model, kind: "primary", system, messages, options: {}, tools };
    await this.run(this.session, "context", event, model.providerID);
    return event;
  }

  /**
   * A provider's fetch through the session HTTP hooks. `route: "native"` sends a copy of the body
   * (model-http.ts), `"aisdk"` sends the hooked Request itself (PR #50487's fetch).
   */
  nativeFetch(sessionID: string, model: V2ModelRef, send: typeof fetch = fetch, { responseSeesClone = false, route = "native" as "native" | "aisdk" } = {}): typeof fetch {
    const base = { sessionID, agent: "build", model, kind: "primary" as const };
    const nativeFetch = async (input: string | URL | Request, init?: RequestInit) => {
      const request: V2SessionHooks["http.request"] = { ...base, request: new Request(input, init) };
      await this.run(this.session, "http.request", request, model.providerID);
      // A host may hand http.response a copy of what it sent rather than the object http.request saw.
      const seen = responseSeesClone ? request.request.clone() : request.request;
      const hooked = request.request;
      const body = route === "native" && hooked.body ? await hooked.clone().arrayBuffer() : undefined;
      const sent = route === "native" ? new Request(hooked.url, { method: hooked.method, headers: hooked.headers, ...(body ? { body } : {}) }) : hooked;
      const response = await send(sent);
      const event: V2SessionHooks["http.response"] = { ...base, request: seen, response };
      await this.run(this.session, "http.response", event, model.providerID);
      return event.response;
    };
    return nativeFetch as typeof fetch;
  }

  /** `aisdk.hook("language")` for a model on the AI SDK route. */
  async language(event: V2LanguageEvent): Promise<V2LanguageEvent> {
    await this.run(this.aisdk, "language", event);
    return event;
  }
}

/** Lets the plugin's promise chains run (a few microtasks, then one macrotask). */
async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await Promise.resolve();
  await new Promise((resolve) => setTimeout(resolve, 0));
}

/** The package at `packageDir` loaded as OpenCode 2 loads it and set up on a new stand-in host with `options` (`shape` may change the context first). */
export async function startedHost(packageDir: string, options: unknown, shape: (ctx: V2Context) => V2Context = (ctx) => ctx): Promise<StandInHost> {
  const { definition } = await loadLikeV2(packageDir);
  const host = new StandInHost();
  await definition.setup!(shape(host.context(options)));
  return host;
}
