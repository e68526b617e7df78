import { correctionText, RetryLedger, wakeText, type CorrectionReason, type TurnSeen } from "../retry/state.ts";
import type { PluginOptions } from "../options/spec.ts";

/**
 * What a finished reply is owed: its correction reason, or null. A reply that only quoted markup
 * from content it was given ("echoed-markup": the echo guard refused it) is owed nothing: every
 * correction asks the model to call the tool it still needs again, which after a quote is the push
 * to run injected content (as the proxy: src/adapters/request-history.ts reasonFor). A reply that
 * ran a call is owed only the "extra-call" correction (its calls after the first did not run); it
 * goes on by itself, so never a wake (RetryLedger.wakeDue).
 */
export function correctionDue(recovered: number, nudge: CorrectionReason | null): CorrectionReason | null {
  if (nudge === null || nudge === "echoed-markup") return null;
  if (recovered === 0) return nudge;
  return nudge === "extra-call" ? nudge : null;
}

interface WakeSender {
  (sessionID: string, text: string): Promise<void>;
}

/** Whether a session may be woken: "never" for a sub-agent's session, "unknown" when it could not be told. */
export type WakeCheck = (sessionID: string) => Promise<"wake" | "never" | "unknown">;

/**
 * Turns the ledger's bookkeeping into deliveries: one correction on the next request of the
 * session (system prompt or synthetic user turn), and at most one idle wake per user message. A
 * turn that our own wake started spends from the message that led to it, so however it goes
 * (clean steps, native calls, markup again) a broken model can never loop the session.
 */
export class RetryController {
  private readonly ledger: RetryLedger;
  private readonly pendingSystem = new Map<string, string>();
  private readonly wokeAndWaiting = new Set<string>();
  /**
   * Sessions OpenCode 1.18 is compacting: "announced" from `experimental.session.compacting` until
   * the summary request is built (its messages.transform comes right after), then "summary" until
   * the session's next request is built, so a host retry of the summary request carries nothing.
   */
  private readonly compacting = new Map<string, "announced" | "summary">();

  constructor(
    private readonly options: PluginOptions["retry"],
    private readonly sendWake: WakeSender,
    now: () => number = Date.now,
  ) {
    this.ledger = new RetryLedger({ now });
  }

  /** A response finished for `turn` (the user message it answers). */
  onReply(sessionID: string, turn: string, recovered: number, nudge: CorrectionReason | null, parameter?: string, declared?: string, undeclaredArgument?: boolean): void {
    const needsCorrection = correctionDue(recovered, nudge);
    this.ledger.recordReply(sessionID, turn, needsCorrection, parameter, declared, undeclaredArgument);
    // A reply with no markup of its own, or one that ran a call, answers the wake.
    if (!needsCorrection || recovered > 0) this.wokeAndWaiting.delete(sessionID);
  }

  /**
   * Called while the next request is being built, with the user message it answers (its text tells
   * our wake's turn from one a user wrote); returns the synthetic user text for the "user" channel.
   * `inHistory` tells whether a turn (a user message id) is still in the request's history: a
   * correction whose reply is no longer there (an edited message) is dropped (RetryLedger.takeCorrection).
   */
  takeCorrectionFor(sessionID: string, turn?: TurnSeen, inHistory?: (turn: string) => boolean): { reason: CorrectionReason; userText: string | null } | null {
    // A new request is being built: the system text of the one before is no longer due.
    this.pendingSystem.delete(sessionID);
    // A message the user wrote answers a wake still waiting: its own leak may get its own wake.
    if (turn && this.ledger.noteTurn(sessionID, turn)) this.wokeAndWaiting.delete(sessionID);
    if (!this.options.nudge) return null;
    const pending = this.ledger.takeCorrection(sessionID, undefined, inHistory);
    if (!pending) return null;
    const text = correctionText(pending.reason, pending.parameter, pending.declared, pending.undeclaredArgument);
    if (this.options.channel === "system") {
      this.pendingSystem.set(sessionID, text);
      return { reason: pending.reason, userText: null };
    }
    return { reason: pending.reason, userText: text };
  }

  /**
   * A request of this session is being built that the plugin leaves alone (an out-of-scope model):
   * a pending correction was for the request right after its reply, which this one is; it is not
   * due for any later one (RetryLedger.passOver).
   */
  passOver(sessionID: string, turn: TurnSeen): void {
    this.pendingSystem.delete(sessionID);
    if (this.ledger.passOver(sessionID, turn)) this.wokeAndWaiting.delete(sessionID);
  }

  /**
   * OpenCode 1.18 is about to compact this session (`experimental.session.compacting`). Its summary
   * request answers no reply of the model and turns the history into one prompt for a model with
   * no tools: it must neither take nor pass over the correction the session's next request is due.
   */
  onCompacting(sessionID: string): void {
    this.compacting.set(sessionID, "announced");
    this.ledger.noteCompaction(sessionID);
  }

  /**
   * Whether the request being built for this session (messages.transform) is the compaction summary
   * announced by onCompacting: true once, for the first build after it. 1.18's messages.transform
   * says nothing else about the request (its input is empty), so the announcement is the only sign.
   */
  buildsCompaction(sessionID: string): boolean {
    const state = this.compacting.get(sessionID);
    if (state === "announced") {
      this.compacting.set(sessionID, "summary");
      return true;
    }
    if (state === "summary") this.compacting.delete(sessionID);
    return false;
  }

  /**
   * The system-channel correction taken for this session's request. Kept until the next request is
   * built (takeCorrectionFor or passOver): OpenCode 1.18 retries a request that failed before any
   * answer (a 429) by running system.transform again without messages.transform, and the retried
   * request is the one the model answers. Never carried past that build, so it goes with one
   * request (and its host retries) only, never with the requests of two different messages.
   */
  takeSystemText(sessionID: string | undefined): string | null {
    if (!sessionID) return null;
    // The compaction summary's own request (and a host retry of it) is no request of the model's.
    if (this.compacting.get(sessionID) === "summary") return null;
    return this.pendingSystem.get(sessionID) ?? null;
  }

  /** The user stopped this session (an abort): its pending leak gets neither a correction nor a wake. */
  onAbort(sessionID: string): void {
    this.ledger.dropPending(sessionID);
    this.pendingSystem.delete(sessionID);
    // A woken turn the user stopped is answered by the user: the next message's leak may be woken.
    this.wokeAndWaiting.delete(sessionID);
  }

  /**
   * The host created or updated a user message (1.18's `message.updated`, role "user"), and a text
   * part of one (`message.part.updated`). A user message newer than the broken reply's turn means
   * the user wrote again: no wake for the reply before it (RetryLedger.wakeDue), even while its
   * request is not built yet, and so not yet a turn the ledger knows.
   */
  onUserMessage(sessionID: string, messageID: string): void {
    this.ledger.noteUserMessage(sessionID, messageID);
  }

  onUserText(sessionID: string, messageID: string, partID: string, text: string): void {
    this.ledger.noteUserText(sessionID, messageID, partID, text);
  }

  /** A wake was sent for this session and no reply without markup has answered it yet. */
  awaitingWake(sessionID: string): boolean {
    return this.wokeAndWaiting.has(sessionID);
  }

  /**
   * The session went idle: sends its one wake when due. `mayWake` is asked only when a wake is due
   * (the host's session lookup costs a call): "never" (a sub-agent's session, whose reply was
   * already handed to its parent) turns that reply's wake off, keeping its correction (RetryLedger.noWake);
   * "unknown" or a throw sends no wake now.
   * `live` is the host's side (false once it disposed the plugin, or once the session moved on),
   * read again after every await: a dispose, a reload that turned the wake off, or the user's new
   * message may land while the lookup is pending. takeWake asks the ledger again after the lookup
   * too: a user message created meanwhile (onUserMessage) leaves no wake due. OpenCode would queue
   * a wake sent then behind the user's message, to continue an exchange the user moved on from.
   */
  async onIdle(sessionID: string, mayWake?: WakeCheck, live: () => boolean = () => true): Promise<boolean> {
    if (!this.options.enabled || !live() || this.wokeAndWaiting.has(sessionID)) return false;
    if (!this.ledger.wakeDue(sessionID)) return false;
    if (mayWake) {
      const verdict = await mayWake(sessionID).catch(() => "unknown" as const);
      if (!this.options.enabled || !live()) return false;
      // Its wake only: a parent continuing the same sub-agent session still gets the correction.
      if (verdict === "never") this.ledger.noWake(sessionID);
      if (verdict !== "wake" || this.wokeAndWaiting.has(sessionID)) return false;
    }
    const wake = this.ledger.takeWake(sessionID);
    if (!wake) return false;
    let text = wakeText();
    if (this.options.channel === "user" && this.options.nudge) {
      const correction = this.ledger.takeCorrection(sessionID);
      if (correction) text = correctionText(correction.reason, correction.parameter, correction.declared, correction.undeclaredArgument);
    }
    // Recorded before the send (the host may build the wake's turn before promptAsync returns), and
    // taken back when the send fails: a wake that never went is awaited by nothing.
    this.ledger.awaitWake(sessionID, text);
    this.wokeAndWaiting.add(sessionID);
    try {
      await this.sendWake(sessionID, text);
    } catch (error) {
      this.ledger.wakeNotSent(sessionID, text);
      this.wokeAndWaiting.delete(sessionID);
      throw error;
    }
    return true;
  }
}
