import type { PluginInput } from "@opencode-ai/plugin";
import { prefixed } from "./log-prefix.ts";

type Level = "info" | "warn" | "error";
export type Logger = (level: Level, message: string) => void;

/**
 * Lines go to OpenCode's own log (shown by `opencode --print-logs` and kept in its log files)
 * through the in-process client; stderr only when that client is missing or fails. Every line
 * starts with "[dsml] ", whoever wrote it.
 */
export function createLogger(client: PluginInput["client"] | undefined): Logger {
  return (level, text) => {
    const message = prefixed(text);
    const fallback = () => console.error(message);
    try {
      const pending = client?.app?.log?.({ body: { service: "dsml-fix", level, message } });
      if (!pending) return fallback();
      void Promise.resolve(pending).catch(fallback);
    } catch {
      fallback();
    }
  };
}
