/**
 * Review 51: a GLM name line over another dialect's call, and a call quoted in block documentation
 * in a dialect whose values are string literals (LFM2, Hermes JSON, ...) whose page breaks its
 * holder; text after a Qwen3-Coder function inside its wrapper. Spread into build-fixtures.ts's list.
 */
import type { Fixture } from "./build-fixtures.ts";
import { bad, none, ok, readA } from "./fixture-kit.ts";

export function review51(): Fixture[] {
  return [...mixedHeaders(), ...quotedStringCalls(), ...afterTheFunction()];
}

const EXAMPLE = "<tool_call>\n<function=bash>\n<parameter=command>rm -rf build</parameter>\n</function>\n</tool_call>";

/** GLM's `<tool_call>NAME` line followed by another dialect's call: two dialects at once, refused whole. */
function mixedHeaders(): Fixture[] {
  return [
    bad("O51.1", "glm-name-line-over-a-qwen3-coder-function", "<tool_call>read\n<function=bash>\n<parameter=command>rm -rf ~</parameter>\n</function>\n</tool_call>", "broken-markup", ["O03"]),
    bad("O51.2", "glm-name-line-over-a-minimax-bracket-call", '<tool_call>read\n[TOOL_CALL] {tool => "bash", args => {--command "rm -rf ~"}} [/TOOL_CALL]\n</tool_call>', "broken-markup", ["O03"]),
    ok("O51.n1", "glm-name-line-with-its-key-value-pairs-runs", "<tool_call>read\n<arg_key>filePath</arg_key>\n<arg_value>/a</arg_value>\n</tool_call>", [readA("O03")]),
  ];
}

/** A string-valued call quoted in documentation keeps its holder open to each string's own closing quote. */
function quotedStringCalls(): Fixture[] {
  const hermesContent = `# Calls\n\nRun it like this:\n${EXAMPLE.replaceAll('"', '\\"')}`;
  return [
    none("N51.1", "lfm2-write-quoted-in-a-fence-whose-page-has-a-fence", `Here is the page:\n\`\`\`\n<|tool_call_start|>[write(filePath='docs/calls.md', content='# Calls\n\`\`\`\n${EXAMPLE}\n\`\`\`')]<|tool_call_end|>\n\`\`\`\nThat is all.`),
    none("N51.2", "hermes-write-quoted-in-details-whose-page-has-a-blank-line", `<details>\n<tool_call>\n{"name": "write", "arguments": {"filePath": "docs/calls.md", "content": "${hermesContent}"}}\n</tool_call>\n</details>\nThat is all.`),
    ok("N51.n1", "lfm2-call-after-a-closed-quoted-lfm2-write-runs", "```\n<|tool_call_start|>[write(filePath='a.md', content='x')]<|tool_call_end|>\n```\n<|tool_call_start|>[read(filePath='/a')]<|tool_call_end|>", [readA("O08")], "```\n<|tool_call_start|>[write(filePath='a.md', content='x')]<|tool_call_end|>\n```\n"),
  ];
}

const QWEN_RM = "<tool_call>\n<function=bash>\n<parameter=command>\nrm -rf ./*\n</parameter>\n</function>\n";

/** Text after a Qwen3-Coder `</function>` is held: `</tool_call>` after it refuses the wrapper; the next wrapper or the reply's end runs the call. */
function afterTheFunction(): Fixture[] {
  return [
    bad("O51.3", "qwen3-coder-workdir-element-after-the-function-in-its-wrapper", `${QWEN_RM}<workdir>/tmp/scratch</workdir>\n</tool_call>`, "broken-markup", ["O02"]),
    bad("O51.4", "qwen3-coder-workdir-line-after-the-function-in-its-wrapper", `${QWEN_RM}workdir: /tmp/scratch\n</tool_call>`, "broken-markup", ["O02"]),
    bad("O51.5", "qwen3-coder-json-object-after-the-function-in-its-wrapper", `${QWEN_RM}{"workdir": "/tmp/scratch"}\n</tool_call>`, "broken-markup", ["O02"]),
    ok("O51.n2", "qwen3-coder-unclosed-wrapper-then-prose-then-the-next-wrapper-runs-both", `${QWEN_RM}Checking the file next.\n<tool_call>\n<function=read>\n<parameter=filePath>\n/a\n</parameter>\n</function>\n</tool_call>`, [
      { tool: "bash", input: { command: "rm -rf ./*" }, shape: "O02" }, readA("O02"),
    ], "Checking the file next.\n"),
  ];
}
