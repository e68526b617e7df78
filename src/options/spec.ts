// Every option once: where it sits, its default, its bounds, the value it fails closed to and what
// it does. The option checker (src/options/check.ts), the zod schema (and from it the JSON schema),
// the plugin's lenient reading, the library's settling and the engine mapping are all read from this
// tree, so they cannot disagree.
import { DIALECTS, type DialectId } from "../grammar/dialects.ts";
import { defaultParseOptions } from "../parse/types.ts";
import { DEFAULT_BUFFER_LIMIT } from "../engine/limits.ts";

interface FlagSpec {
  kind: "flag";
  default: boolean;
  description: string;
  /** The value an unreadable key takes; absent: its default. */
  failClosed?: boolean;
  /** Decides what may run: a key written close to it fails closed (src/plugin/options.ts). */
  security?: true;
}

interface IntegerSpec {
  kind: "integer";
  default: number;
  min: number;
  max: number;
  description: string;
}

interface ChoiceSpec<V extends string = string> {
  kind: "choice";
  default: V;
  values: readonly V[];
  description: string;
}

export interface NamesSpec {
  kind: "names";
  default: readonly string[];
  /** What one entry names, and what its wildcards mean: the error text is built from both. */
  noun: string;
  wildcards: string;
  description: string;
  failClosed?: readonly string[];
  security?: true;
  /**
   * An entry holding "," or ";" is a list written as one string ("bash,read", or a
   * `{env:DSML_DENY}` substituted to one): it is split into its names (check.ts checkAsWritten).
   * Tool lists only: no tool name can hold either character.
   */
  splitJoined?: true;
}

export type OptionSpec = FlagSpec | IntegerSpec | ChoiceSpec | NamesSpec;

export interface NamespaceSpec<F extends Fields = Fields> {
  kind: "namespace";
  description: string;
  fields: F;
}

export type Fields = { [key: string]: OptionSpec | NamespaceSpec };

const flag = (fallback: boolean, description: string, closed?: { failClosed: boolean; security: true }): FlagSpec => ({ kind: "flag", default: fallback, description, ...closed });

function choice<const V extends string>(values: readonly V[], fallback: NoInfer<V>, description: string): ChoiceSpec<V> {
  return { kind: "choice", default: fallback, values, description };
}

const namespace = <F extends Fields>(description: string, fields: F): NamespaceSpec<F> => ({ kind: "namespace", description, fields });

const TOOL_NAMES = { noun: "tool name", wildcards: '"*" for all', splitJoined: true } as const;

/**
 * The one definition of the limit's bounds. Two floors, on purpose: a user's configuration gets a
 * range where a candidate can still be recognised (`min`); a library caller (repairFetch,
 * repairMiddleware) may go down to `libraryMin`, to have candidates released early. Both are
 * pinned by tests (test/plugin/options.test.ts, test/security/hostile-adapters.test.ts).
 */
export const BUFFER_LIMIT: IntegerSpec & { libraryMin: number } = {
  kind: "integer",
  default: DEFAULT_BUFFER_LIMIT,
  min: 1024,
  libraryMin: 1,
  max: 16_777_216,
  description: "Characters a possible tool call may hold back from the stream before it is released verbatim",
};

const dialects = Object.fromEntries(
  Object.entries(DIALECTS).map(([id, d]) => [id, flag(d.on, `Recover leaked tool calls in the ${d.models} format (shape ${d.shape}).${"why" in d ? ` ${d.why}` : ""}`)]),
) as Record<DialectId, FlagSpec>;

/** The options tree; key order here is the order of the generated JSON schema. */
export const OPTIONS = namespace(
  'Options for opencode-plugin-dsml-fix, given as the second element of the plugin entry: ["opencode-plugin-dsml-fix", { ... }]. Every option is optional.',
  {
    parse: namespace("Which leaked-markup shapes may be turned into tool calls.", {
      orphanInvoke: flag(defaultParseOptions.orphanInvoke, "Accept an invoke that has no outer block opener (shape B05)."),
      looseParameters: flag(defaultParseOptions.looseParameters, "Accept mis-closed, mangled and truncated parameters (shapes P01, P02, P11); a runaway parameter (P03) refuses its call either way."),
      rawJsonBody: flag(defaultParseOptions.rawJsonBody, "Accept a bare JSON object as an invoke body, and the arguments/input wrapper (shapes I03, I04)."),
      wrappedTool: flag(defaultParseOptions.wrappedTool, "Accept a parameter named after a declared tool that holds the real parameters (shape I02)."),
      codeCostumes: flag(defaultParseOptions.codeCostumes, "Recover fenceless code costumes (<shell>, HTML pre/code, XML execute calls) as bash calls (shapes C01-C04, C07)."),
      standaloneJson: flag(
        defaultParseOptions.standaloneJson,
        'Recover a JSON tool call standing alone as a whole paragraph, with no marker ({"name", "arguments"}, a list, or {"tool_calls": [...]}; shape J01). Off by default: a JSON reply the user asked for looks the same.',
      ),
      dialects: namespace("Other models' tool-call formats, one switch each.", dialects),
    }),
    history: namespace("Cleaning of earlier messages before they are sent to the model again.", {
      sanitize: flag(true, "Strip leaked tool-call markup from earlier assistant messages before they are sent back, so the model does not imitate it."),
    }),
    responseFix: namespace("Repair of leaked tool-call markup in streamed responses.", {
      enabled: flag(true, "Turn leaked tool-call markup in streamed responses into real tool calls."),
      bufferLimit: { ...BUFFER_LIMIT, description: `${BUFFER_LIMIT.description} (${BUFFER_LIMIT.min} to ${BUFFER_LIMIT.max}).` },
      allowTools: {
        kind: "names",
        ...TOOL_NAMES,
        default: ["*"],
        failClosed: [],
        security: true,
        description:
          'Tools a recovered call may name, among those the request declared; "*" means every declared tool, a pattern such as "mcp__github__*" every tool it matches (* any run of characters, ? any one), and [] recovers no call (leaks only get the correction). A call written under another agent\'s name (Bash, execute_command) counts as the declared tool it runs as (bash). Native tool calls are never affected. An invalid value fails closed to [].',
      },
      denyTools: {
        kind: "names",
        ...TOOL_NAMES,
        default: [],
        failClosed: ["*"],
        security: true,
        description:
          'Tools a recovered call may never name, even when allowTools allows them; "*" denies every tool, a pattern such as "mcp__github__*" every tool it matches (* any run of characters, ? any one). Matched against the name the model wrote as well as the tool the call would run as: ["Bash"] also stops a Bash call that would run as bash. The leak becomes an undeclared-tool correction; native tool calls are never affected. An invalid value fails closed to ["*"].',
      },
      echoGuard: flag(
        true,
        "Echo guard: a call whose markup appears (up to whitespace and line-number gutters) in content the request gave the model (tool results, user, system and file text) is stripped and never executed.",
        { failClosed: true, security: true },
      ),
    }),
    retry: namespace("One correction, and at most one wake-up prompt, when a reply ends in markup that could not be repaired.", {
      enabled: flag(
        true,
        "Idle wake: when a reply ended in markup that could not be repaired and the session goes idle with it unanswered, send one minimal wake-up prompt (at most one per message).",
      ),
      channel: choice(
        ["system", "user"],
        "system",
        '"system": the wake-up is a minimal ping and the correction rides in the system prompt; "user": the full correction is sent as a synthetic user turn.',
      ),
      nudge: flag(true, "The correction itself: the next request tells the model its last reply had broken tool markup and asks it to re-issue the call through the tool interface (at most once per message)."),
    }),
    providers: {
      kind: "names",
      noun: "provider id",
      wildcards: '"auto" for leak-prone models everywhere, "*" for all',
      /** "auto": every provider, for models of a leak-prone family (src/plugin/scope.ts). */
      default: ["auto"],
      security: true,
      description:
        'Where the plugin acts. "auto": every provider, for models of a leak-prone family (DeepSeek, Qwen, GLM, Kimi, MiniMax, Mistral/Devstral, Hermes, LFM); a provider id: every model of that provider; "*": every provider and every model; [] disables the plugin. Entries combine, e.g. ["auto", "my-vllm"].',
    },
    debug: flag(false, "Log one [dsml] line per request and response (shape ids only, never argument values)."),
  },
);

/** The fully resolved value of an option or a namespace: what the plugin reads. */
type ValueOf<S> = S extends FlagSpec
  ? boolean
  : S extends IntegerSpec
    ? number
    : S extends ChoiceSpec<infer V>
      ? V
      : S extends NamesSpec
        ? string[]
        : S extends NamespaceSpec<infer F>
          ? { [K in keyof F]: ValueOf<F[K]> }
          : never;

export type PluginOptions = ValueOf<typeof OPTIONS>;

/** Every option, namespaces left out, by its dotted path ("responseFix.denyTools"). */
export function optionEntries(fields: Fields = OPTIONS.fields, parentPath = ""): [string, OptionSpec][] {
  return Object.entries(fields).flatMap(([key, spec]): [string, OptionSpec][] =>
    spec.kind === "namespace" ? optionEntries(spec.fields, `${parentPath}${key}.`) : [[parentPath + key, spec]],
  );
}

/** The options that decide what may run. */
export const SECURITY_OPTIONS: readonly string[] = optionEntries()
  .filter(([, spec]) => "security" in spec && spec.security)
  .map(([path]) => path);

/** The options whose fail-closed value differs from their default, by path: they close what an unreadable config may have meant to close. */
export const FAIL_CLOSED: Readonly<Record<string, unknown>> = Object.fromEntries(
  optionEntries().flatMap(([path, spec]) => {
    const closed = "failClosed" in spec ? spec.failClosed : undefined;
    return closed !== undefined && JSON.stringify(closed) !== JSON.stringify(spec.default) ? [[path, closed]] : [];
  }),
);

/** The message an invalid value gets: the same in the plugin's problems and the JSON schema's validator. */
export function expectation(spec: OptionSpec): string {
  switch (spec.kind) {
    case "flag":
      return "must be true or false";
    case "integer":
      return `must be an integer from ${spec.min} to ${spec.max}`;
    case "choice":
      return `must be ${spec.values.map((v) => JSON.stringify(v)).join(" or ")}`;
    case "names":
      return `must be an array of non-empty ${spec.noun} strings without surrounding whitespace (${spec.wildcards})`;
  }
}
