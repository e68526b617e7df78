/**
 * What becomes of a text part that redactReply left empty. A leak whose markup runs over three or
 * more consecutive parts takes the white space between its pieces with it: a part that held only
 * white space inside the markup (a line break the client stored as a part of its own) has nothing
 * left, and the note went into a part before it. An empty text part is refused by some APIs (the
 * Anthropic Messages API: "text content blocks must be non-empty"; some chat servers refuse an
 * empty assistant content part), so such a part leaves its message, as long as the message keeps
 * another part; one the message cannot lose (its only content, or a part that carries more than
 * its text: a cache breakpoint, citations) holds the note instead. Only parts emptied by the
 * redaction: a part the client sent empty stays as it was.
 */

/** One text part of a reply after the redaction. */
export interface RedactedPart {
  /** Its text as given, and as redactReply left it. */
  before: string;
  after: string;
  /** The message (an index the caller chooses) whose content holds it. */
  message: number;
  /** Whether it may leave its message: it carries nothing but its text (onlyText). */
  droppable: boolean;
}

/** "drop": the part leaves its message's content; "note": it holds REMOVED_NOTE. */
export type EmptiedFate = "drop" | "note";

/**
 * The fate of each part the redaction emptied, by its index in `parts`; the others are not in the
 * map. `size(message)`: how many parts of any kind the message's content holds (a string content
 * is one). One pass over the parts, and over the emptied ones once more.
 */
export function emptiedParts(parts: readonly RedactedPart[], size: (message: number) => number): Map<number, EmptiedFate> {
  const fates = new Map<number, EmptiedFate>();
  const byMessage = new Map<number, number[]>();
  parts.forEach((part, i) => {
    if (part.after !== "" || part.before === "") return;
    const list = byMessage.get(part.message);
    if (list) list.push(i);
    else byMessage.set(part.message, [i]);
  });
  for (const [message, emptied] of byMessage) {
    const droppable = emptied.filter((i) => parts[i]!.droppable);
    for (const i of emptied) if (!parts[i]!.droppable) fates.set(i, "note");
    // Never an empty content: when every part of the message would go, the first one holds the note.
    const keepsOne = size(message) - droppable.length >= 1;
    droppable.forEach((i, n) => fates.set(i, !keepsOne && n === 0 ? "note" : "drop"));
  }
  return fates;
}

/**
 * Whether a part object carries nothing but its type and text: every other field is absent or
 * empty (null, [], {}), as `annotations: []` on a Responses output_text part is.
 */
export function onlyText(part: object): boolean {
  for (const [key, value] of Object.entries(part)) {
    if (key === "type" || key === "text" || value === undefined || value === null) continue;
    if (Array.isArray(value) ? value.length > 0 : typeof value !== "object" || Object.keys(value).length > 0) return false;
  }
  return true;
}
