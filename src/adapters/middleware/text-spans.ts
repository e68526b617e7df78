// Where one text part of a streamed reply ends the markup the engine reads (its endSpan), as the
// fetch route reads the same reply on the wire: an Anthropic text block followed by a block of
// another kind (thinking, a tool's block) ends its span, and adjacent text blocks go on as one
// text (src/wires/anthropic/stream.ts); every Responses part is a span of its own
// (src/wires/responses/text-parts.ts); chat content is one text, whatever reasoning comes between
// its deltas. The provider's parts say as much: a text part that starts after another ended, with
// anything but text between them (a reasoning part, a tool call) or naming another output item,
// begins a new span. Without that, a call cut in two by a thinking block or by a second message
// item ran, its arguments put together from both parts, where the fetch route shows the text.
import type { LanguageModelV3StreamPart, SharedV3ProviderMetadata } from "@ai-sdk/provider";

type Part = LanguageModelV3StreamPart;

/**
 * Parts that say nothing about where the reply's text stands: text parts themselves, raw chunks,
 * sources (a citation inside a text part) and the stream's metadata.
 */
const NEUTRAL: ReadonlySet<string> = new Set(["text", "text-start", "text-delta", "text-end", "raw", "source", "response-metadata", "stream-start"]);

export class TextSpans {
  /** A part other than text came since the last text part started or ended. */
  #apart = false;
  /** The output item each text part names (Responses: providerMetadata.openai.itemId), when it names one. */
  #items = new Map<string, string>();

  /** A part other than a text delta passes (those never separate anything, so they are not read here). */
  note(part: Part): void {
    if (part.type === "text-end") this.#apart = false;
    else if (separates(part.type)) this.#apart = true;
  }

  /**
   * `start` opens a text part; `last` is the text part the engine read last, `ended` whether it
   * has ended. True when `start` begins a new span: `last` ended, and a part other than text came
   * between them or the two name different output items. A part restarted under the same id (the
   * openai-compatible provider's one content part, ended and begun again around reasoning) goes on.
   */
  starts(start: Extract<Part, { type: "text-start" }>, last: string | undefined, ended: boolean): boolean {
    const item = itemOf(start.providerMetadata);
    const before = last === undefined ? undefined : this.#items.get(last);
    const apart = this.#apart;
    this.#apart = false;
    if (item !== undefined) this.#items.set(start.id, item);
    if (last === undefined || last === start.id || !ended) return false;
    this.#items.delete(last);
    return apart || (item !== undefined && before !== undefined && item !== before);
  }
}

/** A part of this type between two text parts (a stream part, or a generated content part) separates them. */
export function separates(type: string): boolean {
  return !NEUTRAL.has(type);
}

/**
 * Two generated text content parts are separate output parts: each names its output item. Only
 * @ai-sdk/openai's Responses model names one, and in doGenerate it pushes one text part per
 * output_text (or refusal) part, merging nothing, so two parts naming the same message item are
 * two output_text parts, each a span of its own on the fetch route (src/wires/responses/
 * text-parts.ts). Parts that name no item (Anthropic's adjacent text blocks) go on as one text.
 */
export function ownParts(a: SharedV3ProviderMetadata | undefined, b: SharedV3ProviderMetadata | undefined): boolean {
  return itemOf(a) !== undefined && itemOf(b) !== undefined;
}

/** The output item a part's provider metadata names (any provider's `itemId`), if any. */
function itemOf(meta: SharedV3ProviderMetadata | undefined): string | undefined {
  if (meta === undefined) return undefined;
  for (const key in meta) {
    const id = meta[key]?.itemId;
    if (typeof id === "string") return id;
  }
  return undefined;
}
