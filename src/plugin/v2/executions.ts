// How a session's execution ended on OpenCode 2, read from the plugin context's event stream
// (`ctx.event.subscribe()`; shapes and sources in host-types.ts, E, V, T). It stands in for 1.18's
// `session.error` (MessageAbortedError) before `session.idle`: on 1.18 both arrive in one ordered
// stream, while on 2.x the idle signal (`session.wait`) and the event stream are two channels, so
// the idle wake waits for both and the abort is always applied before the wake is decided.

/** How an execution ended; "unknown" without a live event stream (the wake then decides alone). */
export type Settled = "succeeded" | "failed" | "interrupted" | "unknown";

interface ExecutionWatch {
  /** Whether terminal events are being read. */
  readonly live: boolean;
  /**
   * How the session's running execution ends: resolves at its terminal event. Ask while it runs (a
   * reply is part of one). Resolves "unknown" at once when no execution of the session was seen
   * starting (no stream, another event dialect, or it already ended), and when the stream is lost
   * or stopped: the caller then decides as it would without events, never waits for nothing.
   */
  settled(sessionID: string): Promise<Settled>;
  /** Stops reading; every pending `settled` resolves "unknown". Never throws, never waits on the host. */
  stop(): void;
}

interface ExecutionHandlers {
  /** The user stopped the session (`interrupted` with reason "user"): called before `settled` resolves. */
  onAbort(sessionID: string): void;
  /** The stream failed or ended by itself (not by `stop`). */
  onLost(error: unknown): void;
  /** An execution of the session began (a prompt made it busy again). */
  onStarted?(sessionID: string): void;
  /**
   * An execution of the session ended (any terminal event, its start seen or not): called before
   * `settled` resolves, so a start read right after it is known to come after that end.
   */
  onEnded?(sessionID: string): void;
}

const TERMINALS: Readonly<Record<string, Exclude<Settled, "unknown">>> = {
  "session.execution.succeeded": "succeeded",
  "session.execution.failed": "failed",
  "session.execution.interrupted": "interrupted",
};

const STARTED = "session.execution.started";

interface ExecutionEvent {
  sessionID: string;
  /** "started", or how the execution ended. */
  kind: "started" | Exclude<Settled, "unknown">;
  /** An interruption the user asked for (`reason: "user"`). */
  byUser: boolean;
}

/** The session and kind of an execution lifecycle event; anything else (or another shape) is null. */
export function executionEventOf(event: unknown): ExecutionEvent | null {
  if (typeof event !== "object" || event === null) return null;
  const { type, data } = event as { type?: unknown; data?: unknown };
  if (typeof type !== "string") return null;
  const kind = type === STARTED ? "started" : Object.hasOwn(TERMINALS, type) ? TERMINALS[type]! : undefined;
  if (!kind || typeof data !== "object" || data === null) return null;
  const { sessionID, reason } = data as { sessionID?: unknown; reason?: unknown };
  if (typeof sessionID !== "string" || sessionID === "") return null;
  return { sessionID, kind, byUser: kind === "interrupted" && reason === "user" };
}

/** Reads `subscribe()` until stopped; with no `subscribe` (or one that throws) nothing is live. */
export function watchExecutions(subscribe: (() => AsyncIterable<unknown>) | undefined, on: ExecutionHandlers): ExecutionWatch {
  const waiting = new Map<string, ((settled: Settled) => void)[]>();
  /** Sessions whose execution was seen starting and not yet ending. */
  const running = new Set<string>();
  let iterator: AsyncIterator<unknown> | undefined;
  let stopped = false;

  const release = (sessionID: string, settled: Settled) => {
    const list = waiting.get(sessionID);
    waiting.delete(sessionID);
    for (const resolve of list ?? []) resolve(settled);
  };
  const releaseAll = () => {
    running.clear();
    for (const sessionID of [...waiting.keys()]) release(sessionID, "unknown");
  };

  if (subscribe) {
    try {
      iterator = subscribe()[Symbol.asyncIterator]();
    } catch (error) {
      on.onLost(error);
    }
  }

  const watch: ExecutionWatch = {
    get live() {
      return iterator !== undefined && !stopped;
    },
    settled(sessionID) {
      if (!watch.live || !running.has(sessionID)) return Promise.resolve("unknown");
      return new Promise<Settled>((resolve) => {
        const list = waiting.get(sessionID) ?? [];
        list.push(resolve);
        waiting.set(sessionID, list);
      });
    },
    stop() {
      if (stopped) return;
      stopped = true;
      releaseAll();
      // Not awaited: an async generator's return() waits for its pending next().
      const current = iterator;
      void Promise.resolve()
        .then(() => current?.return?.())
        .catch(() => undefined);
    },
  };

  if (iterator) {
    const source = iterator;
    void (async () => {
      try {
        while (!stopped) {
          const next = await source.next();
          if (next.done || stopped) break;
          const event = executionEventOf(next.value);
          if (!event) continue;
          if (event.kind === "started") {
            running.add(event.sessionID);
            try {
              on.onStarted?.(event.sessionID);
            } catch {
              // As onAbort: a throw here must not end the stream.
            }
            continue;
          }
          running.delete(event.sessionID);
          // The abort first, so a wake waiting on this execution finds nothing due.
          if (event.byUser) {
            try {
              on.onAbort(event.sessionID);
            } catch {
              // The ledger is the plugin's own; a throw here must not end the stream.
            }
          }
          try {
            on.onEnded?.(event.sessionID);
          } catch {
            // As onAbort: a throw here must not end the stream.
          }
          release(event.sessionID, event.kind);
        }
        if (!stopped) on.onLost(undefined);
      } catch (error) {
        if (!stopped) on.onLost(error);
      } finally {
        // Lost or stopped: nothing is live any more, and nothing may wait for an event that will not come.
        stopped = true;
        releaseAll();
      }
    })();
  }
  return watch;
}
