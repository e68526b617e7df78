/**
 * The work bound (issue 27 item 1): every reader of text does at most WORK_PER_CHAR steps per
 * input character, whatever the text. A step is one character read or copied (test/support/work.ts
 * counts String.prototype.charCodeAt calls and characters returned by slice, the only way src/
 * reads text), so the count needs no hook in src/ and is the same on any machine. The cap turns a
 * loop that makes no progress (the O06 residue once abandoned at its own 0-length opener and was
 * opened again at the same place, forever) into a failure instead of a hung test run.
 *
 * Inputs are hostile repetitions: one opener of every kind (DSML, unprefixed XML, costumes,
 * legacy special tokens, Mistral brackets, the residue with its 0-length opener) repeated many
 * times, unclosed, nested with or without their closers, mixed, and interleaved with the residue
 * trigger `bash[ARGS] x`. Each goes through parse(), the live engine at seeded random splits, the
 * history sanitizer and the given-content reader (the echo guard's public functions).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import fc from "fast-check";
import { DIALECTS, type DialectSwitches } from "../../src/grammar/dialects.ts";
import type { ParseOptionsInput } from "../../src/parse/types.ts";
import { sanitizeAssistantText } from "../../src/history/sanitize.ts";
import { createEchoGuard, findGivenCalls } from "../../src/echo/guard.ts";
import { createRepairEngine } from "../../src/engine/engine.ts";
import { parse } from "../../src/engine/parse.ts";
import { D, DVL, escaped } from "../golden/notation.ts";
import { fixtureTools } from "../golden/tools.ts";
import { randomCuts } from "../support/run-engine.ts";
import { countWork, WorkCapExceeded } from "../support/work.ts";
import { legacyToken } from "./arbitraries.ts";

/**
 * Steps allowed per input character, for the engine's readers (parse(), the live engine, the
 * history sanitizer) and for the given-content reader, which reads up to six forms of a text
 * (JSON-decoded twice, line prefixes stripped) and rereads what candidates swallowed in up to nine
 * rounds. The worst measured over this suite is about half of each; a reader that rescans (one
 * pass over the rest of the text per repeated opener) runs hundreds of steps per character here.
 */
const ENGINE_WORK_PER_CHAR = 128;
const GIVEN_WORK_PER_CHAR = 256;
/** Fixed cost of one run whatever its length (engine set-up, ids): keeps short inputs honest. */
const WORK_FLOOR = 2_000;

const SEED = 27_001;
const RUNS = 16;
const params = { seed: SEED, numRuns: RUNS, endOnFailure: true } as const;

/** Each opener kind with openers, the fragments that may follow one, and its closers. */
const KINDS = {
  dsml: {
    openers: [`<${D}tool_calls>`, `<${D}invoke name="bash">`, `<${D}parameter name="command" string="true">`, `${D}invoke name="bash">`, `<${D}toolcall>bash\n`, `<|DSML|invoke name="bash">`, `<${DVL}DSML${DVL}function_calls>`],
    closers: [`</${D}parameter>`, `</${D}invoke>`, `</${D}tool_calls>`],
  },
  naked: {
    openers: ["<function_calls>", '<invoke name="bash">', '<parameter name="command">', "<minimax:tool_call>", "<function=bash>", "<function>", "<name>bash</name>"],
    closers: ["</parameter>", "</invoke>", "</function_calls>", "</function>"],
  },
  costume: {
    openers: ["<tool_call>", '<tool_call>{"name": "bash", "arguments": {"command": "', "<tool_call>bash\n<arg_key>command</arg_key><arg_value>", "<shell>", "<execute_bash>", "<code_interpreter>", "<pre>"],
    closers: ["</tool_call>", "</shell>", "</arg_value>", "</execute_bash>"],
  },
  legacy: {
    openers: [legacyToken("tool calls begin"), `${legacyToken("tool call begin")}function${legacyToken("tool sep")}bash\n\`\`\`json\n{`, `${legacyToken("tool call start")}[bash(`, legacyToken("tool calls section begin"), legacyToken("tool call begin")],
    closers: [legacyToken("tool call end"), legacyToken("tool calls end"), legacyToken("tool call section end")],
  },
  bracket: {
    openers: ["[TOOL_CALLS]", "[TOOL_CALLS]bash[ARGS]", "[TOOL_CALLS][{", "[TOOL_CALLS]bash{", "[ARGS]", "[TOOL_CALLS] ", "[TOOL_CALLS]bash[ARGS]\"", "[TOOL_CALL] {", '[TOOL_CALL] {tool => "bash", args => {', "[TOOL_CALL]"],
    closers: ["]", "}", "}]", "[/TOOL_CALL]"],
  },
  standalone: {
    // J01 (parse.standaloneJson): a JSON call standing alone, opened only at a paragraph start.
    openers: ['\n\n{"name"', '\n\n{"name": "bash", "arguments": {', '\n\n[{"name"', '\n\n{"tool_calls": [', "\n\n{", '\n\n{\n  "name"'],
    closers: ["}", "}}", "]", "}\n\n"],
  },
  residue: {
    // The residue has no opener of its own: the candidate starts at the tool name (0 characters long).
    openers: ["bash[ARGS]", "bash[ARGS] x", "bash[ARGS]{", "bash[ARGS]   ", "bash[ARGS]\n", "bas", "bash[ARG", "read[ARGS]{\"filePath\": \""],
    closers: ["}", '"}', "]"],
  },
  toolNamed: {
    // Issue 29 items 5-6: plain elements named after a declared tool (or alias), and DSML ones.
    openers: ["<read>\n<x>\n", "<read_file>\n<path>", "<read>", "<read><filePath>a</filePath>", `<${D}read>`, `<${D}read_file>\n<${D}path>`, "<execute_command>\n<command>", "<rea"],
    closers: ["</x>", "</read>", "</path>", `</${D}invoke>`, `</${D}read>`, "</filePath>"],
  },
} as const;
type Kind = keyof typeof KINDS;
const KIND_NAMES = Object.keys(KINDS) as Kind[];

/** What may follow an opener: nothing, prose, a line end, JSON that never closes, quotes, Markdown. */
const FILLERS = ["", " ", "\n", "x", " x", "{", '{"command": "', '"', "'", "`", "```\n", "> ", "- ", "\t", "<", "[", "|", "\n\n    "];
const RESIDUE_TRIGGER = "bash[ARGS] x";
const MAX_LENGTH = 12_000;

const EVERY_DIALECT = Object.fromEntries(Object.keys(DIALECTS).map((id) => [id, true])) as DialectSwitches;
/** Every opener there is: all dialects (the residue included) and every tolerance. */
const EVERYTHING: ParseOptionsInput = { orphanInvoke: true, looseParameters: true, rawJsonBody: true, wrappedTool: true, codeCostumes: true, standaloneJson: true, dialects: EVERY_DIALECT };
const OPTIONS: ParseOptionsInput[] = [EVERYTHING, {}, { dialects: { mistralResidue: true } }];

type Shape = "repeat" | "nested" | "interleaved" | "mixed";

interface Hostile {
  kind: Kind;
  shape: Shape;
  text: string;
}

/** One hostile repetition of `kind`'s openers, at most MAX_LENGTH characters. */
const hostileOf = (kind: Kind): fc.Arbitrary<Hostile> =>
  fc
    .record({
      shape: fc.constantFrom<Shape>("repeat", "nested", "interleaved", "mixed"),
      units: fc.array(fc.tuple(fc.constantFrom(...KINDS[kind].openers), fc.constantFrom(...FILLERS)), { minLength: 1, maxLength: 3 }),
      closer: fc.constantFrom(...KINDS[kind].closers),
      other: fc.constantFrom(...KIND_NAMES),
      reps: fc.integer({ min: 40, max: 400 }),
      lineStart: fc.boolean(),
    })
    .map(({ shape, units, closer, other, reps, lineStart }) => {
      const unit = units.map(([opener, filler]) => (lineStart ? "\n" : "") + opener + filler).join("");
      let text: string;
      switch (shape) {
        case "repeat":
          text = unit.repeat(reps);
          break;
        case "nested":
          text = unit.repeat(reps) + closer.repeat(reps);
          break;
        case "interleaved":
          text = (unit + `\n${RESIDUE_TRIGGER}\n`).repeat(reps);
          break;
        case "mixed": {
          const foreign = KINDS[other].openers[reps % KINDS[other].openers.length]!;
          text = (unit + foreign + RESIDUE_TRIGGER).repeat(reps);
          break;
        }
      }
      return { kind, shape, text: text.slice(0, MAX_LENGTH) };
    });

/** The worst steps per character seen by each path, printed at the end for the report. */
const worst = new Map<string, number>();

afterAll(() => {
  console.log(`work bound: ${ENGINE_WORK_PER_CHAR} (engine) and ${GIVEN_WORK_PER_CHAR} (given content) steps per character; worst ${[...worst].map(([path, w]) => `${path} ${w.toFixed(1)}`).join(", ")}`);
});

/** Runs `fn` under the cap and checks its work against the bound; returns the steps per character. */
function expectBounded(path: string, input: Hostile, fn: () => void, perChar = ENGINE_WORK_PER_CHAR): void {
  const n = input.text.length;
  const cap = perChar * n + WORK_FLOOR;
  let steps: number;
  try {
    steps = countWork(fn, cap);
  } catch (error) {
    if (!(error instanceof WorkCapExceeded)) throw error;
    steps = Infinity;
  }
  worst.set(path, Math.max(worst.get(path) ?? 0, steps / n));
  if (steps > cap) {
    throw new Error(`${path}: ${steps} steps for ${n} characters (${input.kind}, ${input.shape}) exceeds ${perChar} per character: ${escaped(JSON.stringify(input.text.slice(0, 120)))}`);
  }
}

const tools = new Map(fixtureTools.map((tool) => [tool.name, tool]));

for (const kind of KIND_NAMES) {
  describe(`work bound: steps <= c x input length on hostile repetitions of ${kind} openers`, () => {
    const input = hostileOf(kind);

    test("parse()", () => {
      fc.assert(
        fc.property(input, fc.constantFrom(...OPTIONS), (hostile, options) => {
          expectBounded("parse", hostile, () => void parse(hostile.text, fixtureTools, options));
        }),
        params,
      );
    });

    test("the live engine at seeded random splits", () => {
      const limits = [Number.MAX_SAFE_INTEGER, 1024, 64];
      fc.assert(
        fc.property(input, fc.constantFrom(...OPTIONS), fc.integer({ min: 1, max: 64 }), fc.nat(), fc.constantFrom(...limits), (hostile, options, maxChunk, seed, bufferLimit) => {
          // Deltas are cut before counting: only the engine's own work is measured.
          const ends = [...randomCuts(hostile.text.length, seed, maxChunk), hostile.text.length];
          const deltas = ends.map((end, i) => hostile.text.substring(i === 0 ? 0 : ends[i - 1]!, end));
          expectBounded("live engine", hostile, () => {
            const engine = createRepairEngine({ tools: fixtureTools, parse: options, bufferLimit, idPrefix: "call_" });
            for (const delta of deltas) engine.feed(delta);
            engine.flush();
          });
        }),
        params,
      );
    });

    test("the history sanitizer", () => {
      fc.assert(
        fc.property(input, fc.constantFrom(...OPTIONS), (hostile, options) => {
          expectBounded("history sanitizer", hostile, () => void sanitizeAssistantText(hostile.text, options));
        }),
        params,
      );
    });

    test("the given-content reader (findGivenCalls, and the echo guard asked about a recovered call)", () => {
      fc.assert(
        fc.property(input, (hostile) => {
          expectBounded("given-content reader", hostile, () => void findGivenCalls([hostile.text], fixtureTools), GIVEN_WORK_PER_CHAR);
          const guard = createEchoGuard(() => [hostile.text]);
          const query = { tool: "bash", input: { command: "ls -la" }, markup: "<shell>\nls -la\n</shell>", tools };
          expectBounded("echo guard", hostile, () => void guard(query), GIVEN_WORK_PER_CHAR);
        }),
        params,
      );
    });
  });
}

describe("work bound: the residue's 0-length opener makes progress", () => {
  const options: ParseOptionsInput = { dialects: { mistralResidue: true } };
  // The first call that checks a recovered call's input compiles the tools' schemas (ajv, fast-uri:
  // about 12,000 counted reads, once per process). Compiled here, uncounted, on a call known to end,
  // so the bound below measures the reader and holds whatever ran before this file (alone it failed).
  beforeAll(() => void parse('bash[ARGS] {"command": "ls"}', fixtureTools, options));
  /**
   * Every path in bounded work (capped: on a loop without progress it fails, never hangs); returns
   * parse()'s result and the text the engine fed one character at a time showed.
   */
  const everyPath = (text: string) => {
    const input: Hostile = { kind: "residue", shape: "repeat", text };
    let parsed: ReturnType<typeof parse> | undefined;
    let streamed = "";
    expectBounded("parse", input, () => void (parsed = parse(text, fixtureTools, options)));
    expectBounded("live engine", input, () => {
      const engine = createRepairEngine({ tools: fixtureTools, parse: options, idPrefix: "call_" });
      for (const event of [...[...text].flatMap((c) => engine.feed(c)), ...engine.flush()]) if (event.type === "text") streamed += event.text;
    });
    expectBounded("given-content reader", input, () => void findGivenCalls([text], fixtureTools), GIVEN_WORK_PER_CHAR);
    return { parsed: parsed!, streamed };
  };

  test("a reply line `bash[ARGS] x` is text, read in bounded work, whole and one character at a time", () => {
    const { parsed, streamed } = everyPath(RESIDUE_TRIGGER);
    expect([parsed.text, streamed]).toEqual([RESIDUE_TRIGGER, RESIDUE_TRIGGER]);
    expect(parsed.calls).toEqual([]);
  });

  test("a residue that fails at its first character between two residue calls: both calls are recovered, the line between stays visible", () => {
    const text = `bash[ARGS] {"command": "ls"}\n${RESIDUE_TRIGGER}\nbash[ARGS] {"command": "pwd"}`;
    const { parsed, streamed } = everyPath(text);
    expect(parsed.calls.map((call) => [call.tool, call.input])).toEqual([["bash", { command: "ls" }], ["bash", { command: "pwd" }]]);
    expect([parsed.text, streamed]).toEqual([`\n${RESIDUE_TRIGGER}\n`, `\n${RESIDUE_TRIGGER}\n`]);
  });

  test("`bash[ARGS] x` mid-line in given content is read in bounded work", () => {
    everyPath(`The log says: ${RESIDUE_TRIGGER} and then stops.`);
  });
});
