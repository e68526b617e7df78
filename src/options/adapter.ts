// The options the library adapters (repairFetch, repairMiddleware) take, and their debug sink.
import type { ParseOptionsInput } from "../parse/types.ts";
import type { EngineSummary } from "../engine/types.ts";

export interface AdapterResult {
  requestTag?: string;
  summary: EngineSummary;
  /** 1 for the first request seen with this tag, counting up on retries. */
  attempt: number;
}

/** responseFix as the library takes it; every key is documented, with its default, in src/options/spec.ts. */
export interface ResponseFixOptions {
  enabled?: boolean;
  bufferLimit?: number;
  /**
   * Tools a recovered call may name, among those the request declared. Absent, or holding "*":
   * every declared tool. A call under another agent's name (`Bash`) counts as the declared tool
   * it runs as (`bash`). Native tool calls are never affected.
   */
  allowTools?: readonly string[];
  /**
   * Tools a recovered call may never name ("*": none at all); wins over allowTools. Matched
   * against the name the model wrote as well as the tool it runs as (`["Bash"]` stops `Bash`).
   */
  denyTools?: readonly string[];
  /** Echo guard (default true): never execute markup quoted from content the request gave the model. */
  echoGuard?: boolean;
}

/** Every key is optional, nested ones too: `{ parse: { dialects: { mistralResidue: true } } }` is complete. */
export interface AdapterOptions {
  parse?: ParseOptionsInput;
  /**
   * history.sanitize (default true): the fetch adapter replaces leaked markup in the replayed
   * assistant turns of a chat, Messages or Responses request before it goes up, reading them with
   * the tools that request declares. The middleware reads the same key from its own options.
   */
  history?: { sanitize?: boolean };
  responseFix?: ResponseFixOptions;
  debug?: (line: string) => void;
  onResult?: (r: AdapterResult) => void;
  /**
   * Called before a request is sent whose response this adapter reads (its wire is known), whether
   * it declares tools or not: a reply to a request with no tools is passed through as written on
   * purpose, since nothing in it can be a call. It comes before any byte of the response, so a
   * consumer that sees the reply another way (OpenCode's text hook) knows the wire path owns it,
   * and must not second-guess it, even before onResult (which a tool-less request never gets).
   */
  onRepairing?: (requestTag: string | undefined) => void;
}

/** A throwing debug sink must not turn a harmless note into a broken stream. */
export function debugLine(options: AdapterOptions, line: string): void {
  try {
    options.debug?.(`[dsml-fix] ${line}`);
  } catch {
    // nowhere left to report it
  }
}
