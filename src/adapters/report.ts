// What the adapters tell their caller: debug lines and one result per response.
import { describeError } from "../engine/describe-error.ts";
import { type AdapterOptions, type AdapterResult, debugLine } from "../options/adapter.ts";

export { debugLine };

/** A caller's callback that throws costs one debug line, never the response. */
export function report(options: AdapterOptions, result: AdapterResult): void {
  orPassThrough(options, "onResult", () => void options.onResult?.(result), () => undefined);
}

/** Debug lines about one request, led by its tag so they can be traced to `<sessionID>/<messageID>`. */
export function requestDebug(options: AdapterOptions, tag: string | undefined): (line: string) => void {
  return (line) => debugLine(options, `${tag ?? "untagged"}: ${line}`);
}

export function announceRepair(options: AdapterOptions, requestTag: string | undefined): void {
  orPassThrough(options, "onRepairing", () => void options.onRepairing?.(requestTag), () => undefined);
}

/**
 * The adapters' failure boundary: `work`, or, when it throws (or its promise rejects), one debug
 * line naming what failed and `passThrough`: what the host would have had without the plugin.
 * Engine faults never reach it: GuardedEngine (src/engine/guarded.ts) turns them into passthrough
 * and a line of their own.
 */
export function orPassThrough<T>(options: AdapterOptions, what: string, work: () => T, passThrough: () => T): T {
  const failed = (error: unknown): T => {
    noteFailure(options, what, error);
    return passThrough();
  };
  try {
    const result = work();
    return result instanceof Promise ? (result.catch(failed) as T) : result;
  } catch (error) {
    return failed(error);
  }
}

/** The one line every failure the adapters absorb leaves. */
export function noteFailure(options: AdapterOptions, what: string, error: unknown): void {
  debugLine(options, `${what} failed, passing through: ${describeError(error)}`);
}
