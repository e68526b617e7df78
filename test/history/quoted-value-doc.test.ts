// History (src/history/sanitize.ts) reads a replayed reply with the live engine, so a call quoted
// in documentation whose open value holds a line that ends the block by CommonMark (review 45,
// finding 5) keeps the example after that line: documentation is never redacted, the reply is
// replayed as written. The live cases are in test/engine/quoted-value-doc.test.ts.
import { describe, expect, test } from "bun:test";
import { redactLeaks } from "../../src/history/sanitize.ts";
import { live } from "../golden/notation.ts";
import { fixtureTools } from "../golden/tools.ts";
import { EXAMPLE_BLOCK } from "../support/cut-off-examples.ts";

const quotedWrite = (content: string) =>
  live(`<{D}tool_calls>\n<{D}invoke name="write">\n<{D}parameter name="filePath" string="true">docs/calls.md</{D}parameter>\n<{D}parameter name="content" string="true">`) +
  content +
  live(`</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`);

describe("history: the example inside a quoted write's value, after the page's own fence", () => {
  test("is not redacted: the reply is replayed as written", () => {
    const input = "Here is the page:\n```\n" + quotedWrite("# Calls\n```\n" + EXAMPLE_BLOCK + "\n```\n") + "\n```\nThat is all.";
    const r = redactLeaks(input, {}, fixtureTools);
    expect(r.removed).toBe(0);
    expect(r.text).toBe(input);
  });

  test("control: the same example leaked after the fence (no value open) is redacted", () => {
    const input = "Here is the page:\n```\n" + quotedWrite("# Calls\n") + "\n```\n\n" + EXAMPLE_BLOCK + "\nThat is all.";
    expect(redactLeaks(input, {}, fixtureTools).removed).toBe(1);
  });
});

describe("history: the quoted write's own closers after a value the page's block ended in", () => {
  test("are documentation: nothing is redacted, the reply is replayed as written", () => {
    for (const input of [
      "<details>\n" + quotedWrite("# Calls\n\nRun it like this:\n" + EXAMPLE_BLOCK + "\n") + "\n</details>\nThat is all.",
      "<!--\n" + quotedWrite("a --> b\n" + EXAMPLE_BLOCK + "\n") + "\n-->\nThat is all.",
    ]) {
      const r = redactLeaks(input, {}, fixtureTools);
      expect(r.removed).toBe(0);
      expect(r.nudge).toBeNull();
      expect(r.text).toBe(input);
    }
  });

  // Review 52: a block right after the quoted block's closer (white space between) is quoted too
  // (a second example in the same broken holder reads the same way), so it is kept as written.
  test("a block right after those closers is quoted too: kept", () => {
    const input = "<details>\n" + quotedWrite("# Calls\n\nRun it like this:\n" + EXAMPLE_BLOCK + "\n") + "\n" + live(`<{D}tool_calls>\n<{D}invoke name="bash">\n<{D}parameter name="command" string="true">ls -la</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`) + "\nThat is all.";
    expect(redactLeaks(input, {}, fixtureTools).removed).toBe(0);
  });

  test("control: a real leak after those closers and a line of prose is redacted", () => {
    const input = "<details>\n" + quotedWrite("# Calls\n\nRun it like this:\n" + EXAMPLE_BLOCK + "\n") + "\nNow for real:\n" + live(`<{D}tool_calls>\n<{D}invoke name="bash">\n<{D}parameter name="command" string="true">ls -la</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`) + "\nThat is all.";
    expect(redactLeaks(input, {}, fixtureTools).removed).toBe(1);
  });
});
