// Test-only stand-in for src/engine/engine.ts: the fake markup `<<CALL name {json}>>` becomes a call.
// It holds text from `<<` (or a trailing lone `<`) until `>>`, and releases everything else at once,
// so adapters see the same chunking pressure the real engine will put on them.
import type { BrokenSpan, NudgeReason, RecoveredCall, StrippedSpan } from "../../src/parse/types.ts";
import type { EngineEvent, EngineOptions, EngineSummary, RepairEngine } from "../../src/engine/types.ts";
import type { EngineFactory } from "../../src/adapters/options.ts";
import type { Shape } from "../../src/grammar/shapes.ts";

/** The stub has no parser: every span it reports carries one real shape id. */
const STUB_SHAPE: Shape = "B01";

export interface StubFaults {
  /** Throw on the n-th feed (1-based). */
  throwOnFeed?: number;
  throwOnFlush?: boolean;
  throwOnCreate?: boolean;
}

const MARKUP = /^<<CALL\s+(\S+)\s+([\s\S]*)>>$/;

export function createStubEngine(options: EngineOptions, faults: StubFaults = {}): RepairEngine {
  if (faults.throwOnCreate) throw new Error("stub: create");
  const declared = new Set(options.tools.map((t) => t.name));
  const limit = options.bufferLimit ?? Infinity;
  const prefix = options.idPrefix ?? "stub";
  let held = "";
  let heldAt = 0;
  let native = false;
  let feeds = 0;
  const calls: RecoveredCall[] = [];
  const broken: BrokenSpan[] = [];
  const stripped: StrippedSpan[] = [];
  let nudge: NudgeReason | null = null;
  let heldCandidateNoCall = 0;

  const brokenAt = (span: [number, number], reason: NudgeReason, detail: string) => {
    broken.push({ span, shape: STUB_SHAPE, reason, detail });
    nudge ??= reason;
  };

  function markup(text: string, at: number, out: Out): void {
    const span: [number, number] = [at, at + text.length];
    const m = MARKUP.exec(text);
    if (!m) return (brokenAt(span, "broken-markup", "no CALL header"), out.text(text));
    const [, tool = "", json = ""] = m;
    if (!declared.has(tool)) return (brokenAt(span, "undeclared-tool", tool), out.text(text));
    let input: unknown;
    try {
      input = JSON.parse(json);
    } catch {
      return (brokenAt(span, "broken-markup", "bad json"), out.text(text));
    }
    if (typeof input !== "object" || input === null || Array.isArray(input)) {
      return (brokenAt(span, "broken-markup", "not an object"), out.text(text));
    }
    if (native) return void stripped.push({ span, kind: "native-call-duplicate" });
    const call: RecoveredCall = { id: `${prefix}_${calls.length}`, tool, input: input as Record<string, unknown>, span, shape: STUB_SHAPE };
    calls.push(call);
    out.call(call);
  }

  return {
    feed(delta) {
      feeds++;
      if (faults.throwOnFeed === feeds) throw new Error("stub: feed");
      const out = new Out();
      let s = held + delta;
      let at = heldAt;
      held = "";
      for (;;) {
        const open = s.indexOf("<<");
        if (open === -1) {
          const keep = s.endsWith("<") ? 1 : 0;
          out.text(s.slice(0, s.length - keep));
          held = s.slice(s.length - keep);
          heldAt = at + s.length - keep;
          break;
        }
        out.text(s.slice(0, open));
        const close = s.indexOf(">>", open + 2);
        if (close === -1) {
          held = s.slice(open);
          heldAt = at + open;
          if (held.length > limit) {
            heldCandidateNoCall++;
            out.text(held);
            heldAt += held.length;
            held = "";
          }
          break;
        }
        markup(s.slice(open, close + 2), at + open, out);
        at += close + 2;
        s = s.slice(close + 2);
      }
      return out.events;
    },
    flush() {
      if (faults.throwOnFlush) throw new Error("stub: flush");
      const out = new Out();
      if (held.startsWith("<<CALL")) brokenAt([heldAt, heldAt + held.length], "truncated-call", "no closer");
      out.text(held);
      held = "";
      return out.events;
    },
    noteNativeToolCall() {
      native = true;
    },
    get held() {
      return held.length;
    },
    heldText(from, to) {
      if (from < heldAt || to > heldAt + held.length) throw new RangeError(`stub: [${from}, ${to}) is not held`);
      return held.slice(from - heldAt, to - heldAt);
    },
    summary(): EngineSummary {
      return { recovered: calls.length, nudge, broken: [...broken], stripped: [...stripped], heldCandidateNoCall };
    },
  };
}

class Out {
  events: EngineEvent[] = [];
  text(text: string): void {
    if (!text) return;
    const last = this.events.at(-1);
    if (last?.type === "text") last.text += text;
    else this.events.push({ type: "text", text });
  }
  call(call: RecoveredCall): void {
    this.events.push({ type: "call", call });
  }
}

export function stubFactory(faults: StubFaults = {}): EngineFactory {
  return (options) => createStubEngine(options, faults);
}
