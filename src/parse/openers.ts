import type { TagFamily } from "../grammar/tags.ts";
import { LEGACY_OPENER } from "./legacy.ts";
import { COSTUME_OPENER } from "./costume.ts";
import { DSML_OPENER, NAKED_OPENER } from "./dialects/invoke-markup.ts";
import { BRACKET_OPENER } from "./dialects/mistral.ts";
import type { OpenerRule } from "./span-kind.ts";

export type { Opening, OpenerRule, OpenerView } from "./span-kind.ts";

/**
 * Every tag family's opener rule, each kept beside the dialect it opens: what a marker tag the
 * engine's text mode meets does there (opens a span kind of parse/span.ts, is noise, a stray, or
 * text). The engine dispatches through this table and decides nothing per family itself.
 */
export const OPENERS: Readonly<Record<TagFamily, OpenerRule>> = {
  dsml: DSML_OPENER,
  naked: NAKED_OPENER,
  legacy: LEGACY_OPENER,
  costume: COSTUME_OPENER,
  mistral: BRACKET_OPENER,
};
