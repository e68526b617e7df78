// OpenCode waits for every plugin to start before it goes on with its own start, and the repair
// itself (parser, engine, the three wires: about 90 modules) is most of this plugin's import time.
// None of it is needed before the first model request, so the plugin starts with only its own
// small modules and loads the repair in the background, while OpenCode goes on starting; the hooks
// and the repairing fetch wait for it the first time they need it (by then it has long arrived).
// A repair that fails to load never breaks the host: each user of it has its own way round
// (src/plugin/wiring.ts passes the request on without the tag; the history and text hooks leave
// the text as it was).
import type { repairFetch } from "../adapters/fetch.ts";
import type { emptiedParts, onlyText } from "../history/emptied-parts.ts";
import type { REMOVED_NOTE, redactLeaks, redactReply, replyTextParts } from "../history/sanitize.ts";
// Only resolves ajv and fast-xml-parser: a copy without them still fails to start, naming one.
import "../parse/libraries.ts";

export interface RepairModules {
  repairFetch: typeof repairFetch;
  redactLeaks: typeof redactLeaks;
  redactReply: typeof redactReply;
  replyTextParts: typeof replyTextParts;
  REMOVED_NOTE: typeof REMOVED_NOTE;
  emptiedParts: typeof emptiedParts;
  onlyText: typeof onlyText;
}

let loading: Promise<RepairModules> | undefined;

/** The repair's modules, loaded once per process; the first call starts the load. */
export function repairModules(): Promise<RepairModules> {
  return (loading ??= load());
}

async function load(): Promise<RepairModules> {
  const [adapter, history, emptied] = await Promise.all([import("../adapters/fetch.ts"), import("../history/sanitize.ts"), import("../history/emptied-parts.ts")]);
  return {
    repairFetch: adapter.repairFetch,
    redactLeaks: history.redactLeaks,
    redactReply: history.redactReply,
    replyTextParts: history.replyTextParts,
    REMOVED_NOTE: history.REMOVED_NOTE,
    emptiedParts: emptied.emptiedParts,
    onlyText: emptied.onlyText,
  };
}
