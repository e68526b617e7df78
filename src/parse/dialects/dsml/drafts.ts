import type { Tag } from "../../../grammar/tags.ts";

// What the DSML walk (walk.ts) reads out of a span's tags, before anything is judged: one draft
// per invoke, one per parameter, and the facts about the block around them. The verdict
// (verdict.ts) decides from these alone whether a draft is a call.

/** How a parameter's value ended when its own closer did not end it cleanly (P01-P03, P11). */
export type CloseFlaw = "" | "P01" | "P02" | "P03" | "P11";

export interface ParamDraft {
  name: string;
  /** The `string=` type hint: "true" the value is text, "false" it is JSON (where the schema allows). */
  hint: "true" | "false" | undefined;
  opener: Tag;
  /** The value's text in the span; valueEnd is -1 while it is open. */
  valueStart: number;
  valueEnd: number;
  closed: boolean;
  flaw: CloseFlaw;
  /** A wrapped tool's parameters (I02: the parameter is named after a tool); null for a value. */
  children: ParamDraft[] | null;
  /** A self-closing parameter's value, read from its attribute (the span holds no value text). */
  literal?: string;
  /** An invoke closer inside the value was read as its text (the closer rule); only the value's own parameter closer may then end it. */
  closerAsText?: boolean;
}

export interface InvokeDraft {
  start: number;
  end: number;
  name: string | null;
  /** The `name` attribute ran into the text after it (I01). */
  nameRunaway: boolean;
  params: ParamDraft[];
  /** Text outside every parameter: a JSON body (I04), or what breaks a call with parameters. */
  body: string;
  closed: boolean;
  /** No block was open around it (B05). */
  orphan: boolean;
  /** Which block of the span it stands in (1 for the first, an enclosing block's included), -1 for none (an orphan). */
  block: number;
  /** Opened by a parameter outside any invoke: only a wrapped tool (I02) can be a call then. */
  paramRoot: boolean;
  /** The element form, `<function><name>bash</name>` (I09). */
  element: boolean;
  /** The tags it read, its opener first. */
  tags: Tag[];
  /** The element form: where the text of `<name>` starts, -1 before it opens. */
  nameStart: number;
  /**
   * Markup in the body that no parameter read (a self-closing element without a readable value, a
   * DSML element that is no parameter, a tag inside a value that ended early): why the call cannot
   * be trusted to carry what the model wrote. Text outside parameters is counted in `body`.
   */
  unread: string | null;
  /** I11: opened by a DSML tag named after the tool; its children are named after its parameters. */
  toolNamed: boolean;
  /** What ended it: its own closer (or its block's), the next invoke's opener, or the end of the span. */
  endedBy: "closer" | "next" | "end";
  /**
   * Where the markup after it starts when the next invoke ended it: that opener, or a block opener
   * written before it while this invoke was still open (the model started over). -1 otherwise.
   */
  resumeAt: number;
  /** A value held an invoke closer as its text and something else than its own parameter closer ended it (DsmlWalk.cutShort). */
  cutShort: boolean;
}

/** What the walk learned about the block around a span's invokes: every invoke's verdict weighs it. */
export interface BlockFacts {
  /** The block's tags (an enclosing block's opener first), in the order they were read. */
  readonly blockTags: readonly Tag[];
  /** A block tag of this span names an attribute twice: none of its calls may run. */
  readonly repeatedBlockAttr: boolean;
  /** The span opens with a stray wrapper line the engine took into it (`call`, issue 29 item 7). */
  readonly strayLine: boolean;
}
