// One echo guard per session history for `dsml-fix scan`: the replies of a session are read in
// order, and what the model had been given before each one is what was given before the previous
// one plus the messages in between (given.ts). So the guard's given content grows by appending
// (EchoGuard.addGiven), each message's content read once, and not rebuilt from the whole history
// for every reply (that would be quadratic in the session's length).
import type { EchoGuard } from "../engine/types.ts";
import { isObject } from "../grammar/plain-data.ts";

type GivenBefore = (messages: readonly unknown[], index: number) => string[];
type MakeGuard = (given: () => readonly string[]) => EchoGuard | undefined;

/**
 * The guard for the reply at `index` (asked in ascending order; any other order, or a finished
 * compaction summary since the last reply asked, which restarts the history OpenCode sends, builds
 * a new guard over givenBefore(messages, index) as before). Nothing is read until the guard is
 * about to judge a call: the appended content is read then, once.
 */
export function historyGuards(messages: readonly unknown[], givenBefore: GivenBefore, makeGuard: MakeGuard): (index: number) => EchoGuard | undefined {
  let guard: EchoGuard | undefined;
  let upTo = -1;
  return (index) => {
    if (guard?.addGiven !== undefined && index >= upTo && !summaryIn(messages, upTo, index)) {
      if (index > upTo) {
        const slice = messages.slice(upTo, index);
        guard.addGiven(() => givenBefore(slice, slice.length));
      }
      upTo = index;
      return guard;
    }
    guard = makeGuard(() => givenBefore(messages, index));
    upTo = index;
    return guard;
  };
}

/** Whether messages[from, to) hold a finished compaction summary (given.ts sentHistory's mark). */
function summaryIn(messages: readonly unknown[], from: number, to: number): boolean {
  for (let i = from; i < to; i++) {
    const message = messages[i];
    const info = isObject(message) && isObject(message.info) ? message.info : null;
    if (info !== null && info.role === "assistant" && info.summary && info.finish && !info.error) return true;
  }
  return false;
}
