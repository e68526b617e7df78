/**
 * Smoke tests of the e2e harness against the real opencode binary, without any plugin.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { createOpencodeClient } from "@opencode-ai/sdk";
import {
  EXHAUSTED_ANSWER,
  eventText,
  exportSession,
  runOpencode,
  setup,
  startServe,
  toolUses,
  type ServeHandle,
} from "./harness.ts";

const TIMEOUT = 90_000;

let teardowns: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const t of teardowns.reverse()) await t().catch(() => {});
  teardowns = [];
});

describe("e2e harness (real opencode, no plugin)", () => {
  test(
    "a scripted native bash call runs and its result goes back to the model; export sees the session",
    async () => {
      const env = await setup([
        {
          toolCalls: [
            { name: "bash", arguments: { command: "echo hi > marker.txt", description: "write marker" } },
          ],
        },
        { content: "Marker written." },
      ]);
      teardowns.push(env.teardown);
      const { model, project } = env;

      const run = await runOpencode(project, "write the marker file", { timeoutMs: 60_000 });
      expect(run.timedOut).toBe(false);
      expect(run.code).toBe(0);

      // The tool really ran in the project dir.
      const marker = path.join(project.dir, "marker.txt");
      expect(existsSync(marker)).toBe(true);
      expect(readFileSync(marker, "utf8").trim()).toBe("hi");

      // The run reported it.
      const uses = toolUses(run.events);
      expect(uses).toHaveLength(1);
      expect(uses[0].tool).toBe("bash");
      expect(uses[0].state.status).toBe("completed");
      expect(uses[0].state.input.command).toBe("echo hi > marker.txt");
      expect(eventText(run.events)).toBe("Marker written.");

      // Main requests carry the tools; the title request did not consume the script.
      const main = model.mainRequests();
      expect(main).toHaveLength(2);
      expect(model.remaining()).toBe(0);
      const names = main[0]!.body.tools.map((t: any) => t.function.name);
      expect(names).toContain("bash");
      const userMsg = main[0]!.body.messages.find((m: any) => m.role === "user");
      expect(JSON.stringify(userMsg.content)).toContain("write the marker file");

      // The second request replays the call and carries the tool result.
      const msgs: any[] = main[1]!.body.messages;
      const assistant = msgs.find((m) => m.role === "assistant" && Array.isArray(m.tool_calls));
      expect(assistant.tool_calls[0].function.name).toBe("bash");
      const callId = assistant.tool_calls[0].id;
      const toolMsg = msgs.find((m) => m.role === "tool");
      expect(toolMsg).toBeDefined();
      expect(toolMsg.tool_call_id).toBe(callId);
      expect(typeof toolMsg.content).toBe("string");

      // opencode export returns the stored session.
      expect(run.sessionID).toMatch(/^ses_/);
      const exported = await exportSession(project, run.sessionID!);
      expect(exported.info.id).toBe(run.sessionID);
      const parts = exported.messages.flatMap((m) => m.parts);
      expect(parts.some((p) => p.type === "tool" && p.tool === "bash" && p.state?.status === "completed")).toBe(
        true,
      );
    },
    TIMEOUT,
  );

  test(
    "a plain text reply split into tiny chunks arrives intact as one text event",
    async () => {
      const reply = 'Here is a reply with <tags>, "quotes", a \\ backslash,\nnewlines and unicode \u00e9\u4e2d.';
      const env = await setup([{ content: reply, chunkSize: 3 }]);
      teardowns.push(env.teardown);
      const message = "say 42 things -x --format  exactly\nplease";

      const run = await runOpencode(env.project, message, { timeoutMs: 60_000 });
      expect(run.code).toBe(0);
      const texts = run.events.filter((e) => e.type === "text");
      expect(texts).toHaveLength(1);
      expect(texts[0]!.part.text).toBe(reply);
      expect(run.events.map((e) => e.type)).toEqual(["step_start", "text", "step_finish"]);

      // The message reached the model byte for byte (it goes through stdin).
      const main = env.model.mainRequests();
      expect(main).toHaveLength(1);
      const user = main[0]!.body.messages.find((m: any) => m.role === "user");
      const content = typeof user.content === "string" ? user.content : user.content.map((p: any) => p.text).join("");
      expect(content).toBe(message);
      // --print-logs puts OpenCode's logs on stderr.
      expect(run.stderr).toContain("level=INFO");
    },
    TIMEOUT,
  );

  test(
    "opencode serve driven by @opencode-ai/sdk answers a prompt",
    async () => {
      const env = await setup([{ reasoning: "Thinking it over.", content: "Hello from serve." }]);
      teardowns.push(env.teardown);
      const server: ServeHandle = await startServe(env.project);
      teardowns.push(() => server.stop());

      const client = createOpencodeClient({ baseUrl: server.url });
      const created = await client.session.create({ body: {} });
      const sessionID = created.data!.id;
      expect(sessionID).toMatch(/^ses_/);

      const answer = await client.session.prompt({
        path: { id: sessionID },
        body: { parts: [{ type: "text", text: "hello" }] },
      });
      const parts: any[] = answer.data!.parts;
      expect(parts.find((p) => p.type === "text")?.text).toBe("Hello from serve.");
      expect(parts.find((p) => p.type === "reasoning")?.text).toBe("Thinking it over.");

      const messages = await client.session.messages({ path: { id: sessionID } });
      expect(messages.data!.map((m) => m.info.role)).toEqual(["user", "assistant"]);
      expect(env.model.mainRequests()).toHaveLength(1);
      expect(env.model.remaining()).toBe(0);

      // Script exhausted: the next prompt gets the fallback answer.
      const again = await client.session.prompt({
        path: { id: sessionID },
        body: { parts: [{ type: "text", text: "again" }] },
      });
      const againParts: any[] = again.data!.parts;
      expect(againParts.find((p) => p.type === "text")?.text).toBe(EXHAUSTED_ANSWER);
    },
    TIMEOUT,
  );
});

describe("fake model server (no opencode)", () => {
  async function post(url: string, body: unknown) {
    return fetch(`${url}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
  }
  function sse(text: string): any[] {
    return text
      .split("\n")
      .filter((l) => l.startsWith("data: "))
      .map((l) => l.slice(6))
      .map((d) => (d === "[DONE]" ? "[DONE]" : JSON.parse(d)));
  }
  const tools = [{ type: "function", function: { name: "bash", parameters: { type: "object" } } }];

  test("streams content in chunks, answers titles without consuming the script, then falls back", async () => {
    const env = await setup([{ reasoning: "hmm", content: "abcdefghij", chunkSize: 4 }]);
    teardowns.push(env.teardown);
    const { model } = env;

    const title = await post(model.url, {
      messages: [{ role: "system", content: "You are a title generator. ..." }, { role: "user", content: "x" }],
      stream: false,
    }).then((r) => r.json() as Promise<any>);
    expect(title.object).toBe("chat.completion");
    expect(title.choices[0].message.content).toBe("Fake session title");
    expect(model.remaining()).toBe(1);

    const res = await post(model.url, {
      messages: [{ role: "user", content: "x" }],
      tools,
      stream: true,
      stream_options: { include_usage: true },
    });
    expect(res.headers.get("content-type")).toContain("text/event-stream");
    const events = sse(await res.text());
    expect(events.at(-1)).toBe("[DONE]");
    const chunks = events.slice(0, -1);
    const deltas = chunks.flatMap((c) => c.choices.map((ch: any) => ch.delta));
    expect(deltas.map((d) => d.reasoning_content ?? "").join("")).toBe("hmm");
    const contents = deltas.map((d) => d.content).filter((c) => c);
    expect(contents).toEqual(["abcd", "efgh", "ij"]);
    expect(chunks.flatMap((c) => c.choices.map((ch: any) => ch.finish_reason)).filter(Boolean)).toEqual(["stop"]);
    expect(chunks.at(-1).usage.total_tokens).toBeGreaterThan(0);

    const fallback = await post(model.url, { messages: [], tools, stream: false }).then((r) => r.json() as any);
    expect(fallback.choices[0].message.content).toBe("done.");
    expect(model.mainRequests()).toHaveLength(2);
    expect(model.titleRequests()).toHaveLength(1);
  });

  test("native tool calls, non-streamed and streamed", async () => {
    const turn = { toolCalls: [{ name: "bash", arguments: { command: "ls" } }] };
    const env = await setup([turn, turn]);
    teardowns.push(env.teardown);

    const plain = await post(env.model.url, { messages: [], tools }).then((r) => r.json() as any);
    expect(plain.choices[0].finish_reason).toBe("tool_calls");
    expect(JSON.parse(plain.choices[0].message.tool_calls[0].function.arguments)).toEqual({ command: "ls" });

    const events = sse(await (await post(env.model.url, { messages: [], tools, stream: true })).text());
    const calls = events
      .slice(0, -1)
      .flatMap((c) => c.choices.flatMap((ch: any) => ch.delta.tool_calls ?? []));
    expect(calls[0].function.name).toBe("bash");
    expect(calls[0].id).toMatch(/^call_/);
    expect(JSON.parse(calls.map((c: any) => c.function.arguments ?? "").join(""))).toEqual({ command: "ls" });
    expect(events.slice(0, -1).flatMap((c) => c.choices.map((ch: any) => ch.finish_reason)).filter(Boolean)).toEqual([
      "tool_calls",
    ]);
  });
});
