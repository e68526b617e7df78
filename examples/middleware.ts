import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { jsonSchema, streamText, tool, wrapLanguageModel } from "ai";
import { repairMiddleware } from "opencode-plugin-dsml-fix/middleware";

const deepseek = createOpenAICompatible({
  name: "deepseek",
  baseURL: process.env.DEEPSEEK_BASE_URL ?? "https://api.deepseek.com",
  apiKey: process.env.DEEPSEEK_API_KEY,
});
const tools = {
  bash: tool({
    description: "Run a shell command",
    inputSchema: jsonSchema<{ command: string }>({
      type: "object",
      properties: { command: { type: "string" } },
      required: ["command"],
    }),
  }),
};
const model = wrapLanguageModel({
  model: deepseek("deepseek-chat"),
  middleware: repairMiddleware({ debug: (line) => console.error(line) }),
});

const result = streamText({ model, tools, prompt: "List the files in this directory." });
for await (const part of result.fullStream) {
  if (part.type === "tool-call") console.log("call", part.toolName, JSON.stringify(part.input));
  // The finish of each step carries what the repair did: { recovered, nudge }.
  if (part.type === "finish-step") console.log("dsmlFix", JSON.stringify(part.providerMetadata?.dsmlFix));
}
