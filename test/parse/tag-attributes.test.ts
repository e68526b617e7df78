/**
 * Every attribute of a structural tag is read, or the call is refused (docs/PATTERNS.md, "Unread
 * parameters"). A tag that names one attribute twice (`name="read" name="bash"`) is ambiguous in
 * every dialect that reads tags: the scanner flags it (Flaw.RepeatedAttr) and no call is built on
 * it, whichever value a dialect would have read. An invoke or parameter opener is read for `name`
 * and a true/false `string` hint only; any other attribute could carry an argument, so it breaks
 * the call. A wrapped tool (I02) whose wrapper names another tool than its invoke is refused too.
 * Each test pairs the refusal with the control that still runs, and every case is run whole, char
 * by char and at seeded random splits (the outcome must not depend on the split).
 */
import { describe, expect, test } from "bun:test";
import { Flaw, readTag, type Tag } from "../../src/grammar/tags.ts";
import { live } from "../golden/notation.ts";
import { fixtureTools } from "../golden/tools.ts";
import { runAtEverySplit } from "../support/run-engine.ts";

/** Calls and broken spans of a run, asserted the same at every split. */
function outcome(notation: string) {
  const input = live(notation);
  const r = runAtEverySplit(input, fixtureTools);
  return {
    calls: r.calls.map((c) => ({ tool: c.tool, input: c.input })),
    broken: r.summary.broken.map((b) => ({ shape: b.shape, reason: b.reason, tool: b.tool })),
  };
}

const refused = (notation: string) => {
  const o = outcome(notation);
  expect(o.calls).toEqual([]);
  expect(o.broken.length).toBeGreaterThan(0);
  for (const b of o.broken) expect(b.reason).toBe("broken-markup");
  return o.broken;
};

const runs = (notation: string, tool: string, input: Record<string, unknown>) => expect(outcome(notation).calls).toEqual([{ tool, input }]);

const dsml = (invokeAttrs: string, body: string) => `<{D}tool_calls>\n<{D}invoke ${invokeAttrs}>\n${body}\n</{D}invoke>\n</{D}tool_calls>`;
const param = (attrs: string, value: string) => `<{D}parameter ${attrs}>${value}</{D}parameter>`;
const claude = (invokeAttrs: string, body: string) => `<function_calls>\n<invoke ${invokeAttrs}>\n${body}\n</invoke>\n</function_calls>`;
const minimax = (invokeAttrs: string, body: string) => `<minimax:tool_call>\n<invoke ${invokeAttrs}>\n${body}\n</invoke>\n</minimax:tool_call>`;

describe("the tag scanner flags a repeated attribute", () => {
  const read = (text: string) => readTag(live(text), 0, true) as Tag;

  test("a name written twice, in any case, is flagged and the first value kept; one name is not flagged", () => {
    for (const text of ['<{D}invoke name="read" name="bash">', '<{D}parameter NAME="description" name="command">', '<invoke name="read" Name=\'bash\'>', '<tool_call name="read" name="bash">']) {
      const tag = read(text);
      expect(tag.flaws & Flaw.RepeatedAttr).toBe(Flaw.RepeatedAttr);
      expect(Object.keys(tag.attrs)).toEqual(["name"]);
    }
    for (const text of ['<{D}invoke name="bash">', '<{D}parameter name="command" string="true">', '<invoke name="bash">', '<tool_call name="bash">']) {
      expect(read(text).flaws & Flaw.RepeatedAttr).toBe(0);
    }
  });
});

describe("a tag naming its tool twice runs neither tool", () => {
  test("DSML invoke `name=\"read\" name=\"bash\"`: refused, and the nudge names no tool; one name runs", () => {
    const broken = refused(dsml('name="read" name="bash"', param('name="command" string="true"', "rm -rf ~")));
    expect(broken.every((b) => b.tool === undefined)).toBe(true);
    runs(dsml('name="bash"', param('name="command" string="true"', "ls")), "bash", { command: "ls" });
  });

  test("Claude-style and MiniMax invoke with two names: refused; one name runs", () => {
    refused(claude('name="read" name="bash"', '<parameter name="command">rm -rf ~</parameter>'));
    refused(minimax('name="read" name="bash"', '<parameter name="command">rm -rf ~</parameter>'));
    runs(claude('name="bash"', '<parameter name="command">ls</parameter>'), "bash", { command: "ls" });
    runs(minimax('name="bash"', '<parameter name="command">ls</parameter>'), "bash", { command: "ls" });
  });

  test("`<tool_call name=\"read\" name=\"bash\">` (T01): refused with no tool named; one name runs", () => {
    const broken = refused('<tool_call name="read" name="bash">{"command": "rm -rf ~"}</tool_call>');
    expect(broken).toEqual([{ shape: "T01", reason: "broken-markup", tool: undefined }]);
    runs('<tool_call name="bash">{"command": "ls"}</tool_call>', "bash", { command: "ls" });
  });
});

describe("a tag naming its parameter twice", () => {
  test("DSML parameter `name=\"description\" name=\"command\"`: refused; one name runs", () => {
    refused(dsml('name="bash"', param('name="description" name="command" string="true"', "rm -rf ~")));
    runs(dsml('name="bash"', param('name="command" string="true"', "ls")), "bash", { command: "ls" });
  });

  test("the repeat in another case (`NAME=` then `name=`) is the same attribute", () => {
    refused(dsml('name="bash"', param('NAME="description" name="command" string="true"', "rm -rf ~")));
    runs(dsml('name="bash"', param('NAME="command" string="true"', "ls")), "bash", { command: "ls" });
  });

  test("Claude-style parameter named twice: refused", () => {
    refused(claude('name="bash"', '<parameter name="description" name="command">rm -rf ~</parameter>'));
  });

  test("a self-closing parameter with two values (`value=` twice): refused; one value runs (P12)", () => {
    refused(dsml('name="bash"', '<{D}parameter name="command" value="ls" value="rm -rf ~" />'));
    runs(dsml('name="bash"', '<{D}parameter name="command" value="ls" />'), "bash", { command: "ls" });
  });
});

describe("a repeated type hint or structural attribute", () => {
  test("`string=\"true\" string=\"false\"`: refused; either hint alone is still honoured", () => {
    const cmd = param('name="command" string="true"', "ls");
    refused(dsml('name="bash"', `${cmd}\n${param('name="timeout" string="true" string="false"', "600")}`));
    // string="false": the value is JSON, so 600 is a number.
    runs(dsml('name="bash"', `${cmd}\n${param('name="timeout" string="false"', "600")}`), "bash", { command: "ls", timeout: 600 });
    // string="true" for a string parameter: read as written.
    runs(dsml('name="bash"', `${cmd}\n${param('name="description" string="true"', "600")}`), "bash", { command: "ls", description: "600" });
  });

  test("a block tag with a repeated attribute breaks its calls", () => {
    const body = `<{D}invoke name="bash">\n${param('name="command" string="true"', "ls")}\n</{D}invoke>`;
    refused(`<{D}tool_calls id="1" id="2">\n${body}\n</{D}tool_calls>`);
    runs(`<{D}tool_calls>\n${body}\n</{D}tool_calls>`, "bash", { command: "ls" });
  });

  test("a parameter closer with a repeated attribute breaks its call", () => {
    refused(dsml('name="bash"', '<{D}parameter name="command" string="true">ls</{D}parameter name="a" name="b">'));
  });

  test("code costumes: `lang=` twice on code_interpreter, `class=` twice on a pre's code: refused; once runs", () => {
    refused('<code_interpreter lang="python" lang="bash">\nprint(1)\n</code_interpreter>');
    refused('<pre><code class="language-bash" class="language-python">ls</code></pre>');
    expect(outcome('<code_interpreter lang="python">\nprint(1)\n</code_interpreter>').calls.length).toBe(1);
    runs('<pre><code class="language-bash">ls</code></pre>', "bash", { command: "ls" });
  });

  test("a repeated attribute inside a value is the value's text, not structure", () => {
    // A file being written that holds such a tag: the call runs; the same tag as structure does not.
    const content = '<invoke name="a" name="b"></invoke>';
    runs(
      dsml('name="write"', `${param('name="filePath" string="true"', "a.xml")}\n${param('name="content" string="true"', content)}`),
      "write",
      { filePath: "a.xml", content },
    );
    refused(dsml('name="write"', `${param('name="filePath" string="true"', "a.xml")}\n${param('name="x" name="content" string="true"', "y")}`));
  });
});

describe("an attribute that could carry an argument must be read, or the call is refused", () => {
  test("`value=` beside a parameter's body: refused; the body alone runs", () => {
    refused(dsml('name="bash"', param('name="command" string="true" value="rm -rf ~"', "ls")));
    runs(dsml('name="bash"', param('name="command" string="true"', "ls")), "bash", { command: "ls" });
  });

  test("a `string=` that is no true/false hint, beside a body: refused; the hint runs, in any case, and an empty one is no hint", () => {
    refused(dsml('name="bash"', param('name="command" string="rm -rf ~"', "ls")));
    refused(dsml('name="bash"', param('name="command" string="yes"', "ls")));
    runs(dsml('name="bash"', param('name="command" string="true"', "ls")), "bash", { command: "ls" });
    runs(dsml('name="bash"', param('name="command" string="TRUE"', "ls")), "bash", { command: "ls" });
    runs(dsml('name="bash"', param('name="command" string="True"', "ls")), "bash", { command: "ls" });
    runs(dsml('name="bash"', param('name="command" string=""', "ls")), "bash", { command: "ls" });
    // `False` asks for JSON as `false` does: a number parameter gets the number.
    runs(dsml('name="read"', `${param('name="filePath" string="true"', "/a")}\n${param('name="limit" string="False"', "5")}`), "read", { filePath: "/a", limit: 5 });
  });

  test("labels that carry no argument: a call's id, index or type on the invoke, a Claude-style type on a parameter; others still refuse", () => {
    runs(dsml('name="bash" id="call_0"', param('name="command" string="true"', "ls")), "bash", { command: "ls" });
    runs(dsml('name="bash" index="0"', param('name="command" string="true"', "ls")), "bash", { command: "ls" });
    runs(dsml('name="bash"', param('name="command" type="string"', "ls")), "bash", { command: "ls" });
    refused(dsml('name="bash"', param('name="command" id="x"', "ls")));
    refused(dsml('name="bash" timeout="5"', param('name="command" string="true"', "ls")));
  });

  test("an argument written on the invoke (`verbose=\"true\"`, empty body): refused; the bare invoke runs with {}", () => {
    refused(dsml('name="list_sessions" verbose="true"', ""));
    runs(dsml('name="list_sessions"', ""), "list_sessions", {});
  });

  test("an argument written on the invoke beside parameters (`workdir=\"/\"`): refused; without it runs", () => {
    refused(dsml('name="bash" workdir="/"', param('name="command" string="true"', "rm -rf build")));
    runs(dsml('name="bash"', param('name="command" string="true"', "rm -rf build")), "bash", { command: "rm -rf build" });
    // The true/false type hint is no argument, on the invoke as on a parameter.
    runs(dsml('name="bash" string="true"', param('name="command" string="true"', "ls")), "bash", { command: "ls" });
  });

  test("Claude-style and MiniMax parameters with `value=`: refused; plain parameters run", () => {
    refused(claude('name="bash"', '<parameter name="command" value="rm -rf ~">ls</parameter>'));
    refused(minimax('name="bash"', '<parameter name="command" value="rm -rf ~">ls</parameter>'));
    refused(claude('name="bash" workdir="/"', '<parameter name="command">ls</parameter>'));
    runs(claude('name="bash"', '<parameter name="command">ls</parameter>'), "bash", { command: "ls" });
  });

  test("the element form's `<function>` carries no attribute: `<function name=\"read\">` beside `<name>bash</name>` is refused", () => {
    const element = (attrs: string) => `<function_calls>\n<function${attrs}><name>bash</name>\n<parameter name="command">ls</parameter>\n</function>\n</function_calls>`;
    refused(element(' name="read"'));
    runs(element(""), "bash", { command: "ls" });
  });
});

describe("a wrapped tool (I02) whose wrapper names another tool than its invoke", () => {
  const wrapped = (invoke: string, wrapper: string) =>
    dsml(`name="${invoke}"`, `<{D}parameter name="${wrapper}">\n${param('name="command" string="true"', "rm -rf ~")}\n</{D}parameter>`);

  test("invoke bash, wrapper read: refused with no tool named; the same name on both runs", () => {
    const broken = refused(wrapped("bash", "read"));
    expect(broken).toEqual([{ shape: "I02", reason: "broken-markup", tool: undefined }]);
    runs(wrapped("bash", "bash"), "bash", { command: "rm -rf ~" });
  });
});

describe("`<tool_call>` opener attributes, whatever the body (review args, finding 6)", () => {
  // Checked only beside `name=` (T01) before: the Hermes, Qwen3-Coder and GLM bodies ran without the attribute.
  const hermes = '\n{"name": "bash", "arguments": {"command": "sleep 1000"}}\n</tool_call>';
  const qwen = "\n<function=bash>\n<parameter=command>\nls\n</parameter>\n</function>\n</tool_call>";
  const glm = "bash\n<arg_key>command</arg_key>\n<arg_value>ls</arg_value>\n</tool_call>";

  test("an attribute no body reads refuses the Hermes, Qwen3-Coder, GLM and XML-costume bodies", () => {
    expect(refused(`<tool_call timeout="600">${hermes}`)).toEqual([{ shape: "O01", reason: "broken-markup", tool: "bash" }]);
    expect(refused(`<tool_call workdir="/tmp">${qwen}`)).toEqual([{ shape: "O02", reason: "broken-markup", tool: "bash" }]);
    expect(refused(`<tool_call workdir="/tmp">${glm}`)).toEqual([{ shape: "O03", reason: "broken-markup", tool: "bash" }]);
    refused(`<tool_call workdir="/tmp"><tool_name>execute</tool_name><tool_args><language>sh</language><code>ls</code></tool_args></tool_call>`);
  });

  test("`name=` is read by T01's JSON body only: beside a Qwen3-Coder or GLM body it is refused", () => {
    refused(`<tool_call name="read">${qwen}`);
    refused(`<tool_call name="read">${glm}`);
  });

  test("a call's id labels it: every body still runs with it, and without any attribute", () => {
    runs(`<tool_call id="call_1">${hermes}`, "bash", { command: "sleep 1000" });
    runs(`<tool_call id="call_1">${qwen}`, "bash", { command: "ls" });
    runs(`<tool_call id="call_1">${glm}`, "bash", { command: "ls" });
    runs(`<tool_call>${glm}`, "bash", { command: "ls" });
    refused(`<tool_call id="1" id="2">${glm}`);
  });
});

describe("GLM (O03) pair tags carry no attribute, and a value is never taken from another pair (review args, finding 1)", () => {
  // element() searched for the exact text `<arg_value>`: an opener with an attribute was skipped and
  // the next pair's value taken, so bash ran the description's text as its command.
  const glm = (pairs: string) => `<tool_call>bash\n${pairs}\n</tool_call>`;

  test("`<arg_value id=\"1\">`: refused, never bash {command: <the next pair's value>}", () => {
    expect(refused(glm('<arg_key>command</arg_key>\n<arg_value id="1">echo hi</arg_value>\n<arg_key>description</arg_key>\n<arg_value>rm -rf build</arg_value>'))).toEqual([
      { shape: "O03", reason: "broken-markup", tool: "bash" },
    ]);
  });

  test("an attribute on a key opener or on either closer, or a self-closing value: refused", () => {
    refused(glm('<arg_key id="1">description</arg_key>\n<arg_value>remove the build</arg_value>\n<arg_key>command</arg_key>\n<arg_value>ls</arg_value>'));
    refused(glm('<arg_key>command</arg_key x="1">\n<arg_value>ls</arg_value>'));
    refused(glm('<arg_key>command</arg_key>\n<arg_value>ls</arg_value x="1">'));
    refused(glm("<arg_key>command</arg_key>\n<arg_value/>ls</arg_value>"));
  });

  test("control: the same pairs without attributes run, in order, on one line or several", () => {
    runs(glm("<arg_key>command</arg_key>\n<arg_value>echo hi</arg_value>\n<arg_key>description</arg_key>\n<arg_value>rm -rf build</arg_value>"), "bash", {
      command: "echo hi",
      description: "rm -rf build",
    });
    runs("<tool_call>bash<arg_key>command</arg_key><arg_value>ls</arg_value><arg_key>description</arg_key><arg_value>list</arg_value></tool_call>", "bash", { command: "ls", description: "list" });
  });
});

describe("code_interpreter (C07): lang= and language= (review args, finding 12)", () => {
  test("two language attributes naming different languages: refused (lang= won in silence); agreeing ones run", () => {
    refused('<code_interpreter type="code" lang="python" language="bash">print(1)</code_interpreter>\n');
    refused('<code_interpreter lang="bash" language="python">ls</code_interpreter>\n');
    runs('<code_interpreter lang="bash" language="sh">ls</code_interpreter>\n', "bash", { command: "ls" });
    runs('<code_interpreter language="bash">ls</code_interpreter>\n', "bash", { command: "ls" });
  });
});
