/**
 * Work counted, never timed: String.prototype.charCodeAt calls plus characters returned by
 * String.prototype.slice while `fn` runs. Every hand-written scanner in src/ reads text through
 * these two, so a quadratic scan shows up as quadratic work on any machine, loaded or not.
 */
const proto = String.prototype as unknown as { charCodeAt: (i: number) => number; slice: (a?: number, b?: number) => string };
const originalCharCodeAt = proto.charCodeAt;
const originalSlice = proto.slice;

function install(): { read(): number; restore(): void } {
  let work = 0;
  proto.charCodeAt = function (this: string, i: number) {
    work++;
    return originalCharCodeAt.call(this, i);
  };
  proto.slice = function (this: string, a?: number, b?: number) {
    const r = originalSlice.call(this, a, b);
    work += r.length;
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

export function countWork(fn: () => void): number {
  const counter = install();
  try {
    fn();
  } finally {
    counter.restore();
  }
  return counter.read();
}

export async function countWorkAsync(fn: () => unknown): Promise<number> {
  const counter = install();
  try {
    await fn();
  } finally {
    counter.restore();
  }
  return counter.read();
}
