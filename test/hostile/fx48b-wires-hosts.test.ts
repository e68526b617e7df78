// fx48b (review 48b wires finding 3): the plugin listed twice. A later entry's switches whose false
// means "fewer calls" (responseFix.enabled, every parse switch and dialect) are merged as "any
// entry off: off", on V1 and V2, and named in the one warning; a later entry never turns one on.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, spyOn, test } from "bun:test";
import path from "node:path";
import { defaultOptions } from "../../src/options/check.ts";
import { mergeRestrictions, standAsideWarning } from "../../src/plugin/wiring.ts";
import type { V2Message, V2ModelRef } from "../../src/plugin/v2/host-types.ts";
import { block, live } from "../golden/notation.ts";
import { callsIn, pathOf, requestBody, startFakeWires, type FakeWires, type Wire } from "../v2/fake-wires.ts";
import { loadLikeV2, StandInHost } from "../v2/stand-in-host.ts";

const base = () => ({ responseFix: structuredClone(defaultOptions.responseFix), parse: structuredClone(defaultOptions.parse), scope: [[...defaultOptions.providers]] }) as Parameters<typeof mergeRestrictions>[0];

describe("mergeRestrictions: any entry off, off", () => {
  test("responseFix.enabled false and parse switches false in the later entry are kept and named", () => {
    const later = base();
    later.responseFix.enabled = false;
    later.parse.codeCostumes = false;
    later.parse.dialects.hermes = false;
    const { merged, changed } = mergeRestrictions(base(), later);
    expect(merged.responseFix.enabled).toBe(false);
    expect(merged.parse.codeCostumes).toBe(false);
    expect(merged.parse.dialects.hermes).toBe(false);
    expect(merged.parse.dialects.glm).toBe(true);
    expect(merged.parse.orphanInvoke).toBe(true);
    expect(changed).toEqual(["responseFix.enabled (off)", "parse.codeCostumes (off)", "parse.dialects.hermes (off)"]);
    const warning = standAsideWarning(changed);
    for (const name of changed) expect(warning).toContain(name);
  });

  test("a later entry never turns a switch on (standaloneJson, mistralResidue, enabled)", () => {
    const first = base();
    first.responseFix.enabled = false;
    const later = base();
    later.parse.standaloneJson = true;
    later.parse.dialects.mistralResidue = true;
    const { merged, changed } = mergeRestrictions(first, later);
    expect(merged.responseFix.enabled).toBe(false);
    expect(merged.parse.standaloneJson).toBe(false);
    expect(merged.parse.dialects.mistralResidue).toBe(false);
    expect(changed).toEqual([]);
  });

  test("the same options twice change nothing", () => {
    expect(mergeRestrictions(base(), base()).changed).toEqual([]);
  });
});

const ROOT = path.resolve(import.meta.dir, "../..");
const LEAK = live(`Let me check.\n\n${block("tool_calls", [["bash", [["command", "npm test"]]]])}`);
const COSTUME = "Cleaning.\n\n<shell>rm -rf build</shell>\n";
const DEEPSEEK: V2ModelRef = { providerID: "deepseek", id: "deepseek-chat" };
let upstream: FakeWires;
let script: (wire: Wire, body: unknown) => string = () => "Done.";
let logs: string[] = [];
let errorSpy: ReturnType<typeof spyOn>;
beforeAll(async () => {
  upstream = await startFakeWires((wire, body) => script(wire, body));
});
afterAll(() => upstream.close());
beforeEach(() => {
  logs = [];
  errorSpy = spyOn(console, "error").mockImplementation((line: unknown) => void logs.push(String(line)));
});
afterEach(() => errorSpy.mockRestore());
const user = (id: string, text: string): V2Message => ({ id, role: "user", content: [{ type: "text", text }] });

/** V2: setup once per options entry on one stand-in host, then one chat reply `reply`: its calls. */
async function v2Calls(entries: unknown[], reply: string) {
  const { definition } = await loadLikeV2(ROOT);
  const host = new StandInHost();
  for (const options of entries) await definition.setup!(host.context(options));
  await host.buildContext("ses_1", DEEPSEEK, [user("msg_u1", "run the tests")]);
  script = () => reply;
  const fetcher = host.nativeFetch("ses_1", DEEPSEEK);
  const response = await fetcher(`${upstream.baseURL}${pathOf("chat")}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(requestBody("chat", "run the tests", true)) });
  return (await callsIn("chat", response)).calls;
}

describe("V2 listed twice: the later entry's off switches hold", () => {
  test("responseFix.enabled false in the second entry: the leak does not run; the warning names it", async () => {
    expect(await v2Calls([{ providers: ["deepseek"] }, { providers: ["deepseek"], responseFix: { enabled: false } }], LEAK)).toEqual([]);
    expect(logs.filter((line) => line.includes("listed more than once") && line.includes("responseFix.enabled (off)"))).toHaveLength(1);
  });
  test("parse.codeCostumes false in the second entry: the <shell> costume does not run", async () => {
    expect(await v2Calls([{ providers: ["deepseek"] }, { providers: ["deepseek"], parse: { codeCostumes: false } }], COSTUME)).toEqual([]);
  });
  test("hard negative: listed once with defaults, the leak and the costume run", async () => {
    expect((await v2Calls([{ providers: ["deepseek"] }], LEAK)).map((c) => c.name)).toEqual(["bash"]);
    expect((await v2Calls([{ providers: ["deepseek"] }], COSTUME)).map((c) => c.name)).toEqual(["bash"]);
  });
});
