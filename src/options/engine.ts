// From settled adapter options and a request's declared tools to the engine's options.
import type { ToolSpec } from "../parse/types.ts";
import type { EchoGuard, EngineOptions } from "../engine/types.ts";
import { TOOL_ALIASES } from "../parse/aliases.ts";
import { codeCostumeNames } from "../grammar/dialects.ts";
import type { AdapterOptions } from "./adapter.ts";
import { isNameEntry, noToolName } from "./check.ts";
import { BUFFER_LIMIT, type NamesSpec, OPTIONS } from "./spec.ts";

const RESPONSE_FIX = OPTIONS.fields.responseFix.fields;

/**
 * `tools`: the tools the request offers a call (declared, then narrowed by its tool choice);
 * `declaredNames`: every tool name the request declared, of any kind (a custom tool, a server
 * tool), before any narrowing. Another agent's name for a tool never stands for a name the
 * request declared (EngineOptions.reservedNames).
 */
export function engineOptions(options: AdapterOptions, tools: readonly ToolSpec[], declaredNames: readonly string[], isEchoed?: EchoGuard): EngineOptions {
  const out: EngineOptions = { tools: recoverableTools(options, tools), reservedNames: reservedNames(options, [...declaredNames, ...tools.map((tool) => tool.name)]) };
  if (options.parse) out.parse = options.parse;
  const bufferLimit = saneBufferLimit(options.responseFix?.bufferLimit);
  if (bufferLimit !== undefined) out.bufferLimit = bufferLimit;
  if (isEchoed) out.isEchoed = isEchoed;
  return out;
}

/**
 * The adapters are public API too, so they do not trust their caller more than the plugin: never
 * above the option's maximum. Below the configuration's minimum a limit is still honoured, down to
 * the spec's library minimum; a limit that is no number is none.
 */
function saneBufferLimit(value: unknown): number | undefined {
  if (typeof value !== "number" || !(value >= BUFFER_LIMIT.libraryMin)) return undefined;
  return Math.min(Math.floor(value), BUFFER_LIMIT.max);
}

/**
 * Tools a recovered call may name: declared by the request, then narrowed by allowTools and
 * denyTools. A tool left out is undeclared as far as the engine knows, so its markup becomes an
 * undeclared-tool nudge instead of a call. A list that is not an array of strings fails closed.
 */
export function recoverableTools(options: AdapterOptions, declared: readonly ToolSpec[]): ToolSpec[] {
  const allow = toolNames(options.responseFix?.allowTools, RESPONSE_FIX.allowTools);
  const deny = toolNames(options.responseFix?.denyTools, RESPONSE_FIX.denyTools);
  if (deny === "*") return [];
  return declared.filter((tool) => (allow === "*" || allow.has(tool.name)) && !deny.has(tool.name));
}

/**
 * Names no alias may be taken for (EngineOptions.reservedNames): every declared name, so a call
 * written to a tool that allowTools, denyTools or the tool choice left out is that tool's or
 * nothing, never re-targeted onto the local tool its name is an alias of; and every alias name
 * denyTools matches, since denying the name a call is written with stops it too
 * (`denyTools: ["Bash"]` stops a `Bash` call that would run as bash). allowTools is matched
 * against the declared target only: `allowTools: ["bash"]` lets a `Bash` call run as bash.
 *
 * The code costumes ask these names too (src/parse/costume.ts): a costume written under a reserved
 * name (`<python>` for a denied `python` sandbox) never runs as bash. So every costume name
 * denyTools matches is reserved as well (`denyTools: ["python"]` stops `<python>`, `["execute"]`
 * the `<tool_call>` costume naming `execute`), in any case, as costume tags are read. The
 * runner's own name as it spells it (`<bash>`) is stopped only by denying bash itself, which
 * leaves no bash to run it. Any other spelling of it (`<Bash>`, `<tool_name>BASH`) is the name
 * another agent gives the shell (the `Bash` alias), so a denyTools entry naming bash in any case
 * reserves `Bash` (review 52): the option promises that `["Bash"]` stops a Bash call that would
 * run as bash, and a costume written `<Bash>` is one; a Hermes call named `Bash` is then stopped
 * too, so every form reads the entry alike. A request that gives the model tools under names it
 * never spells (UNSPELLED_TOOLS among the declared names) reserves every alias and costume name.
 */
export function reservedNames(options: AdapterOptions, declaredNames: readonly string[]): string[] {
  const reserved = new Set(declaredNames);
  if (reserved.delete(UNSPELLED_TOOLS)) {
    for (const alias of Object.keys(TOOL_ALIASES)) reserved.add(alias);
    for (const costume of codeCostumeNames()) if (costume !== RUNNER) reserved.add(costume);
    reserved.add(RUNNER_ALIAS);
  }
  const deny = toolNames(options.responseFix?.denyTools, RESPONSE_FIX.denyTools);
  // "*" leaves no recoverable tool, so no alias has a target anyway.
  if (deny !== "*") {
    for (const alias of Object.keys(TOOL_ALIASES)) if (deny.has(alias)) reserved.add(alias);
    for (const costume of codeCostumeNames()) if (deny.hasIgnoringCase(costume)) reserved.add(costume);
    if (deny.hasIgnoringCase(RUNNER)) reserved.add(RUNNER_ALIAS);
  }
  return [...reserved];
}

/**
 * Review 55a: a declared-names entry (Wire.declaredNames) saying the request gives the model tools
 * under names it never spells (a hosted MCP server whose tools are not listed: a Responses `mcp`
 * without `allowed_tools`, an Anthropic MCP server or `mcp_toolset` without a tool list). A call
 * to another agent's name (`execute_command`) or a costume's (`<python>`, `<shell>`) may then be
 * meant for that server's tool of that name, so every alias and costume name is reserved: none is
 * taken, and a call to one is nobody's (the undeclared-tool nudge). Declared tools still run under
 * their own names, and the runner's own spelling (`<bash>`) is bash's. It holds a NUL, which no
 * tool name holds; a request declaring a name spelled so only turns the aliases off.
 */
export const UNSPELLED_TOOLS = "\u0000unspelled-tools";

/** The tool every code costume runs as, and the name other agents give it (TOOL_ALIASES). */
const RUNNER = "bash";
const RUNNER_ALIAS = "Bash";

/**
 * A list of tool names, each exact or a pattern: `*` stands for any run of characters and `?` for
 * one, as in OpenCode's own permission config (`"mcp__github__*": "deny"`), so a pattern written
 * there means the same here.
 */
class NameList {
  readonly #exact = new Set<string>();
  readonly #patterns: string[] = [];

  add(name: string): void {
    if (name.includes("*") || name.includes("?")) this.#patterns.push(name);
    else this.#exact.add(name);
  }

  has(name: string): boolean {
    return this.#exact.has(name) || this.#patterns.some((pattern) => wildcardMatch(pattern, name));
  }

  /** has(), with the entries and `name` compared in lower case (a costume name, read in any case). */
  hasIgnoringCase(name: string): boolean {
    const lower = name.toLowerCase();
    for (const exact of this.#exact) if (exact.toLowerCase() === lower) return true;
    return this.#patterns.some((pattern) => wildcardMatch(pattern.toLowerCase(), lower));
  }
}

type Names = NameList | "*";

/**
 * Absent: the option's default; not a list of names (a non-string, `""`, a name with whitespace
 * around it, which names no tool: check.ts isNameEntry; an entry holding a character no tool name
 * holds, a blank inside or "," included: check.ts noToolName): its fail-closed value, as the
 * plugin's reading gives it. The readers split a list written as "bash,read" before it comes here.
 */
function toolNames(value: unknown, spec: NamesSpec): Names {
  if (value === undefined) return names(spec.default);
  if (!Array.isArray(value)) return names(spec.failClosed ?? []);
  const listed = new NameList();
  for (const name of value) {
    if (!isNameEntry(name) || noToolName(name) !== undefined) return names(spec.failClosed ?? []);
    if (name === "*") return "*";
    listed.add(name);
  }
  return listed;
}

/**
 * Whether `text` matches `pattern` (`*` any run, `?` any one character), with no regular
 * expression built from configuration: one pass that backs up only to the last `*`, so at most
 * pattern × name steps for names of a few dozen characters.
 */
export function wildcardMatch(pattern: string, text: string): boolean {
  let p = 0;
  let t = 0;
  let star = -1;
  let resume = 0;
  while (t < text.length) {
    if (p < pattern.length && (pattern[p] === "?" || (pattern[p] !== "*" && pattern[p] === text[t]))) {
      p++;
      t++;
    } else if (p < pattern.length && pattern[p] === "*") {
      star = p++;
      resume = t;
    } else if (star >= 0) {
      p = star + 1;
      t = ++resume;
    } else return false;
  }
  while (p < pattern.length && pattern[p] === "*") p++;
  return p === pattern.length;
}

function names(list: readonly string[]): Names {
  if (list.includes("*")) return "*";
  const listed = new NameList();
  for (const name of list) listed.add(name);
  return listed;
}
