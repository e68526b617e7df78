import { describe, expect, test } from "bun:test";
import type { LanguageModelV3Prompt } from "@ai-sdk/provider";
import { repairMiddleware } from "../../src/adapters/middleware.ts";
import { sanitizePrompt } from "../../src/history/prompt.ts";
import { REMOVED_NOTE, sanitizeAssistantText } from "../../src/history/sanitize.ts";
import { block, live } from "../golden/notation.ts";

const leak = live(block("tool_calls", [["bash", [["command", "rm -rf build"]]]]));
const BAR = String.fromCodePoint(0xff5c);

describe("sanitizeAssistantText", () => {
  test("a leaked block becomes the note; surrounding prose stays", () => {
    const out = sanitizeAssistantText(`Cleaning up.\n\n${leak}\nDone?`);
    expect(out.removed).toBe(1);
    expect(out.text).toBe(`Cleaning up.\n\n${REMOVED_NOTE}\nDone?`);
    expect(out.text.includes(BAR)).toBe(false);
  });

  test("documentation is untouched: fences, tildes, inline code, blockquotes", () => {
    for (const doc of ["```\n" + leak + "\n```\n", "~~~\n" + leak + "\n~~~\n", "`" + leak.split("\n")[0] + "` is the opener", "> " + leak.split("\n").join("\n> ")]) {
      expect(sanitizeAssistantText(doc)).toEqual({ text: doc, removed: 0 });
    }
  });

  test("truncated, undeclared and costume leaks are all redacted, never executed", () => {
    const text = live(`<shell>\nls\n</shell>\nthen <{D}invoke name="AgenticSearch">\n<{D}parameter name="q" string="true">x</{D}parameter>\n</{D}invoke>\nand <{D}invoke name="bash">\n<{D}parameter name="command" string="true">git st`);
    const out = sanitizeAssistantText(text);
    expect(out.removed).toBe(3);
    // The cut-off call's note replaces its tags only: the value's text the reply showed stays (review 45).
    expect(out.text).toBe(`${REMOVED_NOTE}\nthen ${REMOVED_NOTE}\nand ${REMOVED_NOTE}git st`);
  });

  test("plain prose and code with comparisons come back identical", () => {
    const text = "if (a < b) { return x | y; }\nNo markup here.";
    expect(sanitizeAssistantText(text)).toEqual({ text, removed: 0 });
  });
});

describe("sanitizePrompt (AI SDK)", () => {
  const prompt: LanguageModelV3Prompt = [
    { role: "system", content: `system mentions ${leak}` },
    { role: "user", content: [{ type: "text", text: `user pasted ${leak}` }] },
    { role: "assistant", content: [{ type: "text", text: `ok\n${leak}` }, { type: "reasoning", text: leak }] },
  ];

  test("only assistant text parts change", () => {
    const out = sanitizePrompt(prompt);
    expect(out[0]).toBe(prompt[0]!);
    expect(out[1]).toBe(prompt[1]!);
    expect(out[2]).toEqual({ role: "assistant", content: [{ type: "text", text: `ok\n${REMOVED_NOTE}` }, { type: "reasoning", text: leak }] });
  });

  test("a clean prompt is returned as the same object", () => {
    const clean: LanguageModelV3Prompt = [{ role: "assistant", content: [{ type: "text", text: "fine" }] }];
    expect(sanitizePrompt(clean)).toBe(clean);
  });

  test("repairMiddleware.transformParams sanitizes by default and not with history.sanitize false", async () => {
    const params = { prompt } as Parameters<NonNullable<ReturnType<typeof repairMiddleware>["transformParams"]>>[0]["params"];
    const call = (mw: ReturnType<typeof repairMiddleware>) => mw.transformParams!({ params, type: "stream", model: {} as never });
    const on = await call(repairMiddleware());
    expect((on.prompt[2]!.content[0] as { text: string }).text).toBe(`ok\n${REMOVED_NOTE}`);
    const off = await call(repairMiddleware({ history: { sanitize: false } }));
    expect(off.prompt).toBe(prompt);
  });
});
