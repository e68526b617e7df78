// What both hosts do with the raw options and with every finished response, in one place: the
// 1.18 plugin (index.ts) and the OpenCode 2 entry (v2/setup.ts) must log the same option problems,
// the same start-up count, the same debug lines, and feed the retry ledger the same facts.
import type { AdapterResult } from "../adapters/options.ts";
import type { DebugLog } from "./debug.ts";
import type { Logger } from "./log.ts";
import type { PluginOptions } from "../options/spec.ts";
import { resolveOptions } from "./options.ts";
import { correctionDue, type RetryController } from "./retry-controller.ts";
import { readTag } from "./wiring.ts";

interface StartedOptions {
  options: PluginOptions;
  /** For startupReport: how many problems were logged, and whether they closed recovered calls. */
  optionState: { problems: number; failedClosed: boolean };
  /** The problems themselves (the 1.18 plugin also shows them as a notice). */
  problems: readonly string[];
}

/** Resolves the options and logs each problem once, as a warning. */
export function startOptions(raw: unknown, log: Logger): StartedOptions {
  const { options, problems, failedClosed = false } = resolveOptions(raw);
  for (const problem of problems) log("warn", problem);
  return { options, problems, optionState: { problems: problems.length, failedClosed } };
}

interface ReplyDeps {
  options: Pick<PluginOptions, "debug">;
  debug: DebugLog;
  log: Logger;
  retry: Pick<RetryController, "onReply">;
  /** After the ledger saw a reply that recovered nothing and needs a correction (V2 waits for idle here). */
  onUnrecovered?: (sessionID: string) => void;
}

/** The adapter's onResult: the debug response line, the echo-guard line, and the retry ledger's entry. */
export function replyReporter({ options, debug, log, retry, onUnrecovered }: ReplyDeps): (result: AdapterResult) => void {
  return ({ requestTag, summary, attempt }) => {
    const { sessionID, messageID: turn } = readTag(requestTag);
    const outcome = summary.recovered > 0
      ? ({ kind: "recovered", count: summary.recovered } as const)
      : summary.heldCandidateNoCall > 0 ? ({ kind: "held-candidate-no-call" } as const) : ({ kind: "passthrough" } as const);
    debug.response({ sessionID, messageID: turn, attempt, outcome, nudge: summary.nudge, shapes: summary.broken.map((b) => b.shape) });
    // The response line shows only the first nudge; an echo is worth its own line whatever came first.
    const echoed = options.debug ? summary.stripped.filter((s) => s.kind === "echoed-markup").length : 0;
    if (echoed > 0) log("info", `[dsml] echo-guard stripped=${echoed} (markup quoted from content the request gave the model; not executed)`);
    if (!sessionID || !turn) return;
    // The correction names the declared parameter that did not fit its schema (an undeclared one only as such), or the declared tool an alias meant (the nudge is the reason of the model's own first broken span, a quote's only when it has none).
    const first = summary.broken.find((b) => b.reason === summary.nudge);
    retry.onReply(sessionID, turn, summary.recovered, summary.nudge, first?.parameter, first?.declared, first?.undeclaredArgument);
    // A quote of given content (echoed-markup) is owed nothing, and a reply that ran a call no wake.
    if (summary.recovered === 0 && correctionDue(0, summary.nudge)) onUnrecovered?.(sessionID);
  };
}
