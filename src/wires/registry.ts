// Which wire a request speaks, from its path and body shape.
import { anthropicWire } from "./anthropic/wire.ts";
import { chatWire } from "./chat/wire.ts";
import { type Json, isObject } from "../sse/json.ts";
import { responsesWire } from "./responses/wire.ts";
import type { Wire } from "./wire.ts";

/**
 * The path a wire is told by: each segment without its `;` parameters (RFC 3986 3.3). A server that
 * strips them (servlet containers do) routes `/v1/chat/completions;x` as the chat endpoint, so a
 * parameter must not take the request past the repair and the history pass; an escaped `%3B` is
 * part of its segment and stays.
 */
export function wirePathname(pathname: string): string {
  if (!pathname.includes(";")) return pathname;
  return pathname
    .split("/")
    .map((segment) => {
      const at = segment.indexOf(";");
      return at < 0 ? segment : segment.slice(0, at);
    })
    .join("/");
}

export function wireFor(path: string, body: unknown): Wire | undefined {
  if (!isObject(body)) return undefined;
  const pathname = wirePathname(path);
  if (pathname.endsWith("/chat/completions")) return chatWire;
  if (pathname.endsWith("/messages") && isMessagesBody(body)) return anthropicWire;
  if (pathname.endsWith("/responses") && isResponsesBody(body)) return responsesWire;
  return undefined;
}

/** Paths a wire may use; anything else is forwarded without reading the body. */
export function mayBeWire(path: string): boolean {
  const pathname = wirePathname(path);
  return pathname.endsWith("/chat/completions") || pathname.endsWith("/messages") || pathname.endsWith("/responses");
}

function isMessagesBody(body: Json): boolean {
  return Array.isArray(body.messages) && typeof body.model === "string";
}

function isResponsesBody(body: Json): boolean {
  return (typeof body.input === "string" || Array.isArray(body.input)) && typeof body.model === "string";
}
