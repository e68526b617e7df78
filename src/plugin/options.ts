import { z } from "zod";
import { DIALECTS, type DialectId } from "../grammar/dialects.ts";
import { LOG_PREFIX } from "./log-prefix.ts";

const PREFIX = LOG_PREFIX;
const BUFFER_MIN = 1024;
const BUFFER_MAX = 16_777_216;
/** "auto": every provider, for models of a leak-prone family (src/plugin/scope.ts). */
export const DEFAULT_PROVIDERS = ["auto"] as const;

/** The default is passed once and also quoted in the description, so the docs cannot disagree with the code. */
function withDefault<T extends z.ZodType>(schema: T, fallback: z.util.NoUndefined<z.output<T>>, what: string) {
  return schema.default(fallback).describe(`${what} Default: ${JSON.stringify(fallback)}.`);
}

function flag(fallback: boolean, what: string) {
  return withDefault(z.boolean({ error: "must be true or false" }), fallback, what);
}

const bufferLimitError = `must be an integer from ${BUFFER_MIN} to ${BUFFER_MAX}`;
const providersError = 'must be an array of non-empty provider id strings ("auto" for leak-prone models everywhere, "*" for all)';
const channelError = 'must be "system" or "user"';
const toolsError = 'must be an array of non-empty tool name strings ("*" for all)';

function toolList(fallback: string[], what: string) {
  return withDefault(z.array(z.string({ error: toolsError }).min(1, { error: toolsError }), { error: toolsError }), fallback, what);
}

const parseFields = {
  orphanInvoke: flag(true, "Accept an invoke that has no outer block opener (shape B05)."),
  looseParameters: flag(true, "Accept mis-closed, mangled and runaway parameters (shapes P01-P03, P11)."),
  rawJsonBody: flag(true, "Accept a bare JSON object as an invoke body, and the arguments/input wrapper (shapes I03, I04)."),
  wrappedTool: flag(true, "Accept a parameter named after a declared tool that holds the real parameters (shape I02)."),
  codeCostumes: flag(true, "Recover fenceless code costumes (<shell>, HTML pre/code, XML execute calls) as bash calls (shapes C01-C04, C07)."),
  standaloneJson: flag(false, "Recover a JSON tool call standing alone as a whole paragraph, with no marker ({\"name\", \"arguments\"}, a list, or {\"tool_calls\": [...]}; shape J01). Off by default: a JSON reply the user asked for looks the same."),
};

const dialectFields = Object.fromEntries(
  Object.entries(DIALECTS).map(([id, d]) => [
    id,
    flag(d.on, `Recover leaked tool calls in the ${d.models} format (shape ${d.shape}).${"why" in d ? ` ${d.why}` : ""}`),
  ]),
) as Record<DialectId, ReturnType<typeof flag>>;

const historyFields = {
  sanitize: flag(true, "Strip leaked tool-call markup from earlier assistant messages before they are sent back, so the model does not imitate it."),
};

const responseFixFields = {
  enabled: flag(true, "Turn leaked tool-call markup in streamed responses into real tool calls."),
  bufferLimit: withDefault(
    z.int({ error: bufferLimitError }).min(BUFFER_MIN, { error: bufferLimitError }).max(BUFFER_MAX, { error: bufferLimitError }),
    65_536,
    `Characters a possible tool call may hold back from the stream before it is released verbatim (${BUFFER_MIN} to ${BUFFER_MAX}).`,
  ),
  allowTools: toolList(
    ["*"],
    'Tools a recovered call may name, among those the request declared; "*" means every declared tool and [] recovers no call (leaks only get the correction). Native tool calls are never affected. An invalid value fails closed to [].',
  ),
  denyTools: toolList(
    [],
    'Tools a recovered call may never name, even when allowTools allows them; "*" denies every tool. The leak becomes an undeclared-tool correction; native tool calls are never affected. An invalid value fails closed to ["*"].',
  ),
  echoGuard: flag(
    true,
    "Echo guard: a call whose markup appears (up to whitespace and line-number gutters) in content the request gave the model (tool results, user, system and file text) is stripped and never executed.",
  ),
};

const retryFields = {
  enabled: flag(
    true,
    "Idle wake: when a reply ended in markup that could not be repaired and the session goes idle with it unanswered, send one minimal wake-up prompt (at most one per message).",
  ),
  channel: withDefault(
    z.enum(["system", "user"], { error: channelError }),
    "system",
    '"system": the wake-up is a minimal ping and the correction rides in the system prompt; "user": the full correction is sent as a synthetic user turn.',
  ),
  nudge: flag(true, "The correction itself: the next request tells the model its last reply had broken tool markup and asks it to re-issue the call through the tool interface (at most once per message)."),
};

const topLevelFields = {
  providers: withDefault(
    z.array(z.string({ error: providersError }).min(1, { error: providersError }), { error: providersError }),
    [...DEFAULT_PROVIDERS],
    'Where the plugin acts. "auto": every provider, for models of a leak-prone family (DeepSeek, Qwen, GLM, Kimi, MiniMax, Mistral/Devstral, Hermes, LFM); a provider id: every model of that provider; "*": every provider and every model; [] disables the plugin. Entries combine, e.g. ["auto", "my-vllm"].',
  ),
  debug: flag(false, "Log one [dsml] line per request and response (shape ids only, never argument values)."),
};

/** Key order here is the order of the generated JSON schema. */
const layout = {
  parse: { ...parseFields, dialects: dialectFields },
  history: historyFields,
  responseFix: responseFixFields,
  retry: retryFields,
  ...topLevelFields,
};

function namespaceText(what: string): string {
  return `${what} Each field is optional and has its own default.`;
}

export const pluginOptionsSchema = z
  .strictObject({
    parse: z
      .strictObject({
        ...parseFields,
        dialects: z.strictObject(dialectFields).prefault({}).describe(namespaceText("Other models' tool-call formats, one switch each.")),
      })
      .prefault({})
      .describe(namespaceText("Which leaked-markup shapes may be turned into tool calls.")),
    history: z.strictObject(historyFields).prefault({}).describe(namespaceText("Cleaning of earlier messages before they are sent to the model again.")),
    responseFix: z.strictObject(responseFixFields).prefault({}).describe(namespaceText("Repair of leaked tool-call markup in streamed responses.")),
    retry: z.strictObject(retryFields).prefault({}).describe(namespaceText("One correction, and at most one wake-up prompt, when a reply ends in markup that could not be repaired.")),
    ...topLevelFields,
  })
  .meta({
    title: "opencode-plugin-dsml-fix options",
    description:
      'Options for opencode-plugin-dsml-fix, given as the second element of the plugin entry: ["opencode-plugin-dsml-fix", { ... }]. Every option is optional.',
  });

/** Every field present: what the rest of the plugin reads. */
export type PluginOptions = z.output<typeof pluginOptionsSchema>;

export const defaultOptions: PluginOptions = deepFreeze(pluginOptionsSchema.parse({}));

export interface ResolvedOptions {
  options: PluginOptions;
  /** One line per unknown key or bad value, ready to show the user. */
  problems: string[];
  /**
   * An unknown key was close to a security option: recovered calls are off (allowTools []) until
   * the config is fixed, since the user meant to restrict something the plugin cannot tell.
   */
  failedClosed?: boolean;
}

/**
 * Lenient by design: a typo in the config must not take the plugin, or OpenCode's startup, down
 * with it. Each key is read on its own, so one that cannot be read (a throwing getter, a hostile
 * Proxy) costs only itself: it falls back like an invalid value, and never resets its neighbours.
 */
export function resolveOptions(raw: unknown): ResolvedOptions {
  const problems: string[] = [];
  try {
    if (raw === undefined) return { options: pluginOptionsSchema.parse({}), problems };
    if (!isPlainObject(raw)) {
      problems.push(`${PREFIX} options must be an object (got ${show(raw)}); using defaults for all options`);
      return { options: pluginOptionsSchema.parse({}), problems };
    }
    const near = { security: false };
    const kept = keepValid(raw, layout, "", problems, near);
    if (!near.security) return { options: pluginOptionsSchema.parse(kept), problems };
    const responseFix = isPlainObject(kept.responseFix) ? kept.responseFix : {};
    kept.responseFix = { ...responseFix, allowTools: [] };
    return { options: pluginOptionsSchema.parse(kept), problems, failedClosed: true };
  } catch {
    // Only reachable through a bug here: still never let the tool lists fail open.
    problems.push(`${PREFIX} options could not be read; using defaults for all options, and no recovered calls until this is fixed`);
    return { options: pluginOptionsSchema.parse(closedValuesUnder(layout, "")), problems };
  }
}

type Layout = { [key: string]: z.ZodType | Layout };

/** Copies only known keys with valid values into a fresh object, so hostile keys never reach a prototype. */
function keepValid(raw: object, fields: Layout, parentPath: string, problems: string[], near: { security: boolean }) {
  const kept: Record<string, unknown> = {};
  let keys: string[];
  try {
    keys = Object.keys(raw);
  } catch {
    problems.push(`${PREFIX} ${parentPath ? `option ${JSON.stringify(parentPath.slice(0, -1))}` : "options"} could not be listed; ${unreadableNote(parentPath)}`);
    return closedValuesUnder(fields, parentPath);
  }
  for (const key of keys) {
    const path = parentPath + key;
    const field = Object.hasOwn(fields, key) ? fields[key] : undefined;
    if (field === undefined) {
      const unknown = unknownKey(key, parentPath);
      if (unknown.security) near.security = true;
      problems.push(unknown.problem);
      continue;
    }
    const read = readKey(raw, key, field);
    if (!read.ok) {
      const nested = field instanceof z.ZodType ? undefined : closedValuesUnder(field, `${path}.`);
      const closed = field instanceof z.ZodType ? fallbackFor(path, field) : undefined;
      if (closed?.value !== undefined) kept[key] = closed.value;
      if (nested !== undefined && Object.keys(nested).length > 0) kept[key] = nested;
      const note = closed ? `using ${closed.note}` : unreadableNote(`${path}.`);
      problems.push(`${PREFIX} option ${JSON.stringify(path)} could not be read; ${note}`);
      continue;
    }
    const { value } = read;
    if (field instanceof z.ZodType) {
      const checked = read.checked!;
      if (checked.success) kept[key] = checked.data;
      else {
        const expected = checked.error.issues[0]?.message ?? "is invalid";
        const fallback = fallbackFor(path, field);
        if (fallback.value !== undefined) kept[key] = fallback.value;
        problems.push(`${PREFIX} option ${JSON.stringify(path)} ${expected} (got ${show(value)}); using ${fallback.note}`);
      }
    } else if (value === undefined) {
      continue;
    } else if (read.object) {
      kept[key] = keepValid(value as object, field, `${path}.`, problems, near);
    } else {
      problems.push(`${PREFIX} option ${JSON.stringify(path)} must be an object (got ${show(value)}); using its defaults`);
    }
  }
  return kept;
}

type Read =
  | { ok: true; value: unknown; checked?: ReturnType<z.ZodType["safeParse"]>; object: boolean }
  | { ok: false };

/** Reading a key, and validating it (zod walks arrays through their getters), may throw: that is one unreadable key. */
function readKey(raw: object, key: string, field: z.ZodType | Layout): Read {
  try {
    const value = (raw as Record<string, unknown>)[key];
    if (field instanceof z.ZodType) return { ok: true, value, checked: field.safeParse(value), object: false };
    return { ok: true, value, object: isPlainObject(value) };
  } catch {
    return { ok: false };
  }
}

/** The fail-closed values of every security option under `fields` (an object that could not be read may have set them). */
function closedValuesUnder(fields: Layout, parentPath: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(fields)) {
    const path = parentPath + key;
    if (field instanceof z.ZodType) {
      const closed = Object.hasOwn(FAIL_CLOSED, path) ? FAIL_CLOSED[path] : undefined;
      if (closed) out[key] = structuredClone(closed.value);
    } else {
      const nested = closedValuesUnder(field, `${path}.`);
      if (Object.keys(nested).length > 0) out[key] = nested;
    }
  }
  return out;
}

function unreadableNote(parentPath: string): string {
  const closed = Object.keys(FAIL_CLOSED).filter((path) => path.startsWith(parentPath));
  if (closed.length === 0) return "using its defaults";
  const values = closed.map((path) => `${JSON.stringify(path)} = ${show(FAIL_CLOSED[path]!.value)}`).join(" and ");
  return `using its defaults, except ${values} (no recovered calls until this is fixed)`;
}

/**
 * Security options fail closed: a mistyped deny list must not silently allow everything. Keyed by
 * option path; every other bad value falls back to its default.
 */
const FAIL_CLOSED: Record<string, { value: unknown; why: string }> = {
  "responseFix.allowTools": { value: [], why: "no recovered calls until this is fixed" },
  "responseFix.denyTools": { value: ["*"], why: "no recovered calls until this is fixed" },
};

function fallbackFor(path: string, field: z.ZodType): { value: unknown; note: string } {
  const closed = Object.hasOwn(FAIL_CLOSED, path) ? FAIL_CLOSED[path] : undefined;
  if (closed) return { value: structuredClone(closed.value), note: `${show(closed.value)} (${closed.why})` };
  return { value: undefined, note: show(field.parse(undefined)) };
}

const POLLUTION_KEYS = new Set(["__proto__", "constructor", "prototype"]);

/**
 * The options that decide what may run. A key close to one of them is a user trying to restrict
 * something: ignoring it would leave open what they meant to close, so recovered calls stay off
 * until the key is fixed.
 */
export const SECURITY_OPTIONS = ["responseFix.allowTools", "responseFix.denyTools", "responseFix.echoGuard", "providers"] as const;

/** Every option path, namespaces included ("parse", "parse.dialects", "parse.dialects.hermes", ...). */
function optionPaths(fields: Layout, parentPath: string): string[] {
  return Object.entries(fields).flatMap(([key, field]) => [parentPath + key, ...(field instanceof z.ZodType ? [] : optionPaths(field, `${parentPath}${key}.`))]);
}

const OPTION_PATHS = optionPaths(layout, "");

function unknownKey(key: string, parentPath: string): { problem: string; security: boolean } {
  const polluting = POLLUTION_KEYS.has(key);
  const suggestion = polluting ? undefined : suggest(key, parentPath);
  const security = !polluting && nearSecurityOption(key);
  const hint = suggestion === undefined ? "" : suggestion === parentPath + key ? ` (${nestedForm(suggestion)})` : ` (did you mean ${JSON.stringify(suggestion)}?)`;
  const closed = security ? "; ignored, and no tool call is recovered until it is fixed (it is close to a security option)" : "; ignored";
  return { problem: `${PREFIX} unknown option ${JSON.stringify(parentPath + key)}${hint}${closed}`, security };
}

/** "responseFix.denyTools" written as one key: how to write it instead. */
function nestedForm(path: string): string {
  const names = path.split(".");
  return `options nest: write ${names.map((name) => `{ ${JSON.stringify(name)}: `).join("")}...${" }".repeat(names.length)}`;
}

/** How far a written key may be from an option's name: one edit per four letters, at least one. */
function close(written: string, name: string): number | undefined {
  const distance = editDistance(written.toLowerCase(), name.toLowerCase());
  return distance <= Math.max(1, Math.floor(name.length / 4)) ? distance : undefined;
}

/**
 * The nearest option anywhere, by edit distance on its name (or on its whole path, for a key
 * written dotted): "denyTool" at the top level is "responseFix.denyTools". A tie goes to the
 * key's own namespace; a tie between two others ("enabled" at the top level) suggests nothing,
 * since guessing between them would mislead.
 */
function suggest(key: string, parentPath: string): string | undefined {
  let best: { path: string; distance: number; local: boolean }[] = [];
  for (const path of OPTION_PATHS) {
    const name = path.slice(path.lastIndexOf(".") + 1);
    const distance = Math.min(close(key, name) ?? Infinity, key.includes(".") ? (close(key, path) ?? Infinity) : Infinity);
    if (distance === Infinity) continue;
    const candidate = { path, distance, local: path === parentPath + name };
    if (best.length === 0 || distance < best[0]!.distance) best = [candidate];
    else if (distance === best[0]!.distance) best.push(candidate);
  }
  const local = best.find((candidate) => candidate.local);
  if (local) return local.path;
  return best.length === 1 ? best[0]!.path : undefined;
}

function nearSecurityOption(key: string): boolean {
  return SECURITY_OPTIONS.some((path) => close(key, path.slice(path.lastIndexOf(".") + 1)) !== undefined || (key.includes(".") && close(key, path) !== undefined));
}

/** Edits between two names, a swap of two neighbouring letters counting as one ("hermse" is one from "hermes"). */
function editDistance(a: string, b: string): number {
  let before: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      let best = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitution);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, (before[j - 2] ?? 0) + 1);
      current[j] = best;
    }
    before = previous;
    previous = current;
  }
  return previous[b.length] ?? 0;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

const SHOW_LIMIT = 60;

/** Values end up in a log line: keep them short and never let printing fail (a Proxy can throw from any trap). */
function show(value: unknown): string {
  let text: string;
  try {
    if (typeof value === "bigint") text = `${value}n`;
    else if (value === undefined || typeof value === "function" || typeof value === "symbol") text = typeof value === "function" ? "a function" : String(value);
    else text = JSON.stringify(value) ?? String(value);
  } catch {
    text = "an unprintable value";
  }
  return text.length > SHOW_LIMIT ? `${text.slice(0, SHOW_LIMIT)}...` : text;
}

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null) {
    for (const nested of Object.values(value)) deepFreeze(nested);
    Object.freeze(value);
  }
  return value;
}
