// The module both OpenCode hosts load from `exports["./server"]`: `server` is the 1.18 (classic)
// plugin, `setup` the OpenCode 2 one. 1.18.33 calls `server()` and ignores the other keys (ran);
// 2.x resolves `<name>/server` before the root and calls `setup()` (anomalyco/opencode
// packages/core/src/plugin/module.ts @ 07db2b92). V1 and V2 are separate binaries, so only one of
// the two is ever live in a process. The root "." export (src/plugin/index.ts) stays without
// `setup`: 1.18.33's preview loader imports "." and would run a second copy.
import { PLUGIN_ID, server } from "./index.ts";
import type { V2Setup } from "./v2/host-types.ts";

/** Imported when a 2.x host calls it: a 1.18 host never does, and never loads the V2 modules. */
export const setup: V2Setup = async (context) => (await import("./v2/setup.ts")).setup(context);

const plugin = { id: PLUGIN_ID, server, setup };
export default plugin;
