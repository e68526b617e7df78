/**
 * Review 45 (hosts), finding 1 on the library path: settleOptions (used by repairFetch and the
 * middleware) reads a responseFix, or the whole options, that is no plain object the way the
 * plugin does: a security option written anywhere inside fails closed, never open.
 */
import { describe, expect, test } from "bun:test";
import { recoverableTools } from "../../src/options/engine.ts";
import { settleOptions } from "../../src/options/settle.ts";
import type { AdapterOptions } from "../../src/options/adapter.ts";

const TOOLS = [{ name: "bash" }, { name: "read" }];

function recoverable(options: unknown): string[] {
  const lines: string[] = [];
  const settled = settleOptions({ ...(options as object), debug: (line: string) => lines.push(line) } as AdapterOptions);
  return recoverableTools(settled, TOOLS).map((tool) => tool.name);
}

function recoverableWhole(options: unknown): string[] {
  return recoverableTools(settleOptions(options as AdapterOptions), TOOLS).map((tool) => tool.name);
}

describe("a responseFix the library cannot read as given", () => {
  test("a list around it, a JSON string, a Map: no recovered call", () => {
    for (const responseFix of [[{ denyTools: ["bash"] }], '{"denyTools": ["bash"]}', new Map([["denyTools", ["bash"]]]), new Set([{ denyTools: ["bash"] }])]) {
      expect({ responseFix, tools: recoverable({ responseFix }) }).toEqual({ responseFix, tools: [] });
    }
  });

  test("the whole options in a list or a JSON string: no recovered call", () => {
    expect(recoverableWhole([{ responseFix: { denyTools: ["bash"] } }])).toEqual([]);
    expect(recoverableWhole('{"responseFix": {"denyTools": ["bash"]}}')).toEqual([]);
  });

  test("hard negatives: a plain responseFix is read as given; an empty or harmless wrong value keeps the defaults", () => {
    expect(recoverable({ responseFix: { denyTools: ["bash"] } })).toEqual(["read"]);
    expect(recoverable({ responseFix: Object.freeze({ allowTools: ["bash"] }) })).toEqual(["bash"]);
    expect(recoverable({ responseFix: Object.assign(Object.create(null), { denyTools: ["read"] }) })).toEqual(["bash"]);
    for (const responseFix of [[], "", new Map(), null, undefined]) expect(recoverable({ responseFix })).toEqual(["bash", "read"]);
    expect(recoverableWhole(undefined)).toEqual(["bash", "read"]);
    expect(recoverableWhole({})).toEqual(["bash", "read"]);
  });
});

describe("hard negative: a class instance is read through its properties by the library", () => {
  class Options {
    responseFix = { denyTools: ["bash"] };
  }
  class Fix {
    denyTools = ["read"];
  }
  test("its responseFix, and a responseFix that is one, apply as written", () => {
    expect(recoverableWhole(new Options())).toEqual(["read"]);
    expect(recoverable({ responseFix: new Fix() })).toEqual(["bash"]);
  });
});
