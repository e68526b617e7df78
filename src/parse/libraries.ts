// The two libraries the parser loads on first use (ajv for a recovered call's schema check,
// src/parse/schema-gate.ts; fast-xml-parser for an XML execute costume, src/parse/costume-xml.ts) are
// resolved, never loaded, when this module is imported. So a copy of the package without its
// dependencies fails to start and names the package, instead of starting and then never
// recovering a call. The plugin imports it when it starts, before the rest of the repair is loaded
// in the background (src/plugin/repair-modules.ts).
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
require.resolve("ajv");
require.resolve("fast-xml-parser");
