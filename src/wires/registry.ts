// Which wire a request speaks, from its path and body shape.
import { anthropicWire } from "./anthropic/wire.ts";
import { chatWire } from "./chat/wire.ts";
import { type Json, isObject } from "../sse/json.ts";
import { responsesWire } from "./responses/wire.ts";
import type { Wire } from "./wire.ts";

export function wireFor(pathname: string, body: unknown): Wire | undefined {
  if (!isObject(body)) return undefined;
  if (pathname.endsWith("/chat/completions")) return chatWire;
  if (pathname.endsWith("/messages") && isMessagesBody(body)) return anthropicWire;
  if (pathname.endsWith("/responses") && isResponsesBody(body)) return responsesWire;
  return undefined;
}

/** Paths a wire may use; anything else is forwarded without reading the body. */
export function mayBeWire(pathname: string): boolean {
  return pathname.endsWith("/chat/completions") || pathname.endsWith("/messages") || pathname.endsWith("/responses");
}

function isMessagesBody(body: Json): boolean {
  return Array.isArray(body.messages) && typeof body.model === "string";
}

function isResponsesBody(body: Json): boolean {
  return (typeof body.input === "string" || Array.isArray(body.input)) && typeof body.model === "string";
}
