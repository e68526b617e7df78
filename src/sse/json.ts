// The JSON object every wire's event payloads and request bodies are read as.
export { isObject } from "../grammar/plain-data.ts";

export type Json = Record<string, unknown>;
