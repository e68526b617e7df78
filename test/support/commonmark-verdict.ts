/**
 * The kit of the documentation-context tests that check each case against commonmark.js first
 * (where does the call's argument render?) and then run it through the engine whole, char by
 * char and at seeded random splits: one-line and multi-line calls of three dialects carrying a
 * token, where commonmark.js puts that token, and how many calls the engine emits.
 */
import { expect } from "bun:test";
import { Parser, type Node } from "commonmark";
import { fixtureTools } from "../golden/tools.ts";
import { D, escaped } from "../golden/notation.ts";
import { everyChar, randomCuts, runEngine } from "./run-engine.ts";

/** The token in the calls' argument: what commonmark.js is searched for. */
export const TOKEN = "ZQXJ7";
export const COMMAND = `echo ${TOKEN}`;

/** One-line calls of three dialects running `echo <token>` (mid-line, so no line-start costume); none holds a `'`. */
export function oneLineCalls(token = TOKEN): { dsml: string; hermes: string; mistral: string } {
  const command = `echo ${token}`;
  return {
    dsml: `<${D}tool_calls><${D}invoke name="bash"><${D}parameter name="command" string="true">${command}</${D}parameter></${D}invoke></${D}tool_calls>`,
    hermes: `<tool_call>${JSON.stringify({ name: "bash", arguments: { command } })}</tool_call>`,
    mistral: `[TOOL_CALLS]bash[ARGS]{"command":"${command}"}`,
  };
}

/** The same calls with DSML and Hermes over several lines (Mistral's is one line). */
export function blockCalls(token = TOKEN): { dsml: string; hermes: string; mistral: string } {
  const command = `echo ${token}`;
  return {
    dsml: [`<${D}tool_calls>`, `<${D}invoke name="bash">`, `<${D}parameter name="command" string="true">${command}</${D}parameter>`, `</${D}invoke>`, `</${D}tool_calls>`].join("\n"),
    hermes: `<tool_call>\n${JSON.stringify({ name: "bash", arguments: { command } })}\n</tool_call>`,
    mistral: oneLineCalls(token).mistral,
  };
}

export const CALLS: Record<string, string> = oneLineCalls();
export const BLOCK_CALLS: Record<string, string> = blockCalls();

export const show = (s: string) => JSON.stringify(escaped(s));

const markdown = new Parser();

export interface HolderOptions {
  token?: string;
  /** Whether a link's or image's title or destination counts (default true); false: literals only. */
  links?: boolean;
}

/**
 * The first commonmark.js node (in document order, containers as they are entered) that renders
 * the token, and where: in its title, its destination or its literal. Null: unseen.
 */
export function holder(doc: string, { token = TOKEN, links = true }: HolderOptions = {}): { node: Node; field: "title" | "destination" | "literal" } | null {
  const w = markdown.parse(doc).walker();
  for (let ev = w.next(); ev; ev = w.next()) {
    const n = ev.node;
    if (!ev.entering && n.isContainer) continue;
    if (links && n.title?.includes(token)) return { node: n, field: "title" };
    if (links && n.destination?.includes(token)) return { node: n, field: "destination" };
    if (n.literal?.includes(token)) return { node: n, field: "literal" };
  }
  return null;
}

/** Where commonmark.js puts the token: "title", "destination", the type of the node whose literal holds it (code, html_inline, text, …), or "unseen". */
export function rendersAs(doc: string, options: HolderOptions = {}): string {
  const h = holder(doc, options);
  if (!h) return "unseen";
  return h.field === "literal" ? h.node.type : h.field;
}

export interface CallCountOptions {
  /** When no call runs, the text must come out unchanged (default true). */
  keepsText?: boolean;
}

/**
 * A `callsIn(input)` for one test file: the calls emitted whole, char by char and at two seeded
 * random splits (the first seed in chunks of up to 12, the second of up to 5); the runs must
 * agree on the text and the number of calls, and the text is kept when none runs.
 */
export function callCounter([seed, smallSeed]: readonly [number, number], { keepsText = true }: CallCountOptions = {}): (input: string) => number {
  return (input) => {
    const whole = runEngine(input, [], fixtureTools);
    for (const cuts of [everyChar(input.length), randomCuts(input.length, seed), randomCuts(input.length, smallSeed, 5)]) {
      const split = runEngine(input, cuts, fixtureTools);
      expect(escaped(split.text)).toBe(escaped(whole.text));
      expect(split.calls.length).toBe(whole.calls.length);
    }
    if (keepsText && whole.calls.length === 0) expect(escaped(whole.text)).toBe(escaped(input));
    return whole.calls.length;
  };
}
