import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { jsonSchema, streamText, tool } from "ai";
import { repairFetch } from "opencode-plugin-dsml-fix/fetch";

const deepseek = createOpenAICompatible({
  name: "deepseek",
  baseURL: process.env.DEEPSEEK_BASE_URL ?? "https://api.deepseek.com",
  apiKey: process.env.DEEPSEEK_API_KEY,
  fetch: repairFetch({
    responseFix: { denyTools: ["write"] },
    onResult: ({ summary }) => console.error(`recovered=${summary.recovered} nudge=${summary.nudge ?? "no"}`),
  }),
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

const result = streamText({ model: deepseek("deepseek-chat"), tools, prompt: "List the files in this directory." });
for await (const part of result.fullStream) {
  if (part.type === "tool-call") console.log("call", part.toolName, JSON.stringify(part.input));
}
