// The adapters' public option types, and the switches they share.
import type { EngineOptions, RepairEngine } from "../engine/types.ts";
import { OPTIONS } from "../options/spec.ts";
import type { AdapterOptions } from "../options/adapter.ts";
import type { RepairedItems } from "./repaired-items.ts";

export type { AdapterOptions, AdapterResult, ResponseFixOptions } from "../options/adapter.ts";

/** Header the plugin sets so a response can be traced back to `<sessionID>/<messageID>`; never forwarded upstream. */
export const REQUEST_TAG_HEADER = "x-dsml-fix-tag";

export type EngineFactory = (options: EngineOptions) => RepairEngine;

export interface AdapterDeps {
  /** Replaces the real engine (tests, benchmarks). */
  createEngine?: EngineFactory;
  /** The store of Responses items this repairFetch notes (the proxy reads it in its own history pass); by default one of its own. */
  items?: RepairedItems;
  /**
   * The most bytes a content-coded (gzip, br…) request body is decoded to before the adapter stands
   * aside (a zip bomb stops there); by default the adapter's read bound, 32 MiB. The proxy passes
   * its own body limit (--max-body).
   */
  maxBodyBytes?: number;
}

export function repairEnabled(options: AdapterOptions): boolean {
  return (options.responseFix?.enabled ?? OPTIONS.fields.responseFix.fields.enabled.default) !== false;
}

/** history.sanitize: replayed assistant turns go upstream with their leaks replaced. */
export function sanitizeEnabled(options: AdapterOptions): boolean {
  return (options.history?.sanitize ?? OPTIONS.fields.history.fields.sanitize.default) !== false;
}
