// How an answer's Content-Type is read, the same in the fetch adapter and the proxy's relay. A
// media type's type and subtype are case-insensitive and its parameters (`; charset=utf-8`) say
// nothing about the body's framing (RFC 9110, 8.3.1): `Text/Event-Stream; charset=UTF-8` is an
// event stream, as a client's parser reads it whatever the header's case.

/** The type/subtype of a Content-Type header, lower case, without parameters or spaces; "" for none. */
export function mediaType(header: string | null | undefined): string {
  if (!header) return "";
  const semicolon = header.indexOf(";");
  return (semicolon === -1 ? header : header.slice(0, semicolon)).trim().toLowerCase();
}

/** An answer framed as server-sent events. */
export function isEventStream(header: string | null | undefined): boolean {
  return mediaType(header) === "text/event-stream";
}

/**
 * An answer read as one JSON document: any media type naming JSON (`application/json`, a `+json`
 * suffix, `text/json`), as the adapter has always taken them; a body that does not parse as one
 * JSON object goes on as it came.
 */
export function isJson(header: string | null | undefined): boolean {
  return mediaType(header).includes("json");
}
