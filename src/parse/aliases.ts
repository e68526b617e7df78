import type { JsonSchema, ToolSpec } from "./types.ts";
import { propertySchema } from "./values.ts";
import { copyRespelled } from "../grammar/number-spelling.ts";

/**
 * Issue 29 item 6: the names other agents give OpenCode's tools. Models trained on Cline, Roo or
 * Claude Code write `execute_command`, `read_file`, `Bash`... A call to one of these names, when the
 * request does not declare that name itself, runs as the declared OpenCode tool only when every
 * parameter it carries maps onto one the declared tool has (docs/PATTERNS.md, "Another agent's
 * tool names"). Each entry lists every parameter the other agent defines: a target name, or null
 * where OpenCode has no exact counterpart (such a call is never run; the nudge names the tool).
 */
export const TOOL_ALIASES: Readonly<Record<string, { tool: string; params: Readonly<Record<string, string | null>> }>> = {
  execute_command: { tool: "bash", params: { command: "command", cwd: "workdir", requires_approval: null } },
  Bash: { tool: "bash", params: { command: "command", timeout: "timeout", description: "description", run_in_background: null } },
  read_file: { tool: "read", params: { path: "filePath" } },
  write_to_file: { tool: "write", params: { path: "filePath", content: "content" } },
  replace_in_file: { tool: "edit", params: { path: "filePath", diff: null } },
  list_files: { tool: "glob", params: { path: "path", recursive: null } },
  search_files: { tool: "grep", params: { regex: "pattern", path: "path", file_pattern: "include" } },
};

/** What a synthesized alias spec stands for: its declared target and the parameter renames. */
interface AliasMapping {
  alias: string;
  target: ToolSpec;
  params: Readonly<Record<string, string | null>>;
}

/** Alias specs the lookup below made, by identity: only these are mapped, never a declared tool. */
const MAPPINGS = new WeakMap<ToolSpec, AliasMapping>();

/**
 * Adds a spec per alias whose target is declared and whose own name is neither declared nor
 * `reserved`. Its schema has the alias's parameter names, each typed as its declared target (so
 * every dialect reads and coerces values as it would for the target); a parameter without an
 * exact counterpart is accepted by any reader (an empty schema) and refused when the call is
 * mapped (mapAliasCall).
 *
 * `tools` are the tools a recovered call may name, after policy (allowTools, denyTools, tool_choice)
 * narrowed them; `reserved` names what that left out but must not be re-targeted: every tool the
 * request declared, of any kind (a denied MCP `execute_command`, a custom tool), so a call to it is
 * that tool's or nothing, never bash's; and an alias name denyTools matches (EngineOptions.reservedNames).
 * Nor is an alias taken that a declared name (in `tools` or `reserved`) carries after a namespace
 * separator (namespacedAliases).
 */
export function withAliases(tools: Map<string, ToolSpec>, reserved: Iterable<string> = []): Map<string, ToolSpec> {
  const taken = new Set(reserved);
  RESERVED.set(tools, taken);
  // Read before any alias spec is added: only the request's own names qualify an alias.
  const qualified = namespacedAliases(tools.keys(), taken);
  for (const [alias, entry] of Object.entries(TOOL_ALIASES)) {
    const target = tools.get(entry.tool);
    if (!target || tools.has(alias) || taken.has(alias) || qualified.has(alias)) continue;
    tools.set(alias, aliasSpec(alias, target));
  }
  return tools;
}

/** What may stand between a host's namespace and a tool's own name: `remote_x`, `mcp__remote__x`, `functions.x`, `srv-x`, `srv/x`, `srv:x`. */
const NAMESPACE_SEPARATORS = new Set(["_", ".", "-", "/", ":"].map((c) => c.charCodeAt(0)));
const ALIAS_LIST = Object.keys(TOOL_ALIASES);

/**
 * Review 55: the alias names some declared name carries as its own after a namespace separator
 * (an MCP server's `execute_command`, declared as `remote_execute_command` or
 * `mcp__remote__execute_command`). Models drop such prefixes, so a call to the bare name may be
 * meant for that tool as well as for the one the alias maps onto: which one cannot be known, so
 * the alias is not taken and the call is nobody's (the undeclared-tool nudge). Compared
 * case-sensitively, as tool names are everywhere; a fixed number of suffix checks per declared
 * name, so linear in the tool list.
 */
function namespacedAliases(...lists: Iterable<string>[]): Set<string> {
  const out = new Set<string>();
  for (const names of lists) {
    for (const name of names) {
      for (const alias of ALIAS_LIST) if (carriesName(name, alias, "alias")) out.add(alias);
    }
  }
  return out;
}

/**
 * Whether the declared `name` carries `bare` as a tool name of its own: the one rule for every name
 * a call may be re-targeted under, in two strengths.
 *
 * "alias" (the alias names here): `name` is `<namespace><separator><bare>` (the namespace may be
 * empty), or `<namespace><Bare>`, the camelCase spelling MCP servers and JS hosts give (review 57;
 * `serverExecuteCommand` carries `execute_command`): each `_`-separated word of `bare` capitalised,
 * after a lower-case letter or digit, or the whole name when `bare` has two words or more
 * (`readFile`, `ExecuteCommand`). Exact comparison (tool names are case-sensitive everywhere).
 * Reads at most `bare`'s length and one more.
 *
 * "costume" (a code costume name, src/parse/costume.ts addressedElsewhere; `bare` in lower case):
 * `name` holds `bare`'s words as whole words anywhere, in any case (diff review 57a, the lead's
 * decision): a Python sandbox is spelled `sandbox_python`, `sandboxPython`, but as often
 * `python_sandbox`, `PythonSandbox` or `run_python3`, and a `<python>` costume may be meant for any
 * of them, so it never runs as the local bash. Words split at `_ . - / :`, where a lower-case
 * letter meets an upper-case one (`PythonSandbox`), and between letters and digits (`run_python3`,
 * `e2bPython`); an upper-case run stays one word, so `CPython` (the word `cpython`), `cpython_build`,
 * `pythonic`, `typhon` and `mypython` carry no `python`. Linear in `name`.
 */
export function carriesName(name: string, bare: string, how: "alias" | "costume"): boolean {
  if (how === "costume") return holdsWords(name, bare);
  return afterSeparator(name, bare, false) || afterCamelBoundary(name, bare, false);
}

/** What may stand between two words of a tool name (NAMESPACE_SEPARATORS: `_ . - / :`). */
const isSeparator = (c: number) => NAMESPACE_SEPARATORS.has(c);
const isDigit = (c: number) => c >= 0x30 && c <= 0x39;
const isLetter = (c: number) => (c | 0x20) >= 0x61 && (c | 0x20) <= 0x7a;

/** The words of a tool name in lower case, split as carriesName's "costume" strength says. */
function wordsOf(name: string): string[] {
  const words: string[] = [];
  let word = "";
  for (let i = 0; i < name.length; i++) {
    const c = name.charCodeAt(i);
    if (isSeparator(c)) {
      if (word) words.push(word);
      word = "";
      continue;
    }
    const p = i > 0 ? name.charCodeAt(i - 1) : -1;
    const camel = isUpper(c) && p >= 0x61 && p <= 0x7a;
    const digitEdge = p >= 0 && ((isDigit(c) && isLetter(p)) || (isLetter(c) && isDigit(p)));
    if (word && (camel || digitEdge)) {
      words.push(word);
      word = "";
    }
    word += String.fromCharCode(isUpper(c) ? c | 0x20 : c);
  }
  if (word) words.push(word);
  return words;
}

/** `name`'s words hold `bare`'s (`_`-separated, lower case) as a run of whole words. */
function holdsWords(name: string, bare: string): boolean {
  const want = bare.split("_").filter((w) => w !== "");
  if (want.length === 0) return false;
  const have = wordsOf(name);
  for (let i = 0; i + want.length <= have.length; i++) {
    let j = 0;
    while (j < want.length && have[i + j] === want[j]) j++;
    if (j === want.length) return true;
  }
  return false;
}

function afterSeparator(name: string, bare: string, foldCase: boolean): boolean {
  const at = name.length - bare.length - 1;
  if (at < 0 || !NAMESPACE_SEPARATORS.has(name.charCodeAt(at))) return false;
  for (let i = 0; i < bare.length; i++) if (!sameChar(name.charCodeAt(at + 1 + i), bare.charCodeAt(i), foldCase)) return false;
  return true;
}

const UNDERSCORE = 0x5f;

function afterCamelBoundary(name: string, bare: string, foldCase: boolean): boolean {
  let words = 0;
  for (let i = 0; i < bare.length; i++) if (bare.charCodeAt(i) === UNDERSCORE) words++;
  const start = name.length - (bare.length - words);
  // The whole name a one-word `bare` in another case (`bash` for the alias `Bash`) is no camelCase spelling: names are compared exactly.
  if (start < 0 || (start === 0 && words === 0) || (start > 0 && !isLowerOrDigit(name.charCodeAt(start - 1)))) return false;
  let at = start;
  let wordStart = true;
  for (let i = 0; i < bare.length; i++) {
    const b = bare.charCodeAt(i);
    if (b === UNDERSCORE) {
      // `a__b` or a leading or trailing `_`: no camelCase spelling.
      if (wordStart) return false;
      wordStart = true;
      continue;
    }
    // The name's first letter may be either case: `readFile` is `read_file` spelled in camelCase.
    const upper = wordStart && at > 0;
    const c = name.charCodeAt(at++);
    if (upper ? !isUpper(c) || !sameChar(c, b, true) : !sameChar(c, b, foldCase || wordStart)) return false;
    wordStart = false;
  }
  return !wordStart;
}

const isUpper = (c: number) => c >= 0x41 && c <= 0x5a;
const isLowerOrDigit = (c: number) => (c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39);
/** ASCII letters compared ignoring case when `fold`; everything else exactly. */
const sameChar = (a: number, b: number, fold: boolean) => a === b || (fold && (a | 0x20) === (b | 0x20) && (a | 0x20) >= 0x61 && (a | 0x20) <= 0x7a);

/** Alias specs already made, per target declaration: the same (alias, declaration) gives the same spec. */
const SPECS = new WeakMap<ToolSpec, Map<string, ToolSpec>>();

/**
 * The spec of `alias` (a TOOL_ALIASES name) standing for the declaration `target`: the alias's
 * parameter names, each typed as its counterpart in `target`. A tool declared more than once is
 * read once per declaration (span.ts sameUnderEveryDeclaration), and a call by its alias is read
 * with the alias spec of each declaration alike.
 */
export function aliasSpec(alias: string, target: ToolSpec): ToolSpec {
  let made = SPECS.get(target);
  const known = made?.get(alias);
  if (known) return known;
  const entry = TOOL_ALIASES[alias]!;
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  const targetRequired = new Set(Array.isArray(target.parameters?.required) ? target.parameters.required : []);
  for (const [param, to] of Object.entries(entry.params)) {
    properties[param] = (to !== null ? propertySchema(target.parameters, to) : undefined) ?? {};
    if (to !== null && targetRequired.has(to)) required.push(param);
  }
  const spec: ToolSpec = { name: alias, parameters: { type: "object", properties, required } };
  MAPPINGS.set(spec, { alias, target, params: entry.params });
  if (!made) SPECS.set(target, (made = new Map()));
  made.set(alias, spec);
  return spec;
}

/**
 * The reserved names each tool map was made with (withAliases): the code costumes ask them too
 * (reservedNamesOf), since a costume named after one of them (`<python>` for a denied `python`
 * sandbox, or a costume name denyTools matches) is addressed to that tool, never to bash. Kept by
 * the map the span context carries, so no reader's interface grows for it.
 */
const RESERVED = new WeakMap<ReadonlyMap<string, ToolSpec>, ReadonlySet<string>>();
const NONE_RESERVED: ReadonlySet<string> = new Set();

/** The names withAliases was told no alias may take for this tool map (EngineOptions.reservedNames); none when it made no such map. */
export function reservedNamesOf(tools: ReadonlyMap<string, ToolSpec>): ReadonlySet<string> {
  return RESERVED.get(tools) ?? NONE_RESERVED;
}

const ALIAS_NAMES = new Set(Object.keys(TOOL_ALIASES).map((name) => name.toLowerCase()));

/** Whether an element name (any case) is one of the table's names: the echo guard reads it as call markup. */
export function isAliasName(name: string): boolean {
  return ALIAS_NAMES.has(name.toLowerCase());
}

export function aliasMappingOf(tool: ToolSpec): AliasMapping | undefined {
  return MAPPINGS.get(tool);
}

type AliasVerdict = { ok: true; input: Record<string, unknown> } | { ok: false; detail: string };

/**
 * The call's input renamed onto the declared tool, or why it cannot be: a parameter with no exact
 * counterpart (or one the declared tool does not have), or a parameter the declared tool requires
 * that the alias cannot carry. The schema gate then checks the renamed input as for any call.
 */
export function mapAliasCall(mapping: AliasMapping, input: Record<string, unknown>): AliasVerdict {
  const out: Record<string, unknown> = {};
  const refuse = (why: string): AliasVerdict => ({ ok: false, detail: `${mapping.alias} is another agent's name for ${mapping.target.name}; ${why}, so use ${mapping.target.name}` });
  for (const key of Object.keys(input)) {
    const to = Object.prototype.hasOwnProperty.call(mapping.params, key) ? mapping.params[key] : undefined;
    if (to === undefined || to === null) return refuse(`its parameter ${key} has no exact counterpart`);
    if (propertySchema(mapping.target.parameters, to) === undefined) return refuse(`its parameter ${key} has no counterpart the declared tool has`);
    out[to] = input[key];
    copyRespelled(input, key, out, to);
  }
  const required = mapping.target.parameters?.required;
  for (const key of Array.isArray(required) ? required : []) {
    if (!Object.prototype.hasOwnProperty.call(out, key)) return refuse(`nothing it carries maps onto the required parameter ${key}`);
  }
  return { ok: true, input: out };
}
