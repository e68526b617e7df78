/**
 * Review 45: the echo guard counts a quoted value as given only next to call markup in the given
 * content, so it must see markup wherever the engine reads a call. It finds markup with the
 * engine's own grammar (src/echo/given-content.ts markupOf: grammar/tags.ts readTagHead, the J01
 * prefix reader); these tests pin that the two never diverge again, over every golden fixture and
 * a table of spellings built from the dialect tables' words with each tolerated flaw:
 * - at every position where the tag reader reads a tag that its family's opener rule opens a
 *   candidate at (the most permissive engine: every dialect, costumes, line start), the guard sees
 *   an opener; at every other tag the reader reads, call markup of some kind (generic words aside);
 * - every call the engine recovers from a fixture, read as given content, holds an opener there.
 */
import { describe, expect, test } from "bun:test";
import { buildGivenHaystack } from "../../src/echo/given-content.ts";
import { markupOf, OPENS, NO_MARKUP } from "../../src/echo/given-markup.ts";
import { DIALECTS, GENERIC_TAG_NAMES, type DialectSwitches } from "../../src/grammar/dialects.ts";
import { isBarCode } from "../../src/grammar/markers.ts";
import { asLostLtCloser, readTag, type Tag } from "../../src/grammar/tags.ts";
import { OPENERS, type OpenerView } from "../../src/parse/openers.ts";
import { createRepairEngine } from "../../src/engine/engine.ts";
import type { Fixture } from "../golden/build-fixtures.ts";
import { BAR, D, DVL, SP } from "../golden/notation.ts";
import { fixtureTools } from "../golden/tools.ts";
import { legacyToken } from "../property/arbitraries.ts";

const stored = (await Bun.file(new URL("../golden/fixtures.json", import.meta.url)).json()) as Fixture[];
const toolNames = new Set(fixtureTools.map((t) => t.name));
const EVERY_DIALECT = Object.fromEntries(Object.keys(DIALECTS).map((id) => [id, true])) as DialectSwitches;

/** The engine at its most permissive: a tag opens here if it opens anywhere. */
const VIEW: OpenerView = {
  tail: false,
  openBlock: null,
  atLineStart: () => true,
  declared: (name) => toolNames.has(name),
  dialects: EVERY_DIALECT,
  codeCostumes: true,
  closeOpenBlock: () => false,
  closeToolCall: () => {},
};

const lineEnd = (s: string, from: number) => {
  for (let k = from; k < s.length; k++) if (s[k] === "\n" || s[k] === "\r") return k;
  return s.length;
};

interface Miss {
  at: string;
  tag: string;
  opens: boolean;
}

/** Every tag the reader reads in `s` that the guard does not see as markup (as an opener, where the engine would open a candidate). */
function misses(s: string): Miss[] {
  const out: Miss[] = [];
  for (let j = 0; j < s.length; j++) {
    const c = s.charCodeAt(j);
    if (c !== 0x3c && c !== 0x5b && !isBarCode(c)) continue;
    const read = readTag(s, j, true);
    if (read === null || read === "need-more") continue;
    const tag: Tag = asLostLtCloser(read, j > 0 ? s.charCodeAt(j - 1) : 0);
    const opens = typeof OPENERS[tag.family](tag, s, VIEW) === "object";
    const kind = markupOf(s, j, lineEnd(s, j), toolNames).kind;
    if (opens ? kind !== OPENS : kind === NO_MARKUP && !GENERIC_TAG_NAMES.has(tag.name)) out.push({ at: s.slice(j, j + 40), tag: `${tag.family} ${tag.name}${tag.closing ? " (closer)" : ""}`, opens });
  }
  return out;
}

/** Openers the dialect tables know, written with each flaw the tag reader tolerates. */
const NAMES = ["function_calls", "tool_calls", 'invoke name="bash"', 'parameter name="command"', "minimax:tool_call", "tool_call", "shell", "bash", "execute_bash", "code_interpreter", "function=bash", "arg_key", "arg_value"];
const NAMESPACED = ["foo:function_calls", "x:tool_calls", 'ns:invoke name="bash"', 'antml:parameter name="command"'];
const LEGACY = ["tool calls begin", "tool call begin", "tool sep", "tool call end", "tool calls end", "tool calls section begin", "tool call argument begin", "tool call start"];
const SENTINELS = [D, `${BAR}${BAR}DSML${BAR}${BAR}`, "|DSML|", `${DVL}DSML${DVL}`, `${BAR} DSML ${BAR}`, `${BAR}DSML${BAR} `];
const DSML_NAMES = ["function_calls", "tool_calls", 'invoke name="bash"', 'parameter name="command" string="true"', "toolcall", "read"];

function spellings(): string[] {
  const out: string[] = [];
  for (const name of [...NAMES, ...NAMESPACED]) {
    for (const lead of ["<", "< ", "<\t", "</", "</ "]) out.push(`${lead}${name}>`);
  }
  for (const sentinel of SENTINELS) {
    for (const name of DSML_NAMES) for (const lead of ["<", "< ", "</", ""]) out.push(`${lead}${sentinel}${name}>`);
    out.push(`x/${sentinel}invoke>`); // a closer whose `<` was lost
  }
  for (const words of LEGACY) {
    const token = legacyToken(words);
    out.push(token, token.replace("<", "< "), token.slice(1), token.replaceAll(BAR, "|"), token.replaceAll(BAR, "|").slice(1), token.replaceAll(SP, "_"), token.replaceAll(SP, " "));
  }
  out.push("[TOOL_CALLS]bash[ARGS]{}", "[TOOL_CALL] {}", "[/TOOL_CALL]");
  return out;
}

describe("the echo guard sees markup wherever the engine's grammar reads it", () => {
  test("every tag in every golden fixture's input", () => {
    const found = stored.flatMap((f) => misses(f.input).map((m) => ({ id: f.id, ...m })));
    expect(found).toEqual([]);
  });

  test("every opener of the dialect tables, with every flaw the tag reader tolerates", () => {
    const all = spellings();
    // The table is read by the grammar at all (a spelling nothing reads proves nothing).
    const read = all.filter((s) => [...s].some((_, j) => { const r = readTag(s, j, true); return r !== null && r !== "need-more"; }));
    expect(read.length).toBeGreaterThan(all.length * 0.9);
    expect(all.flatMap((s) => misses(`Quoted:\n${s}\n`).map((m) => ({ spelling: s, ...m })))).toEqual([]);
  });

  test("every call the engine recovers from a golden fixture is markup as given content", () => {
    const blind: { id: string; opener: string }[] = [];
    for (const f of stored) {
      const ended: { span: string; openerLength: number }[] = [];
      const engine = createRepairEngine({
        tools: fixtureTools,
        parse: { ...f.options, standaloneJson: true },
        idPrefix: "g_",
        readingGiven: { candidateEnded: (span, openerLength, segments) => void (segments?.some((s) => s.kind === "call") && ended.push({ span, openerLength })) },
      });
      engine.feed(f.input);
      engine.flush();
      for (const { span, openerLength } of ended) {
        // A tagless opener (J01's `{`, the residue's tool name) has no length: the span then.
        const opener = openerLength > 0 ? span.slice(0, openerLength) : span;
        const hay = buildGivenHaystack([opener], toolNames);
        if (!hay.closes.some((closes) => !closes)) blind.push({ id: f.id, opener });
      }
    }
    expect(blind).toEqual([]);
  });

  test("a text with no call markup holds none (so the tests above can fail)", () => {
    expect(misses("Quoted:\n< invoke name=\"bash\">\n").length).toBe(0);
    const hay = buildGivenHaystack(["a <b>bold</b> claim, x < y, [link](url), {\"key\": 1}, <name>n</name>, <code>c</code>"], toolNames);
    expect(hay.markup).toEqual([]);
  });
});
