/**
 * Review 45, finding 1 and its kin: the tag grammar (src/grammar/tags.ts) reads a closer with
 * spaces or a tab after `</`, a space before `>` or the name in another case as the element's
 * closer, so a span ends there; a reader that then looked for the closer with a string search
 * (`</shell`, `</code>`, `</filePath>`) did not find that spelling and took it, with the markup
 * after it, into the value that runs. Every test reads the reply whole, char by char and at random
 * splits (test/support/outcome.ts), which must agree.
 */
import { describe, expect, test } from "bun:test";
import { outcome } from "../support/outcome.ts";

/** A closer of `name` as the tag grammar reads it, spelled otherwise than `</name>`. */
const spellings = (name: string) => [`</ ${name}>`, `</\t${name}>`, `</  ${name}>`, `</${name} >`, `</${name.toUpperCase()}>`];

describe("a code costume's code ends at its own closer in any spelling the span ended at", () => {
  const shell = ["shell", "bash", "sh", "execute_bash"];
  for (const name of shell) {
    for (const opener of [`<${name}>`, `< ${name}>`]) {
      for (const closer of spellings(name)) {
        // Severity: wrong execution (high): the command ran with the closer as its last line.
        test(`${opener} ... ${JSON.stringify(closer)}: the command is the code alone`, () => {
          expect(outcome(`Listing:\n${opener}\nls -la\n${closer}`)).toEqual({ calls: [{ tool: "bash", input: { command: "ls -la" } }], broken: [], text: "Listing:\n" });
        });
      }
    }
  }

  for (const name of ["python", "code_interpreter"]) {
    test(`< ${name}> ... </ ${name}>: the heredoc holds the code alone`, () => {
      const o = outcome(`Run:\n< ${name}>\nprint(1)\n</ ${name}>`);
      expect(o.calls).toEqual([{ tool: "bash", input: { command: "python3 - <<'PYEOF'\nprint(1)\nPYEOF" } }]);
      expect(o.text).toBe("Run:\n");
    });
  }

  // The closer rule (closer-in-value.ts) holds for every spelling: one with text after it on its
  // line is the code's text; the code ends at the last one, which ends its line.
  test("a spaced closer inside the code, then the closer that ends the line: one command", () => {
    const o = outcome('Run:\n<shell>\ngrep -c "</ shell>" a.html && echo found\n</shell>');
    expect(o.calls).toEqual([{ tool: "bash", input: { command: 'grep -c "</ shell>" a.html && echo found' } }]);
  });

  test("`<pre><code>` closed by `</ code>`: the command is the code alone", () => {
    expect(outcome('<pre><code class="language-bash">ls -la\n</ code>\n</pre>').calls).toEqual([{ tool: "bash", input: { command: "ls -la" } }]);
  });

  test("hard negative: the plain closer still ends the code", () => {
    expect(outcome("Listing:\n<shell>\nls -la\n</shell>").calls).toEqual([{ tool: "bash", input: { command: "ls -la" } }]);
  });
});

describe("the XML execute costume (C01): a field ends at its closer in any spelling the tag grammar reads", () => {
  const head = "<tool_call><tool_name>execute</tool_name><tool_args><language>sh</language>";

  for (const closer of spellings("code")) {
    test(`<code>ls -la${closer}: the code is ls -la`, () => {
      expect(outcome(`${head}<code>ls -la${closer}</tool_args></tool_call>`).calls).toEqual([{ tool: "bash", input: { command: "ls -la" } }]);
    });

    // Severity: wrong execution (high): the code ran with `</ code></tool_args>\n<code>pwd` in it.
    test(`<code>ls -la${closer}</tool_args> then another <code>: nothing runs`, () => {
      const input = `${head}<code>ls -la${closer}</tool_args>\n<code>pwd</code></tool_call>`;
      expect(outcome(input)).toEqual({ calls: [], broken: ["broken-markup"], text: input });
    });
  }

  // Severity: wrong execution (high), the plain spelling too: a raw `<` in the code sends the span
  // to the tolerant reader, whose code ran to the last `</code>`, through `</tool_args>`.
  test("plain closers, a raw < in the code, then another <code> after </tool_args>: nothing runs", () => {
    const input = `${head}<code>ls < list.txt</code></tool_args>\n<code>pwd</code></tool_call>`;
    expect(outcome(input)).toEqual({ calls: [], broken: ["broken-markup"], text: input });
  });

  test("a spaced tool name closer: the tool name is read", () => {
    expect(outcome("<tool_call><tool_name>execute</ tool_name><tool_args><language>sh</ language><code>ls</code></tool_args></tool_call>").calls).toEqual([{ tool: "bash", input: { command: "ls" } }]);
  });

  test("hard negative: code holding an HTML <code> element (a raw < elsewhere) still runs whole", () => {
    const code = "echo '<code>x</code>' > a.html && test 1 < 2";
    expect(outcome(`${head}<code>${code}</code></tool_args></tool_call>`).calls).toEqual([{ tool: "bash", input: { command: code } }]);
  });
});

describe("a tool-named element (O09) whose child holds its closer in another spelling", () => {
  for (const closer of spellings("filePath")) {
    // Severity: wrong execution (high): read ran with `a.ts</ filePath>\n<filePath>b` as its path.
    test(`<filePath>a.ts${closer} then another child: no call, the text as written`, () => {
      const input = `Sure:\n<read>\n<filePath>a.ts${closer}\n<filePath>b</filePath>\n</read>`;
      expect(outcome(input)).toEqual({ calls: [], broken: [], text: input });
    });
  }

  test("the element form in a <bash> costume, a child closed by `</ command>`: refused, never run", () => {
    const input = "Listing:\n<bash>\n<command>ls -la</ command>\n<command>rm -rf build</command>\n</bash>";
    expect(outcome(input)).toEqual({ calls: [], broken: ["broken-markup"], text: input });
  });

  test("hard negative: the plain element still runs, a value holding other markup included", () => {
    expect(outcome("Sure:\n<read>\n<filePath>a.ts</filePath>\n</read>").calls).toEqual([{ tool: "read", input: { filePath: "a.ts" } }]);
    expect(outcome("Sure:\n<read>\n<filePath>a</b>.ts</filePath>\n</read>").calls).toEqual([{ tool: "read", input: { filePath: "a</b>.ts" } }]);
  });
});
