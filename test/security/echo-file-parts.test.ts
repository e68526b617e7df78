/**
 * Review 45, finding 4: a file inside a tool result is given content when the model reads it as
 * text. src/echo/from-request.ts reads every file part the same way (pushFilePart): a prompt's
 * `file` part, a tool result's `file-data` or older `media` part, with a text media type, and a
 * `file-url` whose URL is a text `data:` URL. Each with its control (another command quoted: the
 * reply's call runs) and a binary hard negative (an image part holding the same bytes is no text).
 */
import { describe, expect, test } from "bun:test";
import type { LanguageModelV3Prompt } from "@ai-sdk/provider";
import { givenFromPrompt } from "../../src/echo/from-request.ts";
import { textStream, throughMiddleware } from "./support.ts";
import { COMMAND, ECHO, OTHER, attack, base64, readme, withToolResult } from "./tool-result-files.ts";


const parts: [string, (text: string) => unknown][] = [
  ["an older `media` part with a text media type", (text) => ({ type: "media", data: base64(text), mediaType: "text/markdown" })],
  ["a `file-url` part whose URL is a text data: URL", (text) => ({ type: "file-url", url: `data:text/plain;base64,${base64(text)}` })],
  ["a `file-data` part of application/json", (text) => ({ type: "file-data", data: base64(JSON.stringify({ readme: text })), mediaType: "application/json" })],
];

describe("middleware: a text file inside a tool result's content is given", () => {
  for (const [name, part] of parts) {
    test(`${name}: the README's attack, echoed, does not run`, async () => {
      const run = (command: string) => throughMiddleware(withToolResult([part(readme(command))]), textStream(ECHO));
      expect((await run(OTHER)).calls).toHaveLength(1); // control
      expect((await run(COMMAND)).calls).toEqual([]);
    });
  }

  // An image reaches the model as an image whatever its bytes. A file of another type is text when
  // its bytes are (review 46: scripts come as application/x-sh), so the binary file here is a PDF
  // by its bytes too: the second line's bytes above 0x7F, no UTF-8, mark it binary.
  test("hard negative: an image part and a binary file-data part holding the same text give nothing", async () => {
    const bytes = base64(readme(COMMAND));
    const pdf = Buffer.concat([Buffer.from("%PDF-1.7\n%"), Buffer.from([0xe2, 0xe3, 0xcf, 0xd3]), Buffer.from(`\n${readme(COMMAND)}`)]).toString("base64");
    const given = givenFromPrompt(withToolResult([
      { type: "image-data", data: bytes, mediaType: "image/png" },
      { type: "file-data", data: pdf, mediaType: "application/pdf" },
      { type: "file-url", url: "https://example.com/README.md" },
    ]));
    expect(given.some((text) => text.includes(COMMAND))).toBe(false);
    const run = await throughMiddleware(withToolResult([{ type: "image-data", data: bytes, mediaType: "image/png" }]), textStream(ECHO));
    expect(run.calls).toHaveLength(1);
  });

  test("a prompt's user file part reads the same way (shared code)", () => {
    const prompt: LanguageModelV3Prompt = [{ role: "user", content: [{ type: "file", data: base64(readme(COMMAND)), mediaType: "text/markdown" }] }];
    expect(givenFromPrompt(prompt).some((text) => text.includes(COMMAND))).toBe(true);
  });
});
