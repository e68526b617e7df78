/**
 * Property tests for the incremental repair engine (src/engine/engine.ts): chunk invariance,
 * passthrough identity, accounting, unique ids, the held-characters bound, no exceptions, and
 * documentation context. Seeds are fixed so a failure reproduces; the printed counterexample is
 * the shrunk input (pass it through escaped() from test/golden/notation.ts to read it).
 */
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { parse } from "../../src/engine/parse.ts";
import { SchemaGate } from "../../src/parse/schema-gate.ts";
import { createRepairEngine } from "../../src/engine/engine.ts";
import { DIALECTS, type DialectId } from "../../src/grammar/dialects.ts";
import type { ParseOptionsInput } from "../../src/parse/types.ts";
import { fixtureTools } from "../golden/tools.ts";
import { BAR, D, DVL, SP, escaped } from "../golden/notation.ts";
import { accountsForEveryCharacter, everyChar, observable } from "../support/run-engine.ts";
import {
  afterCallReply, bracketMention, cutReply, degradedCall, degradedMarkup, degradedMention, dsmlBlock, feedCuts, heldBound, jsonFormCall, newFormatCall, plainText, replyText,
  splitsPair, toCuts, tokenMention, toolCallDialectCall, toolCallMention, toolNamedCall, toolNamedMention,
} from "./arbitraries.ts";

/** Replies of any kind, half of them opening with a call so later text goes through the post-call tail. */
const anyReply = fc.oneof(replyText(), afterCallReply());

const SEED = 20240611;
const RUNS = 400;
const params = (numRuns = RUNS) => ({ seed: SEED, numRuns, endOnFailure: false });

/** Large (never hit by these inputs), medium, and small enough that candidates and tails overflow. */
const LIMITS = [Number.MAX_SAFE_INTEGER, 1024, 64] as const;

const dialectSwitches = fc.record(
  Object.fromEntries(Object.keys(DIALECTS).map((id) => [id, fc.boolean()])) as Record<DialectId, fc.Arbitrary<boolean>>,
  { requiredKeys: [] },
);

const parseOptions: fc.Arbitrary<ParseOptionsInput> = fc.record(
  { orphanInvoke: fc.boolean(), looseParameters: fc.boolean(), rawJsonBody: fc.boolean(), wrappedTool: fc.boolean(), codeCostumes: fc.boolean(), standaloneJson: fc.boolean(), dialects: dialectSwitches },
  { requiredKeys: [] },
);

const show = (value: unknown) => escaped(JSON.stringify(value));

describe("chunk invariance", () => {
  for (const bufferLimit of LIMITS) {
    test(`any cuts equal the whole-text run (bufferLimit ${bufferLimit})`, () => {
      fc.assert(
        fc.property(cutReply(anyReply), parseOptions, fc.boolean(), ({ input, cuts }, parse, native) => {
          const whole = observable(feedCuts(input, [], fixtureTools, { bufferLimit, parse, native }));
          const split = observable(feedCuts(input, cuts, fixtureTools, { bufferLimit, parse, native }));
          expect(show(split)).toBe(show(whole));
        }),
        params(),
      );
    });
  }

  test("any cuts equal the whole-text run (any bufferLimit from 1 to 300)", () => {
    fc.assert(
      fc.property(cutReply(anyReply), fc.integer({ min: 1, max: 300 }), fc.boolean(), ({ input, cuts }, bufferLimit, native) => {
        const whole = observable(feedCuts(input, [], fixtureTools, { bufferLimit, native }));
        expect(show(observable(feedCuts(input, cuts, fixtureTools, { bufferLimit, native })))).toBe(show(whole));
      }),
      params(),
    );
  });

  test("cuts inside every surrogate pair equal the whole-text run", () => {
    const withPairs = replyText().filter((s) => [...Array(s.length).keys()].some((i) => i > 0 && splitsPair(s, i)));
    fc.assert(
      fc.property(withPairs, (input) => {
        const cuts = toCuts(input, [], true);
        expect(cuts.length).toBeGreaterThan(0);
        const whole = observable(feedCuts(input, [], fixtureTools, { bufferLimit: 64 }));
        expect(show(observable(feedCuts(input, cuts, fixtureTools, { bufferLimit: 64 })))).toBe(show(whole));
      }),
      params(200),
    );
  });

  test("regression: a closer right after the post-call tail overflows is decided the same way at every split", () => {
    // Found by the bufferLimit-64 property: a call, then a candidate released at the limit fills
    // the tail; the text before the next closer overflows it. Whole text used to strip the closer
    // as noise (decided while the tail still existed), a split before it reported a stray marker.
    // The costume ends its line: a closer followed by markup on its line waits for that tag (review args, finding 3).
    const input = `<shell>\nls\n</shell>\n<${D}invoke name="bash">ab</${D}invoke>`;
    const whole = show(observable(feedCuts(input, [], fixtureTools, { bufferLimit: 24 })));
    for (let k = 1; k < input.length; k++) expect({ k, run: show(observable(feedCuts(input, [k], fixtureTools, { bufferLimit: 24 }))) }).toEqual({ k, run: whole });
    expect(feedCuts(input, [], fixtureTools, { bufferLimit: 24 }).calls.map((c) => c.shape)).toEqual(["C04"]);
  });

  test("char by char equals the whole text and parse()", () => {
    fc.assert(
      fc.property(replyText(16), (input) => {
        const whole = feedCuts(input, [], fixtureTools, { bufferLimit: Number.MAX_SAFE_INTEGER });
        const byChar = feedCuts(input, everyChar(input.length), fixtureTools, { bufferLimit: Number.MAX_SAFE_INTEGER });
        expect(show(observable(byChar))).toBe(show(observable(whole)));
        const parsed = parse(input, fixtureTools);
        expect(show({ text: parsed.text, calls: parsed.calls, broken: parsed.broken, stripped: parsed.stripped, nudge: parsed.nudge })).toBe(
          show(observable(whole)),
        );
      }),
      params(150),
    );
  });
});

describe("passthrough identity", () => {
  test("text that cannot start a marker is released unchanged, in the chunk it arrived in", () => {
    fc.assert(
      fc.property(cutReply(plainText), fc.constantFrom(...LIMITS), ({ input, cuts }, bufferLimit) => {
        const run = feedCuts(input, cuts, fixtureTools, { bufferLimit });
        expect(run.text).toBe(input);
        expect(run.calls).toEqual([]);
        expect(run.summary.broken).toEqual([]);
        expect(run.summary.stripped).toEqual([]);
        expect(run.summary.nudge).toBeNull();
        expect(run.heldAfter.every((h) => h === 0)).toBe(true);
        expect(run.released).toEqual(run.deltas);
      }),
      params(),
    );
  });
});

describe("accounting, ids and the held bound", () => {
  for (const bufferLimit of LIMITS) {
    test(`every character is visible, in a call, or stripped (bufferLimit ${bufferLimit})`, () => {
      fc.assert(
        fc.property(cutReply(anyReply), fc.boolean(), ({ input, cuts }, native) => {
          const run = feedCuts(input, cuts, fixtureTools, { bufferLimit, native });
          if (!accountsForEveryCharacter(input, run)) {
            expect(show({ text: run.text, calls: run.calls.map((c) => c.span), stripped: run.summary.stripped })).toBe(show({ input }));
          }
          for (const b of run.summary.broken) {
            expect(b.span[0]).toBeGreaterThanOrEqual(0);
            expect(b.span[1]).toBeLessThanOrEqual(input.length);
            expect(b.span[0]).toBeLessThanOrEqual(b.span[1]);
          }
        }),
        params(),
      );
    });
  }

  test("call ids are unique within a response", () => {
    const manyBlocks = fc.array(fc.oneof(dsmlBlock, replyText(4)), { minLength: 1, maxLength: 8 }).map((xs) => xs.join("\n\n"));
    fc.assert(
      fc.property(cutReply(manyBlocks), fc.constantFrom(...LIMITS), ({ input, cuts }, bufferLimit) => {
        const run = feedCuts(input, cuts, fixtureTools, { bufferLimit });
        const ids = run.calls.map((c) => c.id);
        expect(new Set(ids).size).toBe(ids.length);
        // With the default random prefix too: two engines never share an id.
        const a = createRepairEngine({ tools: fixtureTools });
        const b = createRepairEngine({ tools: fixtureTools });
        const idsOf = (e: typeof a) => [...e.feed(input), ...e.flush()].flatMap((ev) => (ev.type === "call" ? [ev.call.id] : []));
        const both = [...idsOf(a), ...idsOf(b)];
        expect(new Set(both).size).toBe(both.length);
      }),
      params(300),
    );
  });

  for (const bufferLimit of [1024, 64, 8]) {
    test(`held characters stay within 2 * bufferLimit + 512 (bufferLimit ${bufferLimit})`, () => {
      // Long candidates and long text after a call, so both buffers fill up.
      const long = fc
        .tuple(fc.oneof(replyText(12), afterCallReply(12)), fc.nat({ max: 3000 }), fc.constantFrom("x", "\n", `<${D}invoke name="bash">`, "| a |"), replyText(12))
        .map(([a, n, unit, b]) => `${a}${unit.repeat(Math.ceil(n / unit.length))}${b}`);
      fc.assert(
        fc.property(cutReply(long), ({ input, cuts }) => {
          const run = feedCuts(input, cuts, fixtureTools, { bufferLimit });
          expect(run.maxHeld).toBeLessThanOrEqual(heldBound(bufferLimit));
        }),
        params(300),
      );
    });
  }
});

describe("no exception escapes feed or flush", () => {
  const hostileUnit = fc.constantFrom(
    "<", "/", ">", "=", '"', "'", " ", "\n", "\r", "\t", "`", "~", "{", "}", "[", "]", "\\",
    BAR, "|", DVL, SP, "DSML", "dsml", "invoke", "parameter", "tool_calls", "toolcall", "function", "name", "string",
    "true", "tool", "calls", "call", "begin", "end", "sep", "shell", "pre", "code", "python", "bash", "read",
    "\uD800", "\uDC00", "\0", "a", "1",
  );
  test("random marker soup, any options, native or not", () => {
    fc.assert(
      fc.property(
        cutReply(fc.string({ unit: hostileUnit, maxLength: 120 })),
        parseOptions,
        fc.boolean(),
        fc.constantFrom(...LIMITS, 1, 16),
        ({ input, cuts }, parse, native, bufferLimit) => {
          const run = feedCuts(input, cuts, fixtureTools, { bufferLimit, parse, native });
          expect(accountsForEveryCharacter(input, run)).toBe(true);
          expect(run.maxHeld).toBeLessThanOrEqual(heldBound(bufferLimit));
        },
      ),
      params(500),
    );
  });
});

describe("documentation context never yields a call", () => {
  const prose = fc.array(fc.constantFrom("Example", "the format", "looks like", "this:", "ok"), { maxLength: 5 }).map((w) => w.join(" "));
  const fenced = fc.oneof(
    fc.tuple(fc.constantFrom("`", "~"), fc.integer({ min: 3, max: 6 }), fc.constantFrom("", "xml", "text")).map(([ch, n, info]) => (b: string) => {
      const f = ch.repeat(n);
      return { before: `${f}${info}\n`, body: b, after: `\n${f}\n` };
    }),
    fc.constant((b: string) => ({ before: "`", body: b.replaceAll("\n", " "), after: "`" })),
    fc.constant((b: string) => ({ before: "`` ", body: b.replaceAll("\n", " "), after: " ``" })),
    fc.constantFrom("    ", "\t", "     ").map((indent) => (b: string) => ({ before: "\n", body: indent + b.split("\n").join(`\n${indent}`), after: "\n" })),
    fc.constant((b: string) => ({ before: "> ", body: b.split("\n").join("\n> "), after: "\n" })),
    // CommonMark containers (issue 10 item 1): fences inside list items, on the marker line, nested.
    fc
      .constantFrom(
        { intro: "1. The format is:\n", pad: "    ", open: "```" },
        { intro: "- a\n  - b\n", pad: "     ", open: "```" },
        { intro: "", pad: "  ", open: "- ```" },
        { intro: "", pad: "   ", open: "1) ~~~" },
        { intro: "", pad: "   ", open: "1. ```xml" },
        { intro: "* item\n\n", pad: "  ", open: "  ````" },
      )
      .map(({ intro, pad, open }) => (b: string) => {
        const close = pad + open.replace(/^[-*+\d.) ]*/, "").replace(/[a-z]+$/, "");
        return { before: `${intro}${open}\n`, body: pad + b.split("\n").join(`\n${pad}`), after: `\n${close}\n` };
      }),
    fc.constant((b: string) => ({ before: "```\n```bash\n", body: b, after: "\n```\n" })),
    fc.constant((b: string) => ({ before: "- > ", body: b.split("\n").join("\n  > "), after: "\n" })),
    // A code span may run across lines, but not across a blank line (the paragraph ends there).
    fc.constant((b: string) => ({ before: "See `", body: b.replace(/\n\s*\n/g, "\n"), after: "` above." })),
  );

  test("a fenced, inline-coded, indented or quoted copy of any block is left verbatim", () => {
    fc.assert(
      fc.property(prose, fenced, fc.oneof(dsmlBlock, degradedMarkup), replyText(8), fc.uniqueArray(fc.nat(), { maxLength: 30 }), fc.boolean(), (intro, wrap, blk, suffix, raw, native) => {
        const { before, body, after } = wrap(blk);
        const head = `${intro}\n\n${before}${body}${after}`;
        const input = `${head}${suffix}`;
        const docStart = intro.length + 2;
        for (const cuts of [[], toCuts(input, raw, true)]) {
          const run = feedCuts(input, cuts, fixtureTools, { bufferLimit: 1024, native });
          for (const call of run.calls) expect(call.span[0]).toBeGreaterThanOrEqual(head.length);
          for (const b of run.summary.broken) expect(b.span[0] >= head.length || b.span[1] <= docStart).toBe(true);
          expect(escaped(run.text.slice(0, head.length))).toBe(escaped(head));
        }
      }),
      params(),
    );
  });

  test("a fenced, inline-coded, indented or quoted copy of a tool-named element is left verbatim (issue 29 items 5-6)", () => {
    fc.assert(
      fc.property(prose, fenced, toolNamedCall, fc.uniqueArray(fc.nat(), { maxLength: 30 }), (intro, wrap, call, raw) => {
        const { before, body, after } = wrap(call.markup.replace(/^\n/, ""));
        const input = `${intro}\n\n${before}${body}${after}`;
        for (const cuts of [[], toCuts(input, raw, true)]) {
          const run = feedCuts(input, cuts, fixtureTools, { bufferLimit: 1024 });
          expect({ calls: run.calls.length, broken: run.summary.broken.length, text: escaped(run.text) }).toEqual({ calls: 0, broken: 0, text: escaped(input) });
        }
      }),
      params(300),
    );
  });

  test("the same blocks outside documentation do yield calls (the property above can fail)", () => {
    const blk = `<${D}tool_calls>\n<${D}invoke name="bash">\n<${D}parameter name="command" string="true">ls</${D}parameter>\n</${D}invoke>\n</${D}tool_calls>`;
    expect(parse(`Example\n\n${blk}`, fixtureTools).calls.length).toBe(1);
    expect(parse(`Example\n\n\`\`\`\n${blk}\n\`\`\`\n`, fixtureTools).calls.length).toBe(0);
  });
});

/** Calls after prose and back to back are all recovered at any cuts; mentions in prose stay text and hold nothing. */
function callsAndMentions(
  title: string,
  call: typeof toolCallDialectCall,
  mention: typeof toolCallMention,
  names: { calls: string; mention: string },
) {
  describe(title, () => {
    const sequence = fc.tuple(
      fc.constantFrom("", "Let me check.", "OK, running it: ", "\n"),
      fc.array(fc.tuple(call, fc.constantFrom("", "\n", " ")), { minLength: 1, maxLength: 4 }),
    );

    test(names.calls, () => {
      fc.assert(
        fc.property(sequence, fc.uniqueArray(fc.nat(), { maxLength: 30 }), ([prose, calls], raw) => {
          const input = prose + calls.map(([c, sep]) => c.markup + sep).join("");
          for (const cuts of [[], toCuts(input, raw, true)]) {
            const run = feedCuts(input, cuts, fixtureTools);
            expect(run.calls.map((c) => ({ tool: c.tool, input: c.input }))).toEqual(calls.map(([c]) => ({ tool: c.tool, input: c.input })));
            expect(run.text.startsWith(prose)).toBe(true);
            expect(run.summary.nudge).toBeNull();
          }
        }),
        params(300),
      );
    });

    test(names.mention, () => {
      fc.assert(
        fc.property(mention, fc.uniqueArray(fc.nat(), { maxLength: 20 }), (input, raw) => {
          const run = feedCuts(input, toCuts(input, raw, false), fixtureTools);
          const heldAtEnd = run.heldAfter[run.heldAfter.length - 1];
          expect({ text: run.text, calls: run.calls.length, nudge: run.summary.nudge, heldAtEnd }).toEqual({ text: input, calls: 0, nudge: null, heldAtEnd: 0 });
        }),
        params(300),
      );
    });
  });
}

callsAndMentions("the structural gate for <tool_call> (issue 11)", toolCallDialectCall, toolCallMention, {
  calls: "complete calls after prose on the same line and back to back are all recovered, at any cuts",
  mention: "a mention in prose stays text, and nothing is held once the sentence has moved past it",
});

callsAndMentions("plain markup in DSML values, Mistral without [ARGS], LFM2 JSON lists (issue 11 items 7, 10)", newFormatCall, tokenMention, {
  calls: "complete calls after prose and back to back are all recovered, at any cuts",
  mention: "a token mentioned in prose stays text, and nothing is held once the sentence has moved past it",
});

callsAndMentions("tool-named elements and other agents' tool names (issue 29 items 5-6)", toolNamedCall, toolNamedMention, {
  calls: "complete elements after prose and back to back are all recovered under the declared name, at any cuts",
  mention: "an element mentioned in prose stays text, and nothing is held once the sentence has moved past it",
});

callsAndMentions("MiniMax brackets and double-encoded arguments (issue 29 items 8, 10)", jsonFormCall, bracketMention, {
  calls: "complete calls after prose and back to back are all recovered, at any cuts",
  mention: "a bracket token mentioned in prose stays text, and nothing is held once the sentence has moved past it",
});

describe("a JSON call standing alone (issue 29 item 12, parse.standaloneJson on)", () => {
  const call = fc.constantFrom<[string, Record<string, unknown>[]]>(
    ['{"name": "bash", "arguments": {"command": "ls"}}', [{ command: "ls" }]],
    ['{\n  "name": "read",\n  "arguments": {"filePath": "/a"}\n}', [{ filePath: "/a" }]],
    ['[{"name": "bash", "arguments": {"command": "pwd"}}, {"name": "read", "arguments": {"filePath": "/b"}}]', [{ command: "pwd" }, { filePath: "/b" }]],
    ['{"tool_calls": [{"name": "glob", "arguments": {"pattern": "*.ts"}}]}', [{ pattern: "*.ts" }]],
  );
  /** The same JSON as documentation or inside prose: never a call. */
  const asDocs = (json: string) => fc.constantFrom(`\`\`\`json\n${json}\n\`\`\``, `> ${json.split("\n").join("\n> ")}`, `    ${json.split("\n").join("\n    ")}`, `- ${json.split("\n").join("\n  ")}`, `Example: ${json}`, `${json}\nis the shape.`);
  const paragraph = fc.oneof(
    { arbitrary: call.map(([json, inputs]) => ({ text: json, inputs })), weight: 3 },
    { arbitrary: call.chain(([json]) => asDocs(json)).map((text) => ({ text, inputs: [] as Record<string, unknown>[] })), weight: 3 },
    { arbitrary: fc.constantFrom("Let me check.", "Done, see above.", '{"name": "Alice", "age": 30}', "{ not json }", '[{"id": 1}]').map((text) => ({ text, inputs: [] as Record<string, unknown>[] })), weight: 2 },
  );

  test("each standalone paragraph is a call, documentation and prose never are, at any cuts", () => {
    fc.assert(
      fc.property(fc.array(paragraph, { minLength: 1, maxLength: 5 }), fc.uniqueArray(fc.nat(), { maxLength: 30 }), (paragraphs, raw) => {
        const input = paragraphs.map((p) => p.text).join("\n\n");
        // A call swallows the prose paragraphs after it only as the post-call tail (S03), so expectations count calls only.
        const expected = paragraphs.flatMap((p) => p.inputs);
        for (const cuts of [[], toCuts(input, raw, true)]) {
          const run = feedCuts(input, cuts, fixtureTools, { parse: { standaloneJson: true } });
          expect(run.calls.map((c) => c.input)).toEqual(expected);
          expect(run.summary.nudge).toBeNull();
        }
      }),
      params(300),
    );
  });

  test("switched off (the default), none of them is a call", () => {
    fc.assert(
      fc.property(fc.array(paragraph, { minLength: 1, maxLength: 5 }), (paragraphs) => {
        const input = paragraphs.map((p) => p.text).join("\n\n");
        const run = feedCuts(input, [], fixtureTools);
        expect({ calls: run.calls.length, text: run.text }).toEqual({ calls: 0, text: input });
      }),
      params(200),
    );
  });
});

callsAndMentions("degraded forms (issue 29 items 4, 7, 9, 11)", degradedCall, degradedMention, {
  calls: "typographic quotes, namespaced and wrapperless invokes, <tool_call name=>, lost < markers: all recovered after prose and back to back, at any cuts",
  mention: "prose that discusses a degraded form stays text, with no nudge, and nothing is held once the sentence has moved past it",
});

describe("trust first (issue 29 items 1-3)", () => {
  const tools = new Map(fixtureTools.map((t) => [t.name, t]));

  test("every recovered call fits its tool's declared schema, at any cuts and options", () => {
    const gate = new SchemaGate();
    fc.assert(
      fc.property(cutReply(anyReply), parseOptions, ({ input, cuts }, parse) => {
        const run = feedCuts(input, cuts, fixtureTools, { parse });
        for (const call of run.calls) {
          const verdict = gate.check(tools.get(call.tool)!, call.input);
          expect({ call: show(call), ok: verdict.ok }).toEqual({ call: show(call), ok: true });
        }
      }),
      params(),
    );
  });

  /** A bug report quoting a leaked block (indented) that lacks a closer, then prose that may name closers, then maybe a real call. */
  const quotedReport = fc
    .record({
      indent: fc.constantFrom("  ", " ", "   "),
      wrapper: fc.boolean(),
      paramCloser: fc.boolean(),
      claude: fc.boolean(),
      after: fc.constantFrom("Any idea why?", `It should end with </${D}invoke> there.`, `The </${D}parameter> and </${D}invoke> were missing.`, `Then </${D}tool_calls> closed it.`, "Then </invoke></function_calls> closed it."),
      real: fc.boolean(),
    })
    .map(({ indent, wrapper, paramCloser, claude, after, real }) => {
      const p = claude ? "" : D;
      const lines = [
        ...(wrapper ? [claude ? "<function_calls>" : `<${p}tool_calls>`] : []),
        `<${p}invoke name="bash">`,
        `<${p}parameter name="command"${claude ? "" : ' string="true"'}>rm -rf quoted${paramCloser ? `</${p}parameter>` : ""}`,
      ];
      const realCall = real ? `\n\n<${D}tool_calls>\n<${D}invoke name="bash">\n<${D}parameter name="command" string="true">ls</${D}parameter>\n</${D}invoke>\n</${D}tool_calls>` : "";
      return `I hit this with the model:\n\n${lines.map((l) => indent + l).join("\n")}\n\n${after}${realCall}\n`;
    });

  test("a quoted block that is incomplete as a call never runs, whatever later prose closes; a real call after it still does", () => {
    fc.assert(
      fc.property(quotedReport, fc.uniqueArray(fc.nat(), { maxLength: 30 }), (input, raw) => {
        for (const cuts of [[], toCuts(input, raw, true)]) {
          const run = feedCuts(input, cuts, fixtureTools);
          expect(run.calls.map((c) => c.input.command)).toEqual(input.includes("\n\n<" + D + "tool_calls>") ? ["ls"] : []);
        }
      }),
      params(300),
    );
  });
});
