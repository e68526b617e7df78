/**
 * Review 52 (hostile, tests only): the history sanitizer's second reading (src/history/sanitize.ts
 * redactReply, FirstReading). After the first pass turns a broken span into the note, the text is
 * read again, and only what the FIRST reading saw outside documentation may be replaced: the
 * broken span can take with it the opener of documentation (a backtick in its value opens inline
 * code that runs to the end of the paragraph), and what the live repair held as documentation
 * stays as written. Each finding test says what is wrong, its severity, a minimal input, the
 * suspected source and what is expected; the rest are hard negatives that pass on main.
 * DSML is built from escaped notation (test/golden/notation.ts).
 */
import { describe, expect, test } from "bun:test";
import { REMOVED_NOTE, redactLeaks } from "../../src/history/sanitize.ts";
import { sanitizeRequestBody } from "../../src/proxy/history.ts";
import { live } from "../golden/notation.ts";
import { fixtureTools } from "../golden/tools.ts";
import { outcome } from "../support/outcome.ts";

const history = (text: string) => redactLeaks(text, {}, fixtureTools);

/** A DSML block that lacks its required `command` (broken, I05) whose value opens inline code it never closes. */
const BROKEN = live(`<{D}tool_calls>\n<{D}invoke name="bash">\n<{D}parameter name="description" string="true">use \`ls</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`);
/** A Hermes call whose `</tool_call>` never came, on lines of its own: stray markup history replaces (T01) when it is no documentation. */
const UNCLOSED_HERMES = '<tool_call>\n{"name": "bash", "arguments": {"command": "rm -rf x"}}';
/** A lone DSML block opener on its own line (I10). */
const LONE_OPENER = live("<{D}tool_calls>");
/** A complete Hermes call later in the same paragraph (inside the inline code the first reading saw). */
const LATER_QUOTE = '<tool_call>{"name":"bash","arguments":{"command":"ls"}}</tool_call>';

describe("the second reading keeps what the first reading saw as documentation", () => {
  // FINDING (severity: documentation in history rewritten: text of the model's reply the live
  // repair kept as written is replaced by the note; no call runs). Whether a stray span (an
  // unclosed Hermes call, a lone block opener) the first reading held as documentation survives
  // depends on whether some markup comes AFTER it in the same paragraph.
  // Minimal input: "Start.\n" + BROKEN + "\n" + UNCLOSED_HERMES + "\nmore words\n" + LATER_QUOTE.
  // The live repair reads everything after BROKEN's backtick as inline code to the paragraph's end:
  // no call, only BROKEN reported. History: BROKEN becomes the note (right); read again, the
  // backtick is gone, the engine finds LATER_QUOTE (skipped: the first reading saw it as
  // documentation), and then the stray UNCLOSED_HERMES before it is replaced too, although the
  // first reading saw it as documentation as well. Without LATER_QUOTE it is kept (hard negative
  // below). Suspected: src/history/sanitize.ts redactOnce: `counts` (FirstReading.sawDocumentationAt)
  // is asked for the engine's spans first, which sweeps the reading past LATER_QUOTE, and then for
  // the stray spans at earlier positions; a position behind the sweep answers "not documentation"
  // ("asked again behind the sweep"), so the stray span counts. Expected: each span is asked in
  // order of position (or the answer behind the sweep is remembered), and the unclosed Hermes call
  // stays as written, as it does with nothing after it.
  // Fixed: redactOnce asks FirstReading about the engine's spans and the stray spans together, in
  // order of position (askInOrder), so a later call never moves the reading past an earlier stray
  // span; a stray span the first reading held as documentation stays whatever follows it.
  test("an unclosed Hermes call held as documentation stays, with a quoted call later in the paragraph", () => {
    const reply = `Start.\n${BROKEN}\n${UNCLOSED_HERMES}\nmore words\n${LATER_QUOTE}`;
    expect(outcome(reply).calls).toEqual([]);
    expect(history(reply).text).toBe(`Start.\n${REMOVED_NOTE}\n${UNCLOSED_HERMES}\nmore words\n${LATER_QUOTE}`);
  });

  // FINDING (same cause, same severity): a lone block opener the first reading held as
  // documentation is replaced once a quoted call follows it in the paragraph.
  // Minimal input: "Start.\n" + BROKEN + "\n" + LONE_OPENER + "\nmore words " + LATER_QUOTE.
  // Expected: the opener stays as written, as it does with nothing after it.
  // Fixed: the same rule (spans asked in order of position).
  test("a lone DSML block opener held as documentation stays, with a quoted call later in the paragraph", () => {
    const reply = `Start.\n${BROKEN}\n${LONE_OPENER}\nmore words ${LATER_QUOTE}`;
    expect(outcome(reply).calls).toEqual([]);
    expect(history(reply).text).toBe(`Start.\n${REMOVED_NOTE}\n${LONE_OPENER}\nmore words ${LATER_QUOTE}`);
  });

  // FINDING (same cause): the proxy (and the fetch adapter) send the rewritten documentation upstream.
  // Fixed: the same rule; the request path shares redactReply.
  test("through the proxy on chat: the unclosed Hermes call held as documentation goes up as written", () => {
    const reply = `Start.\n${BROKEN}\n${UNCLOSED_HERMES}\nmore words\n${LATER_QUOTE}`;
    const schema = { type: "object", properties: { command: { type: "string" }, description: { type: "string" } }, required: ["command"] };
    const body = { model: "m", tools: [{ type: "function", function: { name: "bash", parameters: schema } }], messages: [{ role: "user", content: "go" }, { role: "assistant", content: reply }, { role: "user", content: "?" }] };
    const out = sanitizeRequestBody("/v1/chat/completions", new TextEncoder().encode(JSON.stringify(body)) as Uint8Array<ArrayBuffer>, { parse: {}, sanitize: true, correct: false });
    const sent = JSON.parse(new TextDecoder().decode(out.body)) as { messages: { content: string }[] };
    expect(sent.messages[1]!.content).toBe(`Start.\n${REMOVED_NOTE}\n${UNCLOSED_HERMES}\nmore words\n${LATER_QUOTE}`);
  });

  test("hard negative (passes on main): with nothing after it, the unclosed Hermes call held as documentation stays", () => {
    const reply = `Start.\n${BROKEN}\n${UNCLOSED_HERMES}\nmore words`;
    expect(outcome(reply).calls).toEqual([]);
    expect(history(reply).text).toBe(`Start.\n${REMOVED_NOTE}\n${UNCLOSED_HERMES}\nmore words`);
  });

  test("hard negative (passes on main): with nothing after it, the lone opener held as documentation stays", () => {
    const reply = `Start.\n${BROKEN}\n${LONE_OPENER}\nmore words`;
    expect(history(reply).text).toBe(`Start.\n${REMOVED_NOTE}\n${LONE_OPENER}\nmore words`);
  });

  test("hard negative (passes on main): the quoted call inside the inline code is kept on its own", () => {
    const reply = `Start.\n${BROKEN}\nmore ${LATER_QUOTE} words`;
    expect(outcome(reply).calls).toEqual([]);
    expect(history(reply).text).toBe(`Start.\n${REMOVED_NOTE}\nmore ${LATER_QUOTE} words`);
  });

  test("hard negative (passes on main): after a blank line the paragraph (and the inline code) ended: the call there runs live and is replaced in history", () => {
    const reply = `Start.\n${BROKEN}\n${UNCLOSED_HERMES}\n\n${LATER_QUOTE}`;
    expect(outcome(reply).calls).toEqual([{ tool: "bash", input: { command: "ls" } }]);
    expect(history(reply).text).toBe(`Start.\n${REMOVED_NOTE}\n${UNCLOSED_HERMES}\n\n${REMOVED_NOTE}`);
  });

  test("hard negative: past the paragraph's end, a stray span before a call quoted in inline code is still replaced, the quote kept", () => {
    const reply = `Start.\n${BROKEN}\n\n${UNCLOSED_HERMES}\nsee \`${LATER_QUOTE}\``;
    expect(outcome(reply).calls).toEqual([]);
    expect(history(reply).text).toBe(`Start.\n${REMOVED_NOTE}\n\n${REMOVED_NOTE}\nsee \`${LATER_QUOTE}\``);
  });

  test("hard negative (passes on main): an unclosed Hermes call in plain prose (no documentation) is replaced, the prose after it kept", () => {
    const reply = `Start.\n${UNCLOSED_HERMES}\nmore words\n${LATER_QUOTE}`;
    const out = history(reply).text;
    expect(out.startsWith(`Start.\n${REMOVED_NOTE}\nmore words\n`)).toBe(true);
    expect(out).not.toContain("rm -rf x");
  });
});
