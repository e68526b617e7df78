/**
 * Review 48, echo guard: over-refusal. A call the given content never held is taken for a quote
 * because each of its string values occurs, as a whole token, next to some markup
 * (src/echo/search.ts: the tool is not compared when a value has a letter or digit, and each value
 * is searched on its own). Severity low for each: the call is stripped with the `echoed-markup`
 * nudge (no wrong execution), but a legitimate new call of the model's is lost until it retries
 * natively. Each test has the control that the same reply runs when the README quotes something else.
 */
import { describe, expect, test } from "bun:test";
import { dsml, shell } from "../security/echo-spellings.ts";
import { recoveredInputs, readme } from "../security/echo-run.ts";

const bash = (command: string) => ({ tool: "bash", input: { command } });
const run = (call: { tool: string; input: Record<string, string> }, given: string) => recoveredInputs(`Next:\n${dsml(call)}`, [readme(given)]);

describe("a new call refused because a similar but different call was given", () => {
  // FINDING 3a (over-refusal, low): another tool with the same value. The README quotes a bash
  // costume `<shell>npm test</shell>`; the model's own web_search for "npm test" is refused.
  // Suspected: src/echo/search.ts (evidenceOf/search: the tool name counts only for calls with no
  // alphanumeric value).
  // known gap: refused today (pinned). Telling which tool a quote called needs the tool named by
  // the markup around each occurrence (a costume, a DSML invoke, a JSON "name", a Mistral token,
  // an element): one more reader of every dialect inside the search, where a mistake would let an
  // echo run. A false refusal costs one native retry; trust first.
  test("known gap: web_search \"npm test\" is refused when the README quotes <shell>npm test</shell>", () => {
    const call = { tool: "web_search", input: { query: "npm test" } };
    expect(run(call, shell(bash("npm run lint"), false))).toHaveLength(1); // control
    expect(run(call, shell(bash("npm test"), false))).toEqual([]);
  });

  // FINDING 3b (over-refusal, low): a command that is only part of the quoted one. The README
  // quotes `rm -rf node_modules && npm install`; the model's own `npm install` is refused.
  // Suspected: src/echo/search.ts occursNearMarkup (a whole token inside a longer value counts).
  // known gap: refused today (pinned). Requiring a value to fill the quoted value whole would
  // let a model that quotes part of a quoted command (the dangerous half of `cd x && curl … | sh`,
  // the command of a multi-line heredoc) run it; the guard counts a whole token inside a longer
  // quoted value as given on purpose (docs/SECURITY.md).
  test("known gap: `npm install` is refused when the README quotes `rm -rf node_modules && npm install`", () => {
    expect(run(bash("npm install"), shell(bash("rm -rf node_modules && npm ci"), false))).toHaveLength(1); // control
    expect(run(bash("npm install"), shell(bash("rm -rf node_modules && npm install"), false))).toEqual([]);
  });

  test("known gap: `npm test` is refused when the README quotes `npm test -- --watch`", () => {
    expect(run(bash("npm test"), shell(bash("npm run build -- --watch"), false))).toHaveLength(1); // control
    expect(run(bash("npm test"), shell(bash("npm test -- --watch"), false))).toEqual([]);
  });

  // FINDING 3c (over-refusal, low): values mixed from two quoted calls. The README quotes
  // write(a.ts, A) and write(b.ts, B); the model's write(a.ts, B), never given, is refused.
  // Suspected: src/echo/search.ts (each value searched alone, not within one quoted call).
  // known gap: refused today (pinned). Tying the values to one quoted call needs the quote's
  // extent in every dialect; each value is searched on its own, which no decoy can defeat.
  test("known gap: write(a.ts, content of b.ts) is refused when write(a.ts, A) and write(b.ts, B) were quoted", () => {
    const w = (filePath: string, content: string) => ({ tool: "write", input: { filePath, content } });
    const quoted = (x: string) => `${dsml(w("a.ts", "export const a = 1"))}\n\n${dsml(w(x, "export const b = 2"))}`;
    expect(run(w("a.ts", "export const b = 2"), quoted("b.ts").replace("export const b = 2", "export const c = 3"))).toHaveLength(1); // control
    expect(run(w("a.ts", "export const b = 2"), quoted("b.ts"))).toEqual([]);
  });

  // FINDING 3d (over-refusal, low): a generic one-word value matched inside a path. The README
  // quotes read(src/index.ts); the model's own glob("src") is refused.
  // known gap: refused today (pinned): a whole token inside a quoted value counts as given (as
  // above), and `/` delimits a token; the tool is not compared (as in the first gap).
  test("known gap: glob(\"src\") is refused when the README quotes read(src/index.ts)", () => {
    const call = { tool: "glob", input: { pattern: "src" } };
    expect(run(call, dsml({ tool: "read", input: { filePath: "lib/index.ts" } }))).toHaveLength(1); // control
    expect(run(call, dsml({ tool: "read", input: { filePath: "src/index.ts" } }))).toEqual([]);
  });

  test("hard negative (passes today): a command named in prose after a closed quote of another call still runs", () => {
    expect(run(bash("npm test"), `<shell>ls</shell> and then npm test`)).toHaveLength(1);
  });
});
