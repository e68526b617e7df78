// The OpenCode 2 plugin API this package relies on, written locally (no runtime or type import of
// an OpenCode package: 2.x is not installable from npm for 1.18 users, and the 1.18 types differ).
// Only the members used here are declared; every shape comes from anomalyco/opencode:
//   packages/plugin/src/promise/plugin.ts       @ 0ef9ef4be011358f55c5a01e78d55beb033f4746 and 26b15a99d6549b57b57b9a8f22e7963898030a71
//     (Context, Plugin; neither has a logging domain)
//   packages/plugin/src/promise/session.ts      @ 03545fd3bb099af708c5f1146c42c10c7f24c359 (SessionHooks, SessionDomain)
//   packages/plugin/src/promise/aisdk.ts        @ baf3a6591a154eba7164fd50c8105c6f5b003658 (AISDKHooks)
//   packages/plugin/src/promise/registration.ts @ baf3a6591a154eba7164fd50c8105c6f5b003658 (Registration; the
//     later ModelHooks form adds `options?: { providerID?: string }` and a second `{ signal }` argument)
//   packages/ai/src/schema/messages.ts          @ 2b33fbee34033a1dda531675f1bdc229da5fb90e (Message, SystemPart)
// `session.prompt({ sessionID, text, delivery })` follows published 2.x plugins (its SessionApi type
// lives in @opencode/client, not in the plugin package).
import type { LanguageModelV3 } from "@ai-sdk/provider";

export interface V2Registration {
  readonly dispose: () => Promise<void>;
}

/** `Model.Ref`: which provider and model a session request is for. */
export interface V2ModelRef {
  readonly providerID: string;
  readonly id: string;
  readonly variant?: string;
}

export type V2RequestKind = "primary" | "compaction" | "title" | "generate";

export interface V2TextPart {
  type: "text";
  text: string;
  [key: string]: unknown;
}

/** `LLM.Message`: content is a list of parts (text, media, tool-call, tool-result, reasoning). */
export interface V2Message {
  id?: string;
  role: "system" | "user" | "assistant" | "tool";
  content: ReadonlyArray<{ type: string; text?: string; [key: string]: unknown }>;
  [key: string]: unknown;
}

export interface V2SystemPart {
  type: "text";
  text: string;
  [key: string]: unknown;
}

/** `SessionContext`: the request about to be built; `system` and `messages` are the plugin's to rewrite. */
export interface V2SessionContext {
  readonly sessionID: string;
  readonly agent: string;
  readonly model: V2ModelRef;
  readonly kind: V2RequestKind;
  system: V2SystemPart[];
  messages: V2Message[];
  [key: string]: unknown;
}

export interface V2SessionHttpRequest {
  readonly sessionID: string;
  readonly agent: string;
  readonly model: V2ModelRef;
  readonly kind: V2RequestKind;
  request: Request;
}

export interface V2SessionHttpResponse {
  readonly sessionID: string;
  readonly agent: string;
  readonly model: V2ModelRef;
  readonly kind: V2RequestKind;
  readonly request: Request;
  response: Response;
}

export interface V2SessionHooks {
  context: V2SessionContext;
  "http.request": V2SessionHttpRequest;
  "http.response": V2SessionHttpResponse;
}

export interface V2ModelHookOptions {
  /** Limits the hook to one provider; unscoped hooks apply to every provider. */
  readonly providerID?: string;
}

export type V2SessionHook = <Name extends keyof V2SessionHooks>(
  name: Name,
  callback: (input: V2SessionHooks[Name], context?: { readonly signal?: AbortSignal }) => Promise<void> | void,
  options?: V2ModelHookOptions,
) => Promise<V2Registration>;

/** `Model.Info` as the aisdk hooks pass it; only what the scope reads. */
export interface V2ModelInfo {
  readonly id?: string;
  readonly providerID?: string;
  readonly family?: string;
  readonly api?: { readonly id?: string; readonly npm?: string };
  readonly [key: string]: unknown;
}

export interface V2LanguageEvent {
  readonly model: V2ModelInfo;
  readonly sdk: unknown;
  readonly options: Record<string, unknown>;
  language?: LanguageModelV3;
}

export interface V2AisdkHooks {
  language: V2LanguageEvent;
}

export type V2AisdkHook = <Name extends keyof V2AisdkHooks>(name: Name, callback: (input: V2AisdkHooks[Name]) => Promise<void> | void) => Promise<V2Registration>;

export interface V2Context {
  readonly app?: { readonly name?: string; readonly version?: string };
  readonly options?: unknown;
  readonly aisdk: { readonly hook: V2AisdkHook };
  readonly session: {
    readonly hook: V2SessionHook;
    readonly prompt?: (input: { sessionID: string; text: string; delivery?: "queue" | "steer" }) => Promise<unknown>;
    readonly wait?: (input: { sessionID: string }) => Promise<unknown>;
  };
}

export type V2Cleanup = () => Promise<void> | void;

export type V2Setup = (context: V2Context) => Promise<V2Cleanup | void> | V2Cleanup | void;
