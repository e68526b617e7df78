/**
 * fx48-history: the rules chosen for review 48's history findings (src/history/stray-markup.ts,
 * sanitize.ts): a cut-off span ends at its last token (and the complete JSON right after it), a
 * lone opener or an unclosed Hermes call on lines of its own is replaced (the token or call only,
 * no correction asked), the Seed-OSS wrapper goes with its span; and the hard negatives beside them.
 */
import { describe, expect, test } from "bun:test";
import type { LanguageModelV3Prompt } from "@ai-sdk/provider";
import { sanitizeRequestText } from "../../src/adapters/request-history.ts";
import { sanitizePrompt } from "../../src/history/prompt.ts";
import { REMOVED_NOTE, redactLeaks, redactReply } from "../../src/history/sanitize.ts";
import { escaped, live } from "../golden/notation.ts";
import { fixtureTools } from "../golden/tools.ts";

const history = (text: string) => redactLeaks(text, {}, fixtureTools);
const P = "Then I will check.";
const LEGACY_HEAD = live(`<{BAR}tool{SP}calls{SP}begin{BAR}><{BAR}tool{SP}call{SP}begin{BAR}>bash<{BAR}tool{SP}sep{BAR}>`);

/** Every cut into two parts reads, joined, as the whole text's history. */
function sameAtEveryCut(input: string): void {
  const whole = escaped(history(input).text);
  for (let cut = 1; cut < input.length; cut++) {
    const out = redactReply([{ text: input.slice(0, cut) }, { text: input.slice(cut) }], {}, fixtureTools);
    expect({ cut, text: escaped(out.texts.join("")) }).toEqual({ cut, text: whole });
  }
}

describe("a cut-off span ends at its last token", () => {
  test("DeepSeek V3: cut off inside the JSON, the unfinished JSON stays as text beside the note", () => {
    const input = `Run:\n${LEGACY_HEAD}{"command":"l\n${P}`;
    expect(escaped(history(input).text)).toBe(`Run:\n${REMOVED_NOTE}{"command":"l\n${P}`);
  });

  test("Mistral: the list's complete objects go with the note, an unfinished one after them stays as text", () => {
    const two = `Run:\n[TOOL_CALLS][{"name":"bash","arguments":{"command":"ls"}},{"name":"bash","arguments":{"command":"pwd"}}\n${P}`;
    expect(history(two).text).toBe(`Run:\n${REMOVED_NOTE}\n${P}`);
    const cut = `Run:\n[TOOL_CALLS][{"name":"bash","arguments":{"command":"ls"}}, {"name":"bash","argu\n${P}`;
    expect(history(cut).text).toBe(`Run:\n${REMOVED_NOTE}, {"name":"bash","argu\n${P}`);
  });

  test("Kimi cut off after its arguments: the prose stays", () => {
    const input = `Run:\n<|tool_calls_section_begin|><|tool_call_begin|>functions.bash:0<|tool_call_argument_begin|>{"command":"ls"}\n${P}`;
    expect(history(input).text).toBe(`Run:\n${REMOVED_NOTE}\n${P}`);
  });

  test("a token the reply cut off after the last whole one stays in the span (nothing of it is left)", () => {
    const input = `Run:\n${LEGACY_HEAD}{"command":"ls"}${live("<{BAR}tool{SP}call")}`;
    const out = history(input);
    expect(escaped(out.text)).toBe(`Run:\n${REMOVED_NOTE}`);
  });

  test("twice == once, and every cut into two parts reads as the whole", () => {
    for (const input of [`Run:\n${LEGACY_HEAD}\n${P}`, `Run:\n${LEGACY_HEAD}{"command":"ls"}\n${P}`, `Run:\n[TOOL_CALLS][{"name":"bash","arguments":{"command":"ls"}}\n${P}`, live(`Run:\n<{D}tool_calls>\nDone.`)]) {
      const once = history(input);
      expect(history(once.text)).toMatchObject({ text: once.text, removed: 0 });
      sameAtEveryCut(input);
    }
  });
});

describe("a lone opener on a line of its own: the token alone becomes the note", () => {
  const OPENERS = [live("<{D}tool_calls>"), live("<{DVL}DSML{DVL}tool_calls>"), live("<{BAR}tool{SP}calls{SP}begin{BAR}>"), "<|tool_calls_section_begin|>", "<|tool_call_start|>"];

  test("replaced, the prose after it kept; no correction is asked (the live repair reported nothing)", () => {
    for (const open of OPENERS) {
      const out = history(`Run:\n${open}\nThe command failed.`);
      expect({ open: escaped(open), text: out.text, nudge: out.nudge }).toEqual({ open: escaped(open), text: `Run:\n${REMOVED_NOTE}\nThe command failed.`, nudge: null });
      sameAtEveryCut(`Run:\n${open}\nThe command failed.`);
    }
  });

  test("hard negatives: named in a sentence, in inline code, in a fence, in a block quote, or followed by more markup (a pasted sample): as written", () => {
    for (const open of OPENERS) {
      for (const input of [
        `A call section starts with ${open} in the template.`,
        `Write \`${open}\` first.\nok`,
        "```\n" + open + "\n```\nok",
        `> ${open}\n\nok`,
        `    ${open}\n\nok`,
        `I saw this:\n${open}\n\nand then <|tool_call_end|> at the end.`,
      ]) {
        const out = history(input);
        expect({ input: escaped(input), removed: out.removed }).toEqual({ input: escaped(input), removed: 0 });
      }
    }
  });
});

describe("a Hermes call whose closer never came, on lines of its own", () => {
  const CALL = '<tool_call>{"name":"bash","arguments":{"command":"rm -rf x"}}';

  // The live path refuses it as broken markup (O01, as golden T29.8: a call cut off, then prose), so
  // history, reading the reply as live does, reports the same nudge: live and history agree.
  test("replaced up to the end of its JSON, the prose after it kept; each of two noted; reported as broken markup, as live", () => {
    expect(history(`Running:\n${CALL}\nDone.`)).toMatchObject({ text: `Running:\n${REMOVED_NOTE}\nDone.`, removed: 1, nudge: "broken-markup" });
    expect(history(`Running:\n<tool_call>\n{"name":"bash","arguments":{"command":"ls"}}\n\nDone.`).text).toBe(`Running:\n${REMOVED_NOTE}\n\nDone.`);
    expect(history(`A\n${CALL}\nB\n${CALL}\nC`).text).toBe(`A\n${REMOVED_NOTE}\nB\n${REMOVED_NOTE}\nC`);
    sameAtEveryCut(`Running:\n${CALL}\nDone.`);
  });

  test("hard negatives: a tool no one declared, in a sentence, in inline code, in a fence, in a block quote: as written", () => {
    for (const input of [
      'Running:\n<tool_call>{"name":"nope","arguments":{}}\nDone.',
      `The format is ${CALL} on one line.`,
      `${CALL} is one line.`,
      `Write \`${CALL}\` like that.`,
      "```\n" + CALL + "\n```\nDone.",
      `> ${CALL}\n\nDone.`,
    ]) {
      expect({ input, removed: history(input).removed }).toEqual({ input, removed: 0 });
    }
  });
});

describe("Seed-OSS", () => {
  test("the wrapper goes with the note; every cut into two parts reads as the whole", () => {
    const input = "Sure.\n<seed:tool_call>\n<function=bash>\n<parameter=command>ls</parameter>\n</function>\n</seed:tool_call>\nDone.";
    expect(history(input).text).toBe(`Sure.\n${REMOVED_NOTE}\nDone.`);
    sameAtEveryCut(input);
  });

  test("hard negative: inside a fence it stays", () => {
    const input = "```\n<seed:tool_call>\n<function=bash>\n<parameter=command>ls</parameter>\n</function>\n</seed:tool_call>\n```\nDone.";
    expect(history(input).removed).toBe(0);
  });
});

describe("replies on every route", () => {
  test("AI SDK: only the message of a run whose text changed is rewritten (and loses its item ids); the other stays the same object", () => {
    const first = { role: "assistant" as const, content: [{ type: "text" as const, text: "Running it.", providerOptions: { openai: { itemId: "msg_1" } } }] };
    const prompt: LanguageModelV3Prompt = [{ role: "user", content: [{ type: "text", text: "run it" }] }, first, { role: "assistant", content: [{ type: "text", text: `${CALL_HERMES}\nDone.`, providerOptions: { openai: { itemId: "msg_2" } } }] }];
    const out = sanitizePrompt(prompt, {}, fixtureTools);
    expect(out[1]).toBe(first);
    expect(out[2]).toEqual({ role: "assistant", content: [{ type: "text", text: `${REMOVED_NOTE}\nDone.` }] });
  });

  test("AI SDK: a tool message between two assistant messages makes them two replies (a fence left open in the first hides nothing in the second)", () => {
    const prompt: LanguageModelV3Prompt = [
      { role: "assistant", content: [{ type: "text", text: "Example:\n```xml\n" }] },
      { role: "tool", content: [] },
      { role: "assistant", content: [{ type: "text", text: `${CALL_HERMES_CLOSED}\nDone.` }] },
    ];
    const out = sanitizePrompt(prompt, {}, fixtureTools);
    expect((out[2]!.content[0] as { text: string }).text).toBe(`${REMOVED_NOTE}\nDone.`);
  });

  test("Responses: a fenced example split over two output_text parts of one message, or over two message items, stays", () => {
    const tools = [{ type: "function", name: "bash", parameters: { type: "object", properties: { command: { type: "string" } } } }];
    const req = (input: unknown[]) => sanitizeRequestText("/v1/responses", JSON.stringify({ model: "m", tools, input }), { model: "m", tools, input }, { parse: {}, sanitize: true, correct: false });
    const fenced = [{ type: "message", role: "assistant", content: [{ type: "output_text", text: "Example:\n```xml\n" }, { type: "output_text", text: `${CALL_HERMES_CLOSED}\n\`\`\`\nThat is it.` }] }];
    expect(req(fenced).removed).toBe(0);
    const items = [
      { type: "message", role: "assistant", content: [{ type: "output_text", text: "Example:\n```xml\n" }] },
      { type: "message", role: "assistant", content: [{ type: "output_text", text: `${CALL_HERMES_CLOSED}\nDone.` }] },
    ];
    expect(req(items).removed).toBe(0);
  });
});

const CALL_HERMES = '<tool_call>{"name":"bash","arguments":{"command":"rm -rf x"}}</tool_call>';
const CALL_HERMES_CLOSED = CALL_HERMES;
