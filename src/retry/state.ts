import type { NudgeReason } from "../parse/types.ts";

export interface PendingRetry {
  /** The assistant message whose markup could not be repaired. */
  messageID: string;
  reason: NudgeReason;
}

interface SessionEntry {
  messageID: string;
  /** null once the message was retried cleanly: nothing left to correct. */
  reason: NudgeReason | null;
  correctionDelivered: boolean;
  wakeSent: boolean;
}

export const DEFAULT_MAX_SESSIONS = 500;

/**
 * Only the latest assistant reply of each session matters: any newer reply answers the old one,
 * so one entry per session is enough. The flags live on that entry, which is what limits a
 * message to one correction and one wake even when its reply is recorded more than once.
 */
export class RetryLedger {
  readonly #sessions = new Map<string, SessionEntry>();
  readonly #maxSessions: number;

  constructor({ maxSessions = DEFAULT_MAX_SESSIONS }: { maxSessions?: number } = {}) {
    this.#maxSessions = Math.max(1, Math.floor(maxSessions));
  }

  get sessionCount(): number {
    return this.#sessions.size;
  }

  /** An assistant reply finished; `nudge` is why it needs correcting, or null when it does not. */
  recordReply(sessionID: string, messageID: string, nudge: NudgeReason | null): void {
    const entry = this.#sessions.get(sessionID);
    if (entry?.messageID === messageID) {
      entry.reason = nudge;
      this.#touch(sessionID, entry);
      return;
    }
    if (nudge === null) {
      this.#sessions.delete(sessionID);
      return;
    }
    this.#touch(sessionID, { messageID, reason: nudge, correctionDelivered: false, wakeSent: false });
  }

  /** For the session's next request: the correction to attach, once per message. */
  takeCorrection(sessionID: string): PendingRetry | null {
    const entry = this.#sessions.get(sessionID);
    if (!entry?.reason || entry.correctionDelivered) return null;
    entry.correctionDelivered = true;
    this.#touch(sessionID, entry);
    return { messageID: entry.messageID, reason: entry.reason };
  }

  /** The session went idle: a wake-up is due if its latest reply still needs correcting and was not woken before. */
  takeWake(sessionID: string): PendingRetry | null {
    const entry = this.#sessions.get(sessionID);
    if (!entry?.reason || entry.wakeSent) return null;
    entry.wakeSent = true;
    this.#touch(sessionID, entry);
    return { messageID: entry.messageID, reason: entry.reason };
  }

  /** The session was deleted: nothing of it should outlive it. */
  forget(sessionID: string): void {
    this.#sessions.delete(sessionID);
  }

  /** Map order is insertion order, so re-inserting keeps the least recently used session first. */
  #touch(sessionID: string, entry: SessionEntry): void {
    this.#sessions.delete(sessionID);
    this.#sessions.set(sessionID, entry);
    while (this.#sessions.size > this.#maxSessions) {
      const oldest = this.#sessions.keys().next().value;
      if (oldest === undefined) break;
      this.#sessions.delete(oldest);
    }
  }
}

const CORRECTION_OPENINGS: Record<NudgeReason, string> = {
  "broken-markup": "Your last reply contained tool-call markup written as text, and it was malformed, so it could not be executed.",
  "undeclared-tool": "Your last reply contained tool-call markup written as text for a tool that is not available, so it could not be executed.",
  "truncated-call": "Your last reply contained tool-call markup written as text that was cut off before the call was complete, so it could not be executed.",
  "echoed-markup": "Your last reply repeated tool-call markup as text instead of making a call, so nothing was executed.",
};

const REISSUE_REQUEST =
  "If you still need a tool, call it again through the tool-calling interface, using only the tools you have been given. Never write tool calls as text markup.";

export function correctionText(reason: NudgeReason): string {
  return `${CORRECTION_OPENINGS[reason]} ${REISSUE_REQUEST}`;
}

/** Deliberately bare: the correction already explains the problem, the wake only restarts the turn. */
export function wakeText(): string {
  return "Continue.";
}
