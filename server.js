// OpenCode's entry point for this package (package.json `exports["./server"]`, which OpenCode 1.18
// reads before `main` and OpenCode 2 before the root): `{ id, server, setup }` (src/plugin/two-hosts.ts).
// An installed package runs the compiled plugin in dist/. A checkout (src/ is never
// packed, so its presence means one) that OpenCode runs under Bun loads the TypeScript source
// instead, so a checkout needs no build and never runs a stale dist/.
import { existsSync } from "node:fs";

const source = new URL("./src/plugin/two-hosts.ts", import.meta.url);
const fromSource = typeof process !== "undefined" && Boolean(process.versions?.bun) && existsSync(source);
const plugin = fromSource ? await import(source.href) : await import("./dist/plugin/two-hosts.js");

export default plugin.default;
