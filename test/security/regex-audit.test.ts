/**
 * Threat 3, catastrophic backtracking: every regular expression in shipped code (src/, bin/,
 * server.js) is listed here with why it cannot backtrack more than linearly and an adversarial
 * 100,000-character input for it. A new or changed regex fails the first test until it is
 * audited, added below and to the table in docs/SECURITY.md (the second test keeps the two in
 * step). The third runs each one on its adversarial input: a catastrophic pattern would never
 * finish. Prefer a hand-written scanner to a new regex.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync, readdirSync, statSync } from "node:fs";
import path from "node:path";
import ts from "typescript";

const ROOT = path.join(import.meta.dir, "..", "..");
const N = 100_000;

interface Audited {
  file: string;
  /** The literal as written, slashes and flags included. */
  literal: string;
  /** Input shaped to make a backtracking engine work hardest on this pattern. */
  adversarial: () => string;
}

const AUDITED: Audited[] = [
  { file: "src/history/sanitize.ts", literal: "/[<|\\uFF5C\\u2016[]/", adversarial: () => "a".repeat(N) },
  {
    file: "src/history/stray-markup.ts",
    literal: "/<\\/?[\\uFF5C\\u2016|]\\s*DSML\\s*[\\uFF5C\\u2016|][^<>\\n]{0,80}>|<[\\uFF5C|][^<>\\n\\uFF5C|]{1,60}[\\uFF5C|]>|\\[TOOL_CALLS\\]/g",
    adversarial: () => `<|${" ".repeat(N / 2)}DSML|${"a".repeat(N / 2)}`,
  },
  {
    file: "src/history/stray-markup.ts",
    literal: "/<[\\uFF5C\\u2016|]DSML[\\uFF5C\\u2016|]tool_calls>|<[\\uFF5C|]tool[\\u2581_ ]calls[\\u2581_ ]begin[\\uFF5C|]>|<\\|tool_calls_section_begin\\|>|<\\|tool_call_start\\|>/g",
    adversarial: () => "<|tool_calls_begin<|DSML|tool_call".repeat(N / 34),
  },
  { file: "src/history/stray-markup.ts", literal: "/[\\uFF5C\\u2016\\u2581]|<\\||\\|>|\\[TOOL_CALLS/g", adversarial: () => "<[TOOL_CALL|".repeat(N / 12) },
  { file: "src/history/stray-markup.ts", literal: "/<tool_call>[ \\t\\r\\n]*\\{/g", adversarial: () => `<tool_call>${" \t\r\n".repeat(N / 4)}x` },
  { file: "src/plugin/debug.ts", literal: "/^[A-Za-z0-9_.-]+$/", adversarial: () => `${"a".repeat(N)}!` },
  { file: "src/plugin/debug.ts", literal: "/^[A-Z][0-9]{2}$/", adversarial: () => `A${"1".repeat(N)}` },
  { file: "src/plugin/scope.ts", literal: "/[^A-Za-z0-9_.:/@+-]/g", adversarial: () => `${"a/".repeat(N / 2)}\n` },
  { file: "src/plugin/credentials.ts", literal: "/[^A-Z0-9]+/g", adversarial: () => `${"-".repeat(N)}A` },
  { file: "src/parse/costume.ts", literal: "/(?:^|\\s)(?:language-|lang-)?([\\w+-]+)/", adversarial: () => `${" language-".repeat(N / 10)} !` },
  { file: "src/parse/costume.ts", literal: "/\\r?\\n/", adversarial: () => `${"\r".repeat(N)}\n` },
  { file: "src/parse/python-literal.ts", literal: "/\\s/", adversarial: () => "a".repeat(N) },
  { file: "src/parse/costume.ts", literal: "/<!--|<!\\[CDATA\\[|<![A-Za-z]|<\\?[A-Za-z]|<\\/?[A-Za-z][\\w:-]*(?:\\s[^<>]*)?\\/?>/", adversarial: () => `<a${" /".repeat(N / 2)}` },
  { file: "src/parse/costume-xml.ts", literal: "/^<tool_call(?:\\s+id\\s*=\\s*(?:\"[^\"]*\"|'[^']*'))?\\s*>\\s*<tool_name>\\s*([\\w.-]+)\\s*<\\/tool_name>\\s*<tool_args>\\s*(\\{[\\s\\S]*\\})\\s*<\\/tool_args>\\s*<\\/tool_call>\\s*$/", adversarial: () => `<tool_call><tool_name>bash</tool_name><tool_args>{${"} ".repeat(N / 2)}` },
  { file: "src/parse/values.ts", literal: "/(\\r\\n|\\r|\\n)/", adversarial: () => `${"\r".repeat(N)}\n` },
  { file: "src/engine/tentative-closer.ts", literal: "/^[\\p{Ll}\\p{Lo}]$/u", adversarial: () => "a".repeat(N) },
  { file: "src/engine/line-ends.ts", literal: "/^[\\p{L}\\p{M}\\p{N}]$/u", adversarial: () => "a".repeat(N) },
  { file: "src/parse/costume-xml.ts", literal: "/<(tool_call|tool_name|tool_args|language|code)\\s[^<>]*/gi", adversarial: () => "<code ".repeat(N / 6) },
  { file: "src/parse/costume-xml.ts", literal: "/^id\\s*=\\s*(\"[^\"]*\"|'[^']*')$/i", adversarial: () => `id${" ".repeat(N / 2)}=${" ".repeat(N / 2)}"x` },
  { file: "src/parse/costume-xml.ts", literal: "/<!--|<!\\[CDATA\\[|<\\?[A-Za-z_:]/i", adversarial: () => "<!-<![CDATA<?".repeat(N / 13) },
  { file: "src/parse/costume-xml.ts", literal: "/<![A-Za-z]/", adversarial: () => "<!<!1".repeat(N / 5) },
  { file: "src/parse/python-literal.ts", literal: "/[0-7]/", adversarial: () => "8".repeat(N) },
  { file: "src/parse/python-literal.ts", literal: "/^[0-9A-Fa-f]+$/", adversarial: () => `${"f".repeat(N)}g` },
  { file: "src/parse/dialects/pythonic.ts", literal: "/^[A-Za-z_][\\w.-]*/", adversarial: () => `${"a.".repeat(N / 2)}!` },
  { file: "src/parse/python-literal.ts", literal: "/^(?:True|False|None|-?(?:0|[1-9]\\d*)(?:\\.\\d+)?(?:[eE][+-]?\\d+)?)/", adversarial: () => `-${"1".repeat(N)}.e` },
  { file: "src/parse/named.ts", literal: "/^\\s+/", adversarial: () => `${" \t\n".repeat(N / 3)}x` },
  { file: "src/parse/values.ts", literal: "/&(?:amp|lt|gt|quot|apos|#39|#x27);/g", adversarial: () => "&amp&#x2".repeat(N / 8) },
  { file: "src/parse/html-references.ts", literal: "/&(?:#([xX])?([0-9A-Za-z]*)(;?)|([A-Za-z][A-Za-z0-9]*)(;?))/g", adversarial: () => `&${"a".repeat(N)}&#${"9".repeat(N / 2)}` },
  { file: "src/parse/code-lines.ts", literal: "/^[ \\t]*(?:\\$|(?:[\\w.-]+@[\\w.-]+:[^\\s$#]*|\\[[\\w.-]+@[^\\]\\r\\n]*\\])[$#]|PS (?:[A-Za-z]:\\\\|[/~])[^>\\r\\n]*>)[ \\t]/", adversarial: () => `${"a".repeat(N / 2)}@${"a".repeat(N / 2)}` },
  { file: "src/parse/values.ts", literal: "/^-?(?:0|[1-9]\\d*)(?:\\.\\d+)?(?:[eE][+-]?\\d+)?$/", adversarial: () => `${"1".repeat(N / 2)}.${"1".repeat(N / 2)}e` },

  { file: "src/parse/legacy.ts", literal: "/^functions\\.([\\w.-]+):\\d+$/", adversarial: () => `functions.${"a.".repeat(N / 2)}:1${"1".repeat(N / 2)}x` },
  { file: "src/echo/linear-search.ts", literal: "/\\s+/g", adversarial: () => `${" \t\n\r".repeat(N / 4)}x` },
  { file: "src/echo/letters.ts", literal: "/[\\p{L}\\p{M}]/u", adversarial: () => "e\u0301".repeat(N / 2) },
  { file: "src/echo/letters.ts", literal: "/[\\p{L}\\p{N}\\p{M}]/u", adversarial: () => "\u0663\u0301".repeat(N / 2) },
  { file: "src/echo/given-content.ts", literal: "/[\\p{Cf}\\p{Default_Ignorable_Code_Point}]/gu", adversarial: () => "a\u200b\ufe0f".repeat(N / 3) },
  { file: "src/echo/given-content.ts", literal: "/\\r\\n|\\r|\\n/", adversarial: () => `${"\r".repeat(N)}\n` },
  { file: "src/proxy/routing.ts", literal: "/%25(?:25)*(?:2e|2f|5c)/", adversarial: () => `${"%25".repeat(N / 3)}2g` },
  { file: "src/proxy/routing.ts", literal: "/%(?:25)*(?:2f|5c)/g", adversarial: () => `${"%25".repeat(N / 3)}2g` },
  { file: "src/proxy/routing.ts", literal: "/%(?:25)*2e/g", adversarial: () => `${"%25".repeat(N / 3)}2g` },
  { file: "src/options/check.ts", literal: "/^[\\p{Cc}\\p{Cf}\\p{Cs}\\p{Co}\\p{Zs}\\p{Zl}\\p{Zp}\\p{Default_Ignorable_Code_Point}\\p{Noncharacter_Code_Point}\\u2800\\u{1D159}]$/u", adversarial: () => "\u200b".repeat(N) },
  { file: "src/options/check.ts", literal: "/^\\p{M}$/u", adversarial: () => "\u0301".repeat(N) },
  { file: "src/options/schema.ts", literal: "/^\\S(?:[\\s\\S]*\\S)?$/", adversarial: () => `a${" ".repeat(N)}` },
  { file: "src/cli/style.ts", literal: "/^recovered \\d+ call\\(s\\), 0 broken/", adversarial: () => `recovered ${"1".repeat(N)} call(s), 1` },
  { file: "src/cli/style.ts", literal: "/^(message \\S+: )?recovered \\d+ call\\(s\\), \\d+ broken/", adversarial: () => `message ${"a".repeat(N)}` },
  { file: "src/cli/style.ts", literal: "/^\\s+broken /", adversarial: () => `${" ".repeat(N)}x` },
  { file: "src/cli/style.ts", literal: "/\\): wire$/", adversarial: () => "): wir".repeat(N / 6) },
  { file: "src/cli/style.ts", literal: "/^\\d+ problem\\(s\\):$/", adversarial: () => `${"1".repeat(N)} problem` },
  { file: "src/cli/style.ts", literal: "/\\): off$/", adversarial: () => "): of".repeat(N / 5) },
  { file: "src/cli/style.ts", literal: "/\\): fallback$/", adversarial: () => "): fallbac".repeat(N / 10) },
  { file: "src/cli/schema-ref.ts", literal: "/^[a-z][a-z0-9+.-]*:\\/\\//i", adversarial: () => `a${"b".repeat(N)}:/` },
  { file: "src/cli/args.ts", literal: "/^-[a-zA-Z]+$/", adversarial: () => `-${"a".repeat(N)}1` },
  { file: "src/proxy/arg-words.ts", literal: "/^Unknown option '([^']+)'/", adversarial: () => `Unknown option '${"a".repeat(N)}` },
  { file: "src/proxy/arg-words.ts", literal: "/^Option '(?:-\\w, )?(--[\\w-]+)(?: [^']*)?' argument missing/", adversarial: () => `Option '--${"a".repeat(N)}' argument` },
  { file: "src/proxy/arg-words.ts", literal: "/^Option '(?:-\\w, )?(--[\\w-]+)' does not take an argument/", adversarial: () => `Option '--${"a".repeat(N)}' does` },
];

const SHIPPED = ["src", "bin", "server.js"];

function files(p: string): string[] {
  const abs = path.join(ROOT, p);
  if (!statSync(abs).isDirectory()) return /\.(ts|js|mjs)$/.test(p) ? [p] : [];
  return readdirSync(abs).flatMap((name) => files(path.join(p, name)));
}

/** Every regex literal and RegExp construction in shipped code, as "file literal". */
function found(): string[] {
  const out: string[] = [];
  for (const file of SHIPPED.flatMap(files)) {
    const sf = ts.createSourceFile(file, readFileSync(path.join(ROOT, file), "utf8"), ts.ScriptTarget.Latest, true);
    const visit = (node: ts.Node): void => {
      if (node.kind === ts.SyntaxKind.RegularExpressionLiteral) out.push(`${file} ${node.getText(sf)}`);
      if ((ts.isNewExpression(node) || ts.isCallExpression(node)) && node.expression.getText(sf) === "RegExp") out.push(`${file} ${node.getText(sf)}`);
      ts.forEachChild(node, visit);
    };
    visit(sf);
  }
  return out;
}

const key = (a: Audited) => `${a.file} ${a.literal}`;

/** A regex literal's source and flags, without eval. */
function compile(literal: string): RegExp {
  const end = literal.lastIndexOf("/");
  return new RegExp(literal.slice(1, end), literal.slice(end + 1));
}

describe("regex audit", () => {
  test("every regex in shipped code is audited (add new ones to AUDITED and docs/SECURITY.md)", () => {
    const expected = AUDITED.map(key);
    const actual = found();
    // Multiset comparison: the same pattern twice in a file is listed once per occurrence it was audited for.
    const unaudited = [...new Set(actual)].filter((k) => !expected.includes(k));
    const stale = expected.filter((k) => !actual.includes(k));
    expect({ unaudited, stale }).toEqual({ unaudited: [], stale: [] });
  });

  test("docs/SECURITY.md lists every audited regex", () => {
    const doc = readFileSync(path.join(ROOT, "docs", "SECURITY.md"), "utf8");
    // Markdown tables escape "|" inside cells.
    const missing = AUDITED.filter((a) => !doc.includes(`\`${a.literal.replaceAll("|", "\\|")}\``) || !doc.includes(a.file)).map(key);
    expect(missing).toEqual([]);
  });

  for (const audited of AUDITED) {
    test(`${audited.file} ${audited.literal} finishes on its adversarial input`, () => {
      const re = compile(audited.literal);
      const input = audited.adversarial();
      expect(input.length).toBeGreaterThanOrEqual(N - 16);
      // test, exec, replace and split are how the sites use them; each must return.
      re.lastIndex = 0;
      re.test(input);
      re.lastIndex = 0;
      expect(typeof input.replace(re, "")).toBe("string");
      expect(Array.isArray(input.split(re))).toBe(true);
    });
  }

  test("the scan detects regex literals and RegExp constructions (so the audit can fail)", () => {
    const sf = ts.createSourceFile("x.ts", "const a = /(a+)+$/; const b = new RegExp('x');", ts.ScriptTarget.Latest, true);
    const kinds: string[] = [];
    const visit = (node: ts.Node): void => {
      if (node.kind === ts.SyntaxKind.RegularExpressionLiteral) kinds.push(node.getText(sf));
      if (ts.isNewExpression(node) && node.expression.getText(sf) === "RegExp") kinds.push("RegExp");
      ts.forEachChild(node, visit);
    };
    visit(sf);
    expect(kinds).toEqual(["/(a+)+$/", "RegExp"]);
  });
});
