// Ad-hoc probe: bun test/review/probe.ts '<notation input>' ... (old vs new, whole and char by char)
import { parse as newParse } from "../../src/engine/parse.ts";
import { createRepairEngine } from "../../src/engine/engine.ts";
import { fixtureTools } from "../golden/tools.ts";
import { escaped, live } from "../golden/notation.ts";
const OLD = process.env.OLD_ROOT ?? "/work/wt/old-e1985a9";
const { parse: oldParse } = await import(`${OLD}/src/engine/parse.ts`);
const limit = process.env.LIMIT ? Number(process.env.LIMIT) : undefined;
function charByChar(input: string) {
  const e = createRepairEngine({ tools: fixtureTools, idPrefix: "c_", ...(limit ? { bufferLimit: limit } : {}) });
  const ev: any[] = [];
  for (const ch of input) ev.push(...e.feed(ch));
  ev.push(...e.flush());
  return { calls: ev.filter((x) => x.type === "call").map((x) => [x.call.tool, x.call.input]), text: escaped(ev.filter((x) => x.type === "text").map((x) => x.text).join("")), nudge: e.summary().nudge };
}
for (const arg of process.argv.slice(2)) {
  const input = live(arg.replaceAll("\\n", "\n"));
  const show = (r: any) => JSON.stringify({ calls: r.calls.map((c: any) => [c.tool, c.input]), text: escaped(r.text), nudge: r.nudge, stripped: r.stripped?.map((s: any) => s.kind) });
  console.log("IN :", JSON.stringify(escaped(input)));
  console.log("OLD:", show(oldParse(input, fixtureTools)));
  console.log("NEW:", show(newParse(input, fixtureTools, limit ? { bufferLimit: limit } : {})));
  console.log("NEWcbc:", JSON.stringify(charByChar(input)));
}
