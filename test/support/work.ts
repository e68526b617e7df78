/**
 * Work counted, never timed: String.prototype.charCodeAt calls plus characters returned by
 * String.prototype.slice while `fn` runs. Every hand-written scanner in src/ reads text through
 * these two, so a quadratic scan shows up as quadratic work on any machine, loaded or not.
 * A cap turns runaway work (a loop that makes no progress) into a WorkCapExceeded thrown from the
 * next read, so a hang becomes a test failure instead of a stuck test run.
 */
import { expect } from "bun:test";

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

/**
 * `read` is linear on each input pair: at most 3 reads a character on both, and the big input
 * (four times the small one) costs less than 4.4 times the small one's work.
 */
export function expectLinearWork(read: (text: string) => unknown, smalls: readonly string[], bigs: readonly string[]): void {
  smalls.forEach((small, i) => {
    const big = bigs[i]!;
    const a = countWork(() => void read(small));
    const b = countWork(() => void read(big));
    expect(a).toBeLessThanOrEqual(3 * small.length);
    expect(b).toBeLessThanOrEqual(3 * big.length);
    expect(b).toBeLessThan(4.4 * a);
  });
}
