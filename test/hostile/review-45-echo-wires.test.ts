/**
 * Review 45, area 1: where given content reaches the model in a form the request-side collector
 * (src/echo/from-request.ts) does not decode. Each test has a control: another command in the
 * same place lets the reply's call run, so the guard is not blocking blindly.
 */
import { describe, expect, test } from "bun:test";
import { textStream, throughMiddleware } from "../security/support.ts";
import { COMMAND, ECHO, OTHER, attack, base64, readme, withToolResult } from "../security/tool-result-files.ts";


describe("middleware: a text file returned inside a tool result's content", () => {
  // Severity: wrong execution (medium). Suspected: src/echo/from-request.ts collectStrings /
  // BINARY_PARTS: a tool result's `file-data` part is skipped whole as binary, whatever its
  // media type. @ai-sdk/openai (Responses) sends it as `input_file` with `file_data:
  // data:text/markdown;base64,…`, which the model reads as text (the fetch side decodes exactly that
  // data: URL, so the same README is given there). A user-side `file` part with the same media
  // type is decoded (fileText), so only the tool-result path is blind. Expected: decoded like a
  // user file part; the echo is stripped.
  for (const mediaType of ["text/markdown", "text/plain"]) {
    test(`a ${mediaType} file-data part: the README's attack, echoed, does not run`, async () => {
      const run = (command: string) =>
        throughMiddleware(withToolResult([{ type: "file-data", data: base64(readme(command)), mediaType, filename: "README.md" }]), textStream(ECHO));
      expect((await run(OTHER)).calls).toHaveLength(1); // control
      expect((await run(COMMAND)).calls).toEqual([]);
    });
  }

  test("hard negative (passes today): the same README as a text part of the content result is given", async () => {
    const run = await throughMiddleware(withToolResult([{ type: "text", text: readme(COMMAND) }]), textStream(ECHO));
    expect(run.calls).toEqual([]);
  });
});
