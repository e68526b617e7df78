import type { WakeCheck } from "./retry-controller.ts";

/** Sessions whose kind is remembered: far more than a process has open at once. */
const REMEMBERED_SESSIONS = 1000;

/**
 * The idle wake's check that a session is not a sub-agent's. A session the `task` tool started has
 * a parent; its reply was already handed to that parent, so a wake would restart it where no one
 * reads the answer and its tools run unsupervised. `read` gives the host's session info (`id`,
 * `parentID` when it has one); a session's parent never changes, so each is read once. Anything
 * unreadable (a throw, no info, another shape) is "unknown": no wake, asked again next time.
 */
export function subAgentCheck(read: (sessionID: string) => Promise<unknown>): WakeCheck {
  const known = new Map<string, "wake" | "never">();
  return async (sessionID) => {
    const cached = known.get(sessionID);
    if (cached) return cached;
    let info: unknown;
    try {
      info = await read(sessionID);
    } catch {
      return "unknown";
    }
    if (typeof info !== "object" || info === null) return "unknown";
    const { id, parentID } = info as { id?: unknown; parentID?: unknown };
    if (id !== sessionID) return "unknown";
    const verdict = typeof parentID === "string" && parentID !== "" ? "never" : parentID === undefined ? "wake" : undefined;
    if (!verdict) return "unknown";
    known.set(sessionID, verdict);
    if (known.size > REMEMBERED_SESSIONS) known.delete(known.keys().next().value!);
    return verdict;
  };
}
