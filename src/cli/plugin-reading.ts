// How `dsml-fix scan` reads a reply: as the plugin with its default options would, so its verdict is
// the plugin's. The same engine options the adapters build (src/options/engine.ts engineOptions):
// the plugin's parse options and responseFix.bufferLimit (65536 by default: a longer candidate is
// released verbatim, no call), allowTools/denyTools, and the echo guard over what the model was
// given before the reply (a call it only quoted from there never runs).
import type { ParseResult, ToolSpec } from "../parse/types.ts";
import { createRepairEngine } from "../engine/engine.ts";
import { textAndCalls } from "../engine/events.ts";
import { engineOptions } from "../options/engine.ts";
import { settleOptions } from "../options/settle.ts";
import { requestEchoGuard } from "../echo/from-request.ts";
import { resolveOptions } from "../plugin/options.ts";
import { routeInScope } from "../plugin/scope.ts";
import type { AdapterOptions } from "../options/adapter.ts";
import type { EchoGuard } from "../engine/types.ts";

/** The plugin's options with nothing configured: what the adapters get from `resolveOptions(undefined)`. */
function defaultAdapterOptions(): AdapterOptions {
  const { options } = resolveOptions(undefined);
  return settleOptions({ parse: options.parse, responseFix: options.responseFix });
}

let defaults: AdapterOptions | undefined;

/**
 * The echo guard the plugin would build over `given` (undefined when its options turn the guard
 * off): for a caller that keeps one guard over a session's growing history (history-guard.ts).
 */
export function pluginEchoGuard(given: () => readonly string[]): EchoGuard | undefined {
  defaults ??= defaultAdapterOptions();
  return requestEchoGuard(defaults, given);
}

/**
 * One complete reply read as the plugin reads it. `given`: the content the model was given before
 * this reply (user messages, tool results, files), read only when a call is about to be recovered;
 * a call it holds is reported broken "echoed-markup", never as a call; or `{ guard }`, a guard
 * already built over it (pluginEchoGuard). Omitted: nothing was given.
 */
export function readAsPlugin(text: string, tools: readonly ToolSpec[], given?: (() => readonly string[]) | { guard: EchoGuard | undefined }): ParseResult {
  defaults ??= defaultAdapterOptions();
  const isEchoed = given === undefined ? undefined : typeof given === "function" ? requestEchoGuard(defaults, given) : given.guard;
  const options = engineOptions(defaults, tools, tools.map((tool) => tool.name), isEchoed);
  const engine = createRepairEngine({ ...options, idPrefix: "call_" });
  const { text: visible, calls } = textAndCalls([...engine.feed(text), ...engine.flush()]);
  const summary = engine.summary();
  // The nudge the plugin would send: none after a reply that only quoted given content (the engine
  // names that "echoed-markup"; src/plugin/retry-controller.ts correctionDue owes it nothing).
  return { calls, broken: summary.broken, stripped: summary.stripped, text: visible, nudge: summary.nudge === "echoed-markup" ? null : summary.nudge };
}

/**
 * Broken markup of the model's own: every broken span but a quote of content it was given
 * ("echoed-markup", which never ran and is owed nothing). A reply holding only quotes is not
 * "broken tool-call markup found" (exit status 1).
 */
export function ownBroken<Span extends { reason: string }>(result: { broken: readonly Span[] }): Span[] {
  return result.broken.filter((span) => span.reason !== "echoed-markup");
}

/**
 * Whether the plugin with its default options acts on a stored reply's model at all (providers
 * ["auto"]: leak-prone model families, judged by the id the store holds). Out of scope, it leaves
 * the reply as the model wrote it: nothing is recovered, nothing corrected.
 */
export function inDefaultScope(providerID: string, modelID: string | undefined): boolean {
  return routeInScope(resolveOptions(undefined).options, { providerID, ...(modelID === undefined ? {} : { modelID }) });
}
