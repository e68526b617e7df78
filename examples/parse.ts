import { parse } from "opencode-plugin-dsml-fix/parse";

const reply = 'Let me look.\n<tool_call>\n{"name": "bash", "arguments": {"command": "ls -la"}}\n</tool_call>';
const bash = { name: "bash", parameters: { type: "object", properties: { command: { type: "string" } }, required: ["command"] } };

const { calls, text, broken, nudge } = parse(reply, [bash]);
for (const call of calls) console.log("call", call.tool, JSON.stringify(call.input), call.shape);
console.log("text", JSON.stringify(text), "broken", broken.length, "nudge", nudge);
