// AI SDK middleware: leaked tool-call markup in text parts comes back as real tool-call parts.
// This file is the package's "./middleware" entry and wires the call's steps together; each job
// has its own file under ./middleware/: reading the call options, the prompt's history, the
// generate path, the stream path, and the state and report the two paths share.
import type { LanguageModelV3, LanguageModelV3CallOptions, LanguageModelV3Middleware, LanguageModelV3StreamPart } from "@ai-sdk/provider";
import { pullStage } from "../sse/pull-stage.ts";
import { ReasoningChannel } from "../engine/reasoning-channel.ts";
import { createRepairEngine } from "../engine/engine.ts";
import { createAttemptCounter } from "./attempt-counter.ts";
import { callEngines } from "./call-engines.ts";
import { type AdapterDeps, repairEnabled } from "./options.ts";
import { orPassThrough, requestDebug } from "./report.ts";
import { settleOptions } from "../options/settle.ts";
import { callScope, declaredTools, withoutRequestTag } from "./middleware/call-options.ts";
import { type MiddlewareOptions, historySanitizer } from "./middleware/history.ts";
import type { CallContext } from "./middleware/call-context.ts";
import { repairGenerate } from "./middleware/generate.ts";
import { repairStreamParts } from "./middleware/stream.ts";

export type { MiddlewareOptions };

export function repairMiddleware(given: MiddlewareOptions = {}, deps: AdapterDeps = {}): LanguageModelV3Middleware {
  const options: MiddlewareOptions = settleOptions(given);
  const nextAttempt = createAttemptCounter();
  const sanitizeHistory = historySanitizer(given, options);
  // wrapGenerate/wrapStream receive the very object transformParams returned, so the tag can ride along.
  const tags = new WeakMap<LanguageModelV3CallOptions, string>();

  const factory = deps.createEngine ?? createRepairEngine;

  /** undefined: nothing to repair for this call, pass it through. */
  function prepare(params: LanguageModelV3CallOptions, model: LanguageModelV3 | undefined): (() => CallContext) | undefined {
    const tools = declaredTools(params);
    if (tools.length === 0 || !repairEnabled(options)) return undefined;
    const tag = tags.get(params);
    const attempt = nextAttempt(tag);
    // The provider tells whether a prompt ending in an assistant turn is surely continued.
    const provider = typeof model?.provider === "string" ? model.provider : undefined;
    const scope = callScope(params, tools, options, provider);
    const engine = callEngines(factory, options, scope, requestDebug(options, tag));
    return () => ({
      options,
      guard: engine(),
      // One engine per reasoning part, each reading on where the part before it left off.
      reasoning: new ReasoningChannel((continues) => engine("reasoning", continues)),
      fromReasoning: 0,
      oneCall: scope.oneCall,
      tools: scope.tools,
      isEchoed: scope.isEchoed,
      tag,
      attempt,
      reported: false,
    });
  }

  function create(make: (() => CallContext) | undefined): CallContext | undefined {
    return make && orPassThrough(options, "engine creation", make, () => undefined);
  }

  return {
    specificationVersion: "v3",

    async transformParams({ params }) {
      const { params: tagless, tag } = withoutRequestTag(params);
      let out = tagless;
      if (sanitizeHistory) {
        const prompt = out.prompt;
        out = { ...out, prompt: orPassThrough(options, "sanitizeHistory", () => sanitizeHistory(prompt, declaredTools(params), params.providerOptions), () => prompt) };
      }
      if (tag) tags.set(out, tag);
      return out;
    },

    async wrapGenerate({ doGenerate, params, model }) {
      const make = prepare(params, model);
      const result = await doGenerate();
      const ctx = create(make);
      if (!ctx) return result;
      return orPassThrough(options, "generate repair", () => repairGenerate(result, ctx), () => result);
    },

    async wrapStream({ doStream, params, model }) {
      const make = prepare(params, model);
      const result = await doStream();
      const ctx = create(make);
      if (!ctx) return result;
      return { ...result, stream: pullStage(result.stream, (out: (part: LanguageModelV3StreamPart) => void) => repairStreamParts(ctx, out)) };
    },
  };
}
