// The plugin's request tag taken out of a request, wherever its headers were given. Its own small
// module: the repairing fetch strips the tag before planning, and the plugin's fetch gate strips it
// when the repair could not be loaded (src/plugin/wiring.ts), without loading the repair.
import { REQUEST_TAG_HEADER } from "./options.ts";

/** The request without the tag, and the tag it carried (undefined: none). */
export function stripTag(input: string | URL | Request, init: RequestInit | undefined) {
  if (init?.headers !== undefined) {
    const headers = new Headers(init.headers);
    const tag = headers.get(REQUEST_TAG_HEADER) ?? undefined;
    if (tag === undefined) return { input, init, tag };
    headers.delete(REQUEST_TAG_HEADER);
    return { input, init: { ...init, headers }, tag };
  }
  if (input instanceof Request && input.headers.has(REQUEST_TAG_HEADER)) {
    const tag = input.headers.get(REQUEST_TAG_HEADER) ?? undefined;
    const request = new Request(input);
    request.headers.delete(REQUEST_TAG_HEADER);
    return { input: request, init, tag };
  }
  return { input, init, tag: undefined };
}
