/** Tag-name tables: which names each marker family knows and what they mean. */

export type TagRole =
  | "block"
  | "invoke"
  | "parameter"
  | "function"
  | "name"
  | "other";

/** Outer wrapper names seen in the wild (V3.2, V4, misspellings, foreign dialect): B01, B02, B08. */
const WRAPPER_NAMES = new Set([
  "tool_calls",
  "function_calls",
  "toolcalls",
  "tool_call",
  "toolcall",
  "calls",
  "tool_use",
  "function_call",
  "functioncalls",
  "functions",
]);

export const CANONICAL_WRAPPERS = new Set(["tool_calls", "function_calls"]);

/** A wrapper name seen in the wild (lower case), as opposed to a name dsmlRole only guessed was one (`recall_memory`). */
export function isWrapperName(lower: string): boolean {
  return WRAPPER_NAMES.has(lower);
}

/** DSML-prefixed names: the sentinel already proves intent, so misspellings are tolerated. */
export function dsmlRole(name: string): TagRole {
  const lower = name.toLowerCase();
  if (WRAPPER_NAMES.has(lower)) return "block";
  if (lower.startsWith("invok")) return "invoke";
  if (lower.startsWith("param")) return "parameter";
  if (lower.includes("call")) return "block";
  return "other";
}

/** Unprefixed names are only markup when spelled exactly (M07, M08, I09). */
export function nakedRole(name: string): TagRole | null {
  switch (name) {
    case "tool_calls":
    case "function_calls":
    case "minimax:tool_call":
      return "block";
    case "invoke":
      return "invoke";
    case "parameter":
      return "parameter";
    case "function":
      return "function";
    case "name":
      return "name";
    default:
      return namespacedRole(name);
  }
}

/**
 * A namespaced Claude-style tag (`<xx:function_calls>`, `<xx:invoke>`, issue 29 item 7): a wrapper
 * some client or template renamed. Only the three Claude-style local names count.
 */
function namespacedRole(name: string): TagRole | null {
  const colon = name.indexOf(":");
  if (colon <= 0) return null;
  switch (name.slice(colon + 1)) {
    case "function_calls":
    case "tool_calls":
      return "block";
    case "invoke":
      return "invoke";
    case "parameter":
      return "parameter";
    default:
      return null;
  }
}

/** A namespaced Claude-style wrapper (`xx:function_calls`), not MiniMax's own `minimax:tool_call`. */
export function isNamespacedWrapper(name: string): boolean {
  return name !== "minimax:tool_call" && name.includes(":") && namespacedRole(name) === "block";
}

export type LegacyRole =
  | "section-begin"
  | "section-end"
  | "call-begin"
  | "call-end"
  | "call-start"
  | "sep"
  | "eos"
  | "noise";

/** Special tokens (DeepSeek V3/R1/V3.1, Kimi K2, LFM2), keyed by their words joined with single spaces (L01-L07, D07, O04, O08). */
const LEGACY_PHRASES = new Map<string, LegacyRole>([
  ["tool calls begin", "section-begin"],
  ["tool calls end", "section-end"],
  ["tool call begin", "call-begin"],
  ["tool call end", "call-end"],
  ["tool sep", "sep"],
  // Kimi K2 (O04): its own section words, the same call begin/end, an argument separator.
  ["tool calls section begin", "section-begin"],
  ["tool calls section end", "section-end"],
  ["tool call section begin", "section-begin"],
  ["tool call section end", "section-end"],
  ["tool call argument begin", "sep"],
  // LFM2 (O08): a pythonic call list between start and end.
  ["tool call start", "call-start"],
  ["end of sentence", "eos"],
  ["begin of sentence", "noise"],
  ["tool outputs begin", "noise"],
  ["tool outputs end", "noise"],
  ["tool output begin", "noise"],
  ["tool output end", "noise"],
  ["user", "noise"],
  ["assistant", "noise"],
]);

export function legacyRole(phrase: string): LegacyRole | null {
  return LEGACY_PHRASES.get(phrase.toLowerCase()) ?? null;
}

/** Fenceless code costumes (C01-C05, C07), and `tool_call`, which is also three dialects' wrapper (O01-O03). */
export const COSTUME_OPENERS = new Set([
  "shell",
  "sh",
  "bash",
  "python",
  "py",
  "pre",
  "tool_call",
  "code_interpreter",
]);

/**
 * Code costumes whose body is free code: nothing in it can tell a call from HTML or XML written in
 * prose, so they keep the line-start gate. `tool_call` is decided by its body instead (O01-O03).
 */
const LINE_START_COSTUMES = new Set(["shell", "sh", "bash", "python", "py", "pre", "code_interpreter"]);

const EXECUTE_PREFIX = "execute_";

/**
 * CodeAct-style execute tags (`<execute_bash>`, `<execute_ipython>`, `<execute_ruby>`, C04): the
 * language written into the tag name, or null for any other name.
 */
export function executeLanguage(name: string): string | null {
  if (!name.startsWith(EXECUTE_PREFIX) || name.length === EXECUTE_PREFIX.length) return null;
  const language = name.slice(EXECUTE_PREFIX.length);
  return language === "ipython" ? "python" : language;
}

/**
 * Names the tag reader knows that are generic HTML/XML words (`<name>`, `<code>`, `<language>`):
 * read inside a span (I10's name element, a `<pre>`'s code and language), but alone no call, and no
 * opener rule opens a candidate at one. The echo guard does not count them as call markup.
 */
export const GENERIC_TAG_NAMES: ReadonlySet<string> = new Set(["name", "code", "language"]);

export function isLineStartCostume(name: string): boolean {
  return LINE_START_COSTUMES.has(name) || executeLanguage(name) !== null;
}

/**
 * The tool a code costume's tag runs its code with, as the parser maps it (src/parse/costume.ts
 * codeCall): `<shell>`, `<sh>`, `<bash>`, `<python>`, `<py>`, `<code_interpreter>` and an
 * `<execute_*>` of a shell or Python language all become a `bash` call. Null for any other name:
 * `<pre>` runs only with a language written inside it, and `<tool_call>` names its tool in its body.
 * The echo guard counts such a tag in given content as markup that names the tool.
 */
export function costumeTool(name: string): string | null {
  const lower = name.toLowerCase();
  if (lower === "pre" || lower === "tool_call") return null;
  if (LINE_START_COSTUMES.has(lower)) return "bash";
  const executes = executeLanguage(lower);
  return executes !== null && codeLanguage(executes) !== null ? "bash" : null;
}

/** Tool names under which a `<tool_call>` costume asks for its code to be run (C01: `execute`; src/parse/costume-xml.ts). */
export const EXECUTE_TOOL_NAMES: ReadonlySet<string> = new Set(["execute", "execute_code", "exec", "run_code", "code_execution", "code_interpreter"]);
/** The shell's own names: a `<tool_call>` costume naming one asks for its code to run, when that code is shell (C01 `<tool_name>bash</tool_name>`). */
export const SHELL_TOOL_NAMES: ReadonlySet<string> = new Set(["bash", "sh", "shell"]);

/**
 * Every name the model may write a code costume under whose code runs as bash (a tag: `<python>`,
 * `<execute_ipython>`, `<code_interpreter>`; a `<tool_call>` costume's tool name: `execute`),
 * lowered. denyTools is matched against these as against the alias names: denying the name a
 * costume is written with stops it (src/options/engine.ts reservedNames).
 */
export function codeCostumeNames(): string[] {
  const names = new Set([...LINE_START_COSTUMES].filter((name) => costumeTool(name) !== null));
  for (const language of [...LANGUAGES.keys(), "ipython"]) names.add(EXECUTE_PREFIX + language);
  for (const name of [...EXECUTE_TOOL_NAMES, ...SHELL_TOOL_NAMES]) names.add(name);
  return [...names];
}

/** Inner costume tags (and GLM's argument pairs, O03): recognised inside a span, never open one on their own. */
export const COSTUME_INNER = new Set(["code", "tool_name", "tool_args", "language", "arg_key", "arg_value"]);

export type CodeLanguage = "shell" | "python";

const LANGUAGES = new Map<string, CodeLanguage>([
  ["sh", "shell"],
  ["shell", "shell"],
  ["bash", "shell"],
  ["zsh", "shell"],
  ["shellscript", "shell"],
  ["python", "python"],
  ["python3", "python"],
  ["py", "python"],
]);

export function codeLanguage(name: string | undefined): CodeLanguage | null {
  if (!name) return null;
  return LANGUAGES.get(name.trim().toLowerCase()) ?? null;
}

/** Other models' tool-call dialects (catalogue section 2H), each switchable under parse.dialects. */
export const DIALECTS = {
  hermes: { on: true, models: "Hermes, Qwen2.5, Qwen3", shape: "O01" },
  qwen3coder: { on: true, models: "Qwen3-Coder", shape: "O02" },
  glm: { on: true, models: "GLM-4.5, GLM-4.6, GLM-4.7", shape: "O03" },
  kimi: { on: true, models: "Kimi K2", shape: "O04" },
  minimax: { on: true, models: "MiniMax-M2", shape: "O05" },
  mistral: { on: true, models: "Mistral, Magistral, Devstral ([TOOL_CALLS] forms)", shape: "O06" },
  mistralResidue: {
    on: false,
    models: "Mistral residue (NAME[ARGS]{...} with the special token stripped)",
    shape: "O06",
    why: "Off by default: without its special token the residue cannot be told apart from prose that describes the format.",
  },
  claudeXml: { on: true, models: "Claude-style XML (function_calls without prefix)", shape: "O07" },
  lfm2: { on: true, models: "LFM2", shape: "O08" },
} as const;

export type DialectId = keyof typeof DIALECTS;
export type DialectSwitches = Record<DialectId, boolean>;

export const defaultDialects = Object.fromEntries(Object.entries(DIALECTS).map(([id, d]) => [id, d.on])) as DialectSwitches;
