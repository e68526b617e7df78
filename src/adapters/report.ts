// What the adapters tell their caller: debug lines and one result per response.
import { describeError } from "../engine/describe-error.ts";
import { type AdapterOptions, type AdapterResult, debugLine } from "../options/adapter.ts";

export { debugLine };

export function report(options: AdapterOptions, result: AdapterResult): void {
  callBack(options, "onResult", () => options.onResult?.(result));
}

export function announceRepair(options: AdapterOptions, requestTag: string | undefined): void {
  callBack(options, "onRepairing", () => options.onRepairing?.(requestTag));
}

/** A caller's callback that throws costs one debug line, never the response. */
function callBack(options: AdapterOptions, name: string, call: () => void): void {
  try {
    call();
  } catch (error) {
    debugLine(options, `${name} threw: ${describeError(error)}`);
  }
}
