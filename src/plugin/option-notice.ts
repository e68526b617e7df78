import type { PluginInput } from "@opencode-ai/plugin";

/**
 * Bad options shown where a TUI user looks: one toast, in the TUI's own notification area, the
 * first time a session is touched (at plugin start no TUI may be listening yet, and the log file is
 * somewhere nobody reads). Without a TUI the request publishes an event nobody shows: harmless.
 * Never throws and never waits: a toast that fails costs nothing but itself.
 */
export function optionNotice(client: PluginInput["client"] | undefined, problems: readonly string[], failedClosed: boolean) {
  let shown = problems.length === 0;
  return (eventType: string | undefined): void => {
    if (shown || !eventType?.startsWith("session.")) return;
    shown = true;
    const message = `${problems.length} option problem(s) in the plugin entry${failedClosed ? "; no tool call is recovered until they are fixed" : ""}. Run \`npx dsml-fix doctor\` for the list.`;
    try {
      const pending = client?.tui?.showToast?.({ body: { title: "dsml-fix options", message, variant: failedClosed ? "error" : "warning", duration: 15_000 } });
      void Promise.resolve(pending).catch(() => undefined);
    } catch {
      // The log lines and the start-up line still carry the problems.
    }
  };
}
