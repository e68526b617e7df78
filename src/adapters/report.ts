// What the adapters tell their caller: debug lines and one result per response.
import { describeError } from "../engine/describe-error.ts";
import type { AdapterOptions, AdapterResult } from "./options.ts";

/** A throwing debug sink must not turn a harmless note into a broken stream. */
export function debugLine(options: AdapterOptions, line: string): void {
  try {
    options.debug?.(`[dsml-fix] ${line}`);
  } catch {
    // nowhere left to report it
  }
}

export function report(options: AdapterOptions, result: AdapterResult): void {
  try {
    options.onResult?.(result);
  } catch (error) {
    debugLine(options, `onResult threw: ${describeError(error)}`);
  }
}


export function announceRepair(options: AdapterOptions, requestTag: string | undefined): void {
  try {
    options.onRepairing?.(requestTag);
  } catch (error) {
    debugLine(options, `onRepairing threw: ${describeError(error)}`);
  }
}
