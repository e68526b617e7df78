/**
 * Review 50 (leaks): recall over the reported leak shapes (docs/PATTERNS.md ids, from the research
 * taxonomy) times the degradations a long-context model writes: cut mid-value, a misspelled
 * closer, unquoted names, the block repeated, the `string=` flag missing or `string="False"`,
 * white space between tags, CRLF, the end-of-sentence token glued on, prose glued before or after,
 * and a second dialect (Hermes) mixed into the reply. Each cell runs whole, char by char and at
 * seeded random splits (outcome(), which asserts they agree) and is classed:
 *   recovered  the calls written, exactly;
 *   refused    no call where the degradation makes the call unreadable (allowed);
 *   missed     no call for a shape and degradation the policy says is Live;
 *   wrong      any call with other arguments, or a call for a shape that must never run.
 * The test pins "wrong = 0" in every cell and Live recall for the layout-only degradations; the
 * numbers are printed (console) for the review report. Findings of this review are in the other
 * review-50-leaks-*.test.ts files; every cell here passes on main.
 */
import { describe, expect, test } from "bun:test";
import { parse } from "../../src/engine/parse.ts";
import { fixtureTools } from "../golden/tools.ts";
import { live } from "../golden/notation.ts";
import { outcome } from "../support/outcome.ts";

type Call = { tool: string; input: Record<string, unknown> };
type Shape = { id: string; text: string; calls: Call[] | "never"; tags?: string[] };
const bash = (command: string): Call => ({ tool: "bash", input: { command } });
const EOS = "<{BAR}end{SP}of{SP}sentence{BAR}>";
const inv = (name: string, params: string) => `<{D}invoke name="${name}">\n${params}\n</{D}invoke>`;
const par = (k: string, v: string, s = "true") => `<{D}parameter name="${k}" string="${s}">${v}</{D}parameter>`;
const blk = (w: string, body: string) => `<{D}${w}>\n${body}\n</{D}${w}>`;

const shapes: Shape[] = [
  { id: "D01", text: blk("function_calls", inv("bash", par("command", "ls -la"))), calls: [bash("ls -la")], tags: ["dsml"] },
  { id: "D02", text: "Let me look.\n\n" + blk("tool_calls", inv("bash", par("command", "ls -la"))), calls: [bash("ls -la")], tags: ["dsml"] },
  { id: "D03", text: blk("tool_calls", inv("bash", par("command", "ls")) + "\n" + inv("read", par("filePath", "/a/b.ts"))), calls: [bash("ls"), { tool: "read", input: { filePath: "/a/b.ts" } }], tags: ["dsml"] },
  { id: "D04", text: `<{D}tool_calls> <{D}invoke name="bash"> <{D}parameter name="command" string="true">ls -la</{D}parameter> </{D}invoke> </{D}tool_calls>`, calls: [bash("ls -la")], tags: ["dsml"] },
  { id: "D05", text: blk("tool_calls", inv("read", par("filePath", "/a/b.ts") + "\n" + par("offset", "10", "false") + "\n" + par("limit", "15", "false"))), calls: [{ tool: "read", input: { filePath: "/a/b.ts", offset: 10, limit: 15 } }], tags: ["dsml", "typed"] },
  { id: "D05b", text: blk("tool_calls", inv("todowrite", par("todos", `[{"content":"a","status":"pending"}]`, "false"))), calls: [{ tool: "todowrite", input: { todos: [{ content: "a", status: "pending" }] } }], tags: ["dsml", "typed"] },
  { id: "W1", text: blk("tool_calls", inv("write", par("filePath", "a.txt") + "\n" + par("content", "line1\nline2"))), calls: [{ tool: "write", input: { filePath: "a.txt", content: "line1\nline2" } }], tags: ["dsml", "multiline"] },
  { id: "E1", text: blk("tool_calls", inv("edit", par("filePath", "a.ts") + "\n" + par("oldString", "a < b && c") + "\n" + par("newString", "a > b || c"))), calls: [{ tool: "edit", input: { filePath: "a.ts", oldString: "a < b && c", newString: "a > b || c" } }], tags: ["dsml"] },
  { id: "M01", text: blk("tool_calls", inv("bash", par("command", "ls -la"))).replaceAll("{D}", "{BAR}{BAR}DSML{BAR}{BAR}"), calls: [bash("ls -la")], tags: ["dsml"] },
  { id: "M02", text: blk("tool_calls", inv("bash", par("command", "ls -la"))).replaceAll("{D}", "|DSML|"), calls: [bash("ls -la")], tags: ["dsml"] },
  { id: "M03", text: blk("tool_calls", inv("bash", par("command", "ls -la"))).replaceAll("{D}", "||DSML||"), calls: [bash("ls -la")], tags: ["dsml"] },
  { id: "M04", text: blk("tool_calls", inv("bash", par("command", "ls -la"))).replaceAll("{D}", " | DSML | "), calls: [bash("ls -la")], tags: ["dsml"] },
  { id: "M05", text: blk("tool_calls", inv("bash", par("command", "ls -la"))).replaceAll("{D}", "{DVL}DSML{DVL}"), calls: [bash("ls -la")], tags: ["dsml"] },
  { id: "M06", text: blk("tool_calls", inv("bash", par("command", "ls -la"))).replaceAll("<{D}", "<{BAR}{BAR}DSML{BAR}{BAR} "), calls: [bash("ls -la")], tags: ["dsml"] },
  { id: "M07", text: `<{D}tool_calls>\n<{D}invoke name="bash">\n<{D}parameter name="command" string="true">ls -la</parameter>\n</{D}invoke>\n</{D}tool_calls>`, calls: [bash("ls -la")], tags: ["dsml"] },
  { id: "M08", text: `<invoke name="read">\n<parameter name="filePath" string="true">/a/b</parameter>\n</invoke>`, calls: [{ tool: "read", input: { filePath: "/a/b" } }], tags: ["naked"] },
  { id: "B01", text: `<{D}toolcalls>\n${inv("bash", par("command", "ls -la"))}\n</{D}tool_calls>`, calls: [bash("ls -la")], tags: ["dsml"] },
  { id: "B02", text: blk("tool_call", inv("bash", par("command", "ls -la"))), calls: [bash("ls -la")], tags: ["dsml"] },
  { id: "B02u", text: blk("tool_use", inv("bash", par("command", "ls -la"))), calls: [bash("ls -la")], tags: ["dsml"] },
  { id: "B03", text: `<{D}tool_calls\n${inv("bash", par("command", "ls -la"))}\n</{D}tool_calls>`, calls: [bash("ls -la")], tags: ["dsml"] },
  { id: "B04", text: `{D}tool_calls>\n{D}invoke name="bash">\n{D}parameter name="command" string="true">ls -la</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`, calls: [bash("ls -la")], tags: ["dsml"] },
  { id: "B05", text: `Running it.\n${inv("bash", par("command", "ls -la"))}\n</{D}tool_calls>`, calls: [bash("ls -la")], tags: ["dsml"] },
  { id: "B05b", text: `Running it.\n${inv("bash", par("command", "ls -la"))}`, calls: [bash("ls -la")], tags: ["dsml"] },
  { id: "B06", text: `${inv("AgenticSearch", par("query", "x"))}`, calls: "never" },
  { id: "B07", text: `Let me check.\n<{D}invoke name="bash">\n<{D}parameter name="command" string="true">git st`, calls: "never" },
  { id: "I01", text: `<{D}tool_calls>\n<{D}invoke name="record_item {\ncategory: x">\n${par("command", "ls")}\n</{D}invoke>\n</{D}tool_calls>`, calls: "never" },
  { id: "I02", text: `<{D}parameter name="edit">\n${par("filePath", "a.kt")}\n${par("oldString", "x")}\n${par("newString", "y")}\n</{D}parameter>`, calls: [{ tool: "edit", input: { filePath: "a.kt", oldString: "x", newString: "y" } }], tags: ["dsml"] },
  { id: "I03", text: blk("tool_calls", inv("bash", par("arguments", `{"command":"ls"}`, "false"))), calls: [bash("ls")], tags: ["dsml"] },
  { id: "I04", text: `<{D}invoke name="read">{"filePath":"/x"}</{D}invoke>`, calls: [{ tool: "read", input: { filePath: "/x" } }], tags: ["dsml"] },
  { id: "I05", text: blk("tool_calls", `<{D}invoke name="bash">\n</{D}invoke>`), calls: "never" },
  { id: "I06", text: blk("tool_calls", inv("", par("command", "ls"))), calls: "never" },
  { id: "I07", text: blk("tool_calls", `<{D}invoke name = 'bash'>\n${par("command", "ls -la")}\n</{D}invoke>`), calls: [bash("ls -la")], tags: ["dsml"] },
  { id: "I08", text: `<{D}tool_calls>\n${inv("bash", par("command", "ls"))}\n<{D}invoke name="read">\n<{D}parameter name="filePath" string="true">/a/b`, calls: [bash("ls")], tags: ["dsml"] },
  { id: "I09", text: `<function><name>bash</name><parameter name="command" string="true">x 2>/dev/null</{BAR}{BAR}DSML{BAR}{BAR}parameter></{BAR}{BAR}DSML{BAR}{BAR}invoke></{BAR}{BAR}DSML{BAR}{BAR}tool_calls>`, calls: [bash("x 2>/dev/null")] },
  { id: "I10", text: "<{D}toolcall>read\n\n```json\n{\"filePath\":\"/tmp/a.js\",\"offset\":100,\"limit\":20}\n```", calls: [{ tool: "read", input: { filePath: "/tmp/a.js", offset: 100, limit: 20 } }] },
  { id: "P01", text: blk("tool_calls", `<{D}invoke name="bash">\n<{D}parameter name="command" string="true">ls -la</{D}invoke>`), calls: [bash("ls -la")], tags: ["dsml"] },
  { id: "P02", text: blk("tool_calls", `<{D}invoke name="read">\n<{D}parameter name="filePath" string="true">/a/b</{D}parametr>\n${par("limit", "5", "false")}\n</{D}invoke>`), calls: [{ tool: "read", input: { filePath: "/a/b", limit: 5 } }], tags: ["dsml"] },
  { id: "P03", text: blk("tool_calls", `<{D}invoke name="bash">\n<{D}parameter name="description" string="true">List files\n${par("command", "ls")}\n</{D}invoke>`), calls: "never" },
  { id: "P04", text: blk("tool_calls", inv("read", `<{D}parameter name="filePath">/a/b</{D}parameter>\n<{D}parameter name="limit">15</{D}parameter>`)), calls: [{ tool: "read", input: { filePath: "/a/b", limit: 15 } }], tags: ["dsml"] },
  { id: "P05", text: blk("tool_calls", inv("bash", `<{D}parameter string="true" name="command">ls -la</{D}parameter>`)), calls: [bash("ls -la")], tags: ["dsml"] },
  { id: "P06", text: blk("tool_calls", inv("bash", par("command", "ls -la", "false"))), calls: [bash("ls -la")], tags: ["dsml"] },
  { id: "P07", text: blk("tool_calls", inv("write", par("filePath", "a.json") + "\n" + par("content", `{"a":1}`))), calls: [{ tool: "write", input: { filePath: "a.json", content: `{"a":1}` } }], tags: ["dsml"] },
  { id: "P08", text: blk("tool_calls", inv("bash", par("command", "a &amp;&amp; b"))), calls: [bash("a && b")], tags: ["dsml"] },
  { id: "P09", text: blk("tool_calls", inv("write", par("filePath", "a.txt") + "\n" + par("content", "\nline1\nline2\n"))), calls: [{ tool: "write", input: { filePath: "a.txt", content: "line1\nline2" } }], tags: ["dsml", "multiline"] },
  { id: "P10", text: blk("tool_calls", inv("bash", par("command", "ls") + "\n" + par("command", "rm -rf /"))), calls: "never" },
  { id: "P11", text: blk("tool_calls", `<{D}invoke name="bash">\n<{D}parameter name="command" string="true">ls -la</{D}parameter\n</{D}invoke>`), calls: [bash("ls -la")], tags: ["dsml"] },
  { id: "L01", text: "<{BAR}tool{SP}calls{SP}begin{BAR}><{BAR}tool{SP}call{SP}begin{BAR}>function<{BAR}tool{SP}sep{BAR}>bash\n```json\n{\"command\":\"ls\"}\n```<{BAR}tool{SP}call{SP}end{BAR}><{BAR}tool{SP}calls{SP}end{BAR}>", calls: [bash("ls")], tags: ["legacy"] },
  { id: "L02", text: "<{BAR}tool{SP}calls{SP}begin{BAR}><{BAR}tool{SP}call{SP}begin{BAR}>bash<{BAR}tool{SP}sep{BAR}>{\"command\":\"ls\"}<{BAR}tool{SP}call{SP}end{BAR}><{BAR}tool{SP}calls{SP}end{BAR}>", calls: [bash("ls")], tags: ["legacy"] },
  { id: "L04", text: "<{BAR}tool calls begin{BAR}><{BAR}tool call begin{BAR}>bash<{BAR}tool sep{BAR}>{\"command\":\"ls\"}<{BAR}tool call end{BAR}><{BAR}tool calls end{BAR}>", calls: [bash("ls")], tags: ["legacy"] },
  { id: "L05", text: "<{BAR}tool{SP}call{SP}begin{BAR}>bash<{BAR}tool{SP}sep{BAR}>{\"command\":\"ls\"}<{BAR}tool{SP}call{SP}end{BAR}>", calls: [bash("ls")], tags: ["legacy"] },
  { id: "L07", text: "<{BAR}tool{SP}calls{SP}begin{BAR}><{BAR}tool{SP}call{SP}begin{BAR}>bash<{BAR}tool{SP}sep{BAR}>{\"command\":\"ls -", calls: "never" },
  { id: "O01", text: `<tool_call>\n{"name": "bash", "arguments": {"command": "ls"}}\n</tool_call>`, calls: [bash("ls")], tags: ["other"] },
  { id: "O02", text: `<tool_call>\n<function=bash>\n<parameter=command>\nls\n</parameter>\n</function>\n</tool_call>`, calls: [bash("ls")], tags: ["other", "xmlish"] },
  { id: "O03", text: `<tool_call>bash\n<arg_key>command</arg_key>\n<arg_value>ls</arg_value>\n</tool_call>`, calls: [bash("ls")], tags: ["other"] },
  { id: "O04", text: `<|tool_calls_section_begin|><|tool_call_begin|>functions.bash:0<|tool_call_argument_begin|>{"command":"ls"}<|tool_call_end|><|tool_calls_section_end|>`, calls: [bash("ls")], tags: ["other"] },
  { id: "O05", text: `<minimax:tool_call>\n<invoke name="bash">\n<parameter name="command">ls</parameter>\n</invoke>\n</minimax:tool_call>`, calls: [bash("ls")], tags: ["other", "xmlish"] },
  { id: "O06", text: `[TOOL_CALLS]bash[ARGS]{"command":"ls"}`, calls: [bash("ls")], tags: ["other"] },
  { id: "O07", text: `<function_calls>\n<invoke name="bash">\n<parameter name="command">ls</parameter>\n</invoke>\n</function_calls>`, calls: [bash("ls")], tags: ["other", "xmlish"] },
  { id: "O08", text: `<|tool_call_start|>[bash(command='ls')]<|tool_call_end|>`, calls: [bash("ls")], tags: ["other"] },
  { id: "C01", text: `<tool_call><tool_name>execute</tool_name><tool_args><language>sh</language><code>ls -la</code></tool_args></tool_call>`, calls: [bash("ls -la")], tags: ["costume"] },
  { id: "C04", text: `<shell>\nls -la\n</shell>`, calls: [bash("ls -la")], tags: ["costume"] },
];

type Deg = { id: string; applies: (s: Shape) => boolean; apply: (t: string) => string; expect?: (c: Call[]) => Call[] | "never" | "either" };
/** Values as a CRLF reply writes them. */
const crlfCalls = (c: Call[]): Call[] => c.map((x) => ({ tool: x.tool, input: Object.fromEntries(Object.entries(x.input).map(([k, v]) => [k, typeof v === "string" ? v.replaceAll("\n", "\r\n") : v])) }));
const isDsml = (s: Shape) => s.tags?.includes("dsml") ?? false;
const all = () => true;
const degs: Deg[] = [
  { id: "none", applies: all, apply: (t) => t },
  { id: "trunc-mid-value", applies: (s) => s.calls !== "never", apply: (t) => t, expect: () => "never" },
  { id: "misspell-param-closer", applies: isDsml, apply: (t) => t.replaceAll("</{D}parameter>", "</{D}parametr>"), expect: () => "either" },
  { id: "misspell-invoke-closer", applies: isDsml, apply: (t) => t.replaceAll("</{D}invoke>", "</{D}invok>"), expect: () => "either" },
  { id: "misspell-block-closer", applies: isDsml, apply: (t) => t.replaceAll("</{D}tool_calls>", "</{D}tool_call>").replaceAll("</{D}function_calls>", "</{D}functions_calls>"), expect: () => "either" },
  { id: "name-unquoted", applies: all, apply: (t) => t.replace(/name="([^"]+)"/g, "name=$1"), expect: () => "either" },
  { id: "block-repeated", applies: all, apply: (t) => t + "\n" + t, expect: (c) => [...c, ...c] },
  { id: "string-missing", applies: isDsml, apply: (t) => t.replaceAll(/ string="(true|false)"/g, "") },
  { id: "string-False", applies: isDsml, apply: (t) => t.replaceAll(/string="(true|false)"/g, 'string="False"') },
  { id: "string-TRUE", applies: isDsml, apply: (t) => t.replaceAll(/string="true"/g, 'string="True"') },
  { id: "ws-between-tags", applies: all, apply: (t) => t.replace(/>\n</g, ">\n \t\n  <") },
  { id: "crlf", applies: all, apply: (t) => t.replaceAll("\n", "\r\n"), expect: crlfCalls },
  { id: "eos-glued", applies: all, apply: (t) => t + EOS },
  { id: "eos-glued-nl", applies: all, apply: (t) => t + "\n" + EOS },
  { id: "prose-after", applies: all, apply: (t) => t + "\n\nDone, the output shows the files." },
  { id: "prose-glued-before", applies: all, apply: (t) => "Let me run it:" + t },
  { id: "mixed-hermes-after", applies: all, apply: (t) => t + `\n<tool_call>\n{"name": "glob", "arguments": {"pattern": "*.ts"}}\n</tool_call>`, expect: (c) => [...c, { tool: "glob", input: { pattern: "*.ts" } }] },
  { id: "mixed-hermes-before", applies: all, apply: (t) => `<tool_call>\n{"name": "glob", "arguments": {"pattern": "*.ts"}}\n</tool_call>\n` + t, expect: (c) => [{ tool: "glob", input: { pattern: "*.ts" } }, ...c] },
];

/** Cuts inside each argument value of a Live shape (half of the value written, then the reply ends). */
function cutsMidValue(s: Shape): string[] {
  const text = live(s.text);
  const out: string[] = [];
  for (const call of s.calls as Call[]) {
    for (const v of Object.values(call.input)) {
      const value = typeof v === "string" ? v : JSON.stringify(v);
      if (value.length < 2) continue;
      const half = value.slice(0, Math.ceil(value.length / 2));
      const at = text.indexOf(half);
      if (at >= 0) out.push(text.slice(0, at + half.length));
    }
  }
  return out;
}

const GLOB: Call = { tool: "glob", input: { pattern: "*.ts" } };
type Cell = { shape: string; deg: string; cls: "recovered" | "refused" | "missed" | "wrong"; calls: Call[] };

/** `cut`: the reply ends mid-value, so the call holding that value must not run (the ones before it may). */
function classify(s: Shape, d: Deg, text: string, cut = false): Cell {
  const o = outcome(text);
  const calls = o.calls as Call[];
  let expected: Call[] | "never" | "either";
  if (s.calls === "never") expected = d.id.startsWith("mixed") ? [GLOB] : "never";
  else expected = d.expect ? d.expect(s.calls) : s.calls;
  const same = (a: Call[], b: Call[]) => JSON.stringify(a) === JSON.stringify(b);
  let cls: Cell["cls"];
  if (expected === "never") cls = calls.length === 0 ? "refused" : "wrong";
  else if (expected === "either") cls = calls.length === 0 ? "refused" : same(calls, s.calls as Call[]) ? "recovered" : "wrong";
  // A Hermes call after a never-shape may sit inside that shape's open value (B07, L07): not running it is no miss.
  else if (calls.length === 0) cls = s.calls === "never" ? "refused" : "missed";
  else if (same(calls, expected)) cls = s.calls === "never" ? "refused" : "recovered";
  // A cut or unreadable later call may leave the earlier ones (I08): a prefix of the calls written is no wrong execution.
  else {
    const list: Call[] = expected;
    cls = calls.every((c, i) => i < list.length && same([c], [list[i]!])) ? "refused" : "wrong";
  }
  if (cut && cls === "recovered") cls = "wrong";
  if (cut && cls === "missed") cls = "refused";
  return { shape: s.id, deg: d.id, cls, calls };
}

/** Layout-only degradations under which every Live shape must still be recovered exactly. */
const MUST_RECOVER = new Set(["none", "crlf", "eos-glued", "eos-glued-nl", "ws-between-tags", "prose-after", "block-repeated"]);
/** Documented exceptions (PATTERNS.md): a code costume needs its opener at a line start (N09). */
const DOCUMENTED_MISSES = new Set(["C04/prose-glued-before"]);

const cells: Cell[] = [];

describe("recall matrix: shapes x degradations, whole / char by char / random splits", () => {
  for (const s of shapes) {
    test(`${s.id}: no wrong execution under any degradation`, () => {
      for (const d of degs) {
        if (!d.applies(s)) continue;
        const texts = d.id === "trunc-mid-value" ? cutsMidValue(s) : [live(d.apply(s.text))];
        for (const text of texts) {
          // A cut keeps the calls before it (I08, D03): a strict prefix of the calls written counts as refused.
          const cell = d.id === "trunc-mid-value" ? classify(s, { ...d, expect: undefined }, text, true) : classify(s, d, text);
          cells.push(cell);
          expect({ cell: `${s.id}/${d.id}`, cls: cell.cls === "wrong" ? cell.calls : "ok" }).toEqual({ cell: `${s.id}/${d.id}`, cls: "ok" });
          if (s.calls !== "never" && MUST_RECOVER.has(d.id) && !DOCUMENTED_MISSES.has(`${s.id}/${d.id}`)) {
            expect({ cell: `${s.id}/${d.id}`, cls: cell.cls }).toEqual({ cell: `${s.id}/${d.id}`, cls: "recovered" });
          }
        }
      }
    });
  }
  test("totals (printed for the report): wrong = 0", () => {
    const count = (cls: Cell["cls"]) => cells.filter((c) => c.cls === cls).length;
    const totals = { tried: cells.length, recovered: count("recovered"), refused: count("refused"), missed: count("missed"), wrong: count("wrong") };
    console.log("review-50 leaks recall:", JSON.stringify(totals), "missed:", cells.filter((c) => c.cls === "missed").map((c) => `${c.shape}/${c.deg}`).join(", "));
    expect(totals.wrong).toBe(0);
    expect(totals.tried).toBeGreaterThan(900);
  });
});

describe("every prefix of a Live leak: the calls that run are a prefix of the calls written, exactly", () => {
  // A reply cut anywhere (max tokens, a dropped connection read as an end) must never run a call
  // with a shortened or defaulted argument: 143,925 prefixes of the recovered cells were checked
  // during the review; this keeps a sample (the layout-only degradations of every Live shape).
  test("whole-text parse() of each prefix", () => {
    let tried = 0;
    for (const s of shapes) {
      if (s.calls === "never") continue;
      for (const d of degs.filter((x) => ["none", "crlf", "eos-glued"].includes(x.id))) {
        const text = live(d.apply(s.text));
        const expected = (d.expect ? (d.expect(s.calls) as Call[]) : s.calls).map((c) => JSON.stringify(c));
        for (let i = 1; i < text.length; i += 1) {
          const got = parse(text.slice(0, i), fixtureTools).calls.map((c) => JSON.stringify({ tool: c.tool, input: c.input }));
          tried++;
          if (!got.every((g, k) => g === expected[k])) expect({ shape: s.id, deg: d.id, cut: i, got }).toEqual({ shape: s.id, deg: d.id, cut: i, got: expected.slice(0, got.length) });
        }
      }
    }
    expect(tried).toBeGreaterThan(10_000);
  }, 120_000);
});
