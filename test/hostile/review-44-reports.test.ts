// Review 44 (hostile, tests only): what the plugin tells the model and what it logs. The rule
// (docs/SECURITY.md, side channels): logs carry ids, counts, nudges and shape ids, never argument
// values; a correction names a parameter by its schema name, never a value. Each failing test says
// what is wrong, its severity and the suspected source file. Markup is Hermes `<tool_call>` JSON
// and Claude-style XML, so no DSML marker bytes are needed.
import { describe, expect, test } from "bun:test";
import { describeError } from "../../src/engine/describe-error.ts";
import { parse } from "../../src/engine/parse.ts";
import { correctionText } from "../../src/retry/state.ts";
import type { ToolSpec } from "../../src/parse/types.ts";

const SECRET = "sk-live-4eC39HqLyjWDarjtT1zdp7dc";

describe("describeError: a Node.js JSON.parse message never gives the text it quotes", () => {
  // FINDING (value leak into a debug line, medium). describeError (every engine and adapter
  // failure line: src/engine/guarded.ts, src/adapters/report.ts) drops quoted spans by pairing
  // quote characters left to right. Node.js 20+ writes JSON.parse errors as
  //   Unexpected token ''', "'sk-live-...'" is not valid JSON
  // (run `node -e "JSON.parse(\"'x'\")"`): the token is itself a quote character in quotes, so
  // the pairing is off by one from there, and the quoted input is printed outside every "quote".
  // The same happens when the quoted input holds a quote of its own (a value with an apostrophe
  // or a JSON string). The proxy, the CLI and the fetch adapter run on Node.js, where a thrown
  // JSON.parse of argument text would print the argument into the debug line. Expected: no
  // character of the quoted input is printed, whatever quotes it holds (e.g. drop everything from
  // the first quote character, or recognise the `"<input>" is not valid JSON` tail).
  // Suspected: src/engine/describe-error.ts (withoutQuotes).
  test("a single-quoted value as Node.js reports it", () => {
    const line = describeError(new SyntaxError(`Unexpected token ''', "'${SECRET}'" is not valid JSON`));
    expect(line).not.toContain(SECRET);
  });

  test("a quoted input holding an apostrophe and a JSON string", () => {
    const input = `{"cmd": it's "Bearer ${SECRET}"}`;
    const line = describeError(new SyntaxError(`Unexpected token 'i', "${input}" is not valid JSON`));
    expect(line).not.toContain(SECRET);
  });

  // Hard negative (passes on main): Bun's own wording quotes only the token.
  test("Bun's JSON.parse message keeps nothing of the value", () => {
    let error: unknown;
    try {
      JSON.parse(`{"cmd": ${SECRET}}`);
    } catch (caught) {
      error = caught;
    }
    expect(describeError(error)).not.toContain(SECRET);
  });
});

describe("the correction never carries a credential the model wrote as a parameter name", () => {
  const bash: ToolSpec = {
    name: "bash",
    parameters: { type: "object", properties: { command: { type: "string" } }, required: ["command"], additionalProperties: false },
  };
  const token = "ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8";

  // What the plugin sends the model on the next turn for this reply (src/plugin/plugin-start.ts:
  // the first broken span's reason and parameter go to correctionText).
  const correctionFor = (markup: string) => {
    const result = parse(markup, [bash]);
    expect(result.calls).toEqual([]);
    const first = result.broken[0]!;
    return correctionText(first.reason, first.parameter, first.declared);
  };

  // FINDING (credential leak into what the model is told, low-medium). A leaked call whose
  // parameter NAME is a token (the model pasted a key where a name goes, e.g. from an env dump) is
  // refused by the schema gate (additionalProperties: false) as "invalid-arguments", and the gate
  // names the invented parameter because it "looks like a name" (1-64 of [A-Za-z0-9_.$-]), which
  // GitHub tokens, AWS key ids and short API keys all do. The correction then tells the model
  // "The parameter `ghp_...` does not match ...": the history layer replaced the leak with a note,
  // and the correction writes the token back into the conversation (and into OpenCode's stored
  // session). Expected: the correction names only parameters the tool's schema declares
  // (properties / required); an invented name is left out ("a parameter that is not declared").
  // Suspected: src/parse/schema-gate.ts (mismatch: additionalProperty / unevaluatedProperty taken
  // as `parameter`), src/retry/state.ts (correctionText trusts `parameter`).
  test("Hermes JSON: an undeclared key that is a token", () => {
    const text = correctionFor(`<tool_call>{"name":"bash","arguments":{"command":"ls","${token}":"x"}}</tool_call>`);
    expect(text).not.toContain(token);
  });

  test("Claude-style XML: <parameter name=TOKEN>", () => {
    const text = correctionFor(`<function_calls>\n<invoke name="bash">\n<parameter name="command">ls</parameter>\n<parameter name="${token}">x</parameter>\n</invoke>\n</function_calls>`);
    expect(text).not.toContain(token);
  });

  // Hard negative (passes on main): an undeclared tool whose name is the token is never named.
  test("an undeclared tool named by a token is not named in the correction", () => {
    const text = correctionFor(`<tool_call>{"name":"${token}","arguments":{"command":"ls"}}</tool_call>`);
    expect(text).not.toContain(token);
  });

  // Hard negative (passes on main): a declared parameter of the wrong type is named, its value never.
  test("a declared parameter is named, its value is not", () => {
    const text = correctionFor(`<tool_call>{"name":"bash","arguments":{"command":{"token":"${SECRET}"}}}</tool_call>`);
    expect(text).toContain("`command`");
    expect(text).not.toContain(SECRET);
  });
});
