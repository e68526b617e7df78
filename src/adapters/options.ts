// The adapters' public option types, and the repair switch they share.
import type { ParseOptionsInput } from "../parse/types.ts";
import type { EngineOptions, EngineSummary, RepairEngine } from "../engine/types.ts";

/** Header the plugin sets so a response can be traced back to `<sessionID>/<messageID>`; never forwarded upstream. */
export const REQUEST_TAG_HEADER = "x-dsml-fix-tag";

export interface AdapterResult {
  requestTag?: string;
  summary: EngineSummary;
  /** 1 for the first request seen with this tag, counting up on retries. */
  attempt: number;
}

export interface ResponseFixOptions {
  enabled?: boolean;
  bufferLimit?: number;
  /**
   * Tools a recovered call may name, among those the request declared. Absent, or holding "*":
   * every declared tool. Native tool calls are never affected.
   */
  allowTools?: readonly string[];
  /** Tools a recovered call may never name ("*": none at all); wins over allowTools. */
  denyTools?: readonly string[];
  /** Echo guard (default true): never execute markup quoted from content the request gave the model. */
  echoGuard?: boolean;
}

/** Every key is optional, nested ones too: `{ parse: { dialects: { mistralResidue: true } } }` is complete. */
export interface AdapterOptions {
  parse?: ParseOptionsInput;
  responseFix?: ResponseFixOptions;
  debug?: (line: string) => void;
  onResult?: (r: AdapterResult) => void;
  /**
   * Called before a request is sent whose response this adapter will repair (its wire is known and
   * it declares tools). It comes before any byte of the response, so a consumer that sees the reply
   * another way (OpenCode's text hook) knows the wire path owns it even before onResult.
   */
  onRepairing?: (requestTag: string | undefined) => void;
}

export type EngineFactory = (options: EngineOptions) => RepairEngine;

export interface AdapterDeps {
  /** Replaces the real engine (tests, benchmarks). */
  createEngine?: EngineFactory;
}

export function repairEnabled(options: AdapterOptions): boolean {
  return options.responseFix?.enabled !== false;
}
