/**
 * The HTML-block oracle cases shared by review-53-docs-pre-in-list.test.ts and
 * review-56-docs-pre-foreign-closer.test.ts: one Hermes and one DSML call (X in a template) put
 * where commonmark.js shows it as a top-level paragraph (the call runs) or inside an HTML block
 * (documentation: no call, the text unchanged). Each case checks the oracle first, so a template
 * that does not say what its name says fails as such.
 */
import { describe, expect, test } from "bun:test";
import { outcome } from "../support/outcome.ts";
import { verdict } from "./review-47-docs-grammar.ts";
import { live } from "../golden/notation.ts";

const TOKEN = "ZQXJ7";
const HERMES = `<tool_call>{"name":"bash","arguments":{"command":"echo ${TOKEN}"}}</tool_call>`;
const DSML = live(`<{D}tool_calls><{D}invoke name="bash"><{D}parameter name="command" string="true">echo ${TOKEN}</{D}parameter></{D}invoke></{D}tool_calls>`);
export const CALLS = { hermes: HERMES, dsml: DSML };
export const RAN = [{ tool: "bash", input: { command: `echo ${TOKEN}` } }];

/** Named templates: X stands for the call. */
export type Cases = [string, string][];

/** Each template with each call: commonmark.js reads X as a top-level paragraph, and it runs. */
export function casesThatRun(title: string, cases: Cases, prefix = ""): void {
  describe(title, () => {
    for (const [name, template] of cases) {
      for (const [dialect, call] of Object.entries(CALLS)) {
        const doc = template.replace("X", () => call);
        test(`${prefix}${name} (${dialect})`, () => {
          expect(verdict(doc).path).toBe("text < paragraph < document");
          expect(outcome(doc).calls).toEqual(RAN);
        });
      }
    }
  });
}

/** Each template with each call: commonmark.js reads X as raw HTML, and it stays text, unchanged. */
export function casesThatHold(title: string, cases: Cases): void {
  describe(title, () => {
    for (const [name, template] of cases) {
      for (const [dialect, call] of Object.entries(CALLS)) {
        const doc = template.replace("X", () => call);
        test(`holds: ${name} (${dialect})`, () => {
          expect(verdict(doc).where).toBe("html");
          const o = outcome(doc);
          expect(o.calls).toEqual([]);
          expect(o.text).toBe(doc);
        });
      }
    }
  });
}
