/**
 * Review 41, rule 4 (costume read-past, src/parse/costume-hold.ts COSTUME / heldPast): a costume whose
 * first closer was read as code, with a call opener after it, is refused whole only when its own
 * closer later ends a line. A later own closer with text after it on its line (`</shell> done`,
 * `</shell>\tdone`) does not count, so the costume is taken to have ended at its first closer and
 * the example written inside its heredoc runs on its own. Every case runs whole, char by char and
 * at seeded splits (they agree).
 */
import { describe, expect, test } from "bun:test";
import { fixtureTools } from "../golden/tools.ts";
import { accountsForEveryCharacter, runAtEverySplit } from "../support/run-engine.ts";

function run(input: string) {
  const r = runAtEverySplit(input, fixtureTools);
  expect(accountsForEveryCharacter(input, r)).toBe(true);
  return r;
}

const ranExample = (r: ReturnType<typeof run>) => r.calls.some((c) => c.tool === "bash" && c.input.command === "rm -rf build");

describe("a heredoc example inside a costume whose own closer comes later with text after it", () => {
  // Severity: wrong-execution. Likely: src/parse/costume-hold.ts heldPast (closedLater requires
  // endsLine after the own closer) and COSTUME.parse (held, truncated, not closedLater: text up to
  // the first closer, the rest read again). Golden A40.19/A40.20 refuse the same heredoc when the
  // last `</shell>` ends its line; with ` done` after it the inner `<tool_call>` / `<bash>` runs
  // `rm -rf build` (and `EOF\n</shell> done` is stripped as a fabricated result). Expected: refused
  // whole (broken markup), nothing runs.
  test("a <tool_call> example, the last </shell> followed by text", () => {
    const r = run(`<shell>cat > doc.md <<'EOF'\nEnd the block with </shell> on its own line.\n<tool_call>\n{"name": "bash", "arguments": {"command": "rm -rf build"}}\n</tool_call>\nEOF\n</shell> done\n`);
    expect(ranExample(r)).toBe(false);
  });

  test("a <bash> example, the last </shell> followed by a tab and text", () => {
    const r = run(`<shell>cat <<'EOF'\nuse </shell> x\n<bash>rm -rf build</bash>\nEOF\n</shell>\tdone\n`);
    expect(ranExample(r)).toBe(false);
  });

  test("a <bash> example, the last </shell> followed by text and the reply going on", () => {
    const r = run(`<shell>cat <<'EOF'\nuse </shell> x\n<bash>rm -rf build</bash>\nEOF\n</shell> # wrote the doc\nDone.`);
    expect(ranExample(r)).toBe(false);
  });
});

describe("hard negatives (pass today)", () => {
  test("the last </shell> ends its line after CR LF: refused whole", () => {
    const r = run(`<shell>cat > d.md <<'EOF'\nuse </shell> x\n<bash>rm -rf build</bash>\r\nEOF\r\n</shell>\r\n`);
    expect(r.calls).toEqual([]);
    expect(r.summary.broken.map((b) => b.reason)).toEqual(["broken-markup"]);
  });

  test("a fenced DSML example in the heredoc, the last </shell> ending its line: refused whole", () => {
    const r = run("<shell>cat > d.md <<'EOF'\nuse </shell> x\n```\n<tool_call>\n{\"name\": \"bash\", \"arguments\": {\"command\": \"rm -rf build\"}}\n</tool_call>\n```\nEOF\n</shell>\n");
    expect(r.calls).toEqual([]);
  });
});
