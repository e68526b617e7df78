import type { JsonSchema, ToolSpec } from "../../src/parse/types.ts";

const obj = (properties: Record<string, JsonSchema>, required: string[]): JsonSchema => ({ type: "object", properties, required });
const str = { type: "string" };
const num = { type: "number" };

/**
 * Fixture tools shaped like OpenCode's built-ins, plus one tool with no required parameter and one
 * MCP tool as OpenCode names it (`<server>_<tool>`, longer than the tag reader's 16-character
 * namespace wait: golden D57.6).
 */
export const fixtureTools: ToolSpec[] = [
  { name: "bash", parameters: obj({ command: str, description: str, timeout: num, workdir: str }, ["command"]) },
  { name: "read", parameters: obj({ filePath: str, offset: num, limit: num }, ["filePath"]) },
  { name: "edit", parameters: obj({ filePath: str, oldString: str, newString: str, replaceAll: { type: "boolean" } }, ["filePath", "oldString", "newString"]) },
  { name: "write", parameters: obj({ filePath: str, content: str }, ["filePath", "content"]) },
  { name: "glob", parameters: obj({ pattern: str, path: str }, ["pattern"]) },
  {
    name: "todowrite",
    parameters: obj({ todos: { type: "array", items: obj({ content: str, status: { type: "string", enum: ["pending", "in_progress", "completed", "cancelled"] } }, ["content", "status"]) } }, ["todos"]),
  },
  { name: "web_search", parameters: obj({ query: str }, ["query"]) },
  { name: "list_sessions", parameters: obj({ verbose: { type: "boolean" } }, []) },
  { name: "github_create_issue", parameters: obj({ title: str, body: str }, ["title"]) },
];
