/**
 * Review (over-reach): runs the old (e1985a9, a read-only worktree) and the current parse() and
 * streaming engine over the same replies and prints every difference in calls, visible text or
 * nudge. A script, not a test: it needs the old worktree (`bun test/review/differential.ts`).
 *
 * OLD_ROOT: where the e1985a9 worktree is (default /work/wt/old-e1985a9).
 */
import fc from "fast-check";
import { parse as newParse } from "../../src/engine/parse.ts";
import { createRepairEngine as newEngine } from "../../src/engine/engine.ts";
import { fixtureTools } from "../golden/tools.ts";
import { escaped } from "../golden/notation.ts";
import { randomCuts } from "../support/run-engine.ts";
import * as A from "../property/arbitraries.ts";
import * as DA from "../property/diff-arbitraries.ts";
import { taxonomyInputs } from "./taxonomy-inputs.ts";

const OLD = process.env.OLD_ROOT ?? "/work/wt/old-e1985a9";
const { parse: oldParse } = await import(`${OLD}/src/engine/parse.ts`);
const { createRepairEngine: oldEngine } = await import(`${OLD}/src/engine/engine.ts`);

type Tools = typeof fixtureTools;
interface Input { src: string; id: string; input: string; tools: Tools; options?: Record<string, unknown> }
interface Out { calls: { tool: string; input: unknown }[]; text: string; nudge: string | null; error?: string }

function whole(parse: any, inp: Input): Out {
  try {
    const r = parse(inp.input, inp.tools, inp.options ?? {});
    return { calls: r.calls.map((c: any) => ({ tool: c.tool, input: c.input })), text: r.text, nudge: r.nudge };
  } catch (e) {
    return { calls: [], text: "", nudge: null, error: String((e as Error).stack ?? e) };
  }
}

function streamed(create: any, inp: Input, cuts: number[]): Out {
  try {
    const { nativeToolCalls, ...parse } = (inp.options ?? {}) as any;
    const engine = create({ tools: inp.tools, parse, bufferLimit: Number.MAX_SAFE_INTEGER, idPrefix: "call_" });
    if (nativeToolCalls) engine.noteNativeToolCall();
    const ev: any[] = [];
    let prev = 0;
    for (const cut of [...cuts, inp.input.length]) {
      ev.push(...engine.feed(inp.input.slice(prev, cut)));
      prev = cut;
    }
    ev.push(...engine.flush());
    return {
      calls: ev.filter((e) => e.type === "call").map((e) => ({ tool: e.call.tool, input: e.call.input })),
      text: ev.filter((e) => e.type === "text").map((e) => e.text).join(""),
      nudge: engine.summary().nudge,
    };
  } catch (e) {
    return { calls: [], text: "", nudge: null, error: String((e as Error).stack ?? e) };
  }
}

const key = (o: Out) => JSON.stringify(o);
const everyChar = (n: number) => Array.from({ length: Math.max(0, n - 1) }, (_, i) => i + 1);

export interface Diff { src: string; id: string; input: string; kind: string[]; old: Out; now: Out; nowSplit?: Out; oldSplit?: Out }

function compare(inp: Input, splits: boolean): Diff | null {
  const o = whole(oldParse, inp);
  const n = whole(newParse, inp);
  const kind: string[] = [];
  if (n.error) kind.push("new-exception");
  if (JSON.stringify(o.calls) !== JSON.stringify(n.calls)) kind.push(o.calls.length > n.calls.length ? "fewer-calls" : o.calls.length < n.calls.length ? "more-calls" : "other-calls");
  if (o.text !== n.text) kind.push(n.text.length < o.text.length ? "less-text" : "more-text");
  if (o.nudge !== n.nudge) kind.push(`nudge:${o.nudge}->${n.nudge}`);
  let nowSplit: Out | undefined;
  let oldSplit: Out | undefined;
  if (splits) {
    const cutsList = [everyChar(inp.input.length), randomCuts(inp.input.length, inp.input.length + 7), randomCuts(inp.input.length, 99, 40)];
    for (const cuts of cutsList) {
      const ns = streamed(newEngine, inp, cuts);
      if (key(ns) !== key(n)) {
        const os = streamed(oldEngine, inp, cuts);
        // A split that differs from the whole only now (the old engine agreed with itself).
        if (key(os) === key(o)) {
          kind.push("new-split-mismatch");
          nowSplit = ns;
          oldSplit = os;
          break;
        } else if (!kind.includes("old-split-mismatch-too")) kind.push("old-split-mismatch-too");
      }
    }
  }
  return kind.length === 0 || (kind.length === 1 && kind[0] === "old-split-mismatch-too") ? null : { src: inp.src, id: inp.id, input: inp.input, kind, old: o, now: n, nowSplit, oldSplit };
}

// ---------------------------------------------------------------- inputs

const inputs: Input[] = [];
const oldFixtures = (await Bun.file(`${OLD}/test/golden/fixtures.json`).json()) as any[];
for (const f of oldFixtures) {
  inputs.push({ src: "golden-old", id: f.id, input: f.input, tools: f.tools ? fixtureTools.filter((t) => f.tools.includes(t.name)) : fixtureTools, options: { ...f.options, ...(f.nativeToolCalls ? { nativeToolCalls: true } : {}) } });
}
for (const [id, input] of taxonomyInputs()) inputs.push({ src: "taxonomy", id, input, tools: fixtureTools });

const N = Number(process.env.N ?? 1500);
const SEED = Number(process.env.SEED ?? 4242);
const gens: [string, fc.Arbitrary<string>, number][] = [
  ["prop-reply", A.replyText(24), N],
  ["diff-reply", DA.replyText, N],
  ["after-call", A.afterCallReply(16), Math.floor(N / 2)],
  [
    "calls",
    fc
      .tuple(
        fc.constantFrom("", "Let me check.\n\n", "I will run it:\n", "OK "),
        fc.array(fc.oneof(A.toolCallDialectCall, A.newFormatCall, A.jsonFormCall, A.degradedCall, A.toolNamedCall).map((c) => c.markup), { minLength: 1, maxLength: 3 }),
        fc.constantFrom("\n", "\n\n", " ", ""),
        fc.constantFrom("", "Done.", "\n\nThe output shows the files.", "```\nx\n```"),
      )
      .map(([a, calls, sep, b]) => a + calls.join(sep) + sep + b),
    N,
  ],
  ["mentions", fc.array(fc.oneof(A.toolNamedMention, A.bracketMention, A.degradedMention, A.tokenMention, A.toolCallMention, A.fragment), { minLength: 1, maxLength: 6 }).map((x) => x.join(" ")), Math.floor(N / 2)],
];
for (const [name, arb, count] of gens) {
  fc.sample(arb, { seed: SEED, numRuns: count }).forEach((input, i) => inputs.push({ src: name, id: `${name}#${i}`, input, tools: fixtureTools }));
}

const only = process.env.ONLY;
const diffs: Diff[] = [];
let compared = 0;
const t0 = performance.now();
for (const inp of inputs) {
  if (only && !inp.src.startsWith(only)) continue;
  compared++;
  const splits = inp.src === "golden-old" || inp.src === "taxonomy" || inp.input.length < 400;
  const d = compare(inp, splits);
  if (d) diffs.push(d);
}
const bySrc: Record<string, number> = {};
for (const i of inputs) if (!only || i.src.startsWith(only)) bySrc[i.src] = (bySrc[i.src] ?? 0) + 1;
const kinds: Record<string, number> = {};
for (const d of diffs) for (const k of d.kind) kinds[k] = (kinds[k] ?? 0) + 1;
console.error(JSON.stringify({ compared, bySrc, differences: diffs.length, kinds, seconds: ((performance.now() - t0) / 1000).toFixed(1) }, null, 1));
const show = (o: Out | undefined) => o && { calls: o.calls, text: escaped(o.text), nudge: o.nudge, ...(o.error ? { error: o.error.split("\n").slice(0, 4).join(" | ") } : {}) };
await Bun.write(
  process.env.OUT ?? "/tmp/overreach-diffs.json",
  JSON.stringify(diffs.map((d) => ({ src: d.src, id: d.id, kind: d.kind, input: escaped(d.input), old: show(d.old), now: show(d.now), nowSplit: show(d.nowSplit), oldSplit: show(d.oldSplit) })), null, 1),
);
