// `aisdk.hook("language")` (anomalyco/opencode packages/plugin/src/promise/aisdk.ts @ baf3a659):
// on OpenCode 2 it fires only for models whose AI SDK package has no native mapping, and lets a
// plugin replace `event.language`. The model is wrapped here with the repair middleware, without
// the `ai` package (not a dependency): transformParams, then wrapGenerate / wrapStream, as
// `wrapLanguageModel` does. Every call it repairs carries MIDDLEWARE_MARK_HEADER, which the
// `http.request` hook removes before the request leaves, so the HTTP hooks never repair it again.
import type { LanguageModelV3, LanguageModelV3CallOptions, LanguageModelV3Middleware } from "@ai-sdk/provider";
import { MIDDLEWARE_MARK_HEADER } from "./http-repair.ts";

export function wrapWithMiddleware(model: LanguageModelV3, middleware: LanguageModelV3Middleware): LanguageModelV3 {
  const prepare = async (params: LanguageModelV3CallOptions, type: "generate" | "stream") => {
    const transformed = middleware.transformParams ? await middleware.transformParams({ params, type, model }) : params;
    // In place: the middleware keys its per-call state on the very object transformParams returned.
    transformed.headers = { ...transformed.headers, [MIDDLEWARE_MARK_HEADER]: "1" };
    return transformed;
  };
  return {
    specificationVersion: "v3",
    provider: model.provider,
    modelId: model.modelId,
    supportedUrls: model.supportedUrls,
    async doGenerate(params) {
      const ready = await prepare(params, "generate");
      const doGenerate = () => model.doGenerate(ready);
      const doStream = () => model.doStream(ready);
      return middleware.wrapGenerate ? middleware.wrapGenerate({ doGenerate, doStream, params: ready, model }) : doGenerate();
    },
    async doStream(params) {
      const ready = await prepare(params, "stream");
      const doGenerate = () => model.doGenerate(ready);
      const doStream = () => model.doStream(ready);
      return middleware.wrapStream ? middleware.wrapStream({ doGenerate, doStream, params: ready, model }) : doStream();
    },
  };
}
