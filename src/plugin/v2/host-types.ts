// The OpenCode 2 plugin API this package relies on, written locally (no runtime or type import of
// an OpenCode package: 2.x is not installable from npm for 1.18 users, and the 1.18 types differ).
// Only the members used here are declared. Every shape was read in anomalyco/opencode (re-verified
// for the V2 entry; the file and commit sit next to each declaration below):
//   P  packages/plugin/src/promise/plugin.ts    @ 0ef9ef4be011358f55c5a01e78d55beb033f4746, 26b15a99d6549b57b57b9a8f22e7963898030a71
//   A  packages/plugin/src/app.ts               @ 7527ad801f4bfae7917c2e256aa10f25235c7983
//   S  packages/plugin/src/promise/session.ts   @ 03545fd3bb099af708c5f1146c42c10c7f24c359 (and ee2e318ec718f47df6dbd858108a8094a303bfcf)
//   R  packages/plugin/src/promise/registration.ts @ baf3a6591a154eba7164fd50c8105c6f5b003658 (Registration)
//   H  packages/core/src/plugin/hooks.ts        @ 0f2daebab09744095deb6a12c230aa7430e830ca (ModelHookOptions, the providerID filter)
//   N  packages/core/src/session/model-http.ts  @ 962bbe5724c782e0d1b95fec0709f5d21156f1b8 (when http.request / http.response fire)
//   X  packages/core/src/plugin/promise.ts      @ 0a80062dfbf050dfc5af99839fbae9483d936ce3 (the promise adapter: how hooks and calls are forwarded)
//   C  packages/client/src/promise/generated/client.ts @ 01b3146925c03d354f9fb6fa5985ae95911c9439 (session.prompt, session.wait)
//   K  packages/plugin/src/promise/aisdk.ts     @ baf3a6591a154eba7164fd50c8105c6f5b003658, packages/plugin/src/effect/aisdk.ts @ 0c37fe7a513156dcece3543cbc80941072292019
//   M  packages/schema/src/model.ts             @ 24c757639e89dea8088a1d24703400aac927f1f8 (Model.Ref, Model.Info)
//   G  packages/ai/src/schema/messages.ts       @ 2b33fbee34033a1dda531675f1bdc229da5fb90e (Message, SystemPart)
//   E  packages/plugin/src/promise/event.ts     @ 31ee1d62fe1b1e1bc2a525dc6659da4fb77239a1 (EventDomain: `subscribe()` -> AsyncIterable), ee1d7f4bf6b14522adbeb69329df0f410c913ae1
//   V  packages/schema/src/session-event.ts     @ 03130971e20a847d77cd70e13faabca0de4f512d (session.execution.succeeded / failed / interrupted)
//      packages/schema/src/event.ts             @ 162a75f99cc10925fe2922b86940b72a49dbb60b (the envelope: `type`, `data`, `id`, `created`, ...)
//   T  packages/core/src/session/execution.ts   @ 074027a42be55b42fefa04d2be15951fe5e84b81 (which terminal event an execution ends with)
//      packages/core/src/session/run-coordinator.ts @ 074027a42be55b42fefa04d2be15951fe5e84b81 (published before `wait` resolves)
//   B  packages/core/src/plugin/host.ts and packages/schema/src/event-manifest.ts @ 014a439e5f023ffa8eae33e9c43b40f5f64b359c (what the plugin's stream carries)
// Not in the 2.x Context (P, A): any logging domain, and any hook on a finished text part.
import type { LanguageModelV3 } from "@ai-sdk/provider";

/** R: what every `hook()` resolves to. */
export interface V2Registration {
  readonly dispose: () => Promise<void>;
}

/** M: `Model.Ref`, which provider and model a session request is for. */
export interface V2ModelRef {
  readonly providerID: string;
  readonly id: string;
  readonly variant?: string;
}

/** S: why a session request is made. */
export type V2RequestKind = "primary" | "compaction" | "title" | "generate";

/** G: `Message`, content is a list of parts (text, media, tool-call, tool-result, reasoning). */
export interface V2Message {
  id?: string;
  role: "system" | "user" | "assistant" | "tool";
  content: ReadonlyArray<{ type: string; text?: string; [key: string]: unknown }>;
  [key: string]: unknown;
}

/** G: `SystemPart`. */
export interface V2SystemPart {
  type: "text";
  text: string;
  [key: string]: unknown;
}

/**
 * S: `SessionContext` (= `SessionRequest` + agent and tools), the request about to be built;
 * `system` and `messages` are the plugin's to rewrite in place. `kind` is on `SessionRequest` at
 * 03545fd3 only (ee2e318e dropped it): read where present, so a title or compaction request never
 * takes the primary request's correction (setup.ts primaryRequest), never relied on.
 */
export interface V2SessionContext {
  readonly sessionID: string;
  readonly agent: string;
  readonly model: V2ModelRef;
  readonly kind?: V2RequestKind;
  system: V2SystemPart[];
  messages: V2Message[];
  options: Record<string, unknown>;
  tools: Record<string, { description: string; input: unknown }>;
}

/**
 * S: `SessionHttpRequest`. N: fired for every outgoing model request of a provider with an HTTP
 * hook (the host then sends a copy of `request`'s body, so the object stays unread); `request` may
 * be replaced.
 */
export interface V2SessionHttpRequest {
  readonly sessionID: string;
  readonly agent: string;
  readonly model: V2ModelRef;
  readonly kind: V2RequestKind;
  request: Request;
}

/** S: `SessionHttpResponse`. N: `request` is the object http.request ended with; `response` may be replaced. */
export interface V2SessionHttpResponse {
  readonly sessionID: string;
  readonly agent: string;
  readonly model: V2ModelRef;
  readonly kind: V2RequestKind;
  readonly request: Request;
  response: Response;
}

/** S: the subset of `SessionHooks` this plugin registers. */
export interface V2SessionHooks {
  context: V2SessionContext;
  "http.request": V2SessionHttpRequest;
  "http.response": V2SessionHttpResponse;
}

/** H: `ModelHookOptions`. The host skips a hook whose providerID differs from `event.model.providerID`. */
interface V2ModelHookOptions {
  readonly providerID?: string;
}

/** R (later form): the second argument, `InvocationContext`; older hosts pass none. */
interface V2InvocationContext {
  readonly signal: AbortSignal;
}

/**
 * S, H: `ModelHooks<SessionHooks>`. X: a callback's rejection becomes a defect of the request it
 * runs for, so every callback here is guarded and never throws.
 */
type V2SessionHook = <Name extends keyof V2SessionHooks>(
  name: Name,
  callback: (input: V2SessionHooks[Name], context?: V2InvocationContext) => Promise<void> | void,
  options?: V2ModelHookOptions,
) => Promise<V2Registration>;

/** M: `Model.Info` as the aisdk hooks pass it; only what the scope reads. */
interface V2ModelInfo {
  /** OpenCode's model id. */
  readonly id: string;
  /** The id sent upstream. */
  readonly modelID?: string;
  readonly providerID: string;
  readonly family?: string;
  /** The AI SDK package serving the model, when the model names its own. */
  readonly package?: string;
  readonly [key: string]: unknown;
}

/** K: any model the effect form may hand over (`LanguageModelV3 | LanguageModelV4`); only v3 is wrapped. */
interface V2AnyLanguageModel {
  readonly specificationVersion: string;
  readonly [key: string]: unknown;
}

/** K: the `language` event; `language` may be replaced. */
export interface V2LanguageEvent {
  readonly model: V2ModelInfo;
  readonly sdk: unknown;
  readonly options: Record<string, unknown>;
  language?: LanguageModelV3 | V2AnyLanguageModel;
}

interface V2AisdkHooks {
  language: V2LanguageEvent;
}

/** K: `Hooks<AISDKHooks>` (the effect form takes a ModelHookOptions too; not needed here). */
type V2AisdkHook = <Name extends keyof V2AisdkHooks>(
  name: Name,
  callback: (input: V2AisdkHooks[Name], context?: V2InvocationContext) => Promise<void> | void,
) => Promise<V2Registration>;

/**
 * C: `session.prompt` body `{ id, text, files, agents, metadata, delivery, resume }`; X forwards
 * `delivery: null` as unset. "queue" waits for the running turn instead of steering it; `resume`
 * left unset lets the host schedule the agent loop ("Durably admit one session input and schedule
 * agent-loop execution unless resume is false", the server's session.prompt route description).
 */
export interface V2PromptInput {
  readonly sessionID: string;
  readonly text: string;
  readonly delivery?: "steer" | "queue" | null;
  readonly id?: string | null;
  readonly metadata?: Record<string, unknown>;
  readonly resume?: boolean | null;
}

/** C: `session.prompt` resolves to the admitted inbox entry. */
interface V2PromptAdmitted {
  readonly id: string;
  readonly sessionID: string;
  readonly delivery: "steer" | "queue";
  readonly [key: string]: unknown;
}

/**
 * C: `session.get({ sessionID })` resolves to the unwrapped `SessionV2Info` (`.then((value) =>
 * value.data)`), whose `parentID` is set for a sub-agent's session (packages/schema/src/session.ts
 * @ 06f9d1a63517d67c5fc28875294b245c93ac2507: `parentID: ID.pipe(optional)`). S picks `get` into
 * `SessionDomain`; X forwards it (`get: (input) => run(host.session.get({ sessionID }))`).
 */
interface V2SessionInfo {
  readonly id: string;
  readonly parentID?: string;
  readonly [key: string]: unknown;
}

/**
 * V: the three events an execution ends with, one per busy period (T: the `settled` hook of the
 * run coordinator publishes it). E, X: the plugin receives the event envelope made plain (`wire`:
 * dates become epoch milliseconds), so what it reads is `type` and `data`. T: `session.interrupt`
 * (the user's stop) ends with `interrupted` and `reason: "user"`; a process shutdown with
 * `"shutdown"`; a failure with `failed` and `data.error` (`{ type, message, status? }`).
 */
export type V2ExecutionEvent =
  | { readonly type: "session.execution.succeeded"; readonly data: { readonly sessionID: string } }
  | { readonly type: "session.execution.failed"; readonly data: { readonly sessionID: string; readonly error: { readonly type: string; readonly message: string; readonly status?: number } } }
  | { readonly type: "session.execution.interrupted"; readonly data: { readonly sessionID: string; readonly reason: "user" | "shutdown" | "superseded" } };

/**
 * E: `EventDomain`. `subscribe()` gives every server event of the plugin's location (B: the bus
 * filtered by `EventManifest.isServer`, whose list holds the session events) as an async iterable.
 * E @ 31ee1d62 also declares `subscribe(type)`, but X forwards no argument (`subscribe: () =>
 * Stream.toAsyncIterable(host.event.subscribe()...)`), so it is called without one and filtered here.
 */
interface V2EventDomain {
  readonly subscribe: () => AsyncIterable<unknown>;
}

/** A: `App`. */
interface V2App {
  readonly name: string;
  readonly version: string;
  readonly channel?: string;
}

/**
 * P: `Context`, the members used. `prompt` and `wait` are `SessionDomain` picks of the client's
 * `SessionApi` (S, C); `wait` (POST /session/:id/wait, 204) resolves once the session is idle.
 * `get` (C, X) reads a session's info. All three are optional here: X at 0a80062d forwards no
 * `wait`, so a host may lack it; without all three there is no idle wake.
 */
export interface V2Context {
  readonly app?: V2App;
  readonly options?: unknown;
  readonly aisdk: { readonly hook: V2AisdkHook };
  /** P, E: optional here: without it no abort is seen (a stopped reply may still get its wake). */
  readonly event?: V2EventDomain;
  readonly session: {
    readonly hook: V2SessionHook;
    readonly prompt?: (input: V2PromptInput) => Promise<V2PromptAdmitted | unknown>;
    readonly wait?: (input: { readonly sessionID: string }) => Promise<void>;
    readonly get?: (input: { readonly sessionID: string }) => Promise<V2SessionInfo | unknown>;
  };
}

/** P: `Cleanup`. */
export type V2Cleanup = () => Promise<void> | void;

/** P: `Plugin["setup"]`. */
export type V2Setup = (context: V2Context) => Promise<V2Cleanup | void> | V2Cleanup | void;
