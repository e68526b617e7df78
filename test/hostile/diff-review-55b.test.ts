/**
 * Diff review 55b (hostile, tests only): fix 55's part-end rule (src/engine/part-end.ts,
 * candidate.ts `endedByText`, span-callbacks.ts settled(), engine.ts endSpan, cut-tag.ts) and the
 * Unicode-class reading of tool list entries (src/options/check.ts noToolName).
 *
 * What was tried on the part-end rule and found clean (no failing test; the sweeps below keep a
 * bounded sample of them): every cut of every golden (813, two parts, both engine readings,
 * test/support/read-parts.ts) with and without a later clean Hermes call appended; 40 seeded
 * three-part cuts of every golden, with and without that later call; every clean-call golden
 * followed, in the next part, by ~30 stray closers and closer runs of every dialect (with and
 * without a line end or a blank line before the part's end, with and without a later call); fenced,
 * indented, inline-code, quoted, commented and `<pre>` examples opened in one part and holding a
 * call in the next; ~28,000 cuts of the goldens through the fetch route and the AI SDK middleware on
 * Anthropic (text | thinking | text) and Responses (two message items). No call ran that the whole
 * reply refuses, no text was lost or doubled when nothing ran, and the two readings always agreed.
 * Replayed history read in three parts differs from main's in one sampled cut only (A41.2 cut at
 * `parame|ter name|=...`: an unprefixed `</parameter>` line main replaced is now kept as text; no
 * call, no marker), not a finding.
 *
 * The COST of the rule is pinned below as passing tests (documented policy, docs/PATTERNS.md "The
 * cost: a DSML block closed at a part's end (with its line end or without) ..."): a DSML call whose
 * block ends its text part now never runs when any text part follows, where main ran it when the
 * block's closer ended its line. That is the usual DeepSeek leak shape (the block is the last thing
 * it writes), so it is hit whenever a second text part follows it: an Anthropic reply with
 * interleaved thinking (text | thinking | text), a Responses reply with two message items or two
 * output_text parts. Before a native call (tool_use, function_call) the markup is now shown as
 * written where main withdrew it silently. Hermes and other closers that end their call are
 * untouched.
 *
 * One finding, on check.ts: U+1D159 MUSICAL SYMBOL NULL NOTEHEAD (a symbol, So, listed with U+2800
 * among the "invisible characters" pasted from the web) is still accepted in a tool name.
 */
import { describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import fixtures from "../golden/fixtures.json";
import { noToolName } from "../../src/options/check.ts";
import { READINGS, readParts } from "../support/read-parts.ts";
import { ROUTES, splitBodies } from "./review-54-rules-wires-support.ts";
import { functionCall, message, messageEnd, messageStart, namedSse, responsesEvents, textBlock, thinkingBlock, toolUseBlock } from "./review-48-wires-support.ts";

const D = "\uFF5CDSML\uFF5C";
const DSML_LS = `<${D}tool_calls>\n<${D}invoke name="bash">\n<${D}parameter name="command" string="true">ls</${D}parameter>\n</${D}invoke>\n</${D}tool_calls>`;
const HERMES_LS = '<tool_call>{"name":"bash","arguments":{"command":"ls"}}</tool_call>';
const LS = { command: "ls" };
const LATER = '\n\n<tool_call>{"name":"bash","arguments":{"command":"echo ZQ"}}</tool_call>';
const LATER_INPUT = { command: "echo ZQ" };
const GOLDENS = fixtures as { id: string; input: string }[];

// ---------------------------------------------------------------------------------------------
// check.ts: tool list entries that show as nothing
// ---------------------------------------------------------------------------------------------

/**
 * FINDING 1 (missed refusal, low: a security list that does not fail closed on a paste slip).
 * U+1D159 MUSICAL SYMBOL NULL NOTEHEAD is a symbol (gc So), neither default-ignorable nor a
 * format character, so SHOWS_AS_NOTHING misses it, yet music fonts draw it as nothing and it is on
 * the usual web lists of "invisible characters" beside U+2800 (which fix 55 added by hand for the
 * same reason) and U+3164. `denyTools: ["bash\u{1D159}"]` looks like `["bash"]` in the config and
 * denies nothing, in silence; the allow list `["bash\u{1D159}"]` allows nothing (recovery off).
 * Minimal input: noToolName("bash\u{1D159}").
 * Suspected source: src/options/check.ts SHOWS_AS_NOTHING (add \u{1D159} beside \u2800).
 * Expected: "an invisible character (U+1D159)", as for U+2800.
 * Fixed: SHOWS_AS_NOTHING names U+1D159 beside U+2800 (the two symbols drawn as nothing).
 */
describe("check.ts noToolName: entries that show as nothing", () => {
  test("finding 1: U+1D159 MUSICAL SYMBOL NULL NOTEHEAD in a name is refused as invisible", () => {
    expect(noToolName("bash\u{1D159}")).toBe("an invisible character (U+1D159)");
    expect(noToolName("\u{1D159}")).toBe("an invisible character (U+1D159)");
  });

  test("hard negative: the fillers fix 55 added by class, and the old hand list's, are refused", () => {
    for (const c of [0x2800, 0x1bca0, 0x1bca3, 0x180e, 0x180b, 0x3164, 0x115f, 0xffa0, 0x200b, 0x2063, 0xe0041, 0xfe0f, 0x13430, 0xfdd0, 0xfffe, 0x1fffe, 0x10fffd]) {
      const shown = `U+${c.toString(16).toUpperCase().padStart(4, "0")}`;
      expect(noToolName(`ba${String.fromCodePoint(c)}sh`)).toBe(`an invisible character (${shown})`);
    }
    // A lone surrogate (a JS-built config) is a code point of class Cs on its own.
    expect(noToolName("bash\uD800")).toBe("an invisible character (U+D800)");
    expect(noToolName("bash\uDC00")).toBe("an invisible character (U+DC00)");
  });

  test("hard negative: real names in any script, marks after a letter, MCP names, patterns are accepted", () => {
    for (const name of ["mcp__github__create_issue", "mcp__srv__get.item", "mcp__fs__*", "read?", "mcp__ファイル__読む", "工具_搜索", "инструмент", "क्षेत्र", "ग्", "بحث", "שלום", "Ελληνικά", "a\u0301b", "café", "tool🙂", "server:tool", "@scope/tool"]) {
      expect(noToolName(name)).toBeUndefined();
    }
  });

  test("hard negative: a combining mark is refused only with no character before it", () => {
    expect(noToolName("\u0301bash")).toBe("a combining mark with no character before it (U+0301)");
    expect(noToolName("ba\u0301sh")).toBeUndefined();
  });

  test("hard negative: Node reads the class as Bun does, for every code point", () => {
    // The pattern as shipped (one audited literal, test/security/regex-audit.test.ts).
    const source = readFileSync(path.join(import.meta.dir, "..", "..", "src", "options", "check.ts"), "utf8");
    const literal = /const SHOWS_AS_NOTHING = (\/.+\/u);/.exec(source)?.[1];
    expect(literal).toBeDefined();
    const count = `const re = ${literal}; let n = 0, h = 0; for (let c = 0; c <= 0x10ffff; c++) if (re.test(String.fromCodePoint(c))) { n++; h = (h * 31 + c) % 1000000007; } console.log(n + ":" + h);`;
    const bun = new Function(`const out = []; const console = { log: (s) => out.push(s) }; ${count} return out[0];`)() as string;
    const node = spawnSync("node", ["-e", count], { encoding: "utf8" });
    expect(node.status).toBe(0);
    expect(node.stdout.trim()).toBe(bun);
  });
});

// ---------------------------------------------------------------------------------------------
// The part-end rule: sweeps (hard negatives) and the cost (documented policy, pinned)
// ---------------------------------------------------------------------------------------------

const key = (c: unknown) => JSON.stringify(c);
/** Calls in `calls` that `whole` does not make (as a multiset). */
function extraCalls(calls: unknown[], whole: unknown[]): unknown[] {
  const pool = whole.map(key);
  return calls.filter((c) => {
    const i = pool.indexOf(key(c));
    if (i < 0) return true;
    pool.splice(i, 1);
    return false;
  });
}
const lowSurrogateAt = (t: string, k: number) => t.charCodeAt(k) >= 0xdc00 && t.charCodeAt(k) <= 0xdfff;

describe("part-end rule: goldens cut into parts (sample of the sweeps)", () => {
  // The goldens the rule is about: DSML runs after a block (A46), stray openers (P48), cut tags (P49), held text (S0).
  const about = GOLDENS.filter((g) => /^(A46|P48\.8|P49)/.test(g.id));
  test(`hard negative: every cut of ${about.length} part-end goldens followed by a later call, both readings: no call the whole refuses, text kept when none runs, readings agree`, () => {
    const bad: string[] = [];
    for (const g of about) {
      // With a later clean call: a cut the rule leaves pending must keep that call from running too.
      for (const t of [g.input + LATER]) {
        const whole = readParts([t], false);
        for (let k = 1; k < t.length; k++) {
          if (lowSurrogateAt(t, k)) continue;
          const runs = READINGS.map(([, chained]) => readParts([t.slice(0, k), t.slice(k)], chained));
          for (const r of runs) {
            if (extraCalls(r.calls, whole.calls).length > 0) bad.push(`${g.id}@${k}: extra call`);
            if (r.calls.length === 0 && r.text !== t) bad.push(`${g.id}@${k}: text changed`);
          }
          if (key(runs[0]) !== key(runs[1])) bad.push(`${g.id}@${k}: readings disagree`);
        }
      }
    }
    expect(bad).toEqual([]);
  }, 120_000);

  test("hard negative: seeded three-part cuts of every golden (+ a later call), both readings: no call the whole refuses, readings agree", () => {
    let seed = 12345;
    const rnd = (n: number) => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed % n;
    };
    const bad: string[] = [];
    for (const g of GOLDENS) {
      for (const t of [g.input, g.input + LATER]) {
        const whole = readParts([t], false);
        for (let j = 0; j < 3; j++) {
          let x = 1 + rnd(t.length - 1);
          let y = 1 + rnd(t.length - 1);
          if (x > y) [x, y] = [y, x];
          if (x === y || lowSurrogateAt(t, x) || lowSurrogateAt(t, y)) continue;
          const parts = [t.slice(0, x), t.slice(x, y), t.slice(y)];
          const runs = READINGS.map(([, chained]) => readParts(parts, chained));
          for (const r of runs) {
            if (extraCalls(r.calls, whole.calls).length > 0) bad.push(`${g.id}@${x},${y}: extra call`);
            if (r.calls.length === 0 && r.text !== t) bad.push(`${g.id}@${x},${y}: text changed`);
          }
          if (key(runs[0]) !== key(runs[1])) bad.push(`${g.id}@${x},${y}: readings disagree`);
        }
      }
    }
    expect(bad).toEqual([]);
  }, 120_000);

  test("hard negative: a clean call, then in the next part a stray closer of any dialect: never more calls than whole", () => {
    const strays = [`</tool_call>`, `</${D}parameter>`, `</${D}invoke>`, `</${D}tool_calls>`, `</parameter>`, `</function>`, `</minimax:tool_call>`, "```", `"}}</tool_call>`, `</${D}parameter>\n</${D}invoke>\n</${D}tool_calls>`, `</parameter>\n</function>\n</tool_call>`];
    const clean = GOLDENS.filter((g) => /^(D01|D02|H01|Q01|A46\.1|M01)$/.test(g.id) || g.input === DSML_LS);
    const bad: string[] = [];
    for (const first of [...clean.map((g) => g.input), DSML_LS, HERMES_LS]) {
      for (const sep of ["", "\n", "\n\n"]) {
        for (const stray of strays) {
          for (const later of ["", LATER]) {
            const whole = readParts([first + sep + stray + later], false);
            for (const [, chained] of READINGS) {
              const r = readParts([first + sep, stray + later], chained);
              if (extraCalls(r.calls, whole.calls).length > 0) bad.push(`${JSON.stringify(first.slice(0, 20))} ${JSON.stringify(sep)} ${JSON.stringify(stray)}`);
            }
          }
        }
      }
    }
    expect(bad).toEqual([]);
  }, 120_000);

  for (const [reading, chained] of READINGS) {
    test(`hard negative: documentation opened in one part holds the call written in the next (${reading})`, () => {
      const rm = '<tool_call>{"name":"bash","arguments":{"command":"rm -rf x"}}</tool_call>';
      for (const parts of [
        ["Example:\n```\n", `${rm}\n\`\`\`\n`],
        ["Example:\n~~~\n", `${rm}\n~~~\n`],
        ["Example:\n\n    ", `${rm}\n`],
        ["Use `", `${rm}\` to call.`],
        ["> ", `${rm}\n`],
        ["<!-- ", `${rm} -->`],
        ["Example:\n```", `\n${rm}\n\`\`\`\n`],
        ["Example:\n```\n", "x\n", `${rm}\n\`\`\`\n`],
      ]) {
        const r = readParts(parts, chained);
        expect(r.calls).toEqual([]);
        expect(r.text).toBe(parts.join(""));
      }
    });
  }
});

/** `a` then `b` as two text parts the wire does not continue, plus the shapes a text part meets in practice. */
function shapes(a: string, b: string): [string, "anthropic" | "responses", string][] {
  return [
    ...splitBodies(a, b),
    ["responses: one message item, two output_text parts", "responses", namedSse(responsesEvents([message("m1", a, b)], 5))],
  ];
}

describe("the cost of fix 55 (documented policy, pinned): a DSML block that ends its text part", () => {
  /**
   * COST 1 (missed call, the usual DeepSeek leak shape). A complete canonical DSML block closed
   * with its line end as the last thing in a text part, then a short text part ("Done."): main ran
   * `ls` (its closer's line ended inside the part); fix 55 runs nothing and shows the block as
   * written, because the run after a DSML call (call-run.ts) reads on past the block's closer and
   * the part's end ended it (Candidate.endedByText). Documented in docs/PATTERNS.md ("The cost: a
   * DSML block closed at a part's end (with its line end or without)"). Hit by Anthropic replies
   * with interleaved thinking and by Responses replies with two message items or two output_text
   * parts; a reply with no text part after the block is untouched.
   */
  for (const [wire, api, body] of splitBodies(`Let me list.\n\n${DSML_LS}\n`, "Done.")) {
    for (const [route, read] of ROUTES) {
      test(`${wire}, ${route}: DSML block + line end | "Done." runs nothing, the block shown as written`, async () => {
        const v = await read(api, body);
        expect(v.calls).toEqual([]);
        expect(v.text).toBe(`Let me list.\n\n${DSML_LS}\nDone.`);
      });
    }
  }
  /**
   * The routes disagree on one Responses message item with two output_text parts: the fetch route
   * (the Responses wire, text-parts.ts) ends a span at each part, so the cost applies; the AI SDK
   * middleware sees the item's text as one stream and runs the block, as the whole reply does.
   * Neither runs a call the whole reply refuses.
   */
  const [, , twoParts] = shapes(`Let me list.\n\n${DSML_LS}\n`, "Done.")[2]!;
  test("responses: one message item, two output_text parts, fetch route: runs nothing, the block shown as written", async () => {
    const v = await ROUTES[0][1]("responses", twoParts);
    expect(v.calls).toEqual([]);
    expect(v.text).toBe(`Let me list.\n\n${DSML_LS}\nDone.`);
  });
  test("responses: one message item, two output_text parts, middleware: runs the block, as whole", async () => {
    expect((await ROUTES[1][1]("responses", twoParts)).calls).toEqual([LS]);
  });

  for (const [reading, chained] of READINGS) {
    test(`cost 1 in the engine (${reading}): the block pending, and a later call in the next part does not run either`, () => {
      const r = readParts([`${DSML_LS}\n`, `Done.${LATER}`], chained);
      expect(r.calls).toEqual([]);
      expect(r.text).toBe(`${DSML_LS}\nDone.${LATER}`);
    });
    test(`hard negative (${reading}): whole, the same reply runs the block and the later call`, () => {
      expect(readParts([`${DSML_LS}\nDone.${LATER}`], chained).calls).toEqual([LS, LATER_INPUT]);
    });
    test(`hard negative (${reading}): prose after the block inside the part ends its run there: it runs`, () => {
      const r = readParts([`${DSML_LS}\nRunning it.\n`, "Done."], chained);
      expect(r.calls).toEqual([LS]);
    });
  }

  /**
   * COST 2 (shown as written instead of withdrawn, fetch route only). The same block, then a
   * native call (Anthropic tool_use, Responses function_call). Main withdrew the recovered call at
   * the native one and its markup went with it, on both routes; now on the fetch route the block
   * was pending at the part's end and is shown as written beside the native call, while the AI SDK
   * middleware still withdraws it (its markup gone, only the native call). No wrong execution; the
   * routes disagree on the text the user sees.
   */
  const native: [string, "anthropic" | "responses", string][] = [
    ["anthropic: text | tool_use", "anthropic", namedSse([messageStart(), ...textBlock(0, [`Let me list.\n\n${DSML_LS}\n`]), ...toolUseBlock(1, "tu1", { path: "a.ts" }), ...messageEnd("tool_use")])],
    ["responses: message | function_call", "responses", namedSse(responsesEvents([message("m1", `Let me list.\n\n${DSML_LS}\n`), functionCall("f1", { path: "a.ts" })], 5))],
  ];
  for (const [wire, api, body] of native) {
    test(`${wire}, fetch route: the native call runs, the DSML block pending is shown as written`, async () => {
      const v = await ROUTES[0][1](api, body);
      expect(v.calls).toEqual([{ path: "a.ts" }]);
      expect(v.text).toContain(`</${D}tool_calls>`);
    });
    test(`${wire}, middleware: the native call runs, the DSML block withdrawn with its markup`, async () => {
      const v = await ROUTES[1][1](api, body);
      expect(v.calls).toEqual([{ path: "a.ts" }]);
      expect(v.text).not.toContain("tool_calls");
    });
  }

  /** Hard negatives: the shapes the cost does not reach. */
  const untouched: [string, "anthropic" | "responses", string][] = [
    ["anthropic: text | thinking (no text after)", "anthropic", namedSse([messageStart(), ...textBlock(0, [`Let me list.\n\n${DSML_LS}\n`]), ...thinkingBlock(1, ["hmm"]), ...messageEnd()])],
    ["anthropic: text | text (adjacent blocks continue)", "anthropic", namedSse([messageStart(), ...textBlock(0, [`Let me list.\n\n${DSML_LS}\n`]), ...textBlock(1, ["Done."]), ...messageEnd()])],
    ["responses: message | reasoning (no text after)", "responses", namedSse(responsesEvents([message("m1", `Let me list.\n\n${DSML_LS}\n`), { id: "r1", type: "reasoning", summary: [{ type: "summary_text", text: "hmm" }] }], 5))],
  ];
  for (const [wire, api, body] of untouched) {
    for (const [route, read] of ROUTES) {
      test(`hard negative: ${wire}, ${route}: the DSML block runs`, async () => {
        expect((await read(api, body)).calls).toEqual([LS]);
      });
    }
  }
  for (const [wire, api, body] of shapes(`Let me list.\n${HERMES_LS}`, "Done.")) {
    for (const [route, read] of ROUTES) {
      test(`hard negative: ${wire}, ${route}: a Hermes call ending its part runs ("Done." after the reply's last call stripped, S03, as whole)`, async () => {
        const v = await read(api, body);
        expect(v.calls).toEqual([LS]);
        expect(v.text).toBe("Let me list.\n");
      });
    }
  }
});

describe("the cost of fix 55 (pinned): text mode holding text at a part's end", () => {
  /**
   * COST 3 (missed call, rare). A part ending in text a reader still holds (`<` before a word,
   * `<tool`, `[TOOL`) is pending at the part's end: no later call of the reply runs, where main ran
   * the later clean call. A text part ending mid-sentence on `<` is rare; `Compare a < b.` (the
   * `<` decided inside the part) is untouched (review-55-rules-parts.test.ts).
   */
  for (const [reading, chained] of READINGS) {
    test(`cost 3 (${reading}): "a <" | " b" then a clean call: the call does not run, the text is kept`, () => {
      for (const [a, b] of [
        ["a <", ` b${LATER}`],
        ["Use <tool", LATER],
        ["see [TOOL", LATER],
      ]) {
        const r = readParts([a!, b!], chained);
        expect(r.calls).toEqual([]);
        expect(r.text).toBe(a! + b!);
        expect(readParts([a! + b!], chained).calls).toEqual([LATER_INPUT]);
      }
    });
    test(`hard negative (${reading}): a part ending in a tool's name or a colon leaves the later call running`, () => {
      for (const a of ["I will use bash", "Next I'll call read", "Running:", "call functions.", "ok\nbash"]) {
        expect(readParts([a, LATER], chained).calls).toEqual([LATER_INPUT]);
      }
    });
  }
});
