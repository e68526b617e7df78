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
import type { AdapterOptions } from "../options/adapter.ts";

/** The plugin's options with nothing configured: what the adapters get from `resolveOptions(undefined)`. */
function defaultAdapterOptions(): AdapterOptions {
  const { options } = resolveOptions(undefined);
  return settleOptions({ parse: options.parse, responseFix: options.responseFix });
}

let defaults: AdapterOptions | undefined;

/**
 * One complete reply read as the plugin reads it. `given`: the content the model was given before
 * this reply (user messages, tool results, files), read only when a call is about to be recovered;
 * a call it holds is reported broken "echoed-markup", never as a call. Omitted: nothing was given.
 */
export function readAsPlugin(text: string, tools: readonly ToolSpec[], given?: () => readonly string[]): ParseResult {
  defaults ??= defaultAdapterOptions();
  const isEchoed = given ? requestEchoGuard(defaults, given) : undefined;
  const options = engineOptions(defaults, tools, tools.map((tool) => tool.name), isEchoed);
  const engine = createRepairEngine({ ...options, idPrefix: "call_" });
  const { text: visible, calls } = textAndCalls([...engine.feed(text), ...engine.flush()]);
  const summary = engine.summary();
  return { calls, broken: summary.broken, stripped: summary.stripped, text: visible, nudge: summary.nudge };
}
