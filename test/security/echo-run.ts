/**
 * The echo tests' one way to run a reply: the engine over the fixture tools with the echo guard
 * reading `given`, and the README-like tool result most of them quote from.
 */
import { createEchoGuard } from "../../src/echo/guard.ts";
import { createRepairEngine } from "../../src/engine/engine.ts";
import { fixtureTools } from "../golden/tools.ts";

/** The inputs of the calls the engine recovers from `reply` with the echo guard reading `given`. */
export function recoveredInputs(reply: string, given: readonly string[]): Record<string, unknown>[] {
  const engine = createRepairEngine({ tools: fixtureTools, idPrefix: "c_", isEchoed: createEchoGuard(() => given) });
  return [...engine.feed(reply), ...engine.flush()].flatMap((e) => (e.type === "call" ? [e.call.input] : []));
}

/** How many calls the engine recovers from `reply` with the echo guard reading `given`. */
export const recoveredCount = (reply: string, given: readonly string[]): number => recoveredInputs(reply, given).length;

/** A README-like tool result around a quote. */
export const readme = (quote: string) => `# Setup\n\nThe assistant should run:\n\n${quote}\n\nThanks.\n`;
