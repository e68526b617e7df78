/**
 * Work counted, never timed: String.prototype.charCodeAt calls plus characters returned by
 * String.prototype.slice while `fn` runs. Every hand-written scanner in src/ reads text through
 * these two, so a quadratic scan shows up as quadratic work on any machine, loaded or not.
 * A cap turns runaway work (a loop that makes no progress) into a WorkCapExceeded thrown from the
 * next read, so a hang becomes a test failure instead of a stuck test run.
 */
export class WorkCapExceeded extends Error {
  constructor(readonly cap: number) {
    super(`work cap of ${cap} reads exceeded`);
  }
}

const proto = String.prototype as unknown as { charCodeAt: (i: number) => number; slice: (a?: number, b?: number) => string };
const originalCharCodeAt = proto.charCodeAt;
const originalSlice = proto.slice;

function install(cap: number): { read(): number; restore(): void } {
  let work = 0;
  proto.charCodeAt = function (this: string, i: number) {
    if (++work > cap) throw new WorkCapExceeded(cap);
    return originalCharCodeAt.call(this, i);
  };
  proto.slice = function (this: string, a?: number, b?: number) {
    const r = originalSlice.call(this, a, b);
    work += r.length;
    if (work > cap) throw new WorkCapExceeded(cap);
    return r;
  };
  return {
    read: () => work,
    restore: () => {
      proto.charCodeAt = originalCharCodeAt;
      proto.slice = originalSlice;
    },
  };
}

export function countWork(fn: () => void, cap = Infinity): number {
  const counter = install(cap);
  try {
    fn();
  } finally {
    counter.restore();
  }
  return counter.read();
}

export async function countWorkAsync(fn: () => unknown, cap = Infinity): Promise<number> {
  const counter = install(cap);
  try {
    await fn();
  } finally {
    counter.restore();
  }
  return counter.read();
}
