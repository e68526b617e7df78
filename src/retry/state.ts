import type { NudgeReason } from "../parse/types.ts";

/**
 * Why a reply needs correcting: what the parser found, or "unexecuted-call" when the markup was a
 * call in any form but the route could not turn text into calls (the plugin's fallback path).
 */
export type CorrectionReason = NudgeReason | "unexecuted-call";

interface PendingRetry {
  /** The turn (the user message it answers) whose reply had markup that could not be repaired. */
  messageID: string;
  reason: CorrectionReason;
  /** For "invalid-arguments": the parameter whose value did not fit, named in the correction (a name the tool's schema declares). */
  parameter?: string;
  /** For "invalid-arguments": the arguments held a key the schema does not declare; the correction says so without naming it. */
  undeclaredArgument?: true;
  /** For "undeclared-tool": the declared tool the model called by another agent's name, named in the correction. */
  declared?: string;
}

/** A turn as the next request shows it: its user message, and that message's text. */
export interface TurnSeen {
  id: string;
  text?: string;
}

/** Wakes the plugin may send per session in any rolling hour, whatever the users write. */
export const WAKES_PER_HOUR = 3;
export const HOUR_MS = 3_600_000;
const DEFAULT_MAX_SESSIONS = 500;
/** Turns (and user messages) remembered per session: a turn older than this is not asked about again. */
const REMEMBERED_TURNS = 16;

/**
 * What one user-written message has spent; every turn the plugin started for it spends from the
 * same. Only the wake: a correction is counted against the reply it corrects (Broken.correctionPassed),
 * never against the message whose request happens to carry it, so each leaking reply gets its own one.
 */
interface Budget {
  wake: boolean;
}

interface Broken {
  turn: string;
  reason: CorrectionReason;
  parameter: string | undefined;
  undeclaredArgument?: boolean | undefined;
  declared?: string | undefined;
  /**
   * The request right after this reply was built (takeCorrection): the correction went with it, and
   * no later request takes it.
   */
  correctionPassed: boolean;
  /** Its wake was sent, or is never to be (noWake). */
  wakeSent: boolean;
}

interface SessionEntry {
  /** The latest turn seen. */
  turn: string | undefined;
  /** Turn -> the user-written message it belongs to (itself, or the one whose wake started it). */
  origins: Map<string, string>;
  /** User-written message -> what it has spent. */
  budgets: Map<string, Budget>;
  /** The latest reply that needs correcting; any newer clean reply answers it. */
  broken: Broken | null;
  /** Wakes sent whose turn has not been seen yet, oldest first. */
  awaited: { origin: string; text: string | undefined }[];
  /** The latest turn our wake started: its id, the wake's text and the message it spends from. */
  woken: { turn: string; text: string | undefined; origin: string } | undefined;
  /**
   * Set by a compaction that came right after a woken turn: OpenCode 1.18 replays that turn's text
   * (our wake, as we wrote it) as a new message; the next new turn with that text is that replay.
   */
  replay: { text: string; origin: string } | undefined;
  /** When each recent wake was sent. */
  wakeTimes: number[];
}

/**
 * The user messages the host announced for a session (OpenCode 1.18's `message.updated` events),
 * kept apart from SessionEntry: a message may be created before the reply it follows is recorded.
 */
interface UserMessages {
  /** The newest user message created. */
  latest: string;
  /** Its text parts as they arrived (part id -> text); none yet right after its `message.updated`. */
  parts: Map<string, string>;
  /** Recent user messages: an event for one of them is an update (its summary), not a new message. */
  seen: string[];
}

/**
 * The retry's bookkeeping, per session. Hard bounds, whatever happens in between: one correction
 * per reply that needs one, on the request right after it; one wake per user-written message (a
 * turn our wake started spends from the message that led to it, so a wake can never earn another
 * wake), and WAKES_PER_HOUR wakes per session per rolling hour. A correction never starts a request
 * of its own (the user-channel wake that carries one is bounded as a wake), so corrections stay
 * bounded by the requests the user and the wakes made. Which turn our wake started is known by its
 * text, the one text we sent.
 */
export class RetryLedger {
  readonly #sessions = new Map<string, SessionEntry>();
  readonly #users = new Map<string, UserMessages>();
  readonly #maxSessions: number;
  readonly #now: () => number;

  constructor({ maxSessions = DEFAULT_MAX_SESSIONS, now = Date.now }: { maxSessions?: number; now?: () => number } = {}) {
    this.#maxSessions = Math.max(1, Math.floor(maxSessions));
    this.#now = now;
  }

  get sessionCount(): number {
    return this.#sessions.size;
  }

  /**
   * A request is being built for `turn`. A turn not seen before is the one an awaited wake
   * started when its text is the wake's (no text: the oldest awaited wake, if any); otherwise a
   * user wrote it and it gets its own budget.
   */
  /** Returns true when `turn` is a user message seen for the first time (not our wake's turn). */
  noteTurn(sessionID: string, turn: TurnSeen): boolean {
    return this.#noteTurn(this.#entry(sessionID), turn);
  }

  /**
   * The host created (or updated) a user message of this session. A message seen for the first
   * time is the session's newest: once it is not the broken reply's turn, the user wrote again and
   * no wake is due (wakeDue), even before its request is built. An update of a message already
   * seen (OpenCode writes a turn's summary into it) changes nothing.
   */
  noteUserMessage(sessionID: string, messageID: string): void {
    const users = this.#users.get(sessionID);
    if (users?.seen.includes(messageID)) return;
    const next: UserMessages = { latest: messageID, parts: new Map(), seen: [...(users?.seen ?? []).slice(1 - REMEMBERED_TURNS), messageID] };
    this.#users.delete(sessionID);
    this.#users.set(sessionID, next);
    if (this.#users.size > this.#maxSessions) this.#users.delete(this.#users.keys().next().value!);
  }

  /** A text part of a user message: kept for the newest one only, whose text tells our wake's turn. */
  noteUserText(sessionID: string, messageID: string, partID: string, text: string): void {
    const users = this.#users.get(sessionID);
    if (users?.latest === messageID) users.parts.set(partID, text);
  }

  /** An assistant reply for `turn` finished; `nudge` is why it needs correcting, or null when it does not. */
  recordReply(sessionID: string, turn: string, nudge: CorrectionReason | null, parameter?: string, declared?: string, undeclaredArgument?: boolean): void {
    const entry = this.#sessions.get(sessionID);
    if (nudge === null && (!entry || entry.awaited.length + entry.wakeTimes.length === 0)) {
      // Nothing pending and nothing to bound: a clean session leaves nothing behind.
      if (entry) this.#sessions.delete(sessionID);
      return;
    }
    const e = entry ?? this.#entry(sessionID);
    this.#noteTurn(e, { id: turn });
    if (nudge === null) e.broken = null;
    // The same reply reported again keeps its state. After an extra-call reply (a call ran, so the
    // turn goes on) whose correction a request already took, a report of the same turn is a later
    // step's own reply: it gets its own correction.
    else if (e.broken?.turn === turn && !(e.broken.reason === "extra-call" && e.broken.correctionPassed)) {
      e.broken.reason = nudge;
      e.broken.parameter = parameter;
      e.broken.undeclaredArgument = undeclaredArgument;
      e.broken.declared = declared;
    } else e.broken = { turn, reason: nudge, parameter, undeclaredArgument, declared, correctionPassed: false, wakeSent: false };
    this.#touch(sessionID, e);
  }

  /**
   * For the session's next request (of `turn` when given): the correction to attach, once per reply
   * that needs one. A correction is due only for the request right after the reply it corrects, and
   * is counted against that reply, never against the message whose request carries it (a leftover
   * correction riding on a user's new message must not cost that message's own leak its correction).
   * `inHistory` (given for a request the host built from its history) tells whether the reply's turn
   * is still in that history; when it is not, the correction is dropped.
   */
  takeCorrection(sessionID: string, turn?: TurnSeen, inHistory?: (turn: string) => boolean): PendingRetry | null {
    const entry = this.#sessions.get(sessionID);
    if (!entry) return null;
    if (turn) this.#noteTurn(entry, turn);
    const broken = entry.broken;
    if (!broken || broken.correctionPassed || entry.turn === undefined) return null;
    if (inHistory && !inHistory(broken.turn)) {
      // The request's history no longer holds the reply (nor the message it answered): the user
      // edited an earlier message (OpenCode reverts and sends again) and that exchange is gone. A
      // correction about it would push the model to redo a call from a conversation the user
      // threw away, and no later request holds it either: dropped, not kept.
      entry.broken = null;
      return null;
    }
    broken.correctionPassed = true;
    this.#touch(sessionID, entry);
    return pendingOf(broken);
  }

  /**
   * A request of this session is being built that the plugin leaves alone (an out-of-scope model):
   * it carries no correction, and its reply is never seen, so the pending reply is no longer the
   * last one: neither its correction nor its wake is due any more. Returns true, as noteTurn does,
   * when `turn` is a user message seen for the first time. A session with nothing recorded stays so.
   */
  passOver(sessionID: string, turn: TurnSeen): boolean {
    const entry = this.#sessions.get(sessionID);
    if (!entry) return false;
    const fresh = this.#noteTurn(entry, turn);
    entry.broken = null;
    return fresh;
  }

  /**
   * The session went idle: a wake is due if its latest reply still needs correcting, that reply
   * answers the latest turn seen (once a newer turn was built, the user wrote again or the loop
   * went on, and a wake would land behind it), the user message behind that reply has not had its
   * wake, and the hourly bound allows one. Call awaitWake with the text actually sent.
   */
  takeWake(sessionID: string): PendingRetry | null {
    if (!this.wakeDue(sessionID)) return null;
    const entry = this.#sessions.get(sessionID)!;
    const broken = entry.broken!;
    const budget = this.#budgetOf(entry, broken.turn);
    const now = this.#now();
    entry.wakeTimes = entry.wakeTimes.filter((at) => now - at < HOUR_MS);
    entry.wakeTimes.push(now);
    budget.wake = true;
    broken.wakeSent = true;
    entry.awaited.push({ origin: this.#originOf(entry, broken.turn), text: undefined });
    if (entry.awaited.length > WAKES_PER_HOUR) entry.awaited.shift();
    this.#touch(sessionID, entry);
    return pendingOf(broken);
  }

  /** Whether takeWake would give a wake now; spends nothing. */
  wakeDue(sessionID: string): boolean {
    const entry = this.#sessions.get(sessionID);
    const broken = entry?.broken;
    // A reply that ran a call (extra-call) goes on by itself: its correction only, never a wake.
    if (!entry || !broken || broken.wakeSent || broken.reason === "extra-call" || broken.turn !== entry.turn) return false;
    if (this.#budgetOf(entry, broken.turn).wake || this.#wroteAgain(sessionID, entry, broken.turn)) return false;
    const now = this.#now();
    return entry.wakeTimes.filter((at) => now - at < HOUR_MS).length < WAKES_PER_HOUR;
  }

  /** The text of the wake just taken, by which its turn will be known. */
  awaitWake(sessionID: string, text: string): void {
    const last = this.#sessions.get(sessionID)?.awaited.at(-1);
    if (last && last.text === undefined) last.text = text;
  }

  /**
   * The wake just taken could not be sent: it is awaited no more, so a turn with its text (a user
   * who types "Continue." themselves) is the user's own message with its own budget. What the wake
   * spent stays spent (the send may have reached the host before it failed), so the bounds hold.
   */
  wakeNotSent(sessionID: string, text: string): void {
    const awaited = this.#sessions.get(sessionID)?.awaited;
    if (!awaited) return;
    for (let i = awaited.length - 1; i >= 0; i--) {
      if (awaited[i]!.text !== text) continue;
      awaited.splice(i, 1);
      return;
    }
  }

  /**
   * The user stopped the session (an abort): its pending reply is answered by the user, so neither
   * its correction nor its wake is due any more. The bounds already spent stay spent.
   */
  dropPending(sessionID: string): void {
    const entry = this.#sessions.get(sessionID);
    if (entry) entry.broken = null;
  }

  /**
   * OpenCode 1.18 is compacting the session. An overflow compaction replays the latest user
   * message under a new id once the summary is written; when that message is our wake's turn, the
   * replay is our wake again, and spends from the same message (never a wake of its own).
   */
  noteCompaction(sessionID: string): void {
    const entry = this.#sessions.get(sessionID);
    if (!entry) return;
    const woken = entry.woken;
    entry.replay = woken && woken.turn === entry.turn && woken.text !== undefined ? { text: woken.text, origin: woken.origin } : undefined;
  }

  /**
   * The session is never to be woken (a sub-agent's, whose reply its parent already has): its
   * latest reply's wake is off, and nothing else. Its correction stays due for the session's next
   * request: the parent may continue the same sub-agent session, and that request is the one right
   * after the broken reply.
   */
  noWake(sessionID: string): void {
    const broken = this.#sessions.get(sessionID)?.broken;
    if (broken) broken.wakeSent = true;
  }

  /** The session was deleted: nothing of it should outlive it. */
  forget(sessionID: string): void {
    this.#sessions.delete(sessionID);
    this.#users.delete(sessionID);
  }

  /**
   * Whether the host created a user message after `turn` (the broken reply's): the newest one it
   * announced is another message, and not a wake of ours still awaited (known by its text, as
   * #noteTurn knows it). A message whose text has not arrived yet counts as the user's: a wake
   * that lands behind the user's new message is worse than one not sent.
   */
  #wroteAgain(sessionID: string, entry: SessionEntry, turn: string): boolean {
    const users = this.#users.get(sessionID);
    if (!users || users.latest === turn) return false;
    if (users.parts.size === 0) return true;
    const text = [...users.parts.values()].join("");
    return !entry.awaited.some((wake) => wake.text === text);
  }

  #noteTurn(entry: SessionEntry, turn: TurnSeen): boolean {
    if (turn.id === entry.turn) return false;
    entry.turn = turn.id;
    if (entry.origins.has(turn.id)) return false;
    const index = entry.awaited.findIndex((wake) => turn.text === undefined || wake.text === undefined || wake.text === turn.text);
    const replay = entry.replay;
    // Only the first new turn after the compaction can be its replay.
    entry.replay = undefined;
    let origin = turn.id;
    if (index !== -1) {
      const wake = entry.awaited.splice(index, 1)[0]!;
      origin = wake.origin;
      entry.woken = { turn: turn.id, text: wake.text ?? turn.text, origin };
    } else if (replay && turn.text === replay.text) {
      origin = replay.origin;
      entry.woken = { turn: turn.id, text: replay.text, origin };
    }
    remember(entry.origins, turn.id, origin);
    if (origin !== turn.id) return false;
    remember(entry.budgets, turn.id, { wake: false });
    return true;
  }

  #originOf(entry: SessionEntry, turn: string): string {
    return entry.origins.get(turn) ?? turn;
  }

  /** A turn whose origin was forgotten spends from a budget of its own, remembered from now on. */
  #budgetOf(entry: SessionEntry, turn: string): Budget {
    const origin = this.#originOf(entry, turn);
    let budget = entry.budgets.get(origin);
    if (!budget) {
      budget = { wake: false };
      remember(entry.budgets, origin, budget);
    }
    return budget;
  }

  #entry(sessionID: string): SessionEntry {
    let entry = this.#sessions.get(sessionID);
    if (!entry) {
      entry = { turn: undefined, origins: new Map(), budgets: new Map(), broken: null, awaited: [], wakeTimes: [], woken: undefined, replay: undefined };
      this.#touch(sessionID, entry);
    }
    return entry;
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

function pendingOf(broken: Broken): PendingRetry {
  const pending: PendingRetry = { messageID: broken.turn, reason: broken.reason };
  if (broken.parameter !== undefined) pending.parameter = broken.parameter;
  if (broken.undeclaredArgument === true) pending.undeclaredArgument = true;
  if (broken.declared !== undefined) pending.declared = broken.declared;
  return pending;
}

function remember<V>(map: Map<string, V>, key: string, value: V): void {
  map.delete(key);
  map.set(key, value);
  if (map.size > REMEMBERED_TURNS) map.delete(map.keys().next().value!);
}

const CORRECTION_OPENINGS: Record<CorrectionReason, string> = {
  "broken-markup": "Your last reply contained tool-call markup written as text, and it was malformed, so it could not be executed.",
  "undeclared-tool": "Your last reply contained tool-call markup written as text for a tool that is not available, so it could not be executed.",
  "truncated-call": "Your last reply contained tool-call markup written as text that was cut off before the call was complete, so it could not be executed.",
  "invalid-arguments": "Your last reply contained tool-call markup written as text whose arguments do not fit the tool's declared parameters, so it could not be executed.",
  "echoed-markup": "Your last reply repeated tool-call markup as text instead of making a call, so nothing was executed.",
  "extra-call": "Your last reply wrote more than one tool call, but only one tool call per reply is allowed here, so the calls written as text after the first were not executed.",
  "overflowed-markup": "Your last reply contained tool-call markup written as text that ran too long to tell where it ended, so neither it nor any tool call written as text after it was executed.",
  "unexecuted-call": "Your last reply wrote a tool call as text markup instead of making a call, so it was not executed.",
};

const REISSUE_REQUEST =
  "If you still need a tool, call it again through the tool-calling interface, using only the tools you have been given. Never write tool calls as text markup.";

/**
 * `parameter`: for "invalid-arguments", the parameter to name (a name the tool's schema declares,
 * never a value). `undeclaredArgument`: for "invalid-arguments", the arguments held a key the
 * schema does not declare, said without naming it: the model may have written a token where a
 * name goes, and the correction stays in the conversation.
 * `declared`: for "undeclared-tool", the declared tool the model called by another agent's name.
 */
export function correctionText(reason: CorrectionReason, parameter?: string, declared?: string, undeclaredArgument?: boolean): string {
  const named =
    reason !== "invalid-arguments"
      ? ""
      : parameter !== undefined
        ? ` The parameter \`${parameter}\` does not match its declared type, allowed values or required fields.`
        : undeclaredArgument === true
          ? " One of its arguments is not a parameter of that tool; use only the parameters the tool declares."
          : "";
  const instead = reason === "undeclared-tool" && declared !== undefined ? ` The tool you meant is available here as \`${declared}\`; call it with its own parameters.` : "";
  return `${CORRECTION_OPENINGS[reason]}${named}${instead} ${REISSUE_REQUEST}`;
}

/** Deliberately bare: the correction already explains the problem, the wake only restarts the turn. */
export function wakeText(): string {
  return "Continue.";
}
