import type { PluginInput } from "@opencode-ai/plugin";
import type { ParseOptions } from "../parse/types.ts";
import type { CorrectionReason } from "../retry/state.ts";
import { formatFallbackLine } from "./debug.ts";
import { repairModules } from "./repair-modules.ts";
import type { RetryController } from "./retry-controller.ts";

/** The assistant message a finished text part belongs to, as far as the fallback needs it. */
export interface ReplyOrigin {
  /** The user message the reply answers: the request tag's message and the retry ledger's turn. */
  turn: string;
  providerID: string;
  modelID?: string;
}

type OriginLookup = (sessionID: string, messageID: string) => Promise<ReplyOrigin | undefined>;

interface FallbackDeps {
  /** responseFix.enabled: with the response repair off, replies are left as written on every route. */
  enabled: boolean;
  parse: Partial<ParseOptions>;
  /** Whether the plugin acts on replies of this provider and model at all. */
  inScope: (origin: ReplyOrigin) => boolean;
  retry: Pick<RetryController, "onReply" | "awaitingWake">;
  lookup: OriginLookup;
  /** Debug lines; absent when debug is off. */
  debug?: (line: string) => void;
}

/** Request tags remembered: far more than the replies a process has in flight at once. */
const REMEMBERED_TAGS = 1000;

/**
 * The repair for routes whose wire the fetch adapter cannot rewrite (a provider package it does not
 * speak, OpenCode's native runtime, any future route): OpenCode's text hook gets each finished text
 * part, so leaked markup there is replaced by the history sanitizer's removal note. No correction
 * and no wake follow (onTextComplete says why). Nothing is ever executed here. A reply the adapter
 * repairs is left alone, whatever its text still holds (markup it kept visible on purpose, or
 * broken markup it already asked to correct).
 */
export class WireFallback {
  /** `<sessionID>/<turn>` of every request the fetch adapter announced it repairs. */
  readonly #repairedByWire = new Set<string>();

  constructor(private readonly deps: FallbackDeps) {}

  /** The adapter's onRepairing: it sees this request's reply, which the fallback must then leave alone. */
  noteWireRepair(requestTag: string | undefined): void {
    if (!requestTag) return;
    this.#repairedByWire.delete(requestTag);
    this.#repairedByWire.add(requestTag);
    if (this.#repairedByWire.size > REMEMBERED_TAGS) this.#repairedByWire.delete(this.#repairedByWire.values().next().value!);
  }

  /** `experimental.text.complete`: rewrites `output.text` when this reply is the fallback's to repair. */
  async onTextComplete(input: { sessionID: string; messageID: string }, output: { text: string }): Promise<void> {
    if (!this.deps.enabled || typeof output.text !== "string") return;
    const { redactLeaks } = await repairModules();
    const redacted = redactLeaks(output.text, this.deps.parse);
    if (redacted.removed === 0) return this.#cleanReply(input);
    const origin = await this.#ownedOrigin(input);
    if (!origin) return;
    output.text = redacted.text;
    const reason = correctionReason(redacted.nudge);
    // Never a correction or a wake from here: this route sees only the finished text, never the
    // request, so it cannot tell the model's own leak from a quote of content the session was given
    // (a tool result, a fetched page, an instruction file in the system prompt), and every
    // correction asks the model to call the tool again: after a quote, the push to run injected
    // content. A missed correction costs a retry by hand; that push could cost a wrong execution.
    // The reply still answers whatever was pending, as a reply on the wire route does.
    this.deps.retry.onReply(input.sessionID, origin.turn, 0, null);
    this.deps.debug?.(formatFallbackLine({ sessionID: input.sessionID, messageID: origin.turn, removed: redacted.removed, nudge: reason, shapes: redacted.shapes }));
  }

  /**
   * A clean text part answers an awaited wake, as a clean response does on the wire route (the
   * controller may wake this session again for a later message). The fallback itself never leaves
   * a leak pending (it asks for no correction), so with no wake awaited there is nothing to answer
   * and no lookup at all.
   */
  async #cleanReply(input: { sessionID: string; messageID: string }): Promise<void> {
    if (!this.deps.retry.awaitingWake(input.sessionID)) return;
    const origin = await this.#ownedOrigin(input);
    if (!origin) return;
    this.deps.retry.onReply(input.sessionID, origin.turn, 0, null);
  }

  /** The reply's origin when it is in scope and the wire path does not own it; undefined otherwise. */
  async #ownedOrigin(input: { sessionID: string; messageID: string }): Promise<ReplyOrigin | undefined> {
    let origin: ReplyOrigin | undefined;
    try {
      origin = await this.deps.lookup(input.sessionID, input.messageID);
    } catch {
      origin = undefined;
    }
    if (!origin) {
      this.deps.debug?.(formatFallbackLine({ sessionID: input.sessionID, messageID: input.messageID, unresolved: true }));
      return undefined;
    }
    if (this.#repairedByWire.has(`${input.sessionID}/${origin.turn}`)) return undefined;
    return this.deps.inScope(origin) ? origin : undefined;
  }
}

/**
 * With no declared tools every well-formed call parses as undeclared; here the tools are unknown
 * and the call may well be valid, so the model is told only that text markup is never executed.
 */
function correctionReason(nudge: CorrectionReason | null): CorrectionReason {
  return nudge === null || nudge === "undeclared-tool" ? "unexecuted-call" : nudge;
}

/** Reads the assistant message through OpenCode's in-process client: its parent is the user message it answers. */
export function messageLookup(client: PluginInput["client"] | undefined): OriginLookup {
  return async (sessionID, messageID) => {
    if (!client) return undefined;
    const res = await client.session.message({ path: { id: sessionID, messageID } });
    const info = (res as { data?: { info?: unknown } } | undefined)?.data?.info as
      | { role?: unknown; parentID?: unknown; providerID?: unknown; modelID?: unknown }
      | undefined;
    if (!info || info.role !== "assistant" || typeof info.parentID !== "string" || typeof info.providerID !== "string") return undefined;
    return { turn: info.parentID, providerID: info.providerID, ...(typeof info.modelID === "string" ? { modelID: info.modelID } : {}) };
  };
}
