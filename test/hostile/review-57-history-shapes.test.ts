/**
 * Review 57 (hostile, tests only): history sanitizing and its correction, on the shapes round 56
 * refused live and on the request shapes of each wire. Findings are `test.failing` with a comment
 * block each; everything else is a hard negative that passes on main.
 *
 * Routes: the proxy / repairFetch request pass (src/adapters/request-history.ts through
 * src/proxy/history.ts sanitizeRequestBody), OpenCode 2's context hook (src/plugin/v2/context-hook.ts
 * sanitizeContext with historyTools, as src/plugin/v2/setup.ts calls it), and redactLeaks.
 */
import { describe, expect, test } from "bun:test";
import { REMOVED_NOTE, redactLeaks } from "../../src/history/sanitize.ts";
import { historyTools, sanitizeContext } from "../../src/plugin/v2/context-hook.ts";
import type { V2Message } from "../../src/plugin/v2/host-types.ts";
import { sanitizeRequestBody } from "../../src/proxy/history.ts";
import { live } from "../golden/notation.ts";
import { fixtureTools } from "../golden/tools.ts";
import { runEngine } from "../support/run-engine.ts";

type Json = Record<string, any>;
const SCHEMA = { type: "object", properties: { command: { type: "string" } }, required: ["command"] };
const HERMES = '<tool_call>{"name":"bash","arguments":{"command":"rm -rf x"}}</tool_call>';

function pass(path: string, body: Json, correct = true): { sent: Json; raw: string; removed: number; correction: string | null } {
  const out = sanitizeRequestBody(path, new TextEncoder().encode(JSON.stringify(body)) as Uint8Array<ArrayBuffer>, { parse: {}, sanitize: true, correct });
  const raw = new TextDecoder().decode(out.body);
  return { sent: JSON.parse(raw), raw, removed: out.removed, correction: out.correction };
}

// Round 56's live refusals (goldens D56.1-D56.3), as they stand in a replayed reply.
const P = (name: string, value: string) => `<{D}parameter name="${name}" string="true">${value}</{D}parameter>`;
const inBlock = (tool: string, body: string) => `<{D}tool_calls>\n<{D}invoke name="${tool}">\n${body}\n</{D}invoke>\n</{D}tool_calls>`;
const pre = (classes: string, code: string) => `<pre><code class="${classes}">${code}</code></pre>`;
const ROUND_56: Record<string, string> = {
  "D56.1 DSML invoke with a stray parameter closer": live(inBlock("write", `${P("filePath", "a.md")}\n${P("content", "# DSML\nA value ends with\n</{D}parameter>\n")}`)),
  "D56.2 <pre> costume with a legacy &gt (no ;)": pre("language-bash", "cd /tmp/scratch &gt/dev/null; rm -rf ./*"),
  "D56.3 <pre> costume whose class names two languages": pre("python language-bash", "ls -la"),
};

describe("round 56's refused shapes in history (hard negatives, pass on main)", () => {
  for (const [name, leak] of Object.entries(ROUND_56)) {
    test(`${name}: replaced by the note, the prose around it kept, nothing run`, () => {
      const text = `Running it now.\n\n${leak}\n\nDone.`;
      const out = redactLeaks(text, {}, fixtureTools);
      expect(out.text).toBe(`Running it now.\n\n${REMOVED_NOTE}\n\nDone.`);
      expect(out.nudge).toBe("broken-markup");
    });

    test(`${name}: inside a fence it is documentation, kept byte for byte`, () => {
      const text = `The leak looked like this:\n\n\`\`\`\n${leak}\n\`\`\`\n`;
      expect(redactLeaks(text, {}, fixtureTools)).toEqual({ text, removed: 0, nudge: null, shapes: [] });
    });

    test(`${name}: through the proxy (chat), the newest reply gets the note and one broken-markup correction`, () => {
      const body = {
        model: "m",
        tools: [{ type: "function", function: { name: "bash", parameters: SCHEMA } }, { type: "function", function: { name: "write", parameters: fixtureTools[3]!.parameters } }],
        messages: [{ role: "system", content: "sys" }, { role: "user", content: "go" }, { role: "assistant", content: `OK:\n${leak}` }, { role: "user", content: "?" }],
      };
      const { sent, correction } = pass("/v1/chat/completions", body);
      expect(correction).toBe("broken-markup");
      expect(sent.messages[2].content).toBe(`OK:\n${REMOVED_NOTE}`);
      expect(sent.messages[1]).toEqual(body.messages[1]);
      // Sent again as it went up (the client replays the corrected request): no second correction.
      const again = sanitizeRequestBody("/v1/chat/completions", new TextEncoder().encode(JSON.stringify(sent)) as Uint8Array<ArrayBuffer>, { parse: {}, sanitize: true, correct: true });
      expect(new TextDecoder().decode(again.body).split("Your last reply").length - 1).toBe(1);
    });
  }
});

describe("finding 1: a Responses output_text's annotations keep offsets into the text the note rewrote", () => {
  /*
   * What is wrong: the request pass replaces a leak inside an `output_text` part and leaves its
   * `annotations` (url_citation / file_citation / container_file_citation, each with start_index and
   * end_index into `text`) exactly as sent. Every annotation after the leak now points at other
   * characters, and one near the end points past the text's end.
   * Severity: a request the API may refuse (an index past the text) / client data corrupted (a
   * citation that cites other words). The live repair moves annotations with the shown text (fix 56,
   * src/wires/responses/part-annotations.ts); history does not.
   * Minimal input: input item {type:"message", role:"assistant", content:[{type:"output_text",
   *   text:"Sure.\n<tool_call>{...}</tool_call>\nSee the docs.", annotations:[{url_citation on "docs"}]}]}.
   * Suspected source: src/adapters/request-history.ts redactTurns (writes only the `text` path).
   * Expected: each kept annotation still covers the same characters (shifted by the note's length
   * change), and one whose range lay inside the replaced markup is dropped (or the part keeps it
   * only if it still fits the text).
   * Fixed: the request pass moves a rewritten part's annotations with its text, through the live
   * repair's mover (src/wires/annotations.ts): new start_index/end_index for one whose words are
   * still there, removed when its words were replaced (or would now be the note's); every other
   * field and the item's id as sent. A chat message's annotations over its string content move
   * the same way; Anthropic citations carry no offsets into the block text (src/adapters/request-history.ts).
   */
  const text = `Sure.\n${HERMES}\nSee the docs.`;
  const at = text.indexOf("docs");
  const body = (annotations: Json[]) => ({
    model: "m",
    tools: [{ type: "function", name: "bash", parameters: SCHEMA }],
    input: [
      { role: "user", content: "go" },
      { type: "message", id: "msg_1", role: "assistant", status: "completed", content: [{ type: "output_text", text, annotations }] },
      { role: "user", content: "?" },
    ],
  });

  test("fixed: an annotation after the leak still cites the same words", () => {
    const { sent } = pass("/v1/responses", body([{ type: "url_citation", start_index: at, end_index: at + 4, url: "https://a.example", title: "a" }]));
    const part = sent.input[1].content[0];
    expect(part.text).toBe(`Sure.\n${REMOVED_NOTE}\nSee the docs.`);
    for (const a of part.annotations) {
      expect(a.end_index).toBeLessThanOrEqual(part.text.length);
      expect(part.text.slice(a.start_index, a.end_index)).toBe("docs");
    }
  });

  test("hard negative (passes on main): an annotation before the leak is untouched, and the item keeps its id", () => {
    const { sent } = pass("/v1/responses", body([{ type: "url_citation", start_index: 0, end_index: 4, url: "https://a.example", title: "a" }]));
    const item = sent.input[1];
    expect(item.id).toBe("msg_1");
    expect(item.content[0].annotations).toEqual([{ type: "url_citation", start_index: 0, end_index: 4, url: "https://a.example", title: "a" }]);
    expect(item.content[0].text.slice(0, 4)).toBe("Sure");
  });
});

describe("request shapes that must go up as sent beside a replaced leak (hard negatives, pass on main)", () => {
  test("Messages: thinking and redacted_thinking blocks (signatures, data) keep their bytes; the leak's text block gets the note", () => {
    const thinking = { type: "thinking", thinking: `I will write ${HERMES}`, signature: "EqQBCgIYAhIM+/sig==" };
    const redacted = { type: "redacted_thinking", data: "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT" };
    const body = {
      model: "m",
      max_tokens: 9,
      tools: [{ name: "bash", input_schema: SCHEMA }],
      messages: [
        { role: "user", content: "go" },
        { role: "assistant", content: [thinking, { type: "text", text: `Sure.\n${HERMES}` }, redacted, { type: "text", text: "Done." }] },
        { role: "user", content: "?" },
      ],
    };
    const { sent, raw, correction } = pass("/v1/messages", body);
    expect(sent.messages[1].content).toEqual([thinking, { type: "text", text: `Sure.\n${REMOVED_NOTE}` }, redacted, { type: "text", text: "Done." }]);
    expect(raw).toContain(JSON.stringify(thinking));
    expect(raw).toContain(JSON.stringify(redacted));
    expect(correction).toBe("unexecuted-call");
  });

  test("Responses: a reasoning item with encrypted_content and every item id go up as sent", () => {
    const reasoning = { type: "reasoning", id: "rs_1", encrypted_content: "gAAAAAB+/=", summary: [{ type: "summary_text", text: HERMES }] };
    const body = {
      model: "m",
      tools: [{ type: "function", name: "bash", parameters: SCHEMA }],
      input: [
        { role: "user", content: "go" },
        reasoning,
        { type: "message", id: "msg_1", role: "assistant", status: "completed", content: [{ type: "output_text", text: `Sure.\n${HERMES}`, annotations: [] }] },
        { role: "user", content: "?" },
      ],
    };
    const { sent, raw } = pass("/v1/responses", body);
    expect(sent.input[1]).toEqual(reasoning);
    expect(raw).toContain(JSON.stringify(reasoning));
    expect(sent.input[2]).toEqual({ ...body.input[2], content: [{ type: "output_text", text: `Sure.\n${REMOVED_NOTE}`, annotations: [] }] });
  });

  test("chat: a content array with a refusal part between text parts: the refusal as sent, the leak's part alone gets the note", () => {
    const body = {
      model: "m",
      tools: [{ type: "function", function: { name: "bash", parameters: SCHEMA } }],
      messages: [
        { role: "user", content: "go" },
        { role: "assistant", content: [{ type: "text", text: "Sure." }, { type: "refusal", refusal: HERMES }, { type: "text", text: HERMES }], refusal: HERMES },
        { role: "user", content: "?" },
      ],
    };
    const { sent } = pass("/v1/chat/completions", body, false);
    expect(sent.messages[1]).toEqual({ ...body.messages[1], content: [{ type: "text", text: "Sure." }, { type: "refusal", refusal: HERMES }, { type: "text", text: REMOVED_NOTE }] });
  });
});

describe("finding 2: OpenCode 2's history reads the request's own tools without their parameters", () => {
  /*
   * What is wrong: historyTools (src/plugin/v2/context-hook.ts) turns SessionContext.tools into
   * `{ name }` only, so a shape whose verdict needs the tool's parameters (the tool-named element
   * form O09 / I11, which reads "declared tools and their parameters only") is prose in OpenCode 2's
   * history for every tool that is not a built-in (an MCP server's). The live repair on OpenCode 2
   * (http.request records the declared schemas) acts on the same markup, and HOW-IT-WORKS says "On
   * OpenCode 2 the `context` hook has the request's tools", so the leak is replayed to the model as
   * written, the imitation history sanitizing exists to stop. OpenCode 2 has no second history pass
   * (setup.ts: HttpRepair runs with history.sanitize false).
   * Severity: missed sanitizing.
   * Minimal input: assistant text "<gh_issue>\n<title>x</title>\n</gh_issue>", tools
   *   { gh_issue: { description, input: <JSON Schema with title> } }.
   * Suspected source: src/plugin/v2/context-hook.ts historyTools.
   * Expected: a tool whose `input` is a plain JSON Schema object is read with it (as the wires read a
   * request's declared schema); an input of another form may stay name-only.
   * Fixed: historyTools reads a tool's `input` when it is plain data with `type: "object"` (or no
   * type and a `properties` object) and hands it on as the tool's parameters; any other input (a
   * class instance, a boolean schema, a `$ref` alone, a getter that throws) stays name-only.
   */
  const schema = { type: "object", properties: { title: { type: "string" }, body: { type: "string" } }, required: ["title"] };
  const leak = "<gh_issue>\n<title>x</title>\n<body>y</body>\n</gh_issue>";
  const context = (text: string): V2Message[] => [
    { role: "user", content: [{ type: "text", text: "file it" }] },
    { role: "assistant", content: [{ type: "text", text: `Filing.\n${leak.replace("<gh_issue>", text)}` }] },
    { role: "user", content: [{ type: "text", text: "?" }] },
  ];

  test("oracle (passes on main): the live engine with the declared schema runs the element form", () => {
    const run = runEngine(`Filing.\n${leak}`, [], [{ name: "gh_issue", parameters: schema }]);
    expect(run.calls.map((c) => c.input)).toEqual([{ title: "x", body: "y" }]);
  });

  test("the context hook replaces the MCP tool's element-form leak", () => {
    const messages = context("<gh_issue>");
    sanitizeContext(messages, {}, historyTools({ gh_issue: { description: "File an issue", input: schema } }));
    expect(messages[1]!.content[0]!.text).toBe(`Filing.\n${REMOVED_NOTE}`);
  });

  test("hard negatives: an input of another form stays name-only (its element form is prose); a Hermes call to the tool is replaced either way", () => {
    class Schema {
      type = "object";
      properties = schema.properties;
    }
    const throwing = { get gh_issue(): never { throw new Error("host proxy"); } };
    const others: unknown[] = [new Schema(), true, { $ref: "#/$defs/issue", $defs: { issue: schema } }, { type: "string" }, [schema], "object", throwing];
    for (const input of others) {
      const messages = context("<gh_issue>");
      const offered = input === throwing ? throwing : { gh_issue: { description: "File an issue", input } };
      sanitizeContext(messages, {}, historyTools(offered));
      expect({ input: String(input), text: messages[1]!.content[0]!.text }).toEqual({ input: String(input), text: `Filing.\n${leak}` });
    }
    // Name-only still replaces the shapes that need no parameters (a Hermes call to the tool).
    const hermes: V2Message[] = [
      { role: "user", content: [{ type: "text", text: "file it" }] },
      { role: "assistant", content: [{ type: "text", text: 'Filing.\n<tool_call>{"name":"gh_issue","arguments":{"title":"x"}}</tool_call>' }] },
    ];
    sanitizeContext(hermes, {}, historyTools({ gh_issue: { description: "", input: true } }));
    expect(hermes[1]!.content[0]!.text).toBe(`Filing.\n${REMOVED_NOTE}`);
  });

  test("hard negatives: with the schema, the element form is read as the live engine reads it", () => {
    // A tag the schema does not declare is no parameter: the element stays prose, as live.
    const stray = context("<gh_issue>").map((message, index) =>
      index === 1 ? { ...message, content: [{ type: "text", text: "Filing.\n<gh_issue>\n<label>x</label>\n</gh_issue>" }] } : message,
    );
    sanitizeContext(stray, {}, historyTools({ gh_issue: { description: "", input: schema } }));
    expect(stray[1]!.content[0]!.text).toBe("Filing.\n<gh_issue>\n<label>x</label>\n</gh_issue>");
    expect(runEngine("Filing.\n<gh_issue>\n<label>x</label>\n</gh_issue>", [], [{ name: "gh_issue", parameters: schema }]).calls).toEqual([]);
    // Inside a fence it is documentation, kept byte for byte.
    const fenced = context("<gh_issue>").map((message, index) =>
      index === 1 ? { ...message, content: [{ type: "text", text: `Like this:\n\`\`\`xml\n${leak}\n\`\`\`` }] } : message,
    );
    sanitizeContext(fenced, {}, historyTools({ gh_issue: { description: "", input: schema } }));
    expect(fenced[1]!.content[0]!.text).toBe(`Like this:\n\`\`\`xml\n${leak}\n\`\`\``);
    // A user's own message holding the element form is never touched.
    const user: V2Message[] = [{ role: "user", content: [{ type: "text", text: leak }] }];
    sanitizeContext(user, {}, historyTools({ gh_issue: { description: "", input: schema } }));
    expect(user[0]!.content[0]!.text).toBe(leak);
  });

  test("hard negative (passes on main): a built-in's element form (<read>) is replaced there, the user's text kept", () => {
    const messages: V2Message[] = [
      { role: "user", content: [{ type: "text", text: "<read>\n<filePath>a.ts</filePath>\n</read>" }] },
      { role: "assistant", content: [{ type: "text", text: "Reading.\n<read>\n<filePath>a.ts</filePath>\n</read>" }] },
    ];
    sanitizeContext(messages, {}, historyTools({ gh_issue: { description: "", input: schema } }));
    expect(messages[1]!.content[0]!.text).toBe(`Reading.\n${REMOVED_NOTE}`);
    expect(messages[0]!.content[0]!.text).toBe("<read>\n<filePath>a.ts</filePath>\n</read>");
  });
});

describe("finding 3 (live, found on the way): the element form of a tool whose name is 17+ characters runs whole, not streamed", () => {
  /*
   * What is wrong: `<NAME>\n<title>x</title>\n</NAME>` for a declared tool NAME of 17 characters or
   * more (`github_create_issue`, the usual OpenCode MCP name `server_tool`) is recovered when the
   * engine is fed the whole reply, and passes through as text fed char by char (seeded random splits
   * run it). The whole / char by char / random splits agreement every stream test asserts breaks;
   * a streamed reply (small deltas) misses the call. Names of up to 16 characters agree.
   * Severity: missed call (no wrong execution: the streamed path runs nothing and nudges nothing).
   * Minimal input: "<abcdefghijklmnopq>\n<title>x</title>\n</abcdefghijklmnopq>" with that tool declared.
   * Suspected source: a 16-character bound on a held tag name in the streamed text mode
   * (src/engine/doc-block-opener.ts "at most 16", or src/engine/doc-tag-reader.ts), which gives up
   * on the opener before the name is complete.
   * Expected: the same outcome at every split (the call, as whole).
   * Fixed: the O09 opener at a line start holds while the text ends inside a prefix of a declared
   * name, up to and including the longest declared name (src/engine/tagless-openers.ts elementAt:
   * its hold bound counted the `<`, so a split right after the whole longest name let the opener go
   * as text; the tag reader's 16-character namespace wait hid it for shorter names). The prefix is
   * found by binary search in the sorted names, so the hold costs O(name) whatever the tool count.
   * test/hostile/fx57-engine-long-names.test.ts runs names of 1 to 200 characters at every split.
   */
  const tool = (name: string) => [{ name, parameters: { type: "object", properties: { title: { type: "string" } }, required: ["title"] } }];
  const element = (name: string) => `<${name}>\n<title>x</title>\n</${name}>`;
  const charByChar = (text: string) => Array.from({ length: text.length - 1 }, (_, i) => i + 1);

  test("github_create_issue (19 characters): char by char runs what whole runs", () => {
    const text = element("github_create_issue");
    const whole = runEngine(text, [], tool("github_create_issue"));
    const chars = runEngine(text, charByChar(text), tool("github_create_issue"));
    expect(whole.calls.map((c) => c.input)).toEqual([{ title: "x" }]);
    expect(chars.calls.map((c) => c.input)).toEqual([{ title: "x" }]);
  });

  test("hard negative (passes on main): a 16-character name agrees whole and char by char", () => {
    const name = "github_issue_new";
    const text = element(name);
    expect(runEngine(text, charByChar(text), tool(name)).calls.map((c) => c.input)).toEqual([{ title: "x" }]);
    expect(runEngine(text, [], tool(name)).calls.map((c) => c.input)).toEqual([{ title: "x" }]);
  });
});
