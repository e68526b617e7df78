/**
 * The echo guard's matcher. Content the model was given (tool results, user and system text) is
 * normalized once, lazily, the first time a call is about to be recovered: the passthrough path
 * never pays for it.
 */
export function normalizeForEcho(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

/** Markup shorter than this is too generic to call an echo (a bare `<shell>ls</shell>`-sized span still counts). */
const MIN_ECHO = 8;

export function createEchoGuard(givenContent: () => readonly string[]): (markup: string) => boolean {
  let haystack: string | null = null;
  return (markup) => {
    const needle = normalizeForEcho(markup);
    if (needle.length < MIN_ECHO) return false;
    haystack ??= givenContent().map(normalizeForEcho).join("\u0000");
    return haystack.includes(needle);
  };
}
