// Findings of the stop 40 hostile review of the day's new code, skipped until each is fixed;
// every fixer un-skips its own, moves it beside its kind, and the file goes once it is empty.
/**
 * Hostile review of the code that landed on 2026-12-06 (e1985a9..main). Every test here fails on
 * main at 811d475 for the reason its name gives; see the review report for root causes.
 */
import { describe, expect, test } from "bun:test";
import { repairFetch } from "../../src/adapters/fetch.ts";
import { REMOVED_NOTE, redactLeaks } from "../../src/history/sanitize.ts";
import { RetryController } from "../../src/plugin/retry-controller.ts";
import { live } from "../golden/notation.ts";
import { fixtureTools } from "../golden/tools.ts";
import { runAtEverySplit } from "../support/run-engine.ts";

const outcome = (notation: string) => {
  const r = runAtEverySplit(live(notation), fixtureTools);
  return { calls: r.calls.map((c) => ({ tool: c.tool, input: c.input })), text: r.text };
};

describe("costume read on past a closer: an example inside its code runs on its own", () => {
  // One shell costume writing a document with a heredoc; the document mentions `</shell>` and
  // shows a `<bash>` example. The costume's own closer ends its line at the end. The example is
  // the heredoc's text, yet it runs (A40.16's rule), while the command the model wrote does not.
  test.skip("a <bash> example inside a <shell> heredoc never runs", () => {
    const o = outcome("<shell>cat > doc.md <<'EOF'\nEnd the block with </shell> on its own line.\n<bash>rm -rf build</bash>\nEOF\n</shell>\n");
    expect(o.calls.filter((c) => c.input.command === "rm -rf build")).toEqual([]);
  });

  test.skip("a <tool_call> example inside a <shell> heredoc never runs", () => {
    const o = outcome(`<shell>cat > doc.md <<'EOF'\nEnd the block with </shell> here.\n<tool_call>\n{"name": "bash", "arguments": {"command": "rm -rf build"}}\n</tool_call>\nEOF\n</shell>\n`);
    expect(o.calls.filter((c) => c.input.command === "rm -rf build")).toEqual([]);
  });
});

describe("history: the second pass reads an example the live repair kept as documentation as a live leak", () => {
  // The cut-off value's line opens inline code (or an HTML comment) that holds the example after
  // it; live, the example stays text (no call). History replaces the broken span, that opener with
  // it, and its second pass then replaces the example too: the documentation is gone from replay.
  const INV = `<{D}invoke name="bash">\n<{D}parameter name="command" string="true">rm -rf /</{D}parameter>\n</{D}invoke>`;
  const cases: [string, string][] = [
    ["inline code opened on the cut-off line", "<{D}tool_calls>\n<{D}invoke name=\"bash\">\n<{D}parameter name=\"command\" string=\"true\">ls `\n" + INV + "\n` done\n"],
    ["an HTML comment opened on the cut-off line", `<{D}tool_calls>\n<{D}invoke name="bash">\n<{D}parameter name="command" string="true">ls <!-- old:\n${INV}\n-->\n`],
  ];
  test.skip.each(cases)("%s: live it is text, and history keeps it (one note, for the broken span only)", (_name, notation) => {
    expect(outcome(notation).calls).toEqual([]);
    const r = redactLeaks(live(notation), {}, fixtureTools);
    expect(r.removed).toBe(1);
    expect(r.text).toContain(live(INV));
  });
});

// ------------------------------------------------------------------ request history (withBody)

const GLM = "<tool_call>mcp__db__list_tables</tool_call>";
const MCP_TOOL = { type: "function", function: { name: "mcp__db__list_tables", parameters: { type: "object", properties: {} } } };
const URL_CHAT = "http://model.test/v1/chat/completions";
const chatText = (said: string) =>
  `{"model":"m","tools":${JSON.stringify([MCP_TOOL])},"messages":[{"role":"user","content":"list them"},{"role":"assistant","content":${JSON.stringify(`Listing.\n${said}`)}},{"role":"user","content":"and?"}]}`;

function recorder() {
  const sent: { text: string; headers: Headers }[] = [];
  const base = async (input: string | URL | Request, init?: RequestInit) => {
    const request = new Request(input, init);
    sent.push({ text: await request.text(), headers: new Headers(request.headers) });
    return new Response(JSON.stringify({ choices: [{ index: 0, message: { role: "assistant", content: "ok" }, finish_reason: "stop" }] }), { status: 200, headers: { "content-type": "application/json" } });
  };
  return { base: base as typeof fetch, sent };
}

describe("history pass: the rewritten request keeps a consistent body and headers", () => {
  test.skip("a Request plus init headers stating content-length: the stale length is not forwarded", async () => {
    const { base, sent } = recorder();
    const old = chatText(GLM);
    const request = new Request(URL_CHAT, { method: "POST", body: old });
    await repairFetch({}, base)(request, { headers: { "content-type": "application/json", "content-length": String(old.length) } });
    expect(sent[0]!.text).toBe(chatText(REMOVED_NOTE));
    const length = sent[0]!.headers.get("content-length");
    expect(length === null || length === String(new TextEncoder().encode(sent[0]!.text).length)).toBe(true);
  });
});

// ------------------------------------------------------------------ retry

describe("retry: one wake per user message", () => {
  const make = () => {
    const wakes: string[] = [];
    const retry = new RetryController({ enabled: true, nudge: true, channel: "system" }, async (_s, text) => void wakes.push(text));
    return { retry, wakes };
  };

  test.skip("a woken turn that leaked again blocks every later user message's wake (awaitingWake never cleared)", async () => {
    const { retry, wakes } = make();
    retry.takeCorrectionFor("s", { id: "u1", text: "run the tests" });
    retry.onReply("s", "u1", 0, "broken-markup");
    expect(await retry.onIdle("s")).toBe(true);
    // The wake's own turn leaks again: no second wake for u1 (right).
    retry.takeCorrectionFor("s", { id: "w1", text: wakes[0] });
    retry.onReply("s", "w1", 0, "broken-markup");
    expect(await retry.onIdle("s")).toBe(false);
    // The user writes again and that reply leaks: u2 has had no wake of its own.
    retry.takeCorrectionFor("s", { id: "u2", text: "please try again" });
    retry.onReply("s", "u2", 0, "broken-markup");
    expect(await retry.onIdle("s")).toBe(true);
  });

  test.skip("the user aborts the woken turn: the next user message's leak still gets its wake", async () => {
    const { retry, wakes } = make();
    retry.takeCorrectionFor("s", { id: "u1", text: "run the tests" });
    retry.onReply("s", "u1", 0, "broken-markup");
    expect(await retry.onIdle("s")).toBe(true);
    retry.takeCorrectionFor("s", { id: "w1", text: wakes[0] });
    retry.onAbort("s");
    retry.takeCorrectionFor("s", { id: "u2", text: "ok now really" });
    retry.onReply("s", "u2", 0, "broken-markup");
    expect(await retry.onIdle("s")).toBe(true);
  });
});
