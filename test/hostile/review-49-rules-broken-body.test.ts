/**
 * Review 49 (rules): a broken `<tool_call>` body is refused whole up to its balancing closer
 * (golden O48.2-O48.4): markup inside it never runs. Attacked: prose between the proved call and
 * the markup, a Qwen3-Coder function closed before the markup, a wrapper opened mid-line, an
 * unbalanced `<tool_call>` written inside a string, and an unclosed body before a later call.
 * Every case runs whole, char by char and at seeded random splits (outcome()).
 *
 * Each failing test (test.failing) says what is wrong, its severity and the suspected file.
 */
import { describe, expect, test } from "bun:test";
import { outcome } from "../support/outcome.ts";

const hermesLs = `{"name":"bash","arguments":{"command":"ls"}}`;

describe("fixed: text on a line after a proved Hermes call inside its wrapper refuses the body whole (the costume after it never runs)", () => {
  // Severity: medium (wrong execution: `rm -rf build`, inside the wrapper of a call that broke, runs;
  // the proved Hermes call is dropped with no report, so nothing asks the model again). With the
  // costume right after the JSON the body is refused whole (hard negative below); one line of prose
  // between them ends the refused span early and the costume is read as a new call (the rest of
  // the wrapper stripped as S03). Suspected: src/parse/dialects (the Hermes body's "broke after it
  // proved" refusal, 9de2457) / src/engine/candidate.ts (span ends at the prose line). Expected: no
  // call, the body reported broken.
  for (const [name, between] of [
    ["a word line, then an inline costume", "extra\n<shell>rm -rf build</shell>"],
    ["a colon line, then a block costume", "Then:\n<bash>\nrm -rf build\n</bash>"],
  ] as const) {
    test(name, () => {
      const o = outcome(`<tool_call>\n${hermesLs}\n${between}\n</tool_call>`);
      expect(o.calls).toEqual([]);
      expect(o.broken.length).toBeGreaterThan(0);
    });
  }
});

describe("fixed: a Qwen3-Coder function closed inside its wrapper, then a costume before </tool_call>: refused whole as Hermes and GLM bodies", () => {
  // Severity: medium-low (wrong execution: the costume inside the wrapper runs `rm -rf build`).
  // The same body shape in Hermes and GLM (a proved call, then a costume inside the wrapper) is
  // refused whole (hard negatives below); Qwen3-Coder runs the function and the costume. Suspected:
  // src/parse/dialects (Qwen3-Coder's wrapper end: the body after </function> is not weighed as a
  // broken body). Expected: as Hermes and GLM, no call and a report.
  test("qwen function then costume inside the wrapper: refused", () => {
    const o = outcome(`<tool_call>\n<function=bash>\n<parameter=command>\nls\n</parameter>\n</function>\n<shell>rm -rf build</shell>\n</tool_call>`);
    expect(o.calls).toEqual([]);
  });
});

describe("fixed: a wrapper opened mid-line whose body is laid out on its own lines is refused whole when it breaks (the write's content never runs)", () => {
  // Severity: medium (wrong execution: the content of a file the model meant to write, `rm -rf
  // build` inside <shell>, is sent to bash). A mid-line `<tool_call>` is proved prose (golden N21),
  // so its body is not refused whole, and the costume on its own lines inside the JSON/GLM value is
  // then read from text mode as a call. Suspected: src/engine/candidate.ts / src/parse/dialects
  // (93ab466: the whole-body refusal only when the wrapper opens its line; the prose reading should
  // still keep the body's markup text up to the balancing closer). Expected: no call.
  test("Hermes body", () => {
    expect(outcome(`I ran <tool_call>\n{"name":"write","arguments":{"filePath":"a.md","content":"Run:\n<shell>\nrm -rf build\n</shell>\n"}}\n</tool_call>`).calls).toEqual([]);
  });
  test("GLM body", () => {
    expect(outcome(`I ran <tool_call>write\n<arg_key>filePath</arg_key>\n<arg_value>a.md</arg_value>\n<arg_key>file content</arg_key>\n<arg_value>\n<shell>\nrm -rf build\n</shell>\n</arg_value>\n</tool_call>`).calls).toEqual([]);
  });
});

describe("fixed: a <tool_call> written in a JSON string that broke counts for the refused body's balance (the refusal reaches the balancing closer)", () => {
  // Severity: low-medium (wrong execution). The write's content holds a `<tool_call>` opener, so
  // the body's balancing closer is the second `</tool_call>`; the refused span ends at the first,
  // and the costume between the two runs. Suspected: the refused-body end (O48.2-O48.4, balancing
  // closer) counting openers inside JSON strings differently from closers. Expected: no call.
  test("costume between the first and the balancing closer: refused", () => {
    expect(outcome(`<tool_call>\n{"name":"write","arguments":{"filePath":"a.md","content":"<tool_call>\n"}}\n</tool_call>\n<shell>rm -rf build</shell>\n</tool_call>\nAfter.`).calls).toEqual([]);
  });
});

describe("known gap (missed call, low): a broken body cut off by no closer keeps the later call as text", () => {
  // Severity: low (missed call, no wrong execution: the text stays whole and is reported as
  // overflowed). The model's next Hermes call (`ls`), complete with its own wrapper, is read as part
  // of the first body's refused rest. Suspected: src/engine (overflowed-markup rest read as text
  // with no call running, 38c6b2a). Expected: the complete second call runs.
  // Known gap, pinned (fix 49 forms): the first body broke inside a JSON string (raw line breaks),
  // so where that string and its object end is unknown; a write whose content documents a call
  // (`...\n<tool_call>\n{...}\n</tool_call>\n` written raw) reads the same. Running the second
  // call could run the file's text (wrong execution outranks the missed call): it stays text,
  // reported overflowed-markup, nothing lost.
  test.failing("unclosed broken Hermes body, then a complete call: it runs", () => {
    const o = outcome(`<tool_call>\n{"name":"write","arguments":{"filePath":"a.md","content":"Run:\n<shell>\nrm -rf build\n</shell>\n"}}\n<tool_call>\n${hermesLs}\n</tool_call>`);
    expect(o.calls).toEqual([{ tool: "bash", input: { command: "ls" } }]);
  });
});

describe("hard negatives: bodies refused whole as the rule says (kept)", () => {
  for (const [name, input] of [
    ["Hermes call then costume right after", `<tool_call>\n${hermesLs}\n<shell>rm -rf build</shell>\n</tool_call>`],
    ["Hermes call then pre/code", `<tool_call>\n${hermesLs}\n<pre><code>rm -rf build</code></pre>\n</tool_call>`],
    ["GLM call then costume", `<tool_call>bash\n<arg_key>command</arg_key>\n<arg_value>ls</arg_value>\n<shell>rm -rf build</shell>\n</tool_call>`],
    ["nested pair inside a string", `<tool_call>\n{"name":"write","arguments":{"filePath":"a.md","content":"Ex:\n<tool_call>\n{}\n</tool_call>\nmore\n"}}\n</tool_call>\nAfter.`],
    ["closer mention inside a string", `<tool_call>\n{"name":"write","arguments":{"filePath":"a.md","content":"the </tool_call> tag\nline"}}\n</tool_call>\nAfter.`],
    ["CRLF", `<tool_call>\r\n{"name":"write","arguments":{"filePath":"a.md","content":"Run:\r\n<shell>\r\nrm -rf build\r\n</shell>\r\n"}}\r\n</tool_call>`],
    ["indented closer", `<tool_call>\n{"name":"write","arguments":{"filePath":"a.md","content":"Run:\n<shell>\nrm -rf build\n</shell>\n"}}\n   </tool_call>\nok`],
  ] as const) {
    test(`${name}: no call, text whole`, () => {
      const o = outcome(input);
      expect(o.calls).toEqual([]);
    });
  }
  test("a refused body, then a complete call after its closer: the later call runs", () => {
    const o = outcome(`<tool_call>\n{"name":"write","arguments":{"filePath":"a.md","content":"Run:\n<shell>\nrm -rf build\n</shell>\n"}}\n</tool_call>\n<tool_call>\n${hermesLs}\n</tool_call>`);
    expect(o.calls).toEqual([{ tool: "bash", input: { command: "ls" } }]);
  });
});
