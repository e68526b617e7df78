// One call's engines, built alike by both adapters: engine options from the settled options and
// what the call allows, and every engine guarded, so that a fault of its own costs a debug line
// and passes the text through (src/engine/guarded.ts).
import type { ToolSpec } from "../parse/types.ts";
import type { EchoGuard, EngineOptions } from "../engine/types.ts";
import { GuardedEngine } from "../engine/guarded.ts";
import { engineOptions } from "../options/engine.ts";
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
}

/** A fresh guarded engine for each text channel of the call: "reasoning" for a D06 stretch, `continues` for a later part of one reply. */
export function callEngines(factory: EngineFactory, options: AdapterOptions, scope: CallScope, onError: (line: string) => void): EngineFor {
  return (channel, continues) => {
    const extra: Partial<EngineOptions> = {};
    if (scope.oneCall) extra.maxCalls = 1;
    if (channel) extra.channel = channel;
    if (continues) extra.continues = continues;
    return new GuardedEngine(factory({ ...engineOptions(options, scope.tools, scope.declaredNames, scope.isEchoed), ...extra }), onError);
  };
}
