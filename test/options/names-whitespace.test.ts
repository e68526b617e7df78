/**
 * Review 46, finding 2: a tool name with whitespace around it (`"read "`, `" read"`, `"read\n"`)
 * names no tool, so a deny list holding it denied nothing, in silence. The shared check
 * (src/options/check.ts isNameEntry) refuses it as it refuses `""`: the plugin's reading reports it
 * and fails closed (test/plugin/options.test.ts), the JSON schema flags it, and the library
 * (recoverableTools, used by repairFetch and the middleware) fails closed the same way.
 */
import { describe, expect, test } from "bun:test";
import { checkOption, isNameEntry } from "../../src/options/check.ts";
import { recoverableTools } from "../../src/options/engine.ts";
import { fieldSchema } from "../../src/options/schema.ts";
import { OPTIONS } from "../../src/options/spec.ts";

const TOOLS = [{ name: "bash" }, { name: "read" }];
const recoverable = (responseFix: Record<string, unknown>) => recoverableTools({ responseFix }, TOOLS).map((tool) => tool.name);
const BLANKED = ["read ", " read", "read\n", "\tread", "read\u00a0", "\u3000read", "read\u2028", "\ufeffread"];

describe("a names entry with whitespace around it", () => {
  test("is no name, for the checker and the schema alike", () => {
    const spec = OPTIONS.fields.responseFix.fields.denyTools;
    for (const name of BLANKED) {
      expect({ name, entry: isNameEntry(name), checked: checkOption(spec, [name]).ok, schema: fieldSchema(spec).safeParse([name]).success }).toEqual({ name, entry: false, checked: false, schema: false });
    }
  });

  test("the library fails closed: a deny list denies every tool, an allow list allows none", () => {
    for (const name of [...BLANKED, ""]) {
      expect({ name, deny: recoverable({ denyTools: [name] }), allow: recoverable({ allowTools: ["bash", name] }) }).toEqual({ name, deny: [], allow: [] });
    }
  });

  test("hard negative: whitespace inside a name, and patterns, are names as written", () => {
    const spec = OPTIONS.fields.responseFix.fields.denyTools;
    for (const name of ["read", "mcp__github__*", "r?ad", "a b", "x"]) {
      expect({ name, entry: isNameEntry(name), checked: checkOption(spec, [name]).ok, schema: fieldSchema(spec).safeParse([name]).success }).toEqual({ name, entry: true, checked: true, schema: true });
    }
    expect(recoverable({ denyTools: ["read"] })).toEqual(["bash"]);
    expect(recoverable({ allowTools: ["r?ad"] })).toEqual(["read"]);
  });
});
