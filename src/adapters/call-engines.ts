// One call's engines, built alike by both adapters: engine options from the settled options and
// what the call allows, and every engine guarded, so that a fault of its own costs a debug line
// and passes the text through (src/engine/guarded.ts).
import type { ToolSpec } from "../parse/types.ts";
import type { AnswerSoFar, EchoGuard, EngineOptions, RepairEngine } from "../engine/types.ts";
import { GuardedEngine } from "../engine/guarded.ts";
import { describeError } from "../engine/describe-error.ts";
import { engineOptions } from "../options/engine.ts";
import { TwoReadings } from "../engine/two-readings.ts";
import type { Prefill } from "../wires/prefill.ts";
import type { EngineFor } from "../wires/wire.ts";
import type { AdapterOptions, EngineFactory } from "./options.ts";

/** What one call lets its engines recover: a recovered call never gets more than the model was offered (S06). */
export interface CallScope {
  /** The tools the call offers a call: those it declared, narrowed by its tool choice. */
  tools: readonly ToolSpec[];
  /** Every tool name the call declared, of any kind: another agent's name for a tool never stands for one. */
  declaredNames: readonly string[];
  /** The echo guard over what the call gave the model; undefined when the guard is off. */
  isEchoed: EchoGuard | undefined;
  /** The call switched parallel tool calls off: one call per reply (CallPolicy.oneCall). */
  oneCall: boolean;
  /**
   * The text the reply continues: the call ended in an assistant turn the model goes on writing
   * (src/wires/prefill.ts). Undefined: the reply starts a fresh message.
   */
  prefill?: Prefill | undefined;
}

/**
 * A fresh guarded engine for each text channel of the call: "reasoning" for a D06 stretch,
 * `continues` for a later part of one reply. The first engine of the reply's text (no channel, no
 * `continues`) reads on after the call's prefill, when it has one.
 */
export function callEngines(factory: EngineFactory, options: AdapterOptions, scope: CallScope, onError: (line: string) => void): EngineFor {
  const base = (): EngineOptions => engineOptions(options, scope.tools, scope.declaredNames, scope.isEchoed);
  return (channel, continues) => {
    const extra: Partial<EngineOptions> = {};
    if (scope.oneCall) extra.maxCalls = 1;
    if (channel) extra.channel = channel;
    const before = continues ?? (channel || !scope.prefill ? undefined : prefillRead(factory, base(), scope.prefill, onError));
    // The prefill could not be read: where the reply starts is unknown, so it passes through unread.
    if (before === UNREAD) return new GuardedEngine(unreadEngine, onError);
    if (before) extra.continues = before;
    return new GuardedEngine(factory({ ...base(), ...extra }), onError);
  };
}

/**
 * Where the reply's text starts when it continues `prefill`: the prefill read as replayed history
 * (EngineOptions.history), so nothing in it is ever recovered, and what the engine releases is
 * dropped (the prefill is the caller's text, never the reply's). Only its documentation context
 * carries over (a fence it opened is open in the reply), and whether it ended inside markup of
 * unknown end (AnswerSoFar.overflowed: a candidate past bufferLimit, or one still open at its
 * end). Read anew for each engine that asks (one per choice), since an engine's context changes
 * as it reads; undefined when the engine cannot say.
 *
 * A prefill the server may not continue (Prefill.certain false) may as well be answered with a
 * fresh message, and the two readings can differ: after "Here is the example:\n```\n" a reply
 * "```\n<call>\n```" closes the prefill's fence and runs the call if it continues, and is a fenced
 * example if it is fresh. A wrong execution outranks a missed repair, so such a reply is read both
 * ways at once (TwoReadings): documentation wherever either reading says so. That costs a second
 * documentation context per character, only for such a reply, and keeps every call both readings
 * agree on (a prefill like "Sure." followed by a leak). Passing the reply through whenever the
 * prefill left a state a fresh reply may not share would cost more: even "Sure." does (a reply
 * "    <call>" is indented code when fresh, paragraph text when continued).
 */
function prefillRead(factory: EngineFactory, options: EngineOptions, prefill: Prefill, onError: (line: string) => void): AnswerSoFar | undefined | typeof UNREAD {
  const { isEchoed: _, ...reading } = options;
  let engine: RepairEngine;
  try {
    engine = factory({ ...reading, history: true });
  } catch (error) {
    onError(`reading the prefill: engine creation failed, the reply passes through: ${describeError(error)}`);
    return UNREAD;
  }
  const guard = new GuardedEngine(engine, (line) => onError(`reading the prefill: ${line}`));
  const { spans } = prefill;
  for (let i = 0; i < spans.length - 1; i++) if (!guard.step({ delta: spans[i], endSpan: true }).ok) return UNREAD;
  // The last span is fed, then flushed: what the engine still holds between the two is markup the
  // prefill left undecided (a candidate open, a tag cut off). The history engine recovers no call,
  // so nothing it holds is text after a call.
  if (!guard.step({ delta: spans[spans.length - 1] }).ok) return UNREAD;
  const open = guard.held > 0;
  if (!guard.step({ flush: true }).ok) return UNREAD;
  const answer = guard.carryOver();
  if (!answer) return guard.failed ? UNREAD : undefined;
  // Nothing of the prefill is the reply's: no call of it counts against the reply's, no text of it is held.
  const { tail: _tail, ...context } = answer;
  const read: AnswerSoFar = { ...context, doc: prefill.certain ? context.doc : new TwoReadings(context.doc), calls: 0 };
  // The prefill ends inside markup (`<tool_call>{"name":"write","arguments":{"content":"`, a DSML
  // value left open): the reply goes on inside it, so a call the reply writes may be that
  // markup's text (an example in the file being written). Where it ends is unknown: the reply
  // starts as after an overflow, and none of its calls runs ("overflowed-markup", text kept).
  return open ? { ...read, overflowed: true } : read;
}

/** The prefill's reading failed. */
const UNREAD = Symbol("unread prefill");

/** The engine of a reply whose prefill could not be read: it fails at its first step, so the guard passes the reply through. */
const unreadEngine: RepairEngine = {
  feed: refuse,
  flush: refuse,
  noteNativeToolCall: refuse,
  heldText: refuse,
  summary: refuse,
  get held(): number {
    return 0;
  },
};

function refuse(): never {
  throw new Error("the prefill the reply continues could not be read");
}
