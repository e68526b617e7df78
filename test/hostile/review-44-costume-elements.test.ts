/**
 * Review 44, rule 5 (second half): tool-named elements and code costumes whose children cannot be
 * read (src/parse/tool-element.ts costumeAsToolElement, src/parse/costume.ts). R43.2-R43.4 refuse a
 * `<bash>`/`<shell>` body whose FIRST markup is a parameter child it cannot read, instead of running
 * the markup as the command. A body that opens with a comment line, an XML declaration, or that
 * sits in an HTML pre/code costume skips that check. Every case runs whole, char by char and at
 * seeded random splits.
 */
import { describe, expect, test } from "bun:test";
import { outcome, sendsMarkup } from "../support/outcome.ts";

describe("a parameter element after a comment or declaration runs as shell code", () => {
  // Severity: wrong-execution (low, as R43.2: bash gets the element form's markup as its command;
  // `<command>ls</command>` in bash redirects from a file named `command`). Suspected:
  // src/parse/tool-element.ts costumeAsToolElement() (with src/parse/costume.ts): the element form
  // is tried only when the body's first line is a parameter element; a leading `# list` line, an
  // XML comment or an `<?xml ...?>` declaration (which XML allows before and between elements)
  // sends the body to the code reading, and the whole body, markup included, runs as the command.
  // Expected: a body holding a line that is a parameter element of the tool is the element form;
  // when it cannot be read (text beside the children) the call is refused (broken-markup), never
  // run with `<command>` as part of the command.
  test("<bash> opening with a `# list` comment line, then <command>ls</command>", () => {
    expect(sendsMarkup(outcome("<bash>\n# list\n<command>ls</command>\n</bash>"))).toBe(false);
  });

  test("<bash> opening with an XML comment, then <command>ls</command>", () => {
    expect(sendsMarkup(outcome("<bash>\n<!-- c -->\n<command>ls</command>\n</bash>"))).toBe(false);
  });

  test("<bash> opening with an XML declaration, then <command>ls</command>", () => {
    expect(sendsMarkup(outcome('<bash>\n<?xml version="1.0"?>\n<command>ls</command>\n</bash>'))).toBe(false);
  });

  test("<shell> (a code costume, R43.4's tag) opening with a comment, then an unreadable <command timeout>", () => {
    expect(sendsMarkup(outcome('<shell>\n# c\n<command timeout="5">ls</command>\n</shell>'))).toBe(false);
  });
});

describe("an HTML pre/code costume holding a parameter element runs it as shell code", () => {
  // Severity: wrong-execution (low). Suspected: src/parse/costume.ts (the pre/code costume,
  // `class="language-bash"`): R43.4's refusal covers `<shell>` but not the HTML pre/code costume,
  // so `<command ...>` markup the model wrote as the element form runs as the command (readable
  // or not). Expected: refused (broken-markup), or read as the element form (command "ls").
  test('<pre><code class="language-bash"> holding <command timeout="5">ls</command>', () => {
    expect(sendsMarkup(outcome('<pre><code class="language-bash">\n<command timeout="5">ls</command>\n</code></pre>'))).toBe(false);
  });

  test('<pre><code class="language-bash"> holding <command>ls</command>', () => {
    expect(sendsMarkup(outcome('<pre><code class="language-bash">\n<command>ls</command>\n</code></pre>'))).toBe(false);
  });
});

describe("hard negatives (pass today)", () => {
  test("plain code in a pre/code costume runs as code", () => {
    expect(outcome('<pre><code class="language-bash">\nls -la\n</code></pre>').calls).toEqual([{ tool: "bash", input: { command: "ls -la" } }]);
  });
  test("case-different or unknown child names are refused, never run as code", () => {
    expect(outcome("<bash>\n<Command>ls</Command>\n</bash>").calls).toEqual([]);
    expect(outcome("<bash>\n<cmd>ls</cmd>\n</bash>").calls).toEqual([]);
  });
  test("an unreadable child after a blank line, or after a readable child, is refused", () => {
    expect(outcome('<bash>\n\n<command timeout="5">ls</command>\n</bash>').calls).toEqual([]);
    expect(outcome("<bash>\n<description>x</description>\n<command timeout='5'>ls</command>\n</bash>").calls).toEqual([]);
  });
  test("entities in an element child are decoded as XML reads them", () => {
    expect(outcome("<bash>\n<command>ls &amp;&amp; pwd</command>\n</bash>").calls).toEqual([{ tool: "bash", input: { command: "ls && pwd" } }]);
  });
});
