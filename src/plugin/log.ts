import type { PluginInput } from "@opencode-ai/plugin";

export type Level = "info" | "warn" | "error";
export type Logger = (level: Level, message: string) => void;

/**
 * Lines go to OpenCode's own log (shown by `opencode --print-logs` and kept in its log files)
 * through the in-process client; stderr only when that client is missing or fails.
 */
export function createLogger(client: PluginInput["client"] | undefined): Logger {
  return (level, message) => {
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
