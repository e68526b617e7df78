/**
 * Work counted, never timed (as test/hostile/bad-input.test.ts does): String.prototype.charCodeAt
 * calls plus characters returned by String.prototype.slice while `fn` runs. Every hand-written
 * scanner in src/ reads text through these two.
 */
const proto = String.prototype as unknown as { charCodeAt: (i: number) => number; slice: (a?: number, b?: number) => string };
const originalCharCodeAt = proto.charCodeAt;
const originalSlice = proto.slice;

export async function countWork(fn: () => unknown): Promise<number> {
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
  try {
    await fn();
  } finally {
    proto.charCodeAt = originalCharCodeAt;
    proto.slice = originalSlice;
  }
  return work;
}
