/**
 * Fix 53 (P48.4): a garbled closer word inside a DSML block still open (`</{D}tool_callsX>`, a
 * suffixed `</{D}invokeX>`) is held after the block's call as that call's noise. When a stray
 * parameter later refuses the block, the call never ran, so its noise is nobody's: the line is
 * the model's text and stays visible, as P48.1-P48.3 keep theirs ("never lose text").
 * A block whose calls run still strips that noise (S04), and a one-bar closer is kept as before.
 */
import { describe, expect, test } from "bun:test";
import { outcome } from "../support/outcome.ts";
import { live } from "../golden/notation.ts";

const P = (name: string, value: string) => `<{D}parameter name="${name}" string="true">${value}</{D}parameter>`;
const RM = `<{D}invoke name="bash">\n${P("command", "rm -rf ./*")}\n</{D}invoke>`;
const STRAY = P("workdir", "/tmp/scratch");
const open = (between: string, stray = `${STRAY}\n`) => live(`Cleaning.\n<{D}tool_calls>\n${RM}\n${between}${stray}</{D}tool_calls>`);

describe("a refused block keeps the garbled closer its call held as noise", () => {
  /*
   * Was: lost text (severity 2). Input: golden P48.4, a block with a call, a closer word with a
   * suffix, then a parameter outside every invoke. The block is refused (I02, D08, D08), yet the
   * `</{D}tool_callsX>` line was stripped as the refused call's noise (src/engine/tail.ts joinInto
   * released noise pieces as stripped). Fixed: a held call refused gives its noise back as text.
   */
  test("P48.4: a closer word with a suffix before the stray parameter stays visible", () => {
    const input = open("</{D}tool_callsX>\n");
    const o = outcome(input);
    expect(o.calls).toEqual([]);
    expect(o.broken.length).toBe(3);
    expect(o.text).toBe(input);
  });

  /* Sibling, same cause: a suffixed invoke closer after the call. Fixed as above. */
  test("a suffixed invoke closer before the stray parameter stays visible", () => {
    const input = open("</{D}invokeX>\n");
    const o = outcome(input);
    expect(o.calls).toEqual([]);
    expect(o.text).toBe(input);
  });

  /* Sibling: two calls held for the block's closer, the noise between them; the stray refuses both. Fixed as above. */
  test("the noise between two held calls stays visible when both are refused", () => {
    const input = live(`<{D}tool_calls>\n${RM}\n</{D}tool_callsX>\n${RM}\n${STRAY}\n</{D}tool_calls>`);
    const o = outcome(input);
    expect(o.calls).toEqual([]);
    expect(o.broken.length).toBe(4);
    expect(o.text).toBe(input);
  });

  // Hard negatives: what kept working.
  test("a one-bar closer before the stray parameter was and stays visible", () => {
    for (const closer of ["</{BAR}tool_calls>\n", "</{BAR}invoke>\n", "</{D}parameterX>\n", "<{D}tool_callsX>\n"]) {
      const input = open(closer);
      const o = outcome(input);
      expect(o.calls).toEqual([]);
      expect(o.text).toBe(input);
    }
  });

  test("a block whose call runs still strips the closer word with a suffix (S04)", () => {
    const o = outcome(open("</{D}tool_callsX>\n", "\n"));
    expect(o.calls).toEqual([{ tool: "bash", input: { command: "rm -rf ./*" } }]);
    expect(o.broken).toEqual([]);
    expect(o.text).toBe("Cleaning.\n");
  });

  test("two calls that run strip the closer word with a suffix between them", () => {
    const o = outcome(live(`<{D}tool_calls>\n${RM}\n</{D}tool_callsX>\n${RM}\n</{D}tool_calls>`));
    expect(o.calls.length).toBe(2);
    expect(o.broken).toEqual([]);
    expect(o.text).not.toContain("tool_callsX");
  });
});
