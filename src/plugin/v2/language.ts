// `aisdk.hook("language")` (anomalyco/opencode packages/plugin/src/promise/aisdk.ts @ baf3a659):
// on OpenCode 2 it fires only for models whose AI SDK package has no native mapping, and lets a
// plugin replace `event.language`. The model is wrapped here with the repair middleware, without
// the `ai` package (not a dependency): transformParams, then wrapGenerate / wrapStream, as
// `wrapLanguageModel` does.
// One repair per call: OpenCode 2 builds since PR #50487 also run the session HTTP hooks on this
// route, and a response those hooks repaired carries REPAIRED_HEADER; the middleware then steps
// aside, so the HTTP path (which knows the session, for the correction) owns the call. Wires the
// HTTP path cannot rewrite, and builds without HTTP hooks here, get the middleware.
import type { LanguageModelV3, LanguageModelV3Middleware } from "@ai-sdk/provider";
import { REPAIRED_HEADER } from "./http-repair.ts";

type Headers = Record<string, string | undefined> | undefined;

function repairedUpstream(headers: Headers): boolean {
  return headers !== undefined && Object.keys(headers).some((key) => key.toLowerCase() === REPAIRED_HEADER);
}

/**
 * `current` is read once per call, not once here: the host keeps the wrapped model, and the
 * plugin's options may be narrowed after it was wrapped (a later entry of the plugin handing over
 * a deny list or a narrower scope); undefined means the call passes through unrepaired.
 */
export function wrapWithMiddleware(model: LanguageModelV3, current: LanguageModelV3Middleware | (() => LanguageModelV3Middleware | undefined)): LanguageModelV3 {
  const read = typeof current === "function" ? current : () => current;
  const transform = async (middleware: LanguageModelV3Middleware, params: Parameters<LanguageModelV3["doStream"]>[0], type: "generate" | "stream") =>
    middleware.transformParams ? middleware.transformParams({ params, type, model }) : params;
  return {
    specificationVersion: "v3",
    provider: model.provider,
    modelId: model.modelId,
    supportedUrls: model.supportedUrls,
    async doGenerate(params) {
      const middleware = read();
      if (!middleware) return model.doGenerate(params);
      const ready = await transform(middleware, params, "generate");
      const result = await model.doGenerate(ready);
      if (!middleware.wrapGenerate || repairedUpstream(result.response?.headers)) return result;
      return middleware.wrapGenerate({ doGenerate: async () => result, doStream: () => model.doStream(ready), params: ready, model });
    },
    async doStream(params) {
      const middleware = read();
      if (!middleware) return model.doStream(params);
      const ready = await transform(middleware, params, "stream");
      const result = await model.doStream(ready);
      if (!middleware.wrapStream || repairedUpstream(result.response?.headers)) return result;
      return middleware.wrapStream({ doGenerate: () => model.doGenerate(ready), doStream: async () => result, params: ready, model });
    },
  };
}
