/** Every line the plugin logs starts with this, so one search (`grep '\[dsml\]'`) finds them all. */
export const LOG_PREFIX = "[dsml]";

/** The line as logged: with the prefix, exactly once. */
export function prefixed(message: string): string {
  return message.startsWith(`${LOG_PREFIX} `) ? message : `${LOG_PREFIX} ${message}`;
}
