/** Per-tag retry counter; bounded because tags are per message and a long-lived process sees many. */
export function createAttemptCounter(limit = 1000): (tag: string | undefined) => number {
  const seen = new Map<string, number>();
  return (tag) => {
    if (tag === undefined) return 1;
    const attempt = (seen.get(tag) ?? 0) + 1;
    seen.delete(tag);
    seen.set(tag, attempt);
    if (seen.size > limit) {
      const oldest = seen.keys().next().value;
      if (oldest !== undefined) seen.delete(oldest);
    }
    return attempt;
  };
}

