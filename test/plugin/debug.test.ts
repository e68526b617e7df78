import { describe, expect, test } from "bun:test";
import { createDebugLog, formatRequestLine, formatResponseLine } from "../../src/plugin/debug.ts";

describe("request line", () => {
  test("without a nudge", () => {
    const line = formatRequestLine({ sessionID: "ses_abc", messageID: "msg_xyz", sanitizedMessages: 2, sanitizedParts: 3, nudge: null });
    expect(line).toBe("[dsml] request ses_abc/msg_xyz sanitized=2msgs/3parts nudge=no");
  });

  test("with a nudge", () => {
    const line = formatRequestLine({ sessionID: "ses_abc", messageID: "msg_xyz", sanitizedMessages: 0, sanitizedParts: 0, nudge: "broken-markup" });
    expect(line).toBe("[dsml] request ses_abc/msg_xyz sanitized=0msgs/0parts nudge=broken-markup");
  });

  test("unknown session and message print ?", () => {
    expect(formatRequestLine({ sanitizedMessages: 1, sanitizedParts: 1, nudge: null })).toBe(
      "[dsml] request ?/? sanitized=1msgs/1parts nudge=no",
    );
    expect(formatRequestLine({ sessionID: "ses_abc", messageID: "", sanitizedMessages: 1, sanitizedParts: 1, nudge: null })).toBe(
      "[dsml] request ses_abc/? sanitized=1msgs/1parts nudge=no",
    );
  });
});

describe("response line", () => {
  test("recovered calls", () => {
    const line = formatResponseLine({ sessionID: "ses_abc", messageID: "msg_xyz", attempt: 1, outcome: { kind: "recovered", count: 1 } });
    expect(line).toBe("[dsml] response ses_abc/msg_xyz#1 recovered=1");
  });

  test("passthrough and held-candidate-no-call", () => {
    expect(formatResponseLine({ sessionID: "ses_abc", messageID: "msg_xyz", attempt: 2, outcome: { kind: "passthrough" } })).toBe(
      "[dsml] response ses_abc/msg_xyz#2 passthrough",
    );
    expect(
      formatResponseLine({ sessionID: "ses_abc", messageID: "msg_xyz", attempt: 1, outcome: { kind: "held-candidate-no-call" } }),
    ).toBe("[dsml] response ses_abc/msg_xyz#1 held-candidate-no-call");
  });

  test("nudge then shapes, in that order", () => {
    const line = formatResponseLine({
      sessionID: "ses_abc",
      messageID: "msg_xyz",
      attempt: 1,
      outcome: { kind: "recovered", count: 2 },
      nudge: "truncated-call",
      shapes: ["D02", "P01"],
    });
    expect(line).toBe("[dsml] response ses_abc/msg_xyz#1 recovered=2 nudge=truncated-call shapes=D02,P01");
  });

  test("a null nudge and no shapes add nothing", () => {
    const line = formatResponseLine({ attempt: 1, outcome: { kind: "passthrough" }, nudge: null, shapes: [] });
    expect(line).toBe("[dsml] response ?/?#1 passthrough");
  });

  test("shapes are deduplicated and anything that is not a shape id is dropped", () => {
    const line = formatResponseLine({
      sessionID: "ses_abc",
      messageID: "msg_xyz",
      attempt: 1,
      outcome: { kind: "recovered", count: 1 },
      shapes: ["D02", "rm -rf /", "D02", "P01", "path=/etc/passwd", "d02"],
    });
    expect(line).toBe("[dsml] response ses_abc/msg_xyz#1 recovered=1 shapes=D02,P01");
  });

  test("ids that could break the line print ?", () => {
    const line = formatResponseLine({ sessionID: "ses abc\n", messageID: "msg_xyz", attempt: 1, outcome: { kind: "passthrough" } });
    expect(line).toBe("[dsml] response ?/msg_xyz#1 passthrough");
  });
});

describe("createDebugLog", () => {
  test("writes formatted lines to the sink when enabled", () => {
    const lines: string[] = [];
    const log = createDebugLog(true, (line) => lines.push(line));
    log.request({ sessionID: "ses_abc", messageID: "msg_xyz", sanitizedMessages: 2, sanitizedParts: 3, nudge: null });
    log.response({ sessionID: "ses_abc", messageID: "msg_xyz", attempt: 1, outcome: { kind: "recovered", count: 1 } });
    expect(log.enabled).toBe(true);
    expect(lines).toEqual([
      "[dsml] request ses_abc/msg_xyz sanitized=2msgs/3parts nudge=no",
      "[dsml] response ses_abc/msg_xyz#1 recovered=1",
    ]);
  });

  test("is a no-op when disabled", () => {
    const lines: string[] = [];
    const log = createDebugLog(false, (line) => lines.push(line));
    log.request({ sanitizedMessages: 1, sanitizedParts: 1, nudge: "broken-markup" });
    log.response({ attempt: 1, outcome: { kind: "passthrough" } });
    expect(log.enabled).toBe(false);
    expect(lines).toEqual([]);
  });

  test("a throwing sink does not escape", () => {
    const log = createDebugLog(true, () => {
      throw new Error("sink down");
    });
    expect(() => log.response({ attempt: 1, outcome: { kind: "passthrough" } })).not.toThrow();
  });
});
