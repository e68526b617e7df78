/**
 * Code costumes read whole or not at all (review args, findings 4 and 5): an HTML `<pre>` block
 * (C02/C03) runs only as exactly one `<code>` element with whitespace around it, and the XML
 * execute costume (C01) only when every part of it was read: no attribute, an execute tool name,
 * a language the model wrote. Every case runs whole, char by char and at seeded splits.
 */
import { describe, expect, test } from "bun:test";
import { fixtureTools } from "../golden/tools.ts";
import { everyChar, observable, randomCuts, runEngine } from "../support/run-engine.ts";

function outcome(input: string) {
  const run = (cuts: number[]) => observable(runEngine(input, cuts, fixtureTools));
  const whole = run([]);
  expect(run(everyChar(input.length))).toEqual(whole);
  for (let seed = 1; seed <= 5; seed++) expect(run(randomCuts(input.length, seed))).toEqual(whole);
  const r = runEngine(input, [], fixtureTools);
  return { calls: r.calls.map((c) => ({ tool: c.tool, input: c.input })), broken: r.summary.broken.map((b) => ({ shape: b.shape, reason: b.reason, tool: b.tool })), text: r.text };
}

describe("HTML <pre> costume (C02/C03): text inside <pre> outside the <code> element", () => {
  test("text after </code> inside <pre>: no call, the text is shown", () => {
    const o = outcome(`<pre><code class="language-bash">ls</code>\nrm -rf build</pre>`);
    expect(o.calls).toEqual([]);
    expect(o.text).toContain("rm -rf build");
  });

  test("text before <code> inside <pre>: no call, the text is shown", () => {
    const o = outcome(`<pre>rm -rf build\n<code class="language-bash">ls</code></pre>`);
    expect(o.calls).toEqual([]);
    expect(o.text).toContain("rm -rf build");
  });

  test("two <code> elements are not one command holding the markup between them", () => {
    const o = outcome(`<pre><code class="language-bash">ls</code><code class="language-bash">rm -rf build</code></pre>`);
    expect(o.calls).toEqual([]);
  });

  test("control: one element with whitespace around it runs", () => {
    expect(outcome(`<pre>\n<code class="language-bash">ls</code>\n</pre>`).calls).toEqual([{ tool: "bash", input: { command: "ls" } }]);
  });
});

describe("XML execute costume (C01): every part of the markup is read", () => {
  const costume = (args: string, name = "execute", argsTag = "<tool_args>") => `<tool_call><tool_name>${name}</tool_name>${argsTag}${args}</tool_args></tool_call>`;

  test("an attribute on <code> refuses the call (the strict reader no longer drops it)", () => {
    const o = outcome(costume(`<language>sh</language><code workdir="/tmp">ls</code>`));
    expect(o.calls).toEqual([]);
    expect(o.broken).toEqual([{ shape: "C01", reason: "broken-markup", tool: "execute" }]);
    // The tolerant reader (raw `<` in the code) too.
    expect(outcome(costume(`<language>sh</language><code workdir="/tmp">test 1 < 2</code>`)).calls).toEqual([]);
  });

  test("an attribute on <tool_args> refuses the call", () => {
    expect(outcome(costume(`<language>sh</language><code>ls</code>`, "execute", `<tool_args timeout="5">`)).calls).toEqual([]);
  });

  test("a call's id on <tool_call> labels it", () => {
    expect(outcome(`<tool_call id="1"><tool_name>execute</tool_name><tool_args><language>sh</language><code>ls</code></tool_args></tool_call>`).calls).toEqual([{ tool: "bash", input: { command: "ls" } }]);
  });

  test("a tool name naming another declared tool does not run the code as bash", () => {
    const o = outcome(costume(`<language>sh</language><code>cat /etc/hosts</code>`, "read"));
    expect(o.calls).toEqual([]);
    expect(o.broken).toEqual([{ shape: "C01", reason: "broken-markup", tool: "read" }]);
    expect(outcome(costume(`<language>sh</language><code>ls</code>`, "frobnicate")).broken.map((b) => b.reason)).toEqual(["undeclared-tool"]);
  });

  test("no language: not run as shell by a default the model never wrote", () => {
    const o = outcome(costume(`<code>print(len("abc"))</code>`));
    expect(o.calls).toEqual([]);
    expect(o.broken.map((b) => b.reason)).toEqual(["broken-markup"]);
  });

  test("control: the catalogue's C01 runs", () => {
    expect(outcome(costume(`<language>sh</language><code>ls -la</code>`)).calls).toEqual([{ tool: "bash", input: { command: "ls -la" } }]);
  });
});
