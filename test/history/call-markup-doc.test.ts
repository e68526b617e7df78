/**
 * A well-formed call in replayed history is read as the live repair reads it: as markup the
 * documentation context skips (Output.afterMarkup), never as text released to it. Read as text, a
 * ```json fence in a call's arguments whose closing line goes on with a token (golden L01, L06, I10)
 * opened a fence over the rest of the reply, and the tags of a costume (C02's `<pre>`) or of a Kimi
 * section read as a quote held the next leak; history then replaced the first call only and sent
 * the next one up as written, though the live repair runs it. The second reading (redactReply) sees
 * the first reading's documentation the same way (FirstReading), so the leak's stray closer it finds
 * once the call is a note is replaced too. Documentation after a call still holds its examples.
 */
import { describe, expect, test } from "bun:test";
import { parse } from "../../src/engine/parse.ts";
import { REMOVED_NOTE, redactLeaks, redactReply } from "../../src/history/sanitize.ts";
import type { Fixture } from "../golden/build-fixtures.ts";
import { live } from "../golden/notation.ts";
import { fixtureTools } from "../golden/tools.ts";

const stored = (await Bun.file(new URL("../golden/fixtures.json", import.meta.url)).json()) as Fixture[];
const fx = (id: string) => stored.find((f) => f.id === id)!.input;
const BLOCK = live(`<{D}tool_calls>\n<{D}invoke name="bash">\n<{D}parameter name="command" string="true">echo two</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`);
const N = REMOVED_NOTE;

describe("a call's markup in history opens no documentation", () => {
  test("L01 then a DSML block a blank line apart: both replaced, the blank line kept", () => {
    const text = `${fx("L01")}\n\n${BLOCK}`;
    expect(parse(text, fixtureTools).calls).toHaveLength(2);
    expect(redactLeaks(text, {}, fixtureTools)).toMatchObject({ text: `${N}\n\n${N}`, removed: 2 });
  });

  test("I10 then A41.5 a space apart: the block's stray closer after its call is replaced too (nothing re-read acts)", () => {
    const text = `${fx("I10")} ${fx("A41.5")}`;
    const out = redactLeaks(text, {}, fixtureTools);
    const again = parse(out.text, fixtureTools);
    expect({ calls: again.calls.length, nudge: again.nudge, broken: again.broken }).toEqual({ calls: 0, nudge: null, broken: [] });
    expect(out.text.startsWith(`${N} ${N}`)).toBe(true);
  });

  test("an echo guard's call is read as markup too: the call after it is replaced", () => {
    const text = `${fx("L06")}\n\n${BLOCK}`;
    const isEchoed = ({ input }: { input: Record<string, unknown> }) => input.command === "ls -la";
    // The reading with a guard (the proxy's and repairFetch's): the first call echoed, both spans found.
    const guarded = redactReply([{ text }], {}, fixtureTools, { isEchoed });
    expect({ texts: guarded.texts, removed: guarded.removed, shapes: guarded.shapes, nudge: guarded.nudge }).toEqual({ texts: [`${N}\n\n${N}`], removed: 2, shapes: ["L06", "D02"], nudge: "undeclared-tool" });
  });

  test("a fenced example after a call stays as written, as live keeps it (the call's own fence closed none)", () => {
    const text = `${fx("L01")}\n\n\`\`\`\n${BLOCK}\n\`\`\``;
    expect(parse(text, fixtureTools).calls).toHaveLength(1);
    expect(redactLeaks(text, {}, fixtureTools)).toMatchObject({ text: `${N}\n\n\`\`\`\n${BLOCK}\n\`\`\``, removed: 1 });
  });

  test("hard negative: a fence the model opened before a call still holds the example after it", () => {
    const text = `\`\`\`\n${fx("L01")}\n${BLOCK}\n\`\`\``;
    expect(parse(text, fixtureTools).calls).toHaveLength(0);
    expect(redactLeaks(text, {}, fixtureTools).removed).toBe(0);
  });
});
