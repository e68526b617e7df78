/**
 * No idle wake under a one-shot `opencode run` (src/plugin/one-shot.ts): it exits once the session
 * is idle, so a wake would be stored unanswered and replayed by the next `--session` run as a
 * stray user turn. OpenCode's yargs CLI takes its global options before the subcommand
 * (`opencode --print-logs run ...`), so the subcommand is the first word that is neither a flag
 * nor a flag's value; the 2.x entry's side is in test/v2/host.test.ts.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { server } from "../../src/plugin/index.ts";
import { oneShotRun } from "../../src/plugin/one-shot.ts";
import { leakScope, UNDECLARED_LEAK, wireReply } from "../support/wire-leak.ts";

/** The compiled binary's argv: bun, the bundle, then OpenCode's own arguments. */
const opencode = (...args: string[]) => ["/usr/bin/bun", "/$bunfs/root/src/index.js", ...args];

describe("oneShotRun: the subcommand after OpenCode's global options", () => {
  test("`run` after global flags, their values, and flags it does not know is a one-shot run", () => {
    for (const args of [
      ["--print-logs", "run", "fix it"],
      ["--log-level", "DEBUG", "run", "fix it"],
      ["--log-level=DEBUG", "run"],
      ["--logLevel", "WARN", "--printLogs", "run"],
      ["--print-logs", "true", "run"],
      ["--no-print-logs", "--pure", "run"],
      ["-v", "--print-logs", "--log-level", "INFO", "run", "--model", "deepseek/deepseek-chat", "hi"],
      ["--", "run", "hi"],
      // Flags of the default command, or unknown to this check: with or without a value, still `run`.
      ["--port", "4096", "run"],
      ["--some-new-flag", "run"],
    ]) {
      expect({ args, oneShot: oneShotRun(opencode(...args)) }).toEqual({ args, oneShot: true });
    }
    // Plain `opencode run` as before.
    expect(oneShotRun(opencode("run", "fix it"))).toBe(true);
    expect(oneShotRun(opencode("run"))).toBe(true);
  });

  test("the TUI, `serve` and the other subcommands, with or without global flags, are not", () => {
    for (const args of [
      [],
      ["--print-logs"],
      ["--log-level", "DEBUG"],
      ["--log-level", "DEBUG", "./project"],
      ["--print-logs", "/home/me/run-book"],
      ["--model", "deepseek/deepseek-chat"],
      ["serve", "--port", "4096"],
      ["--print-logs", "serve"],
      ["--log-level", "DEBUG", "web"],
      ["--print-logs", "false", "serve", "run"],
      ["attach", "http://localhost:4096"],
      ["--", "serve"],
    ]) {
      expect({ args, oneShot: oneShotRun(opencode(...args)) }).toEqual({ args, oneShot: false });
    }
    // And one positive, so this test fails where the check misses a flag's value.
    expect(oneShotRun(opencode("--log-level", "DEBUG", "run"))).toBe(true);
  });
});

describe("1.18 entry: the idle wake under `opencode run` with global flags", () => {
  const savedArgv = process.argv;
  afterEach(() => {
    process.argv = savedArgv;
  });

  /** One reply leaking an undeclared tool's call on the wire route, then the session goes idle: the wakes sent. */
  async function wakesUnder(argv: string[]): Promise<string[]> {
    const wakes: string[] = [];
    const client = {
      app: { log: async () => undefined },
      session: {
        promptAsync: async ({ body }: { body: { parts: { text: string }[] } }) => void wakes.push(body.parts[0]!.text),
        get: async ({ path: p }: { path: { id: string } }) => ({ data: { id: p.id, projectID: "prj_1", directory: "/tmp", title: "t" } }),
        message: async ({ path: p }: { path: { id: string; messageID: string } }) => ({ data: { info: { id: p.messageID, role: "assistant", parentID: "msg_u1", providerID: "deepseek", modelID: "deepseek-chat" }, parts: [] } }),
      },
    };
    process.argv = argv;
    const scope = leakScope();
    const hooks = await server({ client } as never, { providers: ["*"] }, scope);
    process.argv = savedArgv;
    expect(await wireReply(hooks, scope, "ses_1", "msg_u1")).toBe(UNDECLARED_LEAK);
    await hooks.event!({ event: { type: "session.idle", properties: { sessionID: "ses_1" } } } as never);
    return wakes;
  }

  test("`opencode --print-logs run` and `opencode --log-level DEBUG run` send no wake, as plain `opencode run`", async () => {
    expect(await wakesUnder(opencode("--print-logs", "run", "fix it"))).toEqual([]);
    expect(await wakesUnder(opencode("--log-level", "DEBUG", "run", "fix it"))).toEqual([]);
    expect(await wakesUnder(opencode("run", "fix it"))).toEqual([]);
  });

  test("the TUI and `opencode serve` with the same flags still wake, once", async () => {
    expect(await wakesUnder(opencode("--print-logs", "--log-level", "DEBUG"))).toEqual(["Continue."]);
    expect(await wakesUnder(opencode("--print-logs", "serve", "--port", "4096"))).toEqual(["Continue."]);
    expect(await wakesUnder(opencode("--log-level", "DEBUG", "./project"))).toEqual(["Continue."]);
    // And one positive, so this test fails where the flags are misread.
    expect(await wakesUnder(opencode("--log-level", "DEBUG", "run"))).toEqual([]);
  });
});
