/**
 * The plugin against the real `opencode serve` under different configurations: invalid plugin
 * options, bash denied by the permission config, and the default provider list with the DeepSeek
 * catalog provider.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { correctionText } from "../../src/retry/state.ts";
import { block, live } from "../golden/notation.ts";
import { setup, type ScriptEntry } from "./harness.ts";
import {
  countOf,
  logLines,
  messagesOf,
  newSession,
  partsText,
  pluginEntry,
  prompt,
  requestText,
  serve,
  sessionMessages,
  settleAfter,
  systemText,
  TIMEOUT,
} from "./plugin-helpers.ts";

let teardowns: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const t of teardowns.reverse()) await t().catch(() => {});
  teardowns = [];
});

async function start(script: ScriptEntry[], opts: Parameters<typeof setup>[1], edit?: (config: any, modelUrl: string) => void) {
  const env = await setup(script, opts);
  teardowns.push(env.teardown);
  if (edit) {
    edit(env.project.config, env.model.url);
    writeFileSync(path.join(env.project.dir, "opencode.json"), JSON.stringify(env.project.config, null, 2));
  }
  const served = await serve(env.project);
  teardowns.push(() => served.server.stop());
  return { ...env, ...served };
}

function leakWriting(command: string, prose = "Writing it.\n\n"): string {
  return prose + live(block("tool_calls", [["bash", [["command", command]]]]));
}

const toolParts = (message: { parts: any[] }) => message.parts.filter((p) => p.type === "tool");

describe("plugin options", () => {
  test(
    "invalid options are reported in OpenCode's log, OpenCode still answers, and repair runs with the defaults",
    async () => {
      const { client, server, project, model } = await start(
        [{ content: "Plain answer." }, { content: leakWriting("echo defaults > defaults.txt") }, { content: "Written." }],
        { plugin: [pluginEntry({ providers: ["fake"], responseFix: { bufferLimit: -5 }, bogus: 1 })] },
      );
      const sessionID = await newSession(client);
      const first = await prompt(client, sessionID, "hello");
      expect(partsText(first)).toBe("Plain answer.");

      await prompt(client, sessionID, "write the file");
      await settleAfter({ server, client }, model, sessionID, 3);
      expect(readFileSync(path.join(project.dir, "defaults.txt"), "utf8")).toBe("defaults\n");
      const messages = await sessionMessages(client, sessionID);
      const tools = messages.flatMap(toolParts);
      expect(tools.map((t) => [t.tool, t.state.status])).toEqual([["bash", "completed"]]);

      const output = server.output();
      const bad = logLines(output, "[dsml] option ").filter((l) => l.includes("responseFix.bufferLimit"));
      expect(bad).toHaveLength(1);
      expect(bad[0]).toContain("must be an integer from 1024 to 16777216");
      expect(bad[0]).toContain("using 65536");
      expect(bad[0]).toContain("level=WARN");
      const unknown = logLines(output, "[dsml] unknown option ").filter((l) => l.includes("bogus"));
      expect(unknown).toHaveLength(1);
      expect(unknown[0]).toContain("ignored");
    },
    TIMEOUT,
  );
});

describe("bash denied by the permission config", () => {
  const COMMAND = "echo blocked > denied.txt";

  test(
    "a per-command deny rejects the recovered call exactly like a native call, and nothing runs",
    async () => {
      const { client, server, project, model } = await start(
        [
          { toolCalls: [{ name: "bash", arguments: { command: COMMAND } }] },
          { content: "After the native call." },
          { content: leakWriting(COMMAND, "") },
          { content: "After the leaked call." },
        ],
        {
          permission: { "*": "allow", bash: { "*": "allow", "echo *": "deny" } },
          plugin: [pluginEntry({ providers: ["fake"] })],
        },
      );
      const nativeSession = await newSession(client);
      await prompt(client, nativeSession, "write it");
      const leakSession = await newSession(client);
      await prompt(client, leakSession, "write it");
      await settleAfter({ server, client }, model, leakSession, 4);

      const native = (await sessionMessages(client, nativeSession)).flatMap(toolParts);
      const leaked = (await sessionMessages(client, leakSession)).flatMap(toolParts);
      expect(native).toHaveLength(1);
      expect(leaked).toHaveLength(1);
      const comparable = (p: any) => ({ tool: p.tool, status: p.state.status, input: p.state.input, error: p.state.error });
      expect(comparable(native[0])).toEqual(comparable(leaked[0]));
      expect(native[0].state.status).toBe("error");
      expect(native[0].state.error).toContain("prevents you from using this specific tool call");
      expect(leaked[0].callID).not.toBe(native[0].callID);

      // The model hears the same refusal for both (modulo the call id).
      const [, afterNative, , afterLeak] = model.mainRequests();
      const refusal = (request: any, callID: string) =>
        messagesOf(request, "tool").find((m: any) => m.tool_call_id === callID)?.content;
      expect(refusal(afterLeak, leaked[0].callID)).toBe(refusal(afterNative, native[0].callID));
      expect(existsSync(path.join(project.dir, "denied.txt"))).toBe(false);
    },
    TIMEOUT,
  );

  test(
    'bash: "deny" removes bash from the tools: a native call becomes OpenCode\'s invalid-tool call, the leak stays text with a correction, and nothing runs',
    async () => {
      const { client, project, model, server } = await start(
        [
          { toolCalls: [{ name: "bash", arguments: { command: COMMAND } }] },
          { content: "After the native call." },
          { content: leakWriting(COMMAND) },
          { content: "After the wake." },
        ],
        { permission: { "*": "allow", bash: "deny" }, plugin: [pluginEntry({ providers: ["fake"], debug: true })] },
      );
      const nativeSession = await newSession(client);
      await prompt(client, nativeSession, "write it");
      const leakSession = await newSession(client);
      const leakReply = await prompt(client, leakSession, "write it");
      await settleAfter({ server, client }, model, leakSession, 4);

      const requests = model.mainRequests();
      for (const request of requests) expect(request.body.tools.map((t: any) => t.function.name)).not.toContain("bash");

      const native = (await sessionMessages(client, nativeSession)).flatMap(toolParts);
      expect(native.map((p) => [p.tool, p.state.status])).toEqual([["invalid", "completed"]]);
      expect(native[0].state.input.tool).toBe("bash");
      expect(native[0].state.output).toContain("unavailable tool 'bash'");

      // The leak names a tool the request did not declare: no call, the text stays, and the model is
      // told (the idle wake's request carries the undeclared-tool correction).
      expect(toolParts(leakReply)).toHaveLength(0);
      expect(partsText(leakReply)).toBe(leakWriting(COMMAND));
      const leakMessages = await sessionMessages(client, leakSession);
      expect(leakMessages.flatMap(toolParts)).toHaveLength(0);
      expect(countOf(systemText(requests[3]!), correctionText("undeclared-tool"))).toBe(1);
      expect(countOf(requestText(requests[3]!), correctionText("undeclared-tool"))).toBe(1);
      expect(logLines(server.output(), "[dsml] response ").some((l) => l.includes("nudge=undeclared-tool"))).toBe(true);
      expect(existsSync(path.join(project.dir, "denied.txt"))).toBe(false);
    },
    TIMEOUT,
  );
});

describe("default provider list", () => {
  test(
    "a catalog provider configured only by an API key: OpenCode starts and answers; the out-of-scope fake provider is left alone",
    async () => {
      const leak = leakWriting("echo scoped > scoped.txt");
      const { client, project, model } = await start([{ content: "Hello from fake." }, { content: leak }], {
        env: { DEEPSEEK_API_KEY: "sk-fake" },
        plugin: [pluginEntry({})],
      });
      const providers = await client.config.providers();
      const list: any[] = (providers.data as any)?.providers ?? [];
      const deepseek = list.find((p) => p.id === "deepseek");
      expect(deepseek).toBeDefined();
      // The plugin writes nothing into the config (its fetch sits behind globalThis.fetch): OpenCode
      // lists the provider exactly as without it.
      expect(deepseek.source).toBe("env");
      expect(Object.keys(deepseek.models)).toContain("deepseek-flash");
      expect(list.find((p) => p.id === "fake")).toBeDefined();

      const sessionID = await newSession(client);
      const first = await prompt(client, sessionID, "hello");
      expect(first.info.providerID).toBe("fake");
      expect(partsText(first)).toBe("Hello from fake.");
      // "fake-model" is of no leak-prone family: under the default scope its leaks are not touched.
      const second = await prompt(client, sessionID, "write it");
      expect(partsText(second)).toBe(leak);
      expect(toolParts(second)).toHaveLength(0);
      expect(existsSync(path.join(project.dir, "scoped.txt"))).toBe(false);
      expect(model.mainRequests()).toHaveLength(2);
    },
    TIMEOUT,
  );

  test(
    "the catalog deepseek provider (only a baseURL configured) gets the repair: a leak on deepseek/deepseek-flash runs",
    async () => {
      const { client, server, project, model } = await start(
        [{ reasoning: "I should write the file.", content: leakWriting("echo catalog > catalog.txt") }, { content: "Done." }],
        { env: { DEEPSEEK_API_KEY: "sk-fake" }, plugin: [pluginEntry({})] },
        (config, url) => {
          config.model = "deepseek/deepseek-flash";
          config.provider.deepseek = { options: { baseURL: url } };
        },
      );
      const sessionID = await newSession(client);
      const reply = await prompt(client, sessionID, "write it");
      expect(reply.info.providerID).toBe("deepseek");
      await settleAfter({ server, client }, model, sessionID, 2);

      expect(readFileSync(path.join(project.dir, "catalog.txt"), "utf8")).toBe("catalog\n");
      const main = model.mainRequests();
      expect(main.map((r) => r.body.model)).toEqual(["deepseek-flash", "deepseek-flash"]);
      expect(main[0]!.headers.authorization).toBe("Bearer sk-fake");
      const assistant = messagesOf(main[1]!, "assistant").find((m: any) => Array.isArray(m.tool_calls));
      expect(assistant.tool_calls[0].function.name).toBe("bash");
      expect(JSON.parse(assistant.tool_calls[0].function.arguments)).toEqual({ command: "echo catalog > catalog.txt" });
      expect(messagesOf(main[1]!, "tool")[0].tool_call_id).toBe(assistant.tool_calls[0].id);
      const messages = await sessionMessages(client, sessionID);
      expect(messages.flatMap(toolParts).map((p) => [p.tool, p.state.status])).toEqual([["bash", "completed"]]);
    },
    TIMEOUT,
  );
});
