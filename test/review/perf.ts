/**
 * Review (over-reach): work shape of the new restart and closer rules on ~100,000-character
 * adversarial replies, fed whole and char by char, old (e1985a9) beside current. Prints seconds;
 * a script, not a test (no timing assertions anywhere): `bun test/review/perf.ts`.
 */
import { createRepairEngine } from "../../src/engine/engine.ts";
import { fixtureTools } from "../golden/tools.ts";
import { live } from "../golden/notation.ts";

const OLD = process.env.OLD_ROOT ?? "/work/wt/old-e1985a9";
const { createRepairEngine: oldEngine } = await import(`${OLD}/src/engine/engine.ts`);
const SIZE = Number(process.env.SIZE ?? 100_000);

const fill = (head: string, unit: string, tail = "") => live(head) + live(unit).repeat(Math.ceil((SIZE - head.length) / live(unit).length)) + live(tail);

const cases: [string, string][] = [
  ["restart: invoke openers, none closed", fill("<{D}tool_calls>\n", '<{D}invoke name="bash">\n<{D}parameter name="command" string="true">ls\n')],
  ["restart: block openers inside an open invoke", fill('<{D}tool_calls>\n<{D}invoke name="bash">\n<{D}parameter name="command" string="true">ls\n', "<{D}tool_calls>\n")],
  ["restart: naked invokes, none closed", fill("<function_calls>\n", '<invoke name="bash">\n<parameter name="command">ls\n')],
  ["P01 closers with text in one value", fill('<{D}tool_calls>\n<{D}invoke name="write">\n<{D}parameter name="filePath" string="true">/a</{D}parameter>\n<{D}parameter name="content" string="true">', "x</{D}invoke> y\n", "</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>")],
  ["P01 closers with text, never closed", fill('<{D}tool_calls>\n<{D}invoke name="write">\n<{D}parameter name="content" string="true">', "x</{D}invoke> y\n")],
  ["P01 closers glued, no newline", fill('<{D}tool_calls>\n<{D}invoke name="write">\n<{D}parameter name="content" string="true">', "x</{D}invoke>y")],
  ["costume closers with text", fill("<shell>\n", "ls</shell> x\n")],
  ["costume closers glued", fill("<shell>\n", "ls</shell>x")],
  ["costume openers and closers with text", fill("", "<shell>\nls\n</shell>ok\n")],
  ["pre with text after", fill("", "<pre><code>shell\nls\n</code></pre> x\n")],
  ["Qwen function closers in a value", fill("<tool_call>\n<function=bash>\n<parameter=command>\n", "a</function> b\n")],
  ["many </arg_value> in one GLM value", fill("<tool_call>bash\n<arg_key>command</arg_key>\n<arg_value>", "a</arg_value>")],
  ["many GLM T02 calls", fill("", "<tool_call>list_sessions</arg_value>")],
  ["many GLM T02 calls with spaces", fill("", "<tool_call>list_sessions</arg_value>\n    ")],
  ["MiniMax wrapper with prose lines", fill('<minimax:tool_call>\n<invoke name="bash">\n<parameter name="command">ls</parameter>\n</invoke>\n', "prose line\n")],
  ["lone leading newlines", fill("<{D}tool_calls>\n", '<{D}invoke name="bash">\n<{D}parameter name="command" string="true">\nls</{D}parameter>\n</{D}invoke>\n')],
  ["echoed call tail pieces", fill('<{D}tool_calls>\n<{D}invoke name="bash">\n<{D}parameter name="command" string="true">ls</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>\n', "x <shell>\npwd\n</shell>\n")],
];

function run(create: any, input: string, charByChar: boolean, limit?: number): { s: number; calls: number; text: number } {
  const t0 = performance.now();
  const e = create({ tools: fixtureTools, idPrefix: "c_", ...(limit ? { bufferLimit: limit } : { bufferLimit: Number.MAX_SAFE_INTEGER }) });
  let calls = 0;
  let text = 0;
  const take = (ev: any[]) => {
    for (const x of ev) x.type === "call" ? calls++ : (text += x.text.length);
  };
  if (charByChar) for (let i = 0; i < input.length; i++) take(e.feed(input[i]!));
  else take(e.feed(input));
  take(e.flush());
  return { s: (performance.now() - t0) / 1000, calls, text };
}

for (const [name, input] of cases) {
  const row: Record<string, string> = { case: name, chars: String(input.length) };
  for (const [label, create] of [["old", oldEngine], ["new", createRepairEngine]] as const) {
    const w = run(create, input, false);
    const c = run(create, input, true);
    const d = run(create, input, true, 65536);
    row[label] = `whole ${w.s.toFixed(2)}s, char ${c.s.toFixed(2)}s, char@64K ${d.s.toFixed(2)}s (calls ${c.calls})`;
  }
  console.log(JSON.stringify(row));
}
