// What a terminal gets on top of plain text: colour on stdout and one progress line on stderr.
// Both only when that stream is a terminal, and colour never with NO_COLOR (no-color.org) or
// TERM=dumb: piped output stays exactly the plain text. The text itself still goes through
// terminal.ts first, so no control character from the data reaches the terminal; the only escape
// sequences written are the ones made here.
import { visibleLine } from "./terminal.ts";

type Style = "good" | "warn" | "bad" | "heading";

const SGR: Record<Style, string> = { good: "32", warn: "33", bad: "31", heading: "1" };

interface TerminalStreams {
  stdoutIsTTY?: boolean;
  stderrIsTTY?: boolean;
  env?: NodeJS.ProcessEnv;
}

export function colourWanted({ stdoutIsTTY, env = process.env }: TerminalStreams): boolean {
  if (stdoutIsTTY !== true) return false;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== "") return false;
  return env.TERM !== "dumb";
}

/** Lines of text output (each made visible), each painted with the style `paint` picks when colour is on. */
export function styledOutput(lines: readonly string[], colour: boolean, paint: (line: string) => Style | undefined): string {
  let out = "";
  for (const line of lines) {
    const text = visibleLine(line);
    const style = colour ? paint(line) : undefined;
    out += style ? `\x1b[${SGR[style]}m${text}\x1b[0m\n` : `${text}\n`;
  }
  return out;
}

/** One line that overwrites itself on a terminal's stderr; `clear` removes it before the report. */
export function progressLine(text: string): string {
  return `\r\x1b[2K${visibleLine(text)}`;
}

export const CLEAR_PROGRESS = "\r\x1b[2K";

/** Styles for the lines the commands print (their wording is fixed by report.ts, doctor.ts and sessions.ts). */
export function paintReportLine(line: string): Style | undefined {
  if (/^recovered \d+ call\(s\), 0 broken/.test(line)) return "good";
  if (/^(message \S+: )?recovered \d+ call\(s\), \d+ broken/.test(line)) return "bad";
  if (/^\s+broken /.test(line)) return "bad";
  if (line === "no problems found" || line.endsWith(": loadable") || /\): wire$/.test(line)) return "good";
  if (/^\d+ problem\(s\):$/.test(line) || line.endsWith("NOT loadable") || /\): off$/.test(line)) return "bad";
  if (/\): fallback$/.test(line)) return "warn";
  if (line.startsWith("dsml-fix doctor ") || line.startsWith("usage: ")) return "heading";
  return undefined;
}
