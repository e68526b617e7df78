/**
 * Recovered call ids are nine letters and digits from a process-wide counter with a random start
 * (src/engine/output.ts recoveredCallId), so two runs of one input differ only in them: this makes
 * them equal, wherever a wire writes one as a JSON value (the chat tool call's id, a tool_use id, a
 * Responses item's `fc_` id, its call_id and its events' item_id).
 */
export const sameCallIds = (text: string): string => text.replaceAll(/"(id|call_id|item_id|tool_call_id|tool_use_id)":"(fc_)?[0-9a-z]{9}"/g, '"$1":"$2<recovered>"');
